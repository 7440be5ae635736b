// SPDX-License-Identifier: MIT
/*
 * Aggregates of a run: the trials of one figure (same path, kind, stream
 * count or datagram size and offered rate) reduced to a median with its
 * min/max spread. Failed trials (status != 0) are kept in run.json but never
 * enter a figure. Pure functions of the run model, so `ovlperf report`
 * reproduces `ovlperf run` exactly.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_int.h"

static void *append(void **arr, size_t *n, size_t elem)
{
	void *q = realloc(*arr, (*n + 1) * elem);
	char *p;

	if (!q)
		return NULL;
	*arr = q;
	p = (char *)q + *n * elem;
	memset(p, 0, elem);
	(*n)++;
	return p;
}

static double gbit(uint64_t bps, double s)
{
	return (double)bps * s / 1e9;
}

static uint32_t mode_u32(const uint32_t *v, size_t n)
{
	uint32_t best = 0;
	size_t best_n = 0;

	for (size_t i = 0; i < n; i++) {
		size_t c = 0;

		for (size_t j = 0; j < n; j++)
			c += v[j] == v[i];
		if (c > best_n || (c == best_n && v[i] > best)) {
			best = v[i];
			best_n = c;
		}
	}
	return best;
}

/* The whole machine's CPU seconds over trial t that are the test's: its
 * busy cores less the baseline (other work with no test running) when
 * the trial's host facts measured one; false when the rest of the machine
 * moved by more than the test's own share, or other work kept more than
 * RESULTS_HOST_CPU_QUIET_CORES busy (the figure is other work's as much
 * as the test's: a baseline read between trials does not hold what that
 * work did during one), or nothing is left. Without a baseline (an older
 * run.json, a run without host facts), the whole machine's. */
static bool host_cpu_of(const struct results_trial *t, double *cpu_s)
{
	const struct hostfacts *f = &t->facts_client;
	double net;

	if (t->host_cpu_s <= 0)
		return false;
	if (!f->known || f->baseline_cores < 0) {
		*cpu_s = t->host_cpu_s;
		return true;
	}
	net = hostfacts_net_cores(f);
	if (net <= 0 || f->baseline_cores > RESULTS_HOST_CPU_QUIET_CORES)
		return false;
	*cpu_s = net * t->duration_s;
	return true;
}

/* v: six scratch arrays of the trials' count each */
static int tcp_point(const struct results_run *run, struct results_tcp_point *p, double *const *v,
		     uint32_t *mss)
{
	double *a = v[0], *b = v[1], *c = v[2], *d = v[3], *e = v[4], *own = v[5];
	size_t n = 0, nh = 0;

	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];
		double g, h;

		if (t->kind != RESULTS_TRIAL_TCP || !results_trial_usable(t) ||
		    t->path != p->path || t->streams != p->streams)
			continue;
		g = gbit(t->tcp.goodput_bps, t->duration_s);
		a[n] = (double)t->tcp.goodput_bps;
		b[n] = t->sender_cpu_s_per_gbit + t->receiver_cpu_s_per_gbit;
		own[n] = b[n] + (g > 0 && t->overlay_cpu_s > 0 ? t->overlay_cpu_s / g : 0);
		d[n] = t->tcp.sender.retransmits;
		e[n] = t->tcp.sender.rtt_us;
		mss[n] = t->tcp.sender.snd_mss;
		if (g > 0 && host_cpu_of(t, &h))
			c[nh++] = h / g;
		else if (g > 0 && t->host_cpu_s > 0) {
			p->host_cpu_moved++;
			p->host_cpu_busy = fmax(p->host_cpu_busy, t->facts_client.baseline_cores);
		}
		n++;
	}
	p->goodput_bps = results_stat_of(a, n);
	p->cpu_s_per_gbit = results_stat_of(b, n);
	p->own_cpu_s_per_gbit = results_stat_of(own, n);
	p->host_cpu_s_per_gbit = results_stat_of(c, nh);
	p->retransmits = results_stat_of(d, n);
	p->rtt_us = results_stat_of(e, n);
	p->snd_mss = mode_u32(mss, n);
	return 0;
}

static bool same_udp_key(const struct results_trial *t, unsigned path, uint32_t len,
			 enum results_trial_kind kind, uint64_t target)
{
	return t->kind == kind && t->path == path && t->len == len && t->target_bps == target;
}

static void sweep_point(const struct results_run *run, struct results_sweep_point *p, double *v[8])
{
	size_t n = 0, no = 0;
	struct results_layers l;

	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];

		if (!results_trial_usable(t) ||
		    !same_udp_key(t, p->path, p->len, p->kind, p->target_bps))
			continue;
		v[0][n] = (double)t->udp.achieved_bps;
		v[1][n] = (double)t->udp.received_bps;
		v[2][n] = (double)t->udp.sent_pps;
		v[3][n] = (double)t->udp.received_pps;
		v[4][n] = results_delivered_pct(&t->udp);
		v[5][n] = t->udp.owd.valid ? (double)t->udp.owd.p50_ns / 1e6 : 0;
		v[6][n] = t->udp.owd.valid ? (double)t->udp.owd.p99_ns / 1e6 : 0;
		p->generator_limited += t->udp.generator_limited;
		if (results_trial_layers(run, t, &l) && l.outer)
			v[7][no++] = l.outer_line_per_datagram;
		n++;
	}
	p->outer_line_per_datagram = results_stat_of(v[7], no);
	p->tx_bps = results_stat_of(v[0], n);
	p->rx_bps = results_stat_of(v[1], n);
	p->tx_pps = results_stat_of(v[2], n);
	p->rx_pps = results_stat_of(v[3], n);
	p->delivered_pct = results_stat_of(v[4], n);
	p->owd_p50_ms = results_stat_of(v[5], n);
	p->owd_p99_ms = results_stat_of(v[6], n);
}

static void delay_point(const struct results_run *run, struct results_delay_point *p, double *a,
			double *b, double *c, double *w)
{
	size_t n = 0, nw = 0;

	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];

		if (!results_trial_usable(t) ||
		    !same_udp_key(t, p->path, p->len, RESULTS_TRIAL_DELAY, p->load_bps) ||
		    !t->udp.owd.valid)
			continue;
		a[n] = (double)t->udp.owd.p50_ns / 1e6;
		b[n] = (double)t->udp.owd.p99_ns / 1e6;
		c[n] = results_delivered_pct(&t->udp);
		n++;
		if (t->udp.rx_wait.valid)
			w[nw++] = (double)t->udp.rx_wait.p99_ns / 1e6;
	}
	p->p50_ms = results_stat_of(a, n);
	p->p99_ms = results_stat_of(b, n);
	p->delivered_pct = results_stat_of(c, n);
	p->rx_wait_p99_ms = results_stat_of(w, nw);
}

bool results_knee_is_lower_bound(const char *outcome)
{
	return strcmp(outcome, "found") != 0;
}

/* One repetition's bounds for the NDR (pdr false) or the PDR: the rate
 * achieved at the lower bound (the target when not recorded, never above
 * it) and the upper bound, INFINITY when there is none. A repetition whose
 * upper is not above its lower (a hand-edited run.json) has no usable
 * upper: the pair must stay ordered. */
static bool rep_bounds(const struct results_knee *k, bool pdr, double *lo, double *target,
		       double *up)
{
	uint64_t t = pdr ? k->pdr_lower_bps : k->ndr_lower_bps;
	uint64_t a = pdr ? k->pdr_lower_achieved_bps : k->ndr_lower_achieved_bps;
	uint64_t u = pdr ? k->pdr_upper_bps : k->ndr_upper_bps;

	*target = (double)t;
	*lo = (double)(a && a < t ? a : t);
	*up = u ? (double)u : INFINITY;
	if (*up <= *target)
		*up = INFINITY;
	return pdr ? k->pdr_found : k->found;
}

bool results_knee_rep_lower(const struct results_knee *k, bool pdr, double *lo)
{
	double target, up;

	return rep_bounds(k, pdr, lo, &target, &up);
}

static bool rep_found(const struct results_knee *k, bool pdr)
{
	return !results_knee_is_lower_bound(pdr ? k->pdr_outcome : k->ndr_outcome);
}

/* Whether repetition k stands behind p's figure for the NDR (pdr false)
 * or the PDR: it has a lower bound, and it is not left out of a figure
 * the found repetitions give (struct results_knee_left). */
static bool rep_behind(const struct results_knee *k, const struct results_knee_point *p, bool pdr,
		       double *lo, double *target, double *up)
{
	const struct results_knee_left *left = pdr ? &p->pdr_left : &p->ndr_left;

	if (k->path != p->path || k->len != p->len || !rep_bounds(k, pdr, lo, target, up))
		return false;
	return !left->used || rep_found(k, pdr);
}

/* The median repetition: the one whose lower bound is closest to the
 * median; it carries the outcome and where the loss was. */
static const struct results_knee *median_rep(const struct results_run *run,
					     const struct results_knee_point *p, bool pdr)
{
	const struct results_knee *med = NULL;
	double m = pdr ? p->pdr_bps.median : p->ndr_bps.median, best = INFINITY;

	for (size_t i = 0; i < run->nknees; i++) {
		const struct results_knee *k = &run->knees[i];
		double lo, t, up;

		if (!rep_behind(k, p, pdr, &lo, &t, &up))
			continue;
		if (!med || fabs(lo - m) < best) {
			med = k;
			best = fabs(lo - m);
		}
	}
	return med;
}

/* The repetitions that ended on a lower bound below every knee another
 * repetition found are left out of the figure (struct
 * results_knee_left); one above a found knee keeps them all in. */
static void knee_left(const struct results_run *run, struct results_knee_point *p, bool pdr)
{
	struct results_knee_left *left = pdr ? &p->pdr_left : &p->ndr_left;
	double found_max = -1, bound_max = -1, lo, t, up;

	memset(left, 0, sizeof(*left));
	for (size_t i = 0; i < run->nknees; i++) {
		const struct results_knee *k = &run->knees[i];

		if (!rep_behind(k, p, pdr, &lo, &t, &up))
			continue;
		if (rep_found(k, pdr))
			found_max = fmax(found_max, lo);
		else if (lo > bound_max) {
			bound_max = lo;
			left->rep = k->rep;
			left->bps = (uint64_t)lo;
			snprintf(left->outcome, sizeof(left->outcome), "%s",
				 pdr ? k->pdr_outcome : k->ndr_outcome);
		}
	}
	if (found_max < 0 || bound_max > found_max) {
		memset(left, 0, sizeof(*left));
		return;
	}
	left->used = true;
	for (size_t i = 0; i < run->nknees; i++)
		left->n += run->knees[i].path == p->path && run->knees[i].len == p->len &&
			   rep_bounds(&run->knees[i], pdr, &lo, &t, &up) &&
			   !rep_found(&run->knees[i], pdr);
}

/* The repetition whose upper bound is closest to the median upper: where
 * the loss above the NDR was is that repetition's, as its upper bound is. */
static const struct results_knee *median_upper_rep(const struct results_run *run,
						   const struct results_knee_point *p)
{
	const struct results_knee *med = NULL;
	double best = INFINITY;

	for (size_t i = 0; p->ndr_upper_bps.n && i < run->nknees; i++) {
		const struct results_knee *k = &run->knees[i];
		double lo, t, up;
		bool found = rep_bounds(k, false, &lo, &t, &up);

		if (k->path != p->path || k->len != p->len || (p->ndr_bps.n && !found) ||
		    !isfinite(up))
			continue;
		if (!med || fabs(up - p->ndr_upper_bps.median) < best) {
			med = k;
			best = fabs(up - p->ndr_upper_bps.median);
		}
	}
	return med;
}

/* A stat whose median is unbounded says nothing: n = 0. */
static struct results_stat upper_stat(double *v, size_t n)
{
	struct results_stat s = results_stat_of(v, n);

	if (!isfinite(s.median))
		memset(&s, 0, sizeof(s));
	return s;
}

/* One target's lower and upper bounds over the repetitions. */
static void knee_target(const struct results_run *run, struct results_knee_point *p, bool pdr,
			double *lo, double *tg, double *up)
{
	struct results_stat *l = pdr ? &p->pdr_bps : &p->ndr_bps;
	struct results_stat *u = pdr ? &p->pdr_upper_bps : &p->ndr_upper_bps;
	bool *bound = pdr ? &p->pdr_lower_bound : &p->ndr_lower_bound;
	size_t n = 0, nu = 0;

	knee_left(run, p, pdr);
	for (size_t i = 0; i < run->nknees; i++) {
		const struct results_knee *k = &run->knees[i];

		if (rep_behind(k, p, pdr, &lo[n], &tg[n], &up[n])) {
			*bound |=
				results_knee_is_lower_bound(pdr ? k->pdr_outcome : k->ndr_outcome);
			n++;
		}
	}
	*l = results_stat_of(lo, n);
	*(pdr ? &p->pdr_target_bps : &p->ndr_target_bps) = results_stat_of(tg, n);
	if (n) {
		*u = upper_stat(up, n);
		/* lo[i] <= up[i] for every repetition, so for the medians */
		assert(!u->n || l->median <= u->median);
		return;
	}
	for (size_t i = 0; i < run->nknees; i++) {
		const struct results_knee *k = &run->knees[i];
		uint64_t v = pdr ? k->pdr_upper_bps : k->ndr_upper_bps;

		if (k->path == p->path && k->len == p->len && v)
			up[nu++] = (double)v;
	}
	*u = upper_stat(up, nu);
}

static void loss_add(struct loss_attrib *sum, const struct loss_attrib *l)
{
	bool first = !sum->sender_sndbuf && !sum->sender_link && !sum->receiver_rcvbuf &&
		     !sum->receiver_socket && !sum->receiver_inerrors && !sum->receiver_link &&
		     !sum->network && !sum->sender_qdisc && !sum->tunnel && !sum->backlog;

	if (first)
		*sum = *l; /* the names and sizes the fixes need */
	else {
		sum->sender_sndbuf += l->sender_sndbuf;
		sum->sender_link += l->sender_link;
		sum->receiver_rcvbuf += l->receiver_rcvbuf;
		sum->receiver_socket += l->receiver_socket;
		sum->backlog += l->backlog;
		sum->receiver_inerrors += l->receiver_inerrors;
		sum->receiver_link += l->receiver_link;
		sum->network += l->network;
		sum->sender_qdisc += l->sender_qdisc;
		sum->tunnel += l->tunnel;
		if (l->rcvbuf_need_bytes > sum->rcvbuf_need_bytes)
			sum->rcvbuf_need_bytes = l->rcvbuf_need_bytes;
		/* the network's evidence, from any trial that had it */
		if (!sum->network_where[0])
			snprintf(sum->network_where, sizeof(sum->network_where), "%s",
				 l->network_where);
	}
}

/* The NDR's spread over the repetitions, and the trials behind it: those
 * that lost at a load no higher than the highest NDR a repetition found
 * (some repetition passed there or above, this trial did not); and of the
 * trials between the lowest and the highest NDR, how many lost. */
static void knee_spread(const struct results_run *run, struct results_knee_point *p)
{
	if (p->ndr_bps.n < 2 || p->ndr_bps.median <= 0)
		return;
	p->ndr_spread = (p->ndr_bps.max - p->ndr_bps.min) / p->ndr_bps.median;
	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];
		double rate = (double)t->target_bps;

		if (t->kind != RESULTS_TRIAL_KNEE || t->path != p->path || t->len != p->len ||
		    t->status || rate > p->ndr_target_bps.max)
			continue;
		if (rate >= p->ndr_target_bps.min) {
			p->band_trials++;
			p->band_lossy += t->udp.lost > 0;
		}
		if (!t->udp.lost)
			continue;
		p->disagree_trials++;
		loss_add(&p->disagree_loss, &t->udp.loss_at);
	}
}

/* The NDR lower bound of trial t's repetition, found or where an
 * unfinished search left it; false when it has none (every load it tried
 * is then above its NDR). */
static bool rep_ndr(const struct results_run *run, const struct results_trial *t, double *ndr)
{
	const struct results_knee *k = results_rep_knee(run, t);

	if (!k)
		return false;
	*ndr = (double)k->ndr_lower_bps;
	return k->ndr_lower_bps > 0;
}

/* What a trial really offered: its target, or less when its sender fell
 * short (the NDR of a short sender is what it sent). */
static double sent_rate(const struct results_trial *t)
{
	uint64_t a = t->udp.achieved_bps;

	return (double)(a && a < t->target_bps ? a : t->target_bps);
}

/* What the knee and MRR trials above the NDR counted (results.h). */
static void knee_above(const struct results_run *run, struct results_knee_point *p)
{
	memset(&p->loss_at, 0, sizeof(p->loss_at));
	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];
		const struct udp_result *u = &t->udp;
		double ndr = 0, r;

		if (t->kind != RESULTS_TRIAL_KNEE || t->path != p->path || t->len != p->len ||
		    t->status || !u->sent)
			continue;
		/* a repetition left out of a found figure (its sender ran out
		 * below it) is above the figure, not above its own bound: the
		 * loss said beside the figure is of the same searches */
		if (rep_ndr(run, t, &ndr) && p->ndr_left.used && p->ndr_bps.n &&
		    results_rep_knee(run, t) &&
		    results_knee_is_lower_bound(results_rep_knee(run, t)->ndr_outcome))
			ndr = fmax(ndr, p->ndr_bps.median);
		if (ndr > 0 && sent_rate(t) <= ndr)
			continue;
		p->above_trials++;
		p->above_sent += u->sent;
		p->above_lost += u->lost;
		r = (double)u->lost / (double)u->sent;
		if (u->lost) {
			p->above_lossy++;
			loss_add(&p->loss_at, &u->loss_at);
			if (r > p->above_worst_ratio) {
				p->above_worst_ratio = r;
				p->above_worst_bps = t->target_bps;
			}
		} else if (u->arrival_bps && u->arrival_bps < u->achieved_bps) {
			r = 1 - (double)u->arrival_bps / (double)u->achieved_bps;
			if (r > p->above_queued_ratio) {
				p->above_queued_ratio = r;
				p->above_queued_bps = t->target_bps;
				p->above_queued_ms = u->queue_growth_ms;
				p->above_queued_s = t->duration_s;
			}
		}
	}
}

/* The conditional throughput of one goal over the repetitions. */
static struct results_stat ct_stat(const struct results_run *run,
				   const struct results_knee_point *p, bool pdr, double *v)
{
	size_t n = 0;

	for (size_t i = 0; i < run->nknees; i++) {
		const struct results_knee *k = &run->knees[i];
		uint64_t ct = pdr ? k->pdr_ct_bps : k->ndr_ct_bps;

		if (k->path == p->path && k->len == p->len && ct)
			v[n++] = (double)ct;
	}
	return results_stat_of(v, n);
}

/* A figure that is a bound carries the outcome of the repetition that
 * made it one (the highest bound), not a found repetition's: "the search
 * ended found" would contradict "at least". */
static void bound_outcome(const struct results_run *run, const struct results_knee_point *p,
			  bool pdr, char *out, size_t len)
{
	double best = -1, lo, t, up;

	if (!(pdr ? p->pdr_lower_bound : p->ndr_lower_bound) || results_knee_is_lower_bound(out))
		return;
	for (size_t i = 0; i < run->nknees; i++) {
		const struct results_knee *k = &run->knees[i];

		if (rep_behind(k, p, pdr, &lo, &t, &up) && !rep_found(k, pdr) && lo > best) {
			best = lo;
			snprintf(out, len, "%s", pdr ? k->pdr_outcome : k->ndr_outcome);
		}
	}
}

static void knee_point(const struct results_run *run, struct results_knee_point *p, double *a,
		       double *b, double *c, struct knee_fit_obs *obs)
{
	const struct results_knee *med, *last = NULL;

	for (size_t i = 0; i < run->nknees; i++) {
		const struct results_knee *k = &run->knees[i];

		if (k->path != p->path || k->len != p->len)
			continue;
		last = k;
		p->reps++;
		if (k->cut_by[0]) {
			p->cut++;
			p->cut_time += !strcmp(k->cut_by, "max_time");
			p->cut_unfinished += !strcmp(k->ndr_outcome, "unfinished");
		}
		p->trials += k->trials;
		p->stalls += k->stalls;
		p->time_s += k->time_s;
		p->found += k->found;
		p->pdr_found += k->pdr_found;
	}
	if (last)
		p->width_goal = last->width_goal;
	knee_target(run, p, false, a, b, c);
	knee_target(run, p, true, a, b, c);
	knee_spread(run, p);
	results_knee_head(run, p, obs, a);
	p->ndr_ct_bps = ct_stat(run, p, false, a);
	p->pdr_ct_bps = ct_stat(run, p, true, a);
	med = median_rep(run, p, false);
	if (!med)
		med = last;
	if (med) {
		p->max_rx_bps = med->max_rx_bps;
		snprintf(p->ndr_outcome, sizeof(p->ndr_outcome), "%s", med->ndr_outcome);
		bound_outcome(run, p, false, p->ndr_outcome, sizeof(p->ndr_outcome));
	}
	if (median_upper_rep(run, p))
		med = median_upper_rep(run, p);
	if (med)
		p->loss_at_bps = med->loss_at_bps;
	knee_above(run, p);
	med = median_rep(run, p, true);
	if (!med)
		med = last;
	if (med)
		snprintf(p->pdr_outcome, sizeof(p->pdr_outcome), "%s", med->pdr_outcome);
	bound_outcome(run, p, true, p->pdr_outcome, sizeof(p->pdr_outcome));
}

static int cmp_tcp(const void *x, const void *y)
{
	const struct results_tcp_point *a = x, *b = y;

	if (a->path != b->path)
		return a->path < b->path ? -1 : 1;
	return (a->streams > b->streams) - (a->streams < b->streams);
}

static int cmp_sweep(const void *x, const void *y)
{
	const struct results_sweep_point *a = x, *b = y;

	if (a->path != b->path)
		return a->path < b->path ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return (a->target_bps > b->target_bps) - (a->target_bps < b->target_bps);
}

static int cmp_knee(const void *x, const void *y)
{
	const struct results_knee_point *a = x, *b = y;

	if (a->path != b->path)
		return a->path < b->path ? -1 : 1;
	return (a->len > b->len) - (a->len < b->len);
}

static int cmp_delay(const void *x, const void *y)
{
	const struct results_delay_point *a = x, *b = y;

	if (a->path != b->path)
		return a->path < b->path ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return (a->load_bps > b->load_bps) - (a->load_bps < b->load_bps);
}

/* Collects the distinct figure keys of the trials, in one pass each. */
static int collect_keys(const struct results_run *run, struct results_summary *sum)
{
	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];
		bool seen = false;

		if (!results_trial_usable(t))
			continue;
		if (t->kind == RESULTS_TRIAL_TCP) {
			struct results_tcp_point *p;

			for (size_t j = 0; j < sum->ntcp && !seen; j++)
				seen = sum->tcp[j].path == t->path &&
				       sum->tcp[j].streams == t->streams;
			if (seen)
				continue;
			p = append((void **)&sum->tcp, &sum->ntcp, sizeof(*p));
			if (!p)
				return -ENOMEM;
			p->path = t->path;
			p->streams = t->streams;
		} else if (t->kind == RESULTS_TRIAL_DELAY) {
			struct results_delay_point *p;

			for (size_t j = 0; j < sum->ndelay && !seen; j++)
				seen = same_udp_key(t, sum->delay[j].path, sum->delay[j].len,
						    RESULTS_TRIAL_DELAY, sum->delay[j].load_bps);
			if (seen)
				continue;
			p = append((void **)&sum->delay, &sum->ndelay, sizeof(*p));
			if (!p)
				return -ENOMEM;
			p->path = t->path;
			p->len = t->len;
			p->load_bps = t->target_bps;
			p->load_pct = t->load_pct;
		} else {
			struct results_sweep_point *p;

			for (size_t j = 0; j < sum->nsweep && !seen; j++)
				seen = same_udp_key(t, sum->sweep[j].path, sum->sweep[j].len,
						    sum->sweep[j].kind, sum->sweep[j].target_bps);
			if (seen)
				continue;
			p = append((void **)&sum->sweep, &sum->nsweep, sizeof(*p));
			if (!p)
				return -ENOMEM;
			p->path = t->path;
			p->len = t->len;
			p->kind = t->kind;
			p->target_bps = t->target_bps;
		}
	}
	for (size_t i = 0; i < run->nknees; i++) {
		const struct results_knee *k = &run->knees[i];
		struct results_knee_point *p;
		bool seen = false;

		for (size_t j = 0; j < sum->nknee && !seen; j++)
			seen = sum->knee[j].path == k->path && sum->knee[j].len == k->len;
		if (seen)
			continue;
		p = append((void **)&sum->knee, &sum->nknee, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->path = k->path;
		p->len = k->len;
	}
	return 0;
}

int results_aggregate(const struct results_run *run, struct results_summary *sum)
{
	size_t cap = (run->ntrials > run->nknees ? run->ntrials : run->nknees) + 1;
	double *buf = calloc(8 * cap, sizeof(double));
	uint32_t *mss = calloc(cap, sizeof(uint32_t));
	struct knee_fit_obs *obs = calloc(cap, sizeof(*obs));
	double *v[8];
	int err;

	memset(sum, 0, sizeof(*sum));
	if (!buf || !mss || !obs) {
		err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < 8; i++)
		v[i] = buf + (size_t)i * cap;
	err = collect_keys(run, sum);
	if (err)
		goto out;
	for (size_t i = 0; i < sum->ntcp; i++)
		tcp_point(run, &sum->tcp[i], v, mss);
	for (size_t i = 0; i < sum->nsweep; i++)
		sweep_point(run, &sum->sweep[i], v);
	for (size_t i = 0; i < sum->nknee; i++)
		knee_point(run, &sum->knee[i], v[0], v[1], v[2], obs);
	for (size_t i = 0; i < sum->ndelay; i++)
		delay_point(run, &sum->delay[i], v[0], v[1], v[2], v[3]);
	for (size_t i = 0; i < run->ntrials; i++)
		if (results_trial_usable(&run->trials[i]) && run->trials[i].udp.owd.valid &&
		    (double)run->trials[i].udp.owd.error_ns / 1e6 > sum->owd_error_ms)
			sum->owd_error_ms = (double)run->trials[i].udp.owd.error_ns / 1e6;
	if (sum->ntcp)
		qsort(sum->tcp, sum->ntcp, sizeof(*sum->tcp), cmp_tcp);
	if (sum->nsweep)
		qsort(sum->sweep, sum->nsweep, sizeof(*sum->sweep), cmp_sweep);
	if (sum->nknee)
		qsort(sum->knee, sum->nknee, sizeof(*sum->knee), cmp_knee);
	if (sum->ndelay)
		qsort(sum->delay, sum->ndelay, sizeof(*sum->delay), cmp_delay);
out:
	free(buf);
	free(mss);
	free(obs);
	if (err)
		results_summary_free(sum);
	return err;
}

void results_summary_free(struct results_summary *sum)
{
	free(sum->tcp);
	free(sum->sweep);
	free(sum->knee);
	free(sum->delay);
	memset(sum, 0, sizeof(*sum));
}

const struct results_tcp_point *results_find_tcp(const struct results_summary *sum, unsigned path,
						 unsigned streams)
{
	for (size_t i = 0; i < sum->ntcp; i++)
		if (sum->tcp[i].path == path && sum->tcp[i].streams == streams)
			return &sum->tcp[i];
	return NULL;
}

const struct results_knee_point *results_find_knee(const struct results_summary *sum, unsigned path,
						   uint32_t len)
{
	for (size_t i = 0; i < sum->nknee; i++)
		if (sum->knee[i].path == path && sum->knee[i].len == len)
			return &sum->knee[i];
	return NULL;
}

const struct results_delay_point *results_find_delay(const struct results_summary *sum,
						     unsigned path, uint32_t len, uint64_t load_bps)
{
	for (size_t i = 0; i < sum->ndelay; i++)
		if (sum->delay[i].path == path && sum->delay[i].len == len &&
		    sum->delay[i].load_bps == load_bps)
			return &sum->delay[i];
	return NULL;
}
