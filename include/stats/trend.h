/* SPDX-License-Identifier: MIT */
/*
 * A figure's history grouped into constant segments (trend.c): pure, on a
 * plain array of the runs' values in time order.
 *
 * As FD.io CSIT's trending does (its jumpavg library), the history is
 * modelled as a concatenation of segments, within each the values drawn
 * independently from one normal distribution, and the segmentation chosen
 * is the one that describes the history in the fewest bits (Minimum
 * Description Length): every value coded against its segment's mean, plus
 * each segment's mean, plus where each segment starts. Unlike jumpavg, the
 * noise is one sigma for the whole history, the larger of what the runs'
 * repetitions scatter by and what consecutive runs differ by (robustly, so
 * one step does not count as noise): a segment's own standard deviation
 * from the three or four runs a schedule adds between changes is too
 * uncertain to find any step. The bits of a segmentation, for R runs, K
 * segments of n_k values with means m_k, values spanning W:
 *
 *   sum_k [ sum_(i in k) (y_i - m_k)^2 / (2 sigma^2 ln 2)
 *           + log2(1 + W sqrt(n_k) / sigma) ]   + (K - 1) log2(R - 1)
 *
 * (a mean coded uniformly over W to the precision its values give it,
 * sigma / sqrt(n_k); a start among the R - 1 gaps between runs; the bits
 * every segmentation spends alike are left out). The best of all
 * segmentations is found exactly by dynamic programming, O(R^2).
 */
#ifndef OVLPERF_TREND_H
#define OVLPERF_TREND_H

#include <stdbool.h>
#include <stddef.h>

#include "change.h"

/* The noise of a run's figure is never taken below this share of the
 * history's median: equal values (a knee at max_rate) are not noiseless. */
#define TREND_NOISE_FLOOR 0.001

struct trend_segment {
	size_t start, end; /* the runs [start, end) */
	double level;	   /* the mean of their values */
	/* against the previous segment, in % of its level (0 for the first),
	 * and what that says of the figure (change_verdict()'s words:
	 * regression, progression, small, different) */
	double change_pct;
	enum change_verdict verdict;
};

struct trend {
	double sigma; /* the noise the history was segmented with */
	size_t n;
	struct trend_segment *seg;
};

/* The noise of one run's figure in a history of n values y (time order):
 * the larger of within (the spread the repetitions give a run's figure, 0:
 * unknown) and the robust spread of consecutive differences
 * (1.4826 * median |y_(i+1) - y_i| / sqrt 2), never below TREND_NOISE_FLOOR
 * of the median of y. */
double trend_noise(const double *y, size_t n, double within);

/* The segments of y (n values, n >= 1) at noise sigma > 0, each flagged
 * against the previous: a regression or progression when its level
 * differs by more than threshold (a fraction) in the direction better says
 * (+1 higher is better, -1 lower, 0 neither: "different"), else "small".
 * 0, -EINVAL or -ENOMEM. */
int trend_segment(const double *y, size_t n, double sigma, int better, double threshold,
		  struct trend *out);
void trend_free(struct trend *t);

/* The description length in bits of y[a, b) as one segment at sigma, with
 * the span w of the whole history: exposed for the unit tests. */
double trend_segment_bits(const double *y, size_t a, size_t b, double sigma, double w);

#endif
