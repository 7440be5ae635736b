/* SPDX-License-Identifier: MIT */
/*
 * The knee search's two halves, private to src/suite/. As MLRsearch
 * (RFC 9971) keeps them apart:
 *
 *   knee_bounds.c  what we know: each trial as recorded, how it counts for
 *                  each goal (NDR: no loss, PDR: loss within loss_goal), how
 *                  each load stands from all its trials pooled (RFC 9971
 *                  Appendix A), the relevant bounds per goal and the
 *                  generator's limit, and the outcome they add up to;
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

/* Nothing known yet; cfg is a checked configuration (knee_init()). Sets the
 * goals and the coarse target before each. */
void knee_bounds_init(struct knee_bounds *b, const struct knee_config *cfg);

/* Records trial t as measured (m: loss ratio in 0..1). Returns 0, or
 * -ENOSPC when the trial list is full. */
int knee_bounds_add(struct knee_bounds *b, const struct knee_config *cfg,
		    const struct knee_trial *t, const struct knee_measurement *m);

/* (upper - lower) / upper: the relative width of an interval. */
double knee_bounds_width(uint64_t lower, uint64_t upper);

/* What the trials say for one target (a goal or its coarse target). */
struct knee_rel {
	bool lower_valid, upper_valid;
	uint64_t lower, upper;	      /* the relevant bounds (RFC 9971 4.8) */
	bool upper_gen;		      /* upper is the generator's limit, not a load's class */
	bool lower_sent;	      /* lower is what a short generator sent without loss */
	uint64_t undecided;	      /* the highest undecided load between them, 0: none */
	uint64_t upper_rx;	      /* received at upper (sent, at the generator's limit) */
	unsigned nlower, nupper;      /* loads classified lower, upper */
	int lower_trial, upper_trial; /* the last trial at each bound, or -1 */
};

void knee_bounds_relevant(const struct knee_bounds *b, const struct knee_config *cfg,
			  const struct knee_goal *g, struct knee_rel *r);

/* Whether a target needs no more trials: its bounds are within its width,
 * or it passes at the top of the range (max_rate, below the generator's
 * limit) or fails at its bottom (min_rate). */
bool knee_bounds_done(const struct knee_bounds *b, const struct knee_config *cfg,
		      const struct knee_goal *g, const struct knee_rel *r);

/* The trial time at load rate for goal g, and how many trials count there. */
unsigned knee_bounds_sums(const struct knee_bounds *b, const struct knee_goal *g, uint64_t rate,
			  struct knee_load_sums *s);

/* Whether any trial counts at load rate for g, and if so its class. */
bool knee_bounds_class(const struct knee_bounds *b, const struct knee_goal *g, uint64_t rate,
		       enum knee_class *cls);

/* How many trials at t's rate and duration the generator could not offer
 * (and that lost no more than the loss goal: those are bad trials). */
unsigned knee_bounds_unsustained(const struct knee_bounds *b, const struct knee_config *cfg,
				 const struct knee_trial *t);

/* What the bounds add up to for goal t; stuck: the search ended because
 * the generator cannot offer the next rate. */
enum knee_outcome knee_bounds_outcome(const struct knee_bounds *b, const struct knee_config *cfg,
				      enum knee_target t, bool stuck);

/* The bounds, MRR, generator limit and trial count (done left false). */
void knee_bounds_get(const struct knee_bounds *b, const struct knee_config *cfg, bool stuck,
		     struct knee_result *res);

/* --- knee_select.c --- */

enum knee_select {
	KNEE_SELECT_TRIAL = 1, /* *t is the next trial */
	KNEE_SELECT_DONE,      /* every goal is done */
	KNEE_SELECT_STUCK,     /* the next trial is one the generator failed twice */
};

/* The next trial from what the bounds say: the first at max_rate, the
 * repeat of an invalid one, else the first target (the coarse ones before
 * the goals) not done: another trial at an undecided load between its
 * bounds, or a new load. Does not look at max_trials (knee.c counts). */
enum knee_select knee_select_next(const struct knee_bounds *b, const struct knee_config *cfg,
				  struct knee_trial *t);

#endif
