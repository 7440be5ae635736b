// SPDX-License-Identifier: MIT
/*
 * A knee's fit in the run model and what its headline figure is, decided
 * once for every printer. On a soft knee (a userspace VPN whose threads
 * are scheduled away now and then) loss is chance over a wide band of
 * loads and each repetition's NDR is where its search's luck ran out: two
 * runs of one path (wireguard-go, 1200-byte datagrams) put three NDRs 20 %
 * apart (299, 254, 314 Mbit/s) while their pooled fits fell inside each
 * other's intervals. The fit of all trials at the exceed ratio (RFC 9971's
 * conditional NDR, the figure the bounds bracket: knee_fit.h) is then the
 * headline, with its interval. A sharp knee (a shaper) has no overlap and
 * no fit, and keeps its bounds; a knee whose repetitions differ beyond
 * their trials' luck (knee_fit_reps()) has no single figure at all.
 */
#include <string.h>

#include "results_int.h"

/* The knee trials of p's path and size that say something of a goal's
 * chance of loss: valid, at the load asked for (not short of it) and as
 * long as the goal's final trials (a shorter trial has less time to lose
 * in), of every repetition; bad when they lost more than loss_ratio. *q:
 * the exceed ratio the figure is taken at. */
static size_t fit_obs(const struct results_run *run, const struct results_knee_point *p,
		      double loss_ratio, struct knee_fit_obs *obs, double *q)
{
	size_t n = 0;

	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];
		const struct results_knee *k;

		if (t->kind != RESULTS_TRIAL_KNEE || t->path != p->path || t->len != p->len ||
		    !results_trial_usable(t) || t->udp.generator_limited || !t->udp.sent)
			continue;
		k = results_rep_knee(run, t);
		if (!k || !(k->exceed_ratio > 0) || t->duration_s < 0.9 * k->final_s)
			continue;
		*q = k->exceed_ratio;
		obs[n++] = (struct knee_fit_obs){ .load_bps = (double)t->target_bps,
						  .bad = (double)t->udp.lost >
							 loss_ratio * (double)t->udp.sent,
						  .rep = t->rep };
	}
	return n;
}

/* Where the soft knee lies: the fit of all repetitions' trials, and each
 * repetition's knee under their common slope; the PDR goal's fit beside. */
static void fit_point(const struct results_run *run, struct results_knee_point *p,
		      struct knee_fit_obs *obs, double *v)
{
	struct knee_fit_reps *fr = &p->ndr_fit_reps;
	unsigned nv = 0;
	double q = 0;
	size_t n;

	n = fit_obs(run, p, run->pdr_goal_pct / 100, obs, &q);
	if (!knee_fit(obs, n, q, &p->pdr_fit))
		memset(&p->pdr_fit, 0, sizeof(p->pdr_fit));
	n = fit_obs(run, p, 0, obs, &q);
	if (!knee_fit(obs, n, q, &p->ndr_fit) || !knee_fit_reps(obs, n, q, fr))
		return;
	for (unsigned i = 0; i < fr->n; i++)
		if (fr->rep[i].load_bps > 0)
			v[nv++] = fr->rep[i].load_bps;
	p->ndr_fit_rep_bps = results_stat_of(v, nv);
	if (nv >= 2 && p->ndr_fit_rep_bps.median > 0)
		p->ndr_fit_spread = (p->ndr_fit_rep_bps.max - p->ndr_fit_rep_bps.min) /
				    p->ndr_fit_rep_bps.median;
}

bool results_knee_soft(const struct results_knee_point *p)
{
	const struct knee_fit *f = &p->ndr_fit;
	double share = p->band_trials ? (double)p->band_lossy / p->band_trials : 0;

	if (p->band_trials >= 4 && share >= 0.25 && share <= 0.75)
		return true;
	return f->load_bps > 0 &&
	       f->band_high_bps - f->band_low_bps > RESULTS_SOFT_BAND * f->load_bps;
}

/* The NDR's headline of a run just measured: the repetitions' test first
 * (p below KNEE_FIT_DIFFER_P: the path changed, whatever the band), then
 * a soft knee with a fit gives the fit; anything else its bounds. */
static enum results_head decide(const struct results_knee_point *p)
{
	const struct knee_fit_reps *fr = &p->ndr_fit_reps;

	if (!(p->ndr_fit.load_bps > 0))
		return RESULTS_HEAD_FOUND;
	if (fr->df && fr->p < KNEE_FIT_DIFFER_P)
		return RESULTS_HEAD_CHANGED;
	return results_knee_soft(p) ? RESULTS_HEAD_FIT : RESULTS_HEAD_FOUND;
}

/* The headlines a run.json recorded for p; none (an older file): found. */
static void recorded(const struct results_run *run, struct results_knee_point *p)
{
	for (size_t i = 0; i < run->nheads; i++) {
		const struct results_head_rec *h = &run->heads[i];

		if (h->path == p->path && h->len == p->len) {
			p->ndr_head = h->ndr;
			p->pdr_head = h->pdr;
			return;
		}
	}
}

/* A fit as a figure (ndr_head_bps): its load, its interval as min and
 * max, and the repetitions whose trials it pooled. */
static struct results_stat fit_stat(const struct knee_fit *f, unsigned reps)
{
	return (struct results_stat){
		.n = reps, .median = f->load_bps, .min = f->low_bps, .max = f->high_bps
	};
}

void results_knee_head(const struct results_run *run, struct results_knee_point *p,
		       struct knee_fit_obs *obs, double *v)
{
	unsigned reps = p->ndr_fit_reps.n ? p->ndr_fit_reps.n : p->reps;

	fit_point(run, p, obs, v);
	p->ndr_head = p->pdr_head = RESULTS_HEAD_FOUND;
	if (run->heads_read) {
		recorded(run, p);
	} else {
		p->ndr_head = decide(p);
		p->pdr_head = p->ndr_head;
	}
	/* a figure needs its fit: a file edited by hand may claim one the
	 * trials do not give */
	if (p->ndr_head == RESULTS_HEAD_FIT && !(p->ndr_fit.load_bps > 0))
		p->ndr_head = RESULTS_HEAD_FOUND;
	if (p->pdr_head == RESULTS_HEAD_FIT && !(p->pdr_fit.load_bps > 0))
		p->pdr_head = RESULTS_HEAD_FOUND;
	if (p->ndr_head == RESULTS_HEAD_FIT)
		p->ndr_head_bps = fit_stat(&p->ndr_fit, reps);
	if (p->pdr_head == RESULTS_HEAD_FIT)
		p->pdr_head_bps = fit_stat(&p->pdr_fit, reps);
}
