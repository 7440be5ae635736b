// SPDX-License-Identifier: MIT
/*
 * summary.csv: one row per figure, path and key, for spreadsheets:
 *   metric,path,kind,streams,bytes,offered_bps,n,median,min,max,
 *   underlay_median,ratio,cost_pct,bound,underlay_bound,ratio_bound,cost_bound,limit
 * Rates in bit/s, delays in ms, CPU in s/Gbit. Empty cells where a column
 * does not apply. bound and underlay_bound say "exact", "lower_bound" (a
 * knee search that passed at max_rate, hit the generator's limit or did not
 * finish) or "upper_bound" (it lost even at its minimum rate: the figure is
 * that rate); ratio_bound and cost_bound "exact", "at_most", "at_least" or
 * "unknown", as a bound on either side makes them bounds. A UDP size that
 * crossed a path in IP fragments has a udp_fragments_per_datagram row, so
 * that no figure measured with fragmented datagrams goes unmarked. limit,
 * on the tcp_goodput_bps and udp_ndr_bps rows, is what limited the figure
 * (results/run_limit.h: "receive window", "overlay CPU", ...).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_csv.h"
#include "report_run.h"
#include "run_limit.h"

/* prec 0: an integer; else up to prec significant digits, no exponent for
 * ordinary magnitudes. */
static const char *num(char *buf, size_t len, double v, int prec)
{
	if (prec == 0)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.*g", prec + 4, v);
	return buf;
}

/* The limit column of a TCP goodput or NDR row ("" elsewhere). */
static void limit_cell(FILE *f, const struct report_run *rr, const char *metric, unsigned path,
		       unsigned streams, unsigned bytes)
{
	struct results_tcp_limit l;
	struct ndr_limit_verdict v;

	if (!strcmp(metric, "tcp_goodput_bps") &&
	    results_tcp_limit_line(rr->run, path, streams, &l))
		report_csv_field(f, tcp_limit_name(l.v.limit));
	else if (!strcmp(metric, "udp_ndr_bps") &&
		 results_ndr_limit(rr->run, &rr->sum, path, bytes, &v))
		report_csv_field(f, ndr_limit_name(v.limit));
}

/* A figure's bound column: a knee's headline when it is no found bound
 * ("fit", or "changed": the path changed between repetitions, no
 * figure), the rest their bound. */
static const char *bound_cell(enum overhead_bound b, enum results_head h)
{
	return h != RESULTS_HEAD_FOUND ? results_head_name(h) : overhead_figure_bound_name(b);
}

static void row_fit(FILE *f, const struct report_run *rr, const char *metric, unsigned path,
		    unsigned streams, unsigned bytes, uint64_t offered,
		    const struct results_stat *s, const struct overhead_row *ov,
		    enum overhead_bound bound, enum results_head head)
{
	const struct results_path *p = &rr->run->paths[path];
	char a[48];

	fprintf(f, "%s,", metric);
	/* Path names are [a-z0-9_-] by the scenario schema, but a run.json may
	 * come from anywhere: quoted when a cell would need it. */
	report_csv_field(f, p->name);
	fprintf(f, ",%s,", results_path_kind_name(p->kind));
	if (streams)
		fprintf(f, "%u", streams);
	fputc(',', f);
	if (bytes)
		fprintf(f, "%u", bytes);
	fputc(',', f);
	if (offered)
		fprintf(f, "%llu", (unsigned long long)offered);
	/* Rates as whole bit/s (a spreadsheet should not get 1.09e+10). */
	int prec = strstr(metric, "_bps") ? 0 : 6;

	fprintf(f, ",%u,%s,", s->n, num(a, sizeof(a), s->median, prec));
	fprintf(f, "%s,", num(a, sizeof(a), s->min, prec));
	fprintf(f, "%s,", num(a, sizeof(a), s->max, prec));
	if (ov) {
		double c = overhead_cost_pct(ov);

		fprintf(f, "%s,", num(a, sizeof(a), ov->base, prec));
		if (!isnan(ov->ratio))
			fprintf(f, "%.6g", ov->ratio);
		fputc(',', f);
		if (!isnan(c) && ov->metric != OVERHEAD_TCP_MSS)
			fprintf(f, "%.4g", c);
		fprintf(f, ",%s,%s,%s,%s,", bound_cell(bound, head),
			bound_cell(ov->base_bound,
				   ov->base_fit ? RESULTS_HEAD_FIT : RESULTS_HEAD_FOUND),
			overhead_bound_name(overhead_ratio_bound(ov)),
			overhead_bound_name(overhead_cost_bound(ov)));
	} else {
		fprintf(f, ",,,%s,,,,", bound_cell(bound, head));
	}
	limit_cell(f, rr, metric, path, streams, bytes);
	fputc('\n', f);
}

static void row(FILE *f, const struct report_run *rr, const char *metric, unsigned path,
		unsigned streams, unsigned bytes, uint64_t offered, const struct results_stat *s,
		const struct overhead_row *ov, enum overhead_bound bound)
{
	row_fit(f, rr, metric, path, streams, bytes, offered, s, ov, bound, RESULTS_HEAD_FOUND);
}

static struct results_stat scaled(const struct results_stat *s, double k)
{
	return (struct results_stat){
		.n = s->n, .median = s->median * k, .min = s->min * k, .max = s->max * k
	};
}

/* A payload rate's rows at the other layers: datagrams a second
 * (PREFIX_pps), and bit/s of IP packets, Ethernet frames and the line
 * (PREFIX_ip_bps ...). The bytes column stays the payload's. */
static void layer_rows(FILE *f, const struct report_run *rr, const char *prefix, unsigned path,
		       uint32_t len, uint64_t offered, const struct results_stat *payload_bps,
		       enum overhead_bound b)
{
	struct results_stat st;
	char m[48];

	if (!len || !payload_bps->n)
		return;
	snprintf(m, sizeof(m), "%s_pps", prefix);
	st = scaled(payload_bps, 1.0 / (8.0 * len));
	row(f, rr, m, path, 0, len, offered, &st, NULL, b);
	for (unsigned i = LAYER_IP; i < LAYER_COUNT; i++) {
		enum layer l = (enum layer)i;

		snprintf(m, sizeof(m), "%s_%s_bps", prefix, layer_name(l));
		st = scaled(payload_bps, (double)results_layer_bytes(rr->run, path, len, l) / len);
		row(f, rr, m, path, 0, len, offered, &st, NULL, b);
	}
}

/* A knee's rows: the NDR and PDR (the rate sent; below the search's
 * minimum the rate it lost at, an upper bound), their targets and upper
 * bounds. */
static void knee_rows(FILE *f, const struct report_run *rr, const struct results_knee_point *p)
{
	static const struct results_stat none;

	for (int pdr = 0; pdr < 2; pdr++) {
		const struct results_stat *v = &none;
		enum overhead_bound b = OVERHEAD_EXACT;
		char m[32];

		overhead_knee_figure(p, pdr, &v, &b);
		snprintf(m, sizeof(m), "udp_%s_bps", pdr ? "pdr" : "ndr");
		row_fit(f, rr, m, p->path, 0, p->len, 0, v,
			overhead_find(&rr->ov, p->path, pdr ? OVERHEAD_UDP_PDR : OVERHEAD_UDP_NDR,
				      p->len),
			b, pdr ? p->pdr_head : p->ndr_head);
		snprintf(m, sizeof(m), "udp_%s", pdr ? "pdr" : "ndr");
		layer_rows(f, rr, m, p->path, p->len, 0, v, b);
		snprintf(m, sizeof(m), "udp_%s_target_bps", pdr ? "pdr" : "ndr");
		row(f, rr, m, p->path, 0, p->len, 0, pdr ? &p->pdr_target_bps : &p->ndr_target_bps,
		    NULL, b == OVERHEAD_AT_MOST ? OVERHEAD_EXACT : b);
		snprintf(m, sizeof(m), "udp_%s_upper_bps", pdr ? "pdr" : "ndr");
		row(f, rr, m, p->path, 0, p->len, 0, pdr ? &p->pdr_upper_bps : &p->ndr_upper_bps,
		    NULL, OVERHEAD_EXACT);
	}
}

/* One row per path and UDP size whose datagrams left in IP fragments: the
 * most fragments per datagram any of its trials saw. */
static void fragment_rows(FILE *f, const struct report_run *rr)
{
	const struct results_run *run = rr->run;

	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];
		struct results_stat st = { 0 };
		bool first = true;

		if (t->kind == RESULTS_TRIAL_TCP || t->udp.fragments <= 1)
			continue;
		for (size_t k = 0; k < i && first; k++) {
			const struct results_trial *o = &run->trials[k];

			if (o->kind != RESULTS_TRIAL_TCP && o->path == t->path &&
			    o->len == t->len && o->udp.fragments > 1)
				first = false;
		}
		if (!first)
			continue;
		for (size_t k = i; k < run->ntrials; k++) {
			const struct results_trial *o = &run->trials[k];

			if (o->kind == RESULTS_TRIAL_TCP || o->path != t->path || o->len != t->len)
				continue;
			st.n++;
			if (o->udp.fragments > st.max)
				st.max = st.median = o->udp.fragments;
		}
		st.min = st.max;
		row(f, rr, "udp_fragments_per_datagram", t->path, 0, t->len, 0, &st, NULL,
		    OVERHEAD_EXACT);
	}
}

/* A lab link's conditions as rows: metric link_<a_to_b|b_to_a>_<what>, the
 * link ("link0") in the path column, how it was made in the kind column. */
static void link_rows(FILE *f, const struct results_run *run)
{
	static const char *const dirs[2] = { "a_to_b", "b_to_a" };

	for (unsigned i = 0; i < run->nlinks && i < RESULTS_MAX_LINKS; i++) {
		const struct results_link *l = &run->links[i];

		for (unsigned d = 0; d < 2 && l->conditions[0]; d++) {
			const struct results_link_dir *x = &l->dir[d];
			const struct {
				const char *what;
				double v;
			} v[] = { { "delay_ms", x->delay_ns / 1e6 },
				  { "jitter_ms", x->jitter_ns / 1e6 },
				  { "loss_pct", x->loss_pct },
				  { "loss_burst_p_pct", x->loss_burst_p_pct },
				  { "loss_burst_r_pct", x->loss_burst_r_pct },
				  { "reorder_pct", x->reorder_pct } };

			for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
				fprintf(f, "link_%s_%s,link%u,", dirs[d], v[k].what, i);
				report_csv_field(f, l->means);
				fprintf(f, ",,,,1,%.6g,%.6g,%.6g,,,,%s,,,\n", v[k].v, v[k].v,
					v[k].v, overhead_figure_bound_name(OVERHEAD_EXACT));
			}
		}
	}
}

int report_run_csv(FILE *f, const struct report_run *rr)
{
	const struct results_summary *s = &rr->sum;

	fprintf(f, "metric,path,kind,streams,bytes,offered_bps,n,median,min,max,"
		   "underlay_median,ratio,cost_pct,bound,underlay_bound,ratio_bound,cost_bound,"
		   "limit\n");
	for (size_t i = 0; i < s->ntcp; i++) {
		const struct results_tcp_point *p = &s->tcp[i];
		struct results_stat mss = { .n = p->goodput_bps.n,
					    .median = p->snd_mss,
					    .min = p->snd_mss,
					    .max = p->snd_mss };

		row(f, rr, "tcp_goodput_bps", p->path, p->streams, 0, 0, &p->goodput_bps,
		    overhead_find(&rr->ov, p->path, OVERHEAD_TCP_GOODPUT, p->streams),
		    OVERHEAD_EXACT);
		row(f, rr, "cpu_s_per_gbit", p->path, p->streams, 0, 0, &p->cpu_s_per_gbit,
		    overhead_find(&rr->ov, p->path, OVERHEAD_CPU_PER_GBIT, p->streams),
		    OVERHEAD_EXACT);
		if (p->host_cpu_s_per_gbit.n)
			row(f, rr, "host_cpu_s_per_gbit", p->path, p->streams, 0, 0,
			    &p->host_cpu_s_per_gbit,
			    overhead_find(&rr->ov, p->path, OVERHEAD_HOST_CPU_PER_GBIT, p->streams),
			    OVERHEAD_EXACT);
		row(f, rr, "tcp_retransmits", p->path, p->streams, 0, 0, &p->retransmits, NULL,
		    false);
		row(f, rr, "tcp_mss", p->path, p->streams, 0, 0, &mss,
		    overhead_find(&rr->ov, p->path, OVERHEAD_TCP_MSS, p->streams), OVERHEAD_EXACT);
	}
	for (size_t i = 0; i < s->nknee; i++)
		knee_rows(f, rr, &s->knee[i]);
	for (size_t i = 0; i < s->ndelay; i++) {
		const struct results_delay_point *p = &s->delay[i];

		row(f, rr, "owd_p50_ms", p->path, 0, p->len, p->load_bps, &p->p50_ms,
		    overhead_find_load(&rr->ov, p->path, OVERHEAD_OWD_P50, p->len, p->load_bps),
		    OVERHEAD_EXACT);
		row(f, rr, "owd_p99_ms", p->path, 0, p->len, p->load_bps, &p->p99_ms,
		    overhead_find_load(&rr->ov, p->path, OVERHEAD_OWD_P99, p->len, p->load_bps),
		    OVERHEAD_EXACT);
		if (p->rx_wait_p99_ms.n)
			row(f, rr, "rx_wait_p99_ms", p->path, 0, p->len, p->load_bps,
			    &p->rx_wait_p99_ms, NULL, false);
	}
	for (size_t i = 0; i < s->nsweep; i++) {
		const struct results_sweep_point *p = &s->sweep[i];
		const char *m = p->kind == RESULTS_TRIAL_SWEEP ? "sweep_delivered_pct"
							       : "knee_trial_delivered_pct";

		row(f, rr, m, p->path, 0, p->len, p->target_bps, &p->delivered_pct, NULL,
		    OVERHEAD_EXACT);
		m = p->kind == RESULTS_TRIAL_SWEEP ? "sweep_rx_bps" : "knee_trial_rx_bps";
		row(f, rr, m, p->path, 0, p->len, p->target_bps, &p->rx_bps, NULL, OVERHEAD_EXACT);
		layer_rows(f, rr, p->kind == RESULTS_TRIAL_SWEEP ? "sweep_rx" : "knee_trial_rx",
			   p->path, p->len, p->target_bps, &p->rx_bps, OVERHEAD_EXACT);
		if (p->outer_line_per_datagram.n)
			row(f, rr,
			    p->kind == RESULTS_TRIAL_SWEEP
				    ? "sweep_outer_line_bytes_per_outer_datagram"
				    : "knee_trial_outer_line_bytes_per_outer_datagram",
			    p->path, 0, p->len, p->target_bps, &p->outer_line_per_datagram, NULL,
			    OVERHEAD_EXACT);
	}
	fragment_rows(f, rr);
	link_rows(f, rr->run);
	return ferror(f) ? -EIO : 0;
}
