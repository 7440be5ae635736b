/* SPDX-License-Identifier: MIT */
/*
 * The underlay receive queue as the RX threads see it: each datagram's
 * kernel receive time (SO_TIMESTAMPNS, CLOCK_REALTIME, read by
 * sockopt_rx_stamp()), the time it waited
 * in the socket's queue before a thread took it (its sojourn), and the
 * statistics `tunnel show` reports: a histogram (codel.h's buckets), the
 * sum and the largest. The policy that drops on sojourn is codel.h.
 */
#ifndef OVLPERF_TUNNEL_RXQ_H
#define OVLPERF_TUNNEL_RXQ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codel.h"

/* Room in a datagram's control buffer for the timestamp. */
#define RXQ_CTRL_SPACE 32 /* CMSG_SPACE(sizeof(struct timespec)) on LP64 */

struct rxq_stats {
	_Atomic uint64_t hist[CODEL_HIST_BUCKETS]; /* datagrams per sojourn bucket */
	_Atomic uint64_t samples;		   /* datagrams with a sojourn */
	_Atomic uint64_t sum_ns;		   /* of their sojourns */
	_Atomic uint64_t max_ns;
};

/* One RX thread's figures since its last flush: plain counters, so the
 * per-datagram work touches no memory another core writes. */
struct rxq_batch {
	uint64_t hist[CODEL_HIST_BUCKETS];
	uint64_t samples, sum_ns, max_ns;
};

/* Records n datagrams that waited sojourn_ns each (one UDP_GRO buffer is
 * n datagrams received at once). */
void rxq_record(struct rxq_batch *b, uint64_t sojourn_ns, uint64_t n);
/* Adds b to the shared s (atomics; any thread) and empties b: once per
 * receive batch, not per datagram. */
void rxq_flush(struct rxq_stats *s, struct rxq_batch *b);
/* Mean sojourn in ns; 0 with no samples. */
uint64_t rxq_mean_ns(const struct rxq_stats *s);

#endif
