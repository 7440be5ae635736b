/* SPDX-License-Identifier: MIT */
/*
 * Receiver statistics of one UDP stream, from (seq, send_ts, recv_ts, len)
 * records in arrival order. Pure: no sockets, no clock.
 *
 * Sequence accounting uses a sliding bitmap of RXSTATS_WINDOW sequence
 * numbers below the highest seen:
 *   - seq above the highest: new; the gap in between is (so far) missing;
 *   - seq inside the window, not seen: it fills a hole -> "reordered";
 *   - seq inside the window, already seen -> "duplicate";
 *   - seq below the window: "late" (cannot tell reordered from duplicate;
 *     it does not count as received and so stays in the loss figure).
 * Loss is final only at the end: lost = max(sent, highest + 1) - unique,
 * where sent is the sender's count (so tail loss counts); during the test
 * rxstats_snapshot() gives the loss seen so far (highest + 1 - unique).
 *
 * Jitter is RFC 3550's interarrival jitter: for consecutive arrivals,
 * D = (Rj - Ri) - (Sj - Si), J += (|D| - J) / 16.
 *
 * One-way delay (recv_ts - send_ts) goes into a log-linear histogram with
 * RXSTATS_SUB_BUCKETS sub-buckets per power of two: fixed memory, and a
 * percentile reported as its bucket's midpoint is within 1/128 (< 1 %) of a
 * true sample value. min, max and mean are exact. A negative delay (clocks
 * of two hosts that differ) is counted in owd_negative and recorded as 0.
 */
#ifndef OVLPERF_RXSTATS_H
#define OVLPERF_RXSTATS_H

#include <stdbool.h>
#include <stdint.h>

#include "load_result.h"

#define RXSTATS_WINDOW	    65536u /* sequence numbers tracked below the highest */
#define RXSTATS_SUB_BITS    6
#define RXSTATS_SUB_BUCKETS (1u << RXSTATS_SUB_BITS)
/* values < SUB_BUCKETS exact, then SUB_BUCKETS per power of two up to 2^63 */
#define RXSTATS_OWD_BUCKETS (RXSTATS_SUB_BUCKETS * (64 - RXSTATS_SUB_BITS + 1))

struct rxstats_hist {
	uint64_t count;
	uint64_t min, max;
	unsigned __int128 sum;
	uint64_t buckets[RXSTATS_OWD_BUCKETS];
};

struct rxstats {
	/* counters */
	uint64_t received;   /* unique datagrams (each sequence once) */
	uint64_t bytes;	     /* payload bytes of unique datagrams */
	uint64_t duplicates; /* a sequence seen again inside the window */
	uint64_t reordered;  /* arrived after a higher sequence (filled a hole) */
	uint64_t late;	     /* below the window: not counted as received */
	uint64_t malformed;  /* rxstats_malformed() calls */
	uint64_t owd_negative;
	/* sequence window */
	bool any;	   /* at least one datagram accepted */
	uint64_t highest;  /* highest sequence seen */
	uint64_t seq_span; /* highest + 1; for a merged summary the sum over streams */
	uint64_t bitmap[RXSTATS_WINDOW / 64]; /* bit (seq % WINDOW) set: seen */
	/* jitter */
	bool have_prev;
	int64_t prev_transit; /* recv_ns - send_ns of the previous arrival */
	double jitter_ns;
	uint64_t jitter_samples; /* for merging (weights) */
	/* first/last arrival, for rates and the queue's growth: the kernel's
	 * arrival stamp where the socket gave one, not the read, whose delay
	 * is the receiving thread's (a late first read shortens the window) */
	uint64_t first_recv_ns, last_recv_ns;
	struct rxstats_hist owd;
	/* how long datagrams waited in the receiving socket: the kernel's
	 * arrival stamp to the read (rxstats_wait_add()) */
	struct rxstats_hist wait;
};

/* Cumulative figures at one moment, for interval reports. */
struct rxstats_snapshot {
	uint64_t received, bytes, duplicates, reordered, late, malformed;
	uint64_t lost_so_far; /* highest + 1 - received (no tail loss yet) */
	double jitter_ns;
};

/* struct rxstats is ~40 KiB: allocate it with the stream. */
void rxstats_init(struct rxstats *st);
/* One datagram that parsed (dgram_parse() true), read at recv_ns (its
 * one-way delay: the wait in the socket is in it), arrived at arrive_ns
 * (the kernel's stamp on the same clock; recv_ns when there is none). */
void rxstats_add(struct rxstats *st, uint64_t seq, uint64_t send_ns, uint64_t recv_ns,
		 uint64_t arrive_ns, uint32_t len);
/* One datagram that did not parse. */
void rxstats_malformed(struct rxstats *st);

void rxstats_snapshot(const struct rxstats *st, struct rxstats_snapshot *snap);
/* d = b - a, counters only; jitter is b's. */
void rxstats_snapshot_delta(const struct rxstats_snapshot *a, const struct rxstats_snapshot *b,
			    struct rxstats_snapshot *d);

/* Final loss given the sender's count (0 if unknown):
 * max(sent, seq_span) - received. For a merged summary pass the sum of the
 * streams' sent counts; that equals the sum of the per-stream losses as long
 * as no stream saw a sequence at or above its sent count. */
uint64_t rxstats_lost(const struct rxstats *st, uint64_t sent);

/* Adds src's counters and histogram into dst; jitter becomes the mean of
 * both weighted by samples. dst is then a summary: no rxstats_add() on it. */
void rxstats_merge(struct rxstats *dst, const struct rxstats *src);

/* Histogram. */
void rxstats_hist_init(struct rxstats_hist *h);
void rxstats_hist_add(struct rxstats_hist *h, uint64_t v);
void rxstats_hist_merge(struct rxstats_hist *dst, const struct rxstats_hist *src);
/* Value at quantile q (0..1), as the midpoint of its bucket clamped to
 * [min, max]; 0 when empty. */
uint64_t rxstats_hist_quantile(const struct rxstats_hist *h, double q);
unsigned rxstats_hist_index(uint64_t v);
/* Lowest and highest value that fall into bucket i. */
uint64_t rxstats_hist_bucket_low(unsigned i);
uint64_t rxstats_hist_bucket_high(unsigned i);

void rxstats_owd(const struct rxstats *st, struct owd_summary *out);
/* One datagram's wait in the receiving socket, and their summary (valid
 * when any was recorded; error_ns 0: one host's clock). */
void rxstats_wait_add(struct rxstats *st, uint64_t wait_ns);
void rxstats_wait(const struct rxstats *st, struct owd_summary *out);

/* The receiver's window: first to last datagram's arrival (the kernel's
 * stamp where there is one), 0 with fewer than two. The arrival rate is
 * taken over it (udp_result.arrival_bps): a path that queued what it could
 * not forward drains after the sender stops, so its arrivals spread over a
 * longer window than its sends. The received rate is not: it shares the
 * sender's window (load_merge.c). */
uint64_t rxstats_window_ns(const struct rxstats *st);

/* Rate of arrivals over a window: the window spans received - 1 gaps, so
 * (received - 1) datagrams of len bytes per window (a link's exact rate when
 * it delivers them back to back). 0 when there is no window. */
uint64_t rxstats_window_bps(uint64_t received, uint32_t len, uint64_t window_ns);
uint64_t rxstats_window_pps(uint64_t received, uint64_t window_ns);

/* Fills the receiver's part of a udp_result: received, lost (with sent),
 * duplicates, reordered, malformed, received_bps and received_pps over
 * duration_ns, jitter_ms, owd. Sender fields (sent, target, achieved ...)
 * are left as they are. */
void rxstats_result(const struct rxstats *st, uint64_t sent, uint64_t duration_ns,
		    struct udp_result *out);

#endif
