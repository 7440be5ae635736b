// SPDX-License-Identifier: MIT
/* The logistic fit of a soft knee (knee_fit.h). */
#include "knee_fit.h"

#include <math.h>
#include <string.h>

#define FIT_MAX_ITER 100
#define FIT_EPS	     1e-10
/* A slope this steep in standard units is a step, not a chance: no fit. */
#define FIT_MAX_SLOPE 1e3

/* The trials' logarithms, standardized: x = (ln load - mean) / sd. */
struct fit_data {
	const struct knee_fit_obs *obs;
	size_t n;
	double mean, sd;
	double xmin, xmax;
};

static double std_x(const struct fit_data *d, size_t i)
{
	return (log(d->obs[i].load_bps) - d->mean) / d->sd;
}

/* ln P(y | eta) without overflow for either sign of eta. */
static double log_lik(const struct fit_data *d, double a, double b)
{
	double ll = 0;

	for (size_t i = 0; i < d->n; i++) {
		double eta;

		if (!(d->obs[i].load_bps > 0))
			continue;
		eta = a + b * std_x(d, i);
		ll -= d->obs[i].bad ? log1p(exp(-eta)) : log1p(exp(eta));
	}
	return ll;
}

/* The gradient and the Fisher information at (a, b). */
static void score(const struct fit_data *d, double a, double b, double g[2], double info[3])
{
	g[0] = g[1] = info[0] = info[1] = info[2] = 0;
	for (size_t i = 0; i < d->n; i++) {
		double x, p, w;

		if (!(d->obs[i].load_bps > 0))
			continue;
		x = std_x(d, i);
		p = 1 / (1 + exp(-(a + b * x)));
		w = p * (1 - p);
		g[0] += d->obs[i].bad - p;
		g[1] += (d->obs[i].bad - p) * x;
		info[0] += w;
		info[1] += w * x;
		info[2] += w * x * x;
	}
}

/* Newton-Raphson from (0, 1), halving a step that lowers the likelihood.
 * false when the information is singular or the slope runs away. */
static bool fit_ml(const struct fit_data *d, double *a, double *b, double cov[3])
{
	double ll = log_lik(d, 0, 1);

	*a = 0;
	*b = 1;
	for (int it = 0; it < FIT_MAX_ITER; it++) {
		double g[2], info[3], det, da, db, step = 1, nll;

		score(d, *a, *b, g, info);
		det = info[0] * info[2] - info[1] * info[1];
		if (!(det > 0))
			return false;
		da = (info[2] * g[0] - info[1] * g[1]) / det;
		db = (info[0] * g[1] - info[1] * g[0]) / det;
		for (;;) {
			nll = log_lik(d, *a + step * da, *b + step * db);
			if (nll >= ll - FIT_EPS || step < 1e-6)
				break;
			step /= 2;
		}
		*a += step * da;
		*b += step * db;
		ll = nll;
		if (fabs(*b) > FIT_MAX_SLOPE)
			return false;
		if (fabs(step * da) < FIT_EPS && fabs(step * db) < FIT_EPS)
			break;
	}
	{
		double g[2], info[3], det;

		score(d, *a, *b, g, info);
		det = info[0] * info[2] - info[1] * info[1];
		if (!(det > 0))
			return false;
		cov[0] = info[2] / det; /* var a */
		cov[1] = -info[1] / det;
		cov[2] = info[0] / det; /* var b */
	}
	return true;
}

/* Mean and spread of the logarithms, their range, and whether good and bad
 * trials overlap (some good one above some bad one): without it the
 * likelihood has no maximum. */
static bool prepare(struct fit_data *d, unsigned *nt, unsigned *nbad)
{
	double s = 0, ss = 0, good_max = -INFINITY, bad_min = INFINITY;
	unsigned k = 0, nb = 0;

	for (size_t i = 0; i < d->n; i++) {
		double x;

		if (!(d->obs[i].load_bps > 0))
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
	if (k < KNEE_FIT_MIN_TRIALS || nb < KNEE_FIT_MIN_EACH || k - nb < KNEE_FIT_MIN_EACH ||
	    !(good_max > bad_min))
		return false;
	d->mean = s / k;
	d->sd = sqrt(fmax(ss / k - d->mean * d->mean, 0));
	return d->sd > 0;
}

static double logit(double q)
{
	return log(q / (1 - q));
}

bool knee_fit(const struct knee_fit_obs *obs, size_t n, double q, struct knee_fit *out)
{
	struct fit_data d = { .obs = obs, .n = n };
	double a, b, cov[3], xq, se;

	memset(out, 0, sizeof(*out));
	if (!(q > 0 && q < 1) || !prepare(&d, &out->ntrials, &out->nbad) ||
	    !fit_ml(&d, &a, &b, cov) || !(b > 0))
		return false; /* *out still zero but for the counts */
	xq = (logit(q) - a) / b;
	if (xq * d.sd + d.mean < d.xmin || xq * d.sd + d.mean > d.xmax)
		return false;
	/* delta method: d xq / d(a, b) = (-1 / b, -xq / b) */
	se = sqrt(fmax(cov[0] + 2 * xq * cov[1] + xq * xq * cov[2], 0)) / b;
	out->chance = q;
	out->load_bps = exp(d.mean + d.sd * xq);
	out->low_bps = exp(d.mean + d.sd * (xq - KNEE_FIT_Z * se));
	out->high_bps = exp(d.mean + d.sd * (xq + KNEE_FIT_Z * se));
	out->band_low_bps = exp(d.mean + d.sd * (logit(0.1) - a) / b);
	out->band_high_bps = exp(d.mean + d.sd * (logit(0.9) - a) / b);
	return true;
}
