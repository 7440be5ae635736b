/* SPDX-License-Identifier: MIT */
/*
 * Data-message AEAD: AES-256-GCM or ChaCha20-Poly1305 (IETF, RFC 8439), both
 * with a 12-byte nonce of 4 zero bytes then the 64-bit message counter,
 * little-endian, each from one of two implementations: libsodium's or
 * OpenSSL's libcrypto (its default provider). Both produce the same bytes, so the
 * implementation is a local choice (aead_host.h measures which is faster
 * here); the cipher is agreed with the peer in the handshake (negotiate.h).
 *
 * Sealing and opening work in place on the caller's buffer: no copy, no
 * allocation. An aead_key holds expanded key material and must live in
 * sodium_malloc memory (it is part of a keypair, see tunnel_engine.c); it is
 * read-only after aead_key_init() as far as callers can tell, so several
 * threads may seal or open with the same key at once: an OpenSSL key holds
 * AEAD_OSSL_SLOTS contexts (a cipher context keeps per-call state) and a
 * call takes a free one with an atomic flag.
 */
#ifndef OVLPERF_TUNNEL_AEAD_H
#define OVLPERF_TUNNEL_AEAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sodium.h>

#include "wire.h"

/* The values are the wire's cipher ids (wire.h). */
enum aead_cipher {
	AEAD_AUTO = 0, /* only before a cipher is chosen */
	AEAD_AES256GCM = WIRE_CIPHER_AES256GCM,
	AEAD_CHACHA20POLY1305 = WIRE_CIPHER_CHACHA20POLY1305,
};
#define AEAD_CIPHERS 2 /* known ciphers: ids 1..AEAD_CIPHERS */

enum aead_impl {
	AEAD_IMPL_NONE = 0,
	AEAD_IMPL_LIBSODIUM = 1,
	AEAD_IMPL_OPENSSL = 2,
};
#define AEAD_IMPLS 2

/* More than the threads that may use one key at once (workers' TX or RX, timers). */
#define AEAD_OSSL_SLOTS 16

struct evp_cipher_st;
struct ossl_param_st;

/*
 * The OpenSSL provider's own cipher functions (its OSSL_DISPATCH table), called
 * without EVP in between: see aead_ossl.c for why.
 */
struct aead_ossl_fns {
	void *(*newctx)(void *provctx);
	void (*freectx)(void *cctx);
	int (*einit)(void *cctx, const unsigned char *key, size_t keylen, const unsigned char *iv,
		     size_t ivlen, const struct ossl_param_st *params);
	int (*dinit)(void *cctx, const unsigned char *key, size_t keylen, const unsigned char *iv,
		     size_t ivlen, const struct ossl_param_st *params);
	int (*update)(void *cctx, unsigned char *out, size_t *outl, size_t outsize,
		      const unsigned char *in, size_t inl);
	int (*final)(void *cctx, unsigned char *out, size_t *outl, size_t outsize);
	int (*get_ctx_params)(void *cctx, struct ossl_param_st *params);
	int (*set_ctx_params)(void *cctx, const struct ossl_param_st *params);
};

struct aead_key {
	enum aead_cipher cipher;
	enum aead_impl impl;
	union {
		crypto_aead_aes256gcm_state aes; /* CRYPTO_ALIGN(16) */
		uint8_t chacha[WIRE_KEY_LEN];
		struct {
			void *ctx[AEAD_OSSL_SLOTS]; /* the provider's contexts, key set */
			atomic_flag busy[AEAD_OSSL_SLOTS];
			struct aead_ossl_fns fns;
			struct evp_cipher_st *evp; /* holds the provider while keyed */
		} ossl;
	} u;
};

/* "auto", "aes256gcm" (also "aes-256-gcm") or "chacha20poly1305"; false otherwise. */
bool aead_cipher_parse(const char *name, enum aead_cipher *out);
/* "aes256gcm" / "chacha20poly1305" / "auto": the names used in the prologue. */
const char *aead_cipher_name(enum aead_cipher cipher);
/* "libsodium" / "openssl" / "none". */
const char *aead_impl_name(enum aead_impl impl);
/* Whether this CPU can run AES-256-GCM through libsodium (needs sodium_init()). */
bool aead_aes_available(void);
/* Whether impl can run cipher here. */
bool aead_impl_available(enum aead_cipher cipher, enum aead_impl impl);

/*
 * Expands key (32 bytes) for cipher with impl (AEAD_IMPL_NONE: libsodium).
 * 0, -EINVAL, -ENOTSUP (not on this CPU) or -ENOMEM (OpenSSL contexts).
 * Free with aead_key_wipe(), also after a failure.
 */
int aead_key_init(struct aead_key *k, enum aead_cipher cipher, enum aead_impl impl,
		  const uint8_t key[static WIRE_KEY_LEN]) __attribute__((warn_unused_result));
/* Frees the OpenSSL contexts and wipes k; k may be zeroed (never initialised). */
void aead_key_wipe(struct aead_key *k);

/*
 * Encrypts buf[0..len) in place and writes the tag to tag (may be buf + len).
 * ad/adlen: associated data (the 16-byte data header).
 */
void aead_seal(struct aead_key *k, uint64_t counter, const uint8_t *ad, size_t adlen, uint8_t *buf,
	       size_t len, uint8_t tag[static WIRE_TAG_LEN]);

/*
 * Verifies tag and decrypts buf[0..len) in place. Returns 0, or -EBADMSG if
 * the tag does not verify (then buf is unspecified and must be dropped).
 */
int aead_open(struct aead_key *k, uint64_t counter, const uint8_t *ad, size_t adlen, uint8_t *buf,
	      size_t len, const uint8_t tag[static WIRE_TAG_LEN])
	__attribute__((warn_unused_result));

/* The same with a whole 12-byte nonce (known-answer tests with the RFCs' nonces). */
void aead_seal_nonce(struct aead_key *k, const uint8_t nonce[static 12], const uint8_t *ad,
		     size_t adlen, uint8_t *buf, size_t len, uint8_t tag[static WIRE_TAG_LEN]);
int aead_open_nonce(struct aead_key *k, const uint8_t nonce[static 12], const uint8_t *ad,
		    size_t adlen, uint8_t *buf, size_t len, const uint8_t tag[static WIRE_TAG_LEN])
	__attribute__((warn_unused_result));

/* The OpenSSL backend (aead_ossl.c), behind aead_key_init/seal/open. */
int aead_ossl_init(struct aead_key *k, const uint8_t key[static WIRE_KEY_LEN]);
void aead_ossl_free(struct aead_key *k);
bool aead_ossl_available(enum aead_cipher cipher);
void aead_ossl_seal(struct aead_key *k, const uint8_t nonce[12], const uint8_t *ad, size_t adlen,
		    uint8_t *buf, size_t len, uint8_t tag[static WIRE_TAG_LEN]);
int aead_ossl_open(struct aead_key *k, const uint8_t nonce[12], const uint8_t *ad, size_t adlen,
		   uint8_t *buf, size_t len, const uint8_t tag[static WIRE_TAG_LEN]);

#endif
