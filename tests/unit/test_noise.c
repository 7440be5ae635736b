// SPDX-License-Identifier: MIT
/*
 * Handshake known answers: BLAKE2b/X25519 published vectors, HMAC/HKDF and a
 * full deterministic handshake (fixed static and ephemeral keys, timestamp
 * and indexes) pinned to golden values from an independent Python reference
 * (vectors/gen_noise_kat.py -> vectors/noise_kat.h). Then the failure cases:
 * wrong psk, wrong responder key, cipher mismatch, tampered fields.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "aead.h"
#include "bytes.h"
#include "cookie.h"
#include "noise.h"
#include "vectors/noise_kat.h"

static size_t unhex(uint8_t *out, size_t cap, const char *hex)
{
	size_t len = 0;

	assert_int_equal(sodium_hex2bin(out, cap, hex, strlen(hex), NULL, &len, NULL), 0);
	return len;
}

static void assert_hex(const uint8_t *got, size_t len, const char *hex)
{
	uint8_t want[512];
	size_t wlen = unhex(want, sizeof(want), hex);

	assert_int_equal(len, wlen);
	assert_memory_equal(got, want, len);
}

static void test_blake2b_empty(void **state)
{
	/* Published BLAKE2b-512("") (RFC 7693 test suite). */
	static const char *published =
		"786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
		"d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce";
	uint8_t h[WIRE_HASH_LEN];

	(void)state;
	noise_hash(h, (const uint8_t *)"", 0, NULL, 0);
	assert_hex(h, sizeof(h), published);
	assert_hex(h, sizeof(h), KAT_HASH_EMPTY);
	noise_hash(h, (const uint8_t *)WIRE_CONSTRUCTION, strlen(WIRE_CONSTRUCTION), NULL, 0);
	assert_hex(h, sizeof(h), KAT_HASH_CONSTRUCTION);
}

static void test_x25519_rfc7748(void **state)
{
	/* RFC 7748 section 6.1. */
	uint8_t a[32], b[32], apub[32], bpub[32], s1[32], s2[32];

	(void)state;
	unhex(a, 32, "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
	unhex(b, 32, "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
	assert_int_equal(crypto_scalarmult_base(apub, a), 0);
	assert_int_equal(crypto_scalarmult_base(bpub, b), 0);
	assert_hex(apub, 32, "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
	assert_hex(bpub, 32, "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
	assert_int_equal(crypto_scalarmult(s1, a, bpub), 0);
	assert_int_equal(crypto_scalarmult(s2, b, apub), 0);
	assert_hex(s1, 32, "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
	assert_memory_equal(s1, s2, 32);
}

struct hmac_case {
	const uint8_t *key;
	size_t keylen;
	const char *msg;
	const char *want;
};

static void test_hmac_hkdf(void **state)
{
	static uint8_t longkey[200], ck[64];
	const struct hmac_case cases[] = {
		{ (const uint8_t *)"key", 3, "The quick brown fox jumps over the lazy dog",
		  KAT_HMAC_1 },
		{ longkey, sizeof(longkey), "data", KAT_HMAC_LONGKEY },
	};
	uint8_t out[WIRE_HASH_LEN], o1[WIRE_HASH_LEN], o2[WIRE_HASH_LEN], o3[WIRE_HASH_LEN];
	const char *ikm = "input key material";

	(void)state;
	for (size_t i = 0; i < sizeof(longkey); i++)
		longkey[i] = (uint8_t)i;
	for (size_t i = 0; i < sizeof(ck); i++)
		ck[i] = (uint8_t)i;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		noise_hmac(out, cases[i].key, cases[i].keylen, (const uint8_t *)cases[i].msg,
			   strlen(cases[i].msg));
		assert_hex(out, sizeof(out), cases[i].want);
	}
	noise_hkdf(o1, o2, o3, ck, (const uint8_t *)ikm, strlen(ikm));
	assert_hex(o1, 64, KAT_HKDF_1);
	assert_hex(o2, 64, KAT_HKDF_2);
	assert_hex(o3, 64, KAT_HKDF_3);
	noise_hkdf(o1, NULL, NULL, ck, NULL, 0);
	assert_hex(o1, 64, KAT_HKDF_EMPTY_1);
}

/* Both ends of a deterministic handshake. */
struct pair {
	struct noise_local *li, *lr;  /* initiator, responder */
	struct noise_remote *ri, *rr; /* at the initiator: the responder; and vice versa */
	struct noise_handshake *hi, *hr;
};

static struct cipher_list list_of(const char *s)
{
	struct cipher_list l;

	assert_true(negotiate_list_parse(s, &l, NULL));
	return l;
}

static void pair_init_lists(struct pair *p, const char *ci, const char *cr, const uint8_t *psk_i,
			    const uint8_t *psk_r)
{
	struct cipher_list li = list_of(ci), lr = list_of(cr);
	uint8_t si[32], sr[32];

	p->li = sodium_malloc(sizeof(*p->li));
	p->lr = sodium_malloc(sizeof(*p->lr));
	p->ri = sodium_malloc(sizeof(*p->ri));
	p->rr = sodium_malloc(sizeof(*p->rr));
	p->hi = sodium_malloc(sizeof(*p->hi));
	p->hr = sodium_malloc(sizeof(*p->hr));
	unhex(si, 32, KAT_S_I);
	unhex(sr, 32, KAT_S_R);
	assert_int_equal(noise_local_init(p->li, si, &li), 0);
	assert_int_equal(noise_local_init(p->lr, sr, &lr), 0);
	assert_int_equal(noise_remote_init(p->ri, p->li, p->lr->pub, psk_i), 0);
	assert_int_equal(noise_remote_init(p->rr, p->lr, p->li->pub, psk_r), 0);
}

static void pair_init(struct pair *p, enum aead_cipher ci, enum aead_cipher cr,
		      const uint8_t *psk_i, const uint8_t *psk_r)
{
	pair_init_lists(p, aead_cipher_name(ci), aead_cipher_name(cr), psk_i, psk_r);
}

static void pair_free(struct pair *p)
{
	sodium_free(p->li);
	sodium_free(p->lr);
	sodium_free(p->ri);
	sodium_free(p->rr);
	sodium_free(p->hi);
	sodium_free(p->hr);
}

static void make_init(struct pair *p, uint8_t msg[WIRE_INITIATION_LEN])
{
	uint8_t e[32], ts[12];
	struct cookie_maker m;

	unhex(e, 32, KAT_E_I);
	unhex(ts, 12, KAT_TS);
	assert_int_equal(noise_create_initiation(p->li, p->ri, p->hi, KAT_I_IDX, e, ts, msg), 0);
	cookie_maker_init(&m, p->lr->pub);
	cookie_add_macs(&m, msg, WIRE_INITIATION_LEN, 1);
}

/* Responder side of a good initiation; returns 0 or the failing step's error. */
static int consume_init(struct pair *p, const uint8_t msg[WIRE_INITIATION_LEN])
{
	uint8_t spub[32], ts[12], want_ts[12];
	int rc = noise_consume_initiation(p->lr, msg, p->hr, spub);

	if (rc)
		return rc;
	assert_memory_equal(spub, p->li->pub, 32);
	rc = noise_finish_initiation(p->rr, msg, p->hr, ts);
	if (rc)
		return rc;
	unhex(want_ts, 12, KAT_TS);
	assert_memory_equal(ts, want_ts, 12);
	assert_int_equal(p->hr->remote_index, KAT_I_IDX);
	return 0;
}

static void make_resp(struct pair *p, uint8_t msg[WIRE_RESPONSE_LEN])
{
	uint8_t e[32];
	struct cookie_maker m;

	unhex(e, 32, KAT_E_R);
	assert_int_equal(noise_create_response(p->lr, p->rr, p->hr, KAT_R_IDX, e, msg), 0);
	cookie_maker_init(&m, p->li->pub);
	cookie_add_macs(&m, msg, WIRE_RESPONSE_LEN, 1);
}

struct kat_case {
	const char *name;
	enum aead_cipher cipher;
	bool psk;
	const char *init, *resp, *t_send, *t_recv, *h, *data, *keepalive;
};

static const struct kat_case kat_cases[] = {
	{ "chacha20poly1305+psk", AEAD_CHACHA20POLY1305, true, KAT_CHACHA_INIT, KAT_CHACHA_RESP,
	  KAT_CHACHA_T_I_SEND, KAT_CHACHA_T_I_RECV, KAT_CHACHA_H, KAT_CHACHA_DATA_I2R,
	  KAT_CHACHA_KEEPALIVE_R2I },
	{ "aes256gcm+psk", AEAD_AES256GCM, true, KAT_AES_INIT, KAT_AES_RESP, KAT_AES_T_I_SEND,
	  KAT_AES_T_I_RECV, KAT_AES_H, KAT_AES_DATA_I2R, KAT_AES_KEEPALIVE_R2I },
	{ "chacha20poly1305, no psk", AEAD_CHACHA20POLY1305, false, KAT_NOPSK_INIT, KAT_NOPSK_RESP,
	  KAT_NOPSK_T_I_SEND, KAT_NOPSK_T_I_RECV, KAT_NOPSK_H, KAT_NOPSK_DATA_I2R,
	  KAT_NOPSK_KEEPALIVE_R2I },
};

static void check_data(const struct kat_case *c, const struct noise_keys *ki,
		       const struct noise_keys *kr)
{
	struct aead_key *ks = sodium_malloc(sizeof(*ks)), *kv = sodium_malloc(sizeof(*kv));
	uint8_t pkt[64] = { 0 }, want[64];
	const char *payload = "\x45hello, tunnel";
	size_t plen = strlen(payload), padded = 16, wlen;

	if (c->cipher == AEAD_AES256GCM && !aead_aes_available()) {
		sodium_free(ks);
		sodium_free(kv);
		return; /* messages checked; data sealing needs AES-NI */
	}
	/* Initiator -> responder data, counter 0. */
	assert_int_equal(aead_key_init(ks, c->cipher, AEAD_IMPL_LIBSODIUM, ki->send), 0);
	assert_int_equal(aead_key_init(kv, c->cipher, AEAD_IMPL_LIBSODIUM, kr->recv), 0);
	pkt[0] = WIRE_TYPE_DATA;
	put_le32(pkt + 4, ki->remote_index);
	put_le64(pkt + 8, 0);
	memcpy(pkt + 16, payload, plen);
	aead_seal(ks, 0, pkt, 16, pkt + 16, padded, pkt + 16 + padded);
	wlen = unhex(want, sizeof(want), c->data);
	assert_int_equal(wlen, 16 + padded + 16);
	assert_memory_equal(pkt, want, wlen);
	assert_int_equal(aead_open(kv, 0, pkt, 16, pkt + 16, padded, pkt + 16 + padded), 0);
	assert_memory_equal(pkt + 16, payload, plen);
	/* Responder -> initiator keepalive, counter 7. */
	aead_key_wipe(ks);
	assert_int_equal(aead_key_init(ks, c->cipher, AEAD_IMPL_LIBSODIUM, kr->send), 0);
	memset(pkt, 0, sizeof(pkt));
	pkt[0] = WIRE_TYPE_DATA;
	put_le32(pkt + 4, kr->remote_index);
	put_le64(pkt + 8, 7);
	aead_seal(ks, 7, pkt, 16, pkt + 16, 0, pkt + 16);
	assert_hex(pkt, 32, c->keepalive);
	sodium_free(ks);
	sodium_free(kv);
}

static void test_handshake_kat(void **state)
{
	uint8_t psk[32], init[WIRE_INITIATION_LEN], resp[WIRE_RESPONSE_LEN], h_i[64];
	struct noise_keys ki, kr;
	struct pair p;

	(void)state;
	unhex(psk, 32, KAT_PSK);
	for (size_t i = 0; i < sizeof(kat_cases) / sizeof(kat_cases[0]); i++) {
		const struct kat_case *c = &kat_cases[i];

		print_message("  case %s\n", c->name);
		pair_init(&p, c->cipher, c->cipher, c->psk ? psk : NULL, c->psk ? psk : NULL);
		/* The golden transcripts are of ends without negotiation: an end
		 * that sends no offer still speaks them byte for byte. */
		p.li->no_offer = true;
		make_init(&p, init);
		assert_hex(init, sizeof(init), c->init);
		assert_int_equal(consume_init(&p, init), 0);
		make_resp(&p, resp);
		assert_hex(resp, sizeof(resp), c->resp);
		assert_int_equal(noise_consume_response(p.li, p.ri, p.hi, resp), 0);
		memcpy(h_i, p.hi->h, 64);
		assert_hex(h_i, 64, c->h);
		assert_memory_equal(p.hi->h, p.hr->h, 64);
		assert_int_equal(noise_derive_keys(p.hi, &ki), 0);
		assert_int_equal(noise_derive_keys(p.hr, &kr), 0);
		assert_true(ki.initiator);
		assert_false(kr.initiator);
		assert_hex(ki.send, 32, c->t_send);
		assert_hex(ki.recv, 32, c->t_recv);
		assert_memory_equal(ki.send, kr.recv, 32);
		assert_memory_equal(ki.recv, kr.send, 32);
		assert_int_equal(ki.local_index, KAT_I_IDX);
		assert_int_equal(ki.remote_index, KAT_R_IDX);
		assert_int_equal(kr.local_index, KAT_R_IDX);
		assert_int_equal(kr.remote_index, KAT_I_IDX);
		assert_int_equal(ki.cipher, c->cipher);
		assert_int_equal(kr.cipher, c->cipher);
		assert_false(ki.negotiated);
		assert_false(kr.negotiated);
		/* derive_keys wipes the handshake: a second call fails. */
		assert_int_not_equal(noise_derive_keys(p.hi, &ki), 0);
		check_data(c, &ki, &kr);
		pair_free(&p);
	}
}

static void test_wrong_psk(void **state)
{
	uint8_t psk[32], other[32], init[WIRE_INITIATION_LEN], resp[WIRE_RESPONSE_LEN];
	struct pair p;

	(void)state;
	unhex(psk, 32, KAT_PSK);
	memcpy(other, psk, 32);
	other[31] ^= 1;
	pair_init(&p, AEAD_CHACHA20POLY1305, AEAD_CHACHA20POLY1305, psk, other);
	make_init(&p, init);
	/* The psk only enters at the response: the initiation still decrypts. */
	assert_int_equal(consume_init(&p, init), 0);
	make_resp(&p, resp);
	assert_int_equal(noise_consume_response(p.li, p.ri, p.hi, resp), -EBADMSG);
	/* The failed response left the pending handshake intact. */
	assert_int_equal(p.hi->state, NOISE_HS_CREATED_INITIATION);
	pair_free(&p);

	/* psk on one side only. */
	pair_init(&p, AEAD_CHACHA20POLY1305, AEAD_CHACHA20POLY1305, psk, NULL);
	make_init(&p, init);
	assert_int_equal(consume_init(&p, init), 0);
	make_resp(&p, resp);
	assert_int_equal(noise_consume_response(p.li, p.ri, p.hi, resp), -EBADMSG);
	pair_free(&p);
}

static void test_cipher_mismatch(void **state)
{
	uint8_t init[WIRE_INITIATION_LEN];
	uint8_t spub[32];
	struct pair p;

	(void)state;
	/* Without an offer (an older initiator): its prologue matches none of ours. */
	pair_init(&p, AEAD_CHACHA20POLY1305, AEAD_AES256GCM, NULL, NULL);
	p.li->no_offer = true;
	make_init(&p, init);
	assert_int_equal(noise_consume_initiation(p.lr, init, p.hr, spub), -EBADMSG);
	assert_int_equal(p.hr->state, NOISE_HS_ZEROED);
	pair_free(&p);
	/* With one: it authenticates, and the responder has nothing to choose. */
	pair_init(&p, AEAD_CHACHA20POLY1305, AEAD_AES256GCM, NULL, NULL);
	make_init(&p, init);
	assert_int_equal(consume_init(&p, init), 0);
	{
		uint8_t e[32], resp[WIRE_RESPONSE_LEN];

		unhex(e, 32, KAT_E_R);
		assert_int_equal(noise_create_response(p.lr, p.rr, p.hr, KAT_R_IDX, e, resp),
				 -ENOTSUP);
	}
	pair_free(&p);
}

static void test_wrong_responder_key(void **state)
{
	uint8_t init[WIRE_INITIATION_LEN], spub[32], other[32];
	struct noise_local *x = sodium_malloc(sizeof(*x));
	struct pair p;

	(void)state;
	pair_init(&p, AEAD_CHACHA20POLY1305, AEAD_CHACHA20POLY1305, NULL, NULL);
	make_init(&p, init);
	/* Someone else receives it: the static key does not decrypt. */
	unhex(other, 32, KAT_E_R);
	{
		struct cipher_list cl = list_of("chacha20poly1305");

		assert_int_equal(noise_local_init(x, other, &cl), 0);
	}
	assert_int_equal(noise_consume_initiation(x, init, p.hr, spub), -EBADMSG);
	/* The right responder with the wrong idea of the initiator's key: ss differs. */
	assert_int_equal(noise_consume_initiation(p.lr, init, p.hr, spub), 0);
	assert_int_equal(noise_remote_init(p.rr, p.lr, x->pub, NULL), 0);
	{
		uint8_t ts[12];

		assert_int_equal(noise_finish_initiation(p.rr, init, p.hr, ts), -EBADMSG);
	}
	sodium_free(x);
	pair_free(&p);
}

static void test_low_order_point(void **state)
{
	/* An all-zero remote key (low-order point) is refused at setup. */
	uint8_t zero[32] = { 0 }, sk[32];
	struct noise_local *l = sodium_malloc(sizeof(*l));
	struct noise_remote *r = sodium_malloc(sizeof(*r));

	(void)state;
	unhex(sk, 32, KAT_S_I);
	struct cipher_list cl = list_of("chacha20poly1305"), none = list_of("auto");

	assert_int_equal(noise_local_init(l, sk, &cl), 0);
	assert_int_equal(noise_remote_init(r, l, zero, NULL), -EINVAL);
	assert_int_equal(noise_local_init(l, sk, &none), -EINVAL);
	sodium_free(l);
	sodium_free(r);
}

/* A whole handshake; the response's first check is returned (0 when it completes). */
static int run_pair(struct pair *p, uint8_t init[WIRE_INITIATION_LEN],
		    uint8_t resp[WIRE_RESPONSE_LEN], struct noise_keys *ki, struct noise_keys *kr)
{
	int rc = noise_consume_response(p->li, p->ri, p->hi, resp);

	(void)init;
	if (rc)
		return rc;
	assert_int_equal(noise_derive_keys(p->hi, ki), 0);
	assert_int_equal(noise_derive_keys(p->hr, kr), 0);
	assert_memory_equal(ki->send, kr->recv, 32);
	assert_int_equal(ki->cipher, kr->cipher);
	assert_int_equal(ki->negotiated, kr->negotiated);
	return 0;
}

static void test_negotiation(void **state)
{
	static const struct {
		const char *ci, *cr; /* initiator's and responder's lists */
		bool offer;	     /* the initiator sends one */
		bool strip; /* the offer is zeroed on the way (as an older responder reads it) */
		enum aead_cipher want;
		bool negotiated;
	} cases[] = {
		/* The initiator's order wins, among what the responder has. */
		{ "aes256gcm,chacha20poly1305", "chacha20poly1305,aes256gcm", true, false,
		  AEAD_AES256GCM, true },
		{ "chacha20poly1305,aes256gcm", "aes256gcm,chacha20poly1305", true, false,
		  AEAD_CHACHA20POLY1305, true },
		{ "aes256gcm,chacha20poly1305", "chacha20poly1305", true, false,
		  AEAD_CHACHA20POLY1305, true },
		{ "chacha20poly1305", "aes256gcm,chacha20poly1305", true, false,
		  AEAD_CHACHA20POLY1305, true },
		/* An older initiator (no offer): the responder finds its prologue's cipher. */
		{ "chacha20poly1305", "aes256gcm,chacha20poly1305", false, false,
		  AEAD_CHACHA20POLY1305, false },
		{ "aes256gcm", "chacha20poly1305,aes256gcm", false, false, AEAD_AES256GCM, false },
		/* An older responder (reads no offer, answers no choice): the prologue's cipher. */
		{ "aes256gcm,chacha20poly1305", "aes256gcm", true, true, AEAD_AES256GCM, false },
	};
	uint8_t init[WIRE_INITIATION_LEN], resp[WIRE_RESPONSE_LEN], spub[32], ts[12];
	struct noise_keys ki, kr;
	struct pair p;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("  %s -> %s%s%s\n", cases[i].ci, cases[i].cr,
			      cases[i].offer ? "" : " (no offer)",
			      cases[i].strip ? " (stripped)" : "");
		pair_init_lists(&p, cases[i].ci, cases[i].cr, NULL, NULL);
		p.li->no_offer = !cases[i].offer;
		make_init(&p, init);
		assert_int_equal(init[1] != 0, cases[i].offer);
		if (cases[i].strip)
			memset(init + WIRE_OFFER_OFF, 0, WIRE_OFFER_LEN);
		assert_int_equal(noise_consume_initiation(p.lr, init, p.hr, spub), 0);
		assert_int_equal(noise_finish_initiation(p.rr, init, p.hr, ts), 0);
		make_resp(&p, resp);
		assert_int_equal(resp[1], cases[i].negotiated ? cases[i].want : 0);
		assert_int_equal(run_pair(&p, init, resp, &ki, &kr), 0);
		assert_int_equal(ki.cipher, cases[i].want);
		assert_int_equal(ki.negotiated, cases[i].negotiated);
		pair_free(&p);
	}
}

/* Nobody without the keys changes the outcome: a changed choice or offer fails the response. */
static void test_negotiation_tamper(void **state)
{
	uint8_t init[WIRE_INITIATION_LEN], resp[WIRE_RESPONSE_LEN], spub[32], ts[12];
	struct noise_keys ki, kr;
	struct pair p;

	(void)state;
	/* The choice rewritten to the other offered cipher. */
	pair_init_lists(&p, "aes256gcm,chacha20poly1305", "aes256gcm,chacha20poly1305", NULL, NULL);
	make_init(&p, init);
	assert_int_equal(consume_init(&p, init), 0);
	make_resp(&p, resp);
	assert_int_equal(resp[1], AEAD_AES256GCM);
	resp[1] = AEAD_CHACHA20POLY1305;
	assert_int_equal(run_pair(&p, init, resp, &ki, &kr), -EBADMSG);
	assert_int_equal(p.hi->state, NOISE_HS_CREATED_INITIATION);
	/* ... or removed (as if from an older responder). */
	resp[1] = 0;
	assert_int_equal(run_pair(&p, init, resp, &ki, &kr), -EBADMSG);
	/* ... or a cipher we did not offer. */
	resp[1] = 9;
	assert_int_equal(run_pair(&p, init, resp, &ki, &kr), -EBADMSG);
	resp[1] = AEAD_AES256GCM;
	assert_int_equal(run_pair(&p, init, resp, &ki, &kr), 0);
	pair_free(&p);

	/* The offer cut short on the way: the responder picks from it, the
	 * initiator's hash has the whole offer, the response fails. */
	pair_init_lists(&p, "aes256gcm,chacha20poly1305", "aes256gcm,chacha20poly1305", NULL, NULL);
	make_init(&p, init);
	init[2] = 0;
	assert_int_equal(noise_consume_initiation(p.lr, init, p.hr, spub), 0);
	assert_int_equal(noise_finish_initiation(p.rr, init, p.hr, ts), 0);
	make_resp(&p, resp);
	assert_int_equal(run_pair(&p, init, resp, &ki, &kr), -EBADMSG);
	pair_free(&p);

	/* The first offered cipher changed: the prologue no longer matches. */
	pair_init_lists(&p, "aes256gcm,chacha20poly1305", "aes256gcm,chacha20poly1305", NULL, NULL);
	make_init(&p, init);
	init[1] = AEAD_CHACHA20POLY1305;
	init[2] = AEAD_AES256GCM;
	assert_int_equal(noise_consume_initiation(p.lr, init, p.hr, spub), -EBADMSG);
	/* A malformed offer (an id after the end) is refused before any DH. */
	make_init(&p, init);
	init[2] = 0;
	init[3] = AEAD_CHACHA20POLY1305;
	assert_int_equal(noise_consume_initiation(p.lr, init, p.hr, spub), -EBADMSG);
	pair_free(&p);

	/* Nothing in common: the responder makes no response. */
	pair_init_lists(&p, "aes256gcm", "chacha20poly1305", NULL, NULL);
	make_init(&p, init);
	assert_int_equal(consume_init(&p, init), 0);
	assert_int_equal(noise_create_response(p.lr, p.rr, p.hr, KAT_R_IDX, init + 8, resp),
			 -ENOTSUP);
	pair_free(&p);
}

static void test_tai64n(void **state)
{
	uint8_t a[12], b[12], now1[12], now2[12];

	(void)state;
	tai64n_from_ns(a, 1700000000ULL * 1000000000ULL);
	tai64n_from_ns(b, 1700000000ULL * 1000000000ULL + 1);
	assert_hex(a, 12, "400000006553f10a00000000");
	assert_true(tai64n_after(b, a));
	assert_false(tai64n_after(a, b));
	assert_false(tai64n_after(a, a));
	tai64n_now(now1);
	tai64n_now(now2);
	assert_false(tai64n_after(now1, now2));
	/* Nanoseconds are rounded down to a multiple of 2^24. */
	assert_int_equal(get_be32(now1 + 8) % (1u << 24), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blake2b_empty),
		cmocka_unit_test(test_x25519_rfc7748),
		cmocka_unit_test(test_hmac_hkdf),
		cmocka_unit_test(test_handshake_kat),
		cmocka_unit_test(test_wrong_psk),
		cmocka_unit_test(test_cipher_mismatch),
		cmocka_unit_test(test_negotiation),
		cmocka_unit_test(test_negotiation_tamper),
		cmocka_unit_test(test_wrong_responder_key),
		cmocka_unit_test(test_low_order_point),
		cmocka_unit_test(test_tai64n),
	};

	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
