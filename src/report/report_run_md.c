// SPDX-License-Identifier: MIT
/* report.md: the run as Markdown tables with the plots linked, the scenario
 * verbatim and every trial, so that the file stands on its own. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "report_facts.h"
#include "loss_place.h"
#include "report_load.h"
#include "report_run_breakdown.h"
#include "report_run_limit.h"
#include "run_verdict.h"
#include "report_run.h"

/* Markdown table cells must not contain '|' or newlines. */
static void cell(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '|' || *s == '\n' ? ' ' : *s, f);
}

/* "median (min-max)" with prec decimals, the spread only when there is one. */
static void spread(FILE *f, const struct results_stat *s, double scale, int prec)
{
	fprintf(f, "%.*f", prec, s->median / scale);
	if (s->n > 1 && s->min != s->max)
		fprintf(f, " (%.*f-%.*f)", prec, s->min / scale, prec, s->max / scale);
}

/* A ratio against a lower bound is a bound itself: "<= 0.180"; one of a
 * soft knee's fit to a found knee says so: "0.466 (a fit against a found
 * knee)". */
static void ratio(FILE *f, const struct overhead_row *r)
{
	if (!r || isnan(r->ratio))
		fputs(" - |", f);
	else
		fprintf(f, " %s%.3f%s |", overhead_bound_prefix(overhead_ratio_bound(r)), r->ratio,
			r->base_fit != r->value_fit ? " (a fit against a found knee)" : "");
}

static void head(FILE *f, const struct report_run *rr)
{
	const struct results_run *run = rr->run;
	struct run_verdict v;
	char t[32];

	report_run_fmt_time(t, sizeof(t), run->duration_s);
	fprintf(f, "# ovlperf run: %s\n\n", run->scenario_name);
	if (!run->complete)
		fprintf(f,
			"> **Incomplete run**: %s. The figures below are what was measured "
			"before it stopped.\n\n",
			run->stop_reason[0] ? run->stop_reason : "stopped early");
	/* the verdict first (results/run_verdict.h) */
	results_run_verdict(run, &rr->sum, &v);
	if (v.n) {
		fputs("## Verdict\n\n", f);
		for (unsigned i = 0; i < v.n; i++)
			fprintf(f, "- %s\n", v.line[i]);
		fputc('\n', f);
	}
	fprintf(f, "| | |\n|---|---|\n");
	fprintf(f, "| scenario | `%s` |\n| started (UTC) | %s |\n| duration | %s |\n",
		run->scenario_file, run->started_utc, t);
	fprintf(f, "| trials | %zu |\n| ovlperf | %s (run.json schema %u) |\n", run->ntrials,
		run->version, run->schema);
	fprintf(f, "| kernel | ");
	cell(f, run->host.kernel);
	fprintf(f, " |\n| CPU | ");
	cell(f, run->host.cpu);
	fprintf(f, " x %u |\n", run->host.ncpu);
	if (run->host.client_cpus[0] || run->host.server_cpus[0])
		fprintf(f, "| lab hosts' CPUs | client %s, server %s |\n",
			run->host.client_cpus[0] ? run->host.client_cpus : "any",
			run->host.server_cpus[0] ? run->host.server_cpus : "any");
	fprintf(f, "\n");
	fprintf(f, "## Paths\n\n| path | kind | far end | MTU |\n|---|---|---|---|\n");
	for (unsigned i = 0; i < run->npaths; i++)
		fprintf(f, "| %s | %s | %s | %u |\n", run->paths[i].name,
			results_path_kind_name(run->paths[i].kind), run->paths[i].addr,
			run->paths[i].mtu);
	if (!run->nlinks)
		return;
	/* the lab links under the paths: WAN conditions and how they were made */
	fprintf(f, "\n## Links\n\n| link | hosts | conditions | made by | tbf rate | drop |\n"
		   "|---|---|---|---|---|---|\n");
	for (unsigned i = 0; i < run->nlinks && i < RESULTS_MAX_LINKS; i++) {
		const struct results_link *l = &run->links[i];
		char rate[32] = "-";

		if (l->rate_bps)
			report_run_fmt_rate(rate, sizeof(rate), (double)l->rate_bps);
		fprintf(f, "| %u | %u - %u | ", i, l->a, l->b);
		cell(f, l->conditions[0] ? l->conditions : "none");
		fprintf(f, " | ");
		cell(f, l->conditions[0] ? l->means : "-");
		fprintf(f, " | %s | %.2f %% |\n", rate, l->drop_pct);
	}
}

static void tcp(FILE *f, const struct report_run *rr)
{
	if (!rr->sum.ntcp)
		return;
	fprintf(f, "\n## TCP goodput\n\nMedian of the repetitions, (min-max) when they differ. "
		   "CPU s/Gbit: the test's sender and receiver processes per Gbit moved; host CPU "
		   "s/Gbit: the whole machine's busy time over the measured window (lab runs), "
		   "which includes the overlay's daemons and the kernel's packet work.\n\n");
	fprintf(f, "| path | streams | goodput Mbit/s | vs underlay | MSS | retransmits | "
		   "CPU s/Gbit | host CPU s/Gbit | RTT us |\n");
	fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < rr->sum.ntcp; i++) {
		const struct results_tcp_point *p = &rr->sum.tcp[i];

		fprintf(f, "| %s | %u | ", rr->run->paths[p->path].name, p->streams);
		spread(f, &p->goodput_bps, 1e6, 1);
		fputs(" |", f);
		ratio(f, overhead_find(&rr->ov, p->path, OVERHEAD_TCP_GOODPUT, p->streams));
		fprintf(f, " %u | %.0f | %.3f | ", p->snd_mss, p->retransmits.median,
			p->cpu_s_per_gbit.median);
		if (p->host_cpu_s_per_gbit.n)
			fprintf(f, "%.3f", p->host_cpu_s_per_gbit.median);
		else
			fputs("-", f);
		fprintf(f, " | %.0f |\n", p->rtt_us.median);
	}
}

/* An upper bound over repetitions, "-" when there is none. At the
 * generator's limit it is where the sender fell short, not a loss. */
static void upper(FILE *f, const struct results_stat *s, const char *outcome)
{
	if (!s->n) {
		fputc('-', f);
		return;
	}
	spread(f, s, 1e6, 1);
	if (!strcmp(outcome, "generator-limit"))
		fputs(" (sender's limit)", f);
}

/* One target's lower bound: the rate sent, ">=" when it is only a lower
 * bound, the target beside it; "none" when nothing passed. */
static void knee_lower(FILE *f, const struct results_stat *s, const struct results_stat *target,
		       bool lower_bound, const char *outcome)
{
	if (!s->n) {
		fprintf(f, "none (%s) | - | ", outcome);
		return;
	}
	fputs(lower_bound ? ">= " : "", f);
	spread(f, s, 1e6, 1);
	if (lower_bound)
		fprintf(f, " (%s)", outcome);
	fputs(" | ", f);
	spread(f, target, 1e6, 1);
	fputs(" | ", f);
}

/* One goal's headline and its target (enum results_head): a soft knee's
 * fit with its 90 % interval and the found bound's target beside it, no
 * figure when the path changed between repetitions, else the bound. */
static void knee_head(FILE *f, const struct results_knee_point *p, bool pdr)
{
	const struct results_stat *h = pdr ? &p->pdr_head_bps : &p->ndr_head_bps;

	switch (pdr ? p->pdr_head : p->ndr_head) {
	case RESULTS_HEAD_FIT:
		fprintf(f, "~%.1f (%.1f-%.1f), fitted: a soft knee | ", h->median / 1e6,
			h->min / 1e6, h->max / 1e6);
		spread(f, pdr ? &p->pdr_target_bps : &p->ndr_target_bps, 1e6, 1);
		fputs(" | ", f);
		return;
	case RESULTS_HEAD_CHANGED:
		fprintf(f,
			"no single figure: the path changed between repetitions (p = %.3f) | - "
			"| ",
			p->ndr_fit_reps.p);
		return;
	case RESULTS_HEAD_FOUND:
		break;
	}
	if (pdr)
		knee_lower(f, &p->pdr_bps, &p->pdr_target_bps, p->pdr_lower_bound, p->pdr_outcome);
	else
		knee_lower(f, &p->ndr_bps, &p->ndr_target_bps, p->ndr_lower_bound, p->ndr_outcome);
}

/* Under the knee table: for each point that lost above its NDR, the place
 * that lost most and what would stop it there. */
static void knee_fixes(FILE *f, const struct report_run *rr)
{
	bool head = false;
	char fix[256];

	for (size_t i = 0; i < rr->sum.nknee; i++) {
		const struct results_knee_point *p = &rr->sum.knee[i];
		int best = LOSS_PLACE_COUNT;

		for (int k = 0; k < LOSS_PLACE_COUNT; k++)
			if (loss_place_count(&p->loss_at, (enum loss_place)k) &&
			    (best == LOSS_PLACE_COUNT ||
			     loss_place_count(&p->loss_at, (enum loss_place)k) >
				     loss_place_count(&p->loss_at, (enum loss_place)best)))
				best = k;
		if (best == LOSS_PLACE_COUNT)
			continue;
		if (!head)
			fprintf(f, "\nWhere the loss above the NDR was, and the fix:\n\n");
		head = true;
		loss_place_fix(fix, sizeof(fix), &p->loss_at, (enum loss_place)best);
		fprintf(f, "- %s, %u B: %s: %s\n", rr->run->paths[p->path].name, p->len,
			loss_place_name_at(&p->loss_at, (enum loss_place)best), fix);
	}
}

/* Under the knee table: RFC 9971's conditional throughput and how
 * repeatable each NDR is over the repetitions (a warning, with where the
 * trials that disagreed lost, when it is wider than the width). */
static void knee_repeat(FILE *f, const struct report_run *rr)
{
	bool head = false;

	for (size_t i = 0; i < rr->sum.nknee; i++) {
		const struct results_knee_point *p = &rr->sum.knee[i];
		char ndr[24] = "-", pdr[24] = "-", rep[1024], fit[1024], cut[512], stall[256];

		report_run_knee_repeat(rep, sizeof(rep), p);
		report_run_knee_fit(fit, sizeof(fit), p);
		report_run_knee_cut(cut, sizeof(cut), p);
		report_run_knee_stalls(stall, sizeof(stall), p);
		if (!p->ndr_ct_bps.n && !p->pdr_ct_bps.n && !rep[0] && !fit[0] && !cut[0] &&
		    !stall[0])
			continue;
		if (!head)
			fprintf(f,
				"\nConditional throughput (RFC 9971: the lower bound's load less "
				"the loss its trials stayed within for all but the exceed ratio of "
				"their time) and repeatability:\n\n");
		head = true;
		if (p->ndr_ct_bps.n)
			report_run_fmt_rate(ndr, sizeof(ndr), p->ndr_ct_bps.median);
		if (p->pdr_ct_bps.n)
			report_run_fmt_rate(pdr, sizeof(pdr), p->pdr_ct_bps.median);
		fprintf(f, "- %s, %u B: conditional throughput NDR %s, PDR %s%s%s%s%s%s%s%s%s\n",
			rr->run->paths[p->path].name, p->len, ndr, pdr, rep[0] ? "; " : "", rep,
			fit[0] ? "; NDR " : "", fit, cut[0] ? "; " : "", cut, stall[0] ? "; " : "",
			stall);
	}
}

/* The NDR's lower bound the RFC 2544 way (26.1): frames a second and the
 * rate at every layer, each size at each layer beside it. */
static void knee_layers(FILE *f, const struct report_run *rr)
{
	const struct results_run *run = rr->run;

	fprintf(f, "\n| path | payload bytes | IP bytes | frame bytes | NDR frames/s | payload "
		   "Mbit/s | IP Mbit/s | frame Mbit/s | line Mbit/s | %% of line rate |\n");
	fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < rr->sum.nknee; i++) {
		const struct results_knee_point *p = &rr->sum.knee[i];
		double pps, line;
		char pct[16] = "-";

		if (!p->ndr_bps.n || !p->len)
			continue;
		pps = p->ndr_bps.median / (8.0 * p->len);
		line = results_layer_bps(run, p->path, p->len, pps, LAYER_LINE);
		if (run->line_rate_bps)
			snprintf(pct, sizeof(pct), "%.1f",
				 100.0 * line / (double)run->line_rate_bps);
		fprintf(f, "| %s | %u | %llu | %llu | %s%.0f | %.1f | %.1f | %.1f | %.1f | %s |\n",
			run->paths[p->path].name, p->len,
			(unsigned long long)results_layer_bytes(run, p->path, p->len, LAYER_IP),
			(unsigned long long)results_layer_bytes(run, p->path, p->len, LAYER_FRAME),
			p->ndr_lower_bound ? ">= " : "", pps, p->ndr_bps.median / 1e6,
			results_layer_bps(run, p->path, p->len, pps, LAYER_IP) / 1e6,
			results_layer_bps(run, p->path, p->len, pps, LAYER_FRAME) / 1e6, line / 1e6,
			pct);
	}
}

static const char fit_note[] =
	" `~` marks a soft knee's fitted figure: there each repetition's NDR is where its "
	"search's luck ran out, and the figure is where all its trials put the chance of a "
	"lossy trial at the exceed ratio, with its 90 % interval (the bounds found are in "
	"the target and upper columns and the lines below).";

static bool any_fit(const struct report_run *rr)
{
	for (size_t i = 0; i < rr->sum.nknee; i++)
		if (rr->sum.knee[i].ndr_head == RESULTS_HEAD_FIT ||
		    rr->sum.knee[i].pdr_head == RESULTS_HEAD_FIT)
			return true;
	return false;
}

static void knees(FILE *f, const struct report_run *rr)
{
	if (!rr->sum.nknee)
		return;
	fprintf(f,
		"\n## UDP loss knee\n\nNDR: highest offered rate with no loss. PDR: highest "
		"with loss at most %g %%. The lower bound is the rate the sender achieved in the "
		"trial that decided it (the target the search asked for beside it), the upper "
		"bound the lowest offered rate measured to fail (or the sender's limit); both are "
		"medians over "
		"repetitions, each repetition's pair from that repetition. `>=` marks a lower "
		"bound only (the search passed at max_rate, hit the generator's limit or did "
		"not finish). Bytes are UDP payload, rates payload bit/s; the NDR at the other "
		"layers follows the table.%s\n\n",
		rr->run->pdr_goal_pct, any_fit(rr) ? fit_note : "");
	fprintf(f, "| path | payload bytes | NDR Mbit/s | NDR target | NDR upper | NDR kpps | vs "
		   "underlay | PDR Mbit/s | PDR target | PDR upper | vs underlay | trials | time s "
		   "| loss above the NDR |\n");
	fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
	for (size_t i = 0; i < rr->sum.nknee; i++) {
		const struct results_knee_point *p = &rr->sum.knee[i];
		char where[256];

		fprintf(f, "| %s | %u | ", rr->run->paths[p->path].name, p->len);
		knee_head(f, p, false);
		upper(f, &p->ndr_upper_bps, p->ndr_outcome);
		if (p->ndr_head == RESULTS_HEAD_FIT)
			fprintf(f, " | ~%.1f |", p->ndr_head_bps.median / (8.0 * p->len) / 1e3);
		else if (p->ndr_bps.n && p->ndr_head == RESULTS_HEAD_FOUND)
			fprintf(f, " | %.1f |", p->ndr_bps.median / (8.0 * p->len) / 1e3);
		else
			fputs(" | |", f);
		ratio(f, overhead_find(&rr->ov, p->path, OVERHEAD_UDP_NDR, p->len));
		fputc(' ', f);
		knee_head(f, p, true);
		upper(f, &p->pdr_upper_bps, p->pdr_outcome);
		fputs(" |", f);
		ratio(f, overhead_find(&rr->ov, p->path, OVERHEAD_UDP_PDR, p->len));
		report_run_knee_above(where, sizeof(where), p);
		fprintf(f, " %u | %.1f | %s |\n", p->trials, p->time_s, where);
	}
	knee_layers(f, rr);
	knee_fixes(f, rr);
	knee_repeat(f, rr);
}

static void delays(FILE *f, const struct report_run *rr)
{
	if (!rr->sum.ndelay)
		return;
	fprintf(f, "\n## One-way delay at common loads\n\n");
	fprintf(f, "Each load is the same on every path: a share of the lowest NDR any path "
		   "reached (below its knee a queue barely forms; near it, it grows), or the "
		   "scenario's fixed rate.\n\n");
	fprintf(f, "Of that delay, `receiver socket p99` is the wait in the receiving "
		   "application's sockets (the kernel's arrival stamp to the read): the receiver's "
		   "share, not the path's.\n\n");
	fprintf(f,
		"| path | bytes | load %% of NDR | load Mbit/s | p50 ms | p99 ms | receiver socket "
		"p99 ms | delivered %% | p50 vs underlay | p99 vs underlay |\n"
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < rr->sum.ndelay; i++) {
		const struct results_delay_point *p = &rr->sum.delay[i];

		fprintf(f, "| %s | %u | ", rr->run->paths[p->path].name, p->len);
		if (p->load_pct > 0)
			fprintf(f, "%g", p->load_pct);
		else
			fputs("-", f);
		fprintf(f, " | %.1f | ", (double)p->load_bps / 1e6);
		spread(f, &p->p50_ms, 1, 3);
		fputs(" | ", f);
		spread(f, &p->p99_ms, 1, 3);
		fputs(" | ", f);
		if (p->rx_wait_p99_ms.n)
			spread(f, &p->rx_wait_p99_ms, 1, 3);
		else
			fputs("-", f);
		fprintf(f, " | %.2f |", p->delivered_pct.median);
		ratio(f,
		      overhead_find_load(&rr->ov, p->path, OVERHEAD_OWD_P50, p->len, p->load_bps));
		ratio(f,
		      overhead_find_load(&rr->ov, p->path, OVERHEAD_OWD_P99, p->len, p->load_bps));
		fputc('\n', f);
	}
	if (rr->sum.owd_error_ms > 0)
		fprintf(f,
			"\nThe hosts do not share a clock: each delay is an upper bound, at most "
			"%.3f ms above the true one-way delay (the clock offset is estimated from "
			"a timed echo; differences between delays are not affected).\n",
			rr->sum.owd_error_ms);
}

/* A figure with its unit: Mbit/s for rates, ms, s/Gbit, bytes. */
static void metric_value(char *buf, size_t len, enum overhead_metric m, double v, bool sign)
{
	const char *unit = "s/Gbit";
	int prec = 3;

	switch (m) {
	case OVERHEAD_TCP_GOODPUT:
	case OVERHEAD_UDP_NDR:
	case OVERHEAD_UDP_PDR:
		v /= 1e6;
		prec = 1;
		unit = "Mbit/s";
		break;
	case OVERHEAD_OWD_P50:
	case OVERHEAD_OWD_P99:
		unit = "ms";
		break;
	case OVERHEAD_TCP_MSS:
		prec = 0;
		unit = "B";
		break;
	default:
		break;
	}
	if (sign)
		snprintf(buf, len, "%+.*f %s", prec, v, unit);
	else
		snprintf(buf, len, "%.*f %s", prec, v, unit);
}

/* Where a figure was taken: "4 streams", "1400 bytes", and for a delay the
 * load, "1400 bytes, 90 % of NDR (563.4 Mbit/s)". */
static void overhead_at(char *buf, size_t len, const struct overhead_row *r)
{
	int n = snprintf(buf, len, "%u %s", r->key, overhead_metric_key(r->metric));

	if (n < 0 || (size_t)n >= len || !r->load_bps)
		return;
	if (r->load_pct > 0)
		snprintf(buf + n, len - (size_t)n, ", %g %% of NDR (%.1f Mbit/s)", r->load_pct,
			 (double)r->load_bps / 1e6);
	else
		snprintf(buf + n, len - (size_t)n, ", %.1f Mbit/s", (double)r->load_bps / 1e6);
}

static void overhead(FILE *f, const struct report_run *rr)
{
	if (!rr->ov.n)
		return;
	fprintf(f, "\n## Overhead versus the underlay\n\nratio = overlay / underlay; cost > 0 "
		   "means the overlay is worse (less throughput, more delay or CPU). `>=` marks a "
		   "figure that is "
		   "only a lower bound; the ratio, delta and cost against it are bounds too "
		   "(`<=`, `>=`; `?` when both sides are lower bounds).\n\n");
	fprintf(f, "| path | figure | at | underlay | overlay | ratio | delta | cost %% |\n");
	fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < rr->ov.n; i++) {
		const struct overhead_row *r = &rr->ov.rows[i];
		double c = overhead_cost_pct(r);

		char b[32], v[32], d[32], at[64];

		const char *rb = overhead_bound_prefix(overhead_ratio_bound(r));

		metric_value(b, sizeof(b), r->metric, r->base, false);
		metric_value(v, sizeof(v), r->metric, r->value, false);
		metric_value(d, sizeof(d), r->metric, r->delta, true);
		overhead_at(at, sizeof(at), r);
		/* the delta is bounded as the ratio is */
		fprintf(f, "| %s | %s | %s | %s%s | %s%s | ", rr->run->paths[r->path].name,
			overhead_metric_label(r->metric), at, overhead_bound_prefix(r->base_bound),
			b, overhead_bound_prefix(r->value_bound), v);
		if (isnan(r->ratio))
			fputs("- | ", f);
		else
			fprintf(f, "%s%.3f | ", rb, r->ratio);
		fprintf(f, "%s%s | ", rb, d);
		if (isnan(c) || r->metric == OVERHEAD_TCP_MSS)
			fputs("- |\n", f);
		else
			fprintf(f, "%s%+.1f |\n", overhead_bound_prefix(overhead_cost_bound(r)), c);
	}
}

/* Offered at the layer the scenario stated its rates in, what arrived at
 * every layer (one datagram, one frame), each size at each layer in the
 * heading. */
static void sweep_head(FILE *f, const struct results_run *run, const struct results_sweep_point *p)
{
	bool sweep = p->kind == RESULTS_TRIAL_SWEEP;

	fprintf(f, "\n### %s, UDP %u B, %s\n\n", run->paths[p->path].name, p->len,
		sweep ? "linear sweep" : "knee search trials");
	fprintf(f,
		"Each datagram: %u B payload, %llu B IP packet (IPv%d), %llu B frame, %llu B on "
		"the line.\n\n",
		p->len, (unsigned long long)results_layer_bytes(run, p->path, p->len, LAYER_IP),
		results_path_family(&run->paths[p->path]) == AF_INET6 ? 6 : 4,
		(unsigned long long)results_layer_bytes(run, p->path, p->len, LAYER_FRAME),
		(unsigned long long)results_layer_bytes(run, p->path, p->len, LAYER_LINE));
	fprintf(f,
		"| offered Mbit/s (%s) | TX pps | RX pps | RX Mbit/s payload | RX Mbit/s IP | RX "
		"Mbit/s frame | RX Mbit/s line | delivered %% | OWD p50 ms | OWD p99 ms | outer "
		"line "
		"B per outer datagram (measured) | note |\n",
		layer_name(sweep ? run->sweep_rate_layer : run->knee_rate_layer));
	fprintf(f, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
}

static void sweeps(FILE *f, const struct report_run *rr)
{
	const struct results_run *run = rr->run;
	const struct results_sweep_point *prev = NULL;

	for (size_t i = 0; i < rr->sum.nsweep; i++) {
		const struct results_sweep_point *p = &rr->sum.sweep[i];
		enum layer rl = p->kind == RESULTS_TRIAL_SWEEP ? run->sweep_rate_layer
							       : run->knee_rate_layer;
		double rx = p->rx_bps.median / (8.0 * p->len);
		char outer[24] = "-";

		if (p->outer_line_per_datagram.n)
			snprintf(outer, sizeof(outer), "%.1f", p->outer_line_per_datagram.median);
		if (!prev || prev->path != p->path || prev->len != p->len || prev->kind != p->kind)
			sweep_head(f, run, p);
		prev = p;
		fprintf(f,
			"| %.1f | %.0f | %.0f | %.1f | %.1f | %.1f | %.1f | %.2f | %.3f | %.3f | "
			"%s | "
			"%s |\n",
			results_layer_bps(run, p->path, p->len,
					  (double)p->target_bps / (8.0 * p->len), rl) /
				1e6,
			p->tx_pps.median, p->rx_pps.median, p->rx_bps.median / 1e6,
			results_layer_bps(run, p->path, p->len, rx, LAYER_IP) / 1e6,
			results_layer_bps(run, p->path, p->len, rx, LAYER_FRAME) / 1e6,
			results_layer_bps(run, p->path, p->len, rx, LAYER_LINE) / 1e6,
			p->delivered_pct.median, p->owd_p50_ms.median, p->owd_p99_ms.median, outer,
			p->generator_limited ? "generator short" : "");
	}
}

static void mtu(FILE *f, const struct results_run *run)
{
	if (!run->nmtu)
		return;
	fprintf(f, "\n## MTU / MSS checks\n\n| path | check | verdict | value | reason | fix |\n"
		   "|---|---|---|---:|---|---|\n");
	for (size_t i = 0; i < run->nmtu; i++) {
		const struct results_mtu_check *m = &run->mtu[i];

		fprintf(f, "| %s | %s | **%s** | %u | ", run->paths[m->path].name, m->check,
			results_verdict_name(m->verdict), m->value);
		cell(f, m->reason);
		fputs(" | ", f);
		cell(f, m->fix);
		fputs(" |\n", f);
	}
}

static void trials(FILE *f, const struct results_run *run)
{
	fprintf(f, "\n## Every trial\n\nIn the order they ran (paths interleaved).\n\n");
	fprintf(f, "| # | path | kind | rep | streams | bytes | offered Mbit/s | result | "
		   "status |\n|---:|---|---|---:|---:|---:|---:|---|---|\n");
	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];

		fprintf(f, "| %u | %s | %s | %u | %u | %u | %.1f | ", t->seq,
			run->paths[t->path].name, results_trial_kind_name(t->kind), t->rep + 1,
			t->streams, t->len, (double)t->target_bps / 1e6);
		if (t->kind == RESULTS_TRIAL_TCP)
			fprintf(f, "%.1f Mbit/s, %u retrans", (double)t->tcp.goodput_bps / 1e6,
				t->tcp.sender.retransmits);
		else {
			fprintf(f, "%.2f %% delivered, %.1f Mbit/s%s",
				results_delivered_pct(&t->udp), (double)t->udp.received_bps / 1e6,
				t->udp.generator_limited ? ", generator short" : "");
			if (report_run_trial_queued_ms(t) > 0)
				fprintf(f, ", queued %.3g ms", report_run_trial_queued_ms(t));
		}
		fputs(" | ", f);
		if (t->status)
			cell(f, t->error[0] ? t->error : "failed");
		else
			fputs("ok", f);
		fputs(" |\n", f);
	}
}

int report_run_md(FILE *f, const struct report_run *rr, const struct plot_set *set)
{
	head(f, rr);
	overhead(f, rr);
	tcp(f, rr);
	report_run_limits_md(f, rr);
	report_run_breakdown_md(f, rr);
	report_facts_run(f, rr, true);
	knees(f, rr);
	delays(f, rr);
	mtu(f, rr->run);
	if (set && (set->n || set->note[0])) {
		fprintf(f, "\n## Plots\n\n");
		for (unsigned i = 0; i < set->n; i++)
			fprintf(f, "![%s](%s)\n\n", set->title[i], set->file[i]);
		if (set->note[0])
			fprintf(f, "%s\n", set->note);
	}
	if (rr->sum.nsweep)
		fprintf(f, "\n## UDP offered load\n");
	sweeps(f, rr);
	trials(f, rr->run);
	if (rr->run->scenario_text) {
		fprintf(f, "\n## Scenario\n\n```ini\n%s%s```\n", rr->run->scenario_text,
			strlen(rr->run->scenario_text) &&
					rr->run->scenario_text[strlen(rr->run->scenario_text) -
							       1] == '\n'
				? ""
				: "\n");
	}
	return ferror(f) ? -EIO : 0;
}
