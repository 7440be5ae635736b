// SPDX-License-Identifier: MIT
/*
 * mac1/mac2 and cookie replies: mac1 keyed by the responder's public key,
 * every bit of mac1 and mac2 matters, the cookie binds the source address
 * and port and expires with its secret, a cookie reply only decrypts against
 * the mac1 we last sent, load detection switches on and off.
 */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "cookie.h"
#include "key.h"
#include "test_seed.h"

#define T0 (500 * NSEC_PER_SEC)

struct fixture {
	struct cookie_checker *chk; /* responder */
	struct cookie_maker *mk;    /* initiator, talking to the responder */
	struct sockaddr_in6 src;
	uint8_t msg[WIRE_INITIATION_LEN];
};

static int setup(void **state)
{
	static struct fixture f;
	uint8_t priv[32], pub[32];

	f.chk = sodium_malloc(sizeof(*f.chk));
	f.mk = sodium_malloc(sizeof(*f.mk));
	key_generate(priv);
	if (key_public(pub, priv) < 0 || cookie_checker_init(f.chk, pub) < 0)
		return -1;
	cookie_maker_init(f.mk, pub);
	memset(&f.src, 0, sizeof(f.src));
	f.src.sin6_family = AF_INET6;
	f.src.sin6_port = htons(51900);
	f.src.sin6_addr.s6_addr[0] = 0x20;
	f.src.sin6_addr.s6_addr[1] = 0x01;
	f.src.sin6_addr.s6_addr[3] = 0x02;
	f.src.sin6_addr.s6_addr[15] = 1;
	test_rand_buf(f.msg, sizeof(f.msg));
	f.msg[0] = WIRE_TYPE_INITIATION;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	cookie_checker_destroy(f->chk);
	sodium_free(f->chk);
	sodium_free(f->mk);
	return 0;
}

static enum cookie_verdict check(struct fixture *f, const uint8_t *m, bool mac2, uint64_t now)
{
	return cookie_validate(f->chk, m, WIRE_INITIATION_LEN, (struct sockaddr *)&f->src,
			       sizeof(f->src), mac2, now);
}

/* Gives the maker a cookie for f->src by the reply path. */
static void get_cookie(struct fixture *f, uint64_t now)
{
	uint8_t reply[WIRE_COOKIE_REPLY_LEN];

	cookie_add_macs(f->mk, f->msg, sizeof(f->msg), now);
	assert_int_equal(cookie_create_reply(f->chk, f->msg, sizeof(f->msg), 0x1234,
					     (struct sockaddr *)&f->src, sizeof(f->src), now,
					     reply),
			 0);
	assert_int_equal(reply[0], WIRE_TYPE_COOKIE);
	assert_int_equal(cookie_consume_reply(f->mk, reply, now), 0);
	/* Only once: the maker forgets its last mac1 after a consumed reply. */
	assert_int_equal(cookie_consume_reply(f->mk, reply, now), -EBADMSG);
	cookie_add_macs(f->mk, f->msg, sizeof(f->msg), now);
}

static void test_mac1(void **state)
{
	struct fixture *f = *state;
	uint8_t m[WIRE_INITIATION_LEN], other_pub[32];
	struct cookie_maker *wrong = sodium_malloc(sizeof(*wrong));

	cookie_add_macs(f->mk, f->msg, sizeof(f->msg), T0);
	assert_int_equal(check(f, f->msg, false, T0), COOKIE_MAC1_OK);
	/* No cookie yet: mac2 is zeros. */
	for (int i = 0; i < WIRE_MAC_LEN; i++)
		assert_int_equal(f->msg[WIRE_INIT_OFF_MAC2 + i], 0);
	for (size_t bit = 0; bit < WIRE_INIT_OFF_MAC2 * 8; bit++) {
		memcpy(m, f->msg, sizeof(m));
		m[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		if (check(f, m, false, T0) != COOKIE_BAD_MAC1)
			fail_msg("bit %zu", bit);
	}
	/* mac1 keyed for someone else. */
	test_rand_buf(other_pub, 32);
	cookie_maker_init(wrong, other_pub);
	memcpy(m, f->msg, sizeof(m));
	cookie_add_macs(wrong, m, sizeof(m), T0);
	assert_int_equal(check(f, m, false, T0), COOKIE_BAD_MAC1);
	sodium_free(wrong);
}

static void test_mac2(void **state)
{
	struct fixture *f = *state;
	uint8_t m[WIRE_INITIATION_LEN];

	cookie_add_macs(f->mk, f->msg, sizeof(f->msg), T0);
	assert_int_equal(check(f, f->msg, true, T0), COOKIE_MAC1_OK);
	get_cookie(f, T0);
	assert_int_equal(check(f, f->msg, true, T0), COOKIE_MAC2_OK);
	/* Response-sized messages work the same way (offsets from the end). */
	for (size_t bit = WIRE_INIT_OFF_MAC2 * 8; bit < WIRE_INITIATION_LEN * 8; bit++) {
		memcpy(m, f->msg, sizeof(m));
		m[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		if (check(f, m, true, T0) != COOKIE_MAC1_OK)
			fail_msg("bit %zu", bit);
	}
	/* Another port: the cookie does not apply. */
	f->src.sin6_port = htons(51901);
	assert_int_equal(check(f, f->msg, true, T0), COOKIE_MAC1_OK);
	f->src.sin6_port = htons(51900);
	/* The maker stops using its cookie before the checker's secret rotates. */
	cookie_add_macs(f->mk, f->msg, sizeof(f->msg),
			T0 + COOKIE_SECRET_MAX_AGE_NS - COOKIE_SECRET_LATENCY_NS);
	assert_int_equal(check(f, f->msg, true, T0), COOKIE_MAC1_OK);
	/* The secret rotates: an old cookie stops working. */
	get_cookie(f, T0 + NSEC_PER_SEC);
	assert_int_equal(check(f, f->msg, true, T0 + NSEC_PER_SEC), COOKIE_MAC2_OK);
	assert_int_equal(check(f, f->msg, true, T0 + 10 * COOKIE_SECRET_MAX_AGE_NS),
			 COOKIE_MAC1_OK);
}

static void test_reply_binding(void **state)
{
	struct fixture *f = *state;
	uint8_t reply[WIRE_COOKIE_REPLY_LEN], other[WIRE_INITIATION_LEN];

	cookie_add_macs(f->mk, f->msg, sizeof(f->msg), T0);
	/* A reply to a message we did not send (different mac1) does not decrypt. */
	memcpy(other, f->msg, sizeof(other));
	other[WIRE_INIT_OFF_MAC1] ^= 1;
	assert_int_equal(cookie_create_reply(f->chk, other, sizeof(other), 1,
					     (struct sockaddr *)&f->src, sizeof(f->src), T0, reply),
			 0);
	assert_int_equal(cookie_consume_reply(f->mk, reply, T0), -EBADMSG);
	/* Every bit of a good reply's nonce and ciphertext matters. */
	assert_int_equal(cookie_create_reply(f->chk, f->msg, sizeof(f->msg), 1,
					     (struct sockaddr *)&f->src, sizeof(f->src), T0, reply),
			 0);
	for (size_t bit = WIRE_COOKIE_OFF_NONCE * 8; bit < WIRE_COOKIE_REPLY_LEN * 8; bit++) {
		reply[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		if (cookie_consume_reply(f->mk, reply, T0) != -EBADMSG)
			fail_msg("bit %zu", bit);
		reply[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	assert_int_equal(cookie_consume_reply(f->mk, reply, T0), 0);
}

static void test_load(void **state)
{
	struct fixture *f = *state;
	uint64_t t = T0 + 1000 * NSEC_PER_SEC;

	assert_false(cookie_under_load(f->chk, t));
	for (int i = 0; i < COOKIE_LOAD_THRESHOLD_PER_SEC; i++)
		cookie_note_handshake(f->chk, t + (uint64_t)i);
	assert_false(cookie_under_load(f->chk, t + COOKIE_LOAD_THRESHOLD_PER_SEC));
	cookie_note_handshake(f->chk, t + COOKIE_LOAD_THRESHOLD_PER_SEC);
	assert_true(cookie_under_load(f->chk, t + COOKIE_LOAD_THRESHOLD_PER_SEC));
	assert_false(cookie_under_load(f->chk, t + 3 * NSEC_PER_SEC));
	cookie_force_load(f->chk, true);
	assert_true(cookie_under_load(f->chk, t + 3 * NSEC_PER_SEC));
	cookie_force_load(f->chk, false);
}

static void test_labels(void **state)
{
	uint8_t pub[32] = { 1 }, k1[32], k2[32], ref[32];

	(void)state;
	cookie_derive_key(k1, WIRE_LABEL_MAC1, pub);
	cookie_derive_key(k2, WIRE_LABEL_COOKIE, pub);
	assert_memory_not_equal(k1, k2, 32);
	{
		uint8_t in[8 + 32];

		memcpy(in, "mac1----", 8);
		memcpy(in + 8, pub, 32);
		crypto_generichash(ref, 32, in, sizeof(in), NULL, 0);
	}
	assert_memory_equal(k1, ref, 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mac1),	      cmocka_unit_test(test_mac2),
		cmocka_unit_test(test_reply_binding), cmocka_unit_test(test_load),
		cmocka_unit_test(test_labels),
	};

	if (sodium_init() < 0)
		return 1;
	test_seed_init();
	return cmocka_run_group_tests(tests, setup, teardown);
}
