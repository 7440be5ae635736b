/* SPDX-License-Identifier: MIT */
/*
 * Simulated paths for the knee search's unit tests (test_knee.c,
 * test_knee_generator.c): a loss curve by rate (the SD-WAN field report, a
 * shaper, a lossless path, constant loss, a noisy knee, rare bursts), a
 * generator that may top out or fall short, seeded noise, and the search
 * run against one of them with the checks every test makes.
 */
#ifndef OVLPERF_TEST_KNEE_SIMPATH_H
#define OVLPERF_TEST_KNEE_SIMPATH_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "knee.h"

#define M   1000000ULL
#define SEC 1000000000ULL

enum curve { SDWAN, SHAPER, LOSSLESS, CONSTANT, SHAPED_LOSSY, NOISY_KNEE, BURSTS, QUEUED };

struct simpath {
	enum curve curve;
	double knee;	     /* SHAPER: capacity, bit/s */
	double constant;     /* CONSTANT: loss ratio at every rate */
	double gen_max;	     /* generator tops out here (0: never) */
	double gen_max_long; /* ... in final-length (5 s) trials, if set */
	double gen_share;    /* generator sends this share of any rate (0: all) */
	double gen_jitter;   /* each trial's top: gen_max times 1 - up to this share */
	/* seeded noise: below the knee, in [noise_from, noise_to], a trial loses
	 * a few packets with probability noise_p (long trials: noise_long_p) */
	double noise_from, noise_to, noise_p, noise_long_p;
	uint64_t rng;
	unsigned trials;
	/* NOISY_KNEE: a trial at r loses a few datagrams with probability
	 * 1 / (1 + exp(-(r - knee) / (spread * knee))), and the path is a
	 * shaper at cap; BURSTS: below the shaper at knee a trial loses
	 * burst_loss with probability burst_p (a VPN's thread scheduled away) */
	double spread, cap, burst_p, burst_loss;
	unsigned spike_trial; /* this trial (1-based) loses spike_loss (0: none) */
	double spike_loss;
	/* QUEUED: a tbf at knee whose queue holds queue_s of its rate: above
	 * it the queue grows through a trial and drops only once full */
	double queue_s;
};

static inline double rnd(struct simpath *p)
{
	/* xorshift64*: deterministic per seed */
	p->rng ^= p->rng >> 12;
	p->rng ^= p->rng << 25;
	p->rng ^= p->rng >> 27;
	return (double)((p->rng * 2685821657736338717ULL) >> 11) / (double)(1ULL << 53);
}

static inline double sdwan_loss(double r)
{
	double mb = r / 1e6;

	if (mb <= 110)
		return 0;
	if (mb <= 120)
		return 0.075 * (mb - 110) / 10;
	if (mb <= 200)
		return 0.075 + (0.44 - 0.075) * (mb - 120) / 80;
	return 1 - 112.0 / mb; /* the path delivers 112 Mbit/s at most */
}

static inline double path_loss(struct simpath *p, double r, uint64_t dur)
{
	double loss = 0;

	switch (p->curve) {
	case SDWAN:
		loss = sdwan_loss(r);
		break;
	case SHAPER:
		loss = r > p->knee ? 1 - p->knee / r : 0;
		break;
	case LOSSLESS:
		break;
	case CONSTANT:
		loss = p->constant;
		break;
	case SHAPED_LOSSY:
		loss = 1 - (1 - p->constant) * (r > p->knee ? p->knee / r : 1);
		break;
	case NOISY_KNEE:
		loss = r > p->cap ? 1 - p->cap / r : 0;
		if (rnd(p) < 1 / (1 + exp(-(r - p->knee) / (p->spread * p->knee))))
			loss += 1e-4;
		break;
	case BURSTS:
		loss = r > p->knee ? 1 - p->knee / r : 0;
		if (loss == 0 && rnd(p) < p->burst_p)
			loss = p->burst_loss;
		break;
	case QUEUED: {
		double sec = (double)dur / 1e9, held = p->knee * (sec + p->queue_s);

		loss = r * sec > held ? 1 - held / (r * sec) : 0;
		break;
	}
	}
	if (loss == 0 && r >= p->noise_from && r <= p->noise_to) {
		double prob = dur >= 5 * SEC && p->noise_long_p > 0 ? p->noise_long_p : p->noise_p;

		if (rnd(p) < prob)
			loss = 2e-5;
	}
	return loss;
}

static inline struct knee_measurement measure(struct simpath *p, const struct knee_trial *t)
{
	double r = (double)t->rate_bps;
	double top =
		p->gen_max_long > 0 && t->duration_ns >= 5 * SEC ? p->gen_max_long : p->gen_max;
	double sent;

	if (top > 0 && p->gen_jitter > 0)
		top *= 1 - p->gen_jitter * rnd(p);
	sent = top > 0 && r > top ? top * (1 - 0.002 * rnd(p)) : r;
	if (p->gen_share > 0)
		sent = r * p->gen_share;
	double loss = path_loss(p, sent, t->duration_ns);

	/* a queue that grows delivers at the shaper's rate, over a window
	 * longer than the trial's */
	double arrival = p->curve == QUEUED && sent > p->knee ? p->knee : sent * (1 - loss);

	p->trials++;
	if (p->spike_trial && p->trials == p->spike_trial)
		loss = p->spike_loss;
	return (struct knee_measurement){ .offered_bps = t->rate_bps,
					  .achieved_bps = (uint64_t)sent,
					  .received_bps = (uint64_t)(sent * (1 - loss)),
					  .arrival_bps = (uint64_t)arrival,
					  .loss_ratio = loss,
					  .generator_limited = sent < 0.99 * r,
					  .duration_ns = t->duration_ns };
}

static inline void cfg_for(struct knee_config *c, uint64_t max)
{
	knee_config_defaults(c);
	c->max_rate_bps = max;
}

static inline void search(struct simpath *p, const struct knee_config *cfg, struct knee *k,
			  struct knee_result *res)
{
	struct knee_trial t;

	assert_int_equal(knee_init(k, cfg), 0);
	while (knee_next(k, &t)) {
		struct knee_measurement m = measure(p, &t);

		assert_true(t.rate_bps >= k->cfg.min_rate_bps);
		assert_true(t.rate_bps <= cfg->max_rate_bps);
		assert_int_equal(knee_record(k, &m), 0);
	}
	assert_true(knee_done(k));
	knee_get_result(k, res);
}

/* No trial whose generator fell short ever stands as a lower bound (a pass). */
static inline void assert_no_invalid_pass(const struct knee *k, const struct knee_result *res)
{
	unsigned n;
	const struct knee_record *tr = knee_trials(k, &n);

	assert_int_equal(n, res->ntrials);
	for (unsigned i = 0; i < n; i++)
		if (tr[i].m.generator_limited)
			assert_int_equal(tr[i].verdict, KNEE_INVALID);
	for (int t = 0; t < KNEE_NTARGETS; t++) {
		const struct knee_bound *b = &res->bound[t];

		if (b->lower_valid) {
			assert_true(b->lower_trial >= 0 && (unsigned)b->lower_trial < n);
			/* a trial the generator fell short in counts at what it
			 * sent, never at the rate asked for */
			if (tr[b->lower_trial].m.generator_limited)
				assert_true(b->lower_bps <= tr[b->lower_trial].m.achieved_bps);
			assert_true(b->lower_final);
		}
	}
}

static inline void assert_found_within(const struct knee_bound *b, double lo, double hi, double w)
{
	assert_int_equal(b->outcome, KNEE_FOUND);
	assert_true(b->lower_valid && b->upper_valid && b->lower_final && b->upper_final);
	assert_true(b->lower_bps < b->upper_bps);
	assert_true((double)(b->upper_bps - b->lower_bps) / (double)b->upper_bps <= w + 1e-9);
	/* The true knee lies in [lo, hi]: a pass must not be above it... */
	assert_true((double)b->lower_bps <= hi);
	/* ...and the bounds are within the width goal of it. */
	assert_true((double)b->lower_bps >= lo * (1 - w));
	assert_true((double)b->upper_bps > lo);
}

#endif
