// SPDX-License-Identifier: MIT
/*
 * `ovlperf report DIR1 DIR2`: two runs side by side. Figures are matched by
 * path name and key (stream count, datagram size), so two runs of different
 * scenarios compare on what they share; the rest is listed as only in one.
 * A figure that is only a bound (an NDR that passed at max_rate, one below
 * the search's minimum) keeps its marker, and a difference involving one is
 * a bound as well, or "?" when the two bounds point opposite ways. Runs that
 * differ in what they measured (loss goal, datagram sizes, durations,
 * paths) are flagged before the table.
 *
 * Each change comes with its interval from the two runs' repetitions
 * (change.h: the Hodges-Lehmann shift and its Mann-Whitney interval) and a
 * verdict: a regression or progression only when the interval excludes
 * zero and the shift exceeds the threshold, in the figure's direction
 * (more goodput is better, more delay or CPU worse). A change resting on a
 * bound is called only when the truth can lie only further the same way.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "report_diff.h"
#include "run_limit.h"

/* A figure's value as the table shows it: its bound's marker, a rate in
 * bit/s. */
static void value(char *buf, size_t len, const struct results_figure *x, double v,
		  enum overhead_bound bound)
{
	const char *pre = overhead_bound_prefix(bound);
	size_t l = strlen(pre);

	snprintf(buf, len, "%s", pre);
	if (l >= len)
		return;
	if (x->rate)
		report_run_fmt_rate(buf + l, len - l, v);
	else
		snprintf(buf + l, len - l, "%.4g", v);
}

/* A figure's own value: "~" before a soft knee's fit. */
static void fit_value(char *buf, size_t len, const struct results_figure *x)
{
	if (!x->fit || len < 2) {
		value(buf, len, x, x->value, x->bound);
		return;
	}
	buf[0] = '~';
	value(buf + 1, len - 1, x, x->value, x->bound);
}

/* How B - A relates to the true difference: B a lower bound makes it a
 * lower bound, A a lower bound an upper one; opposite pulls, or either side
 * unknown, leave nothing. */
static enum overhead_bound delta_bound(const struct results_figure *a,
				       const struct results_figure *b)
{
	enum overhead_bound fa = a->bound, fb = b->bound, flip;

	if (fa == OVERHEAD_UNKNOWN || fb == OVERHEAD_UNKNOWN)
		return OVERHEAD_UNKNOWN;
	flip = fa == OVERHEAD_AT_LEAST	? OVERHEAD_AT_MOST
	       : fa == OVERHEAD_AT_MOST ? OVERHEAD_AT_LEAST
					: OVERHEAD_EXACT;
	if (fb == OVERHEAD_EXACT)
		return flip;
	if (flip == OVERHEAD_EXACT || flip == fb)
		return fb;
	return OVERHEAD_UNKNOWN;
}

static void head(FILE *f, const char *tag, const struct results_run *run)
{
	fprintf(f, "%s: '%s' started %s, %zu trials%s | %s | %s\n", tag, run->scenario_name,
		run->started_utc, run->ntrials, run->complete ? "" : " (INCOMPLETE)",
		run->host.kernel, run->host.cpu);
}

/* The distinct values of one trial property, sorted: datagram sizes of
 * the UDP trials, or measured durations (0.1 s) of one kind. */
static unsigned distinct_vals(const struct results_run *run, int kind, unsigned v[static 64])
{
	unsigned n = 0;

	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];
		unsigned x;
		bool seen = false;

		if (t->status || (kind ? (int)t->kind != kind : t->kind == RESULTS_TRIAL_TCP))
			continue;
		x = kind ? (unsigned)(t->duration_s * 10 + 0.5) : t->len;
		for (unsigned j = 0; j < n && !seen; j++)
			seen = v[j] == x;
		if (!seen && n < 64)
			v[n++] = x;
	}
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
			unsigned t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n;
}

/* The same values as text ("1400 8972", "1.0s 5.0s"). */
static void distinct_text(const unsigned *v, unsigned n, int kind, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n && off < len; i++) {
		int w = kind ? snprintf(buf + off, len - off, "%s%.1fs", i ? " " : "", v[i] / 10.0)
			     : snprintf(buf + off, len - off, "%s%u", i ? " " : "", v[i]);

		if (w < 0)
			break;
		off += (size_t)w;
	}
}

/* Whether every value of a has one of b near it: sizes equal, measured
 * durations within 10 % (a 1.5 s trial measures 1.7 s in one run and
 * 1.8 s in the next: the same trials, not different ones). */
static bool covered(const unsigned *a, unsigned na, const unsigned *b, unsigned nb, int kind)
{
	for (unsigned i = 0; i < na; i++) {
		bool near = false;

		for (unsigned j = 0; j < nb && !near; j++)
			near = kind ? fabs((double)a[i] - b[j]) <= 0.1 * fmax(a[i], b[j]) + 1
				    : a[i] == b[j];
		if (!near)
			return false;
	}
	return true;
}

static void paths_of(const struct results_run *run, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < run->npaths && off < len; i++) {
		int w = snprintf(buf + off, len - off, "%s%s(%s)", i ? " " : "", run->paths[i].name,
				 results_path_kind_name(run->paths[i].kind));

		if (w < 0)
			break;
		off += (size_t)w;
	}
}

/* Differences in what the two runs measured make their figures compare
 * only with care: say so before the table. */
__attribute__((format(printf, 2, 3))) static void warn(struct report_diff *d, const char *fmt, ...)
{
	va_list ap;

	if (d->nwarn == REPORT_DIFF_WARN_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(d->warn[d->nwarn++], sizeof(d->warn[0]), fmt, ap);
	va_end(ap);
}

static void differences(struct report_diff *d, const struct results_run *a,
			const struct results_run *b)
{
	static const struct {
		int kind;
		const char *what;
	} props[] = {
		{ 0, "UDP datagram sizes" },
		{ RESULTS_TRIAL_TCP, "TCP trial durations" },
		{ RESULTS_TRIAL_SWEEP, "sweep trial durations" },
		{ RESULTS_TRIAL_KNEE, "knee trial durations" },
		{ RESULTS_TRIAL_DELAY, "delay trial durations" },
	};
	char x[512], y[512];
	unsigned va[64], vb[64], na, nb;

	if (a->pdr_goal_pct != b->pdr_goal_pct)
		warn(d, "the PDR loss goals differ: A %g %%, B %g %%", a->pdr_goal_pct,
		     b->pdr_goal_pct);
	for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
		na = distinct_vals(a, props[i].kind, va);
		nb = distinct_vals(b, props[i].kind, vb);
		if (!na || !nb ||
		    (covered(va, na, vb, nb, props[i].kind) &&
		     covered(vb, nb, va, na, props[i].kind)))
			continue;
		distinct_text(va, na, props[i].kind, x, sizeof(x));
		distinct_text(vb, nb, props[i].kind, y, sizeof(y));
		warn(d, "the %s differ: A %s, B %s", props[i].what, x, y);
	}
	paths_of(a, x, sizeof(x));
	paths_of(b, y, sizeof(y));
	if (strcmp(x, y))
		warn(d, "the paths differ: A %s, B %s", x, y);
}

/* A lab link as the runs record it: its rate, what it emulates, its drop. */
static void link_of(const struct results_link *l, char *buf, size_t len)
{
	char r[24] = "no rate";

	if (l->rate_bps)
		report_run_fmt_rate(r, sizeof(r), (double)l->rate_bps);
	snprintf(buf, len, "%s, %s%s", r, l->conditions[0] ? l->conditions : "no delay or loss",
		 l->drop_pct > 0 ? ", random drop" : "");
	if (l->drop_pct > 0)
		snprintf(buf + strlen(buf), len - strlen(buf), " %g %%", l->drop_pct);
}

/* The setups of the two runs: what makes their figures those of one
 * setup (scenario, lab links, paths' far ends and MTUs, the host's CPUs).
 * Any difference is a warning of its own and sets setups_differ. */
static void setups(struct report_diff *d, const struct results_run *a, const struct results_run *b)
{
	unsigned before = d->nwarn;
	char x[256], y[256];

	if (strcmp(a->scenario_name, b->scenario_name))
		warn(d, "the scenarios differ: A '%s', B '%s'", a->scenario_name, b->scenario_name);
	if (a->nlinks != b->nlinks)
		warn(d, "the labs differ: A has %u links, B %u", a->nlinks, b->nlinks);
	for (unsigned i = 0; i < a->nlinks && i < b->nlinks; i++) {
		link_of(&a->links[i], x, sizeof(x));
		link_of(&b->links[i], y, sizeof(y));
		if (strcmp(x, y))
			warn(d, "the labs' link %u differs: A %s; B %s", i, x, y);
	}
	for (unsigned i = 0; i < a->npaths; i++)
		for (unsigned j = 0; j < b->npaths; j++) {
			const struct results_path *p = &a->paths[i], *q = &b->paths[j];

			if (strcmp(p->name, q->name))
				continue;
			if (strcmp(p->addr, q->addr))
				warn(d, "path %s goes to another host: A %s, B %s", p->name,
				     p->addr, q->addr);
			if (p->mtu != q->mtu || (p->pmtu && q->pmtu && p->pmtu != q->pmtu))
				warn(d, "path %s's MTU differs: A %u (path MTU %u), B %u (%u)",
				     p->name, p->mtu, p->pmtu, q->mtu, q->pmtu);
		}
	if (a->host.ncpu != b->host.ncpu || strcmp(a->host.client_cpus, b->host.client_cpus) ||
	    strcmp(a->host.server_cpus, b->host.server_cpus))
		warn(d, "the hosts' CPUs differ: A %u CPUs (%s | %s), B %u (%s | %s)", a->host.ncpu,
		     a->host.client_cpus, a->host.server_cpus, b->host.ncpu, b->host.client_cpus,
		     b->host.server_cpus);
	d->setups_differ = d->nwarn > before;
}

/* The verdict of a change whose B - A is only a bound: it stands when the
 * truth can only be further the same way. */
static enum change_verdict bounded(enum change_verdict v, const struct change *c,
				   enum overhead_bound db)
{
	bool changed = v == CHANGE_REGRESSION || v == CHANGE_PROGRESSION || v == CHANGE_DIFFERENT ||
		       v == CHANGE_SMALL;

	if (db == OVERHEAD_EXACT || !changed)
		return db == OVERHEAD_UNKNOWN ? CHANGE_UNKNOWN : v;
	if (db == OVERHEAD_UNKNOWN || (db == OVERHEAD_AT_LEAST && c->shift < 0) ||
	    (db == OVERHEAD_AT_MOST && c->shift > 0))
		return CHANGE_UNKNOWN;
	return v;
}

/* Whether the machine's CPU bound x's TCP trials in rr's run (every core
 * busy, its hosts sharing it: tcp_limit.h's HOST_CPU), for most of its
 * repetitions, below the lab's shaper (a goodput at 90 % of the tbf's
 * payload rate or more is the shaper's, however busy the machine). Such
 * goodput measures the share of the machine a run got, which moves from
 * run to run as CPU per Gbit does (identical default runs here: the
 * overlay's 1 stream 913, 879 and 754 Mbit/s), so it is held to CPU per
 * Gbit's threshold (docs/compare.md). */
static bool machine_bound(const struct report_run *rr, const struct results_figure *x)
{
	const struct results_run *run = rr->run;
	const struct results_tcp_point *tp;
	struct results_tcp_limit l;
	double rate = 0;

	if (x->metric != OVERHEAD_TCP_GOODPUT)
		return false;
	for (unsigned i = 0; i < run->nlinks; i++)
		if (run->links[i].rate_bps && (!rate || run->links[i].rate_bps < rate))
			rate = (double)run->links[i].rate_bps;
	for (unsigned p = 0; p < run->npaths; p++) {
		if (strcmp(run->paths[p].name, x->path))
			continue;
		tp = results_find_tcp(&rr->sum, p, x->key);
		/* TCP's payload of a 1514 B frame: 1448 B */
		if (rate > 0 && tp && tp->goodput_bps.n &&
		    tp->goodput_bps.median >= 0.9 * rate * 1448 / 1514)
			return false;
		return results_tcp_limit_line(run, p, x->key, &l) &&
		       l.v.limit == TCP_LIMIT_HOST_CPU && 2 * l.agree > l.n;
	}
	return false;
}

/* The median of other work's cores (either end's baseline, the larger)
 * over the trials that made delay figure x in rr's run; 0 for other
 * figures, or when no trial's host facts were read (an older run.json). */
static double busy_cores(const struct report_run *rr, const struct results_figure *x)
{
	const struct results_run *run = rr->run;
	double v[64];
	size_t n = 0;

	if (x->metric != OVERHEAD_OWD_P50 && x->metric != OVERHEAD_OWD_P99)
		return 0;
	for (size_t i = 0; i < run->ntrials && n < sizeof(v) / sizeof(v[0]); i++) {
		const struct results_trial *t = &run->trials[i];

		if (t->kind != RESULTS_TRIAL_DELAY || t->len != x->key || t->path >= run->npaths ||
		    strcmp(run->paths[t->path].name, x->path) ||
		    fabs(t->load_pct - x->load_pct) > 1e-6 || !t->facts_client.known)
			continue;
		v[n++] = fmax(t->facts_client.baseline_cores,
			      t->facts_server.known ? t->facts_server.baseline_cores : 0);
	}
	return n ? results_stat_of(v, n).median : 0;
}

/* A found figure and its repetitions' range. */
static void found_range(const struct results_figure *x, double *v, double *lo, double *hi)
{
	*v = *lo = *hi = x->value;
	for (size_t i = 0; i < x->n; i++) {
		*lo = fmin(*lo, x->v[i]);
		*hi = fmax(*hi, x->v[i]);
	}
}

/* A figure as an estimate with its interval: a fit's own (taken as
 * KNEE_FIT_Z standard errors), else its value and its repetitions'
 * range (a sharp knee found: each repetition where the path's rate is,
 * within the search's width). */
static void estimate(const struct results_figure *x, double *v, double *lo, double *hi)
{
	if (x->fit_est) {
		*v = x->fit_bps;
		*lo = x->fit_low;
		*hi = x->fit_high;
		return;
	}
	found_range(x, v, lo, hi);
}

/* Where a figure's knee is: a moved run's span (results_figure.moved_low,
 * moved_high), else its headline's estimate and interval (estimate(); a
 * found figure's open end where it is only a bound). */
static void span(const struct results_figure *x, double *v, double *lo, double *hi)
{
	if (x->changed) {
		*v = x->value;
		*lo = x->moved_low;
		*hi = x->moved_high;
		return;
	}
	if (x->fit) {
		estimate(x, v, lo, hi);
		return;
	}
	found_range(x, v, lo, hi);
	if (x->bound == OVERHEAD_AT_LEAST || x->bound == OVERHEAD_UNKNOWN)
		*hi = INFINITY;
	if (x->bound == OVERHEAD_AT_MOST || x->bound == OVERHEAD_UNKNOWN)
		*lo = 0;
}

/* The change a moved run's span allows against the other run's: B / A
 * from the lowest ratio the two spans give to the highest, and as its
 * estimate the end nearer no change (the least change there can have
 * been, whichever repetition was right). false without values above 0. */
static bool span_change(const struct results_figure *a, const struct results_figure *b,
			double confidence, struct change *c)
{
	double va, alo, ahi, vb, blo, bhi, rlo, rhi;

	span(a, &va, &alo, &ahi);
	span(b, &vb, &blo, &bhi);
	if (!(va > 0) || !(vb > 0) || !(bhi > 0))
		return false;
	rlo = isinf(ahi) ? 0 : blo / ahi;
	rhi = alo > 0 ? bhi / alo : INFINITY;
	memset(c, 0, sizeof(*c));
	c->na = a->n;
	c->nb = b->n;
	c->base = va;
	c->has_interval = true;
	c->confidence = confidence;
	c->lo = (rlo - 1) * va;
	c->hi = isinf(rhi) ? INFINITY : (rhi - 1) * va;
	c->shift = rhi < 1 ? c->hi : rlo > 1 ? c->lo : 0;
	c->pct = 100 * c->shift / va;
	c->lo_pct = 100 * (rlo - 1);
	c->hi_pct = isinf(rhi) ? INFINITY : 100 * (rhi - 1);
	return true;
}

/* Every figure compared is a rate, a delay, a CPU time or a ratio of
 * them: never negative, so its change is taken as a ratio (its interval
 * never below -100 %), and held to its run-to-run threshold
 * (results_figure_gate()). */
static void compare_row(struct report_diff *d, struct report_diff_row *r)
{
	double rel, floor;

	r->delta_bound = delta_bound(r->a, r->b);
	r->changed = r->a->changed || r->b->changed;
	/* either headline a fit: the path's knee is soft, and its fit is
	 * what repeats; the other run's fit too, when its headline kept the
	 * bounds (a knee that looked sharp in one run), else its figure and
	 * its repetitions' range (a knee made sharp: a daemon held to a CPU
	 * quota loses at its quota's rate, every trial) */
	r->fit = !r->changed && (r->a->fit || r->b->fit);
	r->fit_mixed = r->fit && !(r->a->fit_est && r->b->fit_est);
	if (r->changed) {
		r->compared = span_change(r->a, r->b, d->confidence, &r->ch);
	} else if (r->fit) {
		double a, alo, ahi, b, blo, bhi;

		estimate(r->a, &a, &alo, &ahi);
		estimate(r->b, &b, &blo, &bhi);
		if (!r->fit_mixed)
			r->delta_bound = OVERHEAD_EXACT; /* two fits, neither a bound */
		r->compared = change_compare_estimates(a, alo, ahi, b, blo, bhi, KNEE_FIT_Z,
						       d->confidence, &r->ch);
	} else {
		r->compared = change_compare_ratio(r->a->v, r->a->n, r->b->v, r->b->n,
						   d->confidence, &r->ch);
	}
	if (!r->compared) {
		r->verdict = r->changed ? CHANGE_UNKNOWN : CHANGE_TOO_FEW;
		d->changed += r->changed;
		return;
	}
	results_figure_gate(r->a, d->threshold, d->cpu_threshold, &rel, &floor);
	/* either run's figure the machine's share: the change may be it */
	r->machine_bound = machine_bound(d->a, r->a) || machine_bound(d->b, r->b);
	if (r->machine_bound) {
		rel = d->cpu_threshold > 0 ? d->cpu_threshold : INFINITY;
		d->machine_bound++;
	}
	r->busy_cores = fmax(busy_cores(d->a, r->a), busy_cores(d->b, r->b));
	r->machine_busy = r->busy_cores >= REPORT_DIFF_BUSY_CORES;
	if (r->machine_busy) {
		rel = d->cpu_threshold > 0 ? d->cpu_threshold : INFINITY;
		floor = 0;
		d->machine_busy++;
	}
	/* a history of enough runs says the figure's own run-to-run noise */
	if (r->hist_runs >= REPORT_DIFF_HISTORY_MIN && isfinite(rel) && r->ch.base != 0 &&
	    !results_figure_is_cpu(r->a) && !r->machine_bound && !r->machine_busy)
		rel = fmax(REPORT_DIFF_HISTORY_SIGMAS * r->hist_sigma / fabs(r->ch.base), 0.01);
	r->threshold = rel;
	r->verdict = change_verdict_floor(&r->ch, r->a->better, rel, floor);
	if (r->changed) {
		/* the spans hold each figure's bound as an open end */
		r->by_span = r->verdict == CHANGE_REGRESSION || r->verdict == CHANGE_PROGRESSION ||
			     r->verdict == CHANGE_DIFFERENT;
		d->by_span += r->by_span;
		if (!r->by_span) {
			r->compared = false;
			r->verdict = CHANGE_UNKNOWN;
			d->changed++;
			return;
		}
	} else
		r->verdict = bounded(r->verdict, &r->ch, r->delta_bound);
	d->regressions += r->verdict == CHANGE_REGRESSION;
	d->progressions += r->verdict == CHANGE_PROGRESSION;
}

/* Each figure's run-to-run noise from the earlier runs of A's scenario
 * under o->history (history.h); an unreadable history is a warning, and
 * the figures keep their documented thresholds. */
static void history_noise(struct report_diff *d, const struct report_diff_options *o)
{
	char *dirs[1] = { (char *)o->history }, err[256] = "";
	struct history h;

	if (history_read(&h, dirs, 1, d->a->run->scenario_name, d->threshold, err, sizeof(err))) {
		warn(d, "--history %s: %s; each figure keeps its own threshold", o->history,
		     err[0] ? err : "unreadable");
		return;
	}
	d->hist_runs = h.nruns;
	for (size_t i = 0; i < d->n; i++) {
		struct report_diff_row *r = &d->rows[i];

		for (size_t j = 0; j < h.nseries; j++) {
			const struct results_figures one = { .n = 1, .f = &h.series[j].id };

			if (!results_figures_match(&one, r->a))
				continue;
			r->hist_sigma = h.series[j].trend.sigma;
			r->hist_runs = h.series[j].n;
			break;
		}
	}
	history_free(&h);
}

int report_diff_build(struct report_diff *d, const struct report_run *a, const struct report_run *b,
		      const struct report_diff_options *o)
{
	int rc;

	memset(d, 0, sizeof(*d));
	d->a = a;
	d->b = b;
	d->threshold = o && o->threshold > 0 ? o->threshold : RESULTS_GATE_RATE;
	d->confidence = o && o->confidence > 0 ? o->confidence : CHANGE_DEFAULT_CONFIDENCE;
	d->cpu_threshold = o && o->cpu_threshold > 0 ? o->cpu_threshold : 0;
	setups(d, a->run, b->run);
	differences(d, a->run, b->run);
	rc = results_figures(a->run, &a->sum, &a->ov, &d->fa);
	if (!rc)
		rc = results_figures(b->run, &b->sum, &b->ov, &d->fb);
	if (!rc && d->fa.n && !(d->rows = calloc(d->fa.n, sizeof(*d->rows))))
		rc = -ENOMEM;
	if (rc) {
		report_diff_free(d);
		return rc;
	}
	for (size_t i = 0; i < d->fa.n; i++) {
		struct report_diff_row *r = &d->rows[d->n++];

		r->a = &d->fa.f[i];
		r->b = results_figures_match(&d->fb, r->a);
	}
	if (o && o->history)
		history_noise(d, o);
	for (size_t i = 0; i < d->n; i++)
		if (d->rows[i].b)
			compare_row(d, &d->rows[i]);
	for (size_t i = 0; i < d->fb.n; i++)
		d->only_b += !results_figures_match(&d->fa, &d->fb.f[i]);
	return 0;
}

void report_diff_free(struct report_diff *d)
{
	results_figures_free(&d->fa);
	results_figures_free(&d->fb);
	free(d->rows);
	d->rows = NULL;
	d->n = 0;
}

/* "B - A" with its bound's marker; a rate that fell keeps its sign. */
static void delta_text(char *d, size_t len, const struct report_diff_row *r)
{
	enum overhead_bound db = r->delta_bound;
	double dv = r->b->value - r->a->value;
	size_t l = strlen(overhead_bound_prefix(db));

	if (db == OVERHEAD_UNKNOWN)
		snprintf(d, len, "?");
	else if (r->a->rate && dv < 0) {
		snprintf(d, len, "%s-", overhead_bound_prefix(db));
		value(d + l + 1, len - l - 1, r->a, -dv, OVERHEAD_EXACT);
	} else
		value(d, len, r->a, dv, db);
}

static void change_text(char *d, size_t len, const struct report_diff_row *r)
{
	const struct results_figure *x = r->a, *y = r->b;

	if (r->delta_bound == OVERHEAD_UNKNOWN)
		snprintf(d, len, "?");
	else if (x->value != 0)
		snprintf(d, len, "%s%+.1f%%", overhead_bound_prefix(r->delta_bound),
			 100.0 * (y->value - x->value) / fabs(x->value));
	else
		snprintf(d, len, "-");
}

/* The interval of the change in % of A ("[-12.1, -8.0]%"), or why none. */
static void interval_text(char *d, size_t len, const struct report_diff_row *r)
{
	const struct change *c = &r->ch;

	if (!r->compared || !c->has_interval)
		snprintf(d, len, "(%zu+%zu reps)", c->na, c->nb);
	else if (isnan(c->lo_pct))
		snprintf(d, len, "[%.3g, %.3g]", c->lo, c->hi);
	else
		snprintf(d, len, "[%+.1f, %+.1f]%%%s", c->lo_pct, c->hi_pct,
			 r->fit_mixed ? " fit/found"
			 : r->fit     ? " fit"
				      : "");
}

static const char *verdict_word(enum change_verdict v)
{
	return v == CHANGE_REGRESSION	 ? "REGRESSION"
	       : v == CHANGE_PROGRESSION ? "progression"
	       : v == CHANGE_DIFFERENT	 ? "changed"
	       : v == CHANGE_SMALL	 ? "within threshold"
	       : v == CHANGE_NOISE	 ? "noise"
	       : v == CHANGE_TOO_FEW	 ? "too few reps"
					 : "bound: ?";
}

/* A change judged by a moved run's span: "REGRESSION, B moved" */
static const char *moved_word(const struct report_diff_row *r)
{
	static char w[40];

	snprintf(w, sizeof(w), "%s, %s moved", verdict_word(r->verdict),
		 !r->b->changed	  ? "A"
		 : !r->a->changed ? "B"
				  : "both");
	return w;
}

static bool any_fit(const struct report_diff *d)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->rows[i].a->fit || (d->rows[i].b && d->rows[i].b->fit))
			return true;
	return false;
}

static void print_text(FILE *f, const struct report_diff *d)
{
	head(f, "A", d->a->run);
	head(f, "B", d->b->run);
	if (d->setups_differ)
		fprintf(f, "\nWARNING: A and B are not runs of one setup (below): a change between "
			   "them may be the\nsetup's, not the overlay's. Compare runs of one "
			   "scenario on one lab.\n");
	for (unsigned i = 0; i < d->nwarn; i++)
		fprintf(f, "warning: %s\n", d->warn[i]);
	fprintf(f, "\n  %-22s %-12s %8s  %14s %14s %14s %8s  %-18s %s\n", "figure", "path", "at",
		"A", "B", "B - A", "change", "interval", "verdict");
	for (size_t i = 0; i < d->n; i++) {
		const struct report_diff_row *r = &d->rows[i];
		const struct results_figure *x = r->a;
		char at[24], va[32], vb[32], dt[32], ch[32], in[40];

		snprintf(at, sizeof(at), "%u %s", x->key,
			 !strcmp(x->key_unit, "bytes") ? "B" : "str");
		fit_value(va, sizeof(va), x);
		if (!r->b) {
			fprintf(f, "  %-22s %-12s %8s  %14s %14s\n", x->what, x->path, at, va,
				"(only in A)");
			continue;
		}
		fit_value(vb, sizeof(vb), r->b);
		delta_text(dt, sizeof(dt), r);
		change_text(ch, sizeof(ch), r);
		interval_text(in, sizeof(in), r);
		fprintf(f, "  %-22s %-12s %8s  %14s %14s %14s %8s  %-18s %s\n", x->what, x->path,
			at, va, vb, dt, ch, in,
			!r->changed	 ? verdict_word(r->verdict)
			: r->by_span	 ? moved_word(r)
			: !r->b->changed ? "? A moved"
			: !r->a->changed ? "? B moved"
					 : "? both moved");
	}
	if (d->only_b)
		fprintf(f, "\n  %zu figures only in B (other paths or sizes)\n", d->only_b);
	fprintf(f,
		"\n  %u regressions, %u progressions: a change is one when its interval (%.0f %% "
		"confidence,\n  Hodges-Lehmann over the repetitions) excludes zero and it exceeds "
		"what two runs of one\n  setup differ by: %.3g %% for rates, for one-way delay "
		"%.3g %% and %.3g ms (p50), %.3g %% and %.3g ms (p99)\n",
		d->regressions, d->progressions, 100 * d->confidence, 100 * d->threshold,
		100 * fmax(d->threshold, RESULTS_GATE_P50), RESULTS_GATE_P50_MS,
		100 * fmax(d->threshold, RESULTS_GATE_P99), RESULTS_GATE_P99_MS);
	if (any_fit(d))
		fprintf(f, "  (~ a soft knee's fit: a change between two fits is judged by their "
			   "90 %% intervals, not by\n  the repetitions' found bounds, which are "
			   "where each search's luck ran out)\n");
	if (d->changed)
		fprintf(f,
			"  (? moved: %u knee figures whose run's repetitions disagree (its "
			"repetitions' test: the path\n  itself changed between them): that run "
			"gives "
			"no figure, its found median is shown,\n  and no change is judged: repeat "
			"it)\n",
			d->changed);
	if (d->by_span)
		fprintf(f,
			"  (moved: %u knee figures whose run's repetitions disagree, judged all "
			"the same: every change\n  between where its repetitions put the knee "
			"and the other run's interval is beyond\n  the threshold; the interval "
			"is those changes', not a confidence interval)\n",
			d->by_span);
	if (d->machine_bound)
		fprintf(f,
			"  (%u TCP goodput figures the machine's CPU bound in both runs are judged "
			"as CPU per Gbit:\n  they measure the share of the machine each run got)\n",
			d->machine_bound);
	if (d->machine_busy)
		fprintf(f,
			"  (%u one-way delay figures measured while other work kept the machine "
			"busy (%.2g cores or more\n  before their trials, in A or B) are judged as "
			"CPU per Gbit: the host's scheduler sets their tails)\n",
			d->machine_busy, REPORT_DIFF_BUSY_CORES);
	if (d->hist_runs)
		fprintf(f,
			"  (with the history of %zu runs: a figure with %d runs or more in it is "
			"held to %.0f times its\n  run-to-run noise instead)\n",
			d->hist_runs, REPORT_DIFF_HISTORY_MIN, REPORT_DIFF_HISTORY_SIGMAS);
	if (d->cpu_threshold > 0)
		fprintf(f, "  (CPU per Gbit: %.3g %%, --threshold-cpu)\n", 100 * d->cpu_threshold);
	else
		fprintf(f, "  (CPU per Gbit is not judged: it moves between runs beyond its "
			   "repetitions; --threshold-cpu PCT)\n");
}

int report_run_diff(FILE *f, const struct report_run *a, const struct report_run *b,
		    const struct report_diff_options *o)
{
	struct report_diff d;
	int rc = report_diff_build(&d, a, b, o);

	if (rc)
		return rc;
	if (o && o->json)
		rc = report_diff_json(f, &d, o);
	else
		print_text(f, &d);
	if (!rc)
		rc = (int)d.regressions;
	report_diff_free(&d);
	return rc;
}
