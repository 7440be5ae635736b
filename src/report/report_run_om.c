// SPDX-License-Identifier: MIT
/*
 * A run's figures as OpenMetrics text (OpenMetrics 1.0, the exposition
 * format of Prometheus), for a node exporter's textfile collector or a push
 * gateway: `ovlperf report DIR --format openmetrics [--output FILE]`.
 *
 * Written by Prometheus' naming rules (prometheus.io, "Metric and label
 * naming"):
 * - every figure is a gauge (a run is a snapshot, nothing here counts up),
 *   named with its base unit as the suffix ("an underscore and the unit
 *   MUST be the suffix of the MetricFamily name", OpenMetrics 1.0): rates in
 *   bytes_per_second of payload (the base unit of data is the byte;
 *   `promtool check metrics` refuses bits), delays and times in seconds,
 *   sizes in bytes, CPU cost in seconds_per_byte, shares as ratios 0..1;
 * - a family's label set is the same in every run of a scenario: labels
 *   name what was measured (scenario, path, kind, streams, datagram bytes,
 *   the common load as a share of the NDR, a check) and never carry a
 *   measured value, an offered rate, a time or a bound. Whether a knee
 *   figure or a ratio is only a bound is a family of its own, one sample
 *   per state (1 for the one that holds, 0 for the others), as Prometheus
 *   writes an enum; an offered rate is a sample of its own;
 * - a delay percentile is a quantile label (quantile="0.5", "0.99");
 * - a figure over repetitions has one sample per statistic (stat = median,
 *   min, max).
 * The trials of a knee search are not here: their offered rates are chosen
 * by the search and differ from run to run (run.json and summary.csv have
 * them). All samples of a family are contiguous and the text ends with
 * "# EOF", both required by the spec.
 */
#define _GNU_SOURCE /* timegm */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report_file.h"
#include "report_om.h"
#include "report_run.h"

#define OM_PREFIX "ovlperf_"
/* CPU seconds per Gbit -> per byte */
#define PER_GBIT_TO_PER_BYTE (8.0 / 1e9)

static void label_u(FILE *f, bool *first, const char *name, unsigned long long v)
{
	char b[24];

	snprintf(b, sizeof(b), "%llu", v);
	report_om_label(f, first, name, b);
}

/* The labels of a sample; every one but scenario is optional. */
struct om_labels {
	const char *scenario;
	const char *path, *kind;
	unsigned streams;     /* 0: none */
	unsigned bytes;	      /* 0: none */
	unsigned step;	      /* a linear sweep's step, from 1; 0: none */
	const char *load;     /* a delay's common load (load_name()); NULL: none */
	const char *figure;   /* NULL: none */
	const char *check;    /* NULL: none */
	const char *quantile; /* NULL: none */
	const char *bound;    /* a bound family's state; NULL: none */
	const char *stat;     /* NULL: none */
};

static void labels(FILE *f, const struct om_labels *l)
{
	bool first = true;

	report_om_label(f, &first, "scenario", l->scenario);
	if (l->path)
		report_om_label(f, &first, "path", l->path);
	if (l->kind)
		report_om_label(f, &first, "kind", l->kind);
	if (l->streams)
		label_u(f, &first, "streams", l->streams);
	if (l->bytes)
		label_u(f, &first, "bytes", l->bytes);
	if (l->step)
		label_u(f, &first, "step", l->step);
	if (l->load)
		report_om_label(f, &first, "load", l->load);
	if (l->figure)
		report_om_label(f, &first, "figure", l->figure);
	if (l->check)
		report_om_label(f, &first, "check", l->check);
	if (l->quantile)
		report_om_label(f, &first, "quantile", l->quantile);
	if (l->bound)
		report_om_label(f, &first, "bound", l->bound);
	if (l->stat)
		report_om_label(f, &first, "stat", l->stat);
	fputc('}', f);
}

/* One sample: the name, its labels, the value. */
static void sample_line(FILE *f, const char *name, const struct om_labels *l, double v)
{
	fprintf(f, OM_PREFIX "%s", name);
	labels(f, l);
	report_om_value(f, v);
}

/* The metadata of a family. unit is the name's suffix (or NULL). */
static void family(FILE *f, const char *name, const char *unit, const char *help)
{
	report_om_family(f, OM_PREFIX, name, unit, help);
}

/* A figure over repetitions: median, min and max, each scaled to its base
 * unit. */
static void stat3(FILE *f, const char *name, struct om_labels l, const struct results_stat *s,
		  double scale)
{
	static const char *const names[] = { "median", "min", "max" };
	const double v[] = { s->median, s->min, s->max };

	if (!s->n)
		return;
	for (int i = 0; i < 3; i++) {
		l.stat = names[i];
		sample_line(f, name, &l, v[i] * scale);
	}
}

/* A bound as an enum: one sample per state, 1 for b's. states: the
 * states the family can take, in the names name_of gives them. */
static void bound_samples(FILE *f, const char *name, struct om_labels l, enum overhead_bound b,
			  const char *(*name_of)(enum overhead_bound), unsigned nstates)
{
	for (unsigned s = 0; s < nstates; s++) {
		l.bound = name_of((enum overhead_bound)s);
		sample_line(f, name, &l, (unsigned)b == s ? 1 : 0);
	}
}

static struct om_labels path_labels(const struct report_run *rr, unsigned path)
{
	const struct results_path *p = &rr->run->paths[path];

	return (struct om_labels){ .scenario = rr->run->scenario_name,
				   .path = p->name,
				   .kind = results_path_kind_name(p->kind) };
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
	struct om_labels none = { .scenario = run->scenario_name };
	double t0 = started_epoch(run->started_utc);
	bool first = true;

	family(f, "run_info", NULL,
	       "The run's scenario and the ovlperf version that ran it (value 1).");
	fprintf(f, OM_PREFIX "run_info");
	report_om_label(f, &first, "scenario", run->scenario_name);
	report_om_label(f, &first, "version", run->version);
	fputs("} 1\n", f);
	family(f, "run_complete", NULL, "1 when the run measured everything it planned, else 0.");
	sample_line(f, "run_complete", &none, run->complete ? 1 : 0);
	family(f, "run_duration_seconds", "seconds", "Wall-clock duration of the run.");
	sample_line(f, "run_duration_seconds", &none, run->duration_s);
	if (t0 >= 0) {
		family(f, "run_start_timestamp_seconds", "seconds",
		       "When the run started, in seconds since the Unix epoch.");
		sample_line(f, "run_start_timestamp_seconds", &none, t0);
	}
	family(f, "run_trials", NULL, "Trials (single loads) the run measured.");
	sample_line(f, "run_trials", &none, (double)run->ntrials);
	family(f, "path_mtu_bytes", "bytes", "MTU of the near end's interface of each path.");
	for (unsigned i = 0; i < run->npaths; i++)
		if (run->paths[i].mtu) {
			struct om_labels l = path_labels(rr, i);

			sample_line(f, "path_mtu_bytes", &l, run->paths[i].mtu);
		}
}

/* The TCP families; field selects the figure of a point. */
enum tcp_field { TCP_GOODPUT, TCP_CPU, TCP_HOST_CPU, TCP_RETRANS, TCP_RTT, TCP_MSS };

static const struct results_stat *tcp_stat(const struct results_tcp_point *p, enum tcp_field field)
{
	switch (field) {
	case TCP_GOODPUT:
		return &p->goodput_bps;
	case TCP_CPU:
		return &p->cpu_s_per_gbit;
	case TCP_HOST_CPU:
		return &p->host_cpu_s_per_gbit;
	case TCP_RETRANS:
		return &p->retransmits;
	case TCP_RTT:
		return &p->rtt_us;
	case TCP_MSS:
		break;
	}
	return NULL;
}

static void tcp_family(FILE *f, const struct report_run *rr, enum tcp_field field)
{
	static const struct {
		const char *name, *unit, *help;
		double scale;
	} fam[] = {
		[TCP_GOODPUT] = { "tcp_goodput_bytes_per_second", "bytes_per_second",
				  "TCP payload goodput at a number of parallel streams.", 1.0 / 8 },
		[TCP_CPU] = { "tcp_cpu_seconds_per_byte", "seconds_per_byte",
			      "CPU time of the test's sender and receiver per byte of payload "
			      "moved.",
			      PER_GBIT_TO_PER_BYTE },
		[TCP_HOST_CPU] = { "tcp_host_cpu_seconds_per_byte", "seconds_per_byte",
				   "Busy CPU time of the whole machine per byte of payload moved "
				   "(lab runs).",
				   PER_GBIT_TO_PER_BYTE },
		[TCP_RETRANS] = { "tcp_retransmits", NULL,
				  "TCP segments the sender retransmitted in a trial.", 1 },
		[TCP_RTT] = { "tcp_rtt_seconds", "seconds",
			      "Smoothed TCP round-trip time the sender's kernel measured.", 1e-6 },
		[TCP_MSS] = { "tcp_mss_bytes", "bytes", "The sender's most frequent MSS.", 1 },
	};
	const struct results_summary *s = &rr->sum;

	if (!s->ntcp)
		return;
	family(f, fam[field].name, fam[field].unit, fam[field].help);
	for (size_t i = 0; i < s->ntcp; i++) {
		const struct results_tcp_point *p = &s->tcp[i];
		struct om_labels l = path_labels(rr, p->path);

		l.streams = p->streams;
		if (field == TCP_MSS)
			sample_line(f, fam[field].name, &l, p->snd_mss);
		else
			stat3(f, fam[field].name, l, tcp_stat(p, field), fam[field].scale);
	}
}

/* The knee families of one kind (pdr: the PDR, else the NDR): the figure,
 * the target of the trial behind it, the upper bound, and whether the
 * figure is only a bound. */
enum knee_which { KNEE_FIGURE, KNEE_TARGET, KNEE_UPPER, KNEE_BOUND, KNEE_WHICH_COUNT };

static const char *const knee_suffix[KNEE_WHICH_COUNT] = { "_bytes_per_second",
							   "_target_bytes_per_second",
							   "_upper_bytes_per_second", "_bound" };
static const char *const knee_help[2][KNEE_WHICH_COUNT] = {
	{
		"UDP no-drop rate (NDR): payload rate received in the highest trial of the "
		"knee search that lost no datagram (udp_ndr_bound: whether only a bound); on a "
		"soft knee the fit of all its trials, min and max its 90 % interval.",
		"Offered payload rate of the trial that set the NDR.",
		"Lowest offered payload rate at which the NDR search lost a datagram (the "
		"NDR's upper bound).",
		"How udp_ndr_bytes_per_second relates to the true NDR, one sample per state, "
		"1 for the one that holds: exact (found within the search's width), "
		"lower_bound (the true NDR is higher: the search passed at max_rate, the "
		"sender reached its limit or the search did not finish), upper_bound (it "
		"lost even at the lowest rate tried), fit (a soft knee: where all its trials "
		"put the chance of a lossy trial at the exceed ratio; no sample when its "
		"repetitions' knees differ, the path changed between them).",
	},
	{
		"UDP partial-drop rate (PDR): payload rate received in the highest trial of "
		"the knee search whose loss stayed within the loss goal "
		"(udp_pdr_loss_goal_ratio; udp_pdr_bound: whether only a bound); on a soft "
		"knee the fit of all its trials, min and max its 90 % interval.",
		"Offered payload rate of the trial that set the PDR.",
		"Lowest offered payload rate at which the PDR search lost more than the loss "
		"goal (the PDR's upper bound).",
		"How udp_pdr_bytes_per_second relates to the true PDR, one sample per state, "
		"1 for the one that holds: exact, lower_bound (the true PDR is higher), "
		"upper_bound (it lost more than the goal even at the lowest rate tried), fit "
		"(a soft knee's fit).",
	},
};

static void knee_family(FILE *f, const struct report_run *rr, bool pdr, enum knee_which which)
{
	const struct results_summary *s = &rr->sum;
	char name[64];

	if (!s->nknee)
		return;
	snprintf(name, sizeof(name), "udp_%s%s", pdr ? "pdr" : "ndr", knee_suffix[which]);
	family(f, name, which == KNEE_BOUND ? NULL : "bytes_per_second", knee_help[pdr][which]);
	for (size_t i = 0; i < s->nknee; i++) {
		const struct results_knee_point *p = &s->knee[i];
		struct om_labels l = path_labels(rr, p->path);
		const struct results_stat *v = NULL;
		enum overhead_bound b = OVERHEAD_EXACT;
		bool any = overhead_knee_figure(p, pdr, &v, &b), fit;

		l.bytes = p->len;
		switch (which) {
		case KNEE_FIGURE:
			if (any && v)
				stat3(f, name, l, v, 1.0 / 8);
			break;
		case KNEE_TARGET:
			stat3(f, name, l, pdr ? &p->pdr_target_bps : &p->ndr_target_bps, 1.0 / 8);
			break;
		case KNEE_UPPER:
			stat3(f, name, l, pdr ? &p->pdr_upper_bps : &p->ndr_upper_bps, 1.0 / 8);
			break;
		case KNEE_BOUND:
			/* exact, upper_bound, lower_bound, fit: a figure is never
			 * unknown; a fit is exact as figures go, its own state */
			if (!any || !v)
				break;
			fit = (pdr ? p->pdr_head : p->ndr_head) == RESULTS_HEAD_FIT;
			bound_samples(f, name, l, fit ? OVERHEAD_UNKNOWN : b,
				      overhead_figure_bound_name, OVERHEAD_UNKNOWN);
			l.bound = "fit";
			sample_line(f, name, &l, fit);
			break;
		case KNEE_WHICH_COUNT:
			break;
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
	       seconds ? "Time the knee searches of a path and size took, over the repetitions."
		       : "Trials the knee searches of a path and size ran, over the repetitions.");
	for (size_t i = 0; i < s->nknee; i++) {
		struct om_labels l = path_labels(rr, s->knee[i].path);

		l.bytes = s->knee[i].len;
		sample_line(f, name, &l, seconds ? s->knee[i].time_s : s->knee[i].trials);
	}
}

static void loss_goal_family(FILE *f, const struct report_run *rr)
{
	struct om_labels l = { .scenario = rr->run->scenario_name };

	if (!rr->sum.nknee)
		return;
	family(f, "udp_pdr_loss_goal_ratio", "ratio",
	       "Share of the datagrams sent the PDR may lose (the scenario's loss_goal).");
	sample_line(f, "udp_pdr_loss_goal_ratio", &l, rr->run->pdr_goal_pct / 100);
}

/* A delay's common load as a label that is the same in every run: the
 * share of the lowest NDR it was ("0.5"), or "rate" for a fixed [udp]
 * rate. Its offered rate is a sample of udp_owd_load_bytes_per_second. */
static const char *load_name(double load_pct, char *buf, size_t len)
{
	if (load_pct <= 0)
		return "rate";
	snprintf(buf, len, "%g", load_pct / 100);
	return buf;
}

/* The delay trials behind a delay point: the datagrams whose delay they
 * measured and the sum of those delays (the mean times the count). */
static void delay_totals(const struct results_run *run, const struct results_delay_point *p,
			 double *count, double *sum_s)
{
	*count = 0;
	*sum_s = 0;
	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];

		if (t->status || t->kind != RESULTS_TRIAL_DELAY || t->path != p->path ||
		    t->len != p->len || t->target_bps != p->load_bps || !t->udp.owd.valid)
			continue;
		*count += (double)t->udp.received;
		*sum_s += (double)t->udp.received * (double)t->udp.owd.mean_ns / 1e9;
	}
}

/* A summary (OpenMetrics 1.0, "Summary"): the quantiles are the medians
 * over the repetitions of each one's p50 and p99; _count and _sum cover
 * every datagram the repetitions received. */
static void delay_family(FILE *f, const struct report_run *rr)
{
	static const char *const quantile[] = { "0.5", "0.99" };
	const struct results_summary *s = &rr->sum;
	const char *name = "udp_owd_seconds";

	if (!s->ndelay)
		return;
	fprintf(f, "# TYPE " OM_PREFIX "%s summary\n# UNIT " OM_PREFIX "%s seconds\n", name, name);
	fprintf(f,
		"# HELP " OM_PREFIX "%s One-way delay of UDP datagrams at a load common to every "
		"path (load: the share of the lowest NDR, or rate for the scenario's fixed rate); "
		"quantiles: the median over the repetitions.\n",
		name);
	for (size_t i = 0; i < s->ndelay; i++) {
		const struct results_delay_point *p = &s->delay[i];
		struct om_labels l = path_labels(rr, p->path);
		double count, sum_s;
		char buf[24];

		l.bytes = p->len;
		l.load = load_name(p->load_pct, buf, sizeof(buf));
		for (int q = 0; q < 2; q++) {
			const struct results_stat *st = q ? &p->p99_ms : &p->p50_ms;

			l.quantile = quantile[q];
			if (st->n)
				sample_line(f, name, &l, st->median * 1e-3);
		}
		l.quantile = NULL;
		delay_totals(rr->run, p, &count, &sum_s);
		sample_line(f, "udp_owd_seconds_sum", &l, sum_s);
		sample_line(f, "udp_owd_seconds_count", &l, count);
	}
}

/* The offered rate of each common load, once per datagram size and load
 * (the same on every path). */
static void delay_load_family(FILE *f, const struct report_run *rr)
{
	const struct results_summary *s = &rr->sum;
	const char *name = "udp_owd_load_bytes_per_second";

	if (!s->ndelay)
		return;
	family(f, name, "bytes_per_second",
	       "Offered payload rate of each common load the one-way delay was measured at.");
	for (size_t i = 0; i < s->ndelay; i++) {
		const struct results_delay_point *p = &s->delay[i];
		struct om_labels l = { .scenario = rr->run->scenario_name, .bytes = p->len };
		bool seen = false;
		char buf[24];

		for (size_t j = 0; j < i && !seen; j++)
			seen = s->delay[j].len == p->len && s->delay[j].load_bps == p->load_bps;
		if (seen)
			continue;
		l.load = load_name(p->load_pct, buf, sizeof(buf));
		sample_line(f, name, &l, p->load_bps / 8.0);
	}
}

/* A linear sweep's points, by step (their order by offered rate, the same
 * in every run of a scenario): which 0 the offered rate, 1 the rate
 * received, 2 the share delivered. Knee trials are left out (above). */
static void sweep_family(FILE *f, const struct report_run *rr, int which)
{
	static const struct {
		const char *name, *unit, *help;
	} fam[] = {
		{ "udp_sweep_offered_bytes_per_second", "bytes_per_second",
		  "Offered payload rate of a step of a linear UDP sweep." },
		{ "udp_sweep_received_bytes_per_second", "bytes_per_second",
		  "Payload rate received at a step of a linear UDP sweep." },
		{ "udp_sweep_delivered_ratio", "ratio",
		  "Share of the datagrams sent that arrived at a step of a linear UDP sweep." },
	};
	const struct results_summary *s = &rr->sum;
	bool any = false;

	for (size_t i = 0; i < s->nsweep; i++)
		any |= s->sweep[i].kind == RESULTS_TRIAL_SWEEP;
	if (!any)
		return;
	family(f, fam[which].name, fam[which].unit, fam[which].help);
	for (size_t i = 0; i < s->nsweep; i++) {
		const struct results_sweep_point *p = &s->sweep[i];
		struct om_labels l = path_labels(rr, p->path);

		if (p->kind != RESULTS_TRIAL_SWEEP)
			continue;
		l.bytes = p->len;
		l.step = 1;
		for (size_t j = 0; j < s->nsweep; j++)
			l.step += s->sweep[j].kind == RESULTS_TRIAL_SWEEP &&
				  s->sweep[j].path == p->path && s->sweep[j].len == p->len &&
				  s->sweep[j].target_bps < p->target_bps;
		if (which == 0)
			sample_line(f, fam[which].name, &l, p->target_bps / 8.0);
		else if (which == 1)
			stat3(f, fam[which].name, l, &p->rx_bps, 1.0 / 8);
		else
			stat3(f, fam[which].name, l, &p->delivered_pct, 1e-2);
	}
}

static struct om_labels overhead_labels(const struct report_run *rr, const struct overhead_row *r,
					char *buf, size_t len)
{
	struct om_labels l = path_labels(rr, r->path);

	l.figure = overhead_metric_name(r->metric);
	if (!strcmp(overhead_metric_key(r->metric), "streams"))
		l.streams = r->key;
	else
		l.bytes = r->key;
	if (r->metric == OVERHEAD_OWD_P50 || r->metric == OVERHEAD_OWD_P99)
		l.load = load_name(r->load_pct, buf, len);
	return l;
}

/* bound false: the ratios; true: whether each is only a bound. */
static void overhead_family(FILE *f, const struct report_run *rr, bool bound)
{
	const char *name = bound ? "overhead_ratio_bound" : "overhead_ratio";

	if (!rr->ov.n)
		return;
	if (bound)
		family(f, name, NULL,
		       "How overhead_ratio relates to the true ratio when a side is only a "
		       "bound, one sample per state, 1 for the one that holds: exact, at_most, "
		       "at_least, unknown (bounds pulling both ways).");
	else
		family(f, name, "ratio",
		       "An overlay's figure over the same figure on the underlay (figure: "
		       "which; overhead_ratio_bound: whether only a bound).");
	for (size_t i = 0; i < rr->ov.n; i++) {
		const struct overhead_row *r = &rr->ov.rows[i];
		char buf[24];
		struct om_labels l = overhead_labels(rr, r, buf, sizeof(buf));

		if (isnan(r->ratio))
			continue;
		if (bound)
			bound_samples(f, name, l, overhead_ratio_bound(r), overhead_bound_name,
				      OVERHEAD_UNKNOWN + 1);
		else
			sample_line(f, name, &l, r->ratio);
	}
}

static void mtu_family(FILE *f, const struct report_run *rr)
{
	const struct results_run *run = rr->run;

	if (!run->nmtu)
		return;
	family(f, "mtu_check_verdict", NULL,
	       "Verdict of an MTU / MSS check: 0 OK, 1 WARN, 2 FAIL.");
	for (size_t i = 0; i < run->nmtu; i++) {
		struct om_labels l = path_labels(rr, run->mtu[i].path);

		l.check = run->mtu[i].check;
		sample_line(f, "mtu_check_verdict", &l, run->mtu[i].verdict);
	}
	family(f, "mtu_check_value_bytes", "bytes",
	       "The size an MTU / MSS check found (probed MTU or MSS).");
	for (size_t i = 0; i < run->nmtu; i++) {
		struct om_labels l = path_labels(rr, run->mtu[i].path);

		if (!run->mtu[i].value)
			continue;
		l.check = run->mtu[i].check;
		sample_line(f, "mtu_check_value_bytes", &l, run->mtu[i].value);
	}
}

int report_run_openmetrics(FILE *f, const struct report_run *rr)
{
	bool any_host = false;

	for (size_t i = 0; i < rr->sum.ntcp; i++)
		any_host |= rr->sum.tcp[i].host_cpu_s_per_gbit.n > 0;
	run_families(f, rr);
	for (int t = TCP_GOODPUT; t <= TCP_MSS; t++)
		if (t != TCP_HOST_CPU || any_host)
			tcp_family(f, rr, (enum tcp_field)t);
	for (int pdr = 0; pdr < 2; pdr++)
		for (int which = 0; which < KNEE_WHICH_COUNT; which++)
			knee_family(f, rr, pdr, (enum knee_which)which);
	loss_goal_family(f, rr);
	knee_effort(f, rr, false);
	knee_effort(f, rr, true);
	delay_family(f, rr);
	delay_load_family(f, rr);
	for (int which = 0; which < 3; which++)
		sweep_family(f, rr, which);
	overhead_family(f, rr, false);
	overhead_family(f, rr, true);
	mtu_family(f, rr);
	fputs("# EOF\n", f);
	return ferror(f) ? -EIO : 0;
}

static int print_om(FILE *f, const void *ctx)
{
	return report_run_openmetrics(f, ctx);
}

int report_run_openmetrics_file(const char *path, const struct report_run *rr)
{
	return report_write_path(path, print_om, rr);
}
