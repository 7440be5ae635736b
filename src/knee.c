// SPDX-License-Identifier: MIT
/*
 * The loss-knee search (see knee.h for the contract and the outline).
 *
 * Each target (NDR, PDR) keeps a lower bound (highest rate measured to pass)
 * and an upper bound (lowest rate measured to fail), each with the duration
 * of the trial that set it. One trial updates both targets. When a new
 * result contradicts a bound, the longer trial wins (at equal durations the
 * newer one): that is how a failed confirmation moves a bound.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "knee.h"
#include "log.h"

void knee_config_defaults(struct knee_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->loss_goal = KNEE_DEFAULT_LOSS_GOAL;
	cfg->width_goal = KNEE_DEFAULT_WIDTH_GOAL;
	cfg->short_ns = KNEE_DEFAULT_SHORT_NS;
	cfg->final_ns = KNEE_DEFAULT_FINAL_NS;
	cfg->max_trials = KNEE_DEFAULT_MAX_TRIALS;
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
	if (!(c->loss_goal >= 0 && c->loss_goal < 1) || !(c->width_goal > 0 && c->width_goal < 0.5)) {
		log_debug("loss goal must be in [0, 1), width goal in (0, 0.5)");
		return -EINVAL;
	}
	if (!c->short_ns || c->final_ns < c->short_ns) {
		log_debug("trial durations: need 0 < short <= final");
		return -EINVAL;
	}
	if (!c->max_trials)
		c->max_trials = KNEE_DEFAULT_MAX_TRIALS;
	if (c->max_trials > KNEE_MAX_TRIALS) {
		log_debug("at most %d trials", KNEE_MAX_TRIALS);
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
	for (int t = 0; t < KNEE_NTARGETS; t++) {
		k->side[t].lower_trial = -1;
		k->side[t].upper_trial = -1;
	}
	k->max_eff = k->cfg.max_rate_bps;
	return 0;
}

static double goal_of(const struct knee *k, int t)
{
	return t == KNEE_NDR ? 0.0 : k->cfg.loss_goal;
}

enum knee_verdict knee_classify(const struct knee_measurement *m, double loss_goal)
{
	if (m->generator_limited)
		return KNEE_INVALID;
	if (m->loss_ratio <= 0)
		return KNEE_PASS;
	return m->loss_ratio <= loss_goal ? KNEE_PASS_PDR : KNEE_FAIL;
}

static double rel_width(uint64_t lower, uint64_t upper)
{
	return upper ? (double)(upper - lower) / (double)upper : 0;
}

/* The width goal, with a little slack for integer rounding of rates. */
static bool width_met(const struct knee *k, const struct knee_side *s)
{
	return s->upper <= s->lower ||
	       rel_width(s->lower, s->upper) <= k->cfg.width_goal * (1 + 1e-9) + 1e-12;
}

static bool narrowed(const struct knee *k, const struct knee_side *s)
{
	if (s->lower_valid && s->upper_valid)
		return width_met(k, s);
	if (s->lower_valid)
		return s->lower >= k->max_eff;
	if (s->upper_valid)
		return s->upper <= k->cfg.min_rate_bps;
	return false;
}

static uint64_t clamp_between(double c, uint64_t lo, uint64_t hi)
{
	uint64_t r = c <= 0 ? 0 : (uint64_t)llround(c);

	if (r <= lo)
		r = lo + 1;
	if (r >= hi)
		r = hi - 1;
	return r;
}

static double step_of(const struct knee *k, unsigned n)
{
	double step = k->cfg.width_goal * (double)(1u << (n > 10 ? 10 : n));

	return step > 0.5 ? 0.5 : step;
}

/* Next narrowing rate for one target, whose bounds are not narrowed yet. */
static uint64_t narrow_rate(const struct knee *k, const struct knee_side *s)
{
	const struct knee_config *c = &k->cfg;
	double g = c->width_goal;

	if (s->lower_valid && s->upper_valid) {
		double mid = sqrt((double)s->lower * (double)s->upper);
		double aim = (double)s->upper * (1 - g);

		/* Below a generator limit, aim just above what the generator
		 * really sent there: the limit is close to it. */
		if (s->upper_gen && s->upper_rx > s->lower) {
			double hint = (double)s->upper_rx / (1 - 2 * g);

			if (hint < mid)
				mid = hint;
		}
		/* Within twice the goal, one trial finishes whichever way it goes. */
		return clamp_between(aim <= mid ? aim : mid, s->lower, s->upper);
	}
	if (s->upper_valid) {
		double rate = (double)s->upper * (1 - step_of(k, s->down_steps));

		/* Jump to what the path delivered, when that is lower still. */
		if (s->upper_rx && (double)s->upper_rx < rate)
			rate = (double)s->upper_rx;
		if (rate < (double)c->min_rate_bps)
			rate = (double)c->min_rate_bps;
		return clamp_between(rate, c->min_rate_bps - 1, s->upper);
	}
	if (s->lower_valid) {
		double rate = (double)s->lower / (1 - step_of(k, s->up_steps));

		if (rate > (double)k->max_eff)
			rate = (double)k->max_eff;
		return clamp_between(rate, s->lower, k->max_eff + 1);
	}
	return k->max_eff;
}

static bool pick(struct knee *k, struct knee_trial *t)
{
	double widest = -1;
	int best = -1;

	for (int i = 0; i < KNEE_NTARGETS; i++) {
		const struct knee_side *s = &k->side[i];
		double w;

		if (narrowed(k, s))
			continue;
		w = s->lower_valid && s->upper_valid ? rel_width(s->lower, s->upper) : 2.0;
		if (w > widest) {
			widest = w;
			best = i;
		}
	}
	if (best >= 0) {
		*t = (struct knee_trial){ .rate_bps = narrow_rate(k, &k->side[best]),
					  .duration_ns = k->cfg.short_ns,
					  .phase = KNEE_PHASE_NARROW,
					  .target = (enum knee_target)best };
		return true;
	}
	for (int i = 0; i < KNEE_NTARGETS; i++) {
		const struct knee_side *s = &k->side[i];
		uint64_t rate = 0;

		if (s->lower_valid && s->lower_dur < k->cfg.final_ns)
			rate = s->lower;
		else if (s->upper_valid && !s->upper_gen && s->upper_dur < k->cfg.final_ns)
			rate = s->upper;
		if (rate) {
			*t = (struct knee_trial){ .rate_bps = rate,
						  .duration_ns = k->cfg.final_ns,
						  .phase = KNEE_PHASE_CONFIRM,
						  .target = (enum knee_target)i };
			return true;
		}
	}
	return false;
}

bool knee_next(struct knee *k, struct knee_trial *t)
{
	if (k->finished)
		return false;
	if (k->have_pending) {
		*t = k->pending;
		return true;
	}
	if (k->ntrials >= k->cfg.max_trials || k->ntrials >= KNEE_MAX_TRIALS) {
		k->finished = true;
		return false;
	}
	if (!k->started) {
		*t = (struct knee_trial){ .rate_bps = k->max_eff,
					  .duration_ns = k->cfg.short_ns,
					  .phase = KNEE_PHASE_MRR,
					  .target = KNEE_PDR };
	} else if (k->retry) {
		*t = k->trials[k->ntrials - 1].trial;
		t->phase = KNEE_PHASE_RETRY;
	} else if (!pick(k, t)) {
		k->finished = true;
		return false;
	}
	k->pending = *t;
	k->have_pending = true;
	return true;
}

static void set_upper(struct knee_side *s, uint64_t rate, uint64_t dur, const struct knee_measurement *m,
		      int idx, bool gen)
{
	s->upper_valid = true;
	s->upper = rate;
	s->upper_dur = dur;
	s->upper_rx = gen ? m->achieved_bps : m->received_bps;
	s->upper_loss = m->loss_ratio;
	s->upper_trial = idx;
	s->upper_gen = gen;
}

static void on_pass(struct knee_side *s, uint64_t rate, uint64_t dur,
		    const struct knee_measurement *m, int idx)
{
	if (s->upper_valid && rate >= s->upper) {
		/* Contradicts the upper bound: the longer trial decides. */
		if (!s->upper_gen && dur < s->upper_dur)
			return;
		s->upper_valid = false;
		s->upper_gen = false;
		s->upper_trial = -1;
		s->up_steps = 0;
	}
	if (s->lower_valid && rate < s->lower)
		return;
	if (s->lower_valid && rate == s->lower) {
		if (dur > s->lower_dur)
			s->lower_dur = dur;
	} else {
		s->lower = rate;
		s->lower_dur = dur;
	}
	s->lower_valid = true;
	s->lower_rx = m->received_bps;
	s->lower_trial = idx;
	s->down_steps = 0;
}

static void on_fail(struct knee_side *s, uint64_t rate, uint64_t dur,
		    const struct knee_measurement *m, int idx)
{
	if (s->lower_valid && rate <= s->lower) {
		/* Contradicts the lower bound: the longer trial decides. */
		if (dur < s->lower_dur)
			return;
		s->lower_valid = false;
		s->lower_trial = -1;
	}
	if (!s->upper_valid || rate < s->upper || (s->upper_gen && rate <= s->upper))
		set_upper(s, rate, dur, m, idx, false);
	else if (rate == s->upper && !s->upper_gen) {
		if (dur >= s->upper_dur)
			set_upper(s, rate, dur, m, idx, false);
	} else {
		return;
	}
	if (!s->lower_valid)
		s->down_steps++;
	else
		s->up_steps = 0;
}

/* The generator could not offer `rate` twice: nothing at or above it can be
 * measured. Every target without a lower upper bound gets it as its upper. */
static void set_generator_limit(struct knee *k, uint64_t rate, uint64_t dur,
				const struct knee_measurement *m, int idx)
{
	if (!k->gen_limited || rate < k->gen_limit)
		k->gen_limit = rate;
	k->gen_limited = true;
	if (k->max_eff > rate)
		k->max_eff = rate;
	for (int t = 0; t < KNEE_NTARGETS; t++) {
		struct knee_side *s = &k->side[t];

		if (s->lower_valid && s->lower >= rate) {
			s->lower_valid = false;
			s->lower_trial = -1;
		}
		if (!s->upper_valid || s->upper > rate || (s->upper_gen && s->upper == rate))
			set_upper(s, rate, dur, m, idx, true);
	}
}

static void record_invalid(struct knee *k, uint64_t rate, uint64_t dur,
			   const struct knee_measurement *m, int idx)
{
	bool undecided = false;

	/* Loss above a goal at a rate lower than asked is a fail all the same. */
	for (int t = 0; t < KNEE_NTARGETS; t++) {
		if (m->loss_ratio > goal_of(k, t))
			on_fail(&k->side[t], rate, dur, m, idx);
		else
			undecided = true;
	}
	if (!undecided) {
		k->retry = false;
		return;
	}
	if (k->retry) {
		set_generator_limit(k, rate, dur, m, idx);
		k->retry = false;
	} else {
		k->retry = true;
	}
}

int knee_record(struct knee *k, const struct knee_measurement *m)
{
	struct knee_record *rec;
	uint64_t rate, dur;
	int idx;

	if (!k->have_pending || !(m->loss_ratio >= 0 && m->loss_ratio <= 1))
		return -EINVAL;
	if (k->ntrials >= KNEE_MAX_TRIALS)
		return -ENOSPC;
	idx = (int)k->ntrials++;
	rec = &k->trials[idx];
	rec->trial = k->pending;
	rec->m = *m;
	rec->verdict = knee_classify(m, k->cfg.loss_goal);
	k->have_pending = false;
	rate = rec->trial.rate_bps;
	dur = rec->trial.duration_ns;
	k->trial_ns += m->duration_ns ? m->duration_ns : dur;
	if (!k->started) {
		k->started = true;
		k->mrr = m->received_bps;
	}
	if (rec->verdict == KNEE_INVALID) {
		record_invalid(k, rate, dur, m, idx);
		return 0;
	}
	k->retry = false;
	for (int t = 0; t < KNEE_NTARGETS; t++) {
		if (m->loss_ratio <= goal_of(k, t))
			on_pass(&k->side[t], rate, dur, m, idx);
		else
			on_fail(&k->side[t], rate, dur, m, idx);
	}
	return 0;
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

static enum knee_outcome outcome_of(const struct knee *k, const struct knee_side *s)
{
	uint64_t fin = k->cfg.final_ns;
	bool lo_ok = s->lower_valid && s->lower_dur >= fin;
	bool up_ok = s->upper_valid && (s->upper_gen || s->upper_dur >= fin);

	if (s->lower_valid && !lo_ok)
		return KNEE_UNFINISHED;
	if (s->upper_valid && !up_ok)
		return KNEE_UNFINISHED;
	if (lo_ok && up_ok && width_met(k, s))
		return s->upper_gen ? KNEE_GENERATOR_LIMIT : KNEE_FOUND;
	if (lo_ok && !s->upper_valid && s->lower >= k->max_eff)
		return k->gen_limited ? KNEE_GENERATOR_LIMIT : KNEE_ABOVE_MAX;
	if (up_ok && !s->lower_valid && s->upper <= k->cfg.min_rate_bps)
		return s->upper_gen ? KNEE_GENERATOR_LIMIT : KNEE_BELOW_MIN;
	return KNEE_UNFINISHED;
}

void knee_get_result(const struct knee *k, struct knee_result *res)
{
	memset(res, 0, sizeof(*res));
	for (int t = 0; t < KNEE_NTARGETS; t++) {
		const struct knee_side *s = &k->side[t];
		struct knee_bound *b = &res->bound[t];

		b->outcome = outcome_of(k, s);
		b->lower_valid = s->lower_valid;
		b->upper_valid = s->upper_valid;
		b->lower_bps = s->lower_valid ? s->lower : 0;
		b->upper_bps = s->upper_valid ? s->upper : 0;
		b->lower_final = s->lower_valid && s->lower_dur >= k->cfg.final_ns;
		b->upper_final = s->upper_valid && s->upper_dur >= k->cfg.final_ns;
		b->upper_is_generator_limit = s->upper_valid && s->upper_gen;
		b->lower_trial = s->lower_valid ? s->lower_trial : -1;
		b->upper_trial = s->upper_valid ? s->upper_trial : -1;
		b->lower_rx_bps = s->lower_valid ? s->lower_rx : 0;
		b->upper_loss = s->upper_valid ? s->upper_loss : 0;
	}
	res->mrr_bps = k->mrr;
	res->generator_limited = k->gen_limited;
	res->generator_limit_bps = k->gen_limited ? k->gen_limit : 0;
	res->ntrials = k->ntrials;
	res->trial_ns = k->trial_ns;
	res->done = k->finished && !k->abandoned;
}

const struct knee_record *knee_trials(const struct knee *k, unsigned *n)
{
	*n = k->ntrials;
	return k->trials;
}

unsigned knee_estimate_trials(const struct knee_config *cfg)
{
	double g = cfg->width_goal > 0 ? cfg->width_goal : KNEE_DEFAULT_WIDTH_GOAL;
	unsigned bisect = (unsigned)ceil(log2(0.5 / g));
	unsigned n = 1 + 2 * (2 + bisect) + 4;

	if (cfg->max_trials && n > cfg->max_trials)
		n = cfg->max_trials;
	return n;
}

uint64_t knee_estimate_ns(const struct knee_config *cfg)
{
	unsigned n = knee_estimate_trials(cfg);
	unsigned fin = n > 4 ? 4 : n;

	return (uint64_t)(n - fin) * cfg->short_ns + (uint64_t)fin * cfg->final_ns;
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
	}
	return "";
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
	}
	return "";
}
