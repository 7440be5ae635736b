/* SPDX-License-Identifier: MIT */
/*
 * Send pacing on absolute deadlines. Slot n of a stream is due at
 *     start + n * unit_bytes * 8 * 1e9 / rate_bps   (ns, exact integer maths)
 * so rounding never accumulates into drift. A sender asks pacer_next() how
 * many slots are due now (up to its batch size), sends them, and reports
 * with pacer_consume() how many really went out. Slots whose deadline lies
 * more than the tolerance in the past are never sent late in a burst: they
 * are skipped and counted as shortfall, and the schedule moves on. The
 * pacer is pure: every function takes the time as an argument, so tests
 * drive it with a fake clock.
 *
 * Rates are payload bits per second (what iperf3 -b means for UDP).
 */
#ifndef OVLPERF_PACER_H
#define OVLPERF_PACER_H

#include <stdbool.h>
#include <stdint.h>

/* Default lateness a slot may have and still be sent: enough to absorb a
 * sleep's wake-up latency without turning a stall into a burst. */
#define PACER_DEFAULT_TOLERANCE_NS 500000ULL
/* generator_limited when achieved < target * 99 / 100. */
#define PACER_LIMITED_PERMILLE 990

struct pacer {
	uint64_t start_ns;
	uint64_t end_ns;     /* no slot at or after this; UINT64_MAX: open-ended */
	uint64_t rate_bps;   /* 0: unpaced (every call says batch_max are due) */
	uint32_t unit_bytes; /* bytes per slot (datagram payload / write size) */
	uint64_t tolerance_ns;
	uint64_t total;	     /* slots before end_ns (UINT64_MAX: open-ended) */
	uint64_t next_slot;  /* first slot neither sent nor skipped */
	uint32_t due;	     /* slots handed out by the last pacer_next() */
	uint64_t due_now_ns; /* the time of that call */
	/* what happened so far */
	uint64_t sent;	      /* slots consumed by pacer_consume() */
	uint64_t skipped;     /* slots given up because the sender was late */
	uint64_t stalls;      /* times pacer_next() had to skip slots */
	uint64_t max_late_ns; /* largest lateness seen of a slot that was sent */
};

#define PACER_MAX_UNIT (16u << 20)  /* bytes per slot */
#define PACER_MAX_RATE (1ULL << 50) /* bit/s, keeps the integer maths exact */

/* rate_bps 0 = unpaced; duration_ns 0 = open-ended; tolerance_ns 0 means
 * PACER_DEFAULT_TOLERANCE_NS. Returns 0 or -EINVAL (unit_bytes 0 or above
 * PACER_MAX_UNIT, rate above PACER_MAX_RATE). */
int pacer_init(struct pacer *p, uint64_t start_ns, uint64_t duration_ns, uint64_t rate_bps,
	       uint32_t unit_bytes, uint64_t tolerance_ns);

/* Deadline of slot n (UINT64_MAX if beyond any representable time). */
uint64_t pacer_deadline(const struct pacer *p, uint64_t n);

/*
 * At time now: first skips every slot later than the tolerance (counted in
 * skipped), then returns how many slots are due (deadline <= now), at most
 * batch_max. *next_ns (if not NULL) is when to call again: now when more
 * slots are already due, otherwise the next slot's deadline; UINT64_MAX when
 * the schedule has ended (see pacer_done()).
 */
uint32_t pacer_next(struct pacer *p, uint64_t now_ns, uint32_t batch_max, uint64_t *next_ns);
/* Records that n of the due slots went out (n <= what pacer_next returned;
 * the rest stay due and may be skipped later). */
void pacer_consume(struct pacer *p, uint32_t n);
/* Deadline of the first slot not yet sent or skipped (UINT64_MAX if none). */
uint64_t pacer_next_deadline(const struct pacer *p);
/* True when no slot is left before end_ns. */
bool pacer_done(const struct pacer *p);

/* Slots whose deadline fell before now (sent, skipped or still pending). */
uint64_t pacer_scheduled(const struct pacer *p, uint64_t now_ns);
/* Slots scheduled before now and not sent: the generator's shortfall. */
uint64_t pacer_shortfall(const struct pacer *p, uint64_t now_ns);

/* Payload bits per second over elapsed_ns for sent units of unit_bytes. */
uint64_t pacer_rate_bps(uint64_t units, uint32_t unit_bytes, uint64_t elapsed_ns);
/* True when achieved is below 99 % of target (target 0: never). */
bool pacer_generator_limited(uint64_t target_bps, uint64_t achieved_bps);

#endif
