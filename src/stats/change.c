// SPDX-License-Identifier: MIT
/*
 * The change between two samples: Hodges-Lehmann shift and its
 * Mann-Whitney interval (change.h), and the verdict a threshold gives it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "change.h"

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static double median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The number of orders of n A-values and m B-values with U = u, for every
 * u in 0..nm (malloc'ed, nm + 1 entries): by the last value of an order,
 * a B after i A-values adds i to U, an A adds nothing, so
 * N(i, j, u) = N(i, j - 1, u - i) + N(i - 1, j, u). */
static double *u_counts(size_t n, size_t m)
{
	size_t w = n * m + 1;
	double *prev = calloc((m + 1) * w, sizeof(double));
	double *cur = calloc((m + 1) * w, sizeof(double));
	double *out = NULL;

	if (!prev || !cur)
		goto out;
	for (size_t j = 0; j <= m; j++)
		prev[j * w] = 1; /* no A: one order, U = 0 */
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 0; j <= m; j++)
			for (size_t u = 0; u < w; u++)
				cur[j * w + u] = prev[j * w + u] +
						 (j && u >= i ? cur[(j - 1) * w + u - i] : 0);
		double *t = prev;

		prev = cur;
		cur = t;
	}
	out = malloc(w * sizeof(double));
	if (out)
		memcpy(out, prev + m * w, w * sizeof(double));
out:
	free(prev);
	free(cur);
	return out;
}

static double normal_cdf(double z)
{
	return 0.5 * erfc(-z / sqrt(2.0));
}

static double approx_cdf(size_t n, size_t m, double u)
{
	double mean = (double)n * (double)m / 2;
	double sd = sqrt((double)n * (double)m * (double)(n + m + 1) / 12);

	return normal_cdf((u + 0.5 - mean) / sd);
}

double change_u_cdf(size_t n, size_t m, double u)
{
	double *c, sum = 0, total = 0;

	if (u < 0)
		return 0;
	if (u >= (double)n * (double)m)
		return 1;
	if (n > CHANGE_EXACT_MAX || m > CHANGE_EXACT_MAX)
		return approx_cdf(n, m, u);
	c = u_counts(n, m);
	if (!c)
		return approx_cdf(n, m, u);
	for (size_t i = 0; i <= n * m; i++) {
		total += c[i];
		if ((double)i <= u)
			sum += c[i];
	}
	free(c);
	return sum / total;
}

/* The rank k of the interval's ends (1-based) and the confidence it
 * reaches; 0 when even k = 1 does not reach confidence. */
static size_t interval_rank(size_t n, size_t m, double confidence, double *reached)
{
	double half = (1 - confidence) / 2, *c = NULL, total = 0, cdf = 0;
	size_t k = 0, nm = n * m;
	bool exact = n <= CHANGE_EXACT_MAX && m <= CHANGE_EXACT_MAX;

	if (exact && !(c = u_counts(n, m)))
		exact = false;
	for (size_t i = 0; exact && i <= nm; i++)
		total += c[i];
	/* k grows while P(U <= k - 1) stays within alpha / 2 */
	for (size_t u = 0; u < (nm + 1) / 2; u++) {
		double p = exact ? (cdf += c[u]) / total : approx_cdf(n, m, (double)u);

		if (p > half * (1 + 1e-12))
			break;
		k = u + 1;
		*reached = 1 - 2 * p;
	}
	free(c);
	return k;
}

static double pct_of(double x, double base)
{
	return base != 0 ? 100.0 * x / fabs(base) : NAN;
}

bool change_compare(const double *a, size_t na, const double *b, size_t nb, double confidence,
		    struct change *out)
{
	double *sa, *d;
	size_t nd = na * nb, k;

	memset(out, 0, sizeof(*out));
	out->na = na;
	out->nb = nb;
	if (!na || !nb)
		return false;
	sa = malloc(na * sizeof(double));
	d = malloc(nd * sizeof(double));
	if (!sa || !d) {
		free(sa);
		free(d);
		return false;
	}
	memcpy(sa, a, na * sizeof(double));
	qsort(sa, na, sizeof(double), cmp_double);
	out->base = median_sorted(sa, na);
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			d[i * nb + j] = b[j] - a[i];
	qsort(d, nd, sizeof(double), cmp_double);
	out->shift = median_sorted(d, nd);
	k = interval_rank(na, nb, confidence, &out->confidence);
	if (k) {
		out->has_interval = true;
		out->lo = d[k - 1];
		out->hi = d[nd - k];
	}
	out->pct = pct_of(out->shift, out->base);
	out->lo_pct = out->has_interval ? pct_of(out->lo, out->base) : NAN;
	out->hi_pct = out->has_interval ? pct_of(out->hi, out->base) : NAN;
	free(sa);
	free(d);
	return true;
}

bool change_compare_ratio(const double *a, size_t na, const double *b, size_t nb, double confidence,
			  struct change *out)
{
	double *la, *lb;
	struct change l;
	bool ok = false, pos = true;

	for (size_t i = 0; i < na; i++)
		pos &= a[i] > 0;
	for (size_t j = 0; j < nb; j++)
		pos &= b[j] > 0;
	if (!change_compare(a, na, b, nb, confidence, out) || !pos)
		return out->na && out->nb;
	la = malloc(na * sizeof(double));
	lb = malloc(nb * sizeof(double));
	if (la && lb) {
		for (size_t i = 0; i < na; i++)
			la[i] = log(a[i]);
		for (size_t j = 0; j < nb; j++)
			lb[j] = log(b[j]);
		ok = change_compare(la, na, lb, nb, confidence, &l);
	}
	free(la);
	free(lb);
	if (!ok)
		return true; /* the additive change stands */
	/* out->base stays A's median, the figure the reports give */
	out->shift = out->base * expm1(l.shift);
	out->pct = 100 * expm1(l.shift);
	out->has_interval = l.has_interval;
	out->confidence = l.confidence;
	if (l.has_interval) {
		out->lo = out->base * expm1(l.lo);
		out->hi = out->base * expm1(l.hi);
		out->lo_pct = 100 * expm1(l.lo);
		out->hi_pct = 100 * expm1(l.hi);
	}
	return true;
}

/* z of a two-sided interval at confidence c: the normal quantile of
 * (1 + c) / 2, by bisection on erfc (to 1e-12, well inside any use). */
static double z_of(double c)
{
	double lo = 0, hi = 10, p = (1 - c) / 2;

	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (0.5 * erfc(mid / M_SQRT2) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

bool change_compare_estimates(double a, double a_lo, double a_hi, double b, double b_lo,
			      double b_hi, double z, double confidence, struct change *out)
{
	double sa, sb, d, se, zc;

	memset(out, 0, sizeof(*out));
	if (!(a > 0 && b > 0 && a_lo > 0 && a_hi >= a_lo && b_lo > 0 && b_hi >= b_lo && z > 0))
		return false;
	out->na = out->nb = 1;
	out->base = a;
	sa = log(a_hi / a_lo) / (2 * z);
	sb = log(b_hi / b_lo) / (2 * z);
	d = log(b / a);
	se = sqrt(sa * sa + sb * sb);
	zc = z_of(confidence);
	out->shift = a * expm1(d);
	out->pct = 100 * expm1(d);
	out->has_interval = true;
	out->confidence = confidence;
	out->lo = a * expm1(d - zc * se);
	out->hi = a * expm1(d + zc * se);
	out->lo_pct = 100 * expm1(d - zc * se);
	out->hi_pct = 100 * expm1(d + zc * se);
	return true;
}

enum change_verdict change_verdict_floor(const struct change *c, int better, double threshold,
					 double floor)
{
	enum change_verdict v = change_verdict(c, better, threshold);

	if ((v == CHANGE_REGRESSION || v == CHANGE_PROGRESSION || v == CHANGE_DIFFERENT) &&
	    fabs(c->shift) <= floor)
		return CHANGE_SMALL;
	return v;
}

enum change_verdict change_verdict(const struct change *c, int better, double threshold)
{
	if (!c->has_interval)
		return CHANGE_TOO_FEW;
	if (c->lo <= 0 && c->hi >= 0)
		return CHANGE_NOISE;
	/* a base of zero: any change is beyond every relative threshold but
	 * an infinite one (a figure not judged) */
	if (isinf(threshold) || (c->base != 0 && fabs(c->shift) <= threshold * fabs(c->base)))
		return CHANGE_SMALL;
	if (!better)
		return CHANGE_DIFFERENT;
	return (c->shift > 0) == (better > 0) ? CHANGE_PROGRESSION : CHANGE_REGRESSION;
}

const char *change_verdict_name(enum change_verdict v)
{
	static const char *const names[] = {
		[CHANGE_NOISE] = "noise",	    [CHANGE_SMALL] = "small",
		[CHANGE_REGRESSION] = "regression", [CHANGE_PROGRESSION] = "progression",
		[CHANGE_DIFFERENT] = "different",   [CHANGE_TOO_FEW] = "too-few",
		[CHANGE_UNKNOWN] = "unknown",
	};

	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}
