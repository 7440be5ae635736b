/* SPDX-License-Identifier: MIT */
/*
 * Whether a figure changed between two runs, knowing the noise of their
 * repetitions: pure statistics on two samples (change.c), no run model.
 *
 * The change is the Hodges-Lehmann estimate of the shift from sample A to
 * sample B (the median of every difference b_j - a_i) with its
 * distribution-free interval from the Mann-Whitney U statistic (Hollander
 * and Wolfe, "Nonparametric Statistical Methods", 4.3): the interval is
 * [D(k), D(mn+1-k)] of the sorted differences, k the largest with
 * P(U <= k - 1) <= alpha / 2 under the exact distribution of U when A and
 * B are one population (its normal approximation beyond CHANGE_EXACT_MAX
 * repetitions a side). It assumes nothing of the noise's shape, only that
 * repetitions are independent, and it is exact for any sample size: with
 * 3 + 3 repetitions the widest confidence it can give is 90 % (2 of the 20
 * orders of six values put all of B beyond all of A), and the interval is
 * the range of the nine differences.
 */
#ifndef OVLPERF_CHANGE_H
#define OVLPERF_CHANGE_H

#include <stdbool.h>
#include <stddef.h>

/* Beyond this many values on one side, U's normal approximation. */
#define CHANGE_EXACT_MAX 50
/* The confidence asked for by default: 3 + 3 repetitions reach it. */
#define CHANGE_DEFAULT_CONFIDENCE 0.90
/* The least relative change called a regression or progression. */
#define CHANGE_DEFAULT_THRESHOLD 0.05

struct change {
	size_t na, nb;
	double base;		    /* median of A: what the relative figures are of */
	double shift;		    /* Hodges-Lehmann estimate of B - A */
	bool has_interval;	    /* false: too few values for the confidence asked */
	double lo, hi;		    /* the interval of the shift (when has_interval) */
	double confidence;	    /* what the interval reaches (at least the one asked) */
	double pct, lo_pct, hi_pct; /* the same in % of |base|; NAN when base is 0 */
};

/* What a change says of a figure. */
enum change_verdict {
	CHANGE_NOISE = 0,  /* the interval holds zero: no change shown */
	CHANGE_SMALL,	   /* a change, within the threshold */
	CHANGE_REGRESSION, /* beyond the threshold, for the worse */
	CHANGE_PROGRESSION,
	CHANGE_DIFFERENT, /* beyond the threshold, a figure neither better nor worse */
	CHANGE_TOO_FEW,	  /* the repetitions give no interval at that confidence */
	CHANGE_UNKNOWN,	  /* a figure that is a bound, pulling against the change */
};

/* The change from a (na values) to b (nb), at confidence in (0, 1).
 * false when a side has no value. The arrays are not changed. */
bool change_compare(const double *a, size_t na, const double *b, size_t nb, double confidence,
		    struct change *out);

/* The same for a figure that cannot be negative (a rate, a delay, a
 * ratio of them), every value above 0: the shift of the logarithms (the
 * median ratio B / A, Hodges-Lehmann of log values) and its interval,
 * turned back into B - A. A relative change then never reaches -100 %,
 * whatever one wild repetition does: additive differences of a skewed
 * figure (A's p99 delays 0.12, 0.13 and 8.4 ms) put the interval's low
 * end at -6,800 % of A's median, a fall no delay can make. With a value
 * of 0 or below it is change_compare(). */
bool change_compare_ratio(const double *a, size_t na, const double *b, size_t nb, double confidence,
			  struct change *out);

/* The change from one estimate to another, each given with its interval
 * at z standard errors, symmetric in the logarithm (a soft knee's fit,
 * knee_fit.h: z KNEE_FIT_Z, 90 %): B / A and its interval at confidence
 * from the two standard errors of the log figures added in quadrature
 * (independent runs), turned back into B - A as change_compare_ratio()
 * gives it; na = nb = 1. On a soft knee this is what the figure's own
 * uncertainty allows, where the repetitions' spread is their searches'
 * luck (three NDRs of one run 20 % apart, the fits of two runs inside each
 * other's intervals). false when a value or interval is not positive. */
bool change_compare_estimates(double a, double a_lo, double a_hi, double b, double b_lo,
			      double b_hi, double z, double confidence, struct change *out);

/* The verdict of c for a figure whose better direction is better (+1:
 * higher is better, -1: lower is, 0: neither), threshold a fraction
 * (0.05; INFINITY: never beyond it, at most CHANGE_SMALL). */
enum change_verdict change_verdict(const struct change *c, int better, double threshold);

/* change_verdict() with a floor as well: a change no larger than floor
 * (in the figure's unit) is at most CHANGE_SMALL, whatever its share of
 * A (a delay of 0.1 ms that became 2 ms on a host whose scheduler delays
 * a thread by that much). */
enum change_verdict change_verdict_floor(const struct change *c, int better, double threshold,
					 double floor);

/* "noise", "small", "regression", "progression", "different",
 * "too-few", "unknown". */
const char *change_verdict_name(enum change_verdict v);

/* P(U <= u) for samples of n and m values drawn from one population (no
 * ties); exact up to CHANGE_EXACT_MAX a side, else its normal
 * approximation with continuity correction. */
double change_u_cdf(size_t n, size_t m, double u);

#endif
