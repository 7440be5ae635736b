// SPDX-License-Identifier: MIT
/*
 * The knee search's choice of the next trial (knee_int.h): read from the
 * bounds alone (knee_bounds.c), as RFC 9971 keeps the selection of the next
 * load apart from what the trials so far say.
 *
 * The first trial runs at max_rate. A trial the generator could not offer
 * is repeated once at once. Otherwise the first target not done (the coarse
 * targets, one short trial per load, before the goals, whose loads need
 * their duration sum of final trials; NDR before PDR) gets a trial: at the
 * highest undecided load between its bounds, or at a new load. When every
 * goal is done, a soft knee gets its fit trials (fit_next()).
 */
#include <math.h>

#include "knee_fit.h"
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
 * width, doubled each step, at most a half. */
static double step_of(double width, unsigned n)
{
	double step = width * (double)(1u << (n > 10 ? 10 : n));

	return step > 0.5 ? 0.5 : step;
}

/* Between two bounds: bisection in log space, pulled towards where the
 * measurements say the knee is, and aimed so that the last steps meet the
 * width exactly. */
static uint64_t inner_rate(const struct knee_goal *g, const struct knee_rel *r)
{
	double w = g->width;
	double mid = sqrt((double)r->lower * (double)r->upper);
	/* any rate in [aim, reach] ends the search whichever way it goes */
	double aim = (double)r->upper * (1 - w), reach = (double)r->lower / (1 - w);

	/* Below a generator limit, aim just above what the generator really
	 * sent there: the limit is close to it. */
	if (r->upper_gen && r->upper_rx > r->lower) {
		double hint = (double)r->upper_rx / (1 - 2 * w);

		if (hint < mid)
			mid = hint;
	} else if (r->upper_rx && (double)r->upper_rx < mid) {
		/* The path delivered less than mid even when offered the upper
		 * bound: the knee is likely just above the lower bound. Step up
		 * from it, doubling the step with each load passed. */
		double up = (double)r->lower / (1 - step_of(w, r->nlower ? r->nlower - 1 : 0));

		if (up < mid)
			mid = up;
	}
	/* Within about twice the width one trial finishes whichever way it
	 * goes: aim at the middle of the rates that do. */
	if (aim <= reach)
		mid = sqrt(aim * reach);
	return clamp_between(mid, r->lower, r->upper);
}

/* Next new load for a target not done and with no undecided load between
 * its bounds. */
static uint64_t new_rate(const struct knee_bounds *b, const struct knee_config *c,
			 const struct knee_goal *g, const struct knee_rel *r)
{
	if (r->lower_valid && r->upper_valid)
		return inner_rate(g, r);
	if (r->upper_valid) {
		double rate = (double)r->upper * (1 - step_of(g->width, r->nupper));

		/* Jump to what the path delivered, when that is lower still. */
		if (r->upper_rx && (double)r->upper_rx < rate)
			rate = (double)r->upper_rx;
		if (rate < (double)c->min_rate_bps)
			rate = (double)c->min_rate_bps;
		return clamp_between(rate, c->min_rate_bps - 1, r->upper);
	}
	if (r->lower_valid) {
		double rate = (double)r->lower / (1 - step_of(g->width, r->nlower - 1));

		if (rate > (double)b->max_eff)
			rate = (double)b->max_eff;
		return clamp_between(rate, r->lower, b->max_eff + 1);
	}
	return b->max_eff;
}

/* Whether load rate is undecided for g and between r's bounds. */
static bool open_load(const struct knee_bounds *b, const struct knee_goal *g,
		      const struct knee_rel *r, uint64_t rate)
{
	enum knee_class cls;

	return knee_bounds_class(b, g, rate, &cls) && cls == KNEE_UNDECIDED &&
	       (!r->lower_valid || rate > r->lower) && (!r->upper_valid || rate < r->upper);
}

/* The goal's next load: where its coarse target's bounds are, as long as
 * the goal has not classified them (the knee is within the width of them);
 * then the highest undecided load between the goal's bounds; then a new
 * one. */
static uint64_t goal_rate(const struct knee_bounds *b, const struct knee_config *cfg, int t,
			  const struct knee_rel *r)
{
	const struct knee_goal *g = &b->target[1][t];
	struct knee_rel c;

	knee_bounds_relevant(b, cfg, &b->target[0][t], &c);
	if (c.lower_valid && !c.lower_sent && open_load(b, g, r, c.lower))
		return c.lower;
	if (c.upper_valid && !c.upper_gen && open_load(b, g, r, c.upper))
		return c.upper;
	return r->undecided ? r->undecided : new_rate(b, cfg, g, r);
}

/* The trial target t of a level (0: coarse, 1: the goal) wants, if any. */
static bool target_next(const struct knee_bounds *b, const struct knee_config *cfg, int level,
			int t, struct knee_trial *out)
{
	const struct knee_goal *g = &b->target[level][t];
	struct knee_rel r;
	uint64_t rate;

	knee_bounds_relevant(b, cfg, g, &r);
	if (knee_bounds_done(b, cfg, g, &r))
		return false;
	if (level)
		rate = goal_rate(b, cfg, t, &r);
	else
		rate = r.undecided ? r.undecided : new_rate(b, cfg, g, &r);
	*out = (struct knee_trial){ .rate_bps = rate,
				    .duration_ns = g->final_ns,
				    .phase = level ? KNEE_PHASE_CONFIRM : KNEE_PHASE_NARROW,
				    .target = (enum knee_target)t };
	return true;
}

/* A fit trial, once the goals are done: at the load where the NDR goal's
 * final trials so far put the chance of a lossy trial at the exceed ratio
 * (knee_fit.h), the load whose trials say most of where that is. Only at
 * a soft knee, whose trials overlap by more than the width: a good trial
 * above a bad one (a shaped link, whose knee is sharper than the width,
 * gets none); where the trials give no fit yet, between the two. Within
 * the loads the search may ask (min_rate to max_rate, below the
 * generator's limit). */
static bool fit_next(const struct knee_bounds *b, const struct knee_config *cfg,
		     struct knee_trial *t)
{
	struct knee_fit_obs obs[KNEE_MAX_TRIALS];
	double good_max = 0, bad_min = INFINITY, rate;
	struct knee_fit f;
	unsigned done = 0;
	size_t n = 0;

	if (!cfg->fit_trials || !(cfg->exceed_ratio > 0))
		return false;
	for (unsigned i = 0; i < b->ntrials; i++) {
		const struct knee_record *r = &b->trials[i];
		double load = (double)r->trial.rate_bps;

		done += r->trial.phase == KNEE_PHASE_FIT;
		if (r->verdict == KNEE_INVALID || r->trial.duration_ns < cfg->final_ns)
			continue;
		obs[n++] =
			(struct knee_fit_obs){ .load_bps = load, .bad = r->verdict != KNEE_PASS };
		if (r->verdict == KNEE_PASS)
			good_max = fmax(good_max, load);
		else
			bad_min = fmin(bad_min, load);
	}
	if (done >= cfg->fit_trials || !(good_max > bad_min * (1 + cfg->width_goal)))
		return false;
	rate = knee_fit(obs, n, cfg->exceed_ratio, &f) ? f.load_bps : sqrt(good_max * bad_min);
	rate = fmin(fmax(rate, (double)cfg->min_rate_bps), (double)b->max_eff);
	if (b->gen_limited && rate >= (double)b->gen_limit)
		rate = (double)b->gen_limit * (1 - cfg->width_goal);
	*t = (struct knee_trial){ .rate_bps = (uint64_t)llround(rate),
				  .duration_ns = cfg->final_ns,
				  .phase = KNEE_PHASE_FIT,
				  .target = KNEE_NDR };
	return true;
}

enum knee_select knee_select_next(const struct knee_bounds *b, const struct knee_config *cfg,
				  struct knee_trial *t)
{
	const struct knee_goal *g;
	bool found = false;

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
	for (int level = 0; level < 2 && !found; level++)
		for (int i = 0; i < KNEE_NTARGETS && !found; i++)
			found = target_next(b, cfg, level, i, t);
	if (!found)
		return fit_next(b, cfg, t) ? KNEE_SELECT_TRIAL : KNEE_SELECT_DONE;
	/* A rate the generator could not offer, asked for and repeated
	 * already: a third try measures nothing new. When it passed higher
	 * rates (it fell short there by chance), a rate an eighth of the width
	 * lower is a load of its own, still inside the bounds; when that too
	 * was failed twice, or its target has classified it already (another
	 * trial there says nothing new, and the same rate would be asked
	 * again and again), the search ends at the generator's limit. */
	g = &b->target[t->phase == KNEE_PHASE_NARROW ? 0 : 1][t->target];
	for (unsigned nudge = 0; knee_bounds_unsustained(b, cfg, t) >= 2; nudge++) {
		uint64_t step = (uint64_t)llround((double)t->rate_bps * cfg->width_goal / 8);
		enum knee_class cls;

		if (nudge == 2 || step == 0 || t->rate_bps <= cfg->min_rate_bps + step)
			return KNEE_SELECT_STUCK;
		t->rate_bps -= step;
		if (knee_bounds_class(b, g, t->rate_bps, &cls) && cls != KNEE_UNDECIDED)
			return KNEE_SELECT_STUCK;
	}
	return KNEE_SELECT_TRIAL;
}
