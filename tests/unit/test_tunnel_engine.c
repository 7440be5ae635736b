// SPDX-License-Identifier: MIT
/*
 * The tunnel engine's (tunnel/engine.c) data path between in-memory peers
 * (tunnel_engine_fixture.h):
 * full handshake and data both ways, sealing and padding against the MTU,
 * packets staged before a session and flushed in order, every flipped bit of
 * a data message rejected, replayed and reordered data, clocks that disagree
 * between threads, and the index table. Handshakes, timers and rekeys are in
 * test_tunnel_engine_handshake.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "tunnel_engine.h"
#include "tunnel_engine_fixture.h"
#include "index_table.h"
#include "test_seed.h"

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
		cmocka_unit_test(test_flip_data_and_replay),
		cmocka_unit_test(test_reorder_inside_window),
		cmocka_unit_test(test_index_table),
		cmocka_unit_test(test_now_before_birth),
		cmocka_unit_test(test_flush_requested_on_send),
	};

	if (sodium_init() < 0)
		return 1;
	test_seed_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
