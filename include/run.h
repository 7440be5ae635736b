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
 *   run_plan.c    the plan: trials and time per phase, before any runs
 *   run_trials.c  the trials: TCP, linear sweeps, knee searches, delay
 *   run_mtu.c     the MTU / MSS checks and their verdicts (mtu.h)
 * and in src/report/: run_output.c (the results directory besides run.json,
 * the summary; also for `ovlperf report`), report_run_plan.c (`run
 * --dry-run`).
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

/* The phases of a run, in the order they run. */
enum run_phase {
	RUN_PHASE_MTU,	 /* MTU / MSS checks (no trials) */
	RUN_PHASE_TCP,	 /* TCP goodput per stream count */
	RUN_PHASE_SWEEP, /* linear UDP sweeps */
	RUN_PHASE_KNEE,	 /* UDP knee searches (trials estimated) */
	RUN_PHASE_DELAY, /* one-way delay at a common load */
	RUN_PHASE_N,
};

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
};

/* Runs a parsed scenario (text: the file verbatim, for run.json). Fills res
 * (the caller frees it with results_free()) and writes the results directory,
 * whose path goes to dir. Returns 0 when the run completed, -EINTR when it
 * was interrupted, another negative errno when it failed; in the last two
 * cases res and run.json hold what was measured, complete = false. */
int run_scenario(const struct scenario *scn, const char *text, const struct run_options *opt,
		 struct results_run *res, char *dir, size_t dirlen);

/* Writes summary.csv, report.md and the plots for res into dir, and prints
 * the terminal summary to term (NULL: none). run.json is written by the run
 * itself. 0 or a negative errno. */
int run_output_write(const struct results_run *res, const char *dir, bool plots, FILE *term);

/* What a scenario will do, without doing it: hosts, links, paths, and per
 * phase the number of trials and the trial time they take (knee searches by
 * the search's own estimate). Strings point into the scenario. */
struct run_plan_link {
	unsigned a, b;	   /* host indexes */
	uint32_t mtu;	   /* the MTU the lab gives it */
	uint64_t rate_bps; /* tbf rate; 0: unshaped */
	double drop_pct;
	bool block_icmp;
};

struct run_plan_path {
	const char *name;
	enum scenario_path_type type;
	int family; /* AF_INET, AF_INET6: the test traffic */
	const char *address;
};

struct run_plan_phase {
	bool enabled;
	uint64_t trials;  /* every repetition, size and path */
	uint64_t time_ns; /* trial time, without setup and gaps */
};

struct run_plan {
	const char *name, *file, *description;
	bool lab; /* a lab on this machine (else remote hosts) */
	const char *lab_name;
	unsigned hosts, client, server;
	unsigned nlinks;
	struct run_plan_link links[LAB_MAX_LINKS];
	unsigned npaths;
	struct run_plan_path paths[SCN_MAX_PATHS];

	unsigned reps;
	bool interleave;
	struct run_plan_phase phase[RUN_PHASE_N];
	unsigned tcp_nstreams;		       /* TCP: stream counts */
	unsigned sweep_points;		       /* sweep: rates per path and size */
	uint64_t sweep_from_bps, sweep_to_bps; /* sweep: the range */
	uint64_t knee_max_rate_bps;	       /* knee: where the search starts */
	uint64_t trials, time_ns;	       /* all phases */
};

/* Fills plan for scn with repetitions (0: the scenario's). Pure: no I/O. */
void run_plan_build(const struct scenario *scn, unsigned repetitions, struct run_plan *plan);

#endif
