/* SPDX-License-Identifier: MIT */
/*
 * Each overlay's cost broken down against the underlay (results/breakdown.h):
 * per overlay path, its TCP ratio and its NDR ratio as parts whose points
 * add up to the change. The terminal summary and report.md print it.
 */
#ifndef OVLPERF_REPORT_RUN_BREAKDOWN_H
#define OVLPERF_REPORT_RUN_BREAKDOWN_H

#include <stdio.h>

#include "report_run.h"

void report_run_breakdown_term(FILE *f, const struct report_run *rr);
void report_run_breakdown_md(FILE *f, const struct report_run *rr);

#endif
