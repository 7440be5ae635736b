/* SPDX-License-Identifier: MIT */
/*
 * `ovlperf report A B` as a model (report_run_diff.c builds it and prints
 * it as text) and its JSON printer (report_run_diff_json.c): every figure
 * of A matched with B's, the change with its interval from the
 * repetitions (change.h) and the verdict.
 */
#ifndef OVLPERF_REPORT_DIFF_H
#define OVLPERF_REPORT_DIFF_H

#include <stdio.h>

#include "change.h"
#include "figures.h"
#include "report_run.h"

#define REPORT_DIFF_WARN_MAX 16

struct report_diff_row {
	const struct results_figure *a, *b; /* b NULL: only in A */
	/* How B - A relates to the true difference (a bound in either run) */
	enum overhead_bound delta_bound;
	bool compared; /* ch holds the change (both have values) */
	struct change ch;
	enum change_verdict verdict;
	/* the figure's run-to-run noise in the history (--history): one run's
	 * sigma (trend.h) over that many runs; 0 runs: none */
	double hist_sigma;
	size_t hist_runs;
	double threshold; /* the relative threshold it was held to */
	/* TCP goodput the machine's CPU bound in both runs: judged as CPU */
	bool machine_bound;
	/* a one-way delay measured while other work kept the machine busy in
	 * either run (report_diff_busy_cores()): judged as CPU */
	bool machine_busy;
	double busy_cores; /* the larger of the two runs' */
	/* Either run's figure is a soft knee's fit: the change is judged
	 * against the fits' intervals (change_compare_estimates()), not the
	 * repetitions' found bounds; fit_mixed: one run's trials gave no fit,
	 * its figure and its repetitions' range stand against the other's
	 * fit */
	bool fit, fit_mixed;
	/* Either run's knee headline is "changed" (results_figure.changed):
	 * that run's repetitions disagree and it gives no figure. The change
	 * is judged by spans only (by_span): the moved run's span against the
	 * other's interval, where every change they allow is a regression or
	 * progression (ch: the least of them as its estimate). Otherwise
	 * CHANGE_UNKNOWN: the run is to be repeated. */
	bool changed, by_span;
};

/* Other work's cores (the machine's busy CPU measured with no test
 * running, before the trials: hostfacts.h's baseline) from which a run's
 * one-way delays are the scheduler's as much as the path's: a host whose
 * other work keeps half a core busy delays a test's threads by a time
 * slice (milliseconds) in its tails. Identical default runs here: p99 at
 * 50 % of the NDR 0.054 ms with the machine idle, 10.2 ms with other work
 * at 2 of 2 cores. */
#define REPORT_DIFF_BUSY_CORES 0.5

/* Runs of one figure a history needs before its noise replaces the
 * figure's documented threshold, and how many of its sigmas a change must
 * exceed (a difference of two runs has sqrt(2) sigma: about two of its own). */
#define REPORT_DIFF_HISTORY_MIN	   4
#define REPORT_DIFF_HISTORY_SIGMAS 3.0

struct report_diff {
	const struct report_run *a, *b;
	struct results_figures fa, fb;
	size_t n;
	struct report_diff_row *rows;
	size_t only_b;	/* figures of B that A lacks */
	unsigned nwarn; /* what the runs differ in besides their figures */
	char warn[REPORT_DIFF_WARN_MAX][256];
	/* The runs are not of one setup: their scenarios, labs' links (rate,
	 * delay, loss, drop), paths (addresses, MTU) or hosts (CPUs) differ,
	 * so a change may be the setup's, not the overlay's: said loudly. */
	bool setups_differ;
	unsigned regressions, progressions;
	size_t hist_runs;	/* runs read from --history (0: none) */
	unsigned machine_bound; /* rows judged as CPU for it */
	unsigned machine_busy;	/* delay rows judged as CPU for a busy machine */
	unsigned changed;	/* knee rows not judged: a run's repetitions disagree */
	unsigned by_span;	/* knee rows of such a run judged by its span */
	double threshold, confidence;
	double cpu_threshold; /* CPU figures' (0: not judged; results_figure_threshold()) */
};

int report_diff_build(struct report_diff *d, const struct report_run *a, const struct report_run *b,
		      const struct report_diff_options *o);
void report_diff_free(struct report_diff *d);
/* The diff as one JSON document (schema "ovlperf.compare", docs/json.md). */
int report_diff_json(FILE *f, const struct report_diff *d, const struct report_diff_options *o);

#endif
