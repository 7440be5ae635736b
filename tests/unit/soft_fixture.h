/* SPDX-License-Identifier: MIT */
/*
 * A run of two paths whose knees are known by construction, for the tests
 * of a knee's headline (test_knee_head.c): an underlay whose knee is a
 * shaper's (every trial up to 900 Mbit/s lossless, every one above lossy:
 * a tbf), and "wg", whose trials lose with the chance of
 * bench/knee_soft_spread.c's curve: logistic in ln(rate) with slope 10 and
 * its 50 % at 440 Mbit/s, a few datagrams each (1e-4 of them), and above
 * 1.35 times that the path's capacity. Three repetitions of one-second
 * trials at 300..600 Mbit/s, two a load, from a fixed seed. SOFT_MOVED
 * puts the third repetition's knee 40 % higher (the path changed between
 * repetitions); SOFT_SHARP makes "wg" a tbf at 440 Mbit/s too. Each
 * repetition's NDR is its highest lossless load below its first lossy one,
 * as a search ends.
 */
#ifndef SOFT_FIXTURE_H
#define SOFT_FIXTURE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "results.h"

enum soft_mode { SOFT_SOFT, SOFT_MOVED, SOFT_SHARP };

#define SOFT_KNEE_BPS 440e6
#define SOFT_LEN      1200

/* xorshift64*, as the bench's: the same trials every run */
static inline double soft_rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (double)((*s * 2685821657736338717ULL) >> 11) / (double)(1ULL << 53);
}

static inline struct results_trial *soft_trial(struct results_run *run, unsigned path, unsigned rep,
					       double rate, double loss)
{
	struct results_trial *t = results_add_trial(run);

	t->path = path;
	t->rep = rep;
	t->kind = RESULTS_TRIAL_KNEE;
	t->streams = 1;
	t->len = SOFT_LEN;
	t->target_bps = (uint64_t)rate;
	t->duration_s = 1;
	t->udp.len = SOFT_LEN;
	t->udp.target_bps = t->udp.achieved_bps = t->target_bps;
	t->udp.sent = (uint64_t)(rate / (8.0 * SOFT_LEN));
	t->udp.lost = (uint64_t)ceil(loss * (double)t->udp.sent);
	t->udp.received = t->udp.sent - t->udp.lost;
	t->udp.received_bps = t->udp.received * SOFT_LEN * 8;
	t->udp.loss_at.network = t->udp.lost;
	return t;
}

static inline void soft_knee_rec(struct results_run *run, unsigned path, unsigned rep, double ndr,
				 double pdr)
{
	struct results_knee *k = results_add_knee(run);

	k->path = path;
	k->len = SOFT_LEN;
	k->rep = rep;
	k->found = k->pdr_found = true;
	snprintf(k->ndr_outcome, sizeof(k->ndr_outcome), "found");
	snprintf(k->pdr_outcome, sizeof(k->pdr_outcome), "found");
	k->ndr_lower_bps = k->ndr_lower_achieved_bps = (uint64_t)ndr;
	k->ndr_upper_bps = (uint64_t)(ndr + 10e6);
	k->pdr_lower_bps = k->pdr_lower_achieved_bps = (uint64_t)pdr;
	k->pdr_upper_bps = (uint64_t)(pdr + 10e6);
	k->pdr_goal_pct = 0.5;
	k->width_goal = 0.01;
	k->exceed_ratio = 0.5;
	k->final_s = 1;
	k->trials = 62;
	k->time_s = 70;
}

/* One repetition of path's search: its trials (at grid times the rates
 * above) and its knee record. */
static inline void soft_rep(struct results_run *run, unsigned path, unsigned rep, double knee,
			    bool sharp, double grid, uint64_t *seed)
{
	double ndr = 0, pdr = 0, first_bad = INFINITY;

	for (unsigned l = 0; l <= 30; l++)
		for (unsigned i = 0; i < 2; i++) {
			double r = grid * (300e6 + 10e6 * l), cap = 1.35 * knee;
			double loss = r > cap ? 1 - cap / r : 0;
			bool bad = sharp ? r > knee
					 : soft_rnd(seed) < 1 / (1 + exp(-10 * log(r / knee)));

			if (bad)
				loss += 1e-4;
			soft_trial(run, path, rep, r, loss);
			if (loss > 0 && r < first_bad)
				first_bad = r;
			if (!loss && r < first_bad)
				ndr = r;
			if (loss <= 0.005)
				pdr = r;
		}
	soft_knee_rec(run, path, rep, ndr, pdr);
}

/* The run with its own seed (another run of the same path), the soft
 * knee at scale times its 440 Mbit/s (a path that got slower) and its
 * trials' rates at grid times theirs (the same search about a knee
 * scaled with it). */
static inline void soft_run_grid(struct results_run *run, enum soft_mode mode, uint64_t seed,
				 double scale, double grid)
{
	results_init(run);
	snprintf(run->scenario_name, sizeof(run->scenario_name), "soft");
	snprintf(run->started_utc, sizeof(run->started_utc), "2026-12-07T09:00:00Z");
	run->complete = true;
	run->duration_s = 400;
	results_add_path(run, "underlay", RESULTS_PATH_UNDERLAY, "198.18.0.2", 1500);
	results_add_path(run, "wg", RESULTS_PATH_EXTERNAL, "198.19.0.2", 1420);
	for (unsigned rep = 0; rep < 3; rep++) {
		double knee = scale * SOFT_KNEE_BPS * (mode == SOFT_MOVED && rep == 2 ? 1.4 : 1);

		for (unsigned l = 0; l < 5; l++)
			soft_trial(run, 0, rep, 700e6 + 100e6 * l,
				   700e6 + 100e6 * l > 900e6 ? 0.1 : 0);
		soft_knee_rec(run, 0, rep, 900e6, 900e6);
		soft_rep(run, 1, rep, knee, mode == SOFT_SHARP, grid, &seed);
	}
}

/* soft_run_grid() with the trials' rates as they are */
static inline void soft_run_at(struct results_run *run, enum soft_mode mode, uint64_t seed,
			       double scale)
{
	soft_run_grid(run, mode, seed, scale, 1);
}

static inline void soft_run(struct results_run *run, enum soft_mode mode)
{
	soft_run_at(run, mode, 88172645463325252ULL, 1);
}

#endif
