// SPDX-License-Identifier: MIT
/*
 * The data AEAD through OpenSSL's libcrypto (EVP): on CPUs with VAES and
 * VPCLMULQDQ its AES-256-GCM and its ChaCha20-Poly1305 are faster than
 * libsodium's (aead_host.c measures it at start). One key holds
 * AEAD_OSSL_SLOTS contexts with the key schedule done once; a call takes a
 * free context (an atomic flag), sets only the nonce, and gives it back, so
 * no call allocates. OpenSSL wipes a context's key material when it is freed
 * (EVP_CIPHER_CTX_free cleanses it).
 */
#include <errno.h>
#include <string.h>

#include <openssl/evp.h>

#include "aead.h"

static const EVP_CIPHER *evp_of(enum aead_cipher cipher)
{
	if (cipher == AEAD_AES256GCM)
		return EVP_aes_256_gcm();
	if (cipher == AEAD_CHACHA20POLY1305)
		return EVP_chacha20_poly1305();
	return NULL;
}

bool aead_ossl_available(enum aead_cipher cipher)
{
	return evp_of(cipher) != NULL;
}

int aead_ossl_init(struct aead_key *k, const uint8_t key[static WIRE_KEY_LEN])
{
	const EVP_CIPHER *c = evp_of(k->cipher);

	if (!c)
		return -EINVAL;
	for (int i = 0; i < AEAD_OSSL_SLOTS; i++) {
		EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

		atomic_flag_clear(&k->u.ossl.busy[i]);
		k->u.ossl.ctx[i] = ctx;
		/* Both ciphers default to a 12-byte IV, the nonce we use. */
		if (!ctx || EVP_EncryptInit_ex(ctx, c, NULL, key, NULL) != 1) {
			aead_ossl_free(k);
			return -ENOMEM;
		}
	}
	return 0;
}

void aead_ossl_free(struct aead_key *k)
{
	for (int i = 0; i < AEAD_OSSL_SLOTS; i++) {
		EVP_CIPHER_CTX_free(k->u.ossl.ctx[i]);
		k->u.ossl.ctx[i] = NULL;
	}
}

/* A context nobody else is using: the slots outnumber the threads. */
static int take(struct aead_key *k)
{
	for (int i = 0;; i = (i + 1) % AEAD_OSSL_SLOTS)
		if (!atomic_flag_test_and_set_explicit(&k->u.ossl.busy[i], memory_order_acquire))
			return i;
}

static void give(struct aead_key *k, int i)
{
	atomic_flag_clear_explicit(&k->u.ossl.busy[i], memory_order_release);
}

void aead_ossl_seal(struct aead_key *k, const uint8_t nonce[12], const uint8_t *ad, size_t adlen,
		    uint8_t *buf, size_t len, uint8_t tag[static WIRE_TAG_LEN])
{
	int i = take(k), n = 0;
	EVP_CIPHER_CTX *ctx = k->u.ossl.ctx[i];

	/* Lengths are bounded by WIRE_MAX_PLAINTEXT; a failure here would be a
	 * library fault and leaves a tag the peer refuses. */
	if (EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, nonce) != 1 ||
	    EVP_EncryptUpdate(ctx, NULL, &n, ad, (int)adlen) != 1 ||
	    (len && EVP_EncryptUpdate(ctx, buf, &n, buf, (int)len) != 1) ||
	    EVP_EncryptFinal_ex(ctx, buf + (len ? n : 0), &n) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, WIRE_TAG_LEN, tag) != 1)
		memset(tag, 0, WIRE_TAG_LEN);
	give(k, i);
}

int aead_ossl_open(struct aead_key *k, const uint8_t nonce[12], const uint8_t *ad, size_t adlen,
		   uint8_t *buf, size_t len, const uint8_t tag[static WIRE_TAG_LEN])
{
	int i = take(k), n = 0, rc = -EBADMSG;
	EVP_CIPHER_CTX *ctx = k->u.ossl.ctx[i];

	if (EVP_DecryptInit_ex(ctx, NULL, NULL, NULL, nonce) == 1 &&
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, WIRE_TAG_LEN, (void *)tag) == 1 &&
	    EVP_DecryptUpdate(ctx, NULL, &n, ad, (int)adlen) == 1 &&
	    (!len || EVP_DecryptUpdate(ctx, buf, &n, buf, (int)len) == 1) &&
	    EVP_DecryptFinal_ex(ctx, buf + (len ? n : 0), &n) == 1)
		rc = 0;
	give(k, i);
	return rc;
}
