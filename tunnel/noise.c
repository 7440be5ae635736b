// SPDX-License-Identifier: MIT
/*
 * Noise_IKpsk2_25519_ChaChaPoly_BLAKE2b, message by message (see noise.h).
 * Every temporary secret is wiped before return; failed consumes leave the
 * caller's state as it was.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "bytes.h"
#include "noise.h"

void noise_hash(uint8_t out[static WIRE_HASH_LEN], const uint8_t *a, size_t alen, const uint8_t *b,
		size_t blen)
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, WIRE_HASH_LEN);
	crypto_generichash_update(&st, a, alen);
	if (blen)
		crypto_generichash_update(&st, b, blen);
	crypto_generichash_final(&st, out, WIRE_HASH_LEN);
	sodium_memzero(&st, sizeof(st));
}

/* RFC 2104 HMAC over BLAKE2b-512 (block 128 bytes). */
void noise_hmac(uint8_t out[static WIRE_HASH_LEN], const uint8_t *key, size_t keylen,
		const uint8_t *in, size_t inlen)
{
	uint8_t k[WIRE_HASH_BLOCK_LEN] = { 0 }, inner[WIRE_HASH_LEN];
	crypto_generichash_state st;
	size_t i;

	if (keylen > WIRE_HASH_BLOCK_LEN)
		noise_hash(k, key, keylen, NULL, 0);
	else
		memcpy(k, key, keylen);
	for (i = 0; i < sizeof(k); i++)
		k[i] ^= 0x36;
	crypto_generichash_init(&st, NULL, 0, WIRE_HASH_LEN);
	crypto_generichash_update(&st, k, sizeof(k));
	crypto_generichash_update(&st, in, inlen);
	crypto_generichash_final(&st, inner, WIRE_HASH_LEN);
	for (i = 0; i < sizeof(k); i++)
		k[i] ^= 0x36 ^ 0x5c;
	crypto_generichash_init(&st, NULL, 0, WIRE_HASH_LEN);
	crypto_generichash_update(&st, k, sizeof(k));
	crypto_generichash_update(&st, inner, sizeof(inner));
	crypto_generichash_final(&st, out, WIRE_HASH_LEN);
	sodium_memzero(k, sizeof(k));
	sodium_memzero(inner, sizeof(inner));
	sodium_memzero(&st, sizeof(st));
}

void noise_hkdf(uint8_t *out1, uint8_t *out2, uint8_t *out3, const uint8_t ck[static WIRE_HASH_LEN],
		const uint8_t *ikm, size_t ikmlen)
{
	uint8_t temp[WIRE_HASH_LEN], buf[WIRE_HASH_LEN + 1], prev[WIRE_HASH_LEN];

	noise_hmac(temp, ck, WIRE_HASH_LEN, ikm, ikmlen);
	buf[0] = 1;
	noise_hmac(prev, temp, WIRE_HASH_LEN, buf, 1);
	memcpy(out1, prev, WIRE_HASH_LEN);
	if (out2) {
		memcpy(buf, prev, WIRE_HASH_LEN);
		buf[WIRE_HASH_LEN] = 2;
		noise_hmac(prev, temp, WIRE_HASH_LEN, buf, sizeof(buf));
		memcpy(out2, prev, WIRE_HASH_LEN);
	}
	if (out3) {
		memcpy(buf, prev, WIRE_HASH_LEN);
		buf[WIRE_HASH_LEN] = 3;
		noise_hmac(prev, temp, WIRE_HASH_LEN, buf, sizeof(buf));
		memcpy(out3, prev, WIRE_HASH_LEN);
	}
	sodium_memzero(temp, sizeof(temp));
	sodium_memzero(buf, sizeof(buf));
	sodium_memzero(prev, sizeof(prev));
}

/* MixHash: h = HASH(h || data). */
static void mix_hash(uint8_t h[static WIRE_HASH_LEN], const uint8_t *data, size_t len)
{
	noise_hash(h, h, WIRE_HASH_LEN, data, len);
}

/* ck = HKDF1(ck, ikm) (the "e" token in psk mode, ee, se). */
static void mix_ck(uint8_t ck[static WIRE_HASH_LEN], const uint8_t *ikm, size_t len)
{
	noise_hkdf(ck, NULL, NULL, ck, ikm, len);
}

/* MixKey: (ck, k) = HKDF2(ck, ikm), k truncated to 32 bytes. */
static void mix_key(uint8_t ck[static WIRE_HASH_LEN], uint8_t k[static WIRE_KEY_LEN],
		    const uint8_t *ikm, size_t len)
{
	uint8_t t[WIRE_HASH_LEN];

	noise_hkdf(ck, t, NULL, ck, ikm, len);
	memcpy(k, t, WIRE_KEY_LEN);
	sodium_memzero(t, sizeof(t));
}

/* MixKey with an X25519 result; false for an all-zero (low-order) result. */
static bool mix_dh(uint8_t ck[static WIRE_HASH_LEN], uint8_t *k,
		   const uint8_t priv[static WIRE_KEY_LEN], const uint8_t pub[static WIRE_KEY_LEN])
{
	uint8_t dh[WIRE_KEY_LEN];

	if (crypto_scalarmult(dh, priv, pub) != 0) {
		sodium_memzero(dh, sizeof(dh));
		return false;
	}
	if (k)
		mix_key(ck, k, dh, sizeof(dh));
	else
		mix_ck(ck, dh, sizeof(dh));
	sodium_memzero(dh, sizeof(dh));
	return true;
}

static const uint8_t zero_nonce[crypto_aead_chacha20poly1305_IETF_NPUBBYTES];

/* EncryptAndHash with nonce 0: out = plain || tag; h mixes out. */
static void encrypt_and_hash(uint8_t *out, const uint8_t *plain, size_t len,
			     const uint8_t k[static WIRE_KEY_LEN], uint8_t h[static WIRE_HASH_LEN])
{
	crypto_aead_chacha20poly1305_ietf_encrypt(out, NULL, plain, len, h, WIRE_HASH_LEN, NULL,
						  zero_nonce, k);
	mix_hash(h, out, len + WIRE_TAG_LEN);
}

/* DecryptAndHash with nonce 0: in = cipher || tag; false if the tag fails. */
static bool decrypt_and_hash(uint8_t *plain, const uint8_t *in, size_t len,
			     const uint8_t k[static WIRE_KEY_LEN], uint8_t h[static WIRE_HASH_LEN])
{
	if (crypto_aead_chacha20poly1305_ietf_decrypt(plain, NULL, NULL, in, len + WIRE_TAG_LEN, h,
						      WIRE_HASH_LEN, zero_nonce, k) != 0)
		return false;
	mix_hash(h, in, len + WIRE_TAG_LEN);
	return true;
}

/* h0 = HASH(ck0 || IDENTIFIER " " name): MixHash(prologue) for one cipher. */
static int prologue_hash(uint8_t h0[static WIRE_HASH_LEN], const uint8_t ck0[static WIRE_HASH_LEN],
			 enum aead_cipher cipher)
{
	uint8_t prologue[64];
	int n = snprintf((char *)prologue, sizeof(prologue), "%s %s", WIRE_IDENTIFIER,
			 aead_cipher_name(cipher));

	if (n < 0 || (size_t)n >= sizeof(prologue))
		return -EINVAL;
	noise_hash(h0, ck0, WIRE_HASH_LEN, prologue, (size_t)n);
	return 0;
}

int noise_local_init(struct noise_local *l, const uint8_t priv[static WIRE_KEY_LEN],
		     const struct cipher_list *ciphers)
{
	if (!ciphers->n || ciphers->n > WIRE_OFFER_LEN)
		return -EINVAL;
	memcpy(l->priv, priv, WIRE_KEY_LEN);
	if (crypto_scalarmult_base(l->pub, l->priv) != 0)
		return -EINVAL;
	l->ciphers = *ciphers;
	l->no_offer = false;
	/*
	 * Noise InitializeSymmetric: a name no longer than HASHLEN is used as is,
	 * zero-padded (WireGuard hashes its name only because it is longer than
	 * BLAKE2s's 32 bytes); then MixHash(prologue), one per cipher since the
	 * prologue names the first one offered.
	 */
	_Static_assert(sizeof(WIRE_CONSTRUCTION) - 1 <= WIRE_HASH_LEN, "name fits HASHLEN");
	memset(l->ck0, 0, WIRE_HASH_LEN);
	memcpy(l->ck0, WIRE_CONSTRUCTION, strlen(WIRE_CONSTRUCTION));
	for (int c = 1; c <= AEAD_CIPHERS; c++) {
		if (prologue_hash(l->h0[c], l->ck0, (enum aead_cipher)c) < 0)
			return -EINVAL;
		noise_hash(l->h_local[c], l->h0[c], WIRE_HASH_LEN, l->pub, WIRE_KEY_LEN);
	}
	return 0;
}

int noise_remote_init(struct noise_remote *r, const struct noise_local *l,
		      const uint8_t pub[static WIRE_KEY_LEN], const uint8_t *psk)
{
	memcpy(r->pub, pub, WIRE_KEY_LEN);
	if (psk)
		memcpy(r->psk, psk, WIRE_KEY_LEN);
	else
		sodium_memzero(r->psk, WIRE_KEY_LEN);
	for (int c = 1; c <= AEAD_CIPHERS; c++)
		noise_hash(r->h_remote[c], l->h0[c], WIRE_HASH_LEN, pub, WIRE_KEY_LEN);
	if (crypto_scalarmult(r->ss, l->priv, pub) != 0) {
		sodium_memzero(r->ss, WIRE_KEY_LEN);
		return -EINVAL;
	}
	return 0;
}

int noise_create_initiation(const struct noise_local *l, const struct noise_remote *r,
			    struct noise_handshake *hs, uint32_t local_index,
			    const uint8_t e_priv[static WIRE_KEY_LEN],
			    const uint8_t tai64n[static WIRE_TAI64N_LEN],
			    uint8_t msg[static WIRE_INITIATION_LEN])
{
	uint8_t k[WIRE_KEY_LEN];
	int rc = -EINVAL;

	sodium_memzero(hs, sizeof(*hs));
	memset(msg, 0, WIRE_INITIATION_LEN);
	msg[0] = WIRE_TYPE_INITIATION;
	if (!l->no_offer)
		negotiate_offer_put(&l->ciphers, hs->offer);
	memcpy(msg + WIRE_OFFER_OFF, hs->offer, WIRE_OFFER_LEN);
	hs->cipher = l->ciphers.c[0];
	put_le32(msg + WIRE_INIT_OFF_SENDER, local_index);
	memcpy(hs->ck, l->ck0, WIRE_HASH_LEN);
	memcpy(hs->h, r->h_remote[hs->cipher], WIRE_HASH_LEN);

	/* e */
	memcpy(hs->e_priv, e_priv, WIRE_KEY_LEN);
	if (crypto_scalarmult_base(hs->e_pub, hs->e_priv) != 0)
		goto out;
	memcpy(msg + WIRE_INIT_OFF_EPHEMERAL, hs->e_pub, WIRE_KEY_LEN);
	mix_hash(hs->h, hs->e_pub, WIRE_KEY_LEN);
	mix_ck(hs->ck, hs->e_pub, WIRE_KEY_LEN);
	/* es, s */
	if (!mix_dh(hs->ck, k, hs->e_priv, r->pub))
		goto out;
	encrypt_and_hash(msg + WIRE_INIT_OFF_STATIC, l->pub, WIRE_KEY_LEN, k, hs->h);
	/* ss, {timestamp} */
	mix_key(hs->ck, k, r->ss, WIRE_KEY_LEN);
	encrypt_and_hash(msg + WIRE_INIT_OFF_TIMESTAMP, tai64n, WIRE_TAI64N_LEN, k, hs->h);

	hs->local_index = local_index;
	hs->state = NOISE_HS_CREATED_INITIATION;
	rc = 0;
out:
	sodium_memzero(k, sizeof(k));
	if (rc)
		sodium_memzero(hs, sizeof(*hs));
	return rc;
}

/*
 * The initiation's s token under the prologue of cipher c: h from our
 * h_local for c, then e; true (hs->h set) if the static key decrypts.
 */
static bool try_prologue(const struct noise_local *l, enum aead_cipher c, const uint8_t *msg,
			 const uint8_t k[static WIRE_KEY_LEN], struct noise_handshake *hs,
			 uint8_t static_pub[static WIRE_KEY_LEN])
{
	uint8_t h[WIRE_HASH_LEN];
	bool ok;

	memcpy(h, l->h_local[c], WIRE_HASH_LEN);
	mix_hash(h, hs->re, WIRE_KEY_LEN);
	ok = decrypt_and_hash(static_pub, msg + WIRE_INIT_OFF_STATIC, WIRE_KEY_LEN, k, h);
	if (ok) {
		memcpy(hs->h, h, WIRE_HASH_LEN);
		hs->cipher = c;
	}
	sodium_memzero(h, sizeof(h));
	return ok;
}

int noise_consume_initiation(const struct noise_local *l,
			     const uint8_t msg[static WIRE_INITIATION_LEN],
			     struct noise_handshake *hs, uint8_t static_pub[static WIRE_KEY_LEN])
{
	static const uint8_t none[WIRE_OFFER_LEN];
	uint8_t k[WIRE_KEY_LEN];
	bool ok = false;
	int rc = -EBADMSG;

	sodium_memzero(hs, sizeof(*hs));
	memcpy(hs->offer, msg + WIRE_OFFER_OFF, WIRE_OFFER_LEN);
	if (memcmp(hs->offer, none, WIRE_OFFER_LEN) && !negotiate_offer_valid(hs->offer))
		goto out;
	memcpy(hs->ck, l->ck0, WIRE_HASH_LEN);
	/* e (h follows per prologue in try_prologue) */
	memcpy(hs->re, msg + WIRE_INIT_OFF_EPHEMERAL, WIRE_KEY_LEN);
	mix_ck(hs->ck, hs->re, WIRE_KEY_LEN);
	/* es, s */
	if (!mix_dh(hs->ck, k, l->priv, hs->re))
		goto out;
	if (hs->offer[0])
		ok = try_prologue(l, (enum aead_cipher)hs->offer[0], msg, k, hs, static_pub);
	/* No offer: an older initiator, whose prologue names its only cipher. */
	for (unsigned i = 0; !hs->offer[0] && !ok && i < l->ciphers.n; i++)
		ok = try_prologue(l, l->ciphers.c[i], msg, k, hs, static_pub);
	if (!ok)
		goto out;
	hs->remote_index = get_le32(msg + WIRE_INIT_OFF_SENDER);
	hs->state = NOISE_HS_CONSUMED_INITIATION;
	rc = 0;
out:
	sodium_memzero(k, sizeof(k));
	if (rc) {
		sodium_memzero(hs, sizeof(*hs));
		sodium_memzero(static_pub, WIRE_KEY_LEN);
	}
	return rc;
}

int noise_finish_initiation(const struct noise_remote *r,
			    const uint8_t msg[static WIRE_INITIATION_LEN],
			    struct noise_handshake *hs, uint8_t tai64n[static WIRE_TAI64N_LEN])
{
	uint8_t k[WIRE_KEY_LEN];
	int rc = -EBADMSG;

	if (hs->state != NOISE_HS_CONSUMED_INITIATION)
		goto out;
	mix_key(hs->ck, k, r->ss, WIRE_KEY_LEN);
	if (!decrypt_and_hash(tai64n, msg + WIRE_INIT_OFF_TIMESTAMP, WIRE_TAI64N_LEN, k, hs->h))
		goto out;
	rc = 0;
out:
	sodium_memzero(k, sizeof(k));
	if (rc)
		sodium_memzero(hs, sizeof(*hs));
	return rc;
}

/* The choice out of an offer: MixHash(offer || choice), so both are authenticated. */
static void mix_choice(struct noise_handshake *hs, enum aead_cipher c)
{
	uint8_t oc[WIRE_OFFER_LEN + 1];

	memcpy(oc, hs->offer, WIRE_OFFER_LEN);
	oc[WIRE_OFFER_LEN] = (uint8_t)c;
	mix_hash(hs->h, oc, sizeof(oc));
	hs->cipher = c;
	hs->negotiated = true;
}

int noise_create_response(const struct noise_local *l, const struct noise_remote *r,
			  struct noise_handshake *hs, uint32_t local_index,
			  const uint8_t e_priv[static WIRE_KEY_LEN],
			  uint8_t msg[static WIRE_RESPONSE_LEN])
{
	uint8_t k[WIRE_KEY_LEN], tau[WIRE_HASH_LEN], t[WIRE_HASH_LEN];
	int rc = -EINVAL;

	if (hs->state != NOISE_HS_CONSUMED_INITIATION)
		return -EINVAL;
	memset(msg, 0, WIRE_RESPONSE_LEN);
	msg[0] = WIRE_TYPE_RESPONSE;
	if (hs->offer[0]) {
		enum aead_cipher c = negotiate_pick(hs->offer, &l->ciphers);

		if (c == AEAD_AUTO)
			return -ENOTSUP;
		mix_choice(hs, c);
		msg[WIRE_OFFER_OFF] = (uint8_t)c;
	}
	put_le32(msg + WIRE_RESP_OFF_SENDER, local_index);
	put_le32(msg + WIRE_RESP_OFF_RECEIVER, hs->remote_index);
	/* e */
	memcpy(hs->e_priv, e_priv, WIRE_KEY_LEN);
	if (crypto_scalarmult_base(hs->e_pub, hs->e_priv) != 0)
		goto out;
	memcpy(msg + WIRE_RESP_OFF_EPHEMERAL, hs->e_pub, WIRE_KEY_LEN);
	mix_hash(hs->h, hs->e_pub, WIRE_KEY_LEN);
	mix_ck(hs->ck, hs->e_pub, WIRE_KEY_LEN);
	/* ee, se */
	if (!mix_dh(hs->ck, NULL, hs->e_priv, hs->re))
		goto out;
	if (!mix_dh(hs->ck, NULL, hs->e_priv, r->pub))
		goto out;
	/* psk */
	noise_hkdf(hs->ck, tau, t, hs->ck, r->psk, WIRE_KEY_LEN);
	memcpy(k, t, WIRE_KEY_LEN);
	mix_hash(hs->h, tau, WIRE_HASH_LEN);
	/* {} */
	encrypt_and_hash(msg + WIRE_RESP_OFF_EMPTY, NULL, 0, k, hs->h);

	hs->local_index = local_index;
	hs->state = NOISE_HS_CREATED_RESPONSE;
	rc = 0;
out:
	sodium_memzero(k, sizeof(k));
	sodium_memzero(tau, sizeof(tau));
	sodium_memzero(t, sizeof(t));
	if (rc)
		sodium_memzero(hs, sizeof(*hs));
	return rc;
}

int noise_consume_response(const struct noise_local *l, const struct noise_remote *r,
			   struct noise_handshake *hs, const uint8_t msg[static WIRE_RESPONSE_LEN])
{
	uint8_t k[WIRE_KEY_LEN], tau[WIRE_HASH_LEN], t[WIRE_HASH_LEN];
	uint8_t h[WIRE_HASH_LEN], ck[WIRE_HASH_LEN], re[WIRE_KEY_LEN];
	struct noise_handshake chosen;
	uint8_t choice = msg[WIRE_OFFER_OFF];
	int rc = -EBADMSG;

	(void)l;
	if (hs->state != NOISE_HS_CREATED_INITIATION ||
	    get_le32(msg + WIRE_RESP_OFF_RECEIVER) != hs->local_index)
		return -EBADMSG;
	/* No choice: an older responder that took our prologue's cipher. */
	if (choice && !negotiate_choice_valid(hs->offer, choice))
		return -EBADMSG;
	chosen = *hs;
	if (choice)
		mix_choice(&chosen, (enum aead_cipher)choice);
	memcpy(h, chosen.h, sizeof(h));
	memcpy(ck, hs->ck, sizeof(ck));
	memcpy(re, msg + WIRE_RESP_OFF_EPHEMERAL, WIRE_KEY_LEN);
	/* e */
	mix_hash(h, re, WIRE_KEY_LEN);
	mix_ck(ck, re, WIRE_KEY_LEN);
	/* ee, se */
	if (!mix_dh(ck, NULL, hs->e_priv, re))
		goto out;
	if (!mix_dh(ck, NULL, l->priv, re))
		goto out;
	/* psk */
	noise_hkdf(ck, tau, t, ck, r->psk, WIRE_KEY_LEN);
	memcpy(k, t, WIRE_KEY_LEN);
	mix_hash(h, tau, WIRE_HASH_LEN);
	/* {} */
	if (!decrypt_and_hash(NULL, msg + WIRE_RESP_OFF_EMPTY, 0, k, h))
		goto out;

	memcpy(hs->h, h, sizeof(h));
	memcpy(hs->ck, ck, sizeof(ck));
	memcpy(hs->re, re, sizeof(re));
	hs->cipher = chosen.cipher;
	hs->negotiated = chosen.negotiated;
	hs->remote_index = get_le32(msg + WIRE_RESP_OFF_SENDER);
	hs->state = NOISE_HS_CONSUMED_RESPONSE;
	rc = 0;
out:
	sodium_memzero(k, sizeof(k));
	sodium_memzero(tau, sizeof(tau));
	sodium_memzero(t, sizeof(t));
	sodium_memzero(h, sizeof(h));
	sodium_memzero(ck, sizeof(ck));
	sodium_memzero(re, sizeof(re));
	sodium_memzero(&chosen, sizeof(chosen));
	return rc;
}

int noise_derive_keys(struct noise_handshake *hs, struct noise_keys *keys)
{
	uint8_t t1[WIRE_HASH_LEN], t2[WIRE_HASH_LEN];
	bool initiator;

	if (hs->state == NOISE_HS_CONSUMED_RESPONSE)
		initiator = true;
	else if (hs->state == NOISE_HS_CREATED_RESPONSE)
		initiator = false;
	else
		return -EINVAL;
	noise_hkdf(t1, t2, NULL, hs->ck, NULL, 0);
	memcpy(keys->send, initiator ? t1 : t2, WIRE_KEY_LEN);
	memcpy(keys->recv, initiator ? t2 : t1, WIRE_KEY_LEN);
	keys->local_index = hs->local_index;
	keys->remote_index = hs->remote_index;
	keys->initiator = initiator;
	keys->cipher = hs->cipher;
	keys->negotiated = hs->negotiated;
	sodium_memzero(t1, sizeof(t1));
	sodium_memzero(t2, sizeof(t2));
	sodium_memzero(hs, sizeof(*hs));
	return 0;
}
