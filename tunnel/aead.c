// SPDX-License-Identifier: MIT
/* Data-message AEAD: AES-256-GCM or ChaCha20-Poly1305, sealed in place (libsodium, or aead_ossl.c).
 */
#include <errno.h>
#include <string.h>

#include "aead.h"
#include "bytes.h"

bool aead_cipher_parse(const char *name, enum aead_cipher *out)
{
	if (!strcmp(name, "auto"))
		*out = AEAD_AUTO;
	else if (!strcmp(name, "aes256gcm") || !strcmp(name, "aes-256-gcm"))
		*out = AEAD_AES256GCM;
	else if (!strcmp(name, "chacha20poly1305") || !strcmp(name, "chacha20-poly1305"))
		*out = AEAD_CHACHA20POLY1305;
	else
		return false;
	return true;
}

const char *aead_cipher_name(enum aead_cipher cipher)
{
	switch (cipher) {
	case AEAD_AES256GCM:
		return "aes256gcm";
	case AEAD_CHACHA20POLY1305:
		return "chacha20poly1305";
	case AEAD_AUTO:
		break;
	}
	return "auto";
}

const char *aead_impl_name(enum aead_impl impl)
{
	switch (impl) {
	case AEAD_IMPL_LIBSODIUM:
		return "libsodium";
	case AEAD_IMPL_OPENSSL:
		return "openssl";
	case AEAD_IMPL_NONE:
		break;
	}
	return "none";
}

bool aead_aes_available(void)
{
	return crypto_aead_aes256gcm_is_available() != 0;
}

bool aead_impl_available(enum aead_cipher cipher, enum aead_impl impl)
{
	if (cipher != AEAD_AES256GCM && cipher != AEAD_CHACHA20POLY1305)
		return false;
	if (impl == AEAD_IMPL_OPENSSL)
		return aead_ossl_available(cipher);
	if (impl == AEAD_IMPL_LIBSODIUM)
		return cipher == AEAD_CHACHA20POLY1305 || aead_aes_available();
	return false;
}

int aead_key_init(struct aead_key *k, enum aead_cipher cipher, enum aead_impl impl,
		  const uint8_t key[static WIRE_KEY_LEN])
{
	memset(k, 0, sizeof(*k));
	if (impl == AEAD_IMPL_NONE)
		impl = AEAD_IMPL_LIBSODIUM;
	if (cipher != AEAD_AES256GCM && cipher != AEAD_CHACHA20POLY1305)
		return -EINVAL;
	if (!aead_impl_available(cipher, impl))
		return -ENOTSUP;
	k->cipher = cipher;
	k->impl = impl;
	if (impl == AEAD_IMPL_OPENSSL)
		return aead_ossl_init(k, key);
	if (cipher == AEAD_AES256GCM)
		crypto_aead_aes256gcm_beforenm(&k->u.aes, key);
	else
		memcpy(k->u.chacha, key, WIRE_KEY_LEN);
	return 0;
}

void aead_key_wipe(struct aead_key *k)
{
	if (k->impl == AEAD_IMPL_OPENSSL)
		aead_ossl_free(k);
	sodium_memzero(k, sizeof(*k));
}

static void make_nonce(uint8_t nonce[12], uint64_t counter)
{
	memset(nonce, 0, 4);
	put_le64(nonce + 4, counter);
}

void aead_seal_nonce(struct aead_key *k, const uint8_t nonce[static 12], const uint8_t *ad,
		     size_t adlen, uint8_t *buf, size_t len, uint8_t tag[static WIRE_TAG_LEN])
{
	if (k->impl == AEAD_IMPL_OPENSSL)
		aead_ossl_seal(k, nonce, ad, adlen, buf, len, tag);
	else if (k->cipher == AEAD_AES256GCM)
		crypto_aead_aes256gcm_encrypt_detached_afternm(buf, tag, NULL, buf, len, ad, adlen,
							       NULL, nonce, &k->u.aes);
	else
		crypto_aead_chacha20poly1305_ietf_encrypt_detached(buf, tag, NULL, buf, len, ad,
								   adlen, NULL, nonce, k->u.chacha);
}

int aead_open_nonce(struct aead_key *k, const uint8_t nonce[static 12], const uint8_t *ad,
		    size_t adlen, uint8_t *buf, size_t len, const uint8_t tag[static WIRE_TAG_LEN])
{
	int rc;

	if (k->impl == AEAD_IMPL_OPENSSL)
		rc = aead_ossl_open(k, nonce, ad, adlen, buf, len, tag);
	else if (k->cipher == AEAD_AES256GCM)
		rc = crypto_aead_aes256gcm_decrypt_detached_afternm(buf, NULL, buf, len, tag, ad,
								    adlen, nonce, &k->u.aes);
	else if (k->cipher == AEAD_CHACHA20POLY1305)
		rc = crypto_aead_chacha20poly1305_ietf_decrypt_detached(
			buf, NULL, buf, len, tag, ad, adlen, nonce, k->u.chacha);
	else
		rc = -1;
	return rc == 0 ? 0 : -EBADMSG;
}

void aead_seal(struct aead_key *k, uint64_t counter, const uint8_t *ad, size_t adlen, uint8_t *buf,
	       size_t len, uint8_t tag[static WIRE_TAG_LEN])
{
	uint8_t nonce[12];

	make_nonce(nonce, counter);
	aead_seal_nonce(k, nonce, ad, adlen, buf, len, tag);
}

int aead_open(struct aead_key *k, uint64_t counter, const uint8_t *ad, size_t adlen, uint8_t *buf,
	      size_t len, const uint8_t tag[static WIRE_TAG_LEN])
{
	uint8_t nonce[12];

	make_nonce(nonce, counter);
	return aead_open_nonce(k, nonce, ad, adlen, buf, len, tag);
}
