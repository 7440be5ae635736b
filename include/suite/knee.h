/* SPDX-License-Identifier: MIT */
/*
 * The loss-knee search: NDR (the highest load with no loss) and PDR (the
 * highest with loss at most a goal, default 0.5 %) by the Multiple Loss
 * Ratio search of RFC 9971 (MLRsearch, FD.io CSIT's method). Pure logic: it
 * never sends a packet. The caller asks for the next trial, runs it however
 * it likes (the knee driver, src/suite/knee_drive.c, for `ovlperf sweep` and
 * `ovlperf run`; the unit tests against simulated systems) and records what
 * was measured:
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
 * NDR and PDR are two search goals of one search (RFC 9971 4.6), sharing
 * every trial. A goal has a loss ratio (NDR 0, PDR loss_goal), an exceed
 * ratio (the share of trial time allowed to lose more than the loss ratio),
 * a final trial duration, a duration sum (the trial time a load needs
 * before it is classified) and a width. A load is classified from all
 * trials at it, pooled (RFC 9971 Appendix A): a lower bound when even with
 * the time still missing counted as bad the lossy share stays within the
 * exceed ratio, an upper bound when even with it counted as good it does
 * not, else undecided. Trials shorter than the final duration count too,
 * their bad time balanced by short good time. The relevant upper bound is
 * the lowest load classified upper; the relevant lower bound the highest
 * load classified lower below it. With an exceed ratio of 50 % a noisy
 * system (a userspace VPN whose threads are scheduled away now and then)
 * gives the load it passes in most trial time: a median, repeatable, where
 * a single trial's verdict is luck.
 *
 * The search, per goal: first with single short trials (a coarse target
 * whose duration sum is one short trial: one trial classifies a load), then
 * with the goal itself, whose loads need duration_sum of final trials:
 *  1. A first short trial at max_rate gives the maximum receive rate (MRR).
 *  2. Without a lower bound, a step down to the rate the path delivered at
 *     the upper bound (further, doubling a relative step from the width,
 *     when that is not enough); without an upper bound, a step up.
 *  3. With both, an undecided load between them gets another trial;
 *     otherwise a new load between them, bisecting in log space and aiming
 *     the last steps so that either result meets the width.
 *  4. A goal is done when its bounds are within the width, it passes at
 *     max_rate, fails at min_rate, or reaches the generator's limit.
 *  5. When every goal is done and the NDR goal's final trials show a soft
 *     knee (a good trial above a bad one by more than the width),
 *     fit_trials more final trials at the load where a fit of them puts
 *     the chance of a lossy trial at the exceed ratio (knee_fit.h),
 *     refitted after each: the trials a fit of the knee learns most from.
 *     They count for the bounds as any trial does.
 *
 * A trial whose generator fell short of its target (generator_limited) is
 * no trial of its load: it is bad when it lost more than the goal's loss
 * ratio anyway (at an even lower rate), and says nothing of the load when
 * it did not. The same trial is retried once, and a second invalid result
 * marks the rate as the generator's limit: later trials stay below it, and
 * a goal whose upper bound it is reports KNEE_GENERATOR_LIMIT. What such a
 * trial did send without loss stands as the goal's lower bound when no
 * classified load is higher (a sender short of every rate by a share still
 * ends at its limit with a lower bound). No rate and duration the generator
 * failed twice is ever asked again: when the search would, it asks a rate
 * an eighth of the width lower (twice at most), then ends there. A stall is
 * not a limit: a trial that fell behind by at most KNEE_STALL_NS at a load
 * no higher than one the generator sustained for a trial as long is
 * repeated as often as it comes and counts toward no limit (a sender on a
 * busy host is scheduled away now and then; taken as its limit, that luck
 * would end the search wherever it struck).
 * max_trials always bounds the number of trials.
 */
#ifndef OVLPERF_KNEE_H
#define OVLPERF_KNEE_H

#include <stdbool.h>
#include <stdint.h>

#define KNEE_MAX_TRIALS		128
#define KNEE_DEFAULT_LOSS_GOAL	0.005 /* 0.5 % */
#define KNEE_DEFAULT_WIDTH_GOAL 0.01  /* 1 % */
#define KNEE_DEFAULT_SHORT_NS	(1ULL * 1000000000ULL)
#define KNEE_DEFAULT_FINAL_NS	(1ULL * 1000000000ULL)
/* 0: three final trials' time. At 50 % a load is then classified when two
 * of three final trials agree: the median of three. */
#define KNEE_DEFAULT_DURATION_SUM_NS 0
#define KNEE_DURATION_SUM_TRIALS     3
#define KNEE_DEFAULT_EXCEED_RATIO    0.5
#define KNEE_DEFAULT_MAX_TRIALS	     60
/* Final trials at a soft knee's fitted NDR once the goals are done (see
 * knee_select.c): enough that each repetition's figure under the common
 * slope (knee_fit.h) narrows by about half on wireguard-go, within a
 * search of about a minute. */
#define KNEE_DEFAULT_FIT_TRIALS 15
/* A search's own time, each try's setup included (CSIT's MLRsearch calls
 * it search_duration_max): 0 is as long as KNEE_MAX_TIME_TRIALS final
 * trials, 60 s at the default final trial of 1 s, whatever max_trials is
 * (the trials' setup would otherwise make it bind before max_trials). */
#define KNEE_MAX_TIME_TRIALS	 60
#define KNEE_DEFAULT_MAX_TIME_NS 0
/* Beyond RFC 9971, which counts only loss: a trial passes only when no
 * queue grew through it either (knee_trial_loss()). A queue that grows by
 * more than this share of the trial's time means a load that much above
 * what the path forwards: a 1 s trial 3 % above a shaper whose queue holds
 * 50 ms loses nothing, only because the queue absorbed it for that second.
 * 0.5 %: 5 ms in a 1 s trial; the NDR then lies at most 0.5 % above the
 * rate the path sustains, and a shaper's bucket (1 ms of its rate in the
 * lab's tbf) adds 0.1 %: within 1 % whatever the width goal (at 1 % a CI's
 * NDR read 1.14 % above a 1 Gbit/s tbf, its queue grown 9.9 ms). The floor
 * keeps a short trial's receiver timing (a thread scheduled away near the
 * end) from counting as a queue. */
#define KNEE_QUEUE_TOLERANCE 0.005
#define KNEE_QUEUE_FLOOR_NS  (2ULL * 1000000ULL)

enum knee_target { KNEE_NDR = 0, KNEE_PDR = 1, KNEE_NTARGETS = 2 };

struct knee_config {
	uint64_t min_rate_bps; /* lowest rate tried; 0: max_rate_bps / 1000 */
	uint64_t max_rate_bps; /* first trial; required */
	double loss_goal;      /* PDR: loss ratio tolerated, 0 <= goal < 1 */
	double width_goal;     /* relative width to stop at, 0 < goal < 0.5 */
	uint64_t short_ns;     /* initial (narrowing) trial duration */
	uint64_t final_ns;     /* final trial duration (>= short_ns) */
	/* RFC 9971 goal attributes shared by NDR and PDR: */
	double exceed_ratio;	  /* 0 <= ratio < 1; 0: a single lossy trial decides */
	uint64_t duration_sum_ns; /* >= final_ns; 0: KNEE_DURATION_SUM_TRIALS final trials */
	unsigned max_trials;	  /* 1..KNEE_MAX_TRIALS */
	/* Once every goal is done, final trials spent where the NDR goal's
	 * trials so far put the chance of a lossy trial at the exceed ratio,
	 * when a good trial lies above a bad one by more than the width (a
	 * soft knee: knee_fit.h); 0: none. A sharp knee gets none. */
	unsigned fit_trials;
	/* The search's own wall time, each try's setup included: a try that
	 * would end beyond it is not started (knee_drive.h). 0:
	 * KNEE_MAX_TIME_TRIALS final trials' worth (knee_init() sets it). */
	uint64_t max_time_ns;
};

/* One search goal, or a coarser target before it (RFC 9971 4.6). */
struct knee_goal {
	double loss_ratio;
	double exceed_ratio;
	uint64_t final_ns;
	uint64_t duration_sum_ns;
	double width;
	/* the share of a trial's time a queue may grow by (0: the default,
	 * KNEE_QUEUE_TOLERANCE) */
	double queue_tolerance;
};

/* How a load stands for a goal (RFC 9971 Appendix A). */
enum knee_class { KNEE_UNDECIDED = 0, KNEE_LOWER, KNEE_UPPER };

/* The trial time at one load, for one goal (Appendix A's sums): long trials
 * last the final duration or more; good ones lost no more than the loss
 * ratio. */
struct knee_load_sums {
	uint64_t good_long_ns, bad_long_ns, good_short_ns, bad_short_ns;
};

enum knee_phase {
	KNEE_PHASE_MRR = 1, /* the first trial, at max_rate */
	KNEE_PHASE_NARROW,  /* short trials: one classifies a load */
	KNEE_PHASE_CONFIRM, /* final trials: the goal's duration sum classifies */
	KNEE_PHASE_RETRY,   /* repeat of an invalid (generator-limited) trial */
	KNEE_PHASE_FIT,	    /* final trials at a soft knee's fitted NDR */
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
	uint64_t received_bps; /* over the sender's window: achieved * (1 - loss) */
	uint64_t arrival_bps;  /* over the receiver's, first to last; 0 unknown */
	double loss_ratio;
	bool generator_limited;
	uint64_t duration_ns; /* measured; 0: the trial's duration */
};

enum knee_verdict {
	KNEE_PASS = 1, /* no loss: passes NDR and PDR */
	KNEE_PASS_PDR, /* loss within the goal: passes PDR, fails NDR */
	KNEE_FAIL,     /* loss above the goal */
	KNEE_INVALID,  /* generator fell short: no pass at the rate asked for */
	/* loss within the goal, but the queue grew beyond the tolerance
	 * (knee_trial_loss()): fails NDR and PDR, it passed on loss alone */
	KNEE_QUEUED,
};

/* One trial as recorded, in order. */
struct knee_record {
	struct knee_trial trial;
	struct knee_measurement m;
	enum knee_verdict verdict;
	/* The generator fell short by a stall (knee_bounds.c): repeated, and
	 * no evidence of its limit. */
	bool stall;
};

/* A sender that has offered a load for a whole trial and then, at that load
 * or a lower one, falls short by no more than this much of its trial's time
 * was off the CPU for a moment (a busy host), not at its limit: 3 % of a
 * 1 s trial. */
#define KNEE_STALL_NS 30000000ull

enum knee_outcome {
	KNEE_UNFINISHED = 0,  /* trial limit reached or search abandoned */
	KNEE_FOUND,	      /* lower and upper confirmed within the width goal */
	KNEE_ABOVE_MAX,	      /* passes at max_rate: lower = max_rate, no upper */
	KNEE_BELOW_MIN,	      /* fails at min_rate: upper = min_rate, no lower */
	KNEE_GENERATOR_LIMIT, /* passes up to where the generator falls short */
};

struct knee_bound {
	enum knee_outcome outcome;
	struct knee_goal goal; /* the goal this bound is for */
	bool lower_valid, upper_valid;
	uint64_t lower_bps;	       /* the relevant lower bound (load) */
	uint64_t upper_bps;	       /* the relevant upper bound (load) */
	bool lower_final, upper_final; /* classified by the goal, not the coarse target */
	bool upper_is_generator_limit; /* upper is where the generator fell short */
	/* no load is classified lower: the lower bound is what the generator
	 * did send without loss in a trial short of its target */
	bool lower_is_sent;
	int lower_trial, upper_trial; /* a trial at the bound (the last), or -1 */
	uint64_t lower_rx_bps;	      /* receive rate at the lower bound */
	double upper_loss;	      /* loss ratio at the upper bound (its quantile) */
	/* RFC 9971 Appendix B: the lower bound's load times one minus the
	 * loss ratio its trials stay within for all but the exceed ratio of
	 * their time; 0 without a lower bound. */
	uint64_t conditional_throughput_bps;
	/* the trial time and count at each bound's load */
	uint64_t lower_duration_ns, upper_duration_ns;
	unsigned lower_ntrials, upper_ntrials;
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
	unsigned nfit;	   /* of them fit trials (a soft knee's, after the goals) */
	unsigned nstalls;  /* of them stalls of the generator, repeated */
	unsigned nloads;   /* distinct loads tried */
	uint64_t trial_ns; /* sum of trial durations (measured if given) */
	bool done;	   /* false: stopped early (limit or interrupt) */
};

/* The search state: a plain struct, no allocation. Fields are private to
 * knee*.c; read results through knee_get_result() / knee_trials(). As
 * MLRsearch (RFC 9971) keeps them apart, what the trials say
 * (struct knee_bounds, knee_bounds.c) is kept apart from the choice of the
 * next trial (knee_select.c); knee.c hands trials out and takes them back. */
struct knee_bounds {
	/* [0]: the coarse targets (one short trial classifies), [1]: the goals */
	struct knee_goal target[2][KNEE_NTARGETS];
	bool retry_due;	  /* the last trial was invalid: repeat it */
	bool short_once;  /* the generator fell short of it once, not by a stall */
	uint64_t max_eff; /* max_rate, lowered to the generator limit */
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

/* Defaults: loss goal 0.5 %, width goal 1 %, 1 s short and final trials,
 * exceed ratio 50 %, duration sum three final trials, 60 trials, 15 fit
 * trials; min and max rate 0 (max must be set). */
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

/* The loss ratio trial m counts with for goal g: its loss, or the share by
 * which the path's receive rate fell short of what was sent when the
 * queue that shortfall stands for grew beyond the goal's queue tolerance
 * (the path queued what it could not forward). */
double knee_trial_loss(const struct knee_measurement *m, const struct knee_goal *g);

/* How much the queue grew through trial m: how much longer its datagrams
 * took to arrive than to be sent (the receiver's window beyond the
 * sender's: the last one-way delay beyond the first), in ns; 0 when it
 * did not grow or no arrival rate is known. */
uint64_t knee_queue_growth_ns(const struct knee_measurement *m);

/* Goal t of a checked configuration (NDR: loss ratio 0, PDR: loss_goal). */
void knee_goal_of(const struct knee_config *cfg, enum knee_target t, struct knee_goal *g);

/* RFC 9971 Appendix A: how a load with these sums stands for goal g. */
enum knee_class knee_load_class(const struct knee_goal *g, const struct knee_load_sums *s);

/* RFC 9971 Appendix B: the loss ratio that the long trials at a load (n of
 * them, their loss ratios and durations) stay within for all but the
 * exceed ratio of their time; 1 when too little long time was measured. */
double knee_quantile_loss(const struct knee_goal *g, const double *loss, const uint64_t *dur_ns,
			  unsigned n);

const char *knee_class_name(enum knee_class c); /* "undecided", "lower", "upper" */

/* A rough upper estimate of trials and time a search will take, for progress
 * lines ("trial k of n, time left"). */
unsigned knee_estimate_trials(const struct knee_config *cfg);
uint64_t knee_estimate_ns(const struct knee_config *cfg);
/* What a search never exceeds, whatever the path: its max_trials counted
 * trials, and max_time of trial time (their setup included; the default:
 * KNEE_MAX_TIME_TRIALS final trials). */
unsigned knee_max_trials(const struct knee_config *cfg);
uint64_t knee_max_time_ns(const struct knee_config *cfg);

const char *knee_target_name(enum knee_target t); /* "NDR", "PDR" */
const char *knee_outcome_name(enum knee_outcome o);
const char *knee_phase_name(enum knee_phase p);
const char *knee_verdict_name(enum knee_verdict v);

#endif
