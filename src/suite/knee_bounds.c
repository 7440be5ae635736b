// SPDX-License-Identifier: MIT
/*
 * The knee search's bookkeeping: what the trials so far say (knee_int.h).
 *
 * Each target (NDR, PDR) keeps a lower bound (highest rate measured to pass)
 * and an upper bound (lowest rate measured to fail), each with the duration
 * of the trial that set it, derived again from every trial after each one.
 * One trial counts for both targets. When a new result contradicts a bound,
 * the longer trial wins (at equal durations the newer one): that is how a
 * failed confirmation moves a bound. RFC 9971 keeps this apart from the
 * choice of the next load, as knee_select.c is kept apart from this file.
 */
#include <errno.h>
#include <string.h>

#include "knee_int.h"

void knee_bounds_init(struct knee_bounds *b, const struct knee_config *cfg)
{
	memset(b, 0, sizeof(*b));
	for (int t = 0; t < KNEE_NTARGETS; t++) {
		b->side[t].lower_trial = -1;
		b->side[t].upper_trial = -1;
	}
	b->max_eff = cfg->max_rate_bps;
}

static double goal_of(const struct knee_config *cfg, int t)
{
	return t == KNEE_NDR ? 0.0 : cfg->loss_goal;
}

enum knee_verdict knee_classify(const struct knee_measurement *m, double loss_goal)
{
	if (m->generator_limited)
		return KNEE_INVALID;
	if (m->loss_ratio <= 0)
		return KNEE_PASS;
	return m->loss_ratio <= loss_goal ? KNEE_PASS_PDR : KNEE_FAIL;
}

double knee_bounds_width(uint64_t lower, uint64_t upper)
{
	return upper ? (double)(upper - lower) / (double)upper : 0;
}

/* The width goal, with a little slack for integer rounding of rates. */
static bool width_met(const struct knee_config *cfg, const struct knee_side *s)
{
	return s->upper <= s->lower ||
	       knee_bounds_width(s->lower, s->upper) <= cfg->width_goal * (1 + 1e-9) + 1e-12;
}

bool knee_bounds_narrowed(const struct knee_bounds *b, const struct knee_config *cfg,
			  enum knee_target t)
{
	const struct knee_side *s = &b->side[t];

	if (s->lower_valid && s->upper_valid)
		return width_met(cfg, s);
	if (s->lower_valid)
		return s->lower >= b->max_eff;
	if (s->upper_valid)
		return s->upper <= cfg->min_rate_bps;
	return false;
}

enum outcome { OUT_NONE, OUT_PASS, OUT_FAIL };

/* Whether trial i is invalid yet credited as a pass at what the generator
 * did send: below the rate asked for, inside the search's range. */
static bool passes_as_sent(const struct knee_config *cfg, const struct knee_record *r)
{
	return r->verdict == KNEE_INVALID && r->m.achieved_bps >= cfg->min_rate_bps &&
	       r->m.achieved_bps < r->trial.rate_bps;
}

/* How trial i counts for target t. An invalid trial (the generator fell
 * short of the rate asked for) is a fail when it lost more than the goal
 * anyway, at a rate lower than asked; when it did not, the path carried
 * what the generator did send within the goal: a pass at that rate
 * (rate_of()), when that is inside the search's range. A generator short of
 * every rate by the same share (a sender held off the CPU) would otherwise
 * never give a pass, and the search walk down to nothing with no loss seen
 * at all. */
static enum outcome outcome_for(const struct knee_bounds *b, const struct knee_config *cfg,
				unsigned i, int t)
{
	const struct knee_record *r = &b->trials[i];

	if (r->m.loss_ratio > goal_of(cfg, t))
		return OUT_FAIL;
	if (r->verdict == KNEE_INVALID)
		return passes_as_sent(cfg, r) ? OUT_PASS : OUT_NONE;
	return OUT_PASS;
}

/* The rate trial i's outcome stands at: what the generator really sent
 * when it fell short and the trial passed, else the rate asked for. */
static uint64_t rate_of(const struct knee_bounds *b, const struct knee_config *cfg, unsigned i)
{
	const struct knee_record *r = &b->trials[i];

	if (passes_as_sent(cfg, r) && r->m.loss_ratio <= cfg->loss_goal)
		return r->m.achieved_bps;
	return r->trial.rate_bps;
}

/* Whether trial j outranks trial i: longer, or as long and newer. */
static bool outranks(const struct knee_bounds *b, unsigned j, unsigned i)
{
	uint64_t dj = b->trials[j].trial.duration_ns, di = b->trials[i].trial.duration_ns;

	return dj > di || (dj == di && j > i);
}

/* A target left with a fail at min_rate as its only bound although it
 * passed at higher rates: one trial (a hiccup, noise on a lossy path, a
 * confirmation made for the other target) outvotes all of them. "Below min"
 * then needs a second full-length fail at min_rate; until there is one, that
 * rate is tried again. With no pass above, one full-length fail suffices. */
bool knee_bounds_below_min_unconfirmed(const struct knee_bounds *b, const struct knee_config *cfg,
				       enum knee_target t)
{
	const struct knee_side *s = &b->side[t];
	unsigned long_fails = 0;
	bool passed_above = false;

	if (!s->upper_valid || s->lower_valid || s->upper_gen || s->upper > cfg->min_rate_bps)
		return false;
	for (unsigned i = 0; i < b->ntrials; i++) {
		const struct knee_trial *tr = &b->trials[i].trial;
		enum outcome o = outcome_for(b, cfg, i, t);

		if (o == OUT_PASS && rate_of(b, cfg, i) > s->upper)
			passed_above = true;
		else if (o == OUT_FAIL && rate_of(b, cfg, i) == s->upper &&
			 tr->duration_ns >= cfg->final_ns)
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
static void standing(const struct knee_bounds *b, const struct knee_config *cfg, int t, bool *st)
{
	unsigned order[KNEE_MAX_TRIALS], n = b->ntrials;

	for (unsigned i = 0; i < n; i++) {
		unsigned p = i;

		/* insertion sort, highest rank first */
		while (p > 0 && outranks(b, i, order[p - 1])) {
			order[p] = order[p - 1];
			p--;
		}
		order[p] = i;
	}
	for (unsigned p = 0; p < n; p++) {
		unsigned i = order[p];
		uint64_t rate = rate_of(b, cfg, i);
		enum outcome o = outcome_for(b, cfg, i, t);

		st[i] = true;
		for (unsigned q = 0; q < p && st[i]; q++) {
			unsigned j = order[q];
			uint64_t rj = rate_of(b, cfg, j);
			enum outcome oj = outcome_for(b, cfg, j, t);

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
static bool better(const struct knee_bounds *b, const struct knee_config *cfg, int best, unsigned i,
		   bool lower)
{
	const struct knee_trial *x, *y;
	uint64_t rx, ry;

	if (best < 0)
		return true;
	x = &b->trials[i].trial;
	y = &b->trials[best].trial;
	rx = rate_of(b, cfg, i);
	ry = rate_of(b, cfg, (unsigned)best);
	if (rx != ry)
		return lower ? rx > ry : rx < ry;
	return x->duration_ns != y->duration_ns ? x->duration_ns > y->duration_ns
						: i > (unsigned)best;
}

/* A pass at or above the generator limit in a trial shorter than the one
 * that set the limit: the sender managed it briefly but cannot sustain it
 * for as long as a confirmation lasts, so it can never become a confirmed
 * lower bound. Left standing, the search would confirm it again and again. */
static bool unconfirmable(const struct knee_bounds *b, const struct knee_config *cfg, unsigned i,
			  enum outcome o)
{
	const struct knee_trial *tr = &b->trials[i].trial;

	return o == OUT_PASS && b->gen_limited && rate_of(b, cfg, i) >= b->gen_limit &&
	       tr->duration_ns < b->trials[b->gen_trial].trial.duration_ns;
}

/* The side's bounds from the trials lo and up (-1: none). */
static void set_bounds(const struct knee_bounds *b, const struct knee_config *cfg,
		       struct knee_side *s, int lo, int up)
{
	if (lo >= 0) {
		s->lower_valid = true;
		s->lower = rate_of(b, cfg, (unsigned)lo);
		s->lower_dur = b->trials[lo].trial.duration_ns;
		s->lower_rx = b->trials[lo].m.received_bps;
		s->lower_trial = lo;
	}
	if (up >= 0) {
		s->upper_valid = true;
		s->upper = rate_of(b, cfg, (unsigned)up);
		s->upper_dur = b->trials[up].trial.duration_ns;
		s->upper_rx = b->trials[up].m.received_bps;
		s->upper_loss = b->trials[up].m.loss_ratio;
		s->upper_trial = up;
	}
}

/* Above the generator's limit nothing can be measured: the limit is the
 * upper bound unless a loss was found below it or a valid pass above. A
 * loss at the limit itself in a shorter trial than the one that set it
 * could never be confirmed either: the limit stands in for it. */
static void limit_bounds(const struct knee_bounds *b, struct knee_side *s)
{
	const struct knee_record *g = &b->trials[b->gen_trial];

	if (!b->gen_limited)
		return;
	if (s->upper_valid && s->upper < b->gen_limit)
		return;
	if (s->upper_valid && s->upper == b->gen_limit && s->upper_dur >= g->trial.duration_ns)
		return;
	if (s->lower_valid && s->lower >= b->gen_limit)
		return;
	s->upper_valid = true;
	s->upper_gen = true;
	s->upper = b->gen_limit;
	s->upper_dur = 0;
	s->upper_rx = g->m.achieved_bps;
	s->upper_loss = g->m.loss_ratio;
	s->upper_trial = (int)b->gen_trial;
}

/* Derives target t's bounds from every trial so far. */
static void recompute(struct knee_bounds *b, const struct knee_config *cfg, int t)
{
	struct knee_side *s = &b->side[t];
	int lo = -1, up = -1;
	unsigned passes = 0, fails = 0;
	bool st[KNEE_MAX_TRIALS];

	standing(b, cfg, t, st);
	for (unsigned i = 0; i < b->ntrials; i++) {
		enum outcome o = outcome_for(b, cfg, i, t);

		/* Runs of passes and fails size the external search's steps; a
		 * failed confirmation says nothing about how far off we are. */
		if (o == OUT_PASS) {
			passes++;
			fails = 0;
		} else if (o == OUT_FAIL) {
			fails += b->trials[i].trial.phase != KNEE_PHASE_CONFIRM;
			passes = 0;
		}
		if (o == OUT_NONE || !st[i] || unconfirmable(b, cfg, i, o))
			continue;
		if (o == OUT_FAIL && better(b, cfg, up, i, false))
			up = (int)i;
		else if (o == OUT_PASS && better(b, cfg, lo, i, true))
			lo = (int)i;
	}
	memset(s, 0, sizeof(*s));
	s->lower_trial = s->upper_trial = -1;
	s->down_steps = fails;
	s->up_steps = passes ? passes - 1 : 0;
	set_bounds(b, cfg, s, lo, up);
	limit_bounds(b, s);
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

/* A trial the generator could not offer: repeated once; invalid twice, its
 * rate becomes the generator limit. Trials that lost more than every goal
 * need no repeat: they are fails whatever the generator did. */
static void record_invalid(struct knee_bounds *b, const struct knee_config *cfg, unsigned idx)
{
	const struct knee_trial *tr = &b->trials[idx].trial;

	if (b->trials[idx].m.loss_ratio > cfg->loss_goal) {
		b->retry_due = false;
		return;
	}
	if (!b->retry_due) {
		b->retry_due = true;
		return;
	}
	b->retry_due = false;
	/* the lowest such rate; at the same rate the longer trial, which
	 * says the sender cannot hold it for as long as a confirmation */
	if (!b->gen_limited || tr->rate_bps < b->gen_limit ||
	    (tr->rate_bps == b->gen_limit &&
	     tr->duration_ns > b->trials[b->gen_trial].trial.duration_ns)) {
		b->gen_limit = tr->rate_bps;
		b->gen_trial = idx;
	}
	b->gen_limited = true;
	if (b->max_eff > tr->rate_bps)
		b->max_eff = tr->rate_bps;
	/* A limit found in a full-length trial: short trials pass above it
	 * and so say nothing about what a confirmation will sustain; narrow
	 * with full-length trials from here on. */
	if (b->trials[b->gen_trial].trial.duration_ns >= cfg->final_ns)
		for (int t = 0; t < KNEE_NTARGETS; t++)
			b->final_mode[t] = true;
}

unsigned knee_bounds_unsustained(const struct knee_bounds *b, const struct knee_config *cfg,
				 const struct knee_trial *t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < b->ntrials; i++) {
		const struct knee_record *r = &b->trials[i];

		n += r->verdict == KNEE_INVALID && r->trial.rate_bps == t->rate_bps &&
		     r->trial.duration_ns == t->duration_ns && r->m.loss_ratio <= cfg->loss_goal;
	}
	return n;
}

int knee_bounds_add(struct knee_bounds *b, const struct knee_config *cfg,
		    const struct knee_trial *t, const struct knee_measurement *m)
{
	struct knee_record *rec;
	unsigned idx;

	if (b->ntrials >= KNEE_MAX_TRIALS)
		return -ENOSPC;
	idx = b->ntrials++;
	rec = &b->trials[idx];
	rec->trial = *t;
	rec->m = *m;
	rec->verdict = knee_classify(m, cfg->loss_goal);
	b->trial_ns += m->duration_ns ? m->duration_ns : t->duration_ns;
	if (idx == 0)
		b->mrr = m->received_bps;
	if (rec->verdict == KNEE_INVALID)
		record_invalid(b, cfg, idx);
	else
		b->retry_due = false;
	for (int i = 0; i < KNEE_NTARGETS; i++) {
		struct knee_side old = b->side[i];

		recompute(b, cfg, i);
		if (t->phase == KNEE_PHASE_CONFIRM &&
		    confirm_failed(&old, &b->side[i], t->rate_bps))
			b->final_mode[i] = true;
	}
	return 0;
}

enum knee_outcome knee_bounds_outcome(const struct knee_bounds *b, const struct knee_config *cfg,
				      enum knee_target t, bool stuck)
{
	const struct knee_side *s = &b->side[t];
	uint64_t fin = cfg->final_ns;
	bool lo_ok = s->lower_valid && s->lower_dur >= fin;
	bool up_ok = s->upper_valid && (s->upper_gen || s->upper_dur >= fin);

	if (s->lower_valid && !lo_ok)
		return KNEE_UNFINISHED;
	if (s->upper_valid && !up_ok)
		return KNEE_UNFINISHED;
	if (lo_ok && up_ok && width_met(cfg, s))
		return s->upper_gen ? KNEE_GENERATOR_LIMIT : KNEE_FOUND;
	/* Stopped short of the width goal because the generator cannot offer
	 * the next rate: the lower bound is what it sustained. */
	if (lo_ok && s->upper_gen && stuck)
		return KNEE_GENERATOR_LIMIT;
	if (lo_ok && !s->upper_valid && s->lower >= b->max_eff)
		return b->gen_limited ? KNEE_GENERATOR_LIMIT : KNEE_ABOVE_MAX;
	if (up_ok && !s->lower_valid && s->upper <= cfg->min_rate_bps)
		return s->upper_gen				      ? KNEE_GENERATOR_LIMIT
		       : knee_bounds_below_min_unconfirmed(b, cfg, t) ? KNEE_UNFINISHED
								      : KNEE_BELOW_MIN;
	return KNEE_UNFINISHED;
}

/* What the generator really sent in trial i, never credited above the
 * target it was asked for (a sender a rounding ahead of its pacer offered
 * the target, no more); the target when the caller did not measure it. */
static uint64_t achieved_of(const struct knee_bounds *b, int i, uint64_t target)
{
	uint64_t a;

	if (i < 0 || (unsigned)i >= b->ntrials)
		return 0;
	a = b->trials[i].m.achieved_bps;
	return a && a < target ? a : target;
}

void knee_bounds_get(const struct knee_bounds *b, const struct knee_config *cfg, bool stuck,
		     struct knee_result *res)
{
	memset(res, 0, sizeof(*res));
	for (int t = 0; t < KNEE_NTARGETS; t++) {
		const struct knee_side *s = &b->side[t];
		struct knee_bound *kb = &res->bound[t];

		kb->outcome = knee_bounds_outcome(b, cfg, (enum knee_target)t, stuck);
		kb->lower_valid = s->lower_valid;
		kb->upper_valid = s->upper_valid;
		kb->lower_bps = s->lower_valid ? s->lower : 0;
		kb->upper_bps = s->upper_valid ? s->upper : 0;
		kb->lower_final = s->lower_valid && s->lower_dur >= cfg->final_ns;
		kb->upper_final = s->upper_valid && s->upper_dur >= cfg->final_ns;
		kb->upper_is_generator_limit = s->upper_valid && s->upper_gen;
		kb->lower_trial = s->lower_valid ? s->lower_trial : -1;
		kb->upper_trial = s->upper_valid ? s->upper_trial : -1;
		kb->lower_rx_bps = s->lower_valid ? s->lower_rx : 0;
		kb->upper_loss = s->upper_valid ? s->upper_loss : 0;
		kb->lower_achieved_bps = achieved_of(b, kb->lower_trial, kb->lower_bps);
		kb->upper_achieved_bps = achieved_of(b, kb->upper_trial, kb->upper_bps);
	}
	res->mrr_bps = b->mrr;
	res->generator_limited = b->gen_limited;
	res->generator_limit_bps = b->gen_limited ? b->gen_limit : 0;
	res->ntrials = b->ntrials;
	res->trial_ns = b->trial_ns;
}
