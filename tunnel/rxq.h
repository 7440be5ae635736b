/* SPDX-License-Identifier: MIT */
/*
 * The underlay receive queue as the RX threads see it: each datagram's
 * kernel receive time (SO_TIMESTAMPNS, CLOCK_REALTIME), the time it waited
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

/* The SCM_TIMESTAMPNS time in a received message's control data, in ns
 * since the epoch. Walks the buffer with bounds checks (it does not trust
 * cmsg_len). false when absent or malformed. */
bool rxq_stamp(const void *control, size_t len, uint64_t *realtime_ns);
/* Records n datagrams that waited sojourn_ns each (one UDP_GRO buffer is
 * n datagrams received at once). Lock-free; any thread. */
void rxq_record(struct rxq_stats *s, uint64_t sojourn_ns, uint64_t n);
/* Mean sojourn in ns; 0 with no samples. */
uint64_t rxq_mean_ns(const struct rxq_stats *s);

#endif
