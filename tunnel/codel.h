/* SPDX-License-Identifier: MIT */
/*
 * Queue policy for the underlay's receive queue: CoDel (RFC 8289).
 *
 * The RX thread cannot see inside the kernel's socket queue, but each
 * datagram carries the time the kernel received it (SO_TIMESTAMPNS), so the
 * time it waited (its sojourn) is known when the thread takes it. A standing
 * queue, one whose sojourn stays above `target` for a whole `interval`, is
 * drained by dropping datagrams at the head, at a rate that grows with the
 * square root of the drops (the control law) until the sojourn falls below
 * target again. A burst that clears within an interval is never dropped.
 * Dropping at the head, before decryption, costs no cipher work, and the
 * datagrams that stay keep their order: the policy only removes.
 *
 * CoDel's control law is made for senders that slow down when they lose a
 * packet (TCP). A sender that does not (a UDP load offered above what the
 * overlay can carry) outruns it for seconds, so a hard limit bounds the
 * wait as well: a datagram that waited longer than `limit` is dropped
 * whatever CoDel's state (a time-based tail drop, applied at the head).
 *
 * Pure: no clock, no I/O; callers pass times in ns, tests a fake clock.
 */
#ifndef OVLPERF_TUNNEL_CODEL_H
#define OVLPERF_TUNNEL_CODEL_H

#include <stdbool.h>
#include <stdint.h>

/* RFC 8289's defaults (its section 4.2: 5 ms / 100 ms). Tighter values
 * (1 ms / 20 ms) cut the wait further but drop during the scheduling gaps of
 * a busy host, where the overlay daemons share cores with the loads: that
 * lowers the no-drop rate the tester finds. The limit is the worst wait a
 * datagram may see (8 MiB of socket buffer is 670 ms at 100 Mbit/s). */
#define CODEL_DEFAULT_TARGET_NS	  (5u * 1000u * 1000u)	 /* 5 ms */
#define CODEL_DEFAULT_INTERVAL_NS (100u * 1000u * 1000u) /* 100 ms */
#define CODEL_DEFAULT_LIMIT_NS	  (50u * 1000u * 1000u)	 /* 50 ms */

enum codel_verdict {
	CODEL_PASS = 0,
	CODEL_DROP,	  /* CoDel: a standing queue */
	CODEL_DROP_LIMIT, /* waited longer than the limit */
};

struct codel {
	uint64_t target_ns, interval_ns; /* target 0: CoDel off */
	uint64_t limit_ns;		 /* 0: no limit */
	uint64_t first_above;		 /* when the sojourn may count as standing; 0: below */
	uint64_t drop_next;		 /* next drop while dropping */
	uint32_t count;			 /* drops in this dropping state */
	uint32_t lastcount;		 /* count when the last dropping state began */
	bool dropping;
};

void codel_init(struct codel *c, uint64_t target_ns, uint64_t interval_ns, uint64_t limit_ns);
/* Called for every datagram taken from the queue, in order: whether this one
 * is to be dropped, and why. sojourn_ns is how long it waited, now_ns the
 * time it was taken (any monotonic clock, the same for every call). */
enum codel_verdict codel_drop(struct codel *c, uint64_t sojourn_ns, uint64_t now_ns);

/*
 * Sojourn-time histogram: bucket k counts sojourns in [2^k, 2^(k+1)) us
 * (bucket 0 also takes everything below 1 us, the last everything above).
 */
#define CODEL_HIST_BUCKETS 18 /* up to 2^17 us = 131 ms and more */
unsigned codel_hist_bucket(uint64_t sojourn_ns);
/* Upper bound in us of bucket k (the last: UINT64_MAX). */
uint64_t codel_hist_upper_us(unsigned k);
/* The upper bound in us of the bucket holding quantile q (0..1) of the
 * counts; 0 when there are none. */
uint64_t codel_hist_quantile_us(const uint64_t h[CODEL_HIST_BUCKETS], double q);

#endif
