// SPDX-License-Identifier: MIT
/*
 * The data AEAD through OpenSSL's libcrypto: on CPUs with VAES and
 * VPCLMULQDQ its AES-256-GCM and its ChaCha20-Poly1305 are faster than
 * libsodium's (aead_host.c measures it at start). One key holds
 * AEAD_OSSL_SLOTS contexts with the key schedule done once; a call takes a
 * free context (an atomic flag), sets only the nonce, and gives it back, so
 * no call allocates.
 *
 * The contexts are the default provider's own, driven through its dispatch
 * table (provider-cipher(7): OSSL_PROVIDER_query_operation), not through
 * EVP_Encrypt*: OpenSSL 3.0's EVP layer asks the provider for the IV length
 * on every init (EVP_CIPHER_CTX_get_iv_length, a parameter lookup by name)
 * and turns the tag's ctrl into another lookup, some 6 % of the daemons' time
 * at 3-4 Gbit/s (strcmp, OSSL_PARAM_locate). Called directly, a packet costs
 * the provider's init with the nonce (no parameters), two updates, the final
 * and one tag parameter. The bytes are the provider's, as through EVP
 * (test_aead's RFC vectors). Freeing a context cleanses its key
 * (OPENSSL_clear_free in the provider's freectx).
 */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "aead.h"

static const char *name_of(enum aead_cipher cipher)
{
	if (cipher == AEAD_AES256GCM)
		return "AES-256-GCM";
	if (cipher == AEAD_CHACHA20POLY1305)
		return "ChaCha20-Poly1305";
	return NULL;
}

/* Whether name is one of an algorithm's names ("A:B:C", any case). */
static bool names_hold(const char *names, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = names; p && *p; p = strchr(p, ':') ? strchr(p, ':') + 1 : NULL)
		if (!strncasecmp(p, name, n) && (p[n] == ':' || p[n] == '\0'))
			return true;
	return false;
}

static void fns_take(struct aead_ossl_fns *f, const OSSL_DISPATCH *d)
{
	memset(f, 0, sizeof(*f));
	for (; d->function_id; d++) {
		switch (d->function_id) {
		case OSSL_FUNC_CIPHER_NEWCTX:
			f->newctx = OSSL_FUNC_cipher_newctx(d);
			break;
		case OSSL_FUNC_CIPHER_FREECTX:
			f->freectx = OSSL_FUNC_cipher_freectx(d);
			break;
		case OSSL_FUNC_CIPHER_ENCRYPT_INIT:
			f->einit = OSSL_FUNC_cipher_encrypt_init(d);
			break;
		case OSSL_FUNC_CIPHER_DECRYPT_INIT:
			f->dinit = OSSL_FUNC_cipher_decrypt_init(d);
			break;
		case OSSL_FUNC_CIPHER_UPDATE:
			f->update = OSSL_FUNC_cipher_update(d);
			break;
		case OSSL_FUNC_CIPHER_FINAL:
			f->final = OSSL_FUNC_cipher_final(d);
			break;
		case OSSL_FUNC_CIPHER_GET_CTX_PARAMS:
			f->get_ctx_params = OSSL_FUNC_cipher_get_ctx_params(d);
			break;
		case OSSL_FUNC_CIPHER_SET_CTX_PARAMS:
			f->set_ctx_params = OSSL_FUNC_cipher_set_ctx_params(d);
			break;
		}
	}
}

/*
 * The provider's functions for cipher into f, and the fetched cipher (it holds
 * the provider) into *evp; 0 or -ENOTSUP.
 */
static int resolve(enum aead_cipher cipher, struct aead_ossl_fns *f, EVP_CIPHER **evp)
{
	const char *name = name_of(cipher);
	const OSSL_ALGORITHM *algs, *a;
	const OSSL_PROVIDER *prov;
	int no_store = 0;

	*evp = name ? EVP_CIPHER_fetch(NULL, name, NULL) : NULL;
	prov = *evp ? EVP_CIPHER_get0_provider(*evp) : NULL;
	algs = prov ? OSSL_PROVIDER_query_operation(prov, OSSL_OP_CIPHER, &no_store) : NULL;
	memset(f, 0, sizeof(*f));
	for (a = algs; a && a->algorithm_names; a++)
		if (names_hold(a->algorithm_names, name)) {
			fns_take(f, a->implementation);
			break;
		}
	if (algs)
		OSSL_PROVIDER_unquery_operation(prov, OSSL_OP_CIPHER, algs);
	if (f->newctx && f->freectx && f->einit && f->dinit && f->update && f->final &&
	    f->get_ctx_params && f->set_ctx_params)
		return 0;
	EVP_CIPHER_free(*evp);
	*evp = NULL;
	return -ENOTSUP;
}

bool aead_ossl_available(enum aead_cipher cipher)
{
	struct aead_ossl_fns f;
	EVP_CIPHER *evp;

	if (resolve(cipher, &f, &evp))
		return false;
	EVP_CIPHER_free(evp);
	return true;
}

int aead_ossl_init(struct aead_key *k, const uint8_t key[static WIRE_KEY_LEN])
{
	struct aead_ossl_fns *f = &k->u.ossl.fns;
	EVP_CIPHER *evp;
	void *provctx;

	memset(k->u.ossl.ctx, 0, sizeof(k->u.ossl.ctx));
	k->u.ossl.evp = NULL;
	if (resolve(k->cipher, f, &evp))
		return -EINVAL;
	k->u.ossl.evp = evp;
	provctx = OSSL_PROVIDER_get0_provider_ctx(EVP_CIPHER_get0_provider(evp));
	for (int i = 0; i < AEAD_OSSL_SLOTS; i++) {
		atomic_flag_clear(&k->u.ossl.busy[i]);
		k->u.ossl.ctx[i] = f->newctx(provctx);
		/* Both ciphers default to a 12-byte IV, the nonce we use. */
		if (!k->u.ossl.ctx[i] ||
		    f->einit(k->u.ossl.ctx[i], key, WIRE_KEY_LEN, NULL, 0, NULL) != 1) {
			aead_ossl_free(k);
			return -ENOMEM;
		}
	}
	return 0;
}

void aead_ossl_free(struct aead_key *k)
{
	for (int i = 0; i < AEAD_OSSL_SLOTS; i++) {
		if (k->u.ossl.ctx[i])
			k->u.ossl.fns.freectx(k->u.ossl.ctx[i]);
		k->u.ossl.ctx[i] = NULL;
	}
	EVP_CIPHER_free(k->u.ossl.evp);
	k->u.ossl.evp = NULL;
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

/*
 * The nonce set, the additional data and buf[0..len) in place through one
 * context: the provider reads additional data from an update without output.
 * The outputs' sizes are the inputs' (a stream cipher's update writes what it
 * reads; the final writes nothing for these two ciphers).
 */
static bool run(const struct aead_ossl_fns *f, void *c, bool enc, const uint8_t nonce[12],
		const uint8_t *ad, size_t adlen, uint8_t *buf, size_t len)
{
	size_t n = 0;

	return (enc ? f->einit : f->dinit)(c, NULL, 0, nonce, 12, NULL) == 1 &&
	       (!adlen || f->update(c, NULL, &n, adlen, ad, adlen) == 1) &&
	       (!len || f->update(c, buf, &n, len, buf, len) == 1);
}

void aead_ossl_seal(struct aead_key *k, const uint8_t nonce[12], const uint8_t *ad, size_t adlen,
		    uint8_t *buf, size_t len, uint8_t tag[static WIRE_TAG_LEN])
{
	const struct aead_ossl_fns *f = &k->u.ossl.fns;
	int i = take(k);
	void *c = k->u.ossl.ctx[i];
	OSSL_PARAM p[2] = {
		OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, WIRE_TAG_LEN),
		OSSL_PARAM_construct_end(),
	};
	size_t n = 0;

	/* Lengths are bounded by WIRE_MAX_PLAINTEXT; a failure here would be a
	 * library fault and leaves a tag the peer refuses. */
	if (!run(f, c, true, nonce, ad, adlen, buf, len) ||
	    f->final(c, buf + len, &n, WIRE_TAG_LEN) != 1 || f->get_ctx_params(c, p) != 1)
		memset(tag, 0, WIRE_TAG_LEN);
	give(k, i);
}

int aead_ossl_open(struct aead_key *k, const uint8_t nonce[12], const uint8_t *ad, size_t adlen,
		   uint8_t *buf, size_t len, const uint8_t tag[static WIRE_TAG_LEN])
{
	const struct aead_ossl_fns *f = &k->u.ossl.fns;
	int i = take(k), rc = -EBADMSG;
	void *c = k->u.ossl.ctx[i];
	OSSL_PARAM p[2] = {
		OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, (void *)tag,
						  WIRE_TAG_LEN),
		OSSL_PARAM_construct_end(),
	};
	size_t n = 0;

	if (run(f, c, false, nonce, ad, adlen, buf, len) && f->set_ctx_params(c, p) == 1 &&
	    f->final(c, buf + len, &n, 0) == 1)
		rc = 0;
	give(k, i);
	return rc;
}
