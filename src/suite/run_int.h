/* SPDX-License-Identifier: MIT */
/*
 * The suite's inside: the state of one `ovlperf run` shared by run.c,
 * run_paths.c, run_trials.c, run_mtu.c, run_plan.c and run_ctx.c. Private
 * to src/suite/.
 *
 * Calls go one way, top to bottom, never back up:
 *   run.c         run_scenario(): the results directory, paths up, the
 *                 trials, paths down, the last run.json
 *   run_trials.c  the phases of the plan, trial by trial
 *   run_cpu.c     a lab trial's CPU: the machine's, softirq per CPU, the
 *                 overlay's processes' threads and cgroup quota
 *   run_mtu.c     the MTU / MSS checks and the UDP sizes they allow
 *   run_paths.c   paths up and down, the far end's server, external commands
 *   run_plan.c    the plan (pure) and the [knee] settings as a knee_config
 *   run_ctx.c     the run's context: progress events, warnings, the reason
 *                 to stop, run.json
 * (each file calls only files below it; run_trials.c's knee searches go
 * through the knee driver, knee_drive.h).
 */
#ifndef OVLPERF_RUN_INT_H
#define OVLPERF_RUN_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "results.h"
#include "run.h"
#include "scenario.h"

struct knee_config;
struct lab;
struct lab_overlay;
struct overlay_client;

struct run_path {
	const struct scenario_path *sp;
	char addr[SCN_TEXT_MAX]; /* the far end's address for this path's loads */
	uint16_t port;
	uint16_t cport; /* [host.*] cport: source ports of the data streams; 0: any */
	char psk_file[SCN_TEXT_MAX];
	bool setup_done;	    /* external setup ran: teardown must run */
	struct overlay_client *ovl; /* builtin between hosts: its overlay */
	unsigned failures;	    /* consecutive failed trials */
	bool process_warned;	    /* external: "process not found" said once */
	/* between hosts: the `process` key's processes on this host, found
	 * for each trial, read into the client's host facts */
	int facts_pids[HOSTFACTS_MAX_PROCS];
	unsigned nfacts_pids;
	bool moved_warned; /* "the rest of the machine moved" said once */
};

struct run {
	const struct scenario *scn;
	const struct run_options *opt;
	struct results_run *res;
	char dir[1024];
	unsigned reps;

	struct lab *lab;
	struct lab_overlay *ov;
	pid_t server; /* in the lab's server host; 0: none */
	bool entered; /* this thread is in the client's namespace */
	unsigned npaths;
	struct run_path paths[SCN_MAX_PATHS];

	uint64_t t0; /* CLOCK_MONOTONIC start */
	unsigned trial_no, trials_planned;
	uint64_t time_planned_ns; /* trial time still ahead (estimate) */
	uint64_t overhead_ns;	  /* measured per-trial cost beyond its duration */
	unsigned overhead_n;

	/* the machine's busy CPU between trials: the baseline of each
	 * trial's host facts (hostfacts.h) */
	struct hostfacts_idle idle;
	int stop; /* 0, or why the run stops (negative errno) */
	char stop_reason[RESULTS_TEXT_MAX];
};

/* --- run_trials.c --- */

/* One TCP test of path with streams as the TCP phase runs it, not
 * recorded as a trial; sock_buf (-w, 0: autotuning) and congestion (-C,
 * NULL: the host's) as a confirming rerun asks. lr is the caller's to
 * free (load_result_free). load_run's result. */
int run_tcp_once(struct run *r, unsigned path, unsigned streams, uint32_t sock_buf,
		 const char *congestion, struct load_result *lr);

/* --- run_confirm.c --- */

/* run --confirm: each limited TCP figure of the run rerun once with its
 * fix applied where ovlperf may apply it (confirm.h), recorded in
 * res->confirms; everything it changed is put back. */
void run_confirm(struct run *r);

/* --- run_ctx.c --- */

/* Hands ev to the caller's progress hook, if any (npaths filled in). */
void run_event(struct run *r, struct run_progress *ev);
/* A warning for the user: a RUN_PROGRESS_WARNING event, or without a
 * progress hook a log_warn() line. */
#define run_warn(r, ...) run_warn_at(r, __func__, __VA_ARGS__)
void run_warn_at(struct run *r, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Marks the run as stopping for a reason (the first reason wins). */
void run_stop(struct run *r, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Writes run.json now (after every trial, so that even a killed run leaves
 * what it measured). */
int run_save(struct run *r);

/* --- run_plan.c (and run_plan_build(), run.h) --- */

/* The knee search's settings from the scenario's [knee]. */
void run_knee_config(const struct scenario *scn, struct knee_config *cfg);

/* --- run_paths.c --- */

/* A lab of the scenario's name that already exists: 0 when the run may
 * build its own (none, or one a killed run left, now removed, or the user's
 * with run_options.force, now removed); else the run stops (r->stop_reason
 * says why and what to do) and nothing was touched. */
int run_paths_claim_lab(struct run *r);
int run_paths_up(struct run *r);
void run_paths_down(struct run *r);
/* 0 when the server and the overlay daemons are alive; else -EHOSTDOWN with
 * the reason in r->stop_reason. */
int run_paths_check(struct run *r);
/* Moves this thread into the client's namespace (lab) or does nothing. */
int run_paths_enter(struct run *r);
void run_paths_leave(struct run *r);

/* --- run_cpu.c --- */

/* The overlay processes a trial reads at most (an external `process` may
 * name one per host, or more). */
#define RUN_CPU_MAX_PROCS 8
struct run_cpu;
struct load_hooks;
/* Starts reading the CPU of a trial on path rp (lab runs; NULL otherwise,
 * or without memory): sets hooks' on_interval and arg, for a load_spec
 * whose interval_ns the caller sets to bracket the measured window. A
 * remote run's path with `process` gets a warning, once. */
struct run_cpu *run_cpu_begin(struct run *r, struct run_path *rp, struct load_hooks *hooks);
/* The figures over the measured window (duration_s long) into t (NULL:
 * none recorded): host_cpu_s, softirq, overlay_thread*, overlay_quota*,
 * overlay_cpu_s;
 * frees rc (NULL: nothing). */
void run_cpu_end(struct run_cpu *rc, double duration_s, struct results_trial *t);

/* --- run_mtu.c --- */

/* The MTU / MSS checks of every path (scenario [mtu]), into r->res->mtu. */
void run_mtu_checks(struct run *r);
/* The UDP payload of [udp] sizes entry i ("fit" resolved). */
uint32_t run_udp_size(const struct run *r, unsigned i);
/* Each path's path MTU (the [mtu] checks, expect_mtu, a quick probe or the
 * interface), [udp] sizes = fit resolved, and a verdict for every UDP size
 * that cannot cross a path unfragmented. */
void run_size_checks(struct run *r);

/* --- run_trials.c --- */

/* All phases of the trial plan. Returns 0, or r->stop when the run stopped. */
int run_trials(struct run *r);

#endif
