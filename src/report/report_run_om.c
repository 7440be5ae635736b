// SPDX-License-Identifier: MIT
/*
 * A run's figures as OpenMetrics text (OpenMetrics 1.0, the exposition
 * format of Prometheus), for a node exporter's textfile collector or a push
 * gateway: `ovlperf report DIR --format openmetrics`.
 *
 * Every figure is a gauge (a run is a snapshot, nothing here counts up).
 * Names carry their unit as the spec asks ("an underscore and the unit MUST
 * be the suffix of the MetricFamily name"), in base units: rates in
 * bytes_per_second of payload (Prometheus' base unit for data is the byte;
 * `promtool check metrics` refuses bits), delays and times in seconds, sizes in bytes,
 * shares as ratios 0..1. A figure over repetitions has one sample per
 * statistic (label stat = median, min, max); a knee figure that is only a
 * bound says so in its bound label ("exact", "lower_bound", "upper_bound"),
 * as summary.csv does. All samples of a family are contiguous and the text
 * ends with "# EOF", both required by the spec.
 */
#define _GNU_SOURCE /* timegm */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report_om.h"
#include "report_run.h"

#define OM_PREFIX "ovlperf_"

void report_om_label(FILE *f, bool *first, const char *name, const char *value)
{
	fprintf(f, "%s%s=\"", *first ? "{" : ",", name);
	*first = false;
	for (; *value; value++) {
		if (*value == '\\' || *value == '"')
			fprintf(f, "\\%c", *value);
		else if (*value == '\n')
			fputs("\\n", f);
		else
			fputc(*value, f);
	}
	fputc('"', f);
}

void report_om_value(FILE *f, double v)
{
	if (isnan(v))
		fputs(" NaN\n", f);
	else if (isinf(v))
		fputs(v > 0 ? " +Inf\n" : " -Inf\n", f);
	else
		fprintf(f, " %.12g\n", v);
}

static void label_u(FILE *f, bool *first, const char *name, unsigned long long v)
{
	char b[24];

	snprintf(b, sizeof(b), "%llu", v);
	report_om_label(f, first, name, b);
}

/* The labels every figure of a path has: path and kind. */
struct om_labels {
	const char *path, *kind;
	unsigned streams;     /* 0: none */
	unsigned bytes;	      /* 0: none */
	uint64_t offered_bps; /* 0: none */
	const char *trial;    /* NULL: none */
	const char *bound;    /* NULL: none */
	const char *figure;   /* NULL: none */
	const char *check;    /* NULL: none */
	const char *verdict;  /* NULL: none */
	const char *stat;     /* NULL: none */
};

static void labels(FILE *f, const struct om_labels *l)
{
	bool first = true;

	if (l->path)
		report_om_label(f, &first, "path", l->path);
	if (l->kind)
		report_om_label(f, &first, "kind", l->kind);
	if (l->streams)
		label_u(f, &first, "streams", l->streams);
	if (l->bytes)
		label_u(f, &first, "bytes", l->bytes);
	if (l->offered_bps)
		label_u(f, &first, "offered_bits_per_second", l->offered_bps);
	if (l->trial)
		report_om_label(f, &first, "trial", l->trial);
	if (l->figure)
		report_om_label(f, &first, "figure", l->figure);
	if (l->check)
		report_om_label(f, &first, "check", l->check);
	if (l->verdict)
		report_om_label(f, &first, "verdict", l->verdict);
	if (l->bound)
		report_om_label(f, &first, "bound", l->bound);
	if (l->stat)
		report_om_label(f, &first, "stat", l->stat);
	if (!first)
		fputc('}', f);
}

/* A value: OpenMetrics numbers are Go-parsable floats; NaN and the
 * infinities are spelt out. */
static void sample(FILE *f, const char *name, const struct om_labels *l, double v)
{
	fprintf(f, OM_PREFIX "%s", name);
	labels(f, l);
	report_om_value(f, v);
}

/* The metadata of a family. unit is the name's suffix (or NULL). */
static void family(FILE *f, const char *name, const char *unit, const char *help)
{
	fprintf(f, "# TYPE " OM_PREFIX "%s gauge\n", name);
	if (unit)
		fprintf(f, "# UNIT " OM_PREFIX "%s %s\n", name, unit);
	fprintf(f, "# HELP " OM_PREFIX "%s %s\n", name, help);
}

/* A figure over repetitions: median, min and max, each scaled (ms -> s). */
static void stat3(FILE *f, const char *name, struct om_labels l, const struct results_stat *s,
		  double scale)
{
	static const char *const names[] = { "median", "min", "max" };
	const double v[] = { s->median, s->min, s->max };

	if (!s->n)
		return;
	for (int i = 0; i < 3; i++) {
		l.stat = names[i];
		sample(f, name, &l, v[i] * scale);
	}
}

static struct om_labels path_labels(const struct report_run *rr, unsigned path)
{
	const struct results_path *p = &rr->run->paths[path];

	return (struct om_labels){ .path = p->name, .kind = results_path_kind_name(p->kind) };
}

/* "2026-11-30T09:20:00Z" -> seconds since the epoch; -1 if unparsable. */
static double started_epoch(const char *iso)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	end = strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end)
		return -1;
	return (double)timegm(&tm);
}

static void run_families(FILE *f, const struct report_run *rr)
{
	const struct results_run *run = rr->run;
	struct om_labels none = { 0 };
	double t0 = started_epoch(run->started_utc);
	bool first = true;

	family(f, "run_info", NULL, "The run: scenario and ovlperf version (value 1).");
	fprintf(f, OM_PREFIX "run_info");
	report_om_label(f, &first, "scenario", run->scenario_name);
	report_om_label(f, &first, "version", run->version);
	report_om_label(f, &first, "started_utc", run->started_utc);
	fputc('}', f);
	fputs(" 1\n", f);
	family(f, "run_complete", NULL, "1 when the run measured everything it planned, else 0.");
	sample(f, "run_complete", &none, run->complete ? 1 : 0);
	family(f, "run_duration_seconds", "seconds", "Wall-clock duration of the run.");
	sample(f, "run_duration_seconds", &none, run->duration_s);
	if (t0 >= 0) {
		family(f, "run_start_timestamp_seconds", "seconds",
		       "When the run started, in seconds since the Unix epoch.");
		sample(f, "run_start_timestamp_seconds", &none, t0);
	}
	family(f, "run_trials", NULL, "Trials (single loads) the run measured.");
	sample(f, "run_trials", &none, (double)run->ntrials);
	family(f, "path_mtu_bytes", "bytes", "MTU of the near end's interface of each path.");
	for (unsigned i = 0; i < run->npaths; i++)
		if (run->paths[i].mtu) {
			struct om_labels l = path_labels(rr, i);

			sample(f, "path_mtu_bytes", &l, run->paths[i].mtu);
		}
}

/* The TCP families; field selects the figure of a point. */
enum tcp_field { TCP_GOODPUT, TCP_CPU, TCP_HOST_CPU, TCP_RETRANS, TCP_RTT, TCP_MSS };

static void tcp_family(FILE *f, const struct report_run *rr, enum tcp_field field)
{
	static const struct {
		const char *name, *unit, *help;
		double scale;
	} fam[] = {
		[TCP_GOODPUT] = { "tcp_goodput_bytes_per_second", "bytes_per_second",
				  "TCP payload goodput at a number of parallel streams.", 1.0 / 8 },
		[TCP_CPU] = { "tcp_cpu_seconds_per_gigabit", "seconds_per_gigabit",
			      "CPU time of the test's sender and receiver per Gbit moved.", 1 },
		[TCP_HOST_CPU] = { "tcp_host_cpu_seconds_per_gigabit", "seconds_per_gigabit",
				   "Busy CPU time of the whole machine per Gbit moved (lab runs).",
				   1 },
		[TCP_RETRANS] = { "tcp_retransmits", NULL, "TCP retransmissions in a trial.", 1 },
		[TCP_RTT] = { "tcp_rtt_seconds", "seconds", "Smoothed TCP round-trip time.", 1e-6 },
		[TCP_MSS] = { "tcp_mss_bytes", "bytes", "Most frequent sender MSS.", 1 },
	};
	const struct results_summary *s = &rr->sum;

	if (!s->ntcp)
		return;
	family(f, fam[field].name, fam[field].unit, fam[field].help);
	for (size_t i = 0; i < s->ntcp; i++) {
		const struct results_tcp_point *p = &s->tcp[i];
		struct om_labels l = path_labels(rr, p->path);
		const struct results_stat *st = NULL;

		l.streams = p->streams;
		switch (field) {
		case TCP_GOODPUT:
			st = &p->goodput_bps;
			break;
		case TCP_CPU:
			st = &p->cpu_s_per_gbit;
			break;
		case TCP_HOST_CPU:
			st = &p->host_cpu_s_per_gbit;
			break;
		case TCP_RETRANS:
			st = &p->retransmits;
			break;
		case TCP_RTT:
			st = &p->rtt_us;
			break;
		case TCP_MSS:
			sample(f, fam[field].name, &l, p->snd_mss);
			continue;
		}
		stat3(f, fam[field].name, l, st, fam[field].scale);
	}
}

/* One knee family: which = 0 the NDR/PDR figure, 1 its target, 2 its upper
 * bound. */
static void knee_family(FILE *f, const struct report_run *rr, bool pdr, int which)
{
	static const char *const suffix[] = { "", "_target", "_upper" };
	static const char *const help[] = {
		"Highest rate sent with loss within the goal; bound: whether only a bound.",
		"Offered rate the knee search asked for in the trial that set the lower bound.",
		"Lowest offered rate measured to fail (the knee's upper bound).",
	};
	const struct results_summary *s = &rr->sum;
	char name[64];

	if (!s->nknee)
		return;
	snprintf(name, sizeof(name), "udp_%s%s_bytes_per_second", pdr ? "pdr" : "ndr",
		 suffix[which]);
	family(f, name, "bytes_per_second", help[which]);
	for (size_t i = 0; i < s->nknee; i++) {
		const struct results_knee_point *p = &s->knee[i];
		struct om_labels l = path_labels(rr, p->path);
		const struct results_stat *v = NULL;
		enum overhead_bound b = OVERHEAD_EXACT;

		l.bytes = p->len;
		overhead_knee_figure(p, pdr, &v, &b);
		if (which == 0) {
			l.bound = overhead_figure_bound_name(b);
			if (v)
				stat3(f, name, l, v, 1.0 / 8);
		} else if (which == 1) {
			l.bound = overhead_figure_bound_name(b == OVERHEAD_AT_MOST ? OVERHEAD_EXACT
										   : b);
			stat3(f, name, l, pdr ? &p->pdr_target_bps : &p->ndr_target_bps, 1.0 / 8);
		} else {
			stat3(f, name, l, pdr ? &p->pdr_upper_bps : &p->ndr_upper_bps, 1.0 / 8);
		}
	}
}

/* What the knee searches of a path and size took: trials and seconds,
 * summed over the repetitions (as results_aggregate() keeps them). */
static void knee_effort(FILE *f, const struct report_run *rr, bool seconds)
{
	const struct results_summary *s = &rr->sum;
	const char *name = seconds ? "udp_knee_search_seconds" : "udp_knee_trials";

	if (!s->nknee)
		return;
	family(f, name, seconds ? "seconds" : NULL,
	       seconds ? "Time the knee searches of a path and size took."
		       : "Trials the knee searches of a path and size ran.");
	for (size_t i = 0; i < s->nknee; i++) {
		struct om_labels l = path_labels(rr, s->knee[i].path);

		l.bytes = s->knee[i].len;
		sample(f, name, &l, seconds ? s->knee[i].time_s : s->knee[i].trials);
	}
}

static void delay_family(FILE *f, const struct report_run *rr, bool p99)
{
	const struct results_summary *s = &rr->sum;
	const char *name = p99 ? "udp_owd_p99_seconds" : "udp_owd_p50_seconds";

	if (!s->ndelay)
		return;
	family(f, name, "seconds",
	       p99 ? "99th percentile one-way delay at a load common to every path."
		   : "Median one-way delay at a load common to every path.");
	for (size_t i = 0; i < s->ndelay; i++) {
		const struct results_delay_point *p = &s->delay[i];
		struct om_labels l = path_labels(rr, p->path);

		l.bytes = p->len;
		l.offered_bps = p->load_bps;
		stat3(f, name, l, p99 ? &p->p99_ms : &p->p50_ms, 1e-3);
	}
}

/* The points of linear sweeps and knee searches: rx false the share
 * delivered, true the payload rate received. */
static void sweep_family(FILE *f, const struct report_run *rr, bool rx)
{
	const struct results_summary *s = &rr->sum;
	const char *name = rx ? "udp_received_bytes_per_second" : "udp_delivered_ratio";

	if (!s->nsweep)
		return;
	if (rx)
		family(f, name, "bytes_per_second",
		       "Payload rate received at an offered rate (trial: sweep or knee).");
	else
		family(f, name, "ratio",
		       "Share of the datagrams sent that arrived at an offered rate (trial: "
		       "sweep or knee).");
	for (size_t i = 0; i < s->nsweep; i++) {
		const struct results_sweep_point *p = &s->sweep[i];
		struct om_labels l = path_labels(rr, p->path);

		l.bytes = p->len;
		l.offered_bps = p->target_bps;
		l.trial = results_trial_kind_name(p->kind);
		stat3(f, name, l, rx ? &p->rx_bps : &p->delivered_pct, rx ? 1.0 / 8 : 1e-2);
	}
}

static void overhead_family(FILE *f, const struct report_run *rr)
{
	const char *name = "overhead_ratio";

	if (!rr->ov.n)
		return;
	family(f, name, "ratio",
	       "Overlay figure / the same figure on the underlay (bound: how the ratio "
	       "relates to the truth when a side is only a bound).");
	for (size_t i = 0; i < rr->ov.n; i++) {
		const struct overhead_row *r = &rr->ov.rows[i];
		struct om_labels l = path_labels(rr, r->path);

		if (isnan(r->ratio))
			continue;
		l.figure = overhead_metric_name(r->metric);
		if (!strcmp(overhead_metric_key(r->metric), "streams"))
			l.streams = r->key;
		else
			l.bytes = r->key;
		l.offered_bps = r->load_bps;
		l.bound = overhead_bound_name(overhead_ratio_bound(r));
		sample(f, name, &l, r->ratio);
	}
}

static void mtu_family(FILE *f, const struct report_run *rr)
{
	const struct results_run *run = rr->run;

	if (!run->nmtu)
		return;
	family(f, "mtu_check_verdict", NULL,
	       "MTU / MSS check verdict: 0 OK, 1 WARN, 2 FAIL (verdict label alike).");
	for (size_t i = 0; i < run->nmtu; i++) {
		struct om_labels l = path_labels(rr, run->mtu[i].path);

		l.check = run->mtu[i].check;
		l.verdict = results_verdict_name(run->mtu[i].verdict);
		sample(f, "mtu_check_verdict", &l, run->mtu[i].verdict);
	}
	family(f, "mtu_check_value_bytes", "bytes",
	       "The size an MTU / MSS check found (probed MTU or MSS).");
	for (size_t i = 0; i < run->nmtu; i++) {
		struct om_labels l = path_labels(rr, run->mtu[i].path);

		if (!run->mtu[i].value)
			continue;
		l.check = run->mtu[i].check;
		sample(f, "mtu_check_value_bytes", &l, run->mtu[i].value);
	}
}

int report_run_openmetrics(FILE *f, const struct report_run *rr)
{
	run_families(f, rr);
	for (int t = TCP_GOODPUT; t <= TCP_MSS; t++) {
		bool any_host = false;

		for (size_t i = 0; i < rr->sum.ntcp; i++)
			any_host |= rr->sum.tcp[i].host_cpu_s_per_gbit.n > 0;
		if (t != TCP_HOST_CPU || any_host)
			tcp_family(f, rr, (enum tcp_field)t);
	}
	for (int pdr = 0; pdr < 2; pdr++)
		for (int which = 0; which < 3; which++)
			knee_family(f, rr, pdr, which);
	knee_effort(f, rr, false);
	knee_effort(f, rr, true);
	delay_family(f, rr, false);
	delay_family(f, rr, true);
	sweep_family(f, rr, false);
	sweep_family(f, rr, true);
	overhead_family(f, rr);
	mtu_family(f, rr);
	fputs("# EOF\n", f);
	return ferror(f) ? -EIO : 0;
}
