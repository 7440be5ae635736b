/* SPDX-License-Identifier: MIT */
/*
 * Anti-replay sliding window (RFC 6479): a ring of 64-bit words, the newest
 * counter seen and a window of REPLAY_WINDOW_SIZE counters behind it. A
 * counter is accepted once; counters older than the window, duplicates and
 * counters at or beyond the reject limit are refused.
 *
 * Call replay_check() before decrypting (cheap early drop, no change) and
 * replay_update() only after the tag verified. Not thread-safe: one keypair's
 * window is updated by one thread at a time (the engine holds a per-keypair
 * spin flag around replay_update()).
 */
#ifndef OVLPERF_TUNNEL_REPLAY_H
#define OVLPERF_TUNNEL_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#define REPLAY_WORD_BITS 64
/* 65536 bits in the ring (8 KiB a keypair). WireGuard's 8192 absorb the
 * network's reordering; here the window must also absorb the scheduling of
 * threads: two receiving workers check one keypair's counters in parallel
 * (underlay_spread.h), and at 400,000 datagrams a second one held off its CPU
 * for 10 ms is 4,000 counters behind the other (4,032 were too few: 32,367
 * datagrams dropped as too old in 24 s of TCP on the 2-core lab pair). */
#define REPLAY_WORDS	 1024
#define REPLAY_RING_BITS (REPLAY_WORDS * REPLAY_WORD_BITS)
/* Counters accepted behind the newest: the ring less one word (RFC 6479). */
#define REPLAY_WINDOW_SIZE (REPLAY_RING_BITS - REPLAY_WORD_BITS)

_Static_assert((REPLAY_WORDS & (REPLAY_WORDS - 1)) == 0, "power of two words");
_Static_assert(REPLAY_WINDOW_SIZE >= 2048, "window of at least 2048 packets");

struct replay {
	uint64_t greatest; /* newest counter accepted + 1; 0 = none yet */
	uint64_t ring[REPLAY_WORDS];
};

void replay_init(struct replay *r);

/*
 * Whether counter would be accepted now: below limit (counters >= limit are
 * refused; the engine passes REJECT_AFTER_MESSAGES), not older than the
 * window, not already seen. Does not change r.
 */
bool replay_check(const struct replay *r, uint64_t counter, uint64_t limit)
	__attribute__((warn_unused_result));

/* replay_check() then marks counter seen. True if accepted. */
bool replay_update(struct replay *r, uint64_t counter, uint64_t limit)
	__attribute__((warn_unused_result));

#endif
