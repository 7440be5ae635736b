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
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_run.h"

struct fig {
	char what[48]; /* "TCP goodput", "UDP NDR", "ratio TCP goodput" ... */
	char path[RESULTS_NAME_MAX];
	unsigned key;
	const char *unit; /* "streams" / "B" */
	double v;
	bool rate;		   /* print as a rate */
	enum overhead_bound bound; /* AT_LEAST: a lower bound, AT_MOST: an upper one */
};

struct figs {
	size_t n;
	struct fig *f;
};

static void add(struct figs *s, const char *what, const char *path, unsigned key, const char *unit,
		double v, bool rate, enum overhead_bound bound)
{
	struct fig *q = realloc(s->f, (s->n + 1) * sizeof(*q));

	if (!q)
		return; /* a comparison missing a row beats none at all */
	s->f = q;
	q = &s->f[s->n++];
	snprintf(q->what, sizeof(q->what), "%s", what);
	snprintf(q->path, sizeof(q->path), "%s", path);
	q->key = key;
	q->unit = unit;
	q->v = v;
	q->rate = rate;
	q->bound = bound;
}

/* "delay p50 ms @90%": a delay figure named by its load's share of the
 * NDR; a fixed [udp] rate has none. */
static void delay_what(char *buf, size_t len, const char *what, double load_pct)
{
	if (load_pct > 0)
		snprintf(buf, len, "%.23s @%.4g%%", what, load_pct);
	else
		snprintf(buf, len, "%s", what);
}

/* A knee figure: the NDR/PDR, ">=" when only a lower bound; below the
 * search's minimum, "<=" the upper bound it measured (a figure still, not
 * one missing from the run). */
static void add_knee(struct figs *s, const char *what, const char *path, uint32_t len,
		     const struct results_stat *lo, bool lower_bound, const char *outcome,
		     const struct results_stat *up)
{
	if (lo->n)
		add(s, what, path, len, "B", lo->median, true,
		    lower_bound ? OVERHEAD_AT_LEAST : OVERHEAD_EXACT);
	else if (!strcmp(outcome, "below-min") && up->n)
		add(s, what, path, len, "B", up->median, true, OVERHEAD_AT_MOST);
}

static void collect(const struct report_run *rr, struct figs *s)
{
	const struct results_run *run = rr->run;

	for (size_t i = 0; i < rr->sum.ntcp; i++) {
		const struct results_tcp_point *p = &rr->sum.tcp[i];

		add(s, "TCP goodput", run->paths[p->path].name, p->streams, "str",
		    p->goodput_bps.median, true, OVERHEAD_EXACT);
		add(s, "CPU s/Gbit", run->paths[p->path].name, p->streams, "str",
		    p->cpu_s_per_gbit.median, false, OVERHEAD_EXACT);
	}
	for (size_t i = 0; i < rr->sum.nknee; i++) {
		const struct results_knee_point *p = &rr->sum.knee[i];

		add_knee(s, "UDP NDR", run->paths[p->path].name, p->len, &p->ndr_bps,
			 p->ndr_lower_bound, p->ndr_outcome, &p->ndr_upper_bps);
		add_knee(s, "UDP PDR", run->paths[p->path].name, p->len, &p->pdr_bps,
			 p->pdr_lower_bound, p->pdr_outcome, &p->pdr_upper_bps);
	}
	/* Delays of two runs compare at the same share of each run's NDR: the
	 * loads in bit/s differ as the NDRs do. */
	for (size_t i = 0; i < rr->sum.ndelay; i++) {
		const struct results_delay_point *p = &rr->sum.delay[i];
		char w50[48], w99[48];

		delay_what(w50, sizeof(w50), "delay p50 ms", p->load_pct);
		delay_what(w99, sizeof(w99), "delay p99 ms", p->load_pct);
		add(s, w50, run->paths[p->path].name, p->len, "B", p->p50_ms.median, false,
		    OVERHEAD_EXACT);
		add(s, w99, run->paths[p->path].name, p->len, "B", p->p99_ms.median, false,
		    OVERHEAD_EXACT);
	}
	for (size_t i = 0; i < rr->ov.n; i++) {
		const struct overhead_row *r = &rr->ov.rows[i];
		char what[48], label[24];

		if (isnan(r->ratio))
			continue;
		snprintf(label, sizeof(label), "ratio %s", overhead_metric_label(r->metric));
		if (r->load_bps)
			delay_what(what, sizeof(what), label, r->load_pct);
		else
			snprintf(what, sizeof(what), "%s", label);
		add(s, what, run->paths[r->path].name, r->key,
		    !strcmp(overhead_metric_key(r->metric), "streams") ? "str" : "B", r->ratio,
		    false, overhead_ratio_bound(r));
	}
}

static const struct fig *match(const struct figs *s, const struct fig *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->f[i].what, x->what) && !strcmp(s->f[i].path, x->path) &&
		    s->f[i].key == x->key)
			return &s->f[i];
	return NULL;
}

static void value(char *buf, size_t len, const struct fig *x)
{
	const char *pre = overhead_bound_prefix(x->bound);
	size_t l = strlen(pre);

	snprintf(buf, len, "%s", pre);
	if (l >= len)
		return;
	if (x->rate)
		report_run_fmt_rate(buf + l, len - l, x->v);
	else
		snprintf(buf + l, len - l, "%.4g", x->v);
}

/* How B - A relates to the true difference: B a lower bound makes it a
 * lower bound, A a lower bound an upper one; opposite pulls, or either side
 * unknown, leave nothing. */
static enum overhead_bound delta_bound(const struct fig *a, const struct fig *b)
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

/* The distinct values of one trial property, sorted, as text: datagram
 * sizes of the UDP trials, or measured durations (0.1 s) of one kind. */
static void distinct(const struct results_run *run, int kind, char *buf, size_t len)
{
	unsigned v[64], n = 0;
	size_t off = 0;

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
	buf[0] = '\0';
	for (unsigned i = 0; i < n && off < len; i++) {
		int w = kind ? snprintf(buf + off, len - off, "%s%.1fs", i ? " " : "", v[i] / 10.0)
			     : snprintf(buf + off, len - off, "%s%u", i ? " " : "", v[i]);

		if (w < 0)
			break;
		off += (size_t)w;
	}
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
static void differences(FILE *f, const struct results_run *a, const struct results_run *b)
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

	if (a->pdr_goal_pct != b->pdr_goal_pct)
		fprintf(f, "warning: the PDR loss goals differ: A %g %%, B %g %%\n",
			a->pdr_goal_pct, b->pdr_goal_pct);
	for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
		distinct(a, props[i].kind, x, sizeof(x));
		distinct(b, props[i].kind, y, sizeof(y));
		if (strcmp(x, y) && x[0] && y[0])
			fprintf(f, "warning: the %s differ: A %s, B %s\n", props[i].what, x, y);
	}
	paths_of(a, x, sizeof(x));
	paths_of(b, y, sizeof(y));
	if (strcmp(x, y))
		fprintf(f, "warning: the paths differ: A %s, B %s\n", x, y);
}

void report_run_diff(FILE *f, const struct report_run *a, const struct report_run *b)
{
	struct figs fa = { 0 }, fb = { 0 };
	size_t only_b = 0;

	head(f, "A", a->run);
	head(f, "B", b->run);
	differences(f, a->run, b->run);
	collect(a, &fa);
	collect(b, &fb);
	fprintf(f, "\n  %-22s %-12s %8s  %14s %14s %14s %8s\n", "figure", "path", "at", "A", "B",
		"B - A", "change");
	for (size_t i = 0; i < fa.n; i++) {
		const struct fig *x = &fa.f[i], *y = match(&fb, x);
		char at[24], va[32], vb[32], d[32];
		struct fig delta;
		enum overhead_bound db;

		snprintf(at, sizeof(at), "%u %s", x->key, x->unit);
		value(va, sizeof(va), x);
		if (!y) {
			fprintf(f, "  %-22s %-12s %8s  %14s %14s\n", x->what, x->path, at, va,
				"(only in A)");
			continue;
		}
		value(vb, sizeof(vb), y);
		delta = *y;
		delta.v = y->v - x->v;
		delta.bound = OVERHEAD_EXACT;
		db = delta_bound(x, y);
		if (db == OVERHEAD_UNKNOWN) {
			snprintf(d, sizeof(d), "?");
		} else if (delta.rate && delta.v < 0) {
			size_t l = strlen(overhead_bound_prefix(db));

			delta.v = -delta.v;
			snprintf(d, sizeof(d), "%s-", overhead_bound_prefix(db));
			value(d + l + 1, sizeof(d) - l - 1, &delta);
		} else {
			delta.bound = db;
			value(d, sizeof(d), &delta);
		}
		fprintf(f, "  %-22s %-12s %8s  %14s %14s %14s ", x->what, x->path, at, va, vb, d);
		if (db == OVERHEAD_UNKNOWN)
			snprintf(d, sizeof(d), "?");
		else if (x->v != 0)
			snprintf(d, sizeof(d), "%s%+.1f%%", overhead_bound_prefix(db),
				 100.0 * (y->v - x->v) / fabs(x->v));
		else
			snprintf(d, sizeof(d), "-");
		fprintf(f, "%8s\n", d);
	}
	for (size_t i = 0; i < fb.n; i++)
		only_b += !match(&fa, &fb.f[i]);
	if (only_b)
		fprintf(f, "\n  %zu figures only in B (other paths or sizes)\n", only_b);
	free(fa.f);
	free(fb.f);
}
