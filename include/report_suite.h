/* SPDX-License-Identifier: MIT */
/*
 * Printers of the suite's own structs (run.h): the plan `ovlperf run
 * --dry-run` shows (report_run_plan.c). The printers of a finished run are
 * in report_run.h.
 */
#ifndef OVLPERF_REPORT_SUITE_H
#define OVLPERF_REPORT_SUITE_H

#include <stdio.h>

#include "run.h"

/* The plan: scenario, lab, links, paths, and per phase the trials and the
 * trial time they take, with a total. */
void report_run_plan(FILE *f, const struct run_plan *plan);

#endif
