/* SPDX-License-Identifier: MIT */
/*
 * `ovlperf run`: the comparison suite. A scenario (scenario.h) names the
 * hosts, the paths and the loads; the run brings the paths up (lab, built-in
 * overlay, external setup commands, the far end's server), runs identical
 * loads on every path interleaved (A, B, A, B ...) for each repetition, and
 * records every trial in the run model (results.h). The printers then write
 * results/<UTC time>-<scenario>/: run.json, summary.csv, report.md, *.svg.
 *
 * The files:
 *   run.c         run_scenario(): directories, order of phases, stopping
 *   run_paths.c   bringing paths up and down, the server, health checks
 *   run_trials.c  the trial plan: TCP, linear sweeps, knee searches, delay
 *   run_mtu.c     the MTU / MSS checks and their verdicts (mtu.h)
 *   run_output.c  writing the results directory (also for `ovlperf report`)
 *
 * Stopping: Ctrl-C (SIGINT/SIGTERM/SIGHUP through interrupt.h), a host or
 * server that dies, or a path that stops answering ends the run at once.
 * Everything the run created is removed (servers, tunnels, namespaces,
 * external teardown commands run) and run.json keeps what was measured,
 * marked "complete": false with the reason.
 */
#ifndef OVLPERF_RUN_H
#define OVLPERF_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "load.h"
#include "results.h"
#include "scenario.h"

#define RUN_DEFAULT_SCENARIO "scenarios/default.ini"
#define RUN_DEFAULT_RESULTS  "results"
/* Consecutive failed trials on one path before the run stops. */
#define RUN_MAX_PATH_FAILURES 2
/* How long the far end's server may take to listen. */
#define RUN_SERVER_WAIT_MS 5000
/* Longest an external path's setup or teardown command may run. */
#define RUN_COMMAND_TIMEOUT_S 120
/* Pause between trials so queues drain and the previous test's sockets close. */
#define RUN_TRIAL_GAP_MS 200

/* Runs one load test: load_run_hooks() in production, a simulated path in
 * the unit tests (same contract). */
typedef int (*run_runner_fn)(void *arg, const struct load_spec *spec, struct load_result *res,
			     const struct load_hooks *hooks);

struct run_options {
	const char *results_root; /* NULL: RUN_DEFAULT_RESULTS */
	const char *out_dir;	  /* exact results directory; NULL: under the root */
	bool progress;		  /* progress line on stderr */
	unsigned repetitions;	  /* 0: the scenario's */
	bool no_plots;		  /* skip gnuplot */
	FILE *term;		  /* the summary at the end; NULL: stdout */
	bool no_summary;	  /* print no summary at all */
	run_runner_fn runner;	  /* NULL: load_run_hooks */
	void *runner_arg;
	bool no_gap; /* no RUN_TRIAL_GAP_MS pause (simulated paths) */
	/* out (NULL: not wanted): the files of the results directory that
	 * could not be written, ", "-separated; "" when all were */
	char *unwritten;
	size_t unwritten_len;
};

/* Runs a parsed scenario (text: the file verbatim, for run.json). Fills res
 * (the caller frees it with results_free()) and writes the results directory,
 * whose path goes to dir. Returns 0 when the run completed, -EINTR when it
 * was interrupted, another negative errno when it failed; in the last two
 * cases res and run.json hold what was measured, complete = false. A run
 * that completed but could not write a file of its directory returns -EIO
 * (the files named in opt->unwritten and on stderr). */
int run_scenario(const struct scenario *scn, const char *text, const struct run_options *opt,
		 struct results_run *res, char *dir, size_t dirlen);

/* Writes summary.csv, report.md and the plots for res into dir, and prints
 * the terminal summary to term (NULL: none). run.json is written by the run
 * itself. 0 or a negative errno; the files that could not be written (a
 * write, flush or close failed, gnuplot failed or cut an SVG short) are
 * added to unwritten (", "-separated; may be NULL; what it holds already,
 * such as a run.json the caller could not write, counts as unwritten too),
 * logged, and the summary says so instead of pointing at them. */
int run_output_write(const struct results_run *res, const char *dir, bool plots, FILE *term,
		     char *unwritten, size_t len);

/* Prints what a scenario will do: hosts, links, paths, and per phase the
 * number of trials and the time they take (knee searches estimated). */
void run_plan_describe(const struct scenario *scn, unsigned repetitions, FILE *f);

#endif
