/* SPDX-License-Identifier: MIT */
/*
 * Simulated systems for the knee search's unit tests (test_knee_bounds.c,
 * test_knee_select.c): a shaper behind a sender that may top out, fall
 * short of every rate by a share, or of one trial's rate (held off the CPU
 * for a moment), and noise in single trials. A history is a list of trials
 * the table chooses, each measured on the system and fed to the
 * bookkeeping (knee_bounds_add()) in order.
 */
#ifndef OVLPERF_KNEE_FIXTURE_H
#define OVLPERF_KNEE_FIXTURE_H

#include <math.h>
#include <stdint.h>

#include "knee_int.h"

#define M   1000000ULL
#define SEC 1000000000ULL

/* A shaper at knee (0: none) behind a sender that sends at most gen_max
 * (gen_max_long in full-length trials; 0: any rate) and, with share > 0,
 * only that share of what it is asked. */
struct sys {
	double knee, gen_max, gen_max_long, share;
};

/* One trial: rate in Mbit/s, 'S' short or 'F' full length, its phase,
 * extra loss in this one trial when the path lost nothing (noise), and a
 * share the sender fell short by in this one trial. */
struct step {
	double rate_m;
	char len;
	enum knee_phase phase;
	double noise;
	double short_by;
};

#define KNEE_FIX_STEPS 12

struct knee_history {
	struct sys sys;
	double width_goal; /* 0: the default */
	double min_rate_m; /* 0: the default (max / 1000) */
	double max_rate_m; /* 0: 1000 */
	struct step steps[KNEE_FIX_STEPS];
};

#define S(r)                                                                                       \
	{                                                                                          \
		r, 'S', KNEE_PHASE_NARROW, 0, 0                                                    \
	}
#define F(r)                                                                                       \
	{                                                                                          \
		r, 'F', KNEE_PHASE_CONFIRM, 0, 0                                                   \
	}
#define NOISY_F(r)                                                                                 \
	{                                                                                          \
		r, 'F', KNEE_PHASE_CONFIRM, 2e-5, 0                                                \
	}
#define MRR(r)                                                                                     \
	{                                                                                          \
		r, 'S', KNEE_PHASE_MRR, 0, 0                                                       \
	}
#define RETRY(r)                                                                                   \
	{                                                                                          \
		r, 'S', KNEE_PHASE_RETRY, 0, 0                                                     \
	}
#define RETRY_F(r)                                                                                 \
	{                                                                                          \
		r, 'F', KNEE_PHASE_RETRY, 0, 0                                                     \
	}
#define SHORT_BY(r, by)                                                                            \
	{                                                                                          \
		r, 'S', KNEE_PHASE_NARROW, 0, by                                                   \
	}
#define RETRY_BY(r, by)                                                                            \
	{                                                                                          \
		r, 'S', KNEE_PHASE_RETRY, 0, by                                                    \
	}

static inline struct knee_measurement fix_measure(const struct sys *s, const struct step *st)
{
	double r = st->rate_m * 1e6;
	double top = st->len == 'F' && s->gen_max_long > 0 ? s->gen_max_long : s->gen_max;
	double sent = top > 0 && r > top ? top : r, loss;

	if (s->share > 0)
		sent = r * s->share;
	sent *= 1 - st->short_by;
	loss = s->knee > 0 && sent > s->knee ? 1 - s->knee / sent : 0;
	if (loss == 0)
		loss = st->noise;
	return (struct knee_measurement){ .offered_bps = (uint64_t)llround(r),
					  .achieved_bps = (uint64_t)llround(sent),
					  .received_bps = (uint64_t)llround(sent * (1 - loss)),
					  .loss_ratio = loss,
					  .generator_limited = sent < 0.99 * r };
}

static inline void fix_config(const struct knee_history *h, struct knee_config *cfg)
{
	knee_config_defaults(cfg);
	cfg->max_rate_bps = (uint64_t)((h->max_rate_m > 0 ? h->max_rate_m : 1000) * 1e6);
	cfg->min_rate_bps = (uint64_t)(h->min_rate_m * 1e6);
	if (h->width_goal > 0)
		cfg->width_goal = h->width_goal;
	if (!cfg->min_rate_bps)
		cfg->min_rate_bps = cfg->max_rate_bps / 1000;
}

/* The history's trials, measured and recorded in order. */
static inline void fix_feed(const struct knee_history *h, const struct knee_config *cfg,
			    struct knee_bounds *b)
{
	knee_bounds_init(b, cfg);
	for (unsigned i = 0; i < KNEE_FIX_STEPS && h->steps[i].rate_m > 0; i++) {
		const struct step *st = &h->steps[i];
		struct knee_trial t = { .rate_bps = (uint64_t)llround(st->rate_m * 1e6),
					.duration_ns =
						st->len == 'F' ? cfg->final_ns : cfg->short_ns,
					.phase = st->phase,
					.target = KNEE_NDR };
		struct knee_measurement m = fix_measure(&h->sys, st);

		assert_int_equal(knee_bounds_add(b, cfg, &t, &m), 0);
	}
}

#endif
