// SPDX-License-Identifier: MIT
/*
 * The loss-knee search (see knee.h for the contract and the outline): the
 * configuration, and the cycle of handing a trial out and taking its
 * measurement back. What the trials say lives in knee_bounds.c, the choice
 * of the next trial in knee_select.c (knee_int.h).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "knee_int.h"
#include "log.h"

void knee_config_defaults(struct knee_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->loss_goal = KNEE_DEFAULT_LOSS_GOAL;
	cfg->width_goal = KNEE_DEFAULT_WIDTH_GOAL;
	cfg->short_ns = KNEE_DEFAULT_SHORT_NS;
	cfg->final_ns = KNEE_DEFAULT_FINAL_NS;
	cfg->exceed_ratio = KNEE_DEFAULT_EXCEED_RATIO;
	cfg->duration_sum_ns = KNEE_DEFAULT_DURATION_SUM_NS;
	cfg->max_trials = KNEE_DEFAULT_MAX_TRIALS;
	cfg->fit_trials = KNEE_DEFAULT_FIT_TRIALS;
	cfg->max_time_ns = KNEE_DEFAULT_MAX_TIME_NS;
}

/* max_time, or its default: KNEE_MAX_TIME_TRIALS final trials. */
uint64_t knee_max_time_ns(const struct knee_config *cfg)
{
	return cfg->max_time_ns ? cfg->max_time_ns : (uint64_t)KNEE_MAX_TIME_TRIALS * cfg->final_ns;
}

static int check_config(struct knee_config *c)
{
	if (c->max_rate_bps < 2) {
		log_debug("max rate %llu bit/s is too low", (unsigned long long)c->max_rate_bps);
		return -EINVAL;
	}
	if (!c->min_rate_bps)
		c->min_rate_bps = c->max_rate_bps / 1000 ? c->max_rate_bps / 1000 : 1;
	if (c->min_rate_bps >= c->max_rate_bps) {
		log_debug("min rate must be below max rate");
		return -EINVAL;
	}
	if (!(c->loss_goal >= 0 && c->loss_goal < 1) ||
	    !(c->width_goal > 0 && c->width_goal < 0.5)) {
		log_debug("loss goal must be in [0, 1), width goal in (0, 0.5)");
		return -EINVAL;
	}
	if (!c->short_ns || c->final_ns < c->short_ns) {
		log_debug("trial durations: need 0 < short <= final");
		return -EINVAL;
	}
	if (!(c->exceed_ratio >= 0 && c->exceed_ratio < 1)) {
		log_debug("exceed ratio must be in [0, 1)");
		return -EINVAL;
	}
	if (c->duration_sum_ns && c->duration_sum_ns < c->final_ns) {
		log_debug("duration sum must not be shorter than the final trial");
		return -EINVAL;
	}
	if (!c->max_trials)
		c->max_trials = KNEE_DEFAULT_MAX_TRIALS;
	if (c->max_trials > KNEE_MAX_TRIALS || c->fit_trials > KNEE_MAX_TRIALS) {
		log_debug("at most %d trials", KNEE_MAX_TRIALS);
		return -EINVAL;
	}
	c->max_time_ns = knee_max_time_ns(c);
	if (c->max_time_ns < c->short_ns) {
		log_debug("max_time must not be shorter than the short trial");
		return -EINVAL;
	}
	return 0;
}

int knee_init(struct knee *k, const struct knee_config *cfg)
{
	memset(k, 0, sizeof(*k));
	k->cfg = *cfg;
	if (check_config(&k->cfg))
		return -EINVAL;
	knee_bounds_init(&k->b, &k->cfg);
	return 0;
}

bool knee_next(struct knee *k, struct knee_trial *t)
{
	if (k->finished)
		return false;
	if (k->have_pending) {
		*t = k->pending;
		return true;
	}
	if (k->b.ntrials >= k->cfg.max_trials || k->b.ntrials >= KNEE_MAX_TRIALS) {
		k->finished = true;
		return false;
	}
	switch (knee_select_next(&k->b, &k->cfg, t)) {
	case KNEE_SELECT_TRIAL:
		k->pending = *t;
		k->have_pending = true;
		return true;
	case KNEE_SELECT_STUCK:
		k->stuck = true;
		break;
	case KNEE_SELECT_DONE:
		break;
	}
	k->finished = true;
	return false;
}

int knee_record(struct knee *k, const struct knee_measurement *m)
{
	int rc;

	if (!k->have_pending || !(m->loss_ratio >= 0 && m->loss_ratio <= 1))
		return -EINVAL;
	rc = knee_bounds_add(&k->b, &k->cfg, &k->pending, m);
	if (rc == 0)
		k->have_pending = false;
	return rc;
}

bool knee_done(const struct knee *k)
{
	return k->finished;
}

void knee_abandon(struct knee *k)
{
	k->have_pending = false;
	k->finished = true;
	k->abandoned = true;
}

void knee_get_result(const struct knee *k, struct knee_result *res)
{
	knee_bounds_get(&k->b, &k->cfg, k->stuck, res);
	res->done = k->finished && !k->abandoned;
}

const struct knee_record *knee_trials(const struct knee *k, unsigned *n)
{
	*n = k->b.ntrials;
	return k->b.trials;
}

/* Per goal: the external search and the bisection to the width in single
 * short trials, then the goal's duration sum at its two bounds. */
static unsigned per_load_final(const struct knee_config *cfg)
{
	uint64_t f = cfg->final_ns ? cfg->final_ns : KNEE_DEFAULT_FINAL_NS;
	uint64_t d = cfg->duration_sum_ns ? cfg->duration_sum_ns : KNEE_DURATION_SUM_TRIALS * f;

	return (unsigned)((d + f - 1) / f);
}

unsigned knee_estimate_trials(const struct knee_config *cfg)
{
	double g = cfg->width_goal > 0 ? cfg->width_goal : KNEE_DEFAULT_WIDTH_GOAL;
	unsigned bisect = (unsigned)ceil(log2(0.5 / g));
	unsigned n = 1 + 2 * (2 + bisect) + 2 * 2 * (per_load_final(cfg) - 1);

	if (cfg->max_trials && n > cfg->max_trials)
		n = cfg->max_trials;
	return n;
}

unsigned knee_max_trials(const struct knee_config *cfg)
{
	return cfg->max_trials ? cfg->max_trials : KNEE_DEFAULT_MAX_TRIALS;
}

uint64_t knee_estimate_ns(const struct knee_config *cfg)
{
	unsigned n = knee_estimate_trials(cfg);
	unsigned fin = 2 * 2 * per_load_final(cfg);
	uint64_t ns, cap = knee_max_time_ns(cfg);

	if (fin > n)
		fin = n;
	ns = (uint64_t)(n - fin) * cfg->short_ns + (uint64_t)fin * cfg->final_ns;
	return ns < cap ? ns : cap;
}

const char *knee_target_name(enum knee_target t)
{
	return t == KNEE_NDR ? "NDR" : t == KNEE_PDR ? "PDR" : "?";
}

const char *knee_outcome_name(enum knee_outcome o)
{
	switch (o) {
	case KNEE_FOUND:
		return "found";
	case KNEE_ABOVE_MAX:
		return "above-max";
	case KNEE_BELOW_MIN:
		return "below-min";
	case KNEE_GENERATOR_LIMIT:
		return "generator-limit";
	case KNEE_UNFINISHED:
		break;
	}
	return "unfinished";
}

const char *knee_phase_name(enum knee_phase p)
{
	switch (p) {
	case KNEE_PHASE_MRR:
		return "mrr";
	case KNEE_PHASE_NARROW:
		return "narrow";
	case KNEE_PHASE_CONFIRM:
		return "confirm";
	case KNEE_PHASE_RETRY:
		return "retry";
	case KNEE_PHASE_FIT:
		return "fit";
	}
	return "";
}

const char *knee_class_name(enum knee_class c)
{
	return c == KNEE_LOWER ? "lower" : c == KNEE_UPPER ? "upper" : "undecided";
}

const char *knee_verdict_name(enum knee_verdict v)
{
	switch (v) {
	case KNEE_PASS:
		return "pass";
	case KNEE_PASS_PDR:
		return "pass-pdr";
	case KNEE_FAIL:
		return "fail";
	case KNEE_INVALID:
		return "invalid";
	case KNEE_QUEUED:
		return "queued";
	}
	return "";
}
