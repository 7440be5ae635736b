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

static void pair_init(struct pair *p, enum aead_cipher ci, enum aead_cipher cr,
		      const uint8_t *psk_i, const uint8_t *psk_r)
{
	uint8_t si[32], sr[32];

	p->li = sodium_malloc(sizeof(*p->li));
	p->lr = sodium_malloc(sizeof(*p->lr));
	p->ri = sodium_malloc(sizeof(*p->ri));
	p->rr = sodium_malloc(sizeof(*p->rr));
	p->hi = sodium_malloc(sizeof(*p->hi));
	p->hr = sodium_malloc(sizeof(*p->hr));
	unhex(si, 32, KAT_S_I);
	unhex(sr, 32, KAT_S_R);
	assert_int_equal(noise_local_init(p->li, si, ci), 0);
	assert_int_equal(noise_local_init(p->lr, sr, cr), 0);
	assert_int_equal(noise_remote_init(p->ri, p->li, p->lr->pub, psk_i), 0);
	assert_int_equal(noise_remote_init(p->rr, p->lr, p->li->pub, psk_r), 0);
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
	assert_int_equal(aead_key_init(ks, c->cipher, ki->send), 0);
	assert_int_equal(aead_key_init(kv, c->cipher, kr->recv), 0);
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
	assert_int_equal(aead_key_init(ks, c->cipher, kr->send), 0);
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
	pair_init(&p, AEAD_CHACHA20POLY1305, AEAD_AES256GCM, NULL, NULL);
	make_init(&p, init);
	assert_int_equal(noise_consume_initiation(p.lr, init, p.hr, spub), -EBADMSG);
	assert_int_equal(p.hr->state, NOISE_HS_ZEROED);
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
	assert_int_equal(noise_local_init(x, other, AEAD_CHACHA20POLY1305), 0);
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
	assert_int_equal(noise_local_init(l, sk, AEAD_CHACHA20POLY1305), 0);
	assert_int_equal(noise_remote_init(r, l, zero, NULL), -EINVAL);
	assert_int_equal(noise_local_init(l, sk, AEAD_AUTO), -EINVAL);
	sodium_free(l);
	sodium_free(r);
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
		cmocka_unit_test(test_wrong_responder_key),
		cmocka_unit_test(test_low_order_point),
		cmocka_unit_test(test_tai64n),
	};

	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
