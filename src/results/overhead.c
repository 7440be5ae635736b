// SPDX-License-Identifier: MIT
/* Overlay versus underlay: ratios and deltas of the run's median figures. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "overhead.h"

static const struct {
	const char *name, *label, *key;
	bool higher_better;
} metrics[OVERHEAD_METRIC_COUNT] = {
	[OVERHEAD_TCP_GOODPUT] = { "tcp_goodput_bps", "TCP goodput", "streams", true },
	[OVERHEAD_UDP_NDR] = { "udp_ndr_bps", "UDP NDR", "bytes", true },
	[OVERHEAD_UDP_PDR] = { "udp_pdr_bps", "UDP PDR", "bytes", true },
	[OVERHEAD_OWD_P50] = { "owd_p50_ms", "delay p50", "bytes", false },
	[OVERHEAD_OWD_P99] = { "owd_p99_ms", "delay p99", "bytes", false },
	[OVERHEAD_CPU_PER_GBIT] = { "cpu_s_per_gbit", "CPU s/Gbit", "streams", false },
	[OVERHEAD_HOST_CPU_PER_GBIT] = { "host_cpu_s_per_gbit", "host CPU s/Gbit", "streams",
					 false },
	[OVERHEAD_TCP_MSS] = { "tcp_mss", "TCP MSS", "streams", true },
};

const char *overhead_metric_name(enum overhead_metric m)
{
	return m < OVERHEAD_METRIC_COUNT ? metrics[m].name : "?";
}

const char *overhead_metric_label(enum overhead_metric m)
{
	return m < OVERHEAD_METRIC_COUNT ? metrics[m].label : "?";
}

const char *overhead_metric_key(enum overhead_metric m)
{
	return m < OVERHEAD_METRIC_COUNT ? metrics[m].key : "?";
}

bool overhead_higher_is_better(enum overhead_metric m)
{
	return m < OVERHEAD_METRIC_COUNT && metrics[m].higher_better;
}

int overhead_metric_parse(const char *name)
{
	for (int i = 0; i < OVERHEAD_METRIC_COUNT; i++)
		if (name && !strcmp(metrics[i].name, name))
			return i;
	return -EINVAL;
}

double overhead_cost_pct(const struct overhead_row *r)
{
	if (r->metric == OVERHEAD_TCP_MSS)
		return 0;
	if (isnan(r->ratio))
		return NAN;
	return overhead_higher_is_better(r->metric) ? 100.0 * (1.0 - r->ratio)
						    : 100.0 * (r->ratio - 1.0);
}

/* +1: the truth is at least, -1: at most, 0: exact, 2: unknown. */
static int dir_of(enum overhead_bound b)
{
	return b == OVERHEAD_AT_LEAST  ? 1
	       : b == OVERHEAD_AT_MOST ? -1
	       : b == OVERHEAD_EXACT   ? 0
				       : 2;
}

enum overhead_bound overhead_ratio_bound(const struct overhead_row *r)
{
	int v = dir_of(r->value_bound), b = dir_of(r->base_bound);

	if (v == 2 || b == 2 || (v && b && v != -b))
		return OVERHEAD_UNKNOWN;
	v = v ? v : -b;
	return v > 0 ? OVERHEAD_AT_LEAST : v < 0 ? OVERHEAD_AT_MOST : OVERHEAD_EXACT;
}

enum overhead_bound overhead_cost_bound(const struct overhead_row *r)
{
	enum overhead_bound b = overhead_ratio_bound(r);

	if (!overhead_higher_is_better(r->metric) || b == OVERHEAD_EXACT || b == OVERHEAD_UNKNOWN)
		return b;
	return b == OVERHEAD_AT_MOST ? OVERHEAD_AT_LEAST : OVERHEAD_AT_MOST;
}

const char *overhead_bound_prefix(enum overhead_bound b)
{
	switch (b) {
	case OVERHEAD_AT_MOST:
		return "<= ";
	case OVERHEAD_AT_LEAST:
		return ">= ";
	case OVERHEAD_UNKNOWN:
		return "? ";
	case OVERHEAD_EXACT:
		break;
	}
	return "";
}

const char *overhead_bound_name(enum overhead_bound b)
{
	switch (b) {
	case OVERHEAD_AT_MOST:
		return "at_most";
	case OVERHEAD_AT_LEAST:
		return "at_least";
	case OVERHEAD_UNKNOWN:
		return "unknown";
	case OVERHEAD_EXACT:
		break;
	}
	return "exact";
}

const char *overhead_figure_bound_name(enum overhead_bound b)
{
	switch (b) {
	case OVERHEAD_AT_MOST:
		return "upper_bound";
	case OVERHEAD_AT_LEAST:
		return "lower_bound";
	case OVERHEAD_UNKNOWN:
		return "unknown";
	case OVERHEAD_EXACT:
		break;
	}
	return "exact";
}

bool overhead_knee_figure(const struct results_knee_point *p, bool pdr,
			  const struct results_stat **stat, enum overhead_bound *bound)
{
	const struct results_stat *lo = pdr ? &p->pdr_bps : &p->ndr_bps;
	const struct results_stat *up = pdr ? &p->pdr_upper_bps : &p->ndr_upper_bps;
	enum results_head h = pdr ? p->pdr_head : p->ndr_head;

	if (h == RESULTS_HEAD_CHANGED)
		return false;
	if (h == RESULTS_HEAD_FIT) {
		*stat = pdr ? &p->pdr_head_bps : &p->ndr_head_bps;
		*bound = OVERHEAD_EXACT;
		return true;
	}
	if (lo->n) {
		*stat = lo;
		*bound = (pdr ? p->pdr_lower_bound : p->ndr_lower_bound) ? OVERHEAD_AT_LEAST
									 : OVERHEAD_EXACT;
		return true;
	}
	/* lost at every rate it tried: below the least of them, whether the
	 * search got down to its minimum (below-min) or not (cut by its
	 * trials or time, or a sender short of the rate it lost at) */
	if (up->n) {
		*stat = up;
		*bound = OVERHEAD_AT_MOST;
		return true;
	}
	return false;
}

static int add(struct overhead *o, unsigned path, unsigned base_path, enum overhead_metric m,
	       unsigned key, double base, double value)
{
	struct overhead_row *q = realloc(o->rows, (o->n + 1) * sizeof(*q));
	struct overhead_row *r;

	if (!q)
		return -ENOMEM;
	o->rows = q;
	r = &q[o->n++];
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->base_path = base_path;
	r->metric = m;
	r->key = key;
	r->base = base;
	r->value = value;
	r->ratio = base != 0 ? value / base : NAN;
	r->delta = value - base;
	r->base_bound = OVERHEAD_EXACT;
	r->value_bound = OVERHEAD_EXACT;
	return 0;
}

static int tcp_rows(const struct results_summary *sum, unsigned path, unsigned u,
		    struct overhead *o)
{
	int err = 0;

	for (size_t i = 0; i < sum->ntcp && !err; i++) {
		const struct results_tcp_point *p = &sum->tcp[i], *b;

		if (p->path != path || !p->goodput_bps.n)
			continue;
		b = results_find_tcp(sum, u, p->streams);
		if (!b || !b->goodput_bps.n)
			continue;
		err = add(o, path, u, OVERHEAD_TCP_GOODPUT, p->streams, b->goodput_bps.median,
			  p->goodput_bps.median);
		if (!err)
			err = add(o, path, u, OVERHEAD_CPU_PER_GBIT, p->streams,
				  b->cpu_s_per_gbit.median, p->cpu_s_per_gbit.median);
		if (!err && p->host_cpu_s_per_gbit.n && b->host_cpu_s_per_gbit.n)
			err = add(o, path, u, OVERHEAD_HOST_CPU_PER_GBIT, p->streams,
				  b->host_cpu_s_per_gbit.median, p->host_cpu_s_per_gbit.median);
		if (!err && p->snd_mss && b->snd_mss)
			err = add(o, path, u, OVERHEAD_TCP_MSS, p->streams, b->snd_mss, p->snd_mss);
	}
	return err;
}

/* NDR or PDR rows: each side's figure and its bound (overhead_knee_figure). */
static int knee_rows(const struct results_summary *sum, unsigned path, unsigned u, bool pdr,
		     struct overhead *o)
{
	int err = 0;

	for (size_t i = 0; i < sum->nknee && !err; i++) {
		const struct results_knee_point *p = &sum->knee[i], *b;
		const struct results_stat *sv, *sb;
		enum overhead_bound bv, bb;

		if (p->path != path || !overhead_knee_figure(p, pdr, &sv, &bv))
			continue;
		b = results_find_knee(sum, u, p->len);
		if (!b || !overhead_knee_figure(b, pdr, &sb, &bb))
			continue;
		err = add(o, path, u, pdr ? OVERHEAD_UDP_PDR : OVERHEAD_UDP_NDR, p->len, sb->median,
			  sv->median);
		if (!err) {
			o->rows[o->n - 1].base_bound = bb;
			o->rows[o->n - 1].value_bound = bv;
			o->rows[o->n - 1].base_fit =
				(pdr ? b->pdr_head : b->ndr_head) == RESULTS_HEAD_FIT;
			o->rows[o->n - 1].value_fit =
				(pdr ? p->pdr_head : p->ndr_head) == RESULTS_HEAD_FIT;
		}
	}
	return err;
}

static int udp_rows(const struct results_summary *sum, unsigned path, unsigned u,
		    struct overhead *o)
{
	int err = knee_rows(sum, path, u, false, o);

	if (!err)
		err = knee_rows(sum, path, u, true, o);
	for (size_t i = 0; i < sum->ndelay && !err; i++) {
		const struct results_delay_point *p = &sum->delay[i], *b;

		if (p->path != path || !p->p50_ms.n)
			continue;
		/* Only delays measured at the same offered load compare. */
		b = results_find_delay(sum, u, p->len, p->load_bps);
		if (!b || !b->p50_ms.n)
			continue;
		err = add(o, path, u, OVERHEAD_OWD_P50, p->len, b->p50_ms.median, p->p50_ms.median);
		if (!err)
			err = add(o, path, u, OVERHEAD_OWD_P99, p->len, b->p99_ms.median,
				  p->p99_ms.median);
		for (size_t k = 0; k < 2 && !err; k++) {
			o->rows[o->n - 1 - k].load_bps = p->load_bps;
			o->rows[o->n - 1 - k].load_pct = p->load_pct;
		}
	}
	return err;
}

int overhead_compute(const struct results_run *run, const struct results_summary *sum,
		     struct overhead *out)
{
	int u = results_underlay(run);
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (u < 0)
		return 0;
	for (unsigned p = 0; p < run->npaths && !err; p++) {
		if ((int)p == u || run->paths[p].kind == RESULTS_PATH_UNDERLAY)
			continue;
		err = tcp_rows(sum, p, (unsigned)u, out);
		if (!err)
			err = udp_rows(sum, p, (unsigned)u, out);
	}
	if (err)
		overhead_free(out);
	return err;
}

const struct overhead_row *overhead_find(const struct overhead *o, unsigned path,
					 enum overhead_metric m, unsigned key)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->rows[i].path == path && o->rows[i].metric == m && o->rows[i].key == key)
			return &o->rows[i];
	return NULL;
}

const struct overhead_row *overhead_find_load(const struct overhead *o, unsigned path,
					      enum overhead_metric m, unsigned key,
					      uint64_t load_bps)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->rows[i].path == path && o->rows[i].metric == m && o->rows[i].key == key &&
		    o->rows[i].load_bps == load_bps)
			return &o->rows[i];
	return NULL;
}

void overhead_free(struct overhead *o)
{
	free(o->rows);
	memset(o, 0, sizeof(*o));
}
