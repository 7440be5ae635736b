/* SPDX-License-Identifier: MIT */
/*
 * The knee driver: the one loop that runs a knee search (knee.h) trial by
 * trial, for `ovlperf sweep --knee` (sweep.c) and `ovlperf run`
 * (run_trials.c). Private to src/suite/.
 *
 * The trial itself is the caller's: a runner callback runs it (load_run()
 * in production, a simulated path in the unit tests) and says what it
 * measured. The driver owns what both callers share:
 *   - the loop: ask the search for a trial, run it, record it;
 *   - the repeat: a trial that could not be counted (the runner failed, or
 *     measured nothing the search accepts) is asked again once, and two in
 *     a row end the search (KNEE_DRIVE_FAILED) instead of asking the same
 *     trial forever;
 *   - the bounds: max_trials bounds every try, counted or not
 *     (KNEE_DRIVE_ATTEMPTS), and max_time the search's own time, each
 *     try's setup included (the pauses between trials are not): a try that
 *     would end beyond it (its duration plus the longest setup so far)
 *     is not started (KNEE_DRIVE_TIME). Only the search's own tries count,
 *     so that searches interleaved trial by trial each get their time.
 * One step is one try, so that a caller can interleave several searches
 * (one per path) trial by trial.
 */
#ifndef OVLPERF_KNEE_DRIVE_H
#define OVLPERF_KNEE_DRIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "knee.h"

/* Tries in a row that could not be counted before the search ends. */
#define KNEE_DRIVE_MAX_UNCOUNTED 2
#define KNEE_DRIVE_TEXT_MAX	 256

/* One try of a trial, as the runner is asked for it. */
struct knee_drive_try {
	struct knee_trial trial;
	unsigned trial_no; /* 1-based: the trials counted so far, plus one */
	unsigned again;	   /* 0: first try; 1: the repeat of one not counted */
	unsigned tries;	   /* tries before this one, counted or not */
	uint64_t trial_ns; /* duration of the trials counted so far */
};

/* Runs one try and fills m, and *wall_ns with the try's own time (its
 * setup and trial, not a pause between trials), what max_time counts.
 * Returns 0 when m is a measurement; -EINTR or
 * -ECANCELED to stop the search here (an interrupt, a run that stops);
 * another negative errno when the trial failed and measured nothing. */
typedef int (*knee_drive_runner_fn)(void *arg, const struct knee_drive_try *t,
				    struct knee_measurement *m, uint64_t *wall_ns);

enum knee_drive_step {
	KNEE_DRIVE_COUNTED = 1, /* the try was recorded: knee_trials()' last */
	KNEE_DRIVE_AGAIN,	/* not counted: the next step asks it again */
	KNEE_DRIVE_END,		/* the search is over: see end */
};

enum knee_drive_end {
	KNEE_DRIVE_RUNNING = 0,
	KNEE_DRIVE_DONE,     /* the search ended (knee_next() has no trial) */
	KNEE_DRIVE_STOPPED,  /* the runner or the caller stopped it */
	KNEE_DRIVE_FAILED,   /* KNEE_DRIVE_MAX_UNCOUNTED tries in a row not counted */
	KNEE_DRIVE_ATTEMPTS, /* max_trials tries run, some not counted */
	KNEE_DRIVE_TIME,     /* max_time spent: the next try would end beyond it */
};

struct knee_drive {
	struct knee k;
	knee_drive_runner_fn run;
	void *arg;
	unsigned tries;	    /* counted or not */
	unsigned uncounted; /* in a row */
	int rc;		    /* the error of the last try not counted, or the stop */
	enum knee_drive_end end;
	char stopped[KNEE_DRIVE_TEXT_MAX]; /* FAILED, ATTEMPTS, TIME: why, as a sentence */
	/* what cut the search short: "max_trials" (ATTEMPTS, or DONE at
	 * max_trials counted trials, which says no sentence), "max_time"; NULL */
	const char *cut_by;
	uint64_t spent_ns;     /* the tries' own time so far (wall_ns) */
	uint64_t setup_max_ns; /* the longest beyond a try's duration */
};

/* Returns 0, or -EINVAL for a configuration knee_init() refuses. */
int knee_drive_init(struct knee_drive *d, const struct knee_config *cfg, knee_drive_runner_fn run,
		    void *arg);

/* Runs the next try. */
enum knee_drive_step knee_drive_step(struct knee_drive *d);

/* Steps until the end; returns d->end. */
enum knee_drive_end knee_drive_run(struct knee_drive *d);

/* Stops the search where it is (what was measured is kept); a search that
 * ended already stays as it ended. */
void knee_drive_abandon(struct knee_drive *d);

#endif
