// SPDX-License-Identifier: MIT
/*
 * The knee search's bookkeeping alone (knee_bounds.c): trial histories fed
 * in as a table, measured on simulated systems (a sharp knee, a sender that
 * tops out, one short of every rate by a share, noise in single trials),
 * and what the bounds must say after them: each goal's highest rate known
 * to pass and lowest known to fail, the generator's limit, whether the last
 * trial is to be repeated, and the outcome. No rate choice is involved: the
 * trials are the table's, not knee_select.c's.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "knee_fixture.h"

/* What one goal's bounds must be; 0: no such bound. */
struct want_side {
	double lower_m, upper_m;
	bool lower_final, upper_final, upper_gen;
	bool narrowed;
	enum knee_outcome outcome;
};

struct row {
	const char *name;
	struct knee_history h;
	struct want_side ndr, pdr;
	double gen_limit_m; /* 0: no generator limit */
	bool retry_due;
	bool final_mode[KNEE_NTARGETS];
};

static const struct row rows[] = {
	{ "sharp knee: a pass and a fail across it, short trials only", .h.sys = { .knee = 100e6 },
	  .h.steps = { MRR(1000), S(100), S(101) },
	  .ndr = { 100, 101, .narrowed = true, .outcome = KNEE_UNFINISHED },
	  .pdr = { 100, 101, .narrowed = true, .outcome = KNEE_UNFINISHED } },
	{ "sharp knee: both bounds confirmed in full-length trials", .h.sys = { .knee = 100e6 },
	  .h.steps = { MRR(1000), S(100), S(101), F(100), F(101) },
	  .ndr = { 100, 101, true, true, .narrowed = true, .outcome = KNEE_FOUND },
	  .pdr = { 100, 101, true, true, .narrowed = true, .outcome = KNEE_FOUND } },
	{ "sharp knee: 0.5 % loss passes the PDR, fails the NDR", .h.sys = { .knee = 200e6 },
	  .h.steps = { MRR(1000), S(200), S(201) },
	  .ndr = { 200, 201, .narrowed = true, .outcome = KNEE_UNFINISHED },
	  .pdr = { 201, 1000, .outcome = KNEE_UNFINISHED } },
	{ "sharp knee: passing at max_rate in full length is above max",
	  .h.sys = { .knee = 2000e6 }, .h.steps = { MRR(1000), F(1000) },
	  .ndr = { 1000, 0, true, .narrowed = true, .outcome = KNEE_ABOVE_MAX },
	  .pdr = { 1000, 0, true, .narrowed = true, .outcome = KNEE_ABOVE_MAX } },
	{ "noisy: a full-length loss outranks the short pass at its rate",
	  .h.sys = { .knee = 100e6 }, .h.steps = { MRR(1000), S(100), S(101), NOISY_F(100) },
	  .ndr = { 0, 100, false, true, .outcome = KNEE_UNFINISHED },
	  .pdr = { 100, 101, true, false, .narrowed = true, .outcome = KNEE_UNFINISHED },
	  .final_mode = { true, false } },
	{ "noisy: a repeat that passes restores the bound the loss had moved",
	  .h.sys = { .knee = 100e6 },
	  .h.steps = { MRR(1000), S(100), S(101), NOISY_F(100), F(100) },
	  .ndr = { 100, 101, true, false, .narrowed = true, .outcome = KNEE_UNFINISHED },
	  .pdr = { 100, 101, true, false, .narrowed = true, .outcome = KNEE_UNFINISHED },
	  .final_mode = { true, false } },
	{ "noisy: one full-length loss at min_rate after passes above is not below min",
	  .h.sys = { .knee = 0 }, .h.min_rate_m = 20, .h.steps = { MRR(100), NOISY_F(20) },
	  .ndr = { 0, 20, false, true, .narrowed = true, .outcome = KNEE_UNFINISHED },
	  .pdr = { 100, 0, .outcome = KNEE_UNFINISHED }, .final_mode = { false, false } },
	{ "noisy: a second full-length loss at min_rate is", .h.sys = { .knee = 0 },
	  .h.min_rate_m = 20, .h.steps = { MRR(100), NOISY_F(20), NOISY_F(20) },
	  .ndr = { 0, 20, false, true, .narrowed = true, .outcome = KNEE_BELOW_MIN },
	  .pdr = { 100, 0, .outcome = KNEE_UNFINISHED } },
	{ "generator-limited: a trial it fell short in is repeated, a pass at what it sent",
	  .h.sys = { .gen_max = 80e6 }, .h.steps = { MRR(1000) },
	  .ndr = { 80, 0, .outcome = KNEE_UNFINISHED },
	  .pdr = { 80, 0, .outcome = KNEE_UNFINISHED }, .retry_due = true },
	{ "generator-limited: short twice, the rate is the generator's limit",
	  .h.sys = { .gen_max = 80e6 }, .h.steps = { MRR(1000), RETRY(1000) },
	  .ndr = { 80, 1000, .upper_gen = true, .outcome = KNEE_UNFINISHED },
	  .pdr = { 80, 1000, .upper_gen = true, .outcome = KNEE_UNFINISHED }, .gen_limit_m = 1000 },
	{ "generator-limited: the limit comes down to the lowest rate short twice",
	  .h.sys = { .gen_max = 80e6 }, .h.width_goal = 0.02,
	  .h.steps = { MRR(1000), RETRY(1000), S(81), RETRY(81), F(80) },
	  .ndr = { 80, 81, true, false, true, true, KNEE_GENERATOR_LIMIT },
	  .pdr = { 80, 81, true, false, true, true, KNEE_GENERATOR_LIMIT }, .gen_limit_m = 81 },
	{ "generator-limited: a trial that lost more than the goal is a fail, not repeated",
	  .h.sys = { .knee = 50e6, .gen_max = 80e6 }, .h.steps = { MRR(1000) },
	  .ndr = { 0, 1000, .outcome = KNEE_UNFINISHED },
	  .pdr = { 0, 1000, .outcome = KNEE_UNFINISHED } },
	{ "generator-limited: short by a share, passes count at what was sent",
	  .h.sys = { .knee = 100e6, .share = 0.9 }, .h.steps = { MRR(1000), S(100), RETRY(100) },
	  .ndr = { 90, 100, .upper_gen = true, .outcome = KNEE_UNFINISHED },
	  .pdr = { 90, 100, .upper_gen = true, .outcome = KNEE_UNFINISHED }, .gen_limit_m = 100 },
	{ "generator-limited: short passes above a full-length limit are no lower bound",
	  .h.sys = { .gen_max = 100e6, .gen_max_long = 90e6 },
	  .h.steps = { MRR(1000), RETRY(1000), S(100), F(100), RETRY_F(100) },
	  .ndr = { 90, 100, true, false, true, .outcome = KNEE_UNFINISHED },
	  .pdr = { 90, 100, true, false, true, .outcome = KNEE_UNFINISHED }, .gen_limit_m = 100,
	  .final_mode = { true, true } },
	/* the history knee_select.c ends "stuck" on (test_knee_select.c) */
	{ "noisy sender: short twice below a pass, the limit bounds nothing",
	  .h.sys = { .knee = 125e6 },
	  .h.steps = { MRR(1000), SHORT_BY(100, 0.05), RETRY_BY(100, 0.05), S(120), S(130),
		       SHORT_BY(124.89996, 0.2), RETRY_BY(124.89996, 0.2) },
	  .ndr = { 120, 130, .outcome = KNEE_UNFINISHED },
	  .pdr = { 120, 130, .outcome = KNEE_UNFINISHED }, .gen_limit_m = 100 },
};

/* The table's row whose name starts with prefix. */
static const struct row *row_named(const char *prefix)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!strncmp(rows[i].name, prefix, strlen(prefix)))
			return &rows[i];
	fail_msg("no row %s", prefix);
	return NULL;
}

static void check_rate(const char *row, const char *what, bool valid, uint64_t bps, double want_m)
{
	if (want_m == 0 && !valid)
		return;
	if (want_m == 0 || !valid || fabs((double)bps - want_m * 1e6) > 1)
		fail_msg("%s: %s is %s%.6f Mbit/s, expected %.6f", row, what,
			 valid ? "" : "(none) ", (double)bps / 1e6, want_m);
}

static void check_side(const struct row *rw, const struct knee_bounds *b,
		       const struct knee_config *cfg, enum knee_target t, const struct want_side *w)
{
	const struct knee_side *s = &b->side[t];
	enum knee_outcome o = knee_bounds_outcome(b, cfg, t, false);
	const char *name = knee_target_name(t);

	print_message("  %s [%s%.3f, %s%.3f%s] %s\n", name,
		      s->lower_dur >= cfg->final_ns ? "F " : "", (double)s->lower / 1e6,
		      s->upper_dur >= cfg->final_ns ? "F " : "", (double)s->upper / 1e6,
		      s->upper_gen ? " gen" : "", knee_outcome_name(o));
	check_rate(rw->name, name, s->lower_valid, s->lower, w->lower_m);
	check_rate(rw->name, name, s->upper_valid, s->upper, w->upper_m);
	assert_int_equal(s->lower_valid && s->lower_dur >= cfg->final_ns, w->lower_final);
	assert_int_equal(s->upper_valid && s->upper_dur >= cfg->final_ns, w->upper_final);
	assert_int_equal(s->upper_gen, w->upper_gen);
	assert_int_equal(knee_bounds_narrowed(b, cfg, t), w->narrowed);
	if (o != w->outcome)
		fail_msg("%s: %s outcome %s, expected %s", rw->name, name, knee_outcome_name(o),
			 knee_outcome_name(w->outcome));
}

static void test_histories(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *rw = &rows[i];
		struct knee_config cfg;
		struct knee_bounds b;

		print_message("%s\n", rw->name);
		fix_config(&rw->h, &cfg);
		fix_feed(&rw->h, &cfg, &b);
		check_side(rw, &b, &cfg, KNEE_NDR, &rw->ndr);
		check_side(rw, &b, &cfg, KNEE_PDR, &rw->pdr);
		assert_int_equal(b.gen_limited, rw->gen_limit_m > 0);
		check_rate(rw->name, "generator limit", b.gen_limited, b.gen_limit,
			   rw->gen_limit_m);
		assert_int_equal(b.retry_due, rw->retry_due);
		assert_int_equal(b.final_mode[KNEE_NDR], rw->final_mode[KNEE_NDR]);
		assert_int_equal(b.final_mode[KNEE_PDR], rw->final_mode[KNEE_PDR]);
	}
}

/* What knee_bounds_get() hands on: the bounds, the MRR (the first trial's
 * receive rate), what was sent in the trials that set them, the trial time. */
static void test_result(void **state)
{
	const struct row *rw = row_named("generator-limited: short by a share");
	struct knee_config cfg;
	struct knee_bounds b;
	struct knee_result res;
	const struct knee_bound *ndr = &res.bound[KNEE_NDR];

	(void)state;
	fix_config(&rw->h, &cfg);
	fix_feed(&rw->h, &cfg, &b);
	knee_bounds_get(&b, &cfg, false, &res);
	assert_int_equal(res.ntrials, 3);
	assert_int_equal(res.trial_ns, 3 * cfg.short_ns);
	assert_int_equal(res.mrr_bps, 100 * M); /* 900 sent into a 100 shaper */
	assert_true(res.generator_limited);
	assert_int_equal(res.generator_limit_bps, 100 * M);
	assert_false(res.done);
	assert_true(ndr->lower_valid && ndr->upper_is_generator_limit);
	assert_int_equal(ndr->lower_trial, 2); /* the newer of two equal passes */
	assert_int_equal(ndr->upper_trial, 2); /* the trial that set the limit */
	assert_int_equal(ndr->lower_bps, 90 * M);
	assert_int_equal(ndr->lower_achieved_bps, 90 * M);
	assert_int_equal(ndr->upper_achieved_bps, 90 * M);
	/* the same generator limit found stuck ends the search there */
	rw = row_named("generator-limited: the limit comes down");
	fix_config(&rw->h, &cfg);
	fix_feed(&rw->h, &cfg, &b);
	cfg.width_goal = 0.01; /* 80 .. 81 is wider */
	assert_int_equal(knee_bounds_outcome(&b, &cfg, KNEE_NDR, false), KNEE_UNFINISHED);
	assert_int_equal(knee_bounds_outcome(&b, &cfg, KNEE_NDR, true), KNEE_GENERATOR_LIMIT);
}

/* Trials the generator could not offer at one rate and duration, counted
 * for the selection's "never a third time"; a loss above the goal is a
 * fail, not one of them. */
static void test_unsustained(void **state)
{
	static const struct {
		const char *row;
		double rate_m;
		char len;
		unsigned want;
	} cases[] = {
		{ "generator-limited: short twice", 1000, 'S', 2 },
		{ "generator-limited: short twice", 1000, 'F', 0 },
		{ "generator-limited: short twice", 80, 'S', 0 },
		{ "generator-limited: a trial it fell short in", 1000, 'S', 1 },
		{ "generator-limited: a trial that lost more", 1000, 'S', 0 },
		{ "generator-limited: short passes above", 100, 'F', 2 },
		{ "noisy sender", 124.89996, 'S', 2 },
		{ "noisy sender", 100, 'S', 2 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct row *rw = row_named(cases[i].row);
		struct knee_config cfg;
		struct knee_bounds b;
		struct knee_trial t;

		fix_config(&rw->h, &cfg);
		fix_feed(&rw->h, &cfg, &b);
		t = (struct knee_trial){ .rate_bps = (uint64_t)llround(cases[i].rate_m * 1e6),
					 .duration_ns = cases[i].len == 'F' ? cfg.final_ns
									    : cfg.short_ns };
		assert_int_equal(knee_bounds_unsustained(&b, &cfg, &t), cases[i].want);
	}
}

static void test_classify_and_width(void **state)
{
	static const struct {
		double loss;
		bool gen;
		enum knee_verdict want;
	} cases[] = {
		{ 0, false, KNEE_PASS },	 { 0.004, false, KNEE_PASS_PDR },
		{ 0.005, false, KNEE_PASS_PDR }, { 0.006, false, KNEE_FAIL },
		{ 0, true, KNEE_INVALID },	 { 0.5, true, KNEE_INVALID },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct knee_measurement m = { .loss_ratio = cases[i].loss,
					      .generator_limited = cases[i].gen };

		assert_int_equal(knee_classify(&m, 0.005), cases[i].want);
	}
	assert_true(knee_bounds_width(99 * M, 100 * M) == 0.01);
	assert_true(knee_bounds_width(0, 0) == 0);
}

static void test_full(void **state)
{
	struct knee_config cfg;
	struct knee_bounds b;
	struct knee_trial t = { .rate_bps = 10 * M, .duration_ns = SEC };
	struct knee_measurement m = { .offered_bps = 10 * M, .achieved_bps = 10 * M };

	(void)state;
	knee_config_defaults(&cfg);
	cfg.max_rate_bps = 100 * M;
	cfg.min_rate_bps = M;
	knee_bounds_init(&b, &cfg);
	for (unsigned i = 0; i < KNEE_MAX_TRIALS; i++)
		assert_int_equal(knee_bounds_add(&b, &cfg, &t, &m), 0);
	assert_int_equal(knee_bounds_add(&b, &cfg, &t, &m), -ENOSPC);
	assert_int_equal(b.ntrials, KNEE_MAX_TRIALS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_histories),   cmocka_unit_test(test_result),
		cmocka_unit_test(test_unsustained), cmocka_unit_test(test_classify_and_width),
		cmocka_unit_test(test_full),
	};

	return cmocka_run_group_tests_name("knee_bounds", tests, NULL, NULL);
}
