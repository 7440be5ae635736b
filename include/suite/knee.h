/* SPDX-License-Identifier: MIT */
/*
 * The loss-knee search: NDR (highest rate with no loss) and PDR (highest rate
 * with loss at most a goal, default 0.5 %) in the manner of FD.io's MLRsearch
 * (RFC 9971). Pure logic: it never sends a packet. The caller asks for the
 * next trial, runs it however it likes (the knee driver, src/suite/
 * knee_drive.c, for `ovlperf sweep` and `ovlperf run`; the unit tests
 * against a simulated path) and records what was measured:
 *
 *	struct knee k;
 *	struct knee_trial t;
 *	knee_init(&k, &cfg);
 *	while (knee_next(&k, &t)) {
 *		struct knee_measurement m = run_trial(t.rate_bps, t.duration_ns);
 *		knee_record(&k, &m);
 *	}
 *	knee_get_result(&k, &res);
 *
 * The search:
 *  1. A first short trial at max_rate gives the maximum receive rate (MRR).
 *  2. Short trials narrow [lower, upper] separately for NDR and PDR (one trial
 *     serves both): while a target has no lower bound it steps down to the
 *     receive rate measured at its upper bound, stepping further (doubling a
 *     relative step from width_goal) when that is not enough; with both bounds
 *     it bisects in log space, aiming the last steps so that a pass meets the
 *     width goal exactly.
 *  3. Full-length (final) trials confirm each target's lower and upper bound.
 *     A failed confirmation moves the bound (a longer trial outranks a
 *     shorter one) and narrowing resumes.
 *  4. A target is done when both bounds are confirmed and
 *     (upper - lower) / upper <= width_goal, or when it passes at max_rate,
 *     fails at min_rate in a full-length trial (in two, when it passed at a
 *     higher rate: one hiccup does not outvote every pass above it), or
 *     reaches the generator's limit. A trial outvoted by a longer one
 *     outvotes nothing itself.
 *
 * A trial whose generator fell short of its target (generator_limited) is
 * invalid: never a pass at the rate asked for. If it lost more than a
 * target's goal anyway it is a fail for that target (the loss happened at an
 * even lower rate); if it did not, the path carried what the generator did
 * send: a pass at that rate (achieved_bps, when it is at least min_rate), so
 * a generator short of every rate by a share (a sender held off the CPU)
 * still ends at its limit with a lower bound. The same trial is retried
 * once, and a second invalid result marks
 * the rate as the generator's limit: later trials stay below it, and a
 * target still passing there reports KNEE_GENERATOR_LIMIT with the limit as
 * its upper bound. A generator may sustain in short trials what it cannot in
 * full-length ones: a short pass at or above a limit found by a longer trial
 * is no lower bound (it could never be confirmed), and after a limit found
 * in a full-length trial the search narrows with full-length trials. No rate
 * and duration the generator failed twice is ever asked again: when the
 * search would, it ends there (KNEE_GENERATOR_LIMIT with the lower bound it
 * confirmed). max_trials always bounds the number of trials.
 */
#ifndef OVLPERF_KNEE_H
#define OVLPERF_KNEE_H

#include <stdbool.h>
#include <stdint.h>

#define KNEE_MAX_TRIALS		128
#define KNEE_DEFAULT_LOSS_GOAL	0.005 /* 0.5 % */
#define KNEE_DEFAULT_WIDTH_GOAL 0.01  /* 1 % */
#define KNEE_DEFAULT_SHORT_NS	(1ULL * 1000000000ULL)
#define KNEE_DEFAULT_FINAL_NS	(5ULL * 1000000000ULL)
#define KNEE_DEFAULT_MAX_TRIALS 60

enum knee_target { KNEE_NDR = 0, KNEE_PDR = 1, KNEE_NTARGETS = 2 };

struct knee_config {
	uint64_t min_rate_bps; /* lowest rate tried; 0: max_rate_bps / 1000 */
	uint64_t max_rate_bps; /* first trial; required */
	double loss_goal;      /* PDR: loss ratio tolerated, 0 <= goal < 1 */
	double width_goal;     /* relative width to stop at, 0 < goal < 0.5 */
	uint64_t short_ns;     /* narrowing trial duration */
	uint64_t final_ns;     /* confirmation trial duration (>= short_ns) */
	unsigned max_trials;   /* 1..KNEE_MAX_TRIALS */
};

enum knee_phase {
	KNEE_PHASE_MRR = 1, /* the first trial, at max_rate */
	KNEE_PHASE_NARROW,  /* short trials */
	KNEE_PHASE_CONFIRM, /* final-duration trials */
	KNEE_PHASE_RETRY,   /* repeat of an invalid (generator-limited) trial */
};

/* What knee_next() asks for. */
struct knee_trial {
	uint64_t rate_bps; /* offered load: target across streams */
	uint64_t duration_ns;
	enum knee_phase phase;
	enum knee_target target; /* the target this trial is chosen for */
};

/* What the caller measured. loss_ratio = (sent - received) / sent over the
 * measured interval (0 when nothing was sent is treated as invalid). */
struct knee_measurement {
	uint64_t offered_bps;  /* = the trial's rate_bps */
	uint64_t achieved_bps; /* what the generator really sent */
	uint64_t received_bps;
	double loss_ratio;
	bool generator_limited;
	uint64_t duration_ns; /* measured; 0: the trial's duration */
};

enum knee_verdict {
	KNEE_PASS = 1, /* no loss: passes NDR and PDR */
	KNEE_PASS_PDR, /* loss within the goal: passes PDR, fails NDR */
	KNEE_FAIL,     /* loss above the goal */
	KNEE_INVALID,  /* generator fell short: no pass at the rate asked for */
};

/* One trial as recorded, in order. */
struct knee_record {
	struct knee_trial trial;
	struct knee_measurement m;
	enum knee_verdict verdict;
};

enum knee_outcome {
	KNEE_UNFINISHED = 0,  /* trial limit reached or search abandoned */
	KNEE_FOUND,	      /* lower and upper confirmed within the width goal */
	KNEE_ABOVE_MAX,	      /* passes at max_rate: lower = max_rate, no upper */
	KNEE_BELOW_MIN,	      /* fails at min_rate: upper = min_rate, no lower */
	KNEE_GENERATOR_LIMIT, /* passes up to where the generator falls short */
};

struct knee_bound {
	enum knee_outcome outcome;
	bool lower_valid, upper_valid;
	uint64_t lower_bps;	       /* highest rate measured to pass */
	uint64_t upper_bps;	       /* lowest rate measured to fail */
	bool lower_final, upper_final; /* measured with final_ns trials */
	bool upper_is_generator_limit; /* upper is where the generator fell short */
	int lower_trial, upper_trial;  /* index into the trial list, or -1 */
	uint64_t lower_rx_bps;	       /* receive rate at the lower bound */
	double upper_loss;	       /* loss ratio measured at the upper bound */
	/* What the generator really sent in the trials that set the bounds
	 * (at most their targets, lower_bps and upper_bps; 0 without the
	 * bound). The NDR/PDR a report gives is lower_achieved_bps: the rate
	 * the path carried, not the rate the search asked for. */
	uint64_t lower_achieved_bps, upper_achieved_bps;
};

struct knee_result {
	struct knee_bound bound[KNEE_NTARGETS]; /* [KNEE_NDR], [KNEE_PDR] */
	uint64_t mrr_bps;			/* receive rate of the first trial */
	bool generator_limited;			/* a generator limit was found */
	uint64_t generator_limit_bps;		/* lowest rate the generator could not offer */
	unsigned ntrials;
	uint64_t trial_ns; /* sum of trial durations (measured if given) */
	bool done;	   /* false: stopped early (limit or interrupt) */
};

/* The search state: a plain struct, no allocation. Fields are private to
 * knee*.c; read results through knee_get_result() / knee_trials(). As
 * MLRsearch (RFC 9971) keeps them apart, what the trials say
 * (struct knee_bounds, knee_bounds.c) is kept apart from the choice of the
 * next trial (knee_select.c); knee.c hands trials out and takes them back. */
struct knee_side {
	bool lower_valid, upper_valid;
	uint64_t lower, upper;
	uint64_t lower_dur, upper_dur;
	uint64_t upper_rx;
	double upper_loss;
	uint64_t lower_rx;
	int lower_trial, upper_trial;
	bool upper_gen;
	unsigned down_steps, up_steps; /* consecutive external-search steps */
};

/* What we know: every trial as recorded and the bounds they give. */
struct knee_bounds {
	struct knee_side side[KNEE_NTARGETS];
	bool final_mode[KNEE_NTARGETS]; /* short trials overstate it: narrow with final trials */
	bool retry_due;			/* the last trial was invalid once: repeat it */
	uint64_t max_eff;		/* max_rate, lowered to the generator limit */
	bool gen_limited;
	uint64_t gen_limit;
	unsigned gen_trial; /* the trial that set gen_limit */
	uint64_t mrr;
	uint64_t trial_ns;
	unsigned ntrials;
	struct knee_record trials[KNEE_MAX_TRIALS];
};

struct knee {
	struct knee_config cfg;
	struct knee_bounds b;
	struct knee_trial pending;
	bool have_pending; /* knee_next() handed out `pending`, not yet recorded */
	bool finished;
	bool abandoned;
	bool stuck; /* ended at a rate the generator cannot offer */
};

/* Defaults: loss goal 0.5 %, width goal 1 %, 1 s short, 5 s final trials,
 * 60 trials; min and max rate 0 (max must be set). */
void knee_config_defaults(struct knee_config *cfg);

/* Returns 0 or -EINVAL when the configuration is out of range (with the
 * reason logged at debug level). */
int knee_init(struct knee *k, const struct knee_config *cfg);

/* The next trial to run; false when the search is done (or the trial limit is
 * reached). Calling it again before knee_record() returns the same trial. */
bool knee_next(struct knee *k, struct knee_trial *t);

/* Records the measurement of the trial knee_next() handed out. Returns 0,
 * -EINVAL without a pending trial or with a nonsensical measurement (loss
 * ratio outside 0..1), -ENOSPC when the trial list is full. */
int knee_record(struct knee *k, const struct knee_measurement *m);

bool knee_done(const struct knee *k);

/* Stops the search where it is (interruption); the result keeps what was
 * measured and says done = false. */
void knee_abandon(struct knee *k);

void knee_get_result(const struct knee *k, struct knee_result *res);

const struct knee_record *knee_trials(const struct knee *k, unsigned *n);

/* How a measurement counts for the loss goal (KNEE_PASS ... KNEE_INVALID). */
enum knee_verdict knee_classify(const struct knee_measurement *m, double loss_goal);

/* A rough upper estimate of trials and time a search will take, for progress
 * lines ("trial k of n, time left"). */
unsigned knee_estimate_trials(const struct knee_config *cfg);
uint64_t knee_estimate_ns(const struct knee_config *cfg);

const char *knee_target_name(enum knee_target t); /* "NDR", "PDR" */
const char *knee_outcome_name(enum knee_outcome o);
const char *knee_phase_name(enum knee_phase p);
const char *knee_verdict_name(enum knee_verdict v);

#endif
