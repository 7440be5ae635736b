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
 *   run_plan.c    the plan: trials and time per phase, before any runs;
 *                 the [knee] settings
 *   run_trials.c  the trials: TCP, linear sweeps, knee searches, delay
 *   run_mtu.c     the MTU / MSS checks and their verdicts (mtu.h)
 *   run_ctx.c     the run's context: events, warnings, stopping, run.json
 * and in src/report/: report_run_out.c (the results directory besides
 * run.json, the summary; also for `ovlperf report`), report_run_progress.c (the
 * progress line from the events below), report_run_plan.c (`run --dry-run`).
 * The suite never prints: it fills the run model and tells its caller what
 * happens, warnings included, through run_options.progress. Only diagnostics
 * of the machinery go to the log (log.h): a file it cannot write, a teardown
 * that fails, a lab left behind, why the run stops.
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

#include "load_result.h"
#include "load_spec.h"
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
/* In the results directory: what external setup/teardown commands printed. */
#define RUN_COMMANDS_LOG "commands.log"
/* Pause between trials so queues drain and the previous test's sockets close. */
#define RUN_TRIAL_GAP_MS 200

/* Runs one load test: load_run_hooks() in production, a simulated path in
 * the unit tests (same contract). The hooks are load.h's; a runner that
 * runs a real test includes it. */
struct load_hooks;
typedef int (*run_runner_fn)(void *arg, const struct load_spec *spec, struct load_result *res,
			     const struct load_hooks *hooks);

/* The phases of a run, in the order they run. */
enum run_phase {
	RUN_PHASE_MTU,	 /* MTU / MSS checks (no trials) */
	RUN_PHASE_TCP,	 /* TCP goodput per stream count */
	RUN_PHASE_SWEEP, /* linear UDP sweeps */
	RUN_PHASE_KNEE,	 /* UDP knee searches (trials estimated) */
	RUN_PHASE_DELAY, /* one-way delay at common loads */
	RUN_PHASE_N,
};

enum run_progress_kind {
	RUN_PROGRESS_PHASE,	 /* a phase starts */
	RUN_PROGRESS_TRIAL,	 /* a trial starts: what it loads, where, time left */
	RUN_PROGRESS_TRIAL_DONE, /* it ended: status and what was recorded */
	RUN_PROGRESS_MTU_DONE,	 /* the MTU / MSS checks' verdicts */
	RUN_PROGRESS_WARNING,	 /* something the reader of the results must know */
	RUN_PROGRESS_END,	 /* the trial plan is over (done or stopped) */
};

/* One event of a running suite, for run_options.progress. Pointers are valid
 * during the call only. The suite itself never writes to a terminal: what the
 * user sees of a running suite is the caller's rendering of these. */
struct run_progress {
	enum run_progress_kind kind;
	enum run_phase phase;	 /* PHASE, TRIAL, TRIAL_DONE, MTU_DONE */
	unsigned npaths;	 /* paths of the run */
	unsigned path;		 /* TRIAL, TRIAL_DONE: index in the run's paths */
	const char *path_name;	 /* the same by name; NULL for run-wide events */
	unsigned trial_no;	 /* TRIAL, TRIAL_DONE: 1, 2, ... */
	unsigned trials_planned; /* the plan's trials as now estimated, >= trial_no */
	uint64_t left_ns;	 /* estimated time left (TRIAL: this trial's included) */

	/* TRIAL, TRIAL_DONE: the load */
	enum results_trial_kind trial_kind;
	unsigned rep; /* 0-based repetition */
	unsigned streams;
	uint32_t len;			   /* UDP payload bytes */
	uint64_t rate_bps;		   /* UDP offered rate */
	uint64_t duration_ns;		   /* planned trial duration */
	const char *knee_phase;		   /* a knee trial's search phase, else NULL */
	int status;			   /* TRIAL_DONE: 0 or the trial's negative errno */
	const struct results_trial *trial; /* TRIAL_DONE: as recorded (NULL: none) */

	/* MTU_DONE: the verdicts the checks added to the run model */
	const struct results_mtu_check *mtu;
	size_t nmtu;

	/* WARNING: the text, and the suite function that raised it (for log.h's
	 * debug format, so a rendered warning reads as a log line did) */
	const char *message;
	const char *func;
};

typedef void (*run_progress_fn)(void *arg, const struct run_progress *ev);

struct run_options {
	const char *results_root; /* NULL: RUN_DEFAULT_RESULTS */
	const char *out_dir;	  /* exact results directory; NULL: under the root */
	unsigned repetitions;	  /* 0: the scenario's */
	/* Replace what belongs to the user: a lab made by `lab up` of the
	 * scenario's lab name, a run already in out_dir. Without it the run
	 * refuses both before touching anything. */
	bool force;
	run_runner_fn runner; /* NULL: load_run_hooks */
	void *runner_arg;
	bool no_gap; /* no RUN_TRIAL_GAP_MS pause (simulated paths) */
	/* --confirm: after the trials, each limited TCP figure rerun once with
	 * its fix applied where ovlperf may apply it (res->confirms) */
	bool confirm;
	/* Events while the run runs; NULL: none (warnings then go to log.h). */
	run_progress_fn progress;
	void *progress_arg;
	/* Each load test's result as it ends, before the suite digests it
	 * (NULL: none): `run --iperf3-json` keeps an iperf3 document of each.
	 * Follows the RUN_PROGRESS_TRIAL event of its trial; lr is valid
	 * during the call only. */
	void (*trial_result)(void *arg, const struct load_result *lr, int rc);
	void *trial_result_arg;
	/* out (NULL: not wanted): the files of the results directory that
	 * could not be written, ", "-separated; "" when all were */
	char *unwritten;
	size_t unwritten_len;
};

/* Runs a parsed scenario (text: the file verbatim, for run.json). Fills res
 * (the caller frees it with results_free()), creates the results directory,
 * whose path goes to dir ("" when it could not be created), and keeps
 * run.json there up to date. Returns 0 when the run completed, -EINTR when it
 * was interrupted, another negative errno when it failed; in the last two
 * cases res and run.json hold what was measured, complete = false. The rest
 * of the directory and the summary are the printers'
 * (report_run_out_write() in report_run.h). A run that completed but could
 * not write run.json returns -EIO ("run.json" in opt->unwritten). */
int run_scenario(const struct scenario *scn, const char *text, const struct run_options *opt,
		 struct results_run *res, char *dir, size_t dirlen);

/* What a scenario will do, without doing it: hosts, links, paths, and per
 * phase the number of trials and the trial time they take (knee searches by
 * the search's own estimate). Strings point into the scenario. */
struct run_plan_link {
	unsigned a, b;	   /* host indexes */
	uint32_t mtu;	   /* the MTU the lab gives it */
	uint64_t rate_bps; /* tbf rate; 0: unshaped */
	double drop_pct;
	bool block_icmp;
	const char *rate_layer; /* the tbf counts "frame" or "line" (Ethernet);
				 * NULL: the kernel's count */
	char conditions[160];	/* WAN conditions, "delay 35ms" ("": none) */
	const char *means;	/* how they will be made: "auto", "netem", "userspace" */
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
	/* each host's CPUs ([lab] cpus; cpus_hosts 0: any) */
	unsigned cpus_hosts;
	const char (*cpus)[LAB_CPUS_MAX];
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
	/* knee: searches, and what one never exceeds: knee_max_trials(), and
	 * knee_max_time_ns() or that many final trials if less (trial time, as
	 * the phases'): the phase's ceiling on a soft knee */
	uint64_t knee_searches;
	unsigned knee_max_trials;
	uint64_t knee_max_time_ns;
	/* delay: the loads as shares of the lowest NDR; 0 of them: the one
	 * fixed [udp] rate */
	unsigned delay_nloads;
	double delay_loads_pct[SCN_MAX_DELAY_LOADS];
	uint64_t trials, time_ns; /* all phases */
};

/* Fills plan for scn with repetitions (0: the scenario's). Pure: no I/O. */
void run_plan_build(const struct scenario *scn, unsigned repetitions, struct run_plan *plan);

#endif
