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
	if (!(c->loss_goal >= 0 && c->loss_goal < 1) ||
	    !(c->width_goal > 0 && c->width_goal < 0.5)) {
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
		/* any rate in [aim, reach] ends the search whichever way it goes */
		double aim = (double)s->upper * (1 - g), reach = (double)s->lower / (1 - g);

		/* Below a generator limit, aim just above what the generator
		 * really sent there: the limit is close to it. */
		if (s->upper_gen && s->upper_rx > s->lower) {
			double hint = (double)s->upper_rx / (1 - 2 * g);

			if (hint < mid)
				mid = hint;
		} else if (s->upper_rx && (double)s->upper_rx < mid) {
			/* The path delivered less than mid even when offered the
			 * upper bound: the knee is likely just above the lower
			 * bound. Step up from it, doubling the step each pass. */
			double up = (double)s->lower / (1 - step_of(k, s->up_steps));

			if (up < mid)
				mid = up;
		}
		/* Within about twice the goal one trial finishes whichever way
		 * it goes: aim at the middle of the rates that do. */
		if (aim <= reach)
			mid = sqrt(aim * reach);
		return clamp_between(mid, s->lower, s->upper);
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

static bool below_min_unconfirmed(const struct knee *k, int t);
static unsigned unsustained(const struct knee *k, const struct knee_trial *t);

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
		/* a target whose confirmation failed narrows with final trials */
		*t = (struct knee_trial){ .rate_bps = narrow_rate(k, &k->side[best]),
					  .duration_ns = k->final_mode[best] ? k->cfg.final_ns
									     : k->cfg.short_ns,
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
		else if (below_min_unconfirmed(k, i))
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
	} else if (unsustained(k, t) >= 2) {
		/* A rate the generator could not offer, asked for and retried
		 * already: a third try measures nothing new. The search ends at
		 * the generator's limit. */
		k->stuck = true;
		k->finished = true;
		return false;
	}
	k->pending = *t;
	k->have_pending = true;
	return true;
}

enum outcome { OUT_NONE, OUT_PASS, OUT_FAIL };

/* How trial i counts for target t. An invalid trial (the generator fell
 * short of the rate asked for) is a fail when it lost more than the goal
 * anyway, at a rate lower than asked; when it did not, the path carried
 * what the generator did send within the goal: a pass at that rate
 * (rate_of()), when that is inside the search's range. A generator short of every rate by the same
 * share (a sender held off the CPU) would otherwise never give a pass, and the search walk down to
 * nothing with no loss seen at all. */
static enum outcome outcome_for(const struct knee *k, unsigned i, int t)
{
	const struct knee_record *r = &k->trials[i];

	if (r->m.loss_ratio > goal_of(k, t))
		return OUT_FAIL;
	if (r->verdict == KNEE_INVALID)
		return r->m.achieved_bps >= k->cfg.min_rate_bps &&
				       r->m.achieved_bps < r->trial.rate_bps
			       ? OUT_PASS
			       : OUT_NONE;
	return OUT_PASS;
}

/* The rate trial i's outcome stands at: what the generator really sent
 * when it fell short and the trial passed, else the rate asked for. */
static uint64_t rate_of(const struct knee *k, unsigned i)
{
	const struct knee_record *r = &k->trials[i];

	if (r->verdict == KNEE_INVALID && r->m.achieved_bps >= k->cfg.min_rate_bps &&
	    r->m.achieved_bps < r->trial.rate_bps && r->m.loss_ratio <= k->cfg.loss_goal)
		return r->m.achieved_bps;
	return r->trial.rate_bps;
}

/* Whether trial j outranks trial i: longer, or as long and newer. */
static bool outranks(const struct knee *k, unsigned j, unsigned i)
{
	uint64_t dj = k->trials[j].trial.duration_ns, di = k->trials[i].trial.duration_ns;

	return dj > di || (dj == di && j > i);
}

/* A target left with a fail at min_rate as its only bound although it
 * passed at higher rates: one trial (a hiccup, noise on a lossy path, a
 * confirmation made for the other target) outvotes all of them. "Below min"
 * then needs a second full-length fail at min_rate; until there is one, that
 * rate is tried again. With no pass above, one full-length fail suffices. */
static bool below_min_unconfirmed(const struct knee *k, int t)
{
	const struct knee_side *s = &k->side[t];
	unsigned long_fails = 0;
	bool passed_above = false;

	if (!s->upper_valid || s->lower_valid || s->upper_gen || s->upper > k->cfg.min_rate_bps)
		return false;
	for (unsigned i = 0; i < k->ntrials; i++) {
		const struct knee_trial *tr = &k->trials[i].trial;
		enum outcome o = outcome_for(k, i, t);

		if (o == OUT_PASS && rate_of(k, i) > s->upper)
			passed_above = true;
		else if (o == OUT_FAIL && rate_of(k, i) == s->upper &&
			 tr->duration_ns >= k->cfg.final_ns)
			long_fails++;
	}
	return passed_above && long_fails < 2;
}

/* Which trials stand for target t: a fail is outvoted by an outranking pass
 * at the same or a higher rate, a pass by an outranking fail at the same or a
 * lower rate (that is how a failed confirmation moves a bound, and how noise
 * in short trials is outvoted by long ones), and a trial that is itself
 * outvoted outvotes nothing: a repeat that passes where one long trial
 * failed restores the passes above that the failure had outvoted. Decided
 * from the highest-ranked trial down. */
static void standing(const struct knee *k, int t, bool *st)
{
	unsigned order[KNEE_MAX_TRIALS], n = k->ntrials;

	for (unsigned i = 0; i < n; i++) {
		unsigned p = i;

		/* insertion sort, highest rank first */
		while (p > 0 && outranks(k, i, order[p - 1])) {
			order[p] = order[p - 1];
			p--;
		}
		order[p] = i;
	}
	for (unsigned p = 0; p < n; p++) {
		unsigned i = order[p];
		uint64_t rate = rate_of(k, i);
		enum outcome o = outcome_for(k, i, t);

		st[i] = true;
		for (unsigned q = 0; q < p && st[i]; q++) {
			unsigned j = order[q];
			uint64_t rj = rate_of(k, j);
			enum outcome oj = outcome_for(k, j, t);

			if (!st[j])
				continue;
			if ((o == OUT_FAIL && oj == OUT_PASS && rj >= rate) ||
			    (o == OUT_PASS && oj == OUT_FAIL && rj <= rate))
				st[i] = false;
		}
	}
}

/* Of two trials at candidate bounds, the better: the tighter rate, then the
 * longer trial, then the newer one. */
static bool better(const struct knee *k, int best, unsigned i, bool lower)
{
	const struct knee_trial *a, *b;
	uint64_t ra, rb;

	if (best < 0)
		return true;
	a = &k->trials[i].trial;
	b = &k->trials[best].trial;
	ra = rate_of(k, i);
	rb = rate_of(k, (unsigned)best);
	if (ra != rb)
		return lower ? ra > rb : ra < rb;
	return a->duration_ns != b->duration_ns ? a->duration_ns > b->duration_ns
						: i > (unsigned)best;
}

/* A pass at or above the generator limit in a trial shorter than the one
 * that set the limit: the sender managed it briefly but cannot sustain it
 * for as long as a confirmation lasts, so it can never become a confirmed
 * lower bound. Left standing, the search would confirm it again and again. */
static bool unconfirmable(const struct knee *k, unsigned i, enum outcome o)
{
	const struct knee_trial *tr = &k->trials[i].trial;

	return o == OUT_PASS && k->gen_limited && rate_of(k, i) >= k->gen_limit &&
	       tr->duration_ns < k->trials[k->gen_trial].trial.duration_ns;
}

/* Derives target t's bounds from every trial so far. */
static void recompute(struct knee *k, int t)
{
	struct knee_side *s = &k->side[t];
	int lo = -1, up = -1;
	unsigned passes = 0, fails = 0;
	bool st[KNEE_MAX_TRIALS];

	standing(k, t, st);
	for (unsigned i = 0; i < k->ntrials; i++) {
		enum outcome o = outcome_for(k, i, t);

		/* Runs of passes and fails size the external search's steps; a
		 * failed confirmation says nothing about how far off we are. */
		if (o == OUT_PASS) {
			passes++;
			fails = 0;
		} else if (o == OUT_FAIL) {
			fails += k->trials[i].trial.phase != KNEE_PHASE_CONFIRM;
			passes = 0;
		}
		if (o == OUT_NONE || !st[i] || unconfirmable(k, i, o))
			continue;
		if (o == OUT_FAIL && better(k, up, i, false))
			up = (int)i;
		else if (o == OUT_PASS && better(k, lo, i, true))
			lo = (int)i;
	}
	memset(s, 0, sizeof(*s));
	s->lower_trial = s->upper_trial = -1;
	s->down_steps = fails;
	s->up_steps = passes ? passes - 1 : 0;
	if (lo >= 0) {
		s->lower_valid = true;
		s->lower = rate_of(k, (unsigned)lo);
		s->lower_dur = k->trials[lo].trial.duration_ns;
		s->lower_rx = k->trials[lo].m.received_bps;
		s->lower_trial = lo;
	}
	if (up >= 0) {
		s->upper_valid = true;
		s->upper = rate_of(k, (unsigned)up);
		s->upper_dur = k->trials[up].trial.duration_ns;
		s->upper_rx = k->trials[up].m.received_bps;
		s->upper_loss = k->trials[up].m.loss_ratio;
		s->upper_trial = up;
	}
	/* Above the generator's limit nothing can be measured: the limit is the
	 * upper bound unless a loss was found below it or a valid pass above.
	 * A loss at the limit itself in a shorter trial than the one that set
	 * it could never be confirmed either: the limit stands in for it. */
	if (k->gen_limited &&
	    (!s->upper_valid || s->upper > k->gen_limit ||
	     (s->upper == k->gen_limit &&
	      s->upper_dur < k->trials[k->gen_trial].trial.duration_ns)) &&
	    (!s->lower_valid || s->lower < k->gen_limit)) {
		s->upper_valid = true;
		s->upper_gen = true;
		s->upper = k->gen_limit;
		s->upper_dur = 0;
		s->upper_rx = k->trials[k->gen_trial].m.achieved_bps;
		s->upper_loss = k->trials[k->gen_trial].m.loss_ratio;
		s->upper_trial = (int)k->gen_trial;
	}
}

/* Whether a confirmation at `rate` moved the bound it was meant to confirm:
 * short trials then overstate this target, so it narrows with final ones. */
static bool confirm_failed(const struct knee_side *old, const struct knee_side *now, uint64_t rate)
{
	if (old->lower_valid && old->lower == rate)
		return !now->lower_valid || now->lower != rate;
	if (old->upper_valid && old->upper == rate)
		return !now->upper_valid || now->upper != rate;
	return false;
}

/* A trial the generator could not offer: retried once; invalid twice, its
 * rate becomes the generator limit. Trials that lost more than every goal
 * need no retry: they are fails whatever the generator did. */
static void record_invalid(struct knee *k, unsigned idx)
{
	uint64_t rate = k->trials[idx].trial.rate_bps;

	if (k->trials[idx].m.loss_ratio > k->cfg.loss_goal) {
		k->retry = false;
		return;
	}
	if (!k->retry) {
		k->retry = true;
		return;
	}
	k->retry = false;
	/* the lowest such rate; at the same rate the longer trial, which
	 * says the sender cannot hold it for as long as a confirmation */
	if (!k->gen_limited || rate < k->gen_limit ||
	    (rate == k->gen_limit &&
	     k->trials[idx].trial.duration_ns > k->trials[k->gen_trial].trial.duration_ns)) {
		k->gen_limit = rate;
		k->gen_trial = idx;
	}
	k->gen_limited = true;
	if (k->max_eff > rate)
		k->max_eff = rate;
	/* A limit found in a full-length trial: short trials pass above it
	 * and so say nothing about what a confirmation will sustain; narrow
	 * with full-length trials from here on. */
	if (k->trials[k->gen_trial].trial.duration_ns >= k->cfg.final_ns)
		for (int t = 0; t < KNEE_NTARGETS; t++)
			k->final_mode[t] = true;
}

/* How many trials at this rate and duration the generator could not offer
 * (and that lost no more than the goal: those are fails, not invalid). */
static unsigned unsustained(const struct knee *k, const struct knee_trial *t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < k->ntrials; i++) {
		const struct knee_record *r = &k->trials[i];

		n += r->verdict == KNEE_INVALID && r->trial.rate_bps == t->rate_bps &&
		     r->trial.duration_ns == t->duration_ns && r->m.loss_ratio <= k->cfg.loss_goal;
	}
	return n;
}

int knee_record(struct knee *k, const struct knee_measurement *m)
{
	struct knee_record *rec;
	unsigned idx;

	if (!k->have_pending || !(m->loss_ratio >= 0 && m->loss_ratio <= 1))
		return -EINVAL;
	if (k->ntrials >= KNEE_MAX_TRIALS)
		return -ENOSPC;
	idx = k->ntrials++;
	rec = &k->trials[idx];
	rec->trial = k->pending;
	rec->m = *m;
	rec->verdict = knee_classify(m, k->cfg.loss_goal);
	k->have_pending = false;
	k->trial_ns += m->duration_ns ? m->duration_ns : rec->trial.duration_ns;
	if (!k->started) {
		k->started = true;
		k->mrr = m->received_bps;
	}
	if (rec->verdict == KNEE_INVALID)
		record_invalid(k, idx);
	else
		k->retry = false;
	for (int t = 0; t < KNEE_NTARGETS; t++) {
		struct knee_side old = k->side[t];

		recompute(k, t);
		if (rec->trial.phase == KNEE_PHASE_CONFIRM &&
		    confirm_failed(&old, &k->side[t], rec->trial.rate_bps))
			k->final_mode[t] = true;
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
	/* Stopped short of the width goal because the generator cannot offer
	 * the next rate: the lower bound is what it sustained. */
	if (lo_ok && s->upper_gen && k->stuck)
		return KNEE_GENERATOR_LIMIT;
	if (lo_ok && !s->upper_valid && s->lower >= k->max_eff)
		return k->gen_limited ? KNEE_GENERATOR_LIMIT : KNEE_ABOVE_MAX;
	if (up_ok && !s->lower_valid && s->upper <= k->cfg.min_rate_bps)
		return s->upper_gen				      ? KNEE_GENERATOR_LIMIT
		       : below_min_unconfirmed(k, (int)(s - k->side)) ? KNEE_UNFINISHED
								      : KNEE_BELOW_MIN;
	return KNEE_UNFINISHED;
}

/* What the generator really sent in trial i, never credited above the
 * target it was asked for (a sender a rounding ahead of its pacer offered
 * the target, no more); the target when the caller did not measure it. */
static uint64_t achieved_of(const struct knee *k, int i, uint64_t target)
{
	uint64_t a;

	if (i < 0 || (unsigned)i >= k->ntrials)
		return 0;
	a = k->trials[i].m.achieved_bps;
	return a && a < target ? a : target;
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
		b->lower_achieved_bps = achieved_of(k, b->lower_trial, b->lower_bps);
		b->upper_achieved_bps = achieved_of(k, b->upper_trial, b->upper_bps);
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
