// SPDX-License-Identifier: MIT
/*
 * The knee search's choice of the next trial alone (knee_select.c): a
 * history measured on a simulated system (knee_fixture.h: a sharp knee, a
 * sender that tops out or falls short by a share, noise) is fed to the
 * bookkeeping, and the table says which trial must come next, worked out
 * from the rules in knee_select.c's and knee.h's comments with the
 * defaults (1 s trials, exceed ratio 50 %, duration sum three trials): the
 * first at max_rate, a jump to the rate the path delivered, a step up from
 * a lower bound, the middle of the rates that finish the search, the
 * repeat of a trial the sender fell short in, the goal's trials at the
 * coarse bounds, another trial at a load the goal left undecided, a step
 * down when noise made a load an upper bound, the end, and the end at a
 * rate the sender failed twice or one an eighth of the width below it that
 * was classified already.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "knee_fixture.h"

struct row {
	const char *name;
	struct knee_history h;
	enum knee_select want;
	uint64_t rate_bps; /* KNEE_SELECT_TRIAL: the trial wanted */
	enum knee_phase phase;
	enum knee_target target;
};

static const struct row rows[] = {
	{ "first trial: max_rate, short", .want = KNEE_SELECT_TRIAL, 1000 * M, KNEE_PHASE_MRR,
	  KNEE_PDR },
	{ "sharp knee: the path delivered 47 of 1000, the next trial is 47",
	  .h.sys = { .knee = 47e6 }, .h.steps = { MRR(1000) }, .want = KNEE_SELECT_TRIAL, 47 * M,
	  KNEE_PHASE_NARROW, KNEE_NDR },
	{ "sharp knee: 47 passed, a step of the width above it (47 / 0.99)",
	  .h.sys = { .knee = 47e6 }, .h.steps = { MRR(1000), S(47) }, .want = KNEE_SELECT_TRIAL,
	  47474747, KNEE_PHASE_NARROW, KNEE_NDR },
	{ "sharp knee: within twice the width, the middle of what ends it (sqrt(100.98 * 101.01))",
	  .h.sys = { .knee = 100e6 }, .h.steps = { MRR(1000), S(100), S(102) },
	  .want = KNEE_SELECT_TRIAL, 100995049, KNEE_PHASE_NARROW, KNEE_NDR },
	{ "sharp knee: the coarse target done, the goal's trial at its lower bound",
	  .h.sys = { .knee = 100e6 }, .h.steps = { MRR(1000), S(100), S(101) },
	  .want = KNEE_SELECT_TRIAL, 100 * M, KNEE_PHASE_CONFIRM, KNEE_NDR },
	{ "sharp knee: then at its upper bound", .h.sys = { .knee = 100e6 },
	  .h.steps = { MRR(1000), S(100), S(101), F(100) }, .want = KNEE_SELECT_TRIAL, 101 * M,
	  KNEE_PHASE_CONFIRM, KNEE_NDR },
	{ "sharp knee: both classified for both goals, done", .h.sys = { .knee = 100e6 },
	  .h.steps = { MRR(1000), S(100), S(101), F(100), F(101) }, .want = KNEE_SELECT_DONE },
	{ "noisy: a pass and a loss at the lower bound, a third trial there",
	  .h.sys = { .knee = 100e6 }, .h.steps = { MRR(1000), S(100), S(101), NOISY_F(100) },
	  .want = KNEE_SELECT_TRIAL, 100 * M, KNEE_PHASE_CONFIRM, KNEE_NDR },
	{ "noisy: two losses of three, an upper bound: a step down (100 * (1 - 8 %))",
	  .h.sys = { .knee = 100e6 },
	  .h.steps = { MRR(1000), S(100), S(101), NOISY_F(100), NOISY_F(100) },
	  .want = KNEE_SELECT_TRIAL, 92 * M, KNEE_PHASE_NARROW, KNEE_NDR },
	{ "noisy: one loss of three, a lower bound: on to the upper bound",
	  .h.sys = { .knee = 100e6 },
	  .h.steps = { MRR(1000), S(100), S(101), NOISY_F(100), F(100) }, .want = KNEE_SELECT_TRIAL,
	  101 * M, KNEE_PHASE_CONFIRM, KNEE_NDR },
	/* the same trial (the fixture records every trial for the NDR) */
	{ "generator-limited: a trial the sender fell short in is repeated at once",
	  .h.sys = { .gen_max = 80e6 }, .h.steps = { MRR(1000) }, .want = KNEE_SELECT_TRIAL,
	  1000 * M, KNEE_PHASE_RETRY, KNEE_NDR },
	{ "generator-limited: short by a share, a step up from what was sent (90 / 0.99)",
	  .h.sys = { .knee = 100e6, .share = 0.9 }, .h.steps = { MRR(1000), S(100), RETRY(100) },
	  .want = KNEE_SELECT_TRIAL, 90909091, KNEE_PHASE_NARROW, KNEE_NDR },
	{ "generator-limited: what was sent within the width of the limit, done",
	  .h.sys = { .gen_max = 80e6 }, .h.width_goal = 0.02,
	  .h.steps = { MRR(1000), RETRY(1000), S(81), RETRY(81), F(80) },
	  .want = KNEE_SELECT_DONE },
	{ "noisy sender: the next rate is one it fell short in twice, an eighth of the width below",
	  .h.sys = { .knee = 125e6 },
	  .h.steps = { MRR(1000), SHORT_BY(100, 0.05), RETRY_BY(100, 0.05), S(120), S(130),
		       SHORT_BY(124.89996, 0.2), RETRY_BY(124.89996, 0.2) },
	  .want = KNEE_SELECT_TRIAL, 124743835, KNEE_PHASE_NARROW, KNEE_NDR },
	{ "noisy sender: that one failed twice too, stuck", .h.sys = { .knee = 125e6 },
	  .h.steps = { MRR(1000), SHORT_BY(100, 0.05), RETRY_BY(100, 0.05), S(120), S(130),
		       SHORT_BY(124.89996, 0.2), RETRY_BY(124.89996, 0.2),
		       SHORT_BY(124.743835, 0.2), RETRY_BY(124.743835, 0.2),
		       SHORT_BY(124.587905, 0.2), RETRY_BY(124.587905, 0.2) },
	  .want = KNEE_SELECT_STUCK },
	{ "a sender that fell short twice at 900, apart: 900 is asked no third time, and the "
	  "rate an eighth of the width below, classified already, not again: stuck",
	  .h.sys = { .knee = 950e6 }, .h.width_goal = 0.2,
	  .h.steps = { MRR(1000),
		       F(877.5),
		       F(877.5),
		       { 900, 'F', KNEE_PHASE_CONFIRM, 0, 0.05 },
		       { 900, 'F', KNEE_PHASE_RETRY, 0, 0 },
		       { 900, 'F', KNEE_PHASE_CONFIRM, 0, 0.05 },
		       { 900, 'F', KNEE_PHASE_RETRY, 2e-5, 0 } },
	  .want = KNEE_SELECT_STUCK },
	{ "stalled sender: 2 % short twice below a load it held: asked again, not stuck",
	  .h.sys = { .knee = 125e6 },
	  .h.steps = { MRR(1000), SHORT_BY(100, 0.02), RETRY_BY(100, 0.02) },
	  .want = KNEE_SELECT_TRIAL, 100 * M, KNEE_PHASE_RETRY, KNEE_NDR },
	{ "noisy sender: before the repeat, that rate (sqrt(120 * 130))",
	  .h.sys = { .knee = 125e6 },
	  .h.steps = { MRR(1000), SHORT_BY(100, 0.05), RETRY_BY(100, 0.05), S(120), S(130) },
	  .want = KNEE_SELECT_TRIAL, 124899960, KNEE_PHASE_NARROW, KNEE_NDR },
};

static void test_next(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *rw = &rows[i];
		struct knee_config cfg;
		struct knee_bounds b, before;
		struct knee_trial t, again;
		enum knee_select got;

		fix_config(&rw->h, &cfg);
		fix_feed(&rw->h, &cfg, &b);
		before = b;
		memset(&t, 0, sizeof(t));
		got = knee_select_next(&b, &cfg, &t);
		print_message("%s: %s %.6f Mbit/s %s %s\n", rw->name,
			      got == KNEE_SELECT_TRIAL	? knee_phase_name(t.phase)
			      : got == KNEE_SELECT_DONE ? "done"
							: "stuck",
			      (double)t.rate_bps / 1e6, t.duration_ns >= cfg.final_ns ? "F" : "S",
			      knee_target_name(t.target));
		/* pure: the bounds are untouched and the answer the same twice */
		assert_memory_equal(&b, &before, sizeof(b));
		memset(&again, 0, sizeof(again));
		assert_int_equal(knee_select_next(&b, &cfg, &again), got);
		if (got != rw->want)
			fail_msg("%s: selection %d, expected %d", rw->name, got, rw->want);
		if (got != KNEE_SELECT_TRIAL)
			continue;
		assert_memory_equal(&t, &again, sizeof(t));
		if (t.rate_bps != rw->rate_bps)
			fail_msg("%s: rate %llu, expected %llu", rw->name,
				 (unsigned long long)t.rate_bps, (unsigned long long)rw->rate_bps);
		assert_int_equal(t.duration_ns,
				 t.phase == KNEE_PHASE_CONFIRM ? cfg.final_ns : cfg.short_ns);
		assert_int_equal(t.phase, rw->phase);
		assert_int_equal(t.target, rw->target);
	}
}

/* The selection never leaves the search's range: every narrowing rate a
 * history of passes and fails on a sharp knee leads to lies in
 * [min_rate, max_rate] and strictly between the bounds it narrows. */
static void test_stays_in_range(void **state)
{
	static const double knees[] = { 0.5e6, 3e6, 47e6, 100e6, 333e6, 999e6, 2000e6 };

	(void)state;
	for (size_t i = 0; i < sizeof(knees) / sizeof(knees[0]); i++) {
		struct knee_history h = { .sys = { .knee = knees[i] } };
		struct knee_config cfg;
		struct knee_bounds b;
		struct knee_trial t;
		unsigned n = 0;

		fix_config(&h, &cfg);
		knee_bounds_init(&b, &cfg);
		while (knee_select_next(&b, &cfg, &t) == KNEE_SELECT_TRIAL && n++ < 40) {
			struct step st = { (double)t.rate_bps / 1e6,
					   t.duration_ns >= cfg.final_ns ? 'F' : 'S', t.phase, 0,
					   0 };
			struct knee_measurement m = fix_measure(&h.sys, &st);
			struct knee_rel r;

			knee_bounds_relevant(&b, &cfg, &b.target[0][t.target], &r);
			assert_true(t.rate_bps >= cfg.min_rate_bps &&
				    t.rate_bps <= cfg.max_rate_bps);
			if (t.phase == KNEE_PHASE_NARROW && r.lower_valid)
				assert_true(t.rate_bps > r.lower);
			if (t.phase == KNEE_PHASE_NARROW && r.upper_valid)
				assert_true(t.rate_bps < r.upper);
			assert_int_equal(knee_bounds_add(&b, &cfg, &t, &m), 0);
		}
		assert_true(n < 40);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next),
		cmocka_unit_test(test_stays_in_range),
	};

	return cmocka_run_group_tests_name("knee_select", tests, NULL, NULL);
}
