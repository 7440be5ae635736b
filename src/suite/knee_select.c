// SPDX-License-Identifier: MIT
/*
 * The knee search's choice of the next trial (knee_int.h): read from the
 * bounds alone (knee_bounds.c), as RFC 9971 keeps the selection of the next
 * load apart from what the trials so far say.
 *
 * The first trial runs at max_rate. A trial the generator could not offer
 * is repeated once at once. Otherwise the target whose interval is widest
 * (an unbounded side first) gets a narrowing trial, short unless its short
 * trials proved to overstate it; when every target is narrowed, each
 * unconfirmed bound gets a full-length confirmation.
 */
#include <math.h>

#include "knee_int.h"

static uint64_t clamp_between(double c, uint64_t lo, uint64_t hi)
{
	uint64_t r = c <= 0 ? 0 : (uint64_t)llround(c);

	if (r <= lo)
		r = lo + 1;
	if (r >= hi)
		r = hi - 1;
	return r;
}

/* The relative step of the external search after n steps one way: the
 * width goal, doubled each step, at most a half. */
static double step_of(const struct knee_config *cfg, unsigned n)
{
	double step = cfg->width_goal * (double)(1u << (n > 10 ? 10 : n));

	return step > 0.5 ? 0.5 : step;
}

/* Between two bounds: bisection in log space, pulled towards where the
 * measurements say the knee is, and aimed so that the last steps meet the
 * width goal exactly. */
static uint64_t inner_rate(const struct knee_config *c, const struct knee_side *s)
{
	double g = c->width_goal;
	double mid = sqrt((double)s->lower * (double)s->upper);
	/* any rate in [aim, reach] ends the search whichever way it goes */
	double aim = (double)s->upper * (1 - g), reach = (double)s->lower / (1 - g);

	/* Below a generator limit, aim just above what the generator really
	 * sent there: the limit is close to it. */
	if (s->upper_gen && s->upper_rx > s->lower) {
		double hint = (double)s->upper_rx / (1 - 2 * g);

		if (hint < mid)
			mid = hint;
	} else if (s->upper_rx && (double)s->upper_rx < mid) {
		/* The path delivered less than mid even when offered the upper
		 * bound: the knee is likely just above the lower bound. Step up
		 * from it, doubling the step each pass. */
		double up = (double)s->lower / (1 - step_of(c, s->up_steps));

		if (up < mid)
			mid = up;
	}
	/* Within about twice the goal one trial finishes whichever way it
	 * goes: aim at the middle of the rates that do. */
	if (aim <= reach)
		mid = sqrt(aim * reach);
	return clamp_between(mid, s->lower, s->upper);
}

/* Next narrowing rate for one target, whose bounds are not narrowed yet. */
static uint64_t narrow_rate(const struct knee_bounds *b, const struct knee_config *c,
			    const struct knee_side *s)
{
	if (s->lower_valid && s->upper_valid)
		return inner_rate(c, s);
	if (s->upper_valid) {
		double rate = (double)s->upper * (1 - step_of(c, s->down_steps));

		/* Jump to what the path delivered, when that is lower still. */
		if (s->upper_rx && (double)s->upper_rx < rate)
			rate = (double)s->upper_rx;
		if (rate < (double)c->min_rate_bps)
			rate = (double)c->min_rate_bps;
		return clamp_between(rate, c->min_rate_bps - 1, s->upper);
	}
	if (s->lower_valid) {
		double rate = (double)s->lower / (1 - step_of(c, s->up_steps));

		if (rate > (double)b->max_eff)
			rate = (double)b->max_eff;
		return clamp_between(rate, s->lower, b->max_eff + 1);
	}
	return b->max_eff;
}

/* The widest target not yet narrowed gets a narrowing trial. */
static bool narrowing(const struct knee_bounds *b, const struct knee_config *cfg,
		      struct knee_trial *t)
{
	double widest = -1;
	int best = -1;

	for (int i = 0; i < KNEE_NTARGETS; i++) {
		const struct knee_side *s = &b->side[i];
		double w;

		if (knee_bounds_narrowed(b, cfg, (enum knee_target)i))
			continue;
		w = s->lower_valid && s->upper_valid ? knee_bounds_width(s->lower, s->upper) : 2.0;
		if (w > widest) {
			widest = w;
			best = i;
		}
	}
	if (best < 0)
		return false;
	/* a target whose confirmation failed narrows with final trials */
	*t = (struct knee_trial){ .rate_bps = narrow_rate(b, cfg, &b->side[best]),
				  .duration_ns =
					  b->final_mode[best] ? cfg->final_ns : cfg->short_ns,
				  .phase = KNEE_PHASE_NARROW,
				  .target = (enum knee_target)best };
	return true;
}

/* Every target narrowed: the first bound not yet measured at full length. */
static bool confirmation(const struct knee_bounds *b, const struct knee_config *cfg,
			 struct knee_trial *t)
{
	for (int i = 0; i < KNEE_NTARGETS; i++) {
		const struct knee_side *s = &b->side[i];
		uint64_t rate = 0;

		if (s->lower_valid && s->lower_dur < cfg->final_ns)
			rate = s->lower;
		else if (s->upper_valid && !s->upper_gen && s->upper_dur < cfg->final_ns)
			rate = s->upper;
		else if (knee_bounds_below_min_unconfirmed(b, cfg, (enum knee_target)i))
			rate = s->upper;
		if (rate) {
			*t = (struct knee_trial){ .rate_bps = rate,
						  .duration_ns = cfg->final_ns,
						  .phase = KNEE_PHASE_CONFIRM,
						  .target = (enum knee_target)i };
			return true;
		}
	}
	return false;
}

enum knee_select knee_select_next(const struct knee_bounds *b, const struct knee_config *cfg,
				  struct knee_trial *t)
{
	if (!b->ntrials) {
		*t = (struct knee_trial){ .rate_bps = b->max_eff,
					  .duration_ns = cfg->short_ns,
					  .phase = KNEE_PHASE_MRR,
					  .target = KNEE_PDR };
		return KNEE_SELECT_TRIAL;
	}
	if (b->retry_due) {
		*t = b->trials[b->ntrials - 1].trial;
		t->phase = KNEE_PHASE_RETRY;
		return KNEE_SELECT_TRIAL;
	}
	if (!narrowing(b, cfg, t) && !confirmation(b, cfg, t))
		return KNEE_SELECT_DONE;
	/* A rate the generator could not offer, asked for and repeated
	 * already: a third try measures nothing new. The search ends at the
	 * generator's limit. */
	if (knee_bounds_unsustained(b, cfg, t) >= 2)
		return KNEE_SELECT_STUCK;
	return KNEE_SELECT_TRIAL;
}
