/* SPDX-License-Identifier: MIT */
/*
 * The knee search's two halves, private to src/suite/. As MLRsearch
 * (RFC 9971) keeps them apart:
 *
 *   knee_bounds.c  what we know: each trial as recorded, how it counts for
 *                  each goal (NDR: no loss, PDR: loss within loss_goal), and
 *                  the bounds the trials give per goal (the highest rate
 *                  known to pass, the lowest known to fail, the generator's
 *                  limit) and the outcome they add up to;
 *   knee_select.c  what we try next: the rate and duration of the next
 *                  trial, read from the bounds alone.
 *
 * Both are pure (plain structs in, plain structs out); knee.c hands the
 * selected trial out (knee_next()) and gives its measurement to the
 * bookkeeping (knee_record()).
 */
#ifndef OVLPERF_KNEE_INT_H
#define OVLPERF_KNEE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "knee.h"

/* --- knee_bounds.c --- */

/* Nothing known yet; cfg is a checked configuration (knee_init()). */
void knee_bounds_init(struct knee_bounds *b, const struct knee_config *cfg);

/* Records trial t as measured (m: loss ratio in 0..1) and updates every
 * bound. Returns 0, or -ENOSPC when the trial list is full. */
int knee_bounds_add(struct knee_bounds *b, const struct knee_config *cfg,
		    const struct knee_trial *t, const struct knee_measurement *m);

/* (upper - lower) / upper: the relative width of an interval. */
double knee_bounds_width(uint64_t lower, uint64_t upper);

/* Whether target t needs no more narrowing: its bounds are within the
 * width goal, or it passes at the top of the range (max_rate or the
 * generator's limit) or fails at its bottom (min_rate). */
bool knee_bounds_narrowed(const struct knee_bounds *b, const struct knee_config *cfg,
			  enum knee_target t);

/* Target t's only bound is a fail at min_rate although it passed above:
 * "below min" needs a second full-length fail there. */
bool knee_bounds_below_min_unconfirmed(const struct knee_bounds *b, const struct knee_config *cfg,
				       enum knee_target t);

/* How many trials at t's rate and duration the generator could not offer
 * (and that lost no more than the loss goal: those are fails). */
unsigned knee_bounds_unsustained(const struct knee_bounds *b, const struct knee_config *cfg,
				 const struct knee_trial *t);

/* What the bounds add up to for target t; stuck: the search ended because
 * the generator cannot offer the next rate. */
enum knee_outcome knee_bounds_outcome(const struct knee_bounds *b, const struct knee_config *cfg,
				      enum knee_target t, bool stuck);

/* The bounds, MRR, generator limit and trial count (done left false). */
void knee_bounds_get(const struct knee_bounds *b, const struct knee_config *cfg, bool stuck,
		     struct knee_result *res);

/* --- knee_select.c --- */

enum knee_select {
	KNEE_SELECT_TRIAL = 1, /* *t is the next trial */
	KNEE_SELECT_DONE,      /* every target is narrowed and confirmed */
	KNEE_SELECT_STUCK,     /* the next trial is one the generator failed twice */
};

/* The next trial from what the bounds say: the first at max_rate, the
 * repeat of an invalid one, a narrowing trial for the widest target, or a
 * confirmation. Does not look at max_trials (knee.c counts). */
enum knee_select knee_select_next(const struct knee_bounds *b, const struct knee_config *cfg,
				  struct knee_trial *t);

#endif
