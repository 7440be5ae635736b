/* SPDX-License-Identifier: MIT */
/*
 * Printers of a run (the run model of results.h), in src/report/: the
 * terminal summary (report_run_term.c), report.md (report_run_md.c),
 * summary.csv (report_run_csv.c), the comparison of two runs
 * (report_run_diff.c), the SVG plots (report_run_plot.c, gnuplot) and the
 * files of a results directory (report_run_out.c). They only read; nothing
 * here measures.
 */
#ifndef OVLPERF_REPORT_RUN_H
#define OVLPERF_REPORT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "overhead.h"
#include "results.h"

/* A run with its derived figures, computed once for all printers. */
struct report_run {
	const struct results_run *run;
	struct results_summary sum;
	struct overhead ov;
};

int report_run_prepare(struct report_run *rr, const struct results_run *run);
void report_run_release(struct report_run *rr);

/* Compact summary: TCP and UDP figures per path, overhead ratios, MTU
 * verdicts; with sweeps, per path and size a table
 * `offered | RX/TX pps | Mbit/s | delivered % |#####|`. */
void report_run_term(FILE *f, const struct report_run *rr);
/* Only the sweep tables. */
void report_run_term_sweeps(FILE *f, const struct report_run *rr);

#define PLOT_MAX      4
#define PLOT_FILE_MAX 32

/* The plots written into a results directory. */
struct plot_set {
	unsigned n;
	char file[PLOT_MAX][PLOT_FILE_MAX]; /* e.g. "delivered.svg" */
	char title[PLOT_MAX][64];
	char note[128];	     /* why plots are missing, or "" */
	char unwritten[256]; /* files that could not be written ("a.gp, a.svg"), or "" */
};

/* report.md: tables, the scenario, the host, MTU verdicts, every trial, and
 * the plots in set linked. Returns 0 or -EIO. */
int report_run_md(FILE *f, const struct report_run *rr, const struct plot_set *set);
/* summary.csv: one row per figure and path. Returns 0 or -EIO. */
int report_run_csv(FILE *f, const struct report_run *rr);

/* The run's figures as OpenMetrics text (report_run_om.c), ending in
 * "# EOF". Returns 0 or -EIO. */
int report_run_openmetrics(FILE *f, const struct report_run *rr);
/* The same written to path atomically (a temporary file beside it, then a
 * rename), for a textfile collector that may read it at any moment.
 * 0 or a negative errno (logged with the path). */
int report_run_openmetrics_file(const char *path, const struct report_run *rr);
/* report.html (report_run_html.c): report.md as one self-contained HTML
 * page, the SVG plots of set read from dir and embedded. 0 or -EIO. */
int report_run_html(FILE *f, const struct report_run *rr, const struct plot_set *set,
		    const char *dir);
/* The plots already in dir (from an earlier render) into set. */
void report_run_plot_existing(const char *dir, struct plot_set *set);

/* `ovlperf report DIR1 DIR2`: the figures both runs have, with deltas, each
 * change's interval from the repetitions and its verdict (change.h). */
struct report_diff_options {
	double threshold;	   /* fraction (0.05); 0: CHANGE_DEFAULT_THRESHOLD */
	double confidence;	   /* (0.90); 0: CHANGE_DEFAULT_CONFIDENCE */
	double cpu_threshold;	   /* CPU figures' (0: not judged) */
	bool json;		   /* one JSON document instead of the table */
	const char *dir_a, *dir_b; /* the runs' directories, as named */
	/* a results root (or run directory) of earlier runs of A's scenario:
	 * each figure's run-to-run noise from them (NULL: none) */
	const char *history;
};
/* The number of regressions (>= 0) or a negative errno; o may be NULL. */
int report_run_diff(FILE *f, const struct report_run *a, const struct report_run *b,
		    const struct report_diff_options *o);

/* Writes DIR/<name>.gp for each plot the run has data for (delivered % vs
 * offered rate with the knees marked, TCP goodput vs streams, delay vs
 * offered load) and renders it with gnuplot into DIR/<name>.svg. Plots that
 * rendered are listed in set; without gnuplot set->note says so and 0 is
 * returned (a run is not failed for missing plots). A script or an SVG that
 * could not be written completely (a write error, gnuplot failing, an SVG
 * cut short) is named in set->unwritten and the result is -EIO. */
int report_run_plot(const struct report_run *rr, const char *dir, struct plot_set *set);

/* Writes summary.csv, report.md, report.html and the plots for res into
 * dir, and prints the terminal summary to term (NULL: none). run.json is
 * written by the run itself. 0 or a negative errno; the files that could not
 * be written (a write, flush or close failed, gnuplot failed or cut an SVG
 * short) are added to unwritten (", "-separated; may be NULL; what it holds
 * already, such as a run.json the caller could not write, counts as
 * unwritten too), logged, and the summary says so instead of pointing at
 * them. */
int report_run_out_write(const struct results_run *res, const char *dir, bool plots, FILE *term,
			 char *unwritten, size_t len);

/* Helpers shared by the printers (report_fmt.c). */
/* "812.3 Mbit/s", "2.41 Gbit/s", "950 kbit/s" */
void report_run_fmt_rate(char *buf, size_t len, double bps);
/* "1.2M", "830k", "950" packets per second */
void report_run_fmt_pps(char *buf, size_t len, double pps);
/* "2m31s", "12.5s" */
void report_run_fmt_time(char *buf, size_t len, double s);
/* Where lost datagrams went, largest share first: "network 100%" or
 * "receiver socket buffer 93%, network 7%"; "no loss counted" if none. */
void report_run_loss_where(char *buf, size_t len, const struct loss_attrib *l);
/* The loss the knee and MRR trials above the NDR counted, as a sentence:
 * "tunnel daemons 100%: 3 of 5 trials lost 31 % (1.2M datagrams), up to
 * 57.3 % at 10 Gbit/s"; "none lost in 3 trials" (with, when the path
 * queued instead, by how much its arrivals fell short); "no trial above it". */
void report_run_knee_above(char *buf, size_t len, const struct results_knee_point *p);
/* How far knee trial t's queue grew through it (ms) when beyond the
 * search's queue tolerance (knee.h): it was lossless only for its length;
 * 0 when within it (or not a knee trial). */
double report_run_trial_queued_ms(const struct results_trial *t);
/* The NDR's spread over the repetitions as a sentence ("" with fewer than
 * two); true when it is a warning: wider than the search's width, with
 * where the trials that disagreed lost and the fix. */
bool report_run_knee_repeat(char *buf, size_t len, const struct results_knee_point *p);
/* Where a soft knee lies, fitted from all its trials (results_knee_point's
 * ndr_fit), as a sentence; "" and false when the trials give no fit. */
bool report_run_knee_fit(char *buf, size_t len, const struct results_knee_point *p);
/* The searches cut short by max_trials or max_time, as a sentence; "" and
 * false when none was. */
bool report_run_knee_cut(char *buf, size_t len, const struct results_knee_point *p);

/* The trials repeated because the sender stalled, as a sentence; "" and
 * false when there were none. */
bool report_run_knee_stalls(char *buf, size_t len, const struct results_knee_point *p);

#endif
