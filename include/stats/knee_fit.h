/* SPDX-License-Identifier: MIT */
/*
 * Where a soft knee lies, from every trial at once (knee_fit.c): pure
 * statistics, no run model.
 *
 * On a noisy system (a userspace VPN whose threads are scheduled away now
 * and then) whether a trial loses is chance over a wide band of loads: the
 * chance rises from none to all over tens of Mbit/s. RFC 9971's relevant
 * lower bound at an exceed ratio of 50 % is then the highest load a few
 * trials happened to pass, and it moves with their luck. Every trial of the
 * search says something of that chance, so they are fitted together: the
 * chance that a trial exceeds the loss ratio is taken as logistic in the
 * logarithm of the load,
 *
 *	P(bad | load) = 1 / (1 + exp(-(a + b ln load))),  b > 0,
 *
 * by maximum likelihood (Newton-Raphson with step halving; D. R. Cox,
 * "The Analysis of Binary Data", 1970), and the figure is the load at
 * which that chance is the exceed ratio: the load the path carries in that
 * share of its trial time, the conditional NDR the bounds bracket, given
 * with the interval of its standard error (the delta method on the inverse
 * Fisher information). A knee without overlap (every good trial below every
 * bad one: a shaped link, the built-in overlay) has no maximum-likelihood
 * fit and gets none: its bounds are the answer there.
 *
 * Repetitions: whether they saw one knee (knee_fit_reps()). Each
 * repetition gets an intercept of its own under one common slope, so that
 * a repetition whose own trials do not overlap still gets a figure, placed
 * by the others' slope; and the likelihood ratio of that model against one
 * curve for all (Cox, ch. 4) says whether their knees differ by more than
 * their trials' luck: the chi-square test on (repetitions - 1) degrees of
 * freedom. A small p says the path itself changed between repetitions
 * (other load on the host, the VPN's own state), which no number of
 * trials narrows; a large one, that their spread is luck and the pooled
 * figure is the one to compare.
 */
#ifndef OVLPERF_KNEE_FIT_H
#define OVLPERF_KNEE_FIT_H

#include <stdbool.h>
#include <stddef.h>

/* The fewest trials, and the fewest of each kind, a fit is made from. */
#define KNEE_FIT_MIN_TRIALS 8
#define KNEE_FIT_MIN_EACH   2
/* z of the interval given: 90 %, two-sided. */
#define KNEE_FIT_Z 1.6448536269514722
/* Repetitions compared (a scenario has at most 100); trials of a higher
 * repetition number are left out of the comparison. */
#define KNEE_FIT_MAX_REPS 128
/* Below this p the repetitions' knees are said to differ. 1 %, not 5 %:
 * the test holds where the chance of loss is logistic in ln load, and a
 * knee of another shape, sampled by each repetition's search at loads of
 * its own, reads as a difference more often than the test's size (a
 * stationary 0.01 % random drop, whose curve is a complementary log-log,
 * gave p of 0.029, 0.033, 0.056, 0.49 and 0.74 in five runs here). */
#define KNEE_FIT_DIFFER_P 0.01

/* One trial: its offered load, whether it lost more than the loss ratio,
 * and its repetition (0-based; knee_fit() pools them all). */
struct knee_fit_obs {
	double load_bps;
	bool bad;
	unsigned rep;
};

struct knee_fit {
	double chance;		  /* the q asked for: the exceed ratio */
	double load_bps;	  /* where P(bad) = chance */
	double low_bps, high_bps; /* its 90 % interval */
	double band_low_bps;	  /* where P(bad) = 10 %, and */
	double band_high_bps;	  /* where it is 90 %: how soft the knee is */
	unsigned ntrials, nbad;	  /* the trials fitted */
};

/* Fits n trials (loads > 0; others are skipped) and gives the load at which
 * a trial exceeds the loss ratio with probability q (0 < q < 1). false, with
 * *out zeroed, when there is no fit: too few trials, no overlap between good
 * and bad ones, a chance that falls with the load, or a figure outside the
 * loads tried. */
bool knee_fit(const struct knee_fit_obs *obs, size_t n, double q, struct knee_fit *out);

/* One repetition under the common slope. */
struct knee_fit_rep {
	unsigned rep;	  /* its number */
	unsigned ntrials; /* its trials, and */
	unsigned nbad;	  /* those that lost */
	double load_bps;  /* where its P(bad) = q; 0: none (no good or no
			   * bad trial of its own, or outside the loads tried) */
};

struct knee_fit_reps {
	unsigned n; /* repetitions with trials, in rep order */
	struct knee_fit_rep rep[KNEE_FIT_MAX_REPS];
	unsigned nfit; /* of them with a figure: those compared */
	double slope;  /* the common b, per unit of ln load */
	double lr;     /* 2 (ln L of a curve each - ln L of one curve) */
	unsigned df;   /* nfit - 1 */
	double p;      /* the chance of an lr this large were they alike */
};

/* Fits each repetition's intercept under one slope (q as knee_fit()) and
 * tests them against one curve. false when fewer than two repetitions have
 * both good and bad trials, too few trials, or no slope (no overlap in
 * any repetition, or a chance that falls with the load); out->n and the
 * per-repetition counts are still filled. */
bool knee_fit_reps(const struct knee_fit_obs *obs, size_t n, double q, struct knee_fit_reps *out);

/* P(X >= x) for X chi-square with df degrees of freedom (df >= 1). */
double knee_fit_chi2_sf(double x, unsigned df);

#endif
