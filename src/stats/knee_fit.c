// SPDX-License-Identifier: MIT
/* The logistic fit of a soft knee, and its repetitions compared (knee_fit.h). */
#include "knee_fit.h"

#include <math.h>
#include <string.h>

#define FIT_MAX_ITER 100
#define FIT_EPS	     1e-10
/* A slope this steep in standard units is a step, not a chance: no fit. */
#define FIT_MAX_SLOPE 1e3

/* The trials' logarithms, standardized: x = (ln load - mean) / sd; each
 * trial in group gmap[rep] (one group 0 for all when gmap is NULL; a trial
 * of group -1 is left out). */
struct fit_data {
	const struct knee_fit_obs *obs;
	size_t n;
	const int *gmap;
	unsigned ngroups;
	double mean, sd;
	double xmin, xmax;
};

/* One model: an intercept a[g] per group and one slope b. */
struct fit_model {
	double a[KNEE_FIT_MAX_REPS];
	double b;
};

static int group(const struct fit_data *d, size_t i)
{
	if (!(d->obs[i].load_bps > 0))
		return -1;
	if (!d->gmap)
		return 0;
	return d->obs[i].rep < KNEE_FIT_MAX_REPS ? d->gmap[d->obs[i].rep] : -1;
}

static double std_x(const struct fit_data *d, size_t i)
{
	return (log(d->obs[i].load_bps) - d->mean) / d->sd;
}

/* ln P(y | eta) without overflow for either sign of eta. */
static double log_lik(const struct fit_data *d, const struct fit_model *m)
{
	double ll = 0;

	for (size_t i = 0; i < d->n; i++) {
		int g = group(d, i);
		double eta;

		if (g < 0)
			continue;
		eta = m->a[g] + m->b * std_x(d, i);
		ll -= d->obs[i].bad ? log1p(exp(-eta)) : log1p(exp(eta));
	}
	return ll;
}

/* The gradient and the Fisher information at m. The information is an
 * arrow: diagonal in the intercepts (info_a), each crossed with the slope
 * (info_ab), and the slope's own (*info_b). */
struct fit_score {
	double g_a[KNEE_FIT_MAX_REPS], g_b;
	double info_a[KNEE_FIT_MAX_REPS], info_ab[KNEE_FIT_MAX_REPS], info_b;
};

static void score(const struct fit_data *d, const struct fit_model *m, struct fit_score *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < d->n; i++) {
		int g = group(d, i);
		double x, p, w, r;

		if (g < 0)
			continue;
		x = std_x(d, i);
		p = 1 / (1 + exp(-(m->a[g] + m->b * x)));
		w = p * (1 - p);
		r = d->obs[i].bad - p;
		s->g_a[g] += r;
		s->g_b += r * x;
		s->info_a[g] += w;
		s->info_ab[g] += w * x;
		s->info_b += w * x * x;
	}
}

/* The Newton step info^-1 g, through the arrow's Schur complement: the
 * slope's S = info_b - sum info_ab^2 / info_a. false when the information
 * is singular. *schur: S, for the covariance. */
static bool newton_step(const struct fit_data *d, const struct fit_score *s, struct fit_model *step,
			double *schur)
{
	double sc = s->info_b, rhs = s->g_b;

	for (unsigned g = 0; g < d->ngroups; g++) {
		if (!(s->info_a[g] > 0))
			return false;
		sc -= s->info_ab[g] * s->info_ab[g] / s->info_a[g];
		rhs -= s->info_ab[g] * s->g_a[g] / s->info_a[g];
	}
	if (!(sc > 1e-12 * s->info_b))
		return false;
	step->b = rhs / sc;
	for (unsigned g = 0; g < d->ngroups; g++)
		step->a[g] = (s->g_a[g] - s->info_ab[g] * step->b) / s->info_a[g];
	*schur = sc;
	return true;
}

static bool converged(const struct fit_data *d, const struct fit_model *step, double t)
{
	if (fabs(t * step->b) >= FIT_EPS)
		return false;
	for (unsigned g = 0; g < d->ngroups; g++)
		if (fabs(t * step->a[g]) >= FIT_EPS)
			return false;
	return true;
}

/* Newton-Raphson from a = 0, b = 1, halving a step that lowers the
 * likelihood. false when the information is singular or the slope runs
 * away. *ll: the maximum; cov (one group only; may be NULL): var a, cov
 * ab, var b. */
static bool fit_ml(const struct fit_data *d, struct fit_model *m, double *ll, double cov[3])
{
	struct fit_score s;
	struct fit_model step, next;
	double sc;

	memset(m, 0, sizeof(*m));
	m->b = 1;
	*ll = log_lik(d, m);
	for (int it = 0; it < FIT_MAX_ITER; it++) {
		double t = 1, nll;

		score(d, m, &s);
		if (!newton_step(d, &s, &step, &sc))
			return false;
		for (;;) {
			next.b = m->b + t * step.b;
			for (unsigned g = 0; g < d->ngroups; g++)
				next.a[g] = m->a[g] + t * step.a[g];
			nll = log_lik(d, &next);
			if (nll >= *ll - FIT_EPS || t < 1e-6)
				break;
			t /= 2;
		}
		*m = next;
		*ll = nll;
		if (fabs(m->b) > FIT_MAX_SLOPE)
			return false;
		if (converged(d, &step, t))
			break;
	}
	score(d, m, &s);
	if (!newton_step(d, &s, &step, &sc))
		return false;
	if (cov) { /* the inverse of the 2 x 2 information of one group */
		cov[2] = 1 / sc;
		cov[1] = -s.info_ab[0] / (s.info_a[0] * sc);
		cov[0] = 1 / s.info_a[0] +
			 s.info_ab[0] * s.info_ab[0] / (s.info_a[0] * s.info_a[0] * sc);
	}
	return true;
}

/* Mean and spread of the logarithms and their range over the trials of
 * some group; *overlap: some good trial lies above some bad one (without
 * it the likelihood of one curve has no maximum). */
static bool prepare(struct fit_data *d, unsigned *nt, unsigned *nbad, bool *overlap)
{
	double s = 0, ss = 0, good_max = -INFINITY, bad_min = INFINITY;
	unsigned k = 0, nb = 0;

	for (size_t i = 0; i < d->n; i++) {
		double x;

		if (group(d, i) < 0)
			continue;
		x = log(d->obs[i].load_bps);
		s += x;
		ss += x * x;
		k++;
		if (d->obs[i].bad) {
			nb++;
			bad_min = fmin(bad_min, x);
		} else
			good_max = fmax(good_max, x);
		d->xmin = k == 1 ? x : fmin(d->xmin, x);
		d->xmax = k == 1 ? x : fmax(d->xmax, x);
	}
	*nt = k;
	*nbad = nb;
	*overlap = good_max > bad_min;
	if (k < KNEE_FIT_MIN_TRIALS || nb < KNEE_FIT_MIN_EACH || k - nb < KNEE_FIT_MIN_EACH)
		return false;
	d->mean = s / k;
	d->sd = sqrt(fmax(ss / k - d->mean * d->mean, 0));
	return d->sd > 0;
}

static double logit(double q)
{
	return log(q / (1 - q));
}

/* The load where the chance is q for intercept a and slope b; 0 outside
 * the loads tried. */
static double load_at(const struct fit_data *d, double a, double b, double q)
{
	double x = d->mean + d->sd * (logit(q) - a) / b;

	return x < d->xmin || x > d->xmax ? 0 : exp(x);
}

bool knee_fit(const struct knee_fit_obs *obs, size_t n, double q, struct knee_fit *out)
{
	struct fit_data d = { .obs = obs, .n = n, .ngroups = 1 };
	struct fit_model m;
	double cov[3], xq, se, ll;
	bool overlap;

	memset(out, 0, sizeof(*out));
	if (!(q > 0 && q < 1) || !prepare(&d, &out->ntrials, &out->nbad, &overlap) || !overlap ||
	    !fit_ml(&d, &m, &ll, cov) || !(m.b > 0))
		return false; /* *out still zero but for the counts */
	out->load_bps = load_at(&d, m.a[0], m.b, q);
	if (!(out->load_bps > 0))
		return false;
	xq = (logit(q) - m.a[0]) / m.b;
	/* delta method: d xq / d(a, b) = (-1 / b, -xq / b) */
	se = sqrt(fmax(cov[0] + 2 * xq * cov[1] + xq * xq * cov[2], 0)) / m.b;
	out->chance = q;
	out->low_bps = exp(d.mean + d.sd * (xq - KNEE_FIT_Z * se));
	out->high_bps = exp(d.mean + d.sd * (xq + KNEE_FIT_Z * se));
	out->band_low_bps = exp(d.mean + d.sd * (logit(0.1) - m.a[0]) / m.b);
	out->band_high_bps = exp(d.mean + d.sd * (logit(0.9) - m.a[0]) / m.b);
	return true;
}

/* Counts each repetition's trials into out (in rep order) and maps those
 * with both good and bad ones to groups 0.. (the others to -1). *overlap:
 * some repetition's good and bad trials overlap on their own. */
static void count_reps(const struct knee_fit_obs *obs, size_t n, struct knee_fit_reps *out,
		       int gmap[KNEE_FIT_MAX_REPS], unsigned *ngroups, bool *overlap)
{
	double good_max[KNEE_FIT_MAX_REPS], bad_min[KNEE_FIT_MAX_REPS];
	unsigned nt[KNEE_FIT_MAX_REPS] = { 0 }, nb[KNEE_FIT_MAX_REPS] = { 0 };

	for (unsigned r = 0; r < KNEE_FIT_MAX_REPS; r++) {
		good_max[r] = -INFINITY;
		bad_min[r] = INFINITY;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned r = obs[i].rep;

		if (!(obs[i].load_bps > 0) || r >= KNEE_FIT_MAX_REPS)
			continue;
		nt[r]++;
		if (obs[i].bad) {
			nb[r]++;
			bad_min[r] = fmin(bad_min[r], obs[i].load_bps);
		} else
			good_max[r] = fmax(good_max[r], obs[i].load_bps);
	}
	*ngroups = 0;
	*overlap = false;
	for (unsigned r = 0; r < KNEE_FIT_MAX_REPS; r++) {
		gmap[r] = -1;
		if (!nt[r])
			continue;
		out->rep[out->n++] =
			(struct knee_fit_rep){ .rep = r, .ntrials = nt[r], .nbad = nb[r] };
		if (nb[r] && nb[r] < nt[r])
			gmap[r] = (int)(*ngroups)++;
		*overlap |= good_max[r] > bad_min[r];
	}
}

bool knee_fit_reps(const struct knee_fit_obs *obs, size_t n, double q, struct knee_fit_reps *out)
{
	int gmap[KNEE_FIT_MAX_REPS];
	struct fit_data one, each;
	struct fit_model m1, m;
	unsigned ng, nt, nb;
	double ll1, ll;
	bool overlap, pooled_overlap;

	memset(out, 0, sizeof(*out));
	count_reps(obs, n, out, gmap, &ng, &overlap);
	if (!(q > 0 && q < 1) || ng < 2 || !overlap)
		return false;
	/* both models on the same trials: those of the repetitions compared */
	each = (struct fit_data){ .obs = obs, .n = n, .gmap = gmap, .ngroups = ng };
	if (!prepare(&each, &nt, &nb, &pooled_overlap) || !fit_ml(&each, &m, &ll, NULL) ||
	    !(m.b > 0))
		return false;
	one = each;
	{
		int all[KNEE_FIT_MAX_REPS];

		for (unsigned r = 0; r < KNEE_FIT_MAX_REPS; r++)
			all[r] = gmap[r] < 0 ? -1 : 0;
		one.gmap = all;
		one.ngroups = 1;
		if (!fit_ml(&one, &m1, &ll1, NULL))
			return false;
	}
	out->slope = m.b / each.sd;
	out->lr = fmax(2 * (ll - ll1), 0);
	out->df = ng - 1;
	out->p = knee_fit_chi2_sf(out->lr, out->df);
	for (unsigned i = 0; i < out->n; i++) {
		int g = gmap[out->rep[i].rep];

		if (g < 0)
			continue;
		out->rep[i].load_bps = load_at(&each, m.a[g], m.b, q);
		out->nfit += out->rep[i].load_bps > 0;
	}
	return true;
}

/* The upper regularized gamma function Q(df / 2, x / 2), upwards from
 * Q(1/2, y) = erfc(sqrt y) or Q(1, y) = exp(-y) by Q(s + 1, y) = Q(s, y) +
 * y^s exp(-y) / Gamma(s + 1) (Abramowitz and Stegun 6.5.21). */
double knee_fit_chi2_sf(double x, unsigned df)
{
	double y = x / 2, s, q, term;

	if (!(x > 0) || df == 0)
		return 1;
	if (df % 2) {
		s = 0.5;
		q = erfc(sqrt(y));
		term = sqrt(y) * exp(-y) / (sqrt(M_PI) / 2); /* y^(1/2) e^-y / Gamma(3/2) */
	} else {
		s = 1;
		q = exp(-y);
		term = y * exp(-y); /* y e^-y / Gamma(2) */
	}
	while (s + 1 <= df / 2.0 + 1e-9) {
		q += term;
		s += 1;
		term *= y / s;
	}
	return fmin(q, 1);
}
