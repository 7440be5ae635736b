// SPDX-License-Identifier: MIT
/*
 * The scheduling each end reports (load_sched.c), table-driven: names and
 * their parser, the trip through a RESULTS message and back (an older peer's
 * RESULTS, without the flag, give "unknown"), and what a thread reads back.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "load_sched.h"

static const struct {
	struct load_sched s;
	const char *name;
} cases[] = {
	{ { LOAD_SCHED_OTHER, 0 }, "other" },
	{ { LOAD_SCHED_FIFO, 1 }, "fifo:1" },
	{ { LOAD_SCHED_FIFO, 99 }, "fifo:99" },
	{ { LOAD_SCHED_RR, 5 }, "rr:5" },
};

static void test_names(void **state)
{
	struct load_sched u = { LOAD_SCHED_UNKNOWN, 0 }, back;
	char buf[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_string_equal(load_sched_name(&cases[i].s, buf, sizeof(buf)), cases[i].name);
		assert_true(load_sched_parse(cases[i].name, &back));
		assert_int_equal(back.policy, cases[i].s.policy);
		assert_int_equal(back.prio, cases[i].s.prio);
	}
	assert_string_equal(load_sched_name(&u, buf, sizeof(buf)), "unknown");
}

static void test_parse_rejects(void **state)
{
	static const char *const bad[] = { "",	       "unknown", "fifo",    "fifo:", "fifo:0",
					   "fifo:100", "rr:-1",	  "fifo:1x", "OTHER", "fifo: 1" };
	struct load_sched s;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(load_sched_parse(bad[i], &s));
}

static void test_results_trip(void **state)
{
	struct proto_results r;
	struct load_sched back;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&r, 0, sizeof(r));
		r.flags = PROTO_SS_GSO; /* other bits stay as they were */
		load_sched_put(&cases[i].s, &r);
		assert_true(r.flags & PROTO_SS_GSO);
		load_sched_get(&r, &back);
		assert_int_equal(back.policy, cases[i].s.policy);
		assert_int_equal(back.prio, cases[i].s.prio);
	}
	/* an older peer: no flag, a zero byte: unknown, not "other" */
	memset(&r, 0, sizeof(r));
	load_sched_get(&r, &back);
	assert_int_equal(back.policy, LOAD_SCHED_UNKNOWN);
}

static void test_read_back(void **state)
{
	struct udp_stream us[3];
	struct load_sched s;

	(void)state;
	memset(us, 0, sizeof(us));
	for (int i = 0; i < 3; i++)
		us[i].sched_policy = SCHED_OTHER;
	load_sched_of(us, 3, &s);
	assert_int_equal(s.policy, LOAD_SCHED_OTHER);
	/* one real-time thread is enough to say so, with its priority */
	us[1].sched_policy = SCHED_FIFO;
	us[1].sched_prio = LOAD_SCHED_FIFO_PRIO;
	load_sched_of(us, 3, &s);
	assert_int_equal(s.policy, LOAD_SCHED_FIFO);
	assert_int_equal(s.prio, LOAD_SCHED_FIFO_PRIO);
	/* TCP: the caller's own policy, which its threads inherit */
	load_sched_of(NULL, 0, &s);
	assert_int_not_equal(s.policy, LOAD_SCHED_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_results_trip),
		cmocka_unit_test(test_read_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
