// SPDX-License-Identifier: MIT
/*
 * The knee search's bookkeeping: what the trials so far say (knee_int.h).
 *
 * Every trial is kept. For a target (a goal, or the coarse target before
 * it) the trials at one load are pooled into the sums of RFC 9971
 * Appendix A, which classify the load as a lower bound, an upper bound or
 * undecided; the relevant bounds (RFC 9971 4.8) follow from the classes, and
 * the generator's limit caps them. Nothing here chooses a load: that is
 * knee_select.c, as RFC 9971 keeps the two apart.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "knee_int.h"

void knee_goal_of(const struct knee_config *cfg, enum knee_target t, struct knee_goal *g)
{
	uint64_t sum = cfg->duration_sum_ns ? cfg->duration_sum_ns
					    : KNEE_DURATION_SUM_TRIALS * cfg->final_ns;

	*g = (struct knee_goal){ .loss_ratio = t == KNEE_NDR ? 0.0 : cfg->loss_goal,
				 .exceed_ratio = cfg->exceed_ratio,
				 .final_ns = cfg->final_ns,
				 .duration_sum_ns = sum > cfg->final_ns ? sum : cfg->final_ns,
				 .width = cfg->width_goal,
				 .queue_tolerance = KNEE_QUEUE_TOLERANCE };
}

void knee_bounds_init(struct knee_bounds *b, const struct knee_config *cfg)
{
	memset(b, 0, sizeof(*b));
	for (int t = 0; t < KNEE_NTARGETS; t++) {
		struct knee_goal *coarse = &b->target[0][t];

		knee_goal_of(cfg, (enum knee_target)t, &b->target[1][t]);
		/* One short trial classifies a load: the cheap narrowing
		 * before the goal's own trial time is spent (CSIT's
		 * preceding targets, RFC 9971 4.6.5). */
		*coarse = b->target[1][t];
		coarse->final_ns = cfg->short_ns;
		coarse->duration_sum_ns = cfg->short_ns;
	}
	b->max_eff = cfg->max_rate_bps;
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

/* The width, with a little slack for integer rounding of rates. */
static bool width_met(const struct knee_goal *g, uint64_t lower, uint64_t upper)
{
	return upper <= lower || knee_bounds_width(lower, upper) <= g->width * (1 + 1e-9) + 1e-12;
}

/* RFC 9971 Appendix A, in integer nanoseconds where it can be. */
enum knee_class knee_load_class(const struct knee_goal *g, const struct knee_load_sums *s)
{
	double er = g->exceed_ratio;
	double balancing = er < 1 ? (double)s->good_short_ns * er / (1 - er) : 0;
	double eff_bad = (double)s->bad_long_ns + fmax(0, (double)s->bad_short_ns - balancing);
	double eff_whole = fmax((double)s->good_long_ns + eff_bad, (double)g->duration_sum_ns);
	double quantile = eff_whole * er;
	bool optimistic = eff_bad <= quantile;
	bool pessimistic = eff_whole - (double)s->good_long_ns <= quantile;

	if (optimistic && pessimistic)
		return KNEE_LOWER;
	if (!optimistic && !pessimistic)
		return KNEE_UPPER;
	return KNEE_UNDECIDED;
}

/* RFC 9971 Appendix B: sorted by loss, the long trials are taken until the
 * time left uncovered is at most the exceed ratio's share. */
double knee_quantile_loss(const struct knee_goal *g, const double *loss, const uint64_t *dur_ns,
			  unsigned n)
{
	unsigned order[KNEE_MAX_TRIALS];
	double all = 0, remaining, q = -1;

	if (n > KNEE_MAX_TRIALS)
		n = KNEE_MAX_TRIALS;
	for (unsigned i = 0; i < n; i++) {
		unsigned p = i;

		all += (double)dur_ns[i];
		while (p > 0 && loss[order[p - 1]] > loss[i]) {
			order[p] = order[p - 1];
			p--;
		}
		order[p] = i;
	}
	remaining = fmax(all, (double)g->duration_sum_ns) * (1 - g->exceed_ratio);
	for (unsigned k = 0; k < n; k++) {
		if (q >= 0 && remaining <= 0)
			return q;
		q = loss[order[k]];
		remaining -= (double)dur_ns[order[k]];
	}
	return remaining > 0 || q < 0 ? 1.0 : q;
}

/* A path that forwards less than it is offered without dropping it in
 * the trial's time queues the rest: a 1 s trial 3 % above a shaper whose
 * queue holds 50 ms loses nothing, and its datagrams arrive over 1.03 s.
 * The arrival rate (over the receiver's window, first datagram to last)
 * then falls short of what was sent by more than the loss explains: the
 * receiver's window is the sender's plus the queue's growth. A growth
 * beyond the queue tolerance of the trial's time (and beyond its floor)
 * counts the shortfall as lost: the load is above what the path sustains,
 * it passed on loss alone. Within it, it is the receiver's timing. A
 * measurement without an arrival rate (a receiver that reports no window)
 * has only its received rate, over the sender's window. */
static double shortfall(uint64_t rx, uint64_t of)
{
	return of && rx && rx < of ? 1 - (double)rx / (double)of : 0;
}

/* The share of the receiver's window that the queue's growth took: the
 * received rate over the sender's window against the arrival rate over
 * the receiver's (the same datagrams); without an arrival rate, the
 * received rate against the sent one. */
static double queue_share(const struct knee_measurement *m)
{
	if (m->arrival_bps)
		return shortfall(m->arrival_bps, m->received_bps);
	return shortfall(m->received_bps, m->achieved_bps);
}

uint64_t knee_queue_growth_ns(const struct knee_measurement *m)
{
	double q = queue_share(m);

	/* the receiver's window is the sender's / (1 - q) */
	if (q <= 0 || q >= 1 || !m->duration_ns)
		return 0;
	return (uint64_t)((double)m->duration_ns * q / (1 - q));
}

double knee_trial_loss(const struct knee_measurement *m, const struct knee_goal *g)
{
	double tol = g->queue_tolerance > 0 ? g->queue_tolerance : KNEE_QUEUE_TOLERANCE;
	double all;

	if (queue_share(m) <= tol)
		return m->loss_ratio;
	if (m->duration_ns && knee_queue_growth_ns(m) <= KNEE_QUEUE_FLOOR_NS)
		return m->loss_ratio;
	/* what arrived in the sender's time, of what was sent */
	all = shortfall(m->arrival_bps ? m->arrival_bps : m->received_bps, m->achieved_bps);
	return all > m->loss_ratio ? all : m->loss_ratio;
}

/* How trial r counts for goal g: -1 not at its load (the generator fell
 * short and lost no more than the loss ratio), 0 good, 1 bad. A trial
 * short of its target that lost more anyway lost it at a lower rate still:
 * bad at the load asked for. */
static int counts(const struct knee_record *r, const struct knee_goal *g)
{
	bool bad = knee_trial_loss(&r->m, g) > g->loss_ratio;

	if (r->verdict == KNEE_INVALID && !bad)
		return -1;
	return bad;
}

unsigned knee_bounds_sums(const struct knee_bounds *b, const struct knee_goal *g, uint64_t rate,
			  struct knee_load_sums *s)
{
	unsigned n = 0;

	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < b->ntrials; i++) {
		const struct knee_record *r = &b->trials[i];
		uint64_t d = r->trial.duration_ns;
		int c = counts(r, g);

		if (r->trial.rate_bps != rate || c < 0)
			continue;
		n++;
		if (d >= g->final_ns)
			*(c ? &s->bad_long_ns : &s->good_long_ns) += d;
		else
			*(c ? &s->bad_short_ns : &s->good_short_ns) += d;
	}
	return n;
}

bool knee_bounds_class(const struct knee_bounds *b, const struct knee_goal *g, uint64_t rate,
		       enum knee_class *cls)
{
	struct knee_load_sums s;

	if (!knee_bounds_sums(b, g, rate, &s))
		return false;
	*cls = knee_load_class(g, &s);
	return true;
}

/* The last trial counted at load rate, or -1. */
static int last_at(const struct knee_bounds *b, const struct knee_goal *g, uint64_t rate)
{
	for (unsigned i = b->ntrials; i-- > 0;)
		if (b->trials[i].trial.rate_bps == rate && counts(&b->trials[i], g) >= 0)
			return (int)i;
	return -1;
}

struct load {
	uint64_t rate;
	enum knee_class cls;
};

/* The loads with counted trials, lowest first, each classified for g. */
static unsigned loads_of(const struct knee_bounds *b, const struct knee_goal *g, struct load *out)
{
	unsigned n = 0;

	for (unsigned i = 0; i < b->ntrials; i++) {
		uint64_t rate = b->trials[i].trial.rate_bps;
		struct knee_load_sums s;
		unsigned p = n;
		bool seen = false;

		for (unsigned j = 0; j < n && !seen; j++)
			seen = out[j].rate == rate;
		if (seen || !knee_bounds_sums(b, g, rate, &s))
			continue;
		while (p > 0 && out[p - 1].rate > rate) {
			out[p] = out[p - 1];
			p--;
		}
		out[p] = (struct load){ rate, knee_load_class(g, &s) };
		n++;
	}
	return n;
}

/* Below the generator's limit, with no load classified lower above it:
 * the most a trial short of its target sent without loss beyond the goal
 * (a trial at least the target's final duration), or -1. */
static int sent_credit(const struct knee_bounds *b, const struct knee_config *cfg,
		       const struct knee_goal *g, uint64_t below)
{
	int best = -1;

	for (unsigned i = 0; i < b->ntrials; i++) {
		const struct knee_record *r = &b->trials[i];
		uint64_t a = r->m.achieved_bps;

		if (counts(r, g) >= 0 || r->trial.duration_ns < g->final_ns ||
		    a < cfg->min_rate_bps || a >= below || a >= r->trial.rate_bps)
			continue;
		if (best < 0 || a > b->trials[best].m.achieved_bps)
			best = (int)i;
	}
	return best;
}

void knee_bounds_relevant(const struct knee_bounds *b, const struct knee_config *cfg,
			  const struct knee_goal *g, struct knee_rel *r)
{
	struct load loads[KNEE_MAX_TRIALS];
	unsigned n = loads_of(b, g, loads);
	bool above_ok = false;
	int credit;

	memset(r, 0, sizeof(*r));
	r->lower_trial = r->upper_trial = -1;
	for (unsigned i = 0; i < n; i++) {
		r->nlower += loads[i].cls == KNEE_LOWER;
		r->nupper += loads[i].cls == KNEE_UPPER;
		if (loads[i].cls == KNEE_UPPER && !r->upper_valid) {
			r->upper_valid = true;
			r->upper = loads[i].rate;
		}
	}
	if (r->upper_valid) {
		r->upper_trial = last_at(b, g, r->upper);
		r->upper_rx = b->trials[r->upper_trial].m.received_bps;
	}
	/* Above the generator's limit nothing can be measured: the limit is
	 * the upper bound unless the generator fell short twice by chance, not
	 * for good: a load at or above it is a lower bound (the generator held
	 * it for the target's duration sum), or a good trial there as long as
	 * the one that set the limit came after it (a sender may hold a rate
	 * for a short trial that it cannot hold for a final one). A good trial
	 * before the limit is not enough: a sender that falls short in most
	 * trials offers a load now and then but never often enough to classify
	 * it, and the search would step down below each load it failed twice,
	 * classifying none. */
	for (unsigned i = 0; i < n && b->gen_limited; i++)
		above_ok |= loads[i].cls == KNEE_LOWER && loads[i].rate >= b->gen_limit &&
			    (!r->upper_valid || loads[i].rate < r->upper);
	for (unsigned i = b->gen_trial + 1; i < b->ntrials && b->gen_limited; i++) {
		const struct knee_record *t = &b->trials[i];

		above_ok |= counts(t, g) == 0 && t->trial.rate_bps >= b->gen_limit &&
			    t->trial.duration_ns >= b->trials[b->gen_trial].trial.duration_ns &&
			    (!r->upper_valid || t->trial.rate_bps < r->upper);
	}
	if (b->gen_limited && !above_ok && (!r->upper_valid || b->gen_limit < r->upper)) {
		r->upper_valid = r->upper_gen = true;
		r->upper = b->gen_limit;
		r->upper_trial = (int)b->gen_trial;
		r->upper_rx = b->trials[b->gen_trial].m.achieved_bps;
	}
	for (unsigned i = n; i-- > 0;)
		if (loads[i].cls == KNEE_LOWER && (!r->upper_valid || loads[i].rate < r->upper)) {
			r->lower_valid = true;
			r->lower = loads[i].rate;
			r->lower_trial = last_at(b, g, r->lower);
			break;
		}
	if (r->upper_gen && (credit = sent_credit(b, cfg, g, r->upper)) >= 0 &&
	    (!r->lower_valid || b->trials[credit].m.achieved_bps > r->lower)) {
		r->lower_valid = r->lower_sent = true;
		r->lower = b->trials[credit].m.achieved_bps;
		r->lower_trial = credit;
	}
	for (unsigned i = n; i-- > 0;)
		if (loads[i].cls == KNEE_UNDECIDED &&
		    (!r->upper_valid || loads[i].rate < r->upper) &&
		    (!r->lower_valid || loads[i].rate > r->lower)) {
			r->undecided = loads[i].rate;
			break;
		}
}

bool knee_bounds_done(const struct knee_bounds *b, const struct knee_config *cfg,
		      const struct knee_goal *g, const struct knee_rel *r)
{
	if (r->lower_valid && r->upper_valid)
		return width_met(g, r->lower, r->upper);
	if (r->lower_valid)
		return r->lower >= b->max_eff;
	if (r->upper_valid)
		return r->upper <= cfg->min_rate_bps;
	return false;
}

/* Whether the generator's shortfall in trial idx was a stall: it fell
 * behind by at most KNEE_STALL_NS of the trial's time, and an earlier trial
 * at least as long sustained that load or a higher one. A sender at its limit falls
 * short wherever it is asked beyond it; one that held a load and then
 * falls a little short of it, or of a lower one, was scheduled away (a
 * host busy with other work). Counted as a limit, such luck would end a
 * search anywhere below what the sender can offer. */
static bool is_stall(const struct knee_bounds *b, unsigned idx)
{
	const struct knee_record *r = &b->trials[idx];
	double dur = (double)(r->m.duration_ns ? r->m.duration_ns : r->trial.duration_ns);
	double behind;

	if (!r->m.achieved_bps || !r->trial.rate_bps)
		return false;
	behind = dur * (1 - (double)r->m.achieved_bps / (double)r->trial.rate_bps);
	if (behind > (double)KNEE_STALL_NS)
		return false;
	for (unsigned i = 0; i < idx; i++) {
		const struct knee_trial *t = &b->trials[i].trial;

		if (!b->trials[i].m.generator_limited && t->rate_bps >= r->trial.rate_bps &&
		    t->duration_ns >= r->trial.duration_ns)
			return true;
	}
	return false;
}

/* A trial the generator could not offer: repeated; short of it twice (not
 * by a stall), its rate becomes the generator limit. A stall is repeated
 * as often as it comes (max_trials and max_time bound the search). Trials
 * that lost more than every goal need no repeat: they are bad trials
 * whatever the generator did. */
static void record_invalid(struct knee_bounds *b, const struct knee_config *cfg, unsigned idx)
{
	const struct knee_trial *tr = &b->trials[idx].trial;

	if (b->trials[idx].m.loss_ratio > cfg->loss_goal) {
		b->retry_due = b->short_once = false;
		return;
	}
	b->retry_due = true;
	b->trials[idx].stall = is_stall(b, idx);
	if (b->trials[idx].stall)
		return;
	if (!b->short_once) {
		b->short_once = true;
		return;
	}
	b->retry_due = b->short_once = false;
	/* the lowest such rate; at the same rate the longer trial, which
	 * says the sender cannot hold it for as long as a final trial */
	if (!b->gen_limited || tr->rate_bps < b->gen_limit ||
	    (tr->rate_bps == b->gen_limit &&
	     tr->duration_ns > b->trials[b->gen_trial].trial.duration_ns)) {
		b->gen_limit = tr->rate_bps;
		b->gen_trial = idx;
	}
	b->gen_limited = true;
	if (b->max_eff > tr->rate_bps)
		b->max_eff = tr->rate_bps;
}

unsigned knee_bounds_unsustained(const struct knee_bounds *b, const struct knee_config *cfg,
				 const struct knee_trial *t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < b->ntrials; i++) {
		const struct knee_record *r = &b->trials[i];

		n += r->verdict == KNEE_INVALID && !r->stall && r->trial.rate_bps == t->rate_bps &&
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
	rec->stall = false;
	rec->verdict = knee_classify(m, cfg->loss_goal);
	if (rec->verdict == KNEE_PASS || rec->verdict == KNEE_PASS_PDR) {
		struct knee_goal g;

		/* lossless (or within the goal) only because a queue took it */
		knee_goal_of(cfg, KNEE_NDR, &g);
		if (knee_trial_loss(m, &g) > m->loss_ratio)
			rec->verdict = KNEE_QUEUED;
	}
	b->trial_ns += m->duration_ns ? m->duration_ns : t->duration_ns;
	if (idx == 0)
		b->mrr = m->received_bps;
	if (rec->verdict == KNEE_INVALID)
		record_invalid(b, cfg, idx);
	else
		b->retry_due = b->short_once = false;
	return 0;
}

enum knee_outcome knee_bounds_outcome(const struct knee_bounds *b, const struct knee_config *cfg,
				      enum knee_target t, bool stuck)
{
	const struct knee_goal *g = &b->target[1][t];
	struct knee_rel r;

	knee_bounds_relevant(b, cfg, g, &r);
	if (r.lower_valid && r.upper_valid) {
		if (width_met(g, r.lower, r.upper))
			return r.upper_gen ? KNEE_GENERATOR_LIMIT : KNEE_FOUND;
		/* stopped short of the width because the generator cannot
		 * offer the next rate: the lower bound is what it sustained */
		return stuck && r.upper_gen ? KNEE_GENERATOR_LIMIT : KNEE_UNFINISHED;
	}
	if (r.lower_valid && r.lower >= b->max_eff)
		return KNEE_ABOVE_MAX;
	if (r.upper_valid && r.upper <= cfg->min_rate_bps)
		return r.upper_gen ? KNEE_GENERATOR_LIMIT : KNEE_BELOW_MIN;
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

/* The loss ratios and durations of the long trials at a load. */
static unsigned long_trials(const struct knee_bounds *b, const struct knee_goal *g, uint64_t rate,
			    double *loss, uint64_t *dur)
{
	unsigned n = 0;

	for (unsigned i = 0; i < b->ntrials; i++) {
		const struct knee_record *r = &b->trials[i];

		if (r->trial.rate_bps != rate || counts(r, g) < 0 ||
		    r->trial.duration_ns < g->final_ns)
			continue;
		loss[n] = knee_trial_loss(&r->m, g);
		dur[n++] = r->trial.duration_ns;
	}
	return n;
}

/* Conditional throughput (RFC 9971 Appendix B) at the lower bound, and the
 * loss quantile at the upper bound. */
static void quantiles(const struct knee_bounds *b, const struct knee_goal *g,
		      const struct knee_rel *r, struct knee_bound *kb)
{
	double loss[KNEE_MAX_TRIALS];
	uint64_t dur[KNEE_MAX_TRIALS];
	unsigned n;

	if (r->lower_valid && r->lower_sent) {
		kb->conditional_throughput_bps = (uint64_t)llround(
			(double)r->lower * (1 - b->trials[r->lower_trial].m.loss_ratio));
	} else if (r->lower_valid && (n = long_trials(b, g, r->lower, loss, dur))) {
		kb->conditional_throughput_bps = (uint64_t)llround(
			(double)r->lower * (1 - knee_quantile_loss(g, loss, dur, n)));
	}
	if (r->upper_valid && !r->upper_gen) {
		n = long_trials(b, g, r->upper, loss, dur);
		kb->upper_loss = n ? knee_quantile_loss(g, loss, dur, n)
				   : knee_trial_loss(&b->trials[r->upper_trial].m, g);
	} else if (r->upper_valid) {
		kb->upper_loss = b->trials[r->upper_trial].m.loss_ratio;
	}
}

/* A bound the goal has not classified yet but its coarse target has (the
 * search stopped early): reported, not final. */
static void coarse_fallback(const struct knee_rel *coarse, struct knee_rel *r, bool *lo_final,
			    bool *up_final)
{
	*lo_final = r->lower_valid;
	*up_final = r->upper_valid;
	if (!r->lower_valid && coarse->lower_valid &&
	    (!r->upper_valid || coarse->lower < r->upper)) {
		r->lower_valid = true;
		r->lower = coarse->lower;
		r->lower_sent = coarse->lower_sent;
		r->lower_trial = coarse->lower_trial;
	}
	if (!r->upper_valid && coarse->upper_valid &&
	    (!r->lower_valid || coarse->upper > r->lower)) {
		r->upper_valid = true;
		r->upper = coarse->upper;
		r->upper_gen = coarse->upper_gen;
		r->upper_trial = coarse->upper_trial;
	}
}

static void bound_of(const struct knee_bounds *b, const struct knee_config *cfg, enum knee_target t,
		     bool stuck, struct knee_bound *kb)
{
	const struct knee_goal *g = &b->target[1][t];
	struct knee_rel r, coarse;
	struct knee_load_sums s;

	knee_bounds_relevant(b, cfg, g, &r);
	knee_bounds_relevant(b, cfg, &b->target[0][t], &coarse);
	memset(kb, 0, sizeof(*kb));
	kb->outcome = knee_bounds_outcome(b, cfg, t, stuck);
	kb->goal = *g;
	quantiles(b, g, &r, kb);
	coarse_fallback(&coarse, &r, &kb->lower_final, &kb->upper_final);
	kb->lower_valid = r.lower_valid;
	kb->upper_valid = r.upper_valid;
	kb->lower_bps = r.lower_valid ? r.lower : 0;
	kb->upper_bps = r.upper_valid ? r.upper : 0;
	kb->upper_is_generator_limit = r.upper_valid && r.upper_gen;
	kb->lower_is_sent = r.lower_valid && r.lower_sent;
	kb->lower_trial = r.lower_valid ? r.lower_trial : -1;
	kb->upper_trial = r.upper_valid ? r.upper_trial : -1;
	if (r.lower_valid) {
		kb->lower_rx_bps = b->trials[r.lower_trial].m.received_bps;
		kb->lower_ntrials = r.lower_sent ? 1 : knee_bounds_sums(b, g, r.lower, &s);
		kb->lower_duration_ns = r.lower_sent ? b->trials[r.lower_trial].trial.duration_ns
						     : s.good_long_ns + s.bad_long_ns +
							       s.good_short_ns + s.bad_short_ns;
	}
	if (r.upper_valid && !r.upper_gen) {
		kb->upper_ntrials = knee_bounds_sums(b, g, r.upper, &s);
		kb->upper_duration_ns =
			s.good_long_ns + s.bad_long_ns + s.good_short_ns + s.bad_short_ns;
	}
	kb->lower_achieved_bps =
		r.lower_sent ? kb->lower_bps : achieved_of(b, kb->lower_trial, kb->lower_bps);
	kb->upper_achieved_bps = achieved_of(b, kb->upper_trial, kb->upper_bps);
}

void knee_bounds_get(const struct knee_bounds *b, const struct knee_config *cfg, bool stuck,
		     struct knee_result *res)
{
	uint64_t seen[KNEE_MAX_TRIALS];

	memset(res, 0, sizeof(*res));
	for (int t = 0; t < KNEE_NTARGETS; t++)
		bound_of(b, cfg, (enum knee_target)t, stuck, &res->bound[t]);
	for (unsigned i = 0; i < b->ntrials; i++) {
		unsigned j = 0;

		res->nfit += b->trials[i].trial.phase == KNEE_PHASE_FIT;
		res->nstalls += b->trials[i].stall;
		while (j < res->nloads && seen[j] != b->trials[i].trial.rate_bps)
			j++;
		if (j == res->nloads)
			seen[res->nloads++] = b->trials[i].trial.rate_bps;
	}
	res->mrr_bps = b->mrr;
	res->generator_limited = b->gen_limited;
	res->generator_limit_bps = b->gen_limited ? b->gen_limit : 0;
	res->ntrials = b->ntrials;
	res->trial_ns = b->trial_ns;
}
