/* SPDX-License-Identifier: MIT */
/*
 * What the run model's derived figures share (results.c has the helpers):
 * results_aggregate.c (the figures over repetitions) and
 * results_knee_head.c (a knee's fit and what its headline is). Private to
 * src/results/.
 */
#ifndef OVLPERF_RESULTS_INT_H
#define OVLPERF_RESULTS_INT_H

#include <stdbool.h>

#include "results.h"

/* A trial that enters figures: it ran (status 0) and measured a time. */
bool results_trial_usable(const struct results_trial *t);
/* The knee record of trial t's repetition, or NULL. */
const struct results_knee *results_rep_knee(const struct results_run *run,
					    const struct results_trial *t);
/* p's fits (both goals), then its headlines: decided here for a run just
 * measured, read back for one a run.json recorded (results_run.heads).
 * obs and v hold as many as the run has trials. */
void results_knee_head(const struct results_run *run, struct results_knee_point *p,
		       struct knee_fit_obs *obs, double *v);

#endif
