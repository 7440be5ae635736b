// SPDX-License-Identifier: MIT
/*
 * Every figure of a run with its repetitions' values (figures.h). The
 * values are read from the trials and knees as results_aggregate() reads
 * them (usable trials only, the same keys), so the median of a figure's
 * values is the figure the reports give; a ratio's values pair each
 * repetition of the overlay with the same repetition of the underlay.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"

/* The values of one figure, each with its repetition. */
struct samples {
	size_t n;
	double v[RESULTS_FIGURE_REPS];
	unsigned rep[RESULTS_FIGURE_REPS];
};

static void put(struct samples *s, double v, unsigned rep)
{
	if (s->n < RESULTS_FIGURE_REPS) {
		s->v[s->n] = v;
		s->rep[s->n++] = rep;
	}
}

static bool usable(const struct results_trial *t)
{
	return t->status == 0 && t->duration_s > 0;
}

static void tcp_samples(const struct results_run *run, enum overhead_metric m, unsigned path,
			unsigned streams, struct samples *s)
{
	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];
		double gbit = (double)t->tcp.goodput_bps * t->duration_s / 1e9;

		if (t->kind != RESULTS_TRIAL_TCP || !usable(t) || t->path != path ||
		    t->streams != streams)
			continue;
		if (m == OVERHEAD_TCP_GOODPUT)
			put(s, (double)t->tcp.goodput_bps, t->rep);
		else if (m == OVERHEAD_CPU_PER_GBIT)
			put(s, t->sender_cpu_s_per_gbit + t->receiver_cpu_s_per_gbit, t->rep);
		else if (m == OVERHEAD_HOST_CPU_PER_GBIT && t->host_cpu_s > 0 && gbit > 0)
			put(s, t->host_cpu_s / gbit, t->rep);
		else if (m == OVERHEAD_TCP_MSS)
			put(s, t->tcp.sender.snd_mss, t->rep);
	}
}

/* The lower bounds of the repetitions that found one; with none, the
 * upper bounds of all (a knee below the search's minimum), as the figure
 * overhead_knee_figure() gives is one or the other. */
static void knee_samples(const struct results_run *run, bool pdr, unsigned path, uint32_t len,
			 struct samples *s)
{
	for (size_t i = 0; i < run->nknees; i++) {
		const struct results_knee *k = &run->knees[i];
		double lo;

		if (k->path == path && k->len == len && results_knee_rep_lower(k, pdr, &lo))
			put(s, lo, k->rep);
	}
	for (size_t i = 0; !s->n && i < run->nknees; i++) {
		const struct results_knee *k = &run->knees[i];
		uint64_t up = pdr ? k->pdr_upper_bps : k->ndr_upper_bps;

		if (k->path == path && k->len == len && up)
			put(s, (double)up, k->rep);
	}
}

static void delay_samples(const struct results_run *run, bool p99, unsigned path, uint32_t len,
			  uint64_t load_bps, struct samples *s)
{
	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];

		if (t->kind != RESULTS_TRIAL_DELAY || !usable(t) || t->path != path ||
		    t->len != len || t->target_bps != load_bps || !t->udp.owd.valid)
			continue;
		put(s, (double)(p99 ? t->udp.owd.p99_ns : t->udp.owd.p50_ns) / 1e6, t->rep);
	}
}

static void samples_of(const struct results_run *run, enum overhead_metric m, unsigned path,
		       unsigned key, uint64_t load_bps, struct samples *s)
{
	s->n = 0;
	if (m == OVERHEAD_UDP_NDR || m == OVERHEAD_UDP_PDR)
		knee_samples(run, m == OVERHEAD_UDP_PDR, path, key, s);
	else if (m == OVERHEAD_OWD_P50 || m == OVERHEAD_OWD_P99)
		delay_samples(run, m == OVERHEAD_OWD_P99, path, key, load_bps, s);
	else
		tcp_samples(run, m, path, key, s);
}

static struct results_figure *add(struct results_figures *fs, const char *what,
				  enum overhead_metric m, const char *path, unsigned key)
{
	struct results_figure *q = realloc(fs->f, (fs->n + 1) * sizeof(*q));

	if (!q)
		return NULL;
	fs->f = q;
	q = &fs->f[fs->n++];
	memset(q, 0, sizeof(*q));
	snprintf(q->what, sizeof(q->what), "%s", what);
	snprintf(q->path, sizeof(q->path), "%s", path);
	q->metric = m;
	q->key = key;
	q->key_unit = overhead_metric_key(m);
	q->rate = m == OVERHEAD_TCP_GOODPUT || m == OVERHEAD_UDP_NDR || m == OVERHEAD_UDP_PDR;
	q->better = m == OVERHEAD_TCP_MSS ? 0 : overhead_higher_is_better(m) ? 1 : -1;
	return q;
}

/* A knee whose headline is "changed" (its repetitions disagree): its
 * found bounds' median, for reference only (results_figure.changed), and
 * its span (results_figure.moved_low, moved_high; the fit's interval is
 * added by the caller). */
static bool changed_figure(const struct results_knee_point *p, bool pdr,
			   const struct results_stat **st, double *low, double *high)
{
	const struct results_stat *lo = pdr ? &p->pdr_bps : &p->ndr_bps;
	const struct results_stat *up = pdr ? &p->pdr_upper_bps : &p->ndr_upper_bps;
	bool unbounded = pdr ? p->pdr_lower_bound : p->ndr_lower_bound;

	*st = lo->n ? lo : up;
	*low = lo->n ? lo->min : 0;
	*high = unbounded || !up->n ? INFINITY : fmax(up->max, lo->n ? lo->max : 0);
	return (*st)->n > 0;
}

static void take(struct results_figure *x, const struct samples *s)
{
	x->n = s->n;
	memcpy(x->v, s->v, s->n * sizeof(double));
}

/* "delay p50 ms @90%": a delay figure named by its load's share of the
 * NDR; a fixed [udp] rate has none. */
static void delay_what(char *buf, size_t len, const char *what, double load_pct)
{
	if (load_pct > 0)
		snprintf(buf, len, "%.23s @%.4g%%", what, load_pct);
	else
		snprintf(buf, len, "%s", what);
}

/* A knee's fit, headline or not (the other run's may be one). */
static void fit_of(struct results_figure *x, const struct knee_fit *f)
{
	x->fit_est = f->load_bps > 0;
	x->fit_bps = f->load_bps;
	x->fit_low = f->low_bps;
	x->fit_high = f->high_bps;
}

static int plain(const struct results_run *run, const struct results_summary *sum,
		 struct results_figures *fs)
{
	struct results_figure *x;
	struct samples s;

	for (size_t i = 0; i < sum->ntcp; i++) {
		const struct results_tcp_point *p = &sum->tcp[i];
		const char *name = run->paths[p->path].name;

		if (!(x = add(fs, "TCP goodput", OVERHEAD_TCP_GOODPUT, name, p->streams)))
			return -ENOMEM;
		x->value = p->goodput_bps.median;
		samples_of(run, OVERHEAD_TCP_GOODPUT, p->path, p->streams, 0, &s);
		take(x, &s);
		if (!(x = add(fs, "CPU s/Gbit", OVERHEAD_CPU_PER_GBIT, name, p->streams)))
			return -ENOMEM;
		x->value = p->cpu_s_per_gbit.median;
		samples_of(run, OVERHEAD_CPU_PER_GBIT, p->path, p->streams, 0, &s);
		take(x, &s);
	}
	for (size_t i = 0; i < sum->nknee; i++) {
		const struct results_knee_point *p = &sum->knee[i];

		for (int pdr = 0; pdr < 2; pdr++) {
			enum overhead_metric m = pdr ? OVERHEAD_UDP_PDR : OVERHEAD_UDP_NDR;
			const struct results_stat *st;
			enum overhead_bound b;
			double low = 0, high = 0;

			bool changed = (pdr ? p->pdr_head : p->ndr_head) == RESULTS_HEAD_CHANGED;

			if (!(changed ? changed_figure(p, pdr, &st, &low, &high)
				      : overhead_knee_figure(p, pdr, &st, &b)))
				continue;
			if (!(x = add(fs, overhead_metric_label(m), m, run->paths[p->path].name,
				      p->len)))
				return -ENOMEM;
			x->value = st->median;
			x->bound = changed ? OVERHEAD_UNKNOWN : b;
			x->changed = changed;
			x->fit = (pdr ? p->pdr_head : p->ndr_head) == RESULTS_HEAD_FIT;
			fit_of(x, pdr ? &p->pdr_fit : &p->ndr_fit);
			if (changed && x->fit_est) {
				low = fmin(low, x->fit_low);
				high = fmax(high, x->fit_high);
			}
			x->moved_low = low;
			x->moved_high = high;
			samples_of(run, m, p->path, p->len, 0, &s);
			take(x, &s);
		}
	}
	/* Delays of two runs compare at the same share of each run's NDR: the
	 * loads in bit/s differ as the NDRs do. */
	for (size_t i = 0; i < sum->ndelay; i++) {
		const struct results_delay_point *p = &sum->delay[i];

		for (int p99 = 0; p99 < 2; p99++) {
			enum overhead_metric m = p99 ? OVERHEAD_OWD_P99 : OVERHEAD_OWD_P50;
			char what[48];

			delay_what(what, sizeof(what), p99 ? "delay p99 ms" : "delay p50 ms",
				   p->load_pct);
			if (!(x = add(fs, what, m, run->paths[p->path].name, p->len)))
				return -ENOMEM;
			x->load_pct = p->load_pct;
			x->value = p99 ? p->p99_ms.median : p->p50_ms.median;
			samples_of(run, m, p->path, p->len, p->load_bps, &s);
			take(x, &s);
		}
	}
	return 0;
}

/* Each repetition of the overlay against the same repetition of the
 * underlay. */
static void ratio_samples(const struct results_run *run, const struct overhead_row *r,
			  struct results_figure *x)
{
	struct samples b, v;

	samples_of(run, r->metric, r->base_path, r->key, r->load_bps, &b);
	samples_of(run, r->metric, r->path, r->key, r->load_bps, &v);
	x->n = 0;
	for (size_t i = 0; i < v.n; i++)
		for (size_t j = 0; j < b.n; j++)
			if (b.rep[j] == v.rep[i] && b.v[j] != 0) {
				x->v[x->n++] = v.v[i] / b.v[j];
				break;
			}
}

/* The log standard error of a knee's headline fit (0: not a fit). */
static double fit_se(const struct results_summary *sum, unsigned path, const struct overhead_row *r)
{
	const struct results_knee_point *p = results_find_knee(sum, path, r->key);
	bool pdr = r->metric == OVERHEAD_UDP_PDR;
	const struct results_stat *h;

	if (!p || (pdr ? p->pdr_head : p->ndr_head) != RESULTS_HEAD_FIT)
		return 0;
	h = pdr ? &p->pdr_head_bps : &p->ndr_head_bps;
	return h->min > 0 ? log(h->max / h->min) / (2 * KNEE_FIT_Z) : 0;
}

/* A ratio with a soft knee's fit on either side is a fit too: its 90 %
 * interval from the fits' standard errors in the logarithm, added in
 * quadrature (a found side adds none). */
static void ratio_fit(const struct results_summary *sum, const struct overhead_row *r,
		      struct results_figure *x)
{
	double sv, sb, se;

	if ((r->metric != OVERHEAD_UDP_NDR && r->metric != OVERHEAD_UDP_PDR) ||
	    (!r->value_fit && !r->base_fit))
		return;
	sv = fit_se(sum, r->path, r);
	sb = fit_se(sum, r->base_path, r);
	se = sqrt(sv * sv + sb * sb);
	x->fit = x->fit_est = true;
	x->fit_bps = r->ratio;
	x->fit_low = r->ratio * exp(-KNEE_FIT_Z * se);
	x->fit_high = r->ratio * exp(KNEE_FIT_Z * se);
}

static int ratios(const struct results_run *run, const struct results_summary *sum,
		  const struct overhead *ov, struct results_figures *fs)
{
	for (size_t i = 0; i < ov->n; i++) {
		const struct overhead_row *r = &ov->rows[i];
		struct results_figure *x;
		char what[48], label[24];

		if (isnan(r->ratio))
			continue;
		snprintf(label, sizeof(label), "ratio %s", overhead_metric_label(r->metric));
		if (r->load_bps)
			delay_what(what, sizeof(what), label, r->load_pct);
		else
			snprintf(what, sizeof(what), "%s", label);
		if (!(x = add(fs, what, r->metric, run->paths[r->path].name, r->key)))
			return -ENOMEM;
		x->ratio = true;
		x->rate = false;
		x->load_pct = r->load_bps ? r->load_pct : 0;
		x->value = r->ratio;
		x->bound = overhead_ratio_bound(r);
		ratio_fit(sum, r, x);
		ratio_samples(run, r, x);
	}
	return 0;
}

int results_figures(const struct results_run *run, const struct results_summary *sum,
		    const struct overhead *ov, struct results_figures *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	rc = plain(run, sum, out);
	if (!rc)
		rc = ratios(run, sum, ov, out);
	if (rc)
		results_figures_free(out);
	return rc;
}

void results_figures_free(struct results_figures *fs)
{
	free(fs->f);
	fs->f = NULL;
	fs->n = 0;
}

const struct results_figure *results_figures_match(const struct results_figures *fs,
						   const struct results_figure *x)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->f[i].what, x->what) && !strcmp(fs->f[i].path, x->path) &&
		    fs->f[i].key == x->key)
			return &fs->f[i];
	return NULL;
}

void results_figure_name(const struct results_figure *x, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", x->ratio ? "ratio_" : "", overhead_metric_name(x->metric));
}

bool results_figure_is_cpu(const struct results_figure *x)
{
	return x->metric == OVERHEAD_CPU_PER_GBIT || x->metric == OVERHEAD_HOST_CPU_PER_GBIT;
}

double results_figure_threshold(const struct results_figure *x, double threshold,
				double cpu_threshold)
{
	if (!results_figure_is_cpu(x))
		return threshold;
	return cpu_threshold > 0 ? cpu_threshold : INFINITY;
}

void results_figure_gate(const struct results_figure *x, double threshold, double cpu_threshold,
			 double *rel, double *floor)
{
	bool p99 = x->metric == OVERHEAD_OWD_P99;

	*floor = 0;
	if (results_figure_is_cpu(x)) {
		*rel = results_figure_threshold(x, threshold, cpu_threshold);
		return;
	}
	if (x->metric != OVERHEAD_OWD_P50 && !p99) {
		*rel = threshold > 0 ? threshold : RESULTS_GATE_RATE;
		return;
	}
	if (x->ratio) {
		*rel = INFINITY;
		return;
	}
	*rel = fmax(threshold, p99 ? RESULTS_GATE_P99 : RESULTS_GATE_P50);
	*floor = p99 ? RESULTS_GATE_P99_MS : RESULTS_GATE_P50_MS;
}
