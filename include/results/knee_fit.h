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

/* One trial: its offered load and whether it lost more than the loss ratio. */
struct knee_fit_obs {
	double load_bps;
	bool bad;
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

#endif
