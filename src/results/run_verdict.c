// SPDX-License-Identifier: MIT
/* A run's verdict in plain sentences (contract in run_verdict.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "breakdown.h"
#include "overhead.h"
#include "run_limit.h"
#include "run_verdict.h"

static char *next_line(struct run_verdict *v)
{
	if (v->n >= RUN_VERDICT_LINES)
		return NULL;
	v->line[v->n][0] = '\0';
	return v->line[v->n++];
}

/* Appends to a line, cut at its end. */
__attribute__((format(printf, 2, 3))) static void add(char *line, const char *fmt, ...)
{
	size_t n = strlen(line);
	va_list ap;

	if (n + 1 >= RUN_VERDICT_LEN)
		return;
	va_start(ap, fmt);
	vsnprintf(line + n, RUN_VERDICT_LEN - n, fmt, ap);
	va_end(ap);
}

static const struct breakdown_row *row_of(const struct breakdown *b, unsigned p,
					  enum breakdown_kind k, unsigned key)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->rows[i].path == p && b->rows[i].kind == k && b->rows[i].key == key)
			return &b->rows[i];
	return NULL;
}

/* "its largest part is bytes on the wire (-4.9 points)" */
static void largest_part(char *line, const struct breakdown_row *r)
{
	const struct breakdown_part *big = NULL;

	if (!r || !r->ok)
		return;
	for (unsigned i = 0; i < r->nparts; i++)
		if (!r->part[i].sub && (!big || fabs(r->part[i].points) > fabs(big->points)))
			big = &r->part[i];
	if (big)
		add(line, "; of its %+.1f %%, %s is %+.1f points (%s)", (r->ratio - 1) * 100,
		    big->name, big->points, big->detail);
}

/* The stream count whose ratio is the worst, when it is not the one the
 * line gives (o) and lies below it by more than 5 %: a verdict names the
 * worst figure of the run, not only the first. */
static void worst_streams(char *line, const struct results_summary *sum,
			  const struct results_tcp_point *o, unsigned base)
{
	const struct results_tcp_point *w = NULL, *wu = NULL;
	double first = 0, worst = 0;
	char a[32], c[32];

	for (size_t i = 0; i < sum->ntcp; i++) {
		const struct results_tcp_point *t = &sum->tcp[i], *u;
		double r;

		if (t->path != o->path || !t->goodput_bps.n ||
		    !(u = results_find_tcp(sum, base, t->streams)) || !u->goodput_bps.n ||
		    u->goodput_bps.median <= 0)
			continue;
		r = t->goodput_bps.median / u->goodput_bps.median;
		if (t == o)
			first = r;
		else if (!w || r < worst) {
			w = t;
			wu = u;
			worst = r;
		}
	}
	if (!w || !(worst < first * 0.95))
		return;
	add(line, "; the worst: %u stream%s, %s against %s (x%.2f)", w->streams,
	    w->streams == 1 ? "" : "s", results_fmt_bps(a, sizeof(a), w->goodput_bps.median),
	    results_fmt_bps(c, sizeof(c), wu->goodput_bps.median), worst);
}

static void tcp_line(struct run_verdict *v, const struct results_run *run,
		     const struct results_summary *sum, const struct breakdown *b, unsigned p,
		     unsigned base)
{
	const struct results_tcp_point *o = NULL, *u;
	struct results_tcp_limit lo, lu;
	char a[32], c[32], *line;

	for (size_t i = 0; i < sum->ntcp && !o; i++)
		if (sum->tcp[i].path == p && sum->tcp[i].goodput_bps.n)
			o = &sum->tcp[i];
	if (!o || !(u = results_find_tcp(sum, base, o->streams)) || !u->goodput_bps.n ||
	    u->goodput_bps.median <= 0 || !(line = next_line(v)))
		return;
	add(line, "TCP through %s (%u stream%s): %s against %s over %s (x%.2f)", run->paths[p].name,
	    o->streams, o->streams == 1 ? "" : "s",
	    results_fmt_bps(a, sizeof(a), o->goodput_bps.median),
	    results_fmt_bps(c, sizeof(c), u->goodput_bps.median), run->paths[base].name,
	    o->goodput_bps.median / u->goodput_bps.median);
	if (results_tcp_limit_line(run, p, o->streams, &lo))
		add(line, ", limited by %s", tcp_limit_name(lo.v.limit));
	if (results_tcp_limit_line(run, base, u->streams, &lu))
		add(line, " (%s by %s)", run->paths[base].name, tcp_limit_name(lu.v.limit));
	worst_streams(line, sum, o, base);
	largest_part(line, row_of(b, p, BREAKDOWN_TCP, o->streams));
	add(line, ".");
	if (o->host_cpu_s_per_gbit.n && u->host_cpu_s_per_gbit.n &&
	    u->host_cpu_s_per_gbit.median > 0 && (line = next_line(v)))
		add(line,
		    "CPU: the whole machine spent %.3g s per Gbit of TCP through %s against %.3g "
		    "over %s (x%.1f).",
		    o->host_cpu_s_per_gbit.median, run->paths[p].name,
		    u->host_cpu_s_per_gbit.median, run->paths[base].name,
		    o->host_cpu_s_per_gbit.median / u->host_cpu_s_per_gbit.median);
	else if ((o->host_cpu_moved || u->host_cpu_moved) && o->own_cpu_s_per_gbit.n &&
		 u->own_cpu_s_per_gbit.n && u->own_cpu_s_per_gbit.median > 0 &&
		 (line = next_line(v)))
		add(line,
		    "CPU: the whole machine's CPU per Gbit is not given: other work on the "
		    "machine (up to %.2g cores busy before the trials) could not be told apart "
		    "from the test's in %u of its repetitions. The test's processes and the "
		    "overlay's daemons spent %.3g s per Gbit through %s against %.3g over %s "
		    "(x%.1f; the kernel's packet work outside them not counted).",
		    fmax(o->host_cpu_busy, u->host_cpu_busy), o->host_cpu_moved + u->host_cpu_moved,
		    o->own_cpu_s_per_gbit.median, run->paths[p].name, u->own_cpu_s_per_gbit.median,
		    run->paths[base].name,
		    o->own_cpu_s_per_gbit.median / u->own_cpu_s_per_gbit.median);
}

/* "at least 4.11 Gbit/s", "943 Mbit/s", on a soft knee "~252 Mbit/s
 * (229-278), fitted: a soft knee", and for a path that changed between
 * repetitions no figure at all (enum results_head). */
static const char *knee_words(char *buf, size_t len, const struct results_knee_point *k)
{
	const struct results_stat *st;
	enum overhead_bound bd;
	char r[32], lo[32], hi[32];

	if (k->ndr_head == RESULTS_HEAD_CHANGED) {
		snprintf(buf, len,
			 "no single figure (its repetitions' knees differ beyond their trials' "
			 "luck, p = %.3f: the path itself changed between them)",
			 k->ndr_fit_reps.p);
		return buf;
	}
	if (!overhead_knee_figure(k, false, &st, &bd)) {
		snprintf(buf, len, "none (no lossless rate found)");
		return buf;
	}
	results_fmt_bps(r, sizeof(r), st->median);
	if (k->ndr_head == RESULTS_HEAD_FIT) {
		results_fmt_bps(lo, sizeof(lo), st->min);
		results_fmt_bps(hi, sizeof(hi), st->max);
		snprintf(buf, len, "~%s (90 %% interval %s..%s; fitted: a soft knee)", r, lo, hi);
		return buf;
	}
	snprintf(buf, len, "%s%s",
		 bd == OVERHEAD_AT_LEAST  ? "at least "
		 : bd == OVERHEAD_AT_MOST ? "less than "
					  : "",
		 r);
	return buf;
}

/* The repetitions a found figure leaves out (struct results_knee_left),
 * so that the figure, its limit and the bound below it describe the same
 * searches. */
static void left_out(char *line, const struct results_run *run, const struct results_knee_point *k)
{
	const struct results_knee_left *l = &k->ndr_left;
	const char *why = !strcmp(l->outcome, "generator-limit") ? "its sender's limit"
			  : !strcmp(l->outcome, "above-max")	 ? "the search's maximum rate"
								 : "where its search was cut short";
	char r[32];

	if (!l->used || !l->n)
		return;
	results_fmt_bps(r, sizeof(r), (double)l->bps);
	add(line, " (%s: %u of %u repetitions found the knee", run->paths[k->path].name,
	    k->ndr_bps.n, k->ndr_bps.n + l->n);
	if (l->n == 1)
		add(line, "; repetition %u ended at %s, %s, below it, and is left out)", l->rep + 1,
		    r, why);
	else
		add(line,
		    "; %u ended on lower bounds below it, the highest repetition %u at %s, "
		    "%s, and are left out)",
		    l->n, l->rep + 1, r, why);
}

static void ndr_line(struct run_verdict *v, const struct results_run *run,
		     const struct results_summary *sum, const struct breakdown *b, unsigned p,
		     unsigned base)
{
	const struct results_knee_point *o = NULL, *u;
	struct ndr_limit_verdict lo, lu;
	const struct ndr_limit_verdict *w;
	const char *who;
	const struct results_stat *so, *su;
	enum overhead_bound bo, bu;
	char a[224], c[224], *line;

	for (size_t i = 0; i < sum->nknee && !o; i++)
		if (sum->knee[i].path == p)
			o = &sum->knee[i];
	if (!o || !(u = results_find_knee(sum, base, o->len)) || !(line = next_line(v)))
		return;
	results_ndr_limit(run, sum, p, o->len, &lo);
	results_ndr_limit(run, sum, base, o->len, &lu);
	add(line, "Lossless UDP (NDR, %u-byte datagrams) through %s: %s against %s over %s", o->len,
	    run->paths[p].name, knee_words(a, sizeof(a), o), knee_words(c, sizeof(c), u),
	    run->paths[base].name);
	if (o->ndr_head == RESULTS_HEAD_CHANGED || u->ndr_head == RESULTS_HEAD_CHANGED) {
		add(line, ".");
		return;
	}
	if (overhead_knee_figure(o, false, &so, &bo) && overhead_knee_figure(u, false, &su, &bu) &&
	    bo == OVERHEAD_EXACT && bu == OVERHEAD_EXACT && so->n && su->n && su->median > 0) {
		add(line, " (x%.2f%s), limited by %s (%s by %s)", so->median / su->median,
		    (o->ndr_head == RESULTS_HEAD_FIT) != (u->ndr_head == RESULTS_HEAD_FIT)
			    ? ", a fit against a found knee"
			    : "",
		    ndr_limit_name(lo.limit), run->paths[base].name, ndr_limit_name(lu.limit));
		largest_part(line, row_of(b, p, BREAKDOWN_NDR, o->len));
		left_out(line, run, o);
		left_out(line, run, u);
		add(line, ".");
		return;
	}
	/* a bound: say which, and why, and that the ratio is then no cost */
	w = u->ndr_lower_bound ? &lu : &lo;
	who = u->ndr_lower_bound ? run->paths[base].name : run->paths[p].name;
	if (u->ndr_lower_bound && o->ndr_lower_bound)
		add(line,
		    ". Both are only lower bounds, so no cost can be read from them: %s's "
		    "search and %s's ended before anything was lost (%s: %s; %s: %s)",
		    run->paths[p].name, run->paths[base].name, run->paths[p].name,
		    ndr_limit_name(lo.limit), run->paths[base].name, ndr_limit_name(lu.limit));
	else
		add(line,
		    ". That is no cost: %s's search ended before anything was lost (%s: %s), so "
		    "its figure is only a lower bound",
		    who, ndr_limit_name(w->limit), w->evidence);
	if (w->limit == NDR_LIMIT_GENERATOR)
		add(line, "; a sender with cores of its own ([lab] cpus) or on another host "
			  "reaches further");
	add(line, ".");
}

static void delay_line(struct run_verdict *v, const struct results_run *run,
		       const struct results_summary *sum, unsigned p, unsigned base)
{
	const struct results_delay_point *o = NULL, *u;
	const struct results_knee_point *ko, *ku;
	char a[32], *line;

	/* the heaviest common load */
	for (size_t i = 0; i < sum->ndelay; i++)
		if (sum->delay[i].path == p && sum->delay[i].p99_ms.n &&
		    (!o || sum->delay[i].load_bps > o->load_bps))
			o = &sum->delay[i];
	if (!o || !(u = results_find_delay(sum, base, o->len, o->load_bps)) || !u->p99_ms.n ||
	    !(line = next_line(v)))
		return;
	add(line, "Delay: one-way p99 %.3g ms through %s against %.3g ms over %s", o->p99_ms.median,
	    run->paths[p].name, u->p99_ms.median, run->paths[base].name);
	if (o->load_pct > 0)
		add(line, ", at %.0f %% of the slower path's NDR (%s)", o->load_pct,
		    results_fmt_bps(a, sizeof(a), (double)o->load_bps));
	else
		add(line, ", at %s", results_fmt_bps(a, sizeof(a), (double)o->load_bps));
	ko = results_find_knee(sum, p, o->len);
	ku = results_find_knee(sum, base, o->len);
	if (o->load_pct > 0 && ((ko && ko->ndr_lower_bound) || (ku && ku->ndr_lower_bound)))
		add(line, "; that NDR is only a lower bound, so this load may not be below the "
			  "knee (warning)");
	if (sum->owd_error_ms > 0)
		add(line, "; the hosts' clocks differ, so these are upper bounds");
	add(line, ".");
}

static void mtu_line(struct run_verdict *v, const struct results_run *run)
{
	const struct results_mtu_check *worst = NULL;
	unsigned ok = 0;
	char *line;

	for (size_t i = 0; i < run->nmtu; i++) {
		ok += run->mtu[i].verdict == RESULTS_OK;
		if (!worst || run->mtu[i].verdict > worst->verdict)
			worst = &run->mtu[i];
	}
	if (!worst || !(line = next_line(v)))
		return;
	if (worst->verdict == RESULTS_OK) {
		add(line, "MTU and MSS: all %zu checks passed.", run->nmtu);
		return;
	}
	add(line, "MTU and MSS: %u of %zu checks passed; %s on %s: %s: %s", ok, run->nmtu,
	    results_verdict_name(worst->verdict), run->paths[worst->path].name, worst->check,
	    worst->reason);
	if (worst->fix[0])
		add(line, " (fix: %s)", worst->fix);
	add(line, ".");
}

void results_run_verdict(const struct results_run *run, const struct results_summary *sum,
			 struct run_verdict *v)
{
	int base = results_underlay(run);
	struct breakdown b;

	memset(v, 0, sizeof(*v));
	if (breakdown_of(run, sum, &b))
		memset(&b, 0, sizeof(b));
	for (unsigned p = 0; base >= 0 && p < run->npaths; p++) {
		if (p == (unsigned)base)
			continue;
		tcp_line(v, run, sum, &b, p, (unsigned)base);
		ndr_line(v, run, sum, &b, p, (unsigned)base);
		delay_line(v, run, sum, p, (unsigned)base);
	}
	mtu_line(v, run);
	breakdown_free(&b);
}
