// SPDX-License-Identifier: MIT
/*
 * `ovlperf report DIR1 DIR2`: two runs side by side. Figures are matched by
 * path name and key (stream count, datagram size), so two runs of different
 * scenarios compare on what they share; the rest is listed as only in one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_run.h"

struct fig {
	char what[32]; /* "TCP goodput", "UDP NDR", "ratio TCP goodput" ... */
	char path[RESULTS_NAME_MAX];
	unsigned key;
	const char *unit; /* "streams" / "B" */
	double v;
	bool rate; /* print as a rate */
};

struct figs {
	size_t n;
	struct fig *f;
};

static void add(struct figs *s, const char *what, const char *path, unsigned key, const char *unit,
		double v, bool rate)
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
}

static void collect(const struct report_run *rr, struct figs *s)
{
	const struct results_run *run = rr->run;

	for (size_t i = 0; i < rr->sum.ntcp; i++) {
		const struct results_tcp_point *p = &rr->sum.tcp[i];

		add(s, "TCP goodput", run->paths[p->path].name, p->streams, "str",
		    p->goodput_bps.median, true);
		add(s, "CPU s/Gbit", run->paths[p->path].name, p->streams, "str",
		    p->cpu_s_per_gbit.median, false);
	}
	for (size_t i = 0; i < rr->sum.nknee; i++) {
		const struct results_knee_point *p = &rr->sum.knee[i];

		if (p->ndr_bps.n)
			add(s, "UDP NDR", run->paths[p->path].name, p->len, "B", p->ndr_bps.median,
			    true);
		if (p->pdr_bps.n)
			add(s, "UDP PDR", run->paths[p->path].name, p->len, "B", p->pdr_bps.median,
			    true);
	}
	for (size_t i = 0; i < rr->sum.ndelay; i++) {
		const struct results_delay_point *p = &rr->sum.delay[i];

		add(s, "delay p50 ms", run->paths[p->path].name, p->len, "B", p->p50_ms.median,
		    false);
		add(s, "delay p99 ms", run->paths[p->path].name, p->len, "B", p->p99_ms.median,
		    false);
	}
	for (size_t i = 0; i < rr->ov.n; i++) {
		const struct overhead_row *r = &rr->ov.rows[i];
		char what[32];

		if (isnan(r->ratio))
			continue;
		snprintf(what, sizeof(what), "ratio %s", overhead_metric_label(r->metric));
		add(s, what, run->paths[r->path].name, r->key,
		    !strcmp(overhead_metric_key(r->metric), "streams") ? "str" : "B", r->ratio,
		    false);
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
	if (x->rate)
		report_run_fmt_rate(buf, len, x->v);
	else
		snprintf(buf, len, "%.4g", x->v);
}

static void head(FILE *f, const char *tag, const struct results_run *run)
{
	fprintf(f, "%s: '%s' started %s, %zu trials%s | %s | %s\n", tag, run->scenario_name,
		run->started_utc, run->ntrials, run->complete ? "" : " (INCOMPLETE)",
		run->host.kernel, run->host.cpu);
}

void report_run_diff(FILE *f, const struct report_run *a, const struct report_run *b)
{
	struct figs fa = { 0 }, fb = { 0 };
	size_t only_b = 0;

	head(f, "A", a->run);
	head(f, "B", b->run);
	collect(a, &fa);
	collect(b, &fb);
	fprintf(f, "\n  %-22s %-12s %8s  %14s %14s %14s %8s\n", "figure", "path", "at", "A", "B",
		"B - A", "change");
	for (size_t i = 0; i < fa.n; i++) {
		const struct fig *x = &fa.f[i], *y = match(&fb, x);
		char at[24], va[32], vb[32], d[32];
		struct fig delta;

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
		if (delta.rate && delta.v < 0) {
			delta.v = -delta.v;
			value(d + 1, sizeof(d) - 1, &delta);
			d[0] = '-';
		} else {
			value(d, sizeof(d), &delta);
		}
		fprintf(f, "  %-22s %-12s %8s  %14s %14s %14s ", x->what, x->path, at, va, vb, d);
		if (x->v != 0)
			fprintf(f, "%+7.1f%%\n", 100.0 * (y->v - x->v) / fabs(x->v));
		else
			fprintf(f, "%8s\n", "-");
	}
	for (size_t i = 0; i < fb.n; i++)
		only_b += !match(&fa, &fb.f[i]);
	if (only_b)
		fprintf(f, "\n  %zu figures only in B (other paths or sizes)\n", only_b);
	free(fa.f);
	free(fb.f);
}
