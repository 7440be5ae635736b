/* SPDX-License-Identifier: MIT */
/*
 * Protocol timers as pure decisions: no clock, no threads, no sockets. The
 * engine records events (timers_on_*()) with the current CLOCK_MONOTONIC time
 * in nanoseconds and asks timers_tick() which actions are due; callers supply
 * randomness for the retry jitter so tests are deterministic.
 *
 * Semantics follow WireGuard's timers.c: a handshake retransmit every
 * REKEY_TIMEOUT (+ jitter), at most MAX_TIMER_HANDSHAKES retries (about
 * REKEY_ATTEMPT_TIME), then give up; a keepalive
 * KEEPALIVE_TIMEOUT after receiving data if we sent nothing; a new handshake
 * when we sent data but heard nothing for KEEPALIVE_TIMEOUT + REKEY_TIMEOUT;
 * key material zeroed after 3 * REJECT_AFTER_TIME without a new session.
 *
 * A struct timers is owned by one peer and guarded by that peer's lock.
 */
#ifndef OVLPERF_TUNNEL_TIMERS_H
#define OVLPERF_TUNNEL_TIMERS_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"

#define REKEY_AFTER_MESSAGES	    (1ULL << 60)
#define REJECT_AFTER_MESSAGES	    (UINT64_MAX - (1ULL << 13)) /* 2^64 - 2^13 - 1 */
#define REKEY_AFTER_TIME_NS	    (120 * NSEC_PER_SEC)
#define REJECT_AFTER_TIME_NS	    (180 * NSEC_PER_SEC)
#define REKEY_ATTEMPT_TIME_NS	    (90 * NSEC_PER_SEC)
#define REKEY_TIMEOUT_NS	    (5 * NSEC_PER_SEC)
#define KEEPALIVE_TIMEOUT_NS	    (10 * NSEC_PER_SEC)
#define REKEY_TIMEOUT_JITTER_MAX_NS (NSEC_PER_SEC / 3)
#define MAX_TIMER_HANDSHAKES	    (REKEY_ATTEMPT_TIME_NS / REKEY_TIMEOUT_NS)
/* The initiator renews a receiving session this old before it expires. */
#define REKEY_ON_RECV_AGE_NS (REJECT_AFTER_TIME_NS - KEEPALIVE_TIMEOUT_NS - REKEY_TIMEOUT_NS)

/* Actions timers_tick() asks for (bit mask). */
enum timers_action {
	TIMERS_SEND_INITIATION = 1 << 0,  /* start a new handshake */
	TIMERS_RETRY_INITIATION = 1 << 4, /* retransmit: no answer within REKEY_TIMEOUT */
	TIMERS_SEND_KEEPALIVE = 1 << 1,	  /* send an empty data message */
	TIMERS_GIVE_UP = 1 << 2,	  /* handshake failed for REKEY_ATTEMPT_TIME: drop staged */
	TIMERS_ZERO_KEYS = 1 << 3,	  /* wipe all keypairs and handshake state */
};

/* Deadlines in ns; 0 = timer not armed. */
struct timers {
	uint64_t retransmit_at;	   /* handshake retransmit */
	uint64_t keepalive_at;	   /* send keepalive */
	uint64_t new_handshake_at; /* sent data, heard nothing */
	uint64_t zero_keys_at;
	uint64_t persistent_at;	      /* persistent keepalive, if configured */
	uint64_t persistent_interval; /* ns, 0 = off */
	uint32_t handshake_attempts;
	bool need_another_keepalive;
	bool sent_lastminute_handshake;
};

void timers_init(struct timers *t, uint64_t persistent_keepalive_ns);
/* Jitter in [0, REKEY_TIMEOUT_JITTER_MAX_NS) from a 32-bit random value. */
uint64_t timers_jitter(uint32_t random);

/* Events. jitter: timers_jitter(random). */
void timers_on_data_sent(struct timers *t, uint64_t now, uint64_t jitter);
void timers_on_data_received(struct timers *t, uint64_t now);
void timers_on_any_authenticated_sent(struct timers *t, uint64_t now);
void timers_on_any_authenticated_received(struct timers *t, uint64_t now);
/* Any authenticated packet sent or received (persistent keepalive restarts). */
void timers_on_any_authenticated_traversal(struct timers *t, uint64_t now);
void timers_on_handshake_initiated(struct timers *t, uint64_t now, uint64_t jitter);
void timers_on_handshake_complete(struct timers *t);
void timers_on_session_derived(struct timers *t, uint64_t now);

/*
 * Expired timers at now: returns a mask of enum timers_action and updates t
 * (retransmit counting, give-up, re-arming). jitter for a re-armed retransmit.
 */
unsigned timers_tick(struct timers *t, uint64_t now, uint64_t jitter);
/* Earliest armed deadline, or UINT64_MAX: when to call timers_tick() next. */
uint64_t timers_next_deadline(const struct timers *t);

/*
 * Time elapsed from then to now, 0 if then is later: threads read the clock
 * at different moments, so a keypair may be "born" after a sender's now.
 */
static inline uint64_t timers_age(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/* Keypair decisions (created = the keypair's birth time). */
/* May this keypair still encrypt or accept packets? */
bool timers_keypair_valid(uint64_t created, uint64_t now, uint64_t counter);
/* After sending with a keypair: should the initiator start a new handshake? */
bool timers_want_rekey_on_send(bool initiator, uint64_t created, uint64_t now, uint64_t counter);
/* After receiving on the current keypair (once per keypair: sent_lastminute_handshake). */
bool timers_want_rekey_on_recv(const struct timers *t, bool initiator, uint64_t created,
			       uint64_t now);
/* An initiator sends a new initiation at most once per REKEY_TIMEOUT. */
bool timers_initiation_allowed(uint64_t last_initiation_sent, uint64_t now);

#endif
