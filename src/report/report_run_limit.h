/* SPDX-License-Identifier: MIT */
/*
 * What limited each path's TCP trials and NDRs in a run (results/run_limit.h): per
 * path and stream count the verdict most of its repetitions got, with the
 * evidence and fix of the first trial that got it. The terminal summary
 * and report.md print it.
 */
#ifndef OVLPERF_REPORT_RUN_LIMIT_H
#define OVLPERF_REPORT_RUN_LIMIT_H

#include <stdio.h>

#include "report_run.h"

void report_run_limits_term(FILE *f, const struct report_run *rr);
void report_run_limits_md(FILE *f, const struct report_run *rr);

#endif
