/* SPDX-License-Identifier: MIT */
/*
 * Noise_IKpsk2_25519_ChaChaPoly_BLAKE2b handshake, message by message as in
 * WireGuard's protocol (whitepaper section 5.4) with BLAKE2b (HASHLEN 64,
 * BLOCKLEN 128) and our own construction/identifier strings (wire.h):
 *
 *   ck = CONSTRUCTION zero-padded to 64 bytes (Noise InitializeSymmetric:
 *        the name is not longer than HASHLEN); h = HASH(ck || IDENTIFIER " "
 *        cipher) (MixHash(prologue)), cipher the first one offered;
 *   h = HASH(h || S_pub_responder)  (IK pre-message)
 *   initiation: offer in the clear, e, es, s, ss, {timestamp}
 *   response:   choice in the clear, MixHash(offer || choice) if there is a
 *               choice, e, ee, se, psk, {}
 *   (T_send, T_recv) = HKDF2(ck, empty)   (swapped for the responder)
 *
 * HMAC is RFC 2104 over BLAKE2b-512 and HKDF is Noise's (section 4.3). Where
 * a 32-byte cipher key comes out of a 64-byte HKDF output, its first 32 bytes
 * are used (Noise section 4.3: "If HASHLEN is 64, then truncates").
 *
 * These functions are pure: the caller provides ephemeral private keys,
 * timestamps and sender indexes (so tests can pin golden transcripts), finds
 * peers and checks timestamp replay and rate limits. They fill or check every
 * field except mac1/mac2 (cookie.h). All state structs hold secrets: keep
 * them in sodium_malloc memory; every function wipes its temporaries.
 * A handshake state is guarded by its peer's lock.
 */
#ifndef OVLPERF_TUNNEL_NOISE_H
#define OVLPERF_TUNNEL_NOISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aead.h"
#include "negotiate.h"
#include "wire.h"

#define NOISE_WUR __attribute__((warn_unused_result))

/* Our static identity (one per device). */
struct noise_local {
	uint8_t priv[WIRE_KEY_LEN];
	uint8_t pub[WIRE_KEY_LEN];
	struct cipher_list ciphers; /* offered and accepted, preferred first */
	bool no_offer;		    /* initiate as an end without negotiation (tests) */
	uint8_t ck0[WIRE_HASH_LEN]; /* CONSTRUCTION, zero-padded */
	/* Per cipher id: HASH(ck0 || prologue naming it), and HASH(that || pub)
	 * (as a responder). */
	uint8_t h0[AEAD_CIPHERS + 1][WIRE_HASH_LEN];
	uint8_t h_local[AEAD_CIPHERS + 1][WIRE_HASH_LEN];
};

/* What we know of one peer. */
struct noise_remote {
	uint8_t pub[WIRE_KEY_LEN];
	uint8_t psk[WIRE_KEY_LEN]; /* zeros when none */
	uint8_t ss[WIRE_KEY_LEN];  /* DH(our priv, their pub), precomputed */
	/* Per cipher id: HASH(h0 || pub), as an initiator. */
	uint8_t h_remote[AEAD_CIPHERS + 1][WIRE_HASH_LEN];
};

enum noise_hs_state {
	NOISE_HS_ZEROED = 0,
	NOISE_HS_CREATED_INITIATION,  /* initiator, waiting for the response */
	NOISE_HS_CONSUMED_INITIATION, /* responder, about to answer */
	NOISE_HS_CREATED_RESPONSE,    /* responder, keys derivable */
	NOISE_HS_CONSUMED_RESPONSE,   /* initiator, keys derivable */
};

/* One handshake in flight. */
struct noise_handshake {
	enum noise_hs_state state;
	uint32_t local_index;  /* our sender index */
	uint32_t remote_index; /* theirs */
	uint8_t e_priv[WIRE_KEY_LEN];
	uint8_t e_pub[WIRE_KEY_LEN];
	uint8_t re[WIRE_KEY_LEN]; /* their ephemeral */
	uint8_t h[WIRE_HASH_LEN];
	uint8_t ck[WIRE_HASH_LEN];
	uint8_t offer[WIRE_OFFER_LEN]; /* sent / received; zeros: none */
	enum aead_cipher cipher;       /* the prologue's, then the chosen one */
	bool negotiated;	       /* chosen from an offer (else: the prologue's) */
};

/* Transport keys out of a completed handshake. */
struct noise_keys {
	uint8_t send[WIRE_KEY_LEN];
	uint8_t recv[WIRE_KEY_LEN];
	uint32_t local_index;
	uint32_t remote_index;
	bool initiator;
	enum aead_cipher cipher; /* the data cipher both ends run */
	bool negotiated;	 /* from an offer; false: a peer without negotiation */
};

/* Primitives (exposed for known-answer tests). */
void noise_hash(uint8_t out[static WIRE_HASH_LEN], const uint8_t *a, size_t alen, const uint8_t *b,
		size_t blen);
void noise_hmac(uint8_t out[static WIRE_HASH_LEN], const uint8_t *key, size_t keylen,
		const uint8_t *in, size_t inlen);
/* Noise HKDF: n (1..3) outputs of WIRE_HASH_LEN bytes; out2/out3 may be NULL. */
void noise_hkdf(uint8_t *out1, uint8_t *out2, uint8_t *out3, const uint8_t ck[static WIRE_HASH_LEN],
		const uint8_t *ikm, size_t ikmlen);

/* 0, or -EINVAL (priv gives a zero public key / an empty cipher list). */
int noise_local_init(struct noise_local *l, const uint8_t priv[static WIRE_KEY_LEN],
		     const struct cipher_list *ciphers) NOISE_WUR;
/* psk may be NULL. 0, or -EINVAL (their key gives a zero shared secret). */
int noise_remote_init(struct noise_remote *r, const struct noise_local *l,
		      const uint8_t pub[static WIRE_KEY_LEN], const uint8_t *psk) NOISE_WUR;

/*
 * Initiator: builds an initiation (all but mac1/mac2) into msg and leaves hs
 * in NOISE_HS_CREATED_INITIATION. e_priv: a fresh ephemeral private key;
 * tai64n: the current TAI64N time. 0 or -EINVAL.
 */
int noise_create_initiation(const struct noise_local *l, const struct noise_remote *r,
			    struct noise_handshake *hs, uint32_t local_index,
			    const uint8_t e_priv[static WIRE_KEY_LEN],
			    const uint8_t tai64n[static WIRE_TAI64N_LEN],
			    uint8_t msg[static WIRE_INITIATION_LEN]) NOISE_WUR;

/*
 * Responder, step 1: decrypts an initiation (mac1 already checked) far enough
 * to learn the initiator's static key. Fills hs (state
 * NOISE_HS_CONSUMED_INITIATION, with remote_index) but the caller must then
 * find the peer by static_pub and call noise_finish_initiation(). An
 * initiation without an offer is tried with the prologue of each of our
 * ciphers in turn (one DH for all): an older peer gets the cipher it always
 * had, if we have it. 0 or -EBADMSG.
 */
int noise_consume_initiation(const struct noise_local *l,
			     const uint8_t msg[static WIRE_INITIATION_LEN],
			     struct noise_handshake *hs,
			     uint8_t static_pub[static WIRE_KEY_LEN]) NOISE_WUR;

/*
 * Responder, step 2, once the peer is known: mixes the static-static DH and
 * verifies the encrypted timestamp. 0 or -EBADMSG (hs is then wiped).
 */
int noise_finish_initiation(const struct noise_remote *r,
			    const uint8_t msg[static WIRE_INITIATION_LEN],
			    struct noise_handshake *hs,
			    uint8_t tai64n[static WIRE_TAI64N_LEN]) NOISE_WUR;

/*
 * Responder: builds the response to a consumed initiation into msg (all but
 * mac1/mac2), with our choice from its offer; hs goes to
 * NOISE_HS_CREATED_RESPONSE. 0, -EINVAL, or -ENOTSUP (we have none of the
 * offered ciphers).
 */
int noise_create_response(const struct noise_local *l, const struct noise_remote *r,
			  struct noise_handshake *hs, uint32_t local_index,
			  const uint8_t e_priv[static WIRE_KEY_LEN],
			  uint8_t msg[static WIRE_RESPONSE_LEN]) NOISE_WUR;

/*
 * Initiator: checks a response (mac1 checked, receiver index matched to hs by
 * the caller) against hs in NOISE_HS_CREATED_INITIATION, and its choice
 * against our offer (no choice: the prologue's cipher). On success hs is
 * NOISE_HS_CONSUMED_RESPONSE; on failure hs is unchanged (a forged response
 * cannot kill a pending handshake). 0 or -EBADMSG.
 */
int noise_consume_response(const struct noise_local *l, const struct noise_remote *r,
			   struct noise_handshake *hs,
			   const uint8_t msg[static WIRE_RESPONSE_LEN]) NOISE_WUR;

/*
 * Derives the transport keys of a handshake in CREATED_RESPONSE or
 * CONSUMED_RESPONSE state, then wipes hs. 0 or -EINVAL (wrong state).
 */
int noise_derive_keys(struct noise_handshake *hs, struct noise_keys *keys) NOISE_WUR;

/* TAI64N of a CLOCK_REALTIME time in ns (tai64n.c). */
void tai64n_from_ns(uint8_t out[static WIRE_TAI64N_LEN], uint64_t realtime_ns);
/* Current time as TAI64N, with the nanoseconds rounded down to a power of two
 * multiple (as WireGuard does) so it does not leak a fine-grained clock. */
void tai64n_now(uint8_t out[static WIRE_TAI64N_LEN]);
/* Whether a is strictly later than b (byte-wise big-endian compare). */
bool tai64n_after(const uint8_t a[static WIRE_TAI64N_LEN], const uint8_t b[static WIRE_TAI64N_LEN]);

#endif
