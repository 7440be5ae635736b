/* SPDX-License-Identifier: MIT */
/*
 * One test: a TCP or UDP load between a client and an `ovlperf server`,
 * described by struct load_spec (load_spec.h) and measured into struct
 * load_result (load_result.h). The engine fills plain structs and never
 * formats; printers render them (report_load.h, in src/report/). `ovlperf
 * client`, `ovlperf sweep` and `ovlperf run` all go through load_run().
 * A file that only builds a request includes load_spec.h, one that only
 * reads results load_result.h; this header is for those that run a test.
 */
#ifndef OVLPERF_LOAD_H
#define OVLPERF_LOAD_H

#include "load_result.h"
#include "load_spec.h"

/* Live interval reports: called from load_run's thread after each interval
 * (res->intervals[res->nintervals - 1] is the new one) so that a printer can
 * show it at once. The measurement code never formats. */
typedef void (*load_interval_fn)(const struct load_result *res, const struct load_interval *iv,
				 void *arg);

/* The client sampled its own streams: res->local[idx] is new. */
typedef void (*load_local_fn)(const struct load_result *res, unsigned idx, void *arg);

struct load_hooks {
	load_interval_fn on_interval; /* NULL: intervals are only stored */
	load_local_fn on_local;	      /* NULL: the client's samples are only stored */
	void *arg;
	/* The client's host facts: the machine's busy CPU between the
	 * caller's tests (NULL: a short idle sample before this one), and
	 * processes found otherwise (a scenario's `process` key) */
	struct hostfacts_idle *idle;
	const int *pids;
	unsigned npids;
	const char *far_addr; /* the far host's underlay address (hostfacts.h) */
};

/* Runs one test against a server. On failure returns a negative errno and
 * leaves a sentence in res->error; what was measured before the failure is
 * kept in res. The caller frees with load_result_free(). Polls
 * interrupt_requested() and stops early (returning -EINTR) when set. */
int load_run(const struct load_spec *spec, struct load_result *res);
/* load_run with hooks (NULL hooks: same as load_run). */
int load_run_hooks(const struct load_spec *spec, struct load_result *res,
		   const struct load_hooks *hooks);

#endif
