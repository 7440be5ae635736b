// SPDX-License-Identifier: MIT
/* A scenario's runs over time, and each figure's history (history.h). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "history.h"
#include "log.h"

/* One run as read, before the scenario is chosen. */
struct read_run {
	struct history_run meta;
	char scenario[RESULTS_NAME_MAX];
	struct results_figures figs;
};

struct reader {
	size_t n;
	struct read_run *r;
	unsigned incomplete, unreadable;
};

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int figures_of(const struct results_run *run, struct results_figures *figs)
{
	struct results_summary sum;
	struct overhead ov = { 0 };
	int rc = results_aggregate(run, &sum);

	if (rc)
		return rc;
	rc = overhead_compute(run, &sum, &ov);
	if (!rc)
		rc = results_figures(run, &sum, &ov, figs);
	/* a knee whose repetitions disagree gives the run no figure */
	for (size_t i = 0; !rc && i < figs->n;)
		if (figs->f[i].changed)
			memmove(&figs->f[i], &figs->f[i + 1], (--figs->n - i) * sizeof(figs->f[i]));
		else
			i++;
	overhead_free(&ov);
	results_summary_free(&sum);
	return rc;
}

/* dir/run.json into the reader; a run that cannot be read is logged and
 * counted, not fatal. */
static int read_one(struct reader *rd, const char *dir)
{
	char path[1100], err[256];
	struct results_run run;
	struct read_run *q;
	int rc;

	snprintf(path, sizeof(path), "%s/run.json", dir);
	if (results_read_json(path, &run, err, sizeof(err))) {
		log_warn("%s: %s: left out", path, err);
		rd->unreadable++;
		return 0;
	}
	if (!run.complete) {
		log_info("%s: an incomplete run: left out", path);
		rd->incomplete++;
		results_free(&run);
		return 0;
	}
	q = realloc(rd->r, (rd->n + 1) * sizeof(*q));
	if (!q) {
		results_free(&run);
		return -ENOMEM;
	}
	rd->r = q;
	q = &rd->r[rd->n];
	memset(q, 0, sizeof(*q));
	snprintf(q->meta.dir, sizeof(q->meta.dir), "%s", dir);
	snprintf(q->meta.started_utc, sizeof(q->meta.started_utc), "%s", run.started_utc);
	snprintf(q->meta.version, sizeof(q->meta.version), "%s", run.version);
	snprintf(q->scenario, sizeof(q->scenario), "%s", run.scenario_name);
	rc = figures_of(&run, &q->figs);
	results_free(&run);
	if (!rc)
		rd->n++;
	return rc;
}

/* A run directory, or a results root: each of its directories with a
 * run.json. */
static int read_arg(struct reader *rd, const char *arg)
{
	char path[1100];
	struct dirent *e;
	DIR *d;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/run.json", arg);
	if (is_file(path))
		return read_one(rd, arg);
	d = opendir(arg);
	if (!d) {
		log_warn("%s: %s: left out", arg, strerror(errno));
		rd->unreadable++;
		return 0;
	}
	while (!rc && (e = readdir(d))) {
		char sub[512];
		int w;

		if (e->d_name[0] == '.')
			continue;
		w = snprintf(sub, sizeof(sub), "%s/%s", arg, e->d_name);
		if (w < 0 || (size_t)w >= sizeof(sub))
			continue; /* a name too long for the run's record */
		snprintf(path, sizeof(path), "%s/run.json", sub);
		if (is_file(path))
			rc = read_one(rd, sub);
	}
	closedir(d);
	return rc;
}

static int by_start(const void *x, const void *y)
{
	const struct read_run *a = x, *b = y;
	int c = strcmp(a->meta.started_utc, b->meta.started_utc);

	return c ? c : strcmp(a->meta.dir, b->meta.dir);
}

static struct history_series *series_of(struct history *h, const struct results_figure *x)
{
	struct history_series *s;

	for (size_t i = 0; i < h->nseries; i++) {
		const struct results_figure *id = &h->series[i].id;

		if (!strcmp(id->what, x->what) && !strcmp(id->path, x->path) && id->key == x->key)
			return &h->series[i];
	}
	s = realloc(h->series, (h->nseries + 1) * sizeof(*s));
	if (!s)
		return NULL;
	h->series = s;
	s = &h->series[h->nseries++];
	memset(s, 0, sizeof(*s));
	s->id = *x;
	s->id.n = 0;
	return s;
}

static bool grow(double **v, size_t n)
{
	double *q = realloc(*v, n * sizeof(double));

	if (q)
		*v = q;
	return q != NULL;
}

static int append(struct history_series *s, size_t run, const struct results_figure *x)
{
	size_t *r = realloc(s->run, (s->n + 1) * sizeof(*r));
	double lo = x->value, hi = x->value;

	if (!r)
		return -ENOMEM;
	s->run = r;
	if (!grow(&s->y, s->n + 1) || !grow(&s->lo, s->n + 1) || !grow(&s->hi, s->n + 1))
		return -ENOMEM;
	for (size_t i = 0; i < x->n && !x->fit; i++) {
		lo = fmin(lo, x->v[i]);
		hi = fmax(hi, x->v[i]);
	}
	/* a soft knee's fit: its own interval, not the repetitions' bounds */
	if (x->fit) {
		lo = x->fit_low;
		hi = x->fit_high;
	}
	s->fitted |= x->fit;
	s->run[s->n] = run;
	s->y[s->n] = x->value;
	s->lo[s->n] = lo;
	s->hi[s->n] = hi;
	s->bounded |= x->bound != OVERHEAD_EXACT;
	s->n++;
	return 0;
}

/* The noise of one run's figure from the repetitions of every run: their
 * pooled standard deviation, as the deviation of a median of the mean
 * number of repetitions (sqrt(pi / 2) / sqrt(n), the large-sample
 * efficiency of the median). */
static void add_within(double *ss, double *df, double *reps, const struct results_figure *x)
{
	double mean = 0;

	if (x->n < 2)
		return;
	for (size_t i = 0; i < x->n; i++)
		mean += x->v[i] / (double)x->n;
	for (size_t i = 0; i < x->n; i++)
		*ss += (x->v[i] - mean) * (x->v[i] - mean);
	*df += (double)(x->n - 1);
	*reps += (double)x->n;
}

static int build(struct history *h, const struct reader *rd)
{
	for (size_t i = 0; i < rd->n; i++) {
		const struct read_run *r = &rd->r[i];
		struct history_run *q;

		if (strcmp(r->scenario, h->scenario)) {
			h->other++;
			continue;
		}
		q = realloc(h->runs, (h->nruns + 1) * sizeof(*q));
		if (!q)
			return -ENOMEM;
		h->runs = q;
		h->runs[h->nruns] = r->meta;
		for (size_t f = 0; f < r->figs.n; f++) {
			struct history_series *s = series_of(h, &r->figs.f[f]);

			if (!s || append(s, h->nruns, &r->figs.f[f]))
				return -ENOMEM;
		}
		h->nruns++;
	}
	return 0;
}

/* The noise of a run's figure that is a soft knee's fit: its standard
 * error, from its 90 % interval (symmetric in the logarithm). */
static void add_fit(double *ss, unsigned *n, const struct results_figure *x)
{
	double se;

	if (!x->fit || !(x->fit_low > 0))
		return;
	se = x->value * log(x->fit_high / x->fit_low) / (2 * KNEE_FIT_Z);
	*ss += se * se;
	(*n)++;
}

static int segment(struct history *h, const struct reader *rd)
{
	for (size_t i = 0; i < h->nseries; i++) {
		struct history_series *s = &h->series[i];
		double ss = 0, df = 0, reps = 0, fss = 0;
		unsigned nfit = 0;
		int rc;

		for (size_t k = 0; k < rd->n; k++) {
			const struct results_figure *x;

			if (strcmp(rd->r[k].scenario, h->scenario))
				continue;
			x = results_figures_match(&rd->r[k].figs, &s->id);
			if (x && x->fit)
				add_fit(&fss, &nfit, x);
			else if (x)
				add_within(&ss, &df, &reps, x);
		}
		/* reps - df: the runs with two repetitions or more */
		if (df > 0)
			s->within = sqrt(M_PI / 2) * sqrt(ss / df) / sqrt(reps / (reps - df));
		/* a figure that is a fit: the fits' own error, which the
		 * repetitions' found bounds (their searches' luck) overstate */
		if (nfit)
			s->within = sqrt(fss / nfit);
		rc = trend_segment(s->y, s->n, trend_noise(s->y, s->n, s->within), s->id.better,
				   results_figure_threshold(&s->id, h->threshold, 0), &s->trend);
		if (rc)
			return rc;
	}
	return 0;
}

int history_read(struct history *h, char *const *dirs, size_t n, const char *scenario,
		 double threshold, char *err, size_t errlen)
{
	struct reader rd = { 0 };
	int rc = 0;

	memset(h, 0, sizeof(*h));
	h->threshold = threshold;
	for (size_t i = 0; !rc && i < n; i++)
		rc = read_arg(&rd, dirs[i]);
	if (!rc && rd.n)
		qsort(rd.r, rd.n, sizeof(*rd.r), by_start);
	h->incomplete = rd.incomplete;
	h->unreadable = rd.unreadable;
	if (!rc && !rd.n) {
		snprintf(err, errlen, "no complete run found (%u incomplete, %u unreadable)",
			 rd.incomplete, rd.unreadable);
		rc = -ENOENT;
	}
	if (!rc) {
		snprintf(h->scenario, sizeof(h->scenario), "%s",
			 scenario ? scenario : rd.r[rd.n - 1].scenario);
		rc = build(h, &rd);
		if (!rc && !h->nruns) {
			snprintf(err, errlen, "no complete run of scenario '%s' among %zu runs",
				 h->scenario, rd.n);
			rc = -ENOENT;
		}
	}
	if (!rc)
		rc = segment(h, &rd);
	for (size_t i = 0; i < rd.n; i++)
		results_figures_free(&rd.r[i].figs);
	free(rd.r);
	if (rc)
		history_free(h);
	return rc;
}

void history_free(struct history *h)
{
	for (size_t i = 0; i < h->nseries; i++) {
		struct history_series *s = &h->series[i];

		free(s->run);
		free(s->y);
		free(s->lo);
		free(s->hi);
		trend_free(&s->trend);
	}
	free(h->series);
	free(h->runs);
	h->series = NULL;
	h->runs = NULL;
	h->nseries = h->nruns = 0;
}
