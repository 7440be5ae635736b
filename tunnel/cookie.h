/* SPDX-License-Identifier: MIT */
/*
 * mac1/mac2, cookie replies and load detection (WireGuard's DoS mitigation,
 * with BLAKE2b):
 *
 *   mac1 = BLAKE2b-128 keyed with HASH32(WIRE_LABEL_MAC1 || responder public)
 *          over the message up to mac1;
 *   mac2 = BLAKE2b-128 keyed with the cookie over the message up to mac2, or
 *          zeros without a fresh cookie;
 *   cookie = BLAKE2b-128 keyed with a random secret (renewed every
 *          COOKIE_SECRET_MAX_AGE) over the source address and port;
 *   cookie reply = XChaCha20-Poly1305, key HASH32(WIRE_LABEL_COOKIE ||
 *          responder public), random 24-byte nonce, associated data the mac1
 *          of the message being answered.
 *
 * HASH32 is unkeyed BLAKE2b with a 32-byte output. A message without a valid
 * mac1 for our public key is dropped silently. Under load a handshake message
 * also needs a valid mac2; without one it gets a cookie reply instead of
 * being processed.
 *
 * Threads: the checker (device side) is used by receive threads; its secret
 * rotation is guarded by its own mutex. A maker (one per peer) is guarded by
 * the peer's lock.
 */
#ifndef OVLPERF_TUNNEL_COOKIE_H
#define OVLPERF_TUNNEL_COOKIE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "clock.h"
#include "wire.h"

#define COOKIE_SECRET_MAX_AGE_NS (120 * NSEC_PER_SEC)
#define COOKIE_SECRET_LATENCY_NS (5 * NSEC_PER_SEC)
/*
 * Under load once more than this many handshake messages arrive in one
 * second: answering one initiation costs about four X25519 operations
 * (~0.2 ms), so this bounds unauthenticated-address work to ~20% of a core.
 * A device that sees its receive queue back up may also force it.
 */
#define COOKIE_LOAD_THRESHOLD_PER_SEC 1000
/* Stay under load this long after the last overloaded second. */
#define COOKIE_LOAD_HOLD_NS NSEC_PER_SEC

enum cookie_verdict {
	COOKIE_BAD_MAC1 = 0, /* drop silently */
	COOKIE_MAC1_OK,	     /* mac1 valid; mac2 absent or invalid */
	COOKIE_MAC2_OK,	     /* mac1 and mac2 valid: the source proved its address */
};

/* Responder side: one per device. Secrets inside: allocate with sodium_malloc. */
struct cookie_checker {
	uint8_t mac1_key[WIRE_KEY_LEN];
	uint8_t reply_key[WIRE_KEY_LEN];
	pthread_mutex_t lock; /* secret, secret_birth */
	uint8_t secret[WIRE_KEY_LEN];
	uint64_t secret_birth; /* 0 = no secret yet */
	/* load detection */
	_Atomic uint64_t load_window_start;
	_Atomic uint32_t load_count;
	_Atomic uint64_t under_load_until;
	_Atomic bool forced_load; /* tests and the device may force it */
};

/* Initiator side: one per peer (talking to that peer as responder). */
struct cookie_maker {
	uint8_t mac1_key[WIRE_KEY_LEN];
	uint8_t reply_key[WIRE_KEY_LEN];
	uint8_t cookie[WIRE_COOKIE_LEN];
	uint64_t cookie_birth; /* 0 = no cookie */
	uint8_t last_mac1[WIRE_MAC_LEN];
	bool have_last_mac1;
};

/* 0 or -errno. our_pub: our static public key. */
int cookie_checker_init(struct cookie_checker *c, const uint8_t our_pub[static WIRE_KEY_LEN]);
void cookie_checker_destroy(struct cookie_checker *c);
/* peer_pub: the remote peer's static public key. */
void cookie_maker_init(struct cookie_maker *m, const uint8_t peer_pub[static WIRE_KEY_LEN]);

/*
 * Checks mac1 (and mac2 when check_mac2) of a handshake message whose length
 * already matched its type (initiation or response). src: the datagram's
 * source (only address and port are used).
 */
enum cookie_verdict cookie_validate(struct cookie_checker *c, const uint8_t *msg, size_t len,
				    const struct sockaddr *src, socklen_t srclen, bool check_mac2,
				    uint64_t now) __attribute__((warn_unused_result));

/*
 * Builds the cookie reply to msg (an initiation or response that failed the
 * mac2 check under load) into out. receiver: msg's sender index. 0 or -errno.
 */
int cookie_create_reply(struct cookie_checker *c, const uint8_t *msg, size_t len, uint32_t receiver,
			const struct sockaddr *src, socklen_t srclen, uint64_t now,
			uint8_t out[static WIRE_COOKIE_REPLY_LEN]);

/* Writes mac1 and mac2 into a handshake message we are about to send. */
void cookie_add_macs(struct cookie_maker *m, uint8_t *msg, size_t len, uint64_t now);

/*
 * Consumes a cookie reply for the last message we sent to this peer. 0, or
 * -EBADMSG (does not decrypt against our last mac1: drop).
 */
int cookie_consume_reply(struct cookie_maker *m, const uint8_t msg[static WIRE_COOKIE_REPLY_LEN],
			 uint64_t now) __attribute__((warn_unused_result));

/* Load detection: count one handshake message; whether we are under load. */
void cookie_note_handshake(struct cookie_checker *c, uint64_t now);
bool cookie_under_load(struct cookie_checker *c, uint64_t now);
void cookie_force_load(struct cookie_checker *c, bool on);

/* Exposed for tests: the keyed BLAKE2b MAC key derivation HASH32(label || pub). */
void cookie_derive_key(uint8_t out[static WIRE_KEY_LEN], const char *label,
		       const uint8_t pub[static WIRE_KEY_LEN]);

#endif
