/* SPDX-License-Identifier: MIT */
/*
 * Two in-memory tunnel engines (tunnel/engine.c) that talk to each other,
 * for the tunnel engine's unit tests (test_tunnel_engine.c: the data path;
 * test_tunnel_engine_handshake.c: handshakes, timers and rekeys). Each node
 * has its own engine, knows the other as its peer and sits at
 * 198.18.0.<host>; a datagram goes from one to the other by
 * a copy, nothing touches a socket. Time is simulated and handed to every
 * call; the engines' randomness comes from the test's seed (test_seed.h), so
 * a program that includes this header calls test_seed_init() in main().
 * (static inline: a test that includes this header uses some of the
 * helpers, not all.)
 */
#ifndef TUNNEL_ENGINE_FIXTURE_H
#define TUNNEL_ENGINE_FIXTURE_H

#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "bytes.h"
#include "clock.h"
#include "tunnel_engine.h"
#include "key.h"
#include "noise.h"
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

static inline void fake_tai64n(void *ctx, uint8_t out[WIRE_TAI64N_LEN])
{
	struct node *n = ctx;

	tai64n_from_ns(out, 1700000000ULL * NSEC_PER_SEC + ++n->ts * NSEC_PER_SEC);
}

/* the engine's ephemeral keys, indexes and jitter: from the test's seed */
static inline void seeded_rng(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	test_rand_buf(buf, len);
}

/*
 * ciphers: "auto" or a list (negotiate_list_parse()); impl: the implementation
 * of every cipher (AEAD_IMPL_NONE: the engine's default, libsodium).
 */
static inline void node_init_impl(struct node *n, uint8_t host, const char *ciphers,
				  enum aead_impl impl)
{
	uint8_t priv[32];
	struct aead_host h = { 0 };
	struct engine_config cfg = { .private_key = priv,
				     .mtu = 1420,
				     .max_peers = 4,
				     .rng = seeded_rng,
				     .rng_ctx = n,
				     .tai64n = fake_tai64n };

	memset(n, 0, sizeof(*n));
	assert_true(negotiate_list_parse(ciphers, &cfg.ciphers, NULL));
	if (impl != AEAD_IMPL_NONE) {
		for (int c = 1; c <= AEAD_CIPHERS; c++)
			h.gbps[c][impl] = aead_impl_available((enum aead_cipher)c, impl) ? c : 0;
		aead_host_rank(&h);
		cfg.host = &h;
	}
	key_generate(priv);
	assert_int_equal(engine_new(&cfg, &n->e), 0);
	engine_public_key(n->e, n->pub);
	n->addr.sin_family = AF_INET;
	n->addr.sin_port = htons(51900);
	n->addr.sin_addr.s_addr = htonl(0xc6120000u | host); /* 198.18.0.host */
	sodium_memzero(priv, sizeof(priv));
}

static inline void node_init_list(struct node *n, uint8_t host, const char *ciphers)
{
	node_init_impl(n, host, ciphers, AEAD_IMPL_NONE);
}

static inline void node_init(struct node *n, uint8_t host, enum aead_cipher cipher)
{
	node_init_list(n, host, cipher == AEAD_AUTO ? "auto" : aead_cipher_name(cipher));
}

/* a learns b (with psk), b learns a (with psk_b). */
static inline void node_link(struct node *a, struct node *b, const uint8_t *psk_a,
			     const uint8_t *psk_b)
{
	struct engine_peer_config pa = { .public_key = b->pub, .psk = psk_a, .user = b };
	struct engine_peer_config pb = { .public_key = a->pub, .psk = psk_b, .user = a };

	assert_int_equal(engine_peer_add(a->e, &pa, &a->peer), 0);
	assert_int_equal(engine_peer_add(b->e, &pb, &b->peer), 0);
}

static inline void node_free(struct node *n)
{
	engine_free(n->e);
}

/* Delivers a copy of msg from `from` to `to`; the copy stays in buf. */
static inline enum engine_op deliver(struct node *to, const struct node *from, const uint8_t *msg,
				     size_t len, uint64_t now, struct engine_result *res,
				     uint8_t buf[BUF], struct engine_pkt *pkt)
{
	memcpy(buf, msg, len);
	*pkt = (struct engine_pkt){ .buf = buf, .len = len, .cap = BUF };
	return engine_receive(to->e, pkt, (const struct sockaddr *)&from->addr, sizeof(from->addr),
			      now, res);
}

/* An IPv4 packet of len bytes at p (total length set, payload = tag). */
static inline void make_ip(uint8_t *p, size_t len, uint8_t tag)
{
	memset(p, tag, len);
	p[0] = 0x45;
	put_be16(p + 2, (uint16_t)len);
}

/* Seals one IP packet of len bytes from a to b; the datagram is left in buf. */
static inline size_t seal_one(struct node *a, size_t len, uint8_t tag, uint64_t now,
			      uint8_t buf[BUF])
{
	struct engine_pkt pkt = { .buf = buf, .len = len, .cap = BUF };
	struct engine_result res;

	make_ip(buf + ENGINE_HEADROOM, len, tag);
	assert_int_equal(engine_encapsulate(a->peer, &pkt, 1, now, &res), 1);
	assert_int_equal(res.op, ENGINE_TO_NETWORK);
	return pkt.len;
}

/* A complete handshake, a initiating, confirmed by a's keepalive. */
static inline void handshake(struct node *a, struct node *b, uint64_t now)
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

static inline void pair_setup(struct node *a, struct node *b)
{
	node_init(a, 1, AEAD_AUTO);
	node_init(b, 2, AEAD_AUTO);
	node_link(a, b, NULL, NULL);
}

/* Every single-bit flip of msg[0..bits/8) is dropped with no answer. */
static inline void flip_all(struct node *to, const struct node *from, const uint8_t *msg,
			    size_t len, size_t from_bit, size_t to_bit, uint64_t now,
			    bool allow_cookie)
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

#endif
