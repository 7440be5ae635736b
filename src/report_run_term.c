// SPDX-License-Identifier: MIT
/* The terminal summary of a run, and the formatting helpers all run printers
 * share. */
#include <math.h>
#include <stdio.h>
#include <string.h>

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

void report_run_fmt_rate(char *buf, size_t len, double bps)
{
	if (bps >= 1e9)
		snprintf(buf, len, "%.3g Gbit/s", bps / 1e9);
	else if (bps >= 1e6)
		snprintf(buf, len, "%.4g Mbit/s", bps / 1e6);
	else if (bps >= 1e3)
		snprintf(buf, len, "%.4g kbit/s", bps / 1e3);
	else
		snprintf(buf, len, "%.0f bit/s", bps);
}

void report_run_fmt_pps(char *buf, size_t len, double pps)
{
	if (pps >= 1e6)
		snprintf(buf, len, "%.3gM", pps / 1e6);
	else if (pps >= 1e4)
		snprintf(buf, len, "%.0fk", pps / 1e3);
	else
		snprintf(buf, len, "%.0f", pps);
}

void report_run_fmt_time(char *buf, size_t len, double s)
{
	if (s >= 60)
		snprintf(buf, len, "%um%02us", (unsigned)(s / 60), (unsigned)fmod(s, 60));
	else
		snprintf(buf, len, "%.1fs", s);
}

void report_run_loss_where(char *buf, size_t len, const struct loss_attrib *l)
{
	const struct {
		const char *name;
		uint64_t n;
	} at[] = {
		{ "network", l->network },
		{ "receiver socket buffer", l->receiver_rcvbuf + l->receiver_socket },
		{ "receiver UDP errors", l->receiver_inerrors },
		{ "receiver interface", l->receiver_link },
		{ "sender socket buffer", l->sender_sndbuf },
		{ "sender interface", l->sender_link },
	};
	bool used[6] = { false };
	uint64_t total = 0;
	size_t off = 0;

	for (size_t i = 0; i < 6; i++)
		total += at[i].n;
	buf[0] = '\0';
	if (!total) {
		snprintf(buf, len, "no loss counted");
		return;
	}
	for (size_t k = 0; k < 6; k++) {
		size_t best = 6;
		int w;

		for (size_t i = 0; i < 6; i++)
			if (!used[i] && at[i].n && (best == 6 || at[i].n > at[best].n))
				best = i;
		if (best == 6)
			break;
		used[best] = true;
		w = snprintf(buf + off, len - off, "%s%s %.0f%%", off ? ", " : "", at[best].name,
			     100.0 * (double)at[best].n / (double)total);
		if (w < 0 || (size_t)w >= len - off)
			break;
		off += (size_t)w;
	}
}

static void stat_rate(char *buf, size_t len, const struct results_stat *s)
{
	char m[32], lo[32], hi[32];

	if (!s->n) {
		snprintf(buf, len, "-");
		return;
	}
	report_run_fmt_rate(m, sizeof(m), s->median);
	if (s->n == 1 || s->min == s->max) {
		snprintf(buf, len, "%s", m);
		return;
	}
	snprintf(lo, sizeof(lo), "%.4g", s->min / 1e6);
	snprintf(hi, sizeof(hi), "%.4g", s->max / 1e6);
	/* A cut figure in a table is acceptable; the return value says so. */
	if (snprintf(buf, len, "%s [%s-%s M]", m, lo, hi) >= (int)len)
		buf[len - 1] = '\0';
}

static const struct overhead_row *ov_find(const struct report_run *rr, unsigned path,
					  enum overhead_metric m, unsigned key)
{
	for (size_t i = 0; i < rr->ov.n; i++)
		if (rr->ov.rows[i].path == path && rr->ov.rows[i].metric == m &&
		    rr->ov.rows[i].key == key)
			return &rr->ov.rows[i];
	return NULL;
}

static void ratio_text(char *buf, size_t len, const struct overhead_row *r)
{
	if (!r || isnan(r->ratio))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "x%.2f", r->ratio);
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
	fprintf(f, "  %s | %s x%u | started %s\n", run->host.kernel, run->host.cpu,
		run->host.ncpu, run->started_utc);
	for (unsigned i = 0; i < run->npaths; i++)
		fprintf(f, "  path %-12s %-8s %s%s%.0u\n", run->paths[i].name,
			results_path_kind_name(run->paths[i].kind), run->paths[i].addr,
			run->paths[i].mtu ? "  mtu " : "", run->paths[i].mtu);
}

static void tcp_table(FILE *f, const struct report_run *rr)
{
	const struct results_run *run = rr->run;
	int u = results_underlay(run);

	if (!rr->sum.ntcp)
		return;
	fprintf(f, "\nTCP goodput, median [min-max] of the repetitions\n");
	fprintf(f, "  %-12s %7s  %-30s %8s  %5s  %7s  %s\n", "path", "streams", "goodput",
		"vs under", "MSS", "retrans", "CPU s/Gbit");
	for (size_t i = 0; i < rr->sum.ntcp; i++) {
		const struct results_tcp_point *p = &rr->sum.tcp[i];
		char g[64], r[16];

		stat_rate(g, sizeof(g), &p->goodput_bps);
		if ((int)p->path == u)
			snprintf(r, sizeof(r), "=");
		else
			ratio_text(r, sizeof(r), ov_find(rr, p->path, OVERHEAD_TCP_GOODPUT, p->streams));
		fprintf(f, "  %-12s %7u  %-30s %8s  %5u  %7.0f  %.2f", run->paths[p->path].name,
			p->streams, g, r, p->snd_mss, p->retransmits.median,
			p->cpu_s_per_gbit.median);
		if (p->host_cpu_s_per_gbit.n)
			fprintf(f, " (host %.2f)", p->host_cpu_s_per_gbit.median);
		fputc('\n', f);
	}
}

/* An NDR or PDR as the search ended: a value when it found a bound, else
 * what limits it ("< 10 Mbit/s" below the minimum rate, ">= 2 Gbit/s" when
 * even the maximum passed). */
static void knee_cell(char *buf, size_t len, const struct results_stat *s, const char *outcome,
		      uint64_t upper, bool spread)
{
	char v[64];

	if (!s->n) {
		if (!strcmp(outcome, "below-min") && upper) {
			report_run_fmt_rate(v, sizeof(v), (double)upper);
			snprintf(buf, len, "< %s (below-min)", v);
		} else {
			snprintf(buf, len, "none (%s)", outcome[0] ? outcome : "?");
		}
		return;
	}
	if (spread)
		stat_rate(v, sizeof(v), s);
	else
		report_run_fmt_rate(v, sizeof(v), s->median);
	if (!strcmp(outcome, "above-max") || !strcmp(outcome, "generator-limit"))
		snprintf(buf, len, ">= %s (%s)", v, outcome);
	else
		snprintf(buf, len, "%s", v);
}

static void knee_table(FILE *f, const struct report_run *rr)
{
	const struct results_run *run = rr->run;
	int u = results_underlay(run);

	if (!rr->sum.nknee)
		return;
	fprintf(f, "\nUDP loss knee: NDR = no loss, PDR = loss <= %g%%\n", run->pdr_goal_pct);
	fprintf(f, "  %-12s %6s  %-28s %8s  %-20s %8s  %6s %7s  %s\n", "path", "bytes", "NDR",
		"vs under", "PDR", "vs under", "trials", "time", "loss above the NDR");
	for (size_t i = 0; i < rr->sum.nknee; i++) {
		const struct results_knee_point *p = &rr->sum.knee[i];
		char ndr[96], pdr[64], r1[16], r2[16], t[16], where[128];

		knee_cell(ndr, sizeof(ndr), &p->ndr_bps, p->ndr_outcome, p->ndr_upper_bps, true);
		knee_cell(pdr, sizeof(pdr), &p->pdr_bps, p->pdr_outcome, p->pdr_upper_bps, false);
		if ((int)p->path == u) {
			snprintf(r1, sizeof(r1), "=");
			snprintf(r2, sizeof(r2), "=");
		} else {
			ratio_text(r1, sizeof(r1), ov_find(rr, p->path, OVERHEAD_UDP_NDR, p->len));
			ratio_text(r2, sizeof(r2), ov_find(rr, p->path, OVERHEAD_UDP_PDR, p->len));
		}
		report_run_fmt_time(t, sizeof(t), p->time_s);
		report_run_loss_where(where, sizeof(where), &p->loss_at);
		fprintf(f, "  %-12s %6u  %-28s %8s  %-20s %8s  %6u %7s  %s\n",
			run->paths[p->path].name, p->len, ndr, r1, pdr, r2, p->trials, t, where);
	}
}

static void delay_table(FILE *f, const struct report_run *rr)
{
	const struct results_run *run = rr->run;

	if (!rr->sum.ndelay)
		return;
	fprintf(f, "\nOne-way delay at a common load\n");
	fprintf(f, "  %-12s %6s  %-14s %10s %10s  %s\n", "path", "bytes", "load", "p50 ms",
		"p99 ms", "vs under (p50/p99)");
	for (size_t i = 0; i < rr->sum.ndelay; i++) {
		const struct results_delay_point *p = &rr->sum.delay[i];
		char load[32], r1[16], r2[16];

		report_run_fmt_rate(load, sizeof(load), (double)p->load_bps);
		ratio_text(r1, sizeof(r1), ov_find(rr, p->path, OVERHEAD_OWD_P50, p->len));
		ratio_text(r2, sizeof(r2), ov_find(rr, p->path, OVERHEAD_OWD_P99, p->len));
		fprintf(f, "  %-12s %6u  %-14s %10.3f %10.3f  %s / %s\n", run->paths[p->path].name,
			p->len, load, p->p50_ms.median, p->p99_ms.median, r1, r2);
	}
}

static void overhead_table(FILE *f, const struct report_run *rr)
{
	const struct results_run *run = rr->run;

	if (!rr->ov.n)
		return;
	fprintf(f, "\nOverhead versus the underlay (cost > 0: the overlay is worse)\n");
	fprintf(f, "  %-12s %-16s %9s  %14s %14s %7s %8s\n", "path", "figure", "at", "underlay",
		"overlay", "ratio", "cost");
	for (size_t i = 0; i < rr->ov.n; i++) {
		const struct overhead_row *r = &rr->ov.rows[i];
		char at[24], b[32], v[32], cost[16];
		double c = overhead_cost_pct(r);

		snprintf(at, sizeof(at), "%u %s", r->key,
			 !strcmp(overhead_metric_key(r->metric), "streams") ? "str" : "B");
		if (r->metric == OVERHEAD_TCP_GOODPUT || r->metric == OVERHEAD_UDP_NDR ||
		    r->metric == OVERHEAD_UDP_PDR) {
			report_run_fmt_rate(b, sizeof(b), r->base);
			report_run_fmt_rate(v, sizeof(v), r->value);
		} else {
			snprintf(b, sizeof(b), "%.4g", r->base);
			snprintf(v, sizeof(v), "%.4g", r->value);
		}
		if (r->metric == OVERHEAD_TCP_MSS)
			snprintf(cost, sizeof(cost), "%+.0f B", r->delta);
		else if (isnan(c))
			snprintf(cost, sizeof(cost), "-");
		else
			snprintf(cost, sizeof(cost), "%+.1f%%", c);
		fprintf(f, "  %-12s %-16s %9s  %14s %14s %7.3f %8s\n", run->paths[r->path].name,
			overhead_metric_label(r->metric), at, b, v, r->ratio, cost);
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

void report_run_term_sweeps(FILE *f, const struct report_run *rr)
{
	const struct results_run *run = rr->run;
	const struct results_sweep_point *prev = NULL;

	for (size_t i = 0; i < rr->sum.nsweep; i++) {
		const struct results_sweep_point *p = &rr->sum.sweep[i];
		char off[32], tx[24], rx[24];

		if (!prev || prev->path != p->path || prev->len != p->len || prev->kind != p->kind) {
			fprintf(f, "\n%s, UDP %u B, %s\n", run->paths[p->path].name, p->len,
				p->kind == RESULTS_TRIAL_SWEEP ? "linear sweep"
							       : "knee search trials by rate");
			fprintf(f, "  %-14s| %-19s| %9s | %11s |%-20s|\n", "offered",
				"RX/TX pps", "Mbit/s", "delivered %", "");
		}
		prev = p;
		report_run_fmt_rate(off, sizeof(off), (double)p->target_bps);
		report_run_fmt_pps(rx, sizeof(rx), p->rx_pps.median);
		report_run_fmt_pps(tx, sizeof(tx), p->tx_pps.median);
		fprintf(f, "  %-14s| %8s / %-8s| %9.1f | %11.2f ", off, rx, tx,
			p->rx_bps.median / 1e6, p->delivered_pct.median);
		bar(f, p->delivered_pct.median);
		if (p->generator_limited)
			fprintf(f, " generator short");
		fputc('\n', f);
	}
}

void report_run_term(FILE *f, const struct report_run *rr)
{
	head(f, rr->run);
	tcp_table(f, rr);
	knee_table(f, rr);
	delay_table(f, rr);
	overhead_table(f, rr);
	mtu_table(f, rr->run);
	report_run_term_sweeps(f, rr);
}
