// SPDX-License-Identifier: MIT
/* One host's facts as JSON and back: every field survives, a second trip
 * writes the same text, an end that did not report stays unknown with
 * why, and a document without them (an older run.json) reads as not
 * recorded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hostfacts_fixture.h"
#include "hostfacts_json.h"

static char *text_of(const struct hostfacts *c, const struct hostfacts *s, cJSON **doc)
{
	*doc = cJSON_CreateObject();
	assert_non_null(*doc);
	assert_true(cJSON_AddItemToObject(*doc, "host_facts", hostfacts_json_pair(c, s)));
	return cJSON_PrintUnformatted(*doc);
}

static void test_round_trip(void **state)
{
	struct hostfacts c, s, c2, s2;
	cJSON *doc, *doc2;
	char *t1, *t2;

	(void)state;
	sample(&c);
	hostfacts_unknown(&s, "not reported by server ovlperf 0.1.0");
	t1 = text_of(&c, &s, &doc);
	hostfacts_json_read_pair(doc, &c2, &s2);
	assert_true(c2.known);
	assert_int_equal(c2.nprocs, 2);
	assert_int_equal(c2.procs[1].found_by, HOSTFACTS_BY_TUN | HOSTFACTS_BY_PROCESS);
	assert_string_equal(c2.procs[1].tun, "fawg0");
	assert_int_equal(c2.procs[1].udp_port, 51820);
	assert_true(c2.procs[1].cgroup.found);
	assert_int_equal(c2.procs[1].cgroup.throttled_ns, 2401000000ULL);
	assert_int_equal(c2.procs[1].cgroup.nr_throttled, 34);
	assert_false(c2.procs[0].cgroup.found);
	assert_true(c2.baseline_cores == 0.25);
	assert_true(c2.rest_moved);
	assert_int_equal(c2.softirq_busiest, 1);
	assert_int_equal(c2.softnet_squeezed, 1ULL << 40);
	assert_int_equal(c2.links[0].tx_drops, 9876);
	assert_true(c2.links[0].tun);
	assert_int_equal(c2.socks[0].family, 6);
	assert_string_equal(c2.cc, "bbr");
	assert_int_equal(c2.tcp_rmem[2], 6291456);
	assert_false(s2.known);
	assert_string_equal(s2.unknown, "not reported by server ovlperf 0.1.0");
	t2 = text_of(&c2, &s2, &doc2);
	assert_string_equal(t1, t2);
	free(t1);
	free(t2);
	cJSON_Delete(doc);
	cJSON_Delete(doc2);
}

static void test_absent(void **state)
{
	struct hostfacts c, s;
	cJSON *doc = cJSON_Parse("{\"seq\": 1}");

	(void)state;
	hostfacts_json_read_pair(doc, &c, &s);
	assert_false(c.known);
	assert_string_equal(c.unknown, "not recorded");
	assert_false(s.known);
	cJSON_Delete(doc);
	/* the wrong types read as unknown, never as a figure */
	doc = cJSON_Parse("{\"host_facts\": {\"client\": {\"known\": true, \"machine\": 3,"
			  " \"processes\": 7, \"tcp\": \"bbr\"}}}");
	hostfacts_json_read_pair(doc, &c, &s);
	assert_true(c.known);
	assert_int_equal(c.nprocs, 0);
	assert_true(c.baseline_cores < 0);
	assert_false(c.sysctl_known);
	cJSON_Delete(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_absent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
