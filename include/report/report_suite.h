/* SPDX-License-Identifier: MIT */
/*
 * Printers of the suite's own structs (run.h): the progress of a running
 * suite from its events (report_run_progress.c) and the plan `ovlperf run
 * --dry-run` shows (report_run_plan.c). The printers of a finished run are
 * in report_run.h.
 */
#ifndef OVLPERF_REPORT_SUITE_H
#define OVLPERF_REPORT_SUITE_H

#include <stdbool.h>
#include <stdio.h>

#include "run.h"

struct report_run_progress {
	FILE *f;
	bool lines; /* the progress line (warnings are printed regardless) */
	bool tty;   /* f is a terminal: one line rewritten in place */
};

/* Progress on f (stderr for `ovlperf run`): with lines, one line per trial
 * "[n/total] path: load, rep r, ~time left" and one for the MTU checks,
 * rewritten in place when f is a terminal, one per line otherwise. */
void report_run_progress_init(struct report_run_progress *p, FILE *f, bool lines);
/* A run_progress_fn; arg is a struct report_run_progress. Warnings go to the
 * log (log.h) as the suite's own lines would. */
void report_run_progress(void *arg, const struct run_progress *ev);

/* The plan: scenario, lab, links, paths, and per phase the trials and the
 * trial time they take, with a total. */
void report_run_plan(FILE *f, const struct run_plan *plan);

#endif
