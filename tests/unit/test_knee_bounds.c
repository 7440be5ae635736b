// SPDX-License-Identifier: MIT
/*
 * The knee search's bookkeeping alone (knee_bounds.c): trial histories fed
 * in as a table, measured on simulated systems (a sharp knee, a sender that
 * tops out, one short of every rate by a share, noise in single trials),
 * and what the bounds must say after them for each goal with the defaults
 * (1 s trials, exceed ratio 50 %, duration sum three trials): the relevant
 * lower and upper bound, whether the goal classified them or only the
 * coarse target before it (one trial per load), the generator's limit,
 * whether the last trial is to be repeated, and the outcome. Then RFC 9971's
 * load classification (Appendix A) and conditional throughput (Appendix B)
 * on hand-worked sums. No rate choice is involved: the trials are the
 * table's, not knee_select.c's.
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
	enum knee_outcome outcome;
};

struct row {
	const char *name;
	struct knee_history h;
	struct want_side ndr, pdr;
	double gen_limit_m; /* 0: no generator limit */
	bool retry_due;
};

#define NOISY_MRR(r)                                                                               \
	{                                                                                          \
		r, 'S', KNEE_PHASE_MRR, 2e-5, 0                                                    \
	}

static const struct row rows[] = {
	{ "sharp knee: a pass and a fail across it, one trial each: the coarse bounds",
	  .h.sys = { .knee = 100e6 }, .h.steps = { MRR(1000), S(100), S(101) },
	  .ndr = { 100, 101, .outcome = KNEE_UNFINISHED },
	  .pdr = { 100, 101, .outcome = KNEE_UNFINISHED } },
	{ "sharp knee: two trials of three agree at each bound: found", .h.sys = { .knee = 100e6 },
	  .h.steps = { MRR(1000), S(100), S(101), F(100), F(101) },
	  .ndr = { 100, 101, true, true, .outcome = KNEE_FOUND },
	  .pdr = { 100, 101, true, true, .outcome = KNEE_FOUND } },
	{ "sharp knee: 0.5 % loss passes the PDR, fails the NDR", .h.sys = { .knee = 200e6 },
	  .h.steps = { MRR(1000), S(200), S(201) }, .ndr = { 200, 201, .outcome = KNEE_UNFINISHED },
	  .pdr = { 201, 1000, .outcome = KNEE_UNFINISHED } },
	{ "sharp knee: passing at max_rate twice is above max", .h.sys = { .knee = 2000e6 },
	  .h.steps = { MRR(1000), F(1000) }, .ndr = { 1000, 0, true, .outcome = KNEE_ABOVE_MAX },
	  .pdr = { 1000, 0, true, .outcome = KNEE_ABOVE_MAX } },
	{ "noisy: a pass and a loss at a load leave the goal undecided there",
	  .h.sys = { .knee = 100e6 }, .h.steps = { MRR(1000), S(100), S(101), NOISY_F(100) },
	  .ndr = { 100, 101, .outcome = KNEE_UNFINISHED },
	  .pdr = { 100, 101, true, false, .outcome = KNEE_UNFINISHED } },
	{ "noisy: one loss in three trials is within the exceed ratio: found",
	  .h.sys = { .knee = 100e6 },
	  .h.steps = { MRR(1000), S(100), S(101), NOISY_F(100), F(100), F(101) },
	  .ndr = { 100, 101, true, true, .outcome = KNEE_FOUND },
	  .pdr = { 100, 101, true, true, .outcome = KNEE_FOUND } },
	{ "noisy: losses in two trials of three make the load an upper bound",
	  .h.sys = { .knee = 100e6 },
	  .h.steps = { MRR(1000), S(100), S(101), NOISY_F(100), NOISY_F(100) },
	  .ndr = { 0, 100, false, true, .outcome = KNEE_UNFINISHED },
	  .pdr = { 100, 101, true, false, .outcome = KNEE_UNFINISHED } },
	{ "noisy: one loss at min_rate is not below min", .h.sys = { .knee = 0 },
	  .h.min_rate_m = 20, .h.max_rate_m = 100, .h.steps = { NOISY_MRR(100), NOISY_F(20) },
	  .ndr = { 0, 20, .outcome = KNEE_UNFINISHED },
	  .pdr = { 100, 0, .outcome = KNEE_UNFINISHED } },
	{ "noisy: losses in two trials at min_rate are", .h.sys = { .knee = 0 }, .h.min_rate_m = 20,
	  .h.max_rate_m = 100, .h.steps = { NOISY_MRR(100), NOISY_F(20), NOISY_F(20) },
	  .ndr = { 0, 20, false, true, .outcome = KNEE_BELOW_MIN },
	  .pdr = { 20, 0, true, .outcome = KNEE_UNFINISHED } },
	{ "generator-limited: a trial it fell short in is repeated, no bound yet",
	  .h.sys = { .gen_max = 80e6 }, .h.steps = { MRR(1000) },
	  .ndr = { 0, 0, .outcome = KNEE_UNFINISHED }, .pdr = { 0, 0, .outcome = KNEE_UNFINISHED },
	  .retry_due = true },
	{ "generator-limited: short twice, the rate is the limit, what was sent the lower bound",
	  .h.sys = { .gen_max = 80e6 }, .h.steps = { MRR(1000), RETRY(1000) },
	  .ndr = { 80, 1000, true, true, true, .outcome = KNEE_UNFINISHED },
	  .pdr = { 80, 1000, true, true, true, .outcome = KNEE_UNFINISHED }, .gen_limit_m = 1000 },
	{ "generator-limited: the limit comes down to the lowest rate short twice",
	  .h.sys = { .gen_max = 80e6 }, .h.width_goal = 0.02,
	  .h.steps = { MRR(1000), RETRY(1000), S(81), RETRY(81), F(80) },
	  .ndr = { 80, 81, true, true, true, KNEE_GENERATOR_LIMIT },
	  .pdr = { 80, 81, true, true, true, KNEE_GENERATOR_LIMIT }, .gen_limit_m = 81 },
	{ "generator-limited: a trial that lost more than the goal is bad, not repeated",
	  .h.sys = { .knee = 50e6, .gen_max = 80e6 }, .h.steps = { MRR(1000) },
	  .ndr = { 0, 1000, .outcome = KNEE_UNFINISHED },
	  .pdr = { 0, 1000, .outcome = KNEE_UNFINISHED } },
	{ "generator-limited: short by a share, what was sent is the lower bound",
	  .h.sys = { .knee = 100e6, .share = 0.9 }, .h.steps = { MRR(1000), S(100), RETRY(100) },
	  .ndr = { 90, 100, true, true, true, .outcome = KNEE_UNFINISHED },
	  .pdr = { 90, 100, true, true, true, .outcome = KNEE_UNFINISHED }, .gen_limit_m = 100 },
	{ "jittery sender: a good final trial before it fell short twice there lifts no limit",
	  .h.width_goal = 0.1, .h.max_rate_m = 2000,
	  .h.steps = { MRR(2000),
		       F(1000),
		       { 1000, 'F', KNEE_PHASE_CONFIRM, 0, 0.05 },
		       { 1000, 'F', KNEE_PHASE_RETRY, 0, 0.05 } },
	  .ndr = { 950, 1000, true, true, true, .outcome = KNEE_GENERATOR_LIMIT },
	  .pdr = { 950, 1000, true, true, true, .outcome = KNEE_GENERATOR_LIMIT },
	  .gen_limit_m = 1000 },
	{ "jittery sender: ...but one after it does", .h.width_goal = 0.1, .h.max_rate_m = 2000,
	  .h.steps = { MRR(2000),
		       { 1000, 'F', KNEE_PHASE_CONFIRM, 0, 0.05 },
		       { 1000, 'F', KNEE_PHASE_RETRY, 0, 0.05 },
		       F(1000) },
	  .ndr = { 2000, 0, .outcome = KNEE_UNFINISHED },
	  .pdr = { 2000, 0, .outcome = KNEE_UNFINISHED }, .gen_limit_m = 1000 },
	{ "stalled sender: 2 % short twice below a load it held, repeated again, no limit",
	  .h.sys = { .knee = 125e6 },
	  .h.steps = { MRR(1000), SHORT_BY(100, 0.02), RETRY_BY(100, 0.02) },
	  .ndr = { 0, 1000, .outcome = KNEE_UNFINISHED },
	  .pdr = { 0, 1000, .outcome = KNEE_UNFINISHED }, .retry_due = true },
	{ "stalled sender: 4 % short (40 ms of 1 s) is no stall, twice is the limit",
	  .h.sys = { .knee = 125e6 },
	  .h.steps = { MRR(1000), SHORT_BY(100, 0.04), RETRY_BY(100, 0.04) },
	  .ndr = { 96, 100, true, true, true, .outcome = KNEE_UNFINISHED },
	  .pdr = { 96, 100, true, true, true, .outcome = KNEE_UNFINISHED }, .gen_limit_m = 100 },
	{ "stalled sender: 2 % short of a load it never held is no stall",
	  .h.steps = { { 1000, 'S', KNEE_PHASE_MRR, 0, 0.02 }, RETRY_BY(1000, 0.02) },
	  .ndr = { 980, 1000, true, true, true, .outcome = KNEE_UNFINISHED },
	  .pdr = { 980, 1000, true, true, true, .outcome = KNEE_UNFINISHED }, .gen_limit_m = 1000 },
	{ "stalled sender: a stall between two shortfalls keeps their count",
	  .h.sys = { .knee = 125e6 },
	  .h.steps = { MRR(1000), SHORT_BY(100, 0.04), RETRY_BY(100, 0.02), RETRY_BY(100, 0.04) },
	  .ndr = { 98, 100, true, true, true, .outcome = KNEE_UNFINISHED },
	  .pdr = { 98, 100, true, true, true, .outcome = KNEE_UNFINISHED }, .gen_limit_m = 100 },
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
	struct knee_result res;
	const struct knee_bound *kb = &res.bound[t];
	const char *name = knee_target_name(t);

	knee_bounds_get(b, cfg, false, &res);
	print_message("  %s [%s%.3f, %s%.3f%s] %s\n", name, kb->lower_final ? "F " : "",
		      (double)kb->lower_bps / 1e6, kb->upper_final ? "F " : "",
		      (double)kb->upper_bps / 1e6, kb->upper_is_generator_limit ? " gen" : "",
		      knee_outcome_name(kb->outcome));
	check_rate(rw->name, name, kb->lower_valid, kb->lower_bps, w->lower_m);
	check_rate(rw->name, name, kb->upper_valid, kb->upper_bps, w->upper_m);
	assert_int_equal(kb->lower_final, w->lower_final);
	assert_int_equal(kb->upper_final, w->upper_final);
	assert_int_equal(kb->upper_is_generator_limit, w->upper_gen);
	if (kb->outcome != w->outcome)
		fail_msg("%s: %s outcome %s, expected %s", rw->name, name,
			 knee_outcome_name(kb->outcome), knee_outcome_name(w->outcome));
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
	assert_true(ndr->lower_valid && ndr->upper_is_generator_limit && ndr->lower_is_sent);
	assert_int_equal(ndr->lower_trial, 1); /* the first of two equal sends */
	assert_int_equal(ndr->upper_trial, 2); /* the trial that set the limit */
	assert_int_equal(ndr->lower_bps, 90 * M);
	assert_int_equal(ndr->lower_achieved_bps, 90 * M);
	assert_int_equal(ndr->upper_achieved_bps, 90 * M);
	assert_int_equal(ndr->conditional_throughput_bps, 90 * M);
	assert_int_equal(res.nloads, 2);
	/* a found knee: the conditional throughput is the lower bound's load
	 * less the loss its trials stay within for half their time */
	rw = row_named("noisy: one loss in three");
	fix_config(&rw->h, &cfg);
	fix_feed(&rw->h, &cfg, &b);
	knee_bounds_get(&b, &cfg, false, &res);
	assert_int_equal(ndr->lower_bps, 100 * M);
	assert_int_equal(ndr->lower_ntrials, 3);
	assert_int_equal(ndr->lower_duration_ns, 3 * SEC);
	assert_int_equal(ndr->upper_ntrials, 2);
	assert_int_equal(ndr->conditional_throughput_bps, 100 * M);
	assert_true(ndr->upper_loss > 0.0099 && ndr->upper_loss < 0.0100);
	/* the same generator limit found stuck ends the search there */
	rw = row_named("generator-limited: the limit comes down");
	fix_config(&rw->h, &cfg);
	fix_feed(&rw->h, &cfg, &b);
	b.target[1][KNEE_NDR].width = 0.01; /* 80 .. 81 is wider */
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
		{ "generator-limited: short twice", 80, 'S', 0 },
		{ "generator-limited: a trial it fell short in", 1000, 'S', 1 },
		{ "generator-limited: a trial that lost more", 1000, 'S', 0 },
		{ "noisy sender", 124.89996, 'S', 2 },
		{ "noisy sender", 100, 'S', 2 },
		{ "stalled sender: 2 % short twice", 100, 'S', 0 },
		{ "stalled sender: 4 %", 100, 'S', 2 },
		{ "stalled sender: a stall between", 100, 'S', 2 },
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

/* RFC 9971 Appendix A on hand-worked sums (seconds), exceed ratio 50 %
 * and duration sum 3 s unless a row says otherwise. */
static void test_load_class(void **state)
{
	static const struct {
		double gl, bl, gs, bs; /* good/bad long, good/bad short */
		double er, sum;	       /* 0: the defaults */
		enum knee_class want;
	} cases[] = {
		{ 0, 0, 0, 0, 0, 0, KNEE_UNDECIDED }, /* nothing measured */
		{ 1, 0, 0, 0, 0, 0, KNEE_UNDECIDED }, /* 1 of 3 s good: could go either way */
		{ 2, 0, 0, 0, 0, 0, KNEE_LOWER },     /* 2 s good: at most 1 s bad to come */
		{ 0, 2, 0, 0, 0, 0, KNEE_UPPER },
		{ 1, 1, 0, 0, 0, 0, KNEE_UNDECIDED },
		{ 2, 1, 0, 0, 0, 0, KNEE_LOWER },
		{ 1, 2, 0, 0, 0, 0, KNEE_UPPER },
		{ 2, 2, 0, 0, 0, 0, KNEE_LOWER },  /* half bad: within the exceed ratio */
		{ 10, 0, 0, 0, 0, 0, KNEE_LOWER }, /* more than the sum: still lower */
		{ 3, 4, 0, 0, 0, 0, KNEE_UPPER },
		/* short trials: bad time balanced by good short time */
		{ 2, 0, 0, 1, 0, 0, KNEE_LOWER },
		{ 0, 0, 0, 4, 0, 0, KNEE_UPPER },     /* 4 s bad short: 1.5 s is the most */
		{ 0, 0, 4, 0, 0, 0, KNEE_UNDECIDED }, /* short good alone classifies nothing */
		{ 1, 0, 1, 2, 0, 0, KNEE_UNDECIDED }, /* 1 s balanced: 1 s bad left */
		/* exceed ratio 0: any bad time is an upper bound */
		{ 3, 0, 0, 0, 1e-9, 0, KNEE_LOWER },
		{ 30, 0, 0, 1, 1e-9, 0, KNEE_UPPER },
		/* exceed ratio 90 %, one trial's sum */
		{ 0.1, 0.9, 0, 0, 0.9, 1, KNEE_LOWER },
		{ 0.05, 0.95, 0, 0, 0.9, 1, KNEE_UPPER },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct knee_goal g = {
			.exceed_ratio = cases[i].er > 0 ? cases[i].er : 0.5,
			.final_ns = SEC,
			.duration_sum_ns = (uint64_t)((cases[i].sum > 0 ? cases[i].sum : 3) * 1e9),
			.width = 0.01
		};
		struct knee_load_sums ls = { (uint64_t)(cases[i].gl * 1e9),
					     (uint64_t)(cases[i].bl * 1e9),
					     (uint64_t)(cases[i].gs * 1e9),
					     (uint64_t)(cases[i].bs * 1e9) };

		if (cases[i].er == 1e-9)
			g.exceed_ratio = 0;
		if (knee_load_class(&g, &ls) != cases[i].want)
			fail_msg("case %zu: %s, expected %s", i,
				 knee_class_name(knee_load_class(&g, &ls)),
				 knee_class_name(cases[i].want));
	}
}

/* RFC 9971 Appendix B: the loss ratio the long trials stay within for all
 * but the exceed ratio of their time. */
static void test_quantile_loss(void **state)
{
	struct knee_goal g = { .exceed_ratio = 0.5, .final_ns = SEC, .duration_sum_ns = 3 * SEC };
	double loss[] = { 0.02, 0, 0.001 };
	uint64_t dur[] = { SEC, SEC, SEC };

	(void)state;
	/* sorted 0, 0.001, 0.02: 1.5 s must be covered, two trials do */
	assert_true(knee_quantile_loss(&g, loss, dur, 3) == 0.001);
	/* two trials: 1.5 s of the 3 s sum, both needed */
	assert_true(knee_quantile_loss(&g, loss, dur, 2) == 0.02);
	/* one trial cannot cover 1.5 s: nothing is known, loss 1 */
	assert_true(knee_quantile_loss(&g, loss + 1, dur, 1) == 1.0);
	g.exceed_ratio = 0;
	assert_true(knee_quantile_loss(&g, loss, dur, 3) == 0.02); /* the worst */
	g.exceed_ratio = 0.9;
	assert_true(knee_quantile_loss(&g, loss, dur, 3) == 0); /* the best */
}

/* A path that queues what it cannot forward: no loss, but the receive
 * rate short of the sent one. Beyond the queue tolerance (1 %) it counts
 * as lost, within it (the receiver's timing) it does not, whatever the
 * width; a real loss stays a loss. */
static void test_trial_loss(void **state)
{
	struct knee_goal g = { .loss_ratio = 0, .width = 0.04 };
	struct knee_measurement m = { .achieved_bps = 52500000, .received_bps = 50000000 };

	(void)state;
	assert_true(fabs(knee_trial_loss(&m, &g) - (1 - 50.0 / 52.5)) < 1e-12);
	m.received_bps = 52300000; /* 0.38 %: within the queue's tolerance */
	assert_true(knee_trial_loss(&m, &g) == 0);
	m.loss_ratio = 0.02; /* loss beyond the shortfall */
	m.received_bps = 51500000;
	assert_true(knee_trial_loss(&m, &g) == 0.02);
	m = (struct knee_measurement){ .loss_ratio = 0.003 }; /* rates unknown */
	assert_true(knee_trial_loss(&m, &g) == 0.003);
	/* Received over the sender's window equals what was sent when nothing
	 * was lost: the arrival rate (the receiver's window) shows the queue. */
	m = (struct knee_measurement){ .achieved_bps = 52500000,
				       .received_bps = 52500000,
				       .arrival_bps = 50000000 };
	assert_true(fabs(knee_trial_loss(&m, &g) - (1 - 50.0 / 52.5)) < 1e-12);
	m.arrival_bps = 52300000;
	assert_true(knee_trial_loss(&m, &g) == 0);
	m.arrival_bps = 0; /* no receiver window: the received rate stands in */
	assert_true(knee_trial_loss(&m, &g) == 0);
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
		cmocka_unit_test(test_load_class),  cmocka_unit_test(test_quantile_loss),
		cmocka_unit_test(test_trial_loss),  cmocka_unit_test(test_full),
	};

	return cmocka_run_group_tests_name("knee_bounds", tests, NULL, NULL);
}
