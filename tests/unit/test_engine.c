// SPDX-License-Identifier: MIT
/*
 * The protocol engine between in-memory peers: full handshake and data both
 * ways, every flipped bit of an initiation, a response and a data message
 * rejected, replayed data and initiations, unknown and wrong keys, psk and
 * cipher mismatch, cookies under load, per-peer rate limit, timers driving
 * keepalives and rekeys, key expiry by time and by counter, the index table.
 */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "bytes.h"
#include "engine.h"
#include "engine_impl.h"
#include "index_table.h"
#include "key.h"
#include "test_seed.h"

/* Simulated time: every engine call takes it, none reads a clock. */
#define T0  (1000 * NSEC_PER_SEC)
#define BUF 2048

struct node {
	struct engine *e;
	struct engine_peer *peer; /* the other node, as our peer */
	uint8_t pub[32];
	struct sockaddr_in addr;
	uint64_t ts; /* TAI64N seconds handed out to initiations, increasing */
};

static void fake_tai64n(void *ctx, uint8_t out[WIRE_TAI64N_LEN])
{
	struct node *n = ctx;

	tai64n_from_ns(out, 1700000000ULL * NSEC_PER_SEC + ++n->ts * NSEC_PER_SEC);
}

/* the engine's ephemeral keys, indexes and jitter: from the test's seed */
static void seeded_rng(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	test_rand_buf(buf, len);
}

static void node_init(struct node *n, uint8_t host, enum aead_cipher cipher)
{
	uint8_t priv[32];
	struct engine_config cfg = { .private_key = priv,
				     .cipher = cipher,
				     .mtu = 1420,
				     .max_peers = 4,
				     .rng = seeded_rng,
				     .rng_ctx = n,
				     .tai64n = fake_tai64n };

	memset(n, 0, sizeof(*n));
	key_generate(priv);
	assert_int_equal(engine_new(&cfg, &n->e), 0);
	engine_public_key(n->e, n->pub);
	n->addr.sin_family = AF_INET;
	n->addr.sin_port = htons(51900);
	n->addr.sin_addr.s_addr = htonl(0xc6120000u | host); /* 198.18.0.host */
	sodium_memzero(priv, sizeof(priv));
}

/* a learns b (with psk), b learns a (with psk_b). */
static void node_link(struct node *a, struct node *b, const uint8_t *psk_a, const uint8_t *psk_b)
{
	struct engine_peer_config pa = { .public_key = b->pub, .psk = psk_a, .user = b };
	struct engine_peer_config pb = { .public_key = a->pub, .psk = psk_b, .user = a };

	assert_int_equal(engine_peer_add(a->e, &pa, &a->peer), 0);
	assert_int_equal(engine_peer_add(b->e, &pb, &b->peer), 0);
}

static void node_free(struct node *n)
{
	engine_free(n->e);
}

/* Delivers a copy of msg from `from` to `to`; the copy stays in buf. */
static enum engine_op deliver(struct node *to, const struct node *from, const uint8_t *msg,
			      size_t len, uint64_t now, struct engine_result *res, uint8_t buf[BUF],
			      struct engine_pkt *pkt)
{
	memcpy(buf, msg, len);
	*pkt = (struct engine_pkt){ .buf = buf, .len = len, .cap = BUF };
	return engine_receive(to->e, pkt, (const struct sockaddr *)&from->addr, sizeof(from->addr),
			      now, res);
}

/* An IPv4 packet of len bytes at p (total length set, payload = tag). */
static void make_ip(uint8_t *p, size_t len, uint8_t tag)
{
	memset(p, tag, len);
	p[0] = 0x45;
	put_be16(p + 2, (uint16_t)len);
}

/* Seals one IP packet of len bytes from a to b; the datagram is left in buf. */
static size_t seal_one(struct node *a, size_t len, uint8_t tag, uint64_t now, uint8_t buf[BUF])
{
	struct engine_pkt pkt = { .buf = buf, .len = len, .cap = BUF };
	struct engine_result res;

	make_ip(buf + ENGINE_HEADROOM, len, tag);
	assert_int_equal(engine_encapsulate(a->peer, &pkt, 1, now, &res), 1);
	assert_int_equal(res.op, ENGINE_TO_NETWORK);
	return pkt.len;
}

/* A complete handshake, a initiating, confirmed by a's keepalive. */
static void handshake(struct node *a, struct node *b, uint64_t now)
{
	struct engine_result r1, r2, r3, r4;
	uint8_t buf[BUF];
	struct engine_pkt pkt;

	engine_initiate(a->peer, now, &r1);
	assert_int_equal(r1.ctrl_len, WIRE_INITIATION_LEN);
	assert_int_equal(deliver(b, a, r1.ctrl, r1.ctrl_len, now, &r2, buf, &pkt), ENGINE_DONE);
	assert_ptr_equal(r2.peer, b->peer);
	assert_int_equal(r2.ctrl_len, WIRE_RESPONSE_LEN);
	assert_false(r2.ctrl_to_source);
	assert_int_equal(deliver(a, b, r2.ctrl, r2.ctrl_len, now, &r3, buf, &pkt), ENGINE_DONE);
	assert_ptr_equal(r3.peer, a->peer);
	assert_int_equal(r3.ctrl_len, WIRE_DATA_MIN_LEN); /* keepalive: nothing staged */
	assert_int_equal(deliver(b, a, r3.ctrl, r3.ctrl_len, now, &r4, buf, &pkt), ENGINE_DONE);
	assert_ptr_equal(r4.peer, b->peer);
}

static void pair_setup(struct node *a, struct node *b)
{
	node_init(a, 1, AEAD_AUTO);
	node_init(b, 2, AEAD_AUTO);
	node_link(a, b, NULL, NULL);
}

static void test_full_flow(void **state)
{
	struct node a, b;
	struct engine_result res, r2;
	static uint8_t slots[8][BUF];
	struct engine_pkt pkts[8], pkt;
	uint8_t init[WIRE_INITIATION_LEN], buf[BUF];
	struct engine_peer_stats st;
	size_t n;

	(void)state;
	pair_setup(&a, &b);
	/* Three packets before any session: staged, and an initiation goes out. */
	for (int i = 0; i < 3; i++) {
		pkts[i] =
			(struct engine_pkt){ .buf = slots[i], .len = 100 + (size_t)i, .cap = BUF };
		make_ip(slots[i] + ENGINE_HEADROOM, pkts[i].len, (uint8_t)i);
	}
	assert_int_equal(engine_encapsulate(a.peer, pkts, 3, T0, &res), 0);
	assert_int_equal(res.ctrl_len, WIRE_INITIATION_LEN);
	memcpy(init, res.ctrl, sizeof(init));
	/* More traffic while the handshake is pending: staged, no second initiation. */
	pkts[3] = (struct engine_pkt){ .buf = slots[3], .len = 103, .cap = BUF };
	make_ip(slots[3] + ENGINE_HEADROOM, 103, 3);
	assert_int_equal(engine_encapsulate(a.peer, &pkts[3], 1, T0, &res), 0);
	assert_int_equal(res.ctrl_len, 0);

	assert_int_equal(deliver(&b, &a, init, sizeof(init), T0, &res, buf, &pkt), ENGINE_DONE);
	assert_int_equal(res.ctrl_len, WIRE_RESPONSE_LEN);
	assert_int_equal(deliver(&a, &b, res.ctrl, res.ctrl_len, T0, &r2, buf, &pkt), ENGINE_DONE);
	assert_true(r2.flush);
	assert_int_equal(r2.ctrl_len, 0);
	/* The staged packets, in order. */
	for (int i = 0; i < 4; i++) {
		struct engine_pkt out = { .buf = slots[7], .cap = BUF };

		assert_true(engine_flush(a.peer, &out, T0));
		assert_int_equal(deliver(&b, &a, out.buf, out.len, T0, &res, buf, &pkt),
				 ENGINE_TO_TUNNEL);
		assert_ptr_equal(res.peer, b.peer);
		assert_ptr_equal(engine_peer_user(res.peer), &a);
		assert_int_equal(pkt.len, 100 + (size_t)i);
		assert_int_equal(pkt.buf[ENGINE_HEADROOM + 50], i);
	}
	{
		struct engine_pkt out = { .buf = slots[7], .cap = BUF };

		assert_false(engine_flush(a.peer, &out, T0));
	}
	/* b's session is confirmed: a batch of 8 back, all sizes around the padding. */
	for (int i = 0; i < 8; i++) {
		pkts[i] = (struct engine_pkt){ .buf = slots[i],
					       .len = 20 + (size_t)i * 181,
					       .cap = BUF };
		make_ip(slots[i] + ENGINE_HEADROOM, pkts[i].len, (uint8_t)(0x80 + i));
	}
	n = engine_encapsulate(b.peer, pkts, 8, T0 + 1, &res);
	assert_int_equal(n, 8);
	assert_int_equal(res.op, ENGINE_TO_NETWORK);
	assert_int_equal(res.ctrl_len, 0);
	for (int i = 0; i < 8; i++) {
		size_t plain = 20 + (size_t)i * 181;

		assert_int_equal(pkts[i].len, WIRE_DATA_MIN_LEN + wire_padded_len(plain, 1420));
		assert_int_equal(pkts[i].len % 16, 0);
		assert_int_equal(deliver(&a, &b, pkts[i].buf, pkts[i].len, T0 + 2, &r2, buf, &pkt),
				 ENGINE_TO_TUNNEL);
		assert_int_equal(pkt.len, plain);
		assert_int_equal(pkt.buf[ENGINE_HEADROOM + 19], 0x80 + i);
	}
	engine_peer_stats(a.peer, T0 + 2, &st);
	assert_int_equal(st.rx_packets, 8);
	assert_int_equal(st.tx_packets, 4);
	assert_int_equal(st.handshakes, 1);
	assert_true(st.has_session);
	engine_peer_stats(b.peer, T0 + 2, &st);
	assert_int_equal(st.rx_packets, 4);
	assert_true(st.has_session);
	node_free(&a);
	node_free(&b);
}

static void test_too_big_and_buffer(void **state)
{
	struct node a, b;
	static uint8_t s0[BUF], s1[BUF], s2[BUF];
	struct engine_pkt pkts[3] = {
		{ .buf = s0, .len = 1421, .cap = BUF },	    /* over the MTU */
		{ .buf = s1, .len = 1420, .cap = BUF },	    /* exactly the MTU: no padding beyond */
		{ .buf = s2, .len = 100, .cap = 16 + 100 }, /* no tailroom */
	};
	struct engine_result res;

	(void)state;
	pair_setup(&a, &b);
	handshake(&a, &b, T0);
	make_ip(s1 + ENGINE_HEADROOM, 1420, 1);
	assert_int_equal(engine_encapsulate(a.peer, pkts, 3, T0, &res), 1);
	assert_ptr_equal(pkts[0].buf, s1);
	assert_int_equal(pkts[0].len, 16 + 1420 + 16);
	assert_int_equal(res.drop, ENGINE_DROP_TOO_BIG);
	node_free(&a);
	node_free(&b);
}

/* Padding (to 16) stops at the pad MTU set for the peer (the device's MTU
 * lowered at run time, or the path's inner MTU), never above the engine's. */
static void test_pad_mtu(void **state)
{
	struct node a, b;
	uint8_t buf[BUF], rbuf[BUF];
	struct engine_result res;
	struct engine_pkt pkt;
	size_t n;

	(void)state;
	pair_setup(&a, &b);
	handshake(&a, &b, T0);
	assert_int_equal(engine_peer_pad_mtu(a.peer), 1420);
	assert_int_equal(seal_one(&a, 1340, 1, T0, buf), 16 + 1344 + 16); /* padded past 1340 */
	engine_peer_set_pad_mtu(a.peer, 1340);
	assert_int_equal(engine_peer_pad_mtu(a.peer), 1340);
	n = seal_one(&a, 1340, 2, T0, buf);
	assert_int_equal(n, 16 + 1340 + 16); /* 1400 on an IPv4 underlay, not 1404 */
	assert_int_equal(deliver(&b, &a, buf, n, T0, &res, rbuf, &pkt), ENGINE_TO_TUNNEL);
	assert_int_equal(pkt.len, 1340);
	assert_int_equal(seal_one(&a, 1329, 3, T0, buf), 16 + 1340 + 16);
	assert_int_equal(seal_one(&a, 1300, 4, T0, buf), 16 + 1312 + 16); /* below: still 16 */
	assert_int_equal(seal_one(&a, 0 + 20, 5, T0, buf), 16 + 32 + 16);
	/* Above the engine's MTU, or 0: the engine's MTU. */
	engine_peer_set_pad_mtu(a.peer, 9000);
	assert_int_equal(engine_peer_pad_mtu(a.peer), 1420);
	assert_int_equal(seal_one(&a, 1410, 6, T0, buf), 16 + 1420 + 16);
	engine_peer_set_pad_mtu(a.peer, 0);
	assert_int_equal(engine_peer_pad_mtu(a.peer), 1420);
	/* The other direction keeps its own cap. */
	assert_int_equal(engine_peer_pad_mtu(b.peer), 1420);
	node_free(&a);
	node_free(&b);
}

/* Every single-bit flip of msg[0..bits/8) is dropped with no answer. */
static void flip_all(struct node *to, const struct node *from, const uint8_t *msg, size_t len,
		     size_t from_bit, size_t to_bit, uint64_t now, bool allow_cookie)
{
	uint8_t m[BUF], buf[BUF];
	struct engine_result res;
	struct engine_pkt pkt;
	size_t bit;

	for (bit = from_bit; bit < to_bit; bit++) {
		memcpy(m, msg, len);
		m[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		if (deliver(to, from, m, len, now, &res, buf, &pkt) != ENGINE_DROP)
			fail_msg("bit %zu of a %zu-byte message accepted", bit, len);
		assert_null(res.peer);
		if (allow_cookie)
			assert_true(res.ctrl_len == 0 ||
				    (res.ctrl_len == WIRE_COOKIE_REPLY_LEN && res.ctrl_to_source));
		else
			assert_int_equal(res.ctrl_len, 0);
	}
}

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

static void test_flip_data_and_replay(void **state)
{
	struct node a, b;
	struct engine_result res;
	uint8_t d[BUF], buf[BUF];
	struct engine_pkt pkt;
	struct engine_peer_stats st;
	size_t len;

	(void)state;
	pair_setup(&a, &b);
	handshake(&a, &b, T0);
	len = seal_one(&a, 100, 0x5a, T0, d);
	flip_all(&b, &a, d, len, 0, len * 8, T0, false);
	engine_peer_stats(b.peer, T0, &st);
	assert_int_equal(st.rx_packets, 0);
	assert_int_equal(deliver(&b, &a, d, len, T0, &res, buf, &pkt), ENGINE_TO_TUNNEL);
	/* Re-injected: dropped as a replay. */
	memcpy(buf, d, len);
	assert_int_equal(deliver(&b, &a, d, len, T0, &res, buf, &pkt), ENGINE_DROP);
	assert_int_equal(res.drop, ENGINE_DROP_REPLAY);
	assert_null(res.peer);
	/* Truncated: shorter than a header and tag, or tag cut. */
	assert_int_equal(deliver(&b, &a, d, WIRE_DATA_MIN_LEN - 1, T0, &res, buf, &pkt),
			 ENGINE_DROP);
	assert_int_equal(res.drop, ENGINE_DROP_MALFORMED);
	len = seal_one(&a, 100, 0x5b, T0, d);
	assert_int_equal(deliver(&b, &a, d, len - 1, T0, &res, buf, &pkt), ENGINE_DROP);
	assert_int_equal(res.drop, ENGINE_DROP_DECRYPT);
	node_free(&a);
	node_free(&b);
}

static void test_reorder_inside_window(void **state)
{
	struct node a, b;
	struct engine_result res;
	static uint8_t d[64][BUF];
	uint8_t buf[BUF];
	size_t len[64];
	struct engine_pkt pkt;

	(void)state;
	pair_setup(&a, &b);
	handshake(&a, &b, T0);
	for (int i = 0; i < 64; i++)
		len[i] = seal_one(&a, 60, (uint8_t)i, T0, d[i]);
	for (int i = 63; i >= 0; i -= 2)
		assert_int_equal(deliver(&b, &a, d[i], len[i], T0, &res, buf, &pkt),
				 ENGINE_TO_TUNNEL);
	for (int i = 0; i < 64; i += 2)
		assert_int_equal(deliver(&b, &a, d[i], len[i], T0, &res, buf, &pkt),
				 ENGINE_TO_TUNNEL);
	for (int i = 0; i < 64; i++)
		assert_int_equal(deliver(&b, &a, d[i], len[i], T0, &res, buf, &pkt), ENGINE_DROP);
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
					     .cipher = AEAD_AES256GCM,
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
	assert_int_equal(r2.drop, ENGINE_DROP_HANDSHAKE);
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

/* Threads read the clock at different moments: a keypair born "after" now is fresh. */
static void test_now_before_birth(void **state)
{
	struct node a, b;
	uint8_t d[BUF], buf[BUF];
	struct engine_result res;
	struct engine_pkt pkt;
	size_t len;

	(void)state;
	pair_setup(&a, &b);
	handshake(&a, &b, T0);
	len = seal_one(&a, 64, 7, T0 - NSEC_PER_MSEC, d);
	assert_int_equal(deliver(&b, &a, d, len, T0 - 2 * NSEC_PER_MSEC, &res, buf, &pkt),
			 ENGINE_TO_TUNNEL);
	assert_int_equal(res.ctrl_len, 0);
	node_free(&a);
	node_free(&b);
}

/* A session completes while packets are still staged: the next send asks for a flush. */
static void test_flush_requested_on_send(void **state)
{
	struct node a, b;
	static uint8_t s[2][BUF];
	uint8_t init[WIRE_INITIATION_LEN], buf[BUF];
	struct engine_result res, r2;
	struct engine_pkt pkt, p0 = { .buf = s[0], .len = 60, .cap = BUF };

	(void)state;
	pair_setup(&a, &b);
	make_ip(s[0] + ENGINE_HEADROOM, 60, 1);
	assert_int_equal(engine_encapsulate(a.peer, &p0, 1, T0, &res), 0);
	memcpy(init, res.ctrl, sizeof(init));
	assert_int_equal(deliver(&b, &a, init, sizeof(init), T0, &res, buf, &pkt), ENGINE_DONE);
	assert_int_equal(deliver(&a, &b, res.ctrl, res.ctrl_len, T0, &r2, buf, &pkt), ENGINE_DONE);
	assert_true(r2.flush); /* suppose the receive thread did not flush yet */
	p0 = (struct engine_pkt){ .buf = s[1], .len = 60, .cap = BUF };
	make_ip(s[1] + ENGINE_HEADROOM, 60, 2);
	assert_int_equal(engine_encapsulate(a.peer, &p0, 1, T0, &res), 1);
	assert_true(res.flush);
	p0 = (struct engine_pkt){ .buf = s[0], .cap = BUF };
	assert_true(engine_flush(a.peer, &p0, T0));
	p0 = (struct engine_pkt){ .buf = s[1], .len = 60, .cap = BUF };
	make_ip(s[1] + ENGINE_HEADROOM, 60, 3);
	assert_int_equal(engine_encapsulate(a.peer, &p0, 1, T0, &res), 1);
	assert_false(res.flush);
	node_free(&a);
	node_free(&b);
}

static void seq_rng(void *ctx, void *buf, size_t len)
{
	uint32_t *state = ctx;

	for (size_t i = 0; i < len; i++) {
		*state = *state * 1103515245u + 12345u;
		((uint8_t *)buf)[i] = (uint8_t)(*state >> 16);
	}
}

static void test_index_table(void **state)
{
	struct index_table t;
	enum { N = 1000 };
	uint32_t idx[N], rs = 1;
	bool live[N];
	int order[N];

	(void)state;
	assert_int_equal(index_table_init(&t, N), 0);
	for (int i = 0; i < N; i++) {
		assert_int_equal(
			index_table_insert(&t, INDEX_KEYPAIR, &idx[i], seq_rng, &rs, &idx[i]), 0);
		live[i] = true;
		order[i] = i;
	}
	{
		/* Full at t.max entries (half the slots, so probes stay short). */
		uint32_t extra[2 * N], x;
		size_t n = 0;

		while (t.count < t.max)
			assert_int_equal(index_table_insert(&t, INDEX_HANDSHAKE, &t, seq_rng, &rs,
							    &extra[n++]),
					 0);
		assert_int_equal(index_table_insert(&t, INDEX_KEYPAIR, &t, seq_rng, &rs, &x),
				 -ENOSPC);
		while (n)
			index_table_remove(&t, extra[--n]);
		assert_int_equal(t.count, N);
	}
	for (int i = N - 1; i > 0; i--) {
		int j = (int)(test_rand_below((uint32_t)i + 1)), tmp = order[i];

		order[i] = order[j];
		order[j] = tmp;
	}
	for (int k = 0; k < N; k++) {
		if (k % 2 == 0) {
			index_table_remove(&t, idx[order[k]]);
			live[order[k]] = false;
		}
		if (k % 100 == 0)
			for (int i = 0; i < N; i++) {
				const struct index_entry *e = index_table_find(&t, idx[i]);

				if (live[i]) {
					assert_non_null(e);
					assert_ptr_equal(e->ptr, &idx[i]);
				} else {
					assert_null(e);
				}
			}
	}
	assert_int_equal(t.count, N / 2);
	index_table_destroy(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_flow),
		cmocka_unit_test(test_too_big_and_buffer),
		cmocka_unit_test(test_pad_mtu),
		cmocka_unit_test(test_flip_initiation),
		cmocka_unit_test(test_flip_response),
		cmocka_unit_test(test_flip_data_and_replay),
		cmocka_unit_test(test_reorder_inside_window),
		cmocka_unit_test(test_initiation_replay),
		cmocka_unit_test(test_peer_ratelimit),
		cmocka_unit_test(test_unknown_and_wrong_keys),
		cmocka_unit_test(test_psk_mismatch),
		cmocka_unit_test(test_cipher_mismatch),
		cmocka_unit_test(test_keepalive_and_new_handshake),
		cmocka_unit_test(test_rekey_and_expiry),
		cmocka_unit_test(test_counter_limit),
		cmocka_unit_test(test_cookie_flow),
		cmocka_unit_test(test_persistent_keepalive),
		cmocka_unit_test(test_give_up),
		cmocka_unit_test(test_index_table),
		cmocka_unit_test(test_now_before_birth),
		cmocka_unit_test(test_flush_requested_on_send),
		cmocka_unit_test(test_crossed_initiations),
	};

	if (sodium_init() < 0)
		return 1;
	test_seed_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
