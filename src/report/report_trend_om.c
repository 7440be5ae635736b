// SPDX-License-Identifier: MIT
#define _GNU_SOURCE /* strptime(), timegm() */
/*
 * A scenario's trend as OpenMetrics text: per figure, its latest segment's
 * level in base units (bytes per second, seconds, seconds per byte, a
 * ratio), that segment's change against the one before as a ratio, and
 * whether it started with a regression or progression; labels name only
 * what was measured (scenario, path, streams or size, load share), never a
 * measured value.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report_om.h"
#include "report_trend.h"

/* A figure's metric name in base units and the factor from its recorded
 * unit; "ratio_" figures are ratios whatever they compare. */
static const struct {
	enum overhead_metric m;
	const char *name, *plain;
	double k;
} base_units[] = {
	{ OVERHEAD_TCP_GOODPUT, "tcp_goodput_bytes_per_second", "tcp_goodput", 1.0 / 8 },
	{ OVERHEAD_UDP_NDR, "udp_ndr_bytes_per_second", "udp_ndr", 1.0 / 8 },
	{ OVERHEAD_UDP_PDR, "udp_pdr_bytes_per_second", "udp_pdr", 1.0 / 8 },
	{ OVERHEAD_OWD_P50, "owd_p50_seconds", "owd_p50", 1e-3 },
	{ OVERHEAD_OWD_P99, "owd_p99_seconds", "owd_p99", 1e-3 },
	{ OVERHEAD_CPU_PER_GBIT, "cpu_seconds_per_byte", "cpu_per_byte", 8e-9 },
	{ OVERHEAD_HOST_CPU_PER_GBIT, "host_cpu_seconds_per_byte", "host_cpu_per_byte", 8e-9 },
	{ OVERHEAD_TCP_MSS, "tcp_mss_bytes", "tcp_mss", 1 },
};

static const char *unit_of(const char *name)
{
	const char *u[] = { "bytes_per_second", "seconds_per_byte", "seconds", "bytes", "ratio" };

	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		size_t n = strlen(name), l = strlen(u[i]);

		if (n > l && !strcmp(name + n - l, u[i]))
			return u[i];
	}
	return "";
}

static void figure_name(const struct results_figure *id, char *buf, size_t len, double *k)
{
	const char *base = overhead_metric_name(id->metric), *plain = base;

	*k = 1;
	for (size_t i = 0; i < sizeof(base_units) / sizeof(base_units[0]); i++)
		if (base_units[i].m == id->metric) {
			base = base_units[i].name;
			plain = base_units[i].plain;
			*k = base_units[i].k;
		}
	if (id->ratio) {
		snprintf(buf, len, "ovlperf_trend_overlay_%s_ratio", plain);
		*k = 1;
	} else
		snprintf(buf, len, "ovlperf_trend_%s", base);
}

/* The labels of a figure's samples, figure (a metric's name) first when
 * not NULL. */
static void labels(FILE *f, const struct history *h, const struct history_series *s,
		   const char *figure)
{
	bool first = true;
	char v[32];

	if (figure)
		report_om_label(f, &first, "figure", figure);
	report_om_label(f, &first, "scenario", h->scenario);
	report_om_label(f, &first, "path", s->id.path);
	snprintf(v, sizeof(v), "%u", s->id.key);
	report_om_label(f, &first, !strcmp(s->id.key_unit, "bytes") ? "size_bytes" : "streams", v);
	if (s->id.load_pct > 0) {
		snprintf(v, sizeof(v), "%.4g", s->id.load_pct / 100);
		report_om_label(f, &first, "load_of_ndr", v);
	}
	fputc('}', f);
}

static void family(FILE *f, const char *name, const char *help)
{
	const char *unit = unit_of(name);

	report_om_family(f, "", name, *unit ? unit : NULL, help);
}

/* One gauge per figure kind, each series a sample; the kinds in the
 * order of their first figure. */
static void levels(FILE *f, const struct history *h)
{
	for (size_t i = 0; i < h->nseries; i++) {
		char name[96], other[96];
		double k;
		bool seen = false;

		figure_name(&h->series[i].id, name, sizeof(name), &k);
		for (size_t j = 0; j < i && !seen; j++) {
			figure_name(&h->series[j].id, other, sizeof(other), &k);
			seen = !strcmp(name, other);
		}
		if (seen)
			continue;
		family(f, name, "The latest segment's level of the figure over the runs.");
		for (size_t j = i; j < h->nseries; j++) {
			const struct history_series *s = &h->series[j];

			figure_name(&s->id, other, sizeof(other), &k);
			if (strcmp(name, other))
				continue;
			fputs(name, f);
			labels(f, h, s, NULL);
			report_om_value(f, s->trend.seg[s->trend.n - 1].level * k);
		}
	}
}

/* The per-figure families whose figure is a label: what changed. */
static void changes(FILE *f, const struct history *h)
{
	static const char *const names[] = { "ovlperf_trend_change_ratio",
					     "ovlperf_trend_regression",
					     "ovlperf_trend_progression",
					     "ovlperf_trend_segment_runs" };
	static const char *const help[] = {
		"The latest segment's level against the one before, as a ratio minus 1 "
		"(0: one segment).",
		"1 when the latest segment started lower (or, for delay and CPU, higher) "
		"beyond the threshold.",
		"1 when the latest segment started better beyond the threshold.",
		"Runs in the latest segment.",
	};

	for (int m = 0; m < 4; m++) {
		family(f, names[m], help[m]);
		for (size_t i = 0; i < h->nseries; i++) {
			const struct history_series *s = &h->series[i];
			const struct trend_segment *l = &s->trend.seg[s->trend.n - 1];
			char fig[96];
			double k, v;

			figure_name(&s->id, fig, sizeof(fig), &k);
			v = m == 0   ? (s->trend.n > 1 ? l->change_pct / 100 : 0)
			    : m == 1 ? (s->trend.n > 1 && l->verdict == CHANGE_REGRESSION)
			    : m == 2 ? (s->trend.n > 1 && l->verdict == CHANGE_PROGRESSION)
				     : (double)(l->end - l->start);
			fputs(names[m], f);
			labels(f, h, s, fig + strlen("ovlperf_trend_"));
			report_om_value(f, v);
		}
	}
}

/* "2026-11-30T09:20:00Z" as seconds since the epoch; 0 when malformed. */
static double epoch_of(const char *utc)
{
	struct tm tm = { 0 };
	const char *end = strptime(utc, "%Y-%m-%dT%H:%M:%SZ", &tm);

	return end && !*end ? (double)timegm(&tm) : 0;
}

int report_trend_openmetrics(FILE *f, const struct history *h)
{
	bool first = true;

	levels(f, h);
	changes(f, h);
	family(f, "ovlperf_trend_runs", "Complete runs of the scenario the trend read.");
	fputs("ovlperf_trend_runs", f);
	report_om_label(f, &first, "scenario", h->scenario);
	fprintf(f, "} %zu\n", h->nruns);
	family(f, "ovlperf_trend_last_run_timestamp_seconds", "When the latest run started.");
	first = true;
	fputs("ovlperf_trend_last_run_timestamp_seconds", f);
	report_om_label(f, &first, "scenario", h->scenario);
	fputc('}', f);
	report_om_value(f, epoch_of(h->runs[h->nruns - 1].started_utc));
	fputs("# EOF\n", f);
	return ferror(f) ? -EIO : 0;
}
