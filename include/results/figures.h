/* SPDX-License-Identifier: MIT */
/*
 * Every figure of a run with the values of its repetitions (figures.c):
 * what `ovlperf report A B` compares and `report --trend` follows from run
 * to run. A figure is named by what it is, its path and its key (stream
 * count or datagram size), and a delay by its load's share of the NDR, so
 * two runs of one scenario name the same figure alike. Its value is the one
 * the reports give (the median over the repetitions, results_aggregate());
 * its repetitions' values are what the noise is judged from.
 */
#ifndef OVLPERF_FIGURES_H
#define OVLPERF_FIGURES_H

#include <stdbool.h>
#include <stddef.h>

#include "overhead.h"
#include "results.h"

/* The repetitions kept of one figure (a scenario allows up to 100). */
#define RESULTS_FIGURE_REPS 100

struct results_figure {
	char what[48]; /* "TCP goodput", "UDP NDR", "delay p50 ms @90%", "ratio TCP goodput" */
	enum overhead_metric metric;
	bool ratio; /* overlay / underlay, each repetition against its own */
	char path[RESULTS_NAME_MAX];
	unsigned key;
	const char *key_unit; /* "streams" or "bytes" */
	double load_pct;      /* delay figures: the load's share of the NDR; else 0 */
	double value;	      /* as the reports give it */
	bool rate;	      /* bit/s */
	int better;	      /* +1 higher is better, -1 lower is, 0 neither */
	enum overhead_bound bound;
	/* An NDR or PDR whose headline is a soft knee's fit (results_head):
	 * value is the fit. Whenever its trials give a fit (fit_est), its
	 * load and 90 % interval: `report A B` judges a change where either
	 * run's headline is a fit by the two fits, not by the repetitions'
	 * found bounds in v. */
	bool fit, fit_est;
	double fit_bps, fit_low, fit_high;
	/* An NDR or PDR whose headline is "changed": the repetitions' test
	 * found the path's knee moved between repetitions, so the run gives
	 * no figure; value is its repetitions' found median, for reference.
	 * No change between runs is judged on it, and no history takes it. */
	bool changed;
	/* A changed figure's span: where its repetitions put the knee, from
	 * the least rate a repetition achieved lossless (0 where one lost at
	 * the search's minimum) to the highest it was offered and lost at
	 * (INFINITY where one lost nothing up to its maximum or has no such
	 * rate), widened to its pooled fit's interval if any. The path moved
	 * within it; `report A B` holds it against the other run's interval. */
	double moved_low, moved_high;
	size_t n;
	double v[RESULTS_FIGURE_REPS]; /* each repetition's value */
};

struct results_figures {
	size_t n;
	struct results_figure *f;
};

/* The figures of run (sum and ov derived from it). 0 or -ENOMEM. */
int results_figures(const struct results_run *run, const struct results_summary *sum,
		    const struct overhead *ov, struct results_figures *out);
void results_figures_free(struct results_figures *fs);
/* The figure of fs that names the same figure as x, or NULL. */
const struct results_figure *results_figures_match(const struct results_figures *fs,
						   const struct results_figure *x);
/* CPU per Gbit (of the test processes or of the whole machine, and their
 * overlay / underlay ratios) moves between runs of one unchanged setup far
 * beyond what its repetitions show: the share of a shared machine a run
 * gets, its CPU frequency, the other tenants of a VM change from run to
 * run, not from repetition to repetition (docs/compare.md measured -16 %,
 * +17 % and +194 % between identical runs). No fixed threshold tells that
 * from a change there, so a CPU figure has a threshold of its own, and by
 * default none: its change and interval are given, never called a
 * regression or progression (at most "small"), unless one is asked for. */
bool results_figure_is_cpu(const struct results_figure *x);
/* The threshold (a fraction) that applies to x: for a CPU figure
 * cpu_threshold, or INFINITY (not judged) when it is 0; else threshold. */
double results_figure_threshold(const struct results_figure *x, double threshold,
				double cpu_threshold);

/* What `report A B` holds a figure's change to between two runs, beyond
 * what their repetitions show (docs/compare.md, "Between runs"): two runs
 * of one unchanged setup differ by more than repetitions of one run do.
 * Rates (goodput, NDR, PDR) and their ratios: threshold, or
 * RESULTS_GATE_RATE when none is given (0). One-way delay: its share
 * RESULTS_GATE_P50 / _P99 (or threshold when larger) and a floor in ms,
 * RESULTS_GATE_P50_MS / _P99_MS: a delay's tail on a shared host is its
 * scheduler's (a thread woken a few ms late), not the path's, and moves
 * from run to run by whole milliseconds, so a tail is judged on its own
 * terms, in milliseconds; a ratio of delays (their quotient, which a
 * delay of 0.1 ms makes swing by x17) is not judged (INFINITY). CPU per
 * Gbit: results_figure_threshold(). */
#define RESULTS_GATE_RATE   0.10
#define RESULTS_GATE_P50    0.25
#define RESULTS_GATE_P99    0.50
#define RESULTS_GATE_P50_MS 1.0
#define RESULTS_GATE_P99_MS 10.0
void results_figure_gate(const struct results_figure *x, double threshold, double cpu_threshold,
			 double *rel, double *floor);

/* A stable name for JSON and OpenMetrics: the metric's name
 * ("tcp_goodput_bps"), "ratio_" before it for a ratio. */
void results_figure_name(const struct results_figure *x, char *buf, size_t len);

#endif
