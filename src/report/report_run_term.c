// SPDX-License-Identifier: MIT
/* The terminal summary of a run (the formatting helpers all run printers
 * share are in report_fmt.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "report_facts.h"
#include "report_run_breakdown.h"
#include "report_run_limit.h"
#include "run_verdict.h"
#include "report_run.h"

int report_run_prepare(struct report_run *rr, const struct results_run *run)
{
	int err;

	memset(rr, 0, sizeof(*rr));
	rr->run = run;
	err = results_aggregate(run, &rr->sum);
	if (!err)
		err = overhead_compute(run, &rr->sum, &rr->ov);
	if (err)
		report_run_release(rr);
	return err;
}

void report_run_release(struct report_run *rr)
{
	results_summary_free(&rr->sum);
	overhead_free(&rr->ov);
}

static void head(FILE *f, const struct results_run *run)
{
	char t[32];

	report_run_fmt_time(t, sizeof(t), run->duration_s);
	fprintf(f, "ovlperf %s: scenario '%s' (%s), %u paths, %zu trials, %s%s\n", run->version,
		run->scenario_name, run->scenario_file[0] ? run->scenario_file : "-", run->npaths,
		run->ntrials, t, run->complete ? "" : ", INCOMPLETE");
	if (!run->complete)
		fprintf(f, "  stopped: %s\n", run->stop_reason[0] ? run->stop_reason : "unknown");
	fprintf(f, "  %s | %s x%u | started %s\n", run->host.kernel, run->host.cpu, run->host.ncpu,
		run->started_utc);
	if (run->host.client_cpus[0] || run->host.server_cpus[0])
		fprintf(f, "  lab hosts on CPUs of their own: client %s, server %s\n",
			run->host.client_cpus[0] ? run->host.client_cpus : "any",
			run->host.server_cpus[0] ? run->host.server_cpus : "any");
	for (unsigned i = 0; i < run->npaths; i++)
		fprintf(f, "  path %-12s %-8s %s%s%.0u\n", run->paths[i].name,
			results_path_kind_name(run->paths[i].kind), run->paths[i].addr,
			run->paths[i].mtu ? "  mtu " : "", run->paths[i].mtu);
	/* the lab links the paths crossed: their WAN conditions, and how made */
	for (unsigned i = 0; i < run->nlinks && i < RESULTS_MAX_LINKS; i++) {
		const struct results_link *l = &run->links[i];
		char rate[32];

		report_run_fmt_rate(rate, sizeof(rate), (double)l->rate_bps);
		fprintf(f, "  link %u host %u <-> %u  %s%s%s%s%s", i, l->a, l->b,
			l->conditions[0] ? l->means : "no conditions", l->conditions[0] ? ": " : "",
			l->conditions, l->rate_bps ? "  tbf " : "", l->rate_bps ? rate : "");
		if (l->drop_pct > 0)
			fprintf(f, "  drop %.2f%%", l->drop_pct);
		fputc('\n', f);
	}
}

/* ---- the compact summary: one row per figure, one column per path ---- */

struct row {
	char label[40];
	char val[RESULTS_MAX_PATHS][48];
	char ratio[RESULTS_MAX_PATHS][16];
};

/* 9.46G, 486M, 950k: rates in a narrow column, digits significant
 * digits; the unit chosen after rounding, so that 999.7 Mbit/s is 1G,
 * never "1e+03M". */
static void short_rate(char *buf, size_t len, double bps, int digits)
{
	double half = 0.5 * pow(10, -digits); /* what rounds up to the next unit */

	if (bps >= 1e9 * (1 - half))
		snprintf(buf, len, "%.*gG", digits, bps / 1e9);
	else if (bps >= 1e6 * (1 - half))
		snprintf(buf, len, "%.*gM", digits, bps / 1e6);
	else
		snprintf(buf, len, "%.*gk", digits, bps / 1e3);
}

/* Decimals that keep a ratio's first digit: x3.0, x0.05 (4.23 ms against
 * 88.6 was "x0.0"). */
static int ratio_digits(double r)
{
	return r > 0 && r < 0.095 ? 2 + (r < 0.0095) : 1;
}

/* The median and the range; a range that three digits would show as one
 * value (999.7M..1.001G as "1G-1G") gets a fourth. */
static void rate_cell(char *buf, size_t len, const struct results_stat *s)
{
	char m[16], lo[16], hi[16];
	int digits = 3;

	short_rate(m, sizeof(m), s->median, digits);
	if (s->n < 2 || s->min == s->max) {
		snprintf(buf, len, "%s", m);
		return;
	}
	for (; digits <= 4; digits++) {
		short_rate(m, sizeof(m), s->median, digits);
		short_rate(lo, sizeof(lo), s->min, digits);
		short_rate(hi, sizeof(hi), s->max, digits);
		if (strcmp(lo, hi))
			break;
	}
	if (snprintf(buf, len, "%s [%s-%s]", m, lo, hi) >= (int)len)
		buf[len - 1] = '\0';
}

static void print_row(FILE *f, const struct report_run *rr, const struct row *w)
{
	fprintf(f, "  %-22s", w->label);
	for (unsigned p = 0; p < rr->run->npaths; p++)
		fprintf(f, " %-22s %-9s", w->val[p][0] ? w->val[p] : "-", w->ratio[p]);
	fputc('\n', f);
}

static void set_ratio(struct row *w, const struct report_run *rr, unsigned p,
		      enum overhead_metric m, unsigned key)
{
	const struct overhead_row *o = overhead_find(&rr->ov, p, m, key);

	if (o && m == OVERHEAD_TCP_MSS)
		snprintf(w->ratio[p], sizeof(w->ratio[p]), "%+.0f", o->delta);
	else if (o && !isnan(o->ratio))
		snprintf(w->ratio[p], sizeof(w->ratio[p]), "x%.2f%s", o->ratio,
			 o->base_fit != o->value_fit ? "~" : "");
}

static bool seen_streams(const struct results_summary *s, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (s->tcp[j].streams == s->tcp[i].streams)
			return true;
	return false;
}

static void summary_tcp(FILE *f, const struct report_run *rr)
{
	const struct results_summary *s = &rr->sum;

	for (size_t i = 0; i < s->ntcp; i++) {
		unsigned n = s->tcp[i].streams;
		struct row g = { 0 }, c = { 0 }, h = { 0 };

		if (seen_streams(s, i))
			continue;
		snprintf(g.label, sizeof(g.label), "TCP %u stream%s", n, n > 1 ? "s" : "");
		snprintf(c.label, sizeof(c.label), "  CPU s/Gbit");
		snprintf(h.label, sizeof(h.label), "  host CPU s/Gbit");
		for (unsigned p = 0; p < rr->run->npaths; p++) {
			const struct results_tcp_point *t = results_find_tcp(s, p, n);

			if (!t)
				continue;
			rate_cell(g.val[p], sizeof(g.val[p]), &t->goodput_bps);
			snprintf(c.val[p], sizeof(c.val[p]), "%.3g", t->cpu_s_per_gbit.median);
			if (t->host_cpu_s_per_gbit.n)
				snprintf(h.val[p], sizeof(h.val[p]), "%.3g",
					 t->host_cpu_s_per_gbit.median);
			set_ratio(&g, rr, p, OVERHEAD_TCP_GOODPUT, n);
			set_ratio(&c, rr, p, OVERHEAD_CPU_PER_GBIT, n);
			set_ratio(&h, rr, p, OVERHEAD_HOST_CPU_PER_GBIT, n);
		}
		print_row(f, rr, &g);
		print_row(f, rr, &c);
		/* The machine's CPU is known in a lab only. */
		for (unsigned p = 0; p < rr->run->npaths; p++)
			if (h.val[p][0]) {
				print_row(f, rr, &h);
				break;
			}
	}
	if (s->ntcp) {
		struct row m = { 0 };

		snprintf(m.label, sizeof(m.label), "TCP MSS");
		for (unsigned p = 0; p < rr->run->npaths; p++) {
			const struct results_tcp_point *t =
				results_find_tcp(s, p, s->tcp[0].streams);

			if (t && t->snd_mss)
				snprintf(m.val[p], sizeof(m.val[p]), "%u", t->snd_mss);
			set_ratio(&m, rr, p, OVERHEAD_TCP_MSS, s->tcp[0].streams);
		}
		print_row(f, rr, &m);
	}
}

static void knee_value(char *buf, size_t len, const struct results_stat *s, bool lower_bound,
		       const char *outcome, const struct results_stat *upper)
{
	char v[40];

	if (!s->n) {
		if (upper->n) {
			short_rate(v, sizeof(v), upper->median, 3);
			snprintf(buf, len, "< %s", v);
		} else {
			snprintf(buf, len, "(%s)", outcome[0] ? outcome : "none");
		}
		return;
	}
	rate_cell(v, sizeof(v), s);
	snprintf(buf, len, "%s%s", lower_bound ? ">= " : "", v);
}

/* A knee's headline in a cell: its bounds as found, or a soft knee's fit
 * with its 90 % interval ("~252M (229-278)"), or none when the path
 * changed between repetitions (enum results_head). */
static void knee_cell(char *buf, size_t len, const struct results_knee_point *k, bool pdr)
{
	const struct results_stat *s = pdr ? &k->pdr_head_bps : &k->ndr_head_bps;
	enum results_head h = pdr ? k->pdr_head : k->ndr_head;
	char m[16], lo[16], hi[16];

	if (h == RESULTS_HEAD_CHANGED) {
		snprintf(buf, len, "(changed)");
		return;
	}
	if (h != RESULTS_HEAD_FIT) {
		knee_value(buf, len, pdr ? &k->pdr_bps : &k->ndr_bps,
			   pdr ? k->pdr_lower_bound : k->ndr_lower_bound,
			   pdr ? k->pdr_outcome : k->ndr_outcome,
			   pdr ? &k->pdr_upper_bps : &k->ndr_upper_bps);
		return;
	}
	short_rate(m, sizeof(m), s->median, 3);
	short_rate(lo, sizeof(lo), s->min, 3);
	short_rate(hi, sizeof(hi), s->max, 3);
	if (snprintf(buf, len, "~%s (%s-%s)", m, lo, hi) >= (int)len)
		buf[len - 1] = '\0';
}

/* A ratio against a lower bound is itself a bound: "*" marks it, explained
 * under the table (the column is too narrow for "<= x0.18"). */
static void bound_mark(struct row *w, const struct report_run *rr, unsigned p,
		       enum overhead_metric m, uint32_t len)
{
	const struct overhead_row *o = overhead_find(&rr->ov, p, m, len);
	size_t l = strlen(w->ratio[p]);

	if (o && l && l + 2 <= sizeof(w->ratio[p]) && overhead_ratio_bound(o) != OVERHEAD_EXACT)
		memcpy(w->ratio[p] + l, "*", 2);
}

/* Whether some knee's headline is a fit or none (enum results_head):
 * the note under the table says what "~" and "(changed)" mean. */
static bool any_head(const struct report_run *rr, enum results_head h)
{
	for (size_t i = 0; i < rr->sum.nknee; i++)
		if (rr->sum.knee[i].ndr_head == h || rr->sum.knee[i].pdr_head == h)
			return true;
	return false;
}

static bool any_bound_mark(const struct report_run *rr)
{
	for (size_t i = 0; i < rr->ov.n; i++)
		if (overhead_ratio_bound(&rr->ov.rows[i]) != OVERHEAD_EXACT)
			return true;
	return false;
}

static void summary_udp(FILE *f, const struct report_run *rr)
{
	const struct results_summary *s = &rr->sum;

	for (size_t i = 0; i < s->nknee; i++) {
		uint32_t len = s->knee[i].len;
		struct row n = { 0 }, d = { 0 };
		bool dup = false;

		for (size_t j = 0; j < i; j++)
			dup |= s->knee[j].len == len;
		if (dup)
			continue;
		snprintf(n.label, sizeof(n.label), "UDP %u B NDR", len);
		snprintf(d.label, sizeof(d.label), "UDP %u B PDR %g%%", len, rr->run->pdr_goal_pct);
		for (unsigned p = 0; p < rr->run->npaths; p++) {
			const struct results_knee_point *k = results_find_knee(s, p, len);

			if (!k)
				continue;
			knee_cell(n.val[p], sizeof(n.val[p]), k, false);
			knee_cell(d.val[p], sizeof(d.val[p]), k, true);
			set_ratio(&n, rr, p, OVERHEAD_UDP_NDR, len);
			set_ratio(&d, rr, p, OVERHEAD_UDP_PDR, len);
			bound_mark(&n, rr, p, OVERHEAD_UDP_NDR, len);
			bound_mark(&d, rr, p, OVERHEAD_UDP_PDR, len);
		}
		print_row(f, rr, &n);
		print_row(f, rr, &d);
	}
	for (size_t i = 0; i < s->ndelay; i++) {
		const struct results_delay_point *dp = &s->delay[i];
		struct row w = { 0 };
		char load[16];
		bool dup = false;

		/* One row per size and load; a load's fraction of the NDR first. */
		for (size_t j = 0; j < i; j++)
			dup |= s->delay[j].len == dp->len && s->delay[j].load_bps == dp->load_bps;
		if (dup)
			continue;
		short_rate(load, sizeof(load), (double)dp->load_bps, 3);
		if (dp->load_pct > 0)
			snprintf(w.label, sizeof(w.label), "delay %uB @%g%% %s", dp->len,
				 dp->load_pct, load);
		else
			snprintf(w.label, sizeof(w.label), "delay %uB @%s", dp->len, load);
		for (unsigned p = 0; p < rr->run->npaths; p++) {
			const struct results_delay_point *x =
				results_find_delay(s, p, dp->len, dp->load_bps);
			const struct overhead_row *a = overhead_find_load(
				&rr->ov, p, OVERHEAD_OWD_P50, dp->len, dp->load_bps);
			const struct overhead_row *b = overhead_find_load(
				&rr->ov, p, OVERHEAD_OWD_P99, dp->len, dp->load_bps);

			if (x && x->p50_ms.n)
				snprintf(w.val[p], sizeof(w.val[p]), "%.3g / %.3g",
					 x->p50_ms.median, x->p99_ms.median);
			if (a && b && !isnan(a->ratio) && !isnan(b->ratio))
				snprintf(w.ratio[p], sizeof(w.ratio[p]), "x%.*f/%.*f",
					 ratio_digits(a->ratio), a->ratio, ratio_digits(b->ratio),
					 b->ratio);
		}
		print_row(f, rr, &w);
	}
}

/* A linear sweep in two figures per path: the highest offered rate that
 * arrived without loss, and the most that arrived at any rate. */
static void sweep_figures(const struct results_summary *s, unsigned path, uint32_t len,
			  double *lossless, double *max_rx)
{
	*lossless = 0;
	*max_rx = 0;
	for (size_t i = 0; i < s->nsweep; i++) {
		const struct results_sweep_point *p = &s->sweep[i];

		if (p->path != path || p->len != len || p->kind != RESULTS_TRIAL_SWEEP)
			continue;
		if (p->delivered_pct.median >= 100.0 && !p->generator_limited &&
		    (double)p->target_bps > *lossless)
			*lossless = (double)p->target_bps;
		if (p->rx_bps.median > *max_rx)
			*max_rx = p->rx_bps.median;
	}
}

static void summary_sweep(FILE *f, const struct report_run *rr)
{
	const struct results_summary *s = &rr->sum;
	int u = results_underlay(rr->run);

	for (size_t i = 0; i < s->nsweep; i++) {
		uint32_t len = s->sweep[i].len;
		struct row a = { 0 }, b = { 0 };
		double ul = 0, um = 0;
		bool dup = s->sweep[i].kind != RESULTS_TRIAL_SWEEP;

		for (size_t j = 0; j < i && !dup; j++)
			dup = s->sweep[j].kind == RESULTS_TRIAL_SWEEP && s->sweep[j].len == len;
		if (dup)
			continue;
		snprintf(a.label, sizeof(a.label), "sweep %uB lossless to", len);
		snprintf(b.label, sizeof(b.label), "sweep %uB most RX", len);
		if (u >= 0)
			sweep_figures(s, (unsigned)u, len, &ul, &um);
		for (unsigned p = 0; p < rr->run->npaths; p++) {
			double l, m;

			sweep_figures(s, p, len, &l, &m);
			if (l > 0)
				short_rate(a.val[p], sizeof(a.val[p]), l, 3);
			else
				snprintf(a.val[p], sizeof(a.val[p]), "(none)");
			short_rate(b.val[p], sizeof(b.val[p]), m, 3);
			if ((int)p != u && ul > 0 && l > 0)
				snprintf(a.ratio[p], sizeof(a.ratio[p]), "x%.2f", l / ul);
			if ((int)p != u && um > 0)
				snprintf(b.ratio[p], sizeof(b.ratio[p]), "x%.2f", m / um);
		}
		print_row(f, rr, &a);
		print_row(f, rr, &b);
	}
}

static void summary_mtu(FILE *f, const struct report_run *rr)
{
	const struct results_run *run = rr->run;
	struct row w = { 0 };

	if (!run->nmtu)
		return;
	snprintf(w.label, sizeof(w.label), "MTU / MSS checks");
	for (unsigned p = 0; p < run->npaths; p++) {
		const struct results_mtu_check *worst = NULL;
		unsigned n = 0, bad = 0;

		for (size_t i = 0; i < run->nmtu; i++) {
			const struct results_mtu_check *m = &run->mtu[i];

			if (m->path != p)
				continue;
			n++;
			bad += m->verdict != RESULTS_OK;
			if (!worst || m->verdict > worst->verdict)
				worst = m;
		}
		if (!n)
			continue;
		if (!bad)
			snprintf(w.val[p], sizeof(w.val[p]), "OK (%u checks)", n);
		else if (bad == 1)
			snprintf(w.val[p], sizeof(w.val[p]), "%.4s %.24s",
				 results_verdict_name(worst->verdict), worst->check);
		else
			snprintf(w.val[p], sizeof(w.val[p]), "%.4s %.24s +%u",
				 results_verdict_name(worst->verdict), worst->check, bad - 1);
	}
	print_row(f, rr, &w);
}

/* The verdict first: plain sentences (results/run_verdict.h). */
static void verdict(FILE *f, const struct report_run *rr)
{
	struct run_verdict v;

	results_run_verdict(rr->run, &rr->sum, &v);
	if (!v.n)
		return;
	fputs("\nVerdict:\n", f);
	for (unsigned i = 0; i < v.n; i++)
		fprintf(f, "  - %s\n", v.line[i]);
}

static void summary(FILE *f, const struct report_run *rr)
{
	const struct results_run *run = rr->run;
	unsigned reps = 0;

	verdict(f, rr);

	for (size_t i = 0; i < run->ntrials; i++)
		if (run->trials[i].rep + 1 > reps)
			reps = run->trials[i].rep + 1;
	fprintf(f,
		"\nSummary: medians of %u repetition%s [min-max]; xR = path / underlay; "
		"delay: one-way p50 / p99 ms\n"
		"  (sizes in bytes and rates in bit/s of UDP payload; the tables below give "
		"each layer)\n",
		reps, reps == 1 ? "" : "s");
	if (rr->sum.owd_error_ms > 0)
		fprintf(f,
			"  (clocks not shared: delays are upper bounds, at most %.3f ms above "
			"the true ones)\n",
			rr->sum.owd_error_ms);
	fprintf(f, "  %-22s", "");
	for (unsigned p = 0; p < run->npaths; p++)
		fprintf(f, " %-32s", run->paths[p].name);
	fputc('\n', f);
	summary_tcp(f, rr);
	summary_udp(f, rr);
	summary_sweep(f, rr);
	summary_mtu(f, rr);
	report_run_limits_term(f, rr);
	report_run_breakdown_term(f, rr);
	report_facts_run(f, rr, false);
	if (any_bound_mark(rr))
		fprintf(f, "  * a bound, not a ratio: a rate marked >= is a lower bound (the knee "
			   "search passed at max_rate, its sender ran out first, or it did not "
			   "finish), one marked < an upper bound (it lost at its minimum rate); "
			   "against a lower-bound underlay the ratio is an upper bound, for a "
			   "lower-bound overlay a lower one\n");
	if (any_head(rr, RESULTS_HEAD_FIT))
		fprintf(f, "  ~ fitted: a soft knee, where each repetition's NDR is where its "
			   "search's luck ran out; the figure is where all its trials put the "
			   "chance of a lossy trial at the exceed ratio, with its 90 %% interval "
			   "(a ratio marked ~ sets a fit against a found knee)\n");
	if (any_head(rr, RESULTS_HEAD_CHANGED))
		fprintf(f,
			"  (changed): the repetitions' knees differ beyond their trials' luck "
			"(p < %.2g): the path itself changed between them, and no single figure "
			"stands for it\n",
			KNEE_FIT_DIFFER_P);
}

/* "7.11G..7.41G": the medians of each repetition's bounds (each pair from
 * one repetition, so lower <= upper), the lower one the rate the sender
 * achieved, with the target it was asked for when they differ, and what
 * stopped the search when it is not a plain find. */
static void bounds(char *buf, size_t len, const struct results_stat *s,
		   const struct results_stat *target, const struct results_stat *upper,
		   bool lower_bound, const char *outcome)
{
	char lo[16] = "?", hi[16] = "?", tg[32] = "";

	if (s->n)
		short_rate(lo, sizeof(lo), s->median, 3);
	if (upper->n)
		short_rate(hi, sizeof(hi), upper->median, 3);
	if (s->n && target->n && target->median > s->median * 1.0005) {
		char t[16];

		short_rate(t, sizeof(t), target->median, 3);
		snprintf(tg, sizeof(tg), "target %s", t);
	}
	if (s->n && !lower_bound)
		snprintf(buf, len, "%s..%s%s%s%s", lo, hi, tg[0] ? " (" : "", tg, tg[0] ? ")" : "");
	else if (!s->n && upper->n)
		snprintf(buf, len, "< %s (%s)", hi, outcome[0] ? outcome : "below-min");
	else if (s->n)
		snprintf(buf, len, ">= %s (%s%s%s)", lo, outcome, tg[0] ? "; " : "", tg);
	else
		snprintf(buf, len, "(%s)", outcome[0] ? outcome : "none");
}

/* The NDR the RFC 2544 way too (26.1: frames a second, and the rate at
 * each layer): its lower bound's datagrams a second, one frame each. */
static void knee_layers(FILE *f, const struct results_run *run, const struct results_knee_point *p)
{
	double pps, line;
	char n[16], pct[48] = "";

	if (!p->ndr_bps.n || !p->len)
		return;
	pps = p->ndr_bps.median / (8.0 * p->len);
	line = results_layer_bps(run, p->path, p->len, pps, LAYER_LINE);
	report_run_fmt_pps(n, sizeof(n), pps);
	if (run->line_rate_bps)
		snprintf(pct, sizeof(pct), ", %.1f %% of the line's %.0f Mbit/s",
			 100.0 * line / (double)run->line_rate_bps,
			 (double)run->line_rate_bps / 1e6);
	fprintf(f,
		"  %-12s %6s  NDR %s%s frames/s: ip %llu B %.1f, frame %llu B %.1f, line %llu B "
		"%.1f Mbit/s%s\n",
		"", "", p->ndr_lower_bound ? ">= " : "", n,
		(unsigned long long)results_layer_bytes(run, p->path, p->len, LAYER_IP),
		results_layer_bps(run, p->path, p->len, pps, LAYER_IP) / 1e6,
		(unsigned long long)results_layer_bytes(run, p->path, p->len, LAYER_FRAME),
		results_layer_bps(run, p->path, p->len, pps, LAYER_FRAME) / 1e6,
		(unsigned long long)results_layer_bytes(run, p->path, p->len, LAYER_LINE),
		line / 1e6, pct);
}

/* RFC 9971's conditional throughput, and how repeatable the NDR is. */
static void knee_repeat(FILE *f, const struct results_knee_point *p)
{
	char ndr[24] = "-", pdr[24] = "-", rep[1024];

	if (p->ndr_ct_bps.n)
		report_run_fmt_rate(ndr, sizeof(ndr), p->ndr_ct_bps.median);
	if (p->pdr_ct_bps.n)
		report_run_fmt_rate(pdr, sizeof(pdr), p->pdr_ct_bps.median);
	if (p->ndr_ct_bps.n || p->pdr_ct_bps.n)
		fprintf(f, "  %-12s %6s  conditional throughput (RFC 9971): NDR %s, PDR %s\n", "",
			"", ndr, pdr);
	report_run_knee_repeat(rep, sizeof(rep), p);
	if (rep[0])
		fprintf(f, "  %-12s %6s  %s\n", "", "", rep);
	if (report_run_knee_fit(rep, sizeof(rep), p))
		fprintf(f, "  %-12s %6s  NDR %s\n", "", "", rep);
	if (report_run_knee_cut(rep, sizeof(rep), p))
		fprintf(f, "  %-12s %6s  %s\n", "", "", rep);
	if (report_run_knee_stalls(rep, sizeof(rep), p))
		fprintf(f, "  %-12s %6s  %s\n", "", "", rep);
}

static void knee_table(FILE *f, const struct report_run *rr)
{
	const struct results_run *run = rr->run;

	if (!rr->sum.nknee)
		return;
	fprintf(f,
		"\nUDP loss knee (NDR = no loss, PDR = loss <= %g%%): lower (rate sent) and upper "
		"bound, medians over repetitions; effort; where the loss was\n",
		run->pdr_goal_pct);
	fprintf(f, "  %-12s %6s  %-38s %-38s %6s %7s  %s\n", "path", "bytes", "NDR lower..upper",
		"PDR lower..upper", "trials", "time", "loss above the NDR");
	fprintf(f, "  (bytes of UDP payload, rates in payload bit/s; below each, the NDR's "
		   "lower bound at every layer)\n");
	for (size_t i = 0; i < rr->sum.nknee; i++) {
		const struct results_knee_point *p = &rr->sum.knee[i];
		char ndr[64], pdr[64], t[16], where[256];

		bounds(ndr, sizeof(ndr), &p->ndr_bps, &p->ndr_target_bps, &p->ndr_upper_bps,
		       p->ndr_lower_bound, p->ndr_outcome);
		bounds(pdr, sizeof(pdr), &p->pdr_bps, &p->pdr_target_bps, &p->pdr_upper_bps,
		       p->pdr_lower_bound, p->pdr_outcome);
		report_run_fmt_time(t, sizeof(t), p->time_s);
		report_run_knee_above(where, sizeof(where), p);
		fprintf(f, "  %-12s %6u  %-38s %-38s %6u %7s  %s\n", run->paths[p->path].name,
			p->len, ndr, pdr, p->trials, t, where);
		knee_layers(f, run, p);
		knee_repeat(f, p);
	}
}

static void mtu_table(FILE *f, const struct results_run *run)
{
	if (!run->nmtu)
		return;
	fprintf(f, "\nMTU / MSS checks\n");
	for (size_t i = 0; i < run->nmtu; i++) {
		const struct results_mtu_check *m = &run->mtu[i];

		fprintf(f, "  %-12s %-16s %-4s %s%s%s\n", run->paths[m->path].name, m->check,
			results_verdict_name(m->verdict), m->reason, m->fix[0] ? ". Fix: " : "",
			m->fix);
	}
}

static void bar(FILE *f, double pct)
{
	int n = (int)lround(pct / 5.0);

	fputc('|', f);
	for (int i = 0; i < 20; i++)
		fputc(i < n ? '#' : ' ', f);
	fputc('|', f);
}

/* One table per path and size. The size at each layer heads it; offered is
 * at the layer the scenario stated its rates in; what arrived is at every
 * layer, from the datagrams a second (layer.h: one datagram, one frame). */
static void sweep_head(FILE *f, const struct results_run *run, unsigned path, uint32_t len,
		       enum layer rate_layer, const char *what)
{
	char off[24];

	fprintf(f, "\n%s, UDP %u B (payload; IPv%d: ip %llu, frame %llu, line %llu B), %s\n",
		run->paths[path].name, len,
		results_path_family(&run->paths[path]) == AF_INET6 ? 6 : 4,
		(unsigned long long)results_layer_bytes(run, path, len, LAYER_IP),
		(unsigned long long)results_layer_bytes(run, path, len, LAYER_FRAME),
		(unsigned long long)results_layer_bytes(run, path, len, LAYER_LINE), what);
	snprintf(off, sizeof(off), "offered %s", layer_name(rate_layer));
	fprintf(f, "  %-16s| %-19s| %-39s| %11s |%-20s| %s\n", "", "", "RX Mbit/s at each layer",
		"", "", "outer datagram, line B");
	fprintf(f, "  %-16s| %-19s| %8s %9s %9s %9s | %11s |%-20s| %s\n", off, "RX/TX pps",
		"payload", "ip", "frame", "line", "delivered %", "", "(measured, x inner)");
}

static void sweep_row(FILE *f, const struct results_run *run, unsigned path, uint32_t len,
		      enum layer rate_layer, double target, double rx_pps, double tx_pps,
		      double pct, bool short_gen, double outer_line, double queued_ms)
{
	char off[32], tx[24], rx[24];
	double rx_bps[LAYER_COUNT];

	for (unsigned i = 0; i < LAYER_COUNT; i++)
		rx_bps[i] = results_layer_bps(run, path, len, rx_pps, (enum layer)i);
	/* the offered payload rate is whole datagrams a second at the layer
	 * stated: back at that layer it is the rate the scenario gave */
	report_run_fmt_rate(
		off, sizeof(off),
		len ? results_layer_bps(run, path, len, target / (8.0 * len), rate_layer) : target);
	report_run_fmt_pps(rx, sizeof(rx), rx_pps);
	report_run_fmt_pps(tx, sizeof(tx), tx_pps);
	fprintf(f, "  %-16s| %8s / %-8s| %8.1f %9.1f %9.1f %9.1f | %11.2f ", off, rx, tx,
		rx_bps[LAYER_PAYLOAD] / 1e6, rx_bps[LAYER_IP] / 1e6, rx_bps[LAYER_FRAME] / 1e6,
		rx_bps[LAYER_LINE] / 1e6, pct);
	bar(f, pct);
	if (outer_line > 0)
		fprintf(f, " %.1f (x%.2f)", outer_line,
			outer_line / (double)results_layer_bytes(run, path, len, LAYER_LINE));
	if (short_gen)
		fprintf(f, " generator short");
	if (queued_ms > 0)
		fprintf(f, " queued %.3g ms", queued_ms);
	fputc('\n', f);
}

static int cmp_target(const void *a, const void *b)
{
	const struct results_trial *x = *(const struct results_trial *const *)a;
	const struct results_trial *y = *(const struct results_trial *const *)b;

	if (x->target_bps != y->target_bps)
		return x->target_bps < y->target_bps ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* A knee search's trials of the first repetition, by offered rate: one
 * search is readable; all of them (every repetition) are in report.md. */
static void knee_trials(FILE *f, const struct report_run *rr, unsigned path, uint32_t len)
{
	const struct results_run *run = rr->run;
	const struct results_trial **v = calloc(run->ntrials ? run->ntrials : 1, sizeof(*v));
	unsigned reps = 0;
	size_t n = 0;
	char what[64];

	if (!v)
		return;
	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];

		if (t->kind != RESULTS_TRIAL_KNEE || t->path != path || t->len != len)
			continue;
		if (t->rep + 1 > reps)
			reps = t->rep + 1;
		if (t->rep == 0 && t->status == 0)
			v[n++] = t;
	}
	qsort(v, n, sizeof(*v), cmp_target);
	if (reps > 1)
		snprintf(what, sizeof(what), "knee search (repetition 1 of %u) by rate", reps);
	else
		snprintf(what, sizeof(what), "knee search trials by rate");
	sweep_head(f, run, path, len, run->knee_rate_layer, what);
	for (size_t i = 0; i < n; i++) {
		struct results_layers l;
		bool outer = results_trial_layers(run, v[i], &l) && l.outer;

		sweep_row(f, run, path, len, run->knee_rate_layer, (double)v[i]->target_bps,
			  (double)v[i]->udp.received_pps, (double)v[i]->udp.sent_pps,
			  results_delivered_pct(&v[i]->udp), v[i]->udp.generator_limited,
			  outer ? l.outer_line_per_datagram : 0, report_run_trial_queued_ms(v[i]));
	}
	free(v);
}

void report_run_term_sweeps(FILE *f, const struct report_run *rr)
{
	const struct results_run *run = rr->run;
	const struct results_sweep_point *prev = NULL;

	for (size_t i = 0; i < rr->sum.nsweep; i++) {
		const struct results_sweep_point *p = &rr->sum.sweep[i];
		bool first = !prev || prev->path != p->path || prev->len != p->len ||
			     prev->kind != p->kind;

		prev = p;
		if (p->kind == RESULTS_TRIAL_KNEE) {
			if (first)
				knee_trials(f, rr, p->path, p->len);
			continue;
		}
		if (first)
			sweep_head(f, run, p->path, p->len, run->sweep_rate_layer, "linear sweep");
		sweep_row(f, run, p->path, p->len, run->sweep_rate_layer, (double)p->target_bps,
			  p->rx_pps.median, p->tx_pps.median, p->delivered_pct.median,
			  p->generator_limited,
			  p->outer_line_per_datagram.n ? p->outer_line_per_datagram.median : 0, 0);
	}
}

void report_run_term(FILE *f, const struct report_run *rr)
{
	head(f, rr->run);
	summary(f, rr);
	knee_table(f, rr);
	mtu_table(f, rr->run);
	report_run_term_sweeps(f, rr);
}
