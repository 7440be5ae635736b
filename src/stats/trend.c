// SPDX-License-Identifier: MIT
/* A history's constant segments by Minimum Description Length (trend.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trend.h"

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The median of n values (copied, not changed); 0 for none. */
static double median_of(const double *v, size_t n)
{
	double *c, m;

	if (!n || !(c = malloc(n * sizeof(double))))
		return 0;
	memcpy(c, v, n * sizeof(double));
	qsort(c, n, sizeof(double), cmp_double);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

double trend_noise(const double *y, size_t n, double within)
{
	double sigma = within > 0 ? within : 0, floor = TREND_NOISE_FLOOR * fabs(median_of(y, n));
	double *d;

	if (n >= 3 && (d = malloc((n - 1) * sizeof(double)))) {
		double s;

		for (size_t i = 0; i + 1 < n; i++)
			d[i] = fabs(y[i + 1] - y[i]);
		/* MAD of a normal difference, as a sigma of one value */
		s = 1.4826 * median_of(d, n - 1) / sqrt(2.0);
		free(d);
		if (s > sigma)
			sigma = s;
	}
	if (sigma < floor)
		sigma = floor;
	return sigma > 0 ? sigma : 1e-12;
}

double trend_segment_bits(const double *y, size_t a, size_t b, double sigma, double w)
{
	double mean = 0, ss = 0, n = (double)(b - a);

	for (size_t i = a; i < b; i++)
		mean += y[i];
	mean /= n;
	for (size_t i = a; i < b; i++)
		ss += (y[i] - mean) * (y[i] - mean);
	return ss / (2 * sigma * sigma * M_LN2) + log2(1 + w * sqrt(n) / sigma);
}

static double level_of(const double *y, size_t a, size_t b)
{
	double s = 0;

	for (size_t i = a; i < b; i++)
		s += y[i];
	return s / (double)(b - a);
}

static void flag(struct trend *t, int better, double threshold)
{
	for (size_t k = 1; k < t->n; k++) {
		struct trend_segment *s = &t->seg[k];
		double prev = t->seg[k - 1].level, d = s->level - prev;

		s->change_pct = prev != 0 ? 100.0 * d / fabs(prev) : 0;
		if (isinf(threshold) || (prev != 0 && fabs(d) <= threshold * fabs(prev)))
			s->verdict = CHANGE_SMALL;
		else if (!better)
			s->verdict = CHANGE_DIFFERENT;
		else
			s->verdict =
				(d > 0) == (better > 0) ? CHANGE_PROGRESSION : CHANGE_REGRESSION;
	}
}

int trend_segment(const double *y, size_t n, double sigma, int better, double threshold,
		  struct trend *out)
{
	double *best = NULL, lo = INFINITY, hi = -INFINITY, w, start_bits;
	size_t *from = NULL, k;
	int rc = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!n || !(sigma > 0))
		return -EINVAL;
	out->sigma = sigma;
	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, y[i]);
		hi = fmax(hi, y[i]);
	}
	w = hi - lo;
	start_bits = n > 1 ? log2((double)(n - 1)) : 0;
	best = malloc((n + 1) * sizeof(double));
	from = malloc((n + 1) * sizeof(size_t));
	if (!best || !from)
		goto out;
	/* best[j]: the fewest bits of y[0, j); from[j]: where its last
	 * segment starts */
	best[0] = 0;
	for (size_t j = 1; j <= n; j++) {
		best[j] = INFINITY;
		for (size_t i = 0; i < j; i++) {
			double b = best[i] + trend_segment_bits(y, i, j, sigma, w) +
				   (i ? start_bits : 0);

			if (b < best[j]) {
				best[j] = b;
				from[j] = i;
			}
		}
	}
	k = 0;
	for (size_t j = n; j > 0; j = from[j])
		k++;
	out->seg = calloc(k, sizeof(*out->seg));
	if (!out->seg)
		goto out;
	out->n = k;
	for (size_t j = n; j > 0; j = from[j]) {
		struct trend_segment *s = &out->seg[--k];

		s->start = from[j];
		s->end = j;
		s->level = level_of(y, s->start, s->end);
	}
	flag(out, better, threshold);
	rc = 0;
out:
	free(best);
	free(from);
	return rc;
}

void trend_free(struct trend *t)
{
	free(t->seg);
	t->seg = NULL;
	t->n = 0;
}
