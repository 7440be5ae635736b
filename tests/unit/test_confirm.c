// SPDX-License-Identifier: MIT
/* run --confirm's pure half: what a rerun of a limited TCP figure may apply
 * of its fix (a lab's own sysctls, the test's own -w and -C; never a host's
 * setting it did not make, never BBR where BBR runs), and how the figure
 * before and after reads; run.json keeps the reruns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "confirm.h"
#include "results.h"

static void test_plan(void **state)
{
	struct tcp_limit_verdict v;
	struct confirm_plan p;

	(void)state;
	memset(&v, 0, sizeof(v));
	v.limit = TCP_LIMIT_RWND;
	v.fix_value = 4u << 20;
	confirm_plan_of(&v, true, &p);
	assert_int_equal(p.action, CONFIRM_RMEM);
	assert_int_equal(p.value, 4u << 20);
	/* between hosts the far host's sysctl is its owner's: the test's -w */
	confirm_plan_of(&v, false, &p);
	assert_int_equal(p.action, CONFIRM_SOCK_BUF);
	/* ... within the net.core.rmem_max that caps SO_RCVBUF there (a
	 * stock Debian host's 212992 B): a -w above it would be cut to it */
	v.sock_buf_value = 212992;
	v.sock_buf_max = 212992;
	confirm_plan_of(&v, false, &p);
	assert_int_equal(p.action, CONFIRM_SOCK_BUF);
	assert_int_equal(p.value, 212992);
	assert_int_equal(p.max, 212992);
	assert_non_null(strstr(p.max_name, "net.core.rmem_max of the receiving host"));
	/* in the lab its own sysctl, whatever -w could do */
	confirm_plan_of(&v, true, &p);
	assert_int_equal(p.action, CONFIRM_RMEM);
	assert_int_equal(p.value, 4u << 20);
	v.sock_buf_value = v.sock_buf_max = 0;
	/* the test set -w itself: a larger -w, in the lab too */
	v.sock_buf_fix = true;
	confirm_plan_of(&v, true, &p);
	assert_int_equal(p.action, CONFIRM_SOCK_BUF);
	v.sock_buf_fix = false;
	v.limit = TCP_LIMIT_SNDBUF;
	confirm_plan_of(&v, true, &p);
	assert_int_equal(p.action, CONFIRM_WMEM);
	/* loss with -C bbr suggested (cubic ran): -C bbr; BBR running: none */
	v.limit = TCP_LIMIT_LOSS;
	snprintf(v.fix, sizeof(v.fix),
		 "the path; a congestion control that tolerates it: -C bbr "
		 "(cubic now)");
	confirm_plan_of(&v, false, &p);
	assert_int_equal(p.action, CONFIRM_CONGESTION);
	assert_string_equal(p.cc, "bbr");
	snprintf(v.fix, sizeof(v.fix), "the path between the hosts (its links, middleboxes)");
	confirm_plan_of(&v, false, &p);
	assert_int_equal(p.action, CONFIRM_NONE);
	/* the network's rate, a CPU, unknown: nothing ovlperf may apply */
	v.limit = TCP_LIMIT_NETWORK_RATE;
	confirm_plan_of(&v, true, &p);
	assert_int_equal(p.action, CONFIRM_NONE);
	assert_non_null(strstr(p.why, "network rate"));
	v.limit = TCP_LIMIT_OVERLAY_CPU;
	confirm_plan_of(&v, false, &p);
	assert_int_equal(p.action, CONFIRM_NONE);
}

static void test_words_and_json(void **state)
{
	struct results_run run, back;
	struct results_confirm *c;
	char buf[256], err[256], path[] = "/tmp/test_confirm_XXXXXX";
	int fd;

	(void)state;
	results_init(&run);
	assert_true(results_add_path(&run, "underlay", RESULTS_PATH_UNDERLAY, "198.18.0.2", 1500) >=
		    0);
	run.nconfirms = 2;
	c = &run.confirms[0];
	*c = (struct results_confirm){ .streams = 1,
				       .limit_before = "receive window",
				       .limit_after = "network rate",
				       .before_bps = 50e6,
				       .after_bps = 81e6,
				       .applied =
					       "net.ipv4.tcp_rmem maximum 262144 -> 4194304 B on "
					       "lab host 1",
				       .restored = true };
	confirm_words(c, buf, sizeof(buf));
	assert_string_equal(buf, "confirmed: +62 % with net.ipv4.tcp_rmem maximum 262144 -> "
				 "4194304 B on lab host 1, now limited by network rate");
	c->after_bps = 51e6;
	snprintf(c->limit_after, sizeof(c->limit_after), "receive window");
	confirm_words(c, buf, sizeof(buf));
	assert_non_null(strstr(buf, "not moved: +2 %"));
	assert_non_null(strstr(buf, "still limited by receive window"));
	run.confirms[1] = (struct results_confirm){ .streams = 4,
						    .limit_before = "network rate",
						    .before_bps = 290e6,
						    .note = "no fix of a network rate limit that "
							    "ovlperf may apply",
						    .restored = true };
	confirm_words(&run.confirms[1], buf, sizeof(buf));
	assert_string_equal(buf,
			    "not rerun: no fix of a network rate limit that ovlperf may apply");
	/* run.json keeps them */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(results_write_json(&run, path), 0);
	assert_int_equal(results_read_json(path, &back, err, sizeof(err)), 0);
	unlink(path);
	assert_int_equal(back.nconfirms, 2);
	assert_string_equal(back.confirms[0].applied, run.confirms[0].applied);
	assert_true(back.confirms[0].after_bps == 51e6 && back.confirms[0].restored);
	assert_int_equal(back.confirms[1].streams, 4);
	assert_string_equal(back.confirms[1].note, run.confirms[1].note);
	results_free(&back);
	results_free(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_words_and_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
