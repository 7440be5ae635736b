// SPDX-License-Identifier: MIT
/*
 * The tunnel engine's (tunnel/engine.c) handshakes between in-memory peers
 * (tunnel_engine_fixture.h): every flipped bit of an initiation and a response
 * rejected, replayed initiations, per-peer rate limit, unknown and wrong
 * keys, psk and cipher mismatch, cookies under load, crossed initiations,
 * and the timers that start handshakes: keepalives, rekeys, key expiry by
 * time and by counter, giving up. The data path is in test_tunnel_engine.c.
 */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "bytes.h"
#include "tunnel_engine.h"
#include "tunnel_engine_fixture.h"
#include "tunnel_engine_impl.h"
#include "key.h"
#include "test_seed.h"

static void test_flip_initiation(void **state)
{
	struct node a, b;
	struct engine_result res, r2;
	uint8_t init[WIRE_INITIATION_LEN], buf[BUF];
	struct engine_pkt pkt;
	struct engine_stats st;

	(void)state;
	pair_setup(&a, &b);
	engine_initiate(a.peer, T0, &res);
	memcpy(init, res.ctrl, sizeof(init));
	/* Not under load, every bit before mac2 matters (mac2 is only checked under load). */
	flip_all(&b, &a, init, sizeof(init), 0, WIRE_INIT_OFF_MAC2 * 8, T0, false);
	engine_stats(b.e, T0, &st);
	assert_int_equal(st.drops[ENGINE_DROP_MAC1] + st.drops[ENGINE_DROP_MALFORMED],
			 WIRE_INIT_OFF_MAC2 * 8);

	/* Under load: get a cookie, then every bit of mac2 matters too. */
	engine_force_load(b.e, true);
	assert_int_equal(deliver(&b, &a, init, sizeof(init), T0, &res, buf, &pkt), ENGINE_DROP);
	assert_int_equal(res.drop, ENGINE_DROP_UNDER_LOAD);
	assert_int_equal(res.ctrl_len, WIRE_COOKIE_REPLY_LEN);
	assert_true(res.ctrl_to_source);
	assert_int_equal(deliver(&a, &b, res.ctrl, res.ctrl_len, T0, &r2, buf, &pkt), ENGINE_DONE);
	assert_null(r2.peer); /* a cookie reply does not authenticate b */
	/* The retransmission carries mac2. */
	engine_update_timers(a.peer, T0 + REKEY_TIMEOUT_NS + NSEC_PER_SEC, &res);
	assert_int_equal(res.ctrl_len, WIRE_INITIATION_LEN);
	memcpy(init, res.ctrl, sizeof(init));
	flip_all(&b, &a, init, sizeof(init), WIRE_INIT_OFF_MAC2 * 8, WIRE_INITIATION_LEN * 8,
		 T0 + 7 * NSEC_PER_SEC, true);
	/* The untouched message still works: nothing above changed b's state. */
	assert_int_equal(
		deliver(&b, &a, init, sizeof(init), T0 + 7 * NSEC_PER_SEC, &res, buf, &pkt),
		ENGINE_DONE);
	assert_int_equal(res.ctrl_len, WIRE_RESPONSE_LEN);
	assert_int_equal(
		deliver(&a, &b, res.ctrl, res.ctrl_len, T0 + 7 * NSEC_PER_SEC, &r2, buf, &pkt),
		ENGINE_DONE);
	assert_ptr_equal(r2.peer, a.peer);
	node_free(&a);
	node_free(&b);
}

static void test_flip_response(void **state)
{
	struct node a, b;
	struct engine_result res, r2;
	uint8_t resp[WIRE_RESPONSE_LEN], buf[BUF];
	struct engine_pkt pkt;

	(void)state;
	pair_setup(&a, &b);
	engine_initiate(a.peer, T0, &res);
	assert_int_equal(deliver(&b, &a, res.ctrl, res.ctrl_len, T0, &r2, buf, &pkt), ENGINE_DONE);
	memcpy(resp, r2.ctrl, sizeof(resp));
	/* mac2 of a response is covered at the cookie level (test_cookie). */
	flip_all(&a, &b, resp, sizeof(resp), 0, WIRE_RESP_OFF_MAC2 * 8, T0, false);
	assert_int_equal(deliver(&a, &b, resp, sizeof(resp), T0, &res, buf, &pkt), ENGINE_DONE);
	assert_ptr_equal(res.peer, a.peer);
	/* The same response again: the handshake is gone. */
	assert_int_equal(deliver(&a, &b, resp, sizeof(resp), T0, &res, buf, &pkt), ENGINE_DROP);
	assert_int_equal(res.drop, ENGINE_DROP_UNKNOWN_INDEX);
	node_free(&a);
	node_free(&b);
}

static void test_initiation_replay(void **state)
{
	struct node a, b;
	struct engine_result res, r2;
	uint8_t i1[WIRE_INITIATION_LEN], i2[WIRE_INITIATION_LEN], i3[WIRE_INITIATION_LEN], buf[BUF];
	struct engine_pkt pkt;
	uint64_t t = T0;

	(void)state;
	pair_setup(&a, &b);
	engine_initiate(a.peer, t, &res);
	memcpy(i1, res.ctrl, sizeof(i1));
	t += REKEY_TIMEOUT_NS + NSEC_PER_SEC;
	engine_update_timers(a.peer, t, &res); /* retransmit: newer timestamp */
	assert_int_equal(res.ctrl_len, WIRE_INITIATION_LEN);
	memcpy(i2, res.ctrl, sizeof(i2));
	t += REKEY_TIMEOUT_NS + NSEC_PER_SEC;
	engine_update_timers(a.peer, t, &res);
	assert_int_equal(res.ctrl_len, WIRE_INITIATION_LEN);
	memcpy(i3, res.ctrl, sizeof(i3));

	assert_int_equal(deliver(&b, &a, i2, sizeof(i2), t, &res, buf, &pkt), ENGINE_DONE);
	assert_int_equal(res.ctrl_len, WIRE_RESPONSE_LEN);
	/* The same initiation again, and an older one: no answer. */
	t += NSEC_PER_SEC;
	assert_int_equal(deliver(&b, &a, i2, sizeof(i2), t, &r2, buf, &pkt), ENGINE_DROP);
	assert_int_equal(r2.drop, ENGINE_DROP_TIMESTAMP);
	assert_int_equal(r2.ctrl_len, 0);
	assert_int_equal(deliver(&b, &a, i1, sizeof(i1), t, &r2, buf, &pkt), ENGINE_DROP);
	assert_int_equal(r2.drop, ENGINE_DROP_TIMESTAMP);
	/* A newer one within 1/50 s of the last accepted: rate limited; later: fine. */
	t += NSEC_PER_SEC;
	assert_int_equal(deliver(&b, &a, i3, sizeof(i3), t, &r2, buf, &pkt), ENGINE_DONE);
	node_free(&a);
	node_free(&b);
}

static void test_peer_ratelimit(void **state)
{
	struct node a, b;
	struct engine_result res, r2;
	uint8_t i1[WIRE_INITIATION_LEN], i2[WIRE_INITIATION_LEN], buf[BUF];
	struct engine_pkt pkt;
	uint64_t t = T0;

	(void)state;
	pair_setup(&a, &b);
	engine_initiate(a.peer, t, &res);
	memcpy(i1, res.ctrl, sizeof(i1));
	t += REKEY_TIMEOUT_NS + NSEC_PER_SEC;
	engine_update_timers(a.peer, t, &res);
	memcpy(i2, res.ctrl, sizeof(i2));
	assert_int_equal(deliver(&b, &a, i1, sizeof(i1), t, &r2, buf, &pkt), ENGINE_DONE);
	assert_int_equal(deliver(&b, &a, i2, sizeof(i2), t + 10 * NSEC_PER_MSEC, &r2, buf, &pkt),
			 ENGINE_DROP);
	assert_int_equal(r2.drop, ENGINE_DROP_RATELIMIT);
	/* Timestamp not recorded by the limited one: the same message later is fine. */
	assert_int_equal(deliver(&b, &a, i2, sizeof(i2), t + 30 * NSEC_PER_MSEC, &r2, buf, &pkt),
			 ENGINE_DONE);
	node_free(&a);
	node_free(&b);
}

static void test_unknown_and_wrong_keys(void **state)
{
	struct node a, b, c;
	struct engine_result res, r2;
	uint8_t buf[BUF];
	struct engine_pkt pkt;
	struct engine_peer_config pc;
	uint8_t fake[32];

	(void)state;
	pair_setup(&a, &b);
	/* c knows b, b does not know c: dropped after decryption, silently. */
	node_init(&c, 3, AEAD_AUTO);
	pc = (struct engine_peer_config){ .public_key = b.pub };
	assert_int_equal(engine_peer_add(c.e, &pc, &c.peer), 0);
	engine_initiate(c.peer, T0, &res);
	assert_int_equal(deliver(&b, &c, res.ctrl, res.ctrl_len, T0, &r2, buf, &pkt), ENGINE_DROP);
	assert_int_equal(r2.drop, ENGINE_DROP_UNKNOWN_PEER);
	assert_int_equal(r2.ctrl_len, 0);
	node_free(&c);
	/* c believes b has another key: mac1 fails, silently. */
	node_init(&c, 3, AEAD_AUTO);
	key_generate(fake);
	assert_int_equal(key_public(fake, fake), 0);
	pc = (struct engine_peer_config){ .public_key = fake };
	assert_int_equal(engine_peer_add(c.e, &pc, &c.peer), 0);
	engine_initiate(c.peer, T0, &res);
	assert_int_equal(deliver(&b, &c, res.ctrl, res.ctrl_len, T0, &r2, buf, &pkt), ENGINE_DROP);
	assert_int_equal(r2.drop, ENGINE_DROP_MAC1);
	assert_int_equal(r2.ctrl_len, 0);
	node_free(&c);
	/* Adding ourselves or a duplicate is refused. */
	pc = (struct engine_peer_config){ .public_key = a.pub };
	assert_int_equal(engine_peer_add(a.e, &pc, &c.peer), -EINVAL);
	pc = (struct engine_peer_config){ .public_key = b.pub };
	assert_int_equal(engine_peer_add(a.e, &pc, &c.peer), -EEXIST);
	node_free(&a);
	node_free(&b);
}

static void test_psk_mismatch(void **state)
{
	struct node a, b;
	uint8_t psk1[32], psk2[32], buf[BUF];
	struct engine_result res, r2;
	struct engine_pkt pkt;
	struct engine_peer_stats st;

	(void)state;
	test_rand_buf(psk1, 32);
	test_rand_buf(psk2, 32);
	node_init(&a, 1, AEAD_AUTO);
	node_init(&b, 2, AEAD_AUTO);
	node_link(&a, &b, psk1, psk2);
	engine_initiate(a.peer, T0, &res);
	assert_int_equal(deliver(&b, &a, res.ctrl, res.ctrl_len, T0, &r2, buf, &pkt), ENGINE_DONE);
	assert_int_equal(deliver(&a, &b, r2.ctrl, r2.ctrl_len, T0, &res, buf, &pkt), ENGINE_DROP);
	assert_int_equal(res.drop, ENGINE_DROP_HANDSHAKE);
	assert_int_equal(res.ctrl_len, 0);
	engine_peer_stats(a.peer, T0, &st);
	assert_false(st.has_session);
	engine_peer_stats(b.peer, T0, &st);
	assert_false(st.has_session); /* b's keypair is never confirmed */
	node_free(&a);
	node_free(&b);
}

static void test_cipher_mismatch(void **state)
{
	struct node a, b;
	uint8_t buf[BUF];
	struct engine_result res, r2;
	struct engine_pkt pkt;

	(void)state;
	if (!aead_aes_available()) {
		/* Without AES-NI an aes256gcm config is refused outright. */
		uint8_t priv[32];
		struct engine *e;
		struct engine_config cfg = { .private_key = priv,
					     .ciphers = { .n = 1, .c = { AEAD_AES256GCM } },
					     .mtu = 1420 };

		key_generate(priv);
		assert_int_equal(engine_new(&cfg, &e), -ENOTSUP);
		skip();
	}
	node_init(&a, 1, AEAD_CHACHA20POLY1305);
	node_init(&b, 2, AEAD_AES256GCM);
	node_link(&a, &b, NULL, NULL);
	engine_initiate(a.peer, T0, &res);
	assert_int_equal(deliver(&b, &a, res.ctrl, res.ctrl_len, T0, &r2, buf, &pkt), ENGINE_DROP);
	assert_int_equal(r2.drop, ENGINE_DROP_NO_CIPHER);
	assert_int_equal(r2.ctrl_len, 0);
	node_free(&a);
	node_free(&b);
	/* Same cipher both sides, either one: works. */
	for (int c = AEAD_AES256GCM; c <= AEAD_CHACHA20POLY1305; c++) {
		node_init(&a, 1, (enum aead_cipher)c);
		node_init(&b, 2, (enum aead_cipher)c);
		node_link(&a, &b, NULL, NULL);
		handshake(&a, &b, T0);
		assert_int_equal(engine_cipher(a.e), c);
		node_free(&a);
		node_free(&b);
	}
}

/* Data flows both ways and the session runs want, agreed as negotiated says. */
static void check_session(struct node *a, struct node *b, enum aead_cipher want, bool negotiated)
{
	struct engine_peer_stats sa, sb;
	struct engine_result res;
	struct engine_pkt pkt;
	uint8_t d[BUF], buf[BUF];
	size_t len;

	len = seal_one(a, 200, 0x11, T0, d);
	assert_int_equal(deliver(b, a, d, len, T0, &res, buf, &pkt), ENGINE_TO_TUNNEL);
	len = seal_one(b, 1400, 0x22, T0, d);
	assert_int_equal(deliver(a, b, d, len, T0, &res, buf, &pkt), ENGINE_TO_TUNNEL);
	engine_peer_stats(a->peer, T0, &sa);
	engine_peer_stats(b->peer, T0, &sb);
	assert_int_equal(sa.cipher, want);
	assert_int_equal(sb.cipher, want);
	assert_int_equal(sa.negotiated, negotiated);
	assert_int_equal(sb.negotiated, negotiated);
}

/* Ends with different preferences, implementations, and one without negotiation. */
static void test_cipher_negotiation(void **state)
{
	static const struct {
		const char *a, *b;
		enum aead_impl ia, ib;
		bool a_offers;
		enum aead_cipher want; /* a initiates */
		bool negotiated;
	} cases[] = {
		{ "aes256gcm,chacha20poly1305", "chacha20poly1305,aes256gcm", AEAD_IMPL_OPENSSL,
		  AEAD_IMPL_NONE, true, AEAD_AES256GCM, true },
		{ "chacha20poly1305,aes256gcm", "aes256gcm,chacha20poly1305", AEAD_IMPL_NONE,
		  AEAD_IMPL_OPENSSL, true, AEAD_CHACHA20POLY1305, true },
		{ "aes256gcm,chacha20poly1305", "chacha20poly1305", AEAD_IMPL_OPENSSL,
		  AEAD_IMPL_OPENSSL, true, AEAD_CHACHA20POLY1305, true },
		/* a is an older end: no offer; b finds a's cipher in its list. */
		{ "aes256gcm", "chacha20poly1305,aes256gcm", AEAD_IMPL_NONE, AEAD_IMPL_OPENSSL,
		  false, AEAD_AES256GCM, false },
		{ "chacha20poly1305", "aes256gcm,chacha20poly1305", AEAD_IMPL_OPENSSL,
		  AEAD_IMPL_NONE, false, AEAD_CHACHA20POLY1305, false },
	};
	struct node a, b;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!aead_aes_available() &&
		    (cases[i].ia != AEAD_IMPL_OPENSSL || cases[i].ib != AEAD_IMPL_OPENSSL))
			continue; /* libsodium's AES-256-GCM needs AES-NI */
		print_message("  %s (%s) -> %s (%s)\n", cases[i].a, aead_impl_name(cases[i].ia),
			      cases[i].b, aead_impl_name(cases[i].ib));
		node_init_impl(&a, 1, cases[i].a, cases[i].ia);
		node_init_impl(&b, 2, cases[i].b, cases[i].ib);
		a.e->local->no_offer = !cases[i].a_offers;
		node_link(&a, &b, NULL, NULL);
		handshake(&a, &b, T0);
		check_session(&a, &b, cases[i].want, cases[i].negotiated);
		node_free(&a);
		node_free(&b);
	}
}

static void test_keepalive_and_new_handshake(void **state)
{
	struct node a, b;
	uint8_t d[BUF], buf[BUF];
	struct engine_result res;
	struct engine_pkt pkt;
	size_t len;

	(void)state;
	pair_setup(&a, &b);
	handshake(&a, &b, T0);
	engine_update_timers(a.peer, T0, &res);
	engine_update_timers(b.peer, T0, &res);
	len = seal_one(&a, 80, 1, T0 + NSEC_PER_SEC, d);
	assert_int_equal(deliver(&b, &a, d, len, T0 + NSEC_PER_SEC, &res, buf, &pkt),
			 ENGINE_TO_TUNNEL);
	engine_update_timers(a.peer, T0 + NSEC_PER_SEC, &res);
	assert_int_equal(res.ctrl_len, 0);
	engine_update_timers(b.peer, T0 + NSEC_PER_SEC, &res);
	assert_int_equal(res.ctrl_len, 0);
	/* b received data and sent nothing for KEEPALIVE_TIMEOUT: keepalive. */
	engine_update_timers(b.peer, T0 + NSEC_PER_SEC + KEEPALIVE_TIMEOUT_NS - 1, &res);
	assert_int_equal(res.ctrl_len, 0);
	engine_update_timers(b.peer, T0 + NSEC_PER_SEC + KEEPALIVE_TIMEOUT_NS, &res);
	assert_int_equal(res.ctrl_len, WIRE_DATA_MIN_LEN);
	/* The keepalive is lost; a heard nothing for KEEPALIVE + REKEY_TIMEOUT (+ jitter). */
	engine_update_timers(a.peer,
			     T0 + NSEC_PER_SEC + KEEPALIVE_TIMEOUT_NS + REKEY_TIMEOUT_NS - 1, &res);
	assert_int_equal(res.ctrl_len, 0);
	engine_update_timers(a.peer,
			     T0 + NSEC_PER_SEC + KEEPALIVE_TIMEOUT_NS + REKEY_TIMEOUT_NS +
				     REKEY_TIMEOUT_JITTER_MAX_NS,
			     &res);
	assert_int_equal(res.ctrl_len, WIRE_INITIATION_LEN);
	node_free(&a);
	node_free(&b);
}

/*
 * Both ends initiate at the same moment and the initiations cross. The end
 * whose public key sorts higher keeps its own and ignores theirs; the other
 * answers, so one handshake completes at once and both ends can send
 * without waiting for a retry. Once the higher end's own initiation is
 * older than half of REKEY_TIMEOUT it answers the peer's like any other.
 */
static void test_crossed_initiations(void **state)
{
	struct node a, b, *hi, *lo;
	struct engine_result rh, rl, r1, r2, r3;
	uint8_t buf[BUF], d[BUF];
	struct engine_pkt pkt;
	size_t len;

	(void)state;
	pair_setup(&a, &b);
	hi = memcmp(a.pub, b.pub, 32) > 0 ? &a : &b;
	lo = hi == &a ? &b : &a;
	engine_initiate(hi->peer, T0, &rh);
	engine_initiate(lo->peer, T0, &rl);
	assert_int_equal(rh.ctrl_len, WIRE_INITIATION_LEN);
	assert_int_equal(rl.ctrl_len, WIRE_INITIATION_LEN);
	/* crossing: each receives the other's initiation */
	assert_int_equal(deliver(hi, lo, rl.ctrl, rl.ctrl_len, T0, &r1, buf, &pkt), ENGINE_DONE);
	assert_int_equal(r1.ctrl_len, 0);
	assert_int_equal(deliver(lo, hi, rh.ctrl, rh.ctrl_len, T0, &r2, buf, &pkt), ENGINE_DONE);
	assert_int_equal(r2.ctrl_len, WIRE_RESPONSE_LEN);
	assert_int_equal(deliver(hi, lo, r2.ctrl, r2.ctrl_len, T0, &r3, buf, &pkt), ENGINE_DONE);
	assert_ptr_equal(r3.peer, hi->peer);
	assert_int_equal(r3.ctrl_len, WIRE_DATA_MIN_LEN);
	assert_int_equal(deliver(lo, hi, r3.ctrl, r3.ctrl_len, T0, &r1, buf, &pkt), ENGINE_DONE);
	/* both directions carry data now, no timer needed */
	len = seal_one(hi, 100, 7, T0, d);
	assert_int_equal(deliver(lo, hi, d, len, T0, &r1, buf, &pkt), ENGINE_TO_TUNNEL);
	len = seal_one(lo, 100, 8, T0, d);
	assert_int_equal(deliver(hi, lo, d, len, T0, &r1, buf, &pkt), ENGINE_TO_TUNNEL);
	node_free(&a);
	node_free(&b);

	/* a stale initiation of the higher end does not block the peer's */
	pair_setup(&a, &b);
	hi = memcmp(a.pub, b.pub, 32) > 0 ? &a : &b;
	lo = hi == &a ? &b : &a;
	engine_initiate(hi->peer, T0, &rh);
	engine_initiate(lo->peer, T0 + REKEY_TIMEOUT_NS / 2, &rl);
	assert_int_equal(
		deliver(hi, lo, rl.ctrl, rl.ctrl_len, T0 + REKEY_TIMEOUT_NS / 2, &r1, buf, &pkt),
		ENGINE_DONE);
	assert_int_equal(r1.ctrl_len, WIRE_RESPONSE_LEN);
	node_free(&a);
	node_free(&b);
}

static void test_rekey_and_expiry(void **state)
{
	struct node a, b;
	uint8_t d[BUF], old[BUF], buf[BUF];
	struct engine_result res;
	struct engine_pkt pkt;
	size_t len, oldlen;

	(void)state;
	pair_setup(&a, &b);
	handshake(&a, &b, T0);
	oldlen = seal_one(&a, 80, 1, T0, old);
	/* Past REKEY_AFTER_TIME: still sealed, and the initiator starts a handshake. */
	pkt = (struct engine_pkt){ .buf = d, .len = 80, .cap = BUF };
	make_ip(d + ENGINE_HEADROOM, 80, 2);
	assert_int_equal(engine_encapsulate(a.peer, &pkt, 1, T0 + REKEY_AFTER_TIME_NS + 1, &res),
			 1);
	assert_int_equal(res.ctrl_len, WIRE_INITIATION_LEN);
	/* ... not again within REKEY_TIMEOUT. */
	pkt = (struct engine_pkt){ .buf = d, .len = 80, .cap = BUF };
	make_ip(d + ENGINE_HEADROOM, 80, 2);
	assert_int_equal(engine_encapsulate(a.peer, &pkt, 1, T0 + REKEY_AFTER_TIME_NS + 2, &res),
			 1);
	assert_int_equal(res.ctrl_len, 0);
	/* The responder never initiates on age alone. */
	pkt = (struct engine_pkt){ .buf = d, .len = 80, .cap = BUF };
	make_ip(d + ENGINE_HEADROOM, 80, 3);
	assert_int_equal(engine_encapsulate(b.peer, &pkt, 1, T0 + REKEY_AFTER_TIME_NS + 1, &res),
			 1);
	assert_int_equal(res.ctrl_len, 0);
	/* Past REJECT_AFTER_TIME: nothing sealed, nothing accepted with that key. */
	pkt = (struct engine_pkt){ .buf = d, .len = 80, .cap = BUF };
	make_ip(d + ENGINE_HEADROOM, 80, 4);
	assert_int_equal(engine_encapsulate(a.peer, &pkt, 1, T0 + REJECT_AFTER_TIME_NS, &res), 0);
	assert_int_equal(deliver(&b, &a, old, oldlen, T0 + REJECT_AFTER_TIME_NS, &res, buf, &pkt),
			 ENGINE_DROP);
	assert_int_equal(res.drop, ENGINE_DROP_KEY_EXPIRED);
	(void)len;
	node_free(&a);
	node_free(&b);
}

static void test_counter_limit(void **state)
{
	struct node a, b;
	static uint8_t s[3][BUF];
	uint8_t buf[BUF];
	struct engine_pkt pkts[3], pkt;
	struct engine_result res;

	(void)state;
	pair_setup(&a, &b);
	handshake(&a, &b, T0);
	/* White box: fast-forward a's sending counter to the limit. */
	atomic_store(&a.peer->current->send_counter, REJECT_AFTER_MESSAGES - 1);
	for (int i = 0; i < 3; i++) {
		pkts[i] = (struct engine_pkt){ .buf = s[i], .len = 60, .cap = BUF };
		make_ip(s[i] + ENGINE_HEADROOM, 60, (uint8_t)i);
	}
	assert_int_equal(engine_encapsulate(a.peer, pkts, 3, T0, &res), 1);
	assert_int_equal(get_le64(pkts[0].buf + WIRE_DATA_OFF_COUNTER), REJECT_AFTER_MESSAGES - 1);
	/* b accepts the last counter below the limit... */
	assert_int_equal(deliver(&b, &a, pkts[0].buf, pkts[0].len, T0, &res, buf, &pkt),
			 ENGINE_TO_TUNNEL);
	/* ... and a now needs a new session. */
	pkts[0] = (struct engine_pkt){ .buf = s[0], .len = 60, .cap = BUF };
	make_ip(s[0] + ENGINE_HEADROOM, 60, 9);
	assert_int_equal(engine_encapsulate(a.peer, pkts, 1, T0, &res), 0);
	node_free(&a);
	node_free(&b);
}

static void test_cookie_flow(void **state)
{
	struct node a, b;
	uint8_t buf[BUF];
	struct engine_result res, r2, r3;
	struct engine_pkt pkt;
	struct engine_stats st;
	uint64_t t = T0;

	(void)state;
	pair_setup(&a, &b);
	engine_force_load(b.e, true);
	engine_initiate(a.peer, t, &res);
	assert_int_equal(deliver(&b, &a, res.ctrl, res.ctrl_len, t, &r2, buf, &pkt), ENGINE_DROP);
	assert_int_equal(r2.ctrl_len, WIRE_COOKIE_REPLY_LEN);
	assert_true(r2.ctrl_to_source);
	/* A forged cookie reply (one bit off) is refused. */
	r2.ctrl[40] ^= 1;
	assert_int_equal(deliver(&a, &b, r2.ctrl, r2.ctrl_len, t, &r3, buf, &pkt), ENGINE_DROP);
	assert_int_equal(r3.drop, ENGINE_DROP_COOKIE);
	r2.ctrl[40] ^= 1;
	assert_int_equal(deliver(&a, &b, r2.ctrl, r2.ctrl_len, t, &r3, buf, &pkt), ENGINE_DONE);
	t += REKEY_TIMEOUT_NS + NSEC_PER_SEC;
	engine_update_timers(a.peer, t, &res);
	assert_int_equal(res.ctrl_len, WIRE_INITIATION_LEN);
	/* From another source address the cookie does not match: another cookie reply. */
	{
		struct node other = a;

		other.addr.sin_port = htons(1234);
		assert_int_equal(deliver(&b, &other, res.ctrl, res.ctrl_len, t, &r2, buf, &pkt),
				 ENGINE_DROP);
		assert_int_equal(r2.drop, ENGINE_DROP_UNDER_LOAD);
	}
	assert_int_equal(deliver(&b, &a, res.ctrl, res.ctrl_len, t, &r2, buf, &pkt), ENGINE_DONE);
	assert_int_equal(r2.ctrl_len, WIRE_RESPONSE_LEN);
	engine_stats(b.e, t, &st);
	assert_true(st.under_load);
	assert_int_equal(st.cookies_sent, 2);
	node_free(&a);
	node_free(&b);
}

/* A persistent keepalive with no session starts a handshake; with one, it is a keepalive. */
static void test_persistent_keepalive(void **state)
{
	struct node a, b;
	struct engine_peer_config pc;
	struct engine_result res;

	(void)state;
	node_init(&a, 1, AEAD_AUTO);
	node_init(&b, 2, AEAD_AUTO);
	pc = (struct engine_peer_config){ .public_key = b.pub, .persistent_keepalive_s = 25 };
	assert_int_equal(engine_peer_add(a.e, &pc, &a.peer), 0);
	pc = (struct engine_peer_config){ .public_key = a.pub };
	assert_int_equal(engine_peer_add(b.e, &pc, &b.peer), 0);
	handshake(&a, &b, T0);
	engine_update_timers(a.peer, T0, &res);
	engine_update_timers(a.peer, T0 + 25 * NSEC_PER_SEC - 1, &res);
	assert_int_equal(res.ctrl_len, 0);
	engine_update_timers(a.peer, T0 + 25 * NSEC_PER_SEC, &res);
	assert_int_equal(res.ctrl_len, WIRE_DATA_MIN_LEN);
	/* Long after the session expired (keys zeroed), the next one initiates. */
	engine_update_timers(a.peer, T0 + 3 * REJECT_AFTER_TIME_NS + NSEC_PER_SEC, &res);
	assert_int_equal(res.ctrl_len, WIRE_INITIATION_LEN);
	node_free(&a);
	node_free(&b);
}

static void test_give_up(void **state)
{
	struct node a, b;
	struct engine_result res;
	uint64_t t = T0;
	int sent = 0;

	(void)state;
	pair_setup(&a, &b);
	engine_initiate(a.peer, t, &res);
	sent++;
	/* Nobody answers: retries every REKEY_TIMEOUT (+ jitter), then it gives up. */
	for (t = T0; t < T0 + 3 * REKEY_ATTEMPT_TIME_NS; t += NSEC_PER_SEC / 10) {
		engine_update_timers(a.peer, t, &res);
		if (res.ctrl_len == WIRE_INITIATION_LEN)
			sent++;
	}
	assert_int_equal(sent, 1 + MAX_TIMER_HANDSHAKES);
	node_free(&a);
	node_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flip_initiation),
		cmocka_unit_test(test_flip_response),
		cmocka_unit_test(test_initiation_replay),
		cmocka_unit_test(test_peer_ratelimit),
		cmocka_unit_test(test_unknown_and_wrong_keys),
		cmocka_unit_test(test_psk_mismatch),
		cmocka_unit_test(test_cipher_mismatch),
		cmocka_unit_test(test_cipher_negotiation),
		cmocka_unit_test(test_keepalive_and_new_handshake),
		cmocka_unit_test(test_rekey_and_expiry),
		cmocka_unit_test(test_counter_limit),
		cmocka_unit_test(test_cookie_flow),
		cmocka_unit_test(test_persistent_keepalive),
		cmocka_unit_test(test_give_up),
		cmocka_unit_test(test_crossed_initiations),
	};

	if (sodium_init() < 0)
		return 1;
	test_seed_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
