/* SPDX-License-Identifier: MIT */
/*
 * UDP offered-load sweeps for one path and one datagram size: a linear sweep
 * (from, to, step) or the loss-knee search (knee.h), each trial run through
 * load_run() (or an injected runner in tests). Fills plain structs, never
 * formats: printers live in src/report/report_sweep_term.c / report_sweep_json.c.
 *
 * `ovlperf sweep` runs one sweep; `ovlperf run` runs one per path and size,
 * or interleaves paths trial by trial with sweep_trial().
 */
#ifndef OVLPERF_SWEEP_H
#define OVLPERF_SWEEP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "knee.h"
#include "layer.h"
#include "load_result.h"
#include "load_spec.h"

#define SWEEP_LABEL_MAX	 32
#define SWEEP_MAX_POINTS 512 /* linear rows or knee trials in one sweep */

enum sweep_mode { SWEEP_LINEAR = 1, SWEEP_KNEE = 2 };

/* One trial, summarised from its struct load_result. */
struct sweep_point {
	uint64_t target_bps;	/* offered load asked for */
	uint64_t duration_ns;	/* asked for */
	double duration_s;	/* measured */
	uint64_t achieved_bps;	/* really sent (payload bits/s) */
	uint64_t received_bps;	/* over the sender's window, as achieved_bps */
	uint64_t arrival_bps;	/* over the receiver's (udp_result) */
	double queue_growth_ms; /* the receiver's window beyond the sender's */
	uint64_t sent_pps, received_pps;
	uint64_t sent, received, lost;
	double delivered_pct; /* 100 * received / sent */
	double loss_ratio;    /* (sent - received) / sent, duplicates excluded */
	bool generator_limited;
	struct loss_attrib loss_at; /* where the loss happened */
	struct udp_outer outer;	    /* the built-in overlay's outer datagrams */
	struct owd_summary owd;
	struct owd_summary rx_wait; /* of that, the wait in the receiver's sockets */
	double jitter_ms;
	struct cpu_use cpu_sender, cpu_receiver;
	struct load_sched sched_client, sched_server; /* each end's test threads */
	uint64_t start_ns;			      /* since the sweep started */
	/* knee searches only: */
	enum knee_phase phase;
	enum knee_verdict verdict;
	/* load_run() failed: rc < 0 and its sentence; the point is still listed */
	int rc;
	char error[256];
};

struct sweep_progress {
	unsigned trial;	   /* 1-based number of the trial about to run */
	unsigned total;	   /* linear: exact; knee: an estimate (knee_estimate_trials) */
	const char *label; /* path name */
	uint32_t len;
	uint64_t rate_bps;
	uint64_t duration_ns;
	uint64_t elapsed_ns;
	uint64_t left_ns; /* estimate, including this trial */
	enum sweep_mode mode;
	enum knee_phase phase; /* knee only */
};

typedef void (*sweep_progress_fn)(void *arg, const struct sweep_progress *p);
/* Runs one trial; load_run() in production. Same contract as load_run(). */
typedef int (*sweep_runner_fn)(void *arg, const struct load_spec *spec, struct load_result *res);

struct sweep_spec {
	/* Template for every trial: host, port, family, len (the datagram size),
	 * streams, psk_file... proto is forced to UDP; rate_bps and duration_ns
	 * are set per trial. */
	struct load_spec load;
	char label[SWEEP_LABEL_MAX]; /* path name, for progress and reports */
	enum sweep_mode mode;
	/* linear: rates from, from + step, ... up to and including to, at
	 * rate_layer (layer.h) for datagrams over load.family; each point is
	 * converted alone, so that it is the payload rate of the whole
	 * datagrams a second that fit it (not from's plus k steps', each
	 * rounded down) */
	uint64_t from_bps, to_bps, step_bps;
	enum layer rate_layer;
	uint64_t trial_ns; /* linear: duration of each trial */
	/* knee */
	struct knee_config knee;
	uint64_t gap_ns;	    /* pause between trials to let queues drain */
	bool stop_on_error;	    /* stop at the first failed load_run (else record and go on) */
	sweep_progress_fn progress; /* NULL: none */
	void *progress_arg;
	sweep_runner_fn runner; /* NULL: load_run */
	void *runner_arg;
};

struct sweep_result {
	enum sweep_mode mode;
	char label[SWEEP_LABEL_MAX];
	uint32_t len; /* datagram payload size */
	int family;
	char host[256];
	unsigned npoints;
	struct sweep_point *points; /* npoints trials, in the order they ran */
	uint64_t trial_ns;	    /* linear: per trial; knee: short trials */
	bool has_knee;
	struct knee_config knee_cfg; /* as given (min_rate 0: max/1000) */
	struct knee_result knee;     /* mode == SWEEP_KNEE; trial indexes match points[] */
	uint64_t elapsed_ns;
	bool interrupted; /* interrupt_requested() stopped it */
	int rc;		  /* 0, or the error that stopped it */
	char error[256];
};

/* Defaults: linear 100M..1G step 100M, 5 s trials, knee defaults, 500 ms gap,
 * UDP 1400-byte datagrams, one stream. */
void sweep_spec_defaults(struct sweep_spec *spec);

/* Checks a spec (rates, step, number of points). Returns 0 or -EINVAL with a
 * sentence in err. */
int sweep_spec_check(const struct sweep_spec *spec, char *err, size_t errlen);

/* Number of rows of a linear sweep (0 if from > to or step is 0). */
unsigned sweep_linear_count(uint64_t from, uint64_t to, uint64_t step);

/* Runs the whole sweep. Returns 0 when it ran to the end, -EINTR when
 * interrupted (what was measured is kept), -EINVAL for a bad spec. A linear
 * sweep records failed trials in their points and goes on, unless
 * stop_on_error: then it returns the load error. A knee search (through the
 * knee driver, as `ovlperf run` runs it) asks a failed trial again once;
 * two failures in a row, or max_trials tries counted or not, end it with
 * the last failure's error (res->error says why).
 * Free res with sweep_result_free(). */
int sweep_run(const struct sweep_spec *spec, struct sweep_result *res);
void sweep_result_free(struct sweep_result *res);

/* One trial at a rate and duration with spec's template, summarised into pt.
 * Returns load_run()'s result. For callers that interleave paths. */
int sweep_trial(const struct sweep_spec *spec, uint64_t rate_bps, uint64_t duration_ns,
		struct sweep_point *pt);

/* Summarises a load_result (UDP) into a point (target from res->spec). */
void sweep_point_from_result(const struct load_result *res, struct sweep_point *pt);

/* The knee measurement a point stands for. */
void sweep_point_to_knee(const struct sweep_point *pt, struct knee_measurement *m);

/* `ovlperf sweep --json`: "schema" and "schema_version" of the document
 * (fields are only added within a version, docs/json.md). */
#define SWEEP_JSON_SCHEMA	  "ovlperf.sweep"
#define SWEEP_JSON_SCHEMA_VERSION 1

/* Printers (report_sweep_term.c, report_sweep_json.c). */
void report_sweep_term(FILE *f, const struct sweep_result *res);
/* Writes the result as one JSON object; returns 0 or -ENOMEM / -EIO. */
int report_sweep_json(FILE *f, const struct sweep_result *res);
/* Builds the cJSON object (a `cJSON *`, returned as void * so this header
 * does not pull cJSON in); the caller owns it. NULL on allocation failure. */
void *report_sweep_json_object(const struct sweep_result *res);

#endif
