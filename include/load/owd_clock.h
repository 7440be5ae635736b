/* SPDX-License-Identifier: MIT */
/*
 * One-way delay between hosts that do not share a clock.
 *
 * Each UDP stream's set-up is a timed echo: the client sends its greeting at
 * t0 (its CLOCK_MONOTONIC), the server stamps the echo with its own clock
 * (peer_ns), the client receives it at t1. If peer_ns falls inside [t0, t1]
 * for every stream, both ends read one clock (same kernel) and delays are
 * exact. Otherwise the peer's clock is ahead of ours by an offset in
 *   [peer_ns - t1, peer_ns - t0] = offset_ns -/+ error_ns
 * with offset_ns at the midpoint and error_ns half the round trip; the
 * sample with the shortest round trip is kept.
 *
 * A stream then shifts the timestamps that cross hosts (owd_clock_shift())
 * by the end of that interval that makes every delay it reports an upper
 * bound: never below the true one-way delay, at most 2 * error_ns above it
 * (the round trip of the echo). Differences between delays (jitter, a
 * percentile minus the minimum: queueing under load) do not depend on the
 * offset at all; only a drift of the two clocks during the test (a few
 * parts per million) adds to them. Pure: no clock, no sockets.
 */
#ifndef OVLPERF_OWD_CLOCK_H
#define OVLPERF_OWD_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct owd_clock_sample {
	uint64_t t0, t1;  /* this host: greeting sent, echo received */
	uint64_t peer_ns; /* the peer's stamp in the echo */
};

struct owd_clock {
	unsigned samples;
	bool shared;	   /* every peer stamp inside its [t0, t1] */
	int64_t offset_ns; /* peer clock minus ours (best sample) */
	uint64_t error_ns; /* |true offset - offset_ns| <= error_ns */
};

void owd_clock_init(struct owd_clock *c);
/* One echo; samples with t1 < t0 are ignored. */
void owd_clock_add(struct owd_clock *c, const struct owd_clock_sample *s);
/* Delays can be reported: one clock, or at least one sample. */
bool owd_clock_usable(const struct owd_clock *c);
/* What a stream adds to cross-host timestamps: a sender to the stamps it
 * writes (its time expressed on the peer's clock), a receiver to the stamps
 * it reads (the peer's time on its own clock). 0 with a shared clock. */
int64_t owd_clock_shift(const struct owd_clock *c, bool sender);
/* How far above the true delay a reported one may be: 0 with a shared
 * clock, else the best echo's round trip. */
uint64_t owd_clock_error(const struct owd_clock *c);

#endif
