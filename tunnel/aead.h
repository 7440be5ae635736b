/* SPDX-License-Identifier: MIT */
/*
 * Data-message AEAD: AES-256-GCM or ChaCha20-Poly1305 (IETF), both with a
 * 12-byte nonce of 4 zero bytes then the 64-bit message counter,
 * little-endian. The cipher is fixed per configuration ("auto" picks AES-256-GCM
 * when the CPU has AES-NI and PCLMUL, else ChaCha20-Poly1305) and bound into
 * the handshake prologue (wire.h), so both ends must agree.
 *
 * Sealing and opening work in place on the caller's buffer: no copy, no
 * allocation. An aead_key holds expanded key material and must live in
 * sodium_malloc memory (it is part of a keypair, see tunnel_engine.c); it is
 * read-only after aead_key_init(), so several threads may seal or open with
 * the same key at once.
 */
#ifndef OVLPERF_TUNNEL_AEAD_H
#define OVLPERF_TUNNEL_AEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sodium.h>

#include "wire.h"

enum aead_cipher {
	AEAD_AUTO = 0, /* only before aead_cipher_resolve() */
	AEAD_AES256GCM = 1,
	AEAD_CHACHA20POLY1305 = 2,
};

struct aead_key {
	enum aead_cipher cipher;
	union {
		crypto_aead_aes256gcm_state aes; /* CRYPTO_ALIGN(16) */
		uint8_t chacha[WIRE_KEY_LEN];
	} u;
};

/* "auto", "aes256gcm" (also "aes-256-gcm") or "chacha20poly1305"; false otherwise. */
bool aead_cipher_parse(const char *name, enum aead_cipher *out);
/* "aes256gcm" / "chacha20poly1305" / "auto": the names used in the prologue. */
const char *aead_cipher_name(enum aead_cipher cipher);
/* Whether this CPU can run AES-256-GCM through libsodium (needs sodium_init()). */
bool aead_aes_available(void);
/*
 * AEAD_AUTO -> AEAD_AES256GCM if available else AEAD_CHACHA20POLY1305; other
 * values unchanged. Returns -ENOTSUP for AEAD_AES256GCM on a CPU without it.
 */
int aead_cipher_resolve(enum aead_cipher in, enum aead_cipher *out);

/* Expands key (32 bytes) for cipher (resolved). 0, -EINVAL or -ENOTSUP. */
int aead_key_init(struct aead_key *k, enum aead_cipher cipher,
		  const uint8_t key[static WIRE_KEY_LEN]);
void aead_key_wipe(struct aead_key *k);

/*
 * Encrypts buf[0..len) in place and writes the tag to tag (may be buf + len).
 * ad/adlen: associated data (the 16-byte data header).
 */
void aead_seal(const struct aead_key *k, uint64_t counter, const uint8_t *ad, size_t adlen,
	       uint8_t *buf, size_t len, uint8_t tag[static WIRE_TAG_LEN]);

/*
 * Verifies tag and decrypts buf[0..len) in place. Returns 0, or -EBADMSG if
 * the tag does not verify (then buf is unspecified and must be dropped).
 */
int aead_open(const struct aead_key *k, uint64_t counter, const uint8_t *ad, size_t adlen,
	      uint8_t *buf, size_t len, const uint8_t tag[static WIRE_TAG_LEN])
	__attribute__((warn_unused_result));

#endif
