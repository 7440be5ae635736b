// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the tunnel's untrusted input: the packet-type parser
 * and every handshake, cookie and data message parser, reached through the
 * real receive dispatcher engine_receive() of a responder with a known peer.
 *
 * Input: one flags byte (bit 0: under load, bit 1: IPv6 source, bit 2: run
 * the timers after each datagram, bit 3: the responder first initiates a
 * handshake itself, so responses have something to match), then datagrams framed as a 2-byte
 * little-endian length and that many bytes; a trailing partial frame is one
 * last datagram. Each datagram is copied into a buffer of exactly its size,
 * so any read past its end is an ASan finding. The responder's randomness is
 * deterministic per input, so a seed holding a valid initiation followed by
 * data sealed for the resulting session reaches the data path.
 *
 * Built with -DFUZZ_TUNNEL_SEEDS it is instead a program writing such seeds:
 *   cc -DFUZZ_TUNNEL_SEEDS ... tests/fuzz/fuzz_tunnel_wire.c -o seeds && ./seeds DIR
 */
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "bytes.h"
#include "tunnel_engine.h"
#include "key.h"
#include "noise.h"

/* Fixed identities (the initiator's and responder's private keys). */
static const uint8_t key_i[32] = { 0xe0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
				   1,	 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0x41 };
static const uint8_t key_r[32] = { 0xe8, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
				   2,	 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0x42 };

struct det {
	uint64_t state;
	uint64_t ts;
};

static void det_rng(void *ctx, void *buf, size_t len)
{
	struct det *d = ctx;
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++) {
		d->state = d->state * 6364136223846793005ULL + 1442695040888963407ULL;
		p[i] = (uint8_t)(d->state >> 56);
	}
}

static void det_tai64n(void *ctx, uint8_t out[WIRE_TAI64N_LEN])
{
	struct det *d = ctx;

	tai64n_from_ns(out, 1700000000ULL * 1000000000ULL + ++d->ts * 1000000000ULL);
}

/* A chacha20poly1305 engine for priv knowing the other key's owner as its one peer. */
static struct engine *make_engine(const uint8_t *priv, const uint8_t *peer_priv, struct det *d,
				  struct engine_peer **peer)
{
	struct engine_config cfg = { .private_key = priv,
				     .ciphers = { .n = 1, .c = { AEAD_CHACHA20POLY1305 } },
				     .mtu = 1420,
				     .max_peers = 2,
				     .rng = det_rng,
				     .rng_ctx = d,
				     .tai64n = det_tai64n };
	struct engine_peer_config pc = { 0 };
	uint8_t pub[32];
	struct engine *e;

	if (engine_new(&cfg, &e) < 0)
		abort();
	if (key_public(pub, peer_priv) < 0)
		abort();
	pc.public_key = pub;
	if (engine_peer_add(e, &pc, peer) < 0)
		abort();
	return e;
}

#ifndef FUZZ_TUNNEL_SEEDS

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return sodium_init() < 0 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct det d = { .state = 42 };
	struct engine_peer *peer;
	struct engine *e;
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(51900) };
	struct sockaddr_in s4 = { .sin_family = AF_INET,
				  .sin_port = htons(51900),
				  .sin_addr.s_addr = htonl(0xc6120002) };
	struct engine_result res;
	uint64_t now = 1000ULL * 1000000000ULL;
	uint8_t flags;

	if (size < 1)
		return 0;
	flags = data[0];
	data++;
	size--;
	s6.sin6_addr.s6_addr[0] = 0x20;
	s6.sin6_addr.s6_addr[1] = 0x01;
	s6.sin6_addr.s6_addr[3] = 0x02;
	e = make_engine(key_r, key_i, &d, &peer);
	engine_force_load(e, flags & 1);
	if (flags & 8)
		engine_initiate(peer, now, &res);
	while (size > 0) {
		size_t len;
		uint8_t *buf;
		struct engine_pkt pkt;

		len = size >= 2 ? (data[0] | (size_t)data[1] << 8) : SIZE_MAX;
		if (size >= 2 && len <= size - 2) {
			data += 2;
			size -= 2;
		} else {
			len = size;
		}
		buf = malloc(len ? len : 1);
		if (!buf)
			abort();
		memcpy(buf, data, len);
		pkt = (struct engine_pkt){ .buf = buf, .len = len, .cap = len };
		if (flags & 2)
			engine_receive(e, &pkt, (struct sockaddr *)&s6, sizeof(s6), now, &res);
		else
			engine_receive(e, &pkt, (struct sockaddr *)&s4, sizeof(s4), now, &res);
		if (res.op == ENGINE_TO_TUNNEL && (pkt.len > len - WIRE_DATA_MIN_LEN))
			abort(); /* plaintext claims more than was sealed */
		if (res.ctrl_len > sizeof(res.ctrl))
			abort();
		if (res.op == ENGINE_DROP && res.peer && res.drop != ENGINE_DROP_BAD_INNER)
			abort(); /* only authenticated packets name a peer */
		free(buf);
		data += len;
		size -= len;
		now += 10ULL * 1000000ULL;
		if (flags & 4)
			engine_update_timers(peer, now, &res);
	}
	engine_free(e);
	return 0;
}

#else /* FUZZ_TUNNEL_SEEDS */

static void put_frame(FILE *f, const uint8_t *m, size_t len)
{
	fputc((int)(len & 0xff), f);
	fputc((int)(len >> 8), f);
	fwrite(m, 1, len, f);
}

static void write_seed(const char *dir, const char *name, uint8_t flags, const uint8_t *const *msgs,
		       const size_t *lens, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputc(flags, f);
	for (size_t i = 0; i < n; i++)
		put_frame(f, msgs[i], lens[i]);
	fclose(f);
}

int main(int argc, char **argv)
{
	struct det di = { .state = 7 }, dr = { .state = 42 };
	struct engine_peer *pi, *pr;
	struct engine *ei, *er;
	struct engine_result res;
	struct sockaddr_in s4 = { .sin_family = AF_INET,
				  .sin_port = htons(51900),
				  .sin_addr.s_addr = htonl(0xc6120001) };
	uint64_t now = 1000ULL * 1000000000ULL;
	static uint8_t init[WIRE_INITIATION_LEN], resp[WIRE_RESPONSE_LEN], ka[64], d1[2048],
		d2[2048], d6[2048], cookie[WIRE_COOKIE_REPLY_LEN], junk[3] = { 4, 0, 0 };
	size_t ka_len, d1_len, d2_len, d6_len;
	struct engine_pkt pkt;

	if (argc != 2 || sodium_init() < 0) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	ei = make_engine(key_i, key_r, &di, &pi);
	er = make_engine(key_r, key_i, &dr, &pr);
	engine_initiate(pi, now, &res);
	memcpy(init, res.ctrl, sizeof(init));
	memcpy(d1, init, sizeof(init));
	pkt = (struct engine_pkt){ .buf = d1, .len = sizeof(init), .cap = sizeof(d1) };
	engine_receive(er, &pkt, (struct sockaddr *)&s4, sizeof(s4), now, &res);
	if (res.ctrl_len != WIRE_RESPONSE_LEN)
		return 1;
	memcpy(resp, res.ctrl, sizeof(resp));
	memcpy(d1, resp, sizeof(resp));
	pkt = (struct engine_pkt){ .buf = d1, .len = sizeof(resp), .cap = sizeof(d1) };
	engine_receive(ei, &pkt, (struct sockaddr *)&s4, sizeof(s4), now, &res);
	if (res.ctrl_len != WIRE_DATA_MIN_LEN)
		return 1;
	memcpy(ka, res.ctrl, res.ctrl_len);
	ka_len = res.ctrl_len;
	/* An IPv4 and an IPv6 packet, sealed for the session. */
	memset(d1, 0, sizeof(d1));
	d1[16] = 0x45;
	put_be16(d1 + 16 + 2, 84);
	pkt = (struct engine_pkt){ .buf = d1, .len = 84, .cap = sizeof(d1) };
	if (engine_encapsulate(pi, &pkt, 1, now, &res) != 1)
		return 1;
	d1_len = pkt.len;
	memset(d6, 0, sizeof(d6));
	d6[16] = 0x60;
	put_be16(d6 + 16 + 4, 60);
	pkt = (struct engine_pkt){ .buf = d6, .len = 100, .cap = sizeof(d6) };
	if (engine_encapsulate(pi, &pkt, 1, now, &res) != 1)
		return 1;
	d6_len = pkt.len;
	memset(d2, 0x99, sizeof(d2));
	d2[16] = 0x45;
	put_be16(d2 + 16 + 2, 1420);
	pkt = (struct engine_pkt){ .buf = d2, .len = 1420, .cap = sizeof(d2) };
	if (engine_encapsulate(pi, &pkt, 1, now, &res) != 1)
		return 1;
	d2_len = pkt.len;
	/* A cookie reply shape (does not decrypt, reaches the index lookup and AEAD). */
	memset(cookie, 0x33, sizeof(cookie));
	cookie[0] = WIRE_TYPE_COOKIE;
	cookie[1] = cookie[2] = cookie[3] = 0;
	memcpy(cookie + 4, init + 4, 4);

	{
		const uint8_t *m[] = { init, ka, d1, d6, d2, d1 };
		size_t l[] = { sizeof(init), ka_len, d1_len, d6_len, d2_len, d1_len };

		write_seed(argv[1], "session", 0, m, l, 6);
		write_seed(argv[1], "session-timers", 4, m, l, 6);
		write_seed(argv[1], "session-v6src", 2, m, l, 3);
		write_seed(argv[1], "init-underload", 1, m, l, 1);
	}
	{
		const uint8_t *m[] = { resp };
		size_t l[] = { sizeof(resp) };

		write_seed(argv[1], "response-unsolicited", 0, m, l, 1);
	}
	{
		const uint8_t *m[] = { cookie };
		size_t l[] = { sizeof(cookie) };

		write_seed(argv[1], "cookie", 0, m, l, 1);
	}
	{
		const uint8_t *m[] = { junk, d1 };
		size_t l[] = { sizeof(junk), d1_len };

		write_seed(argv[1], "short-then-data", 0, m, l, 2);
	}
	engine_free(ei);
	engine_free(er);

	/* The fuzzed side initiating (flag 8): the other side's response. */
	di = (struct det){ .state = 7 };
	dr = (struct det){ .state = 42 };
	ei = make_engine(key_i, key_r, &di, &pi);
	er = make_engine(key_r, key_i, &dr, &pr);
	engine_initiate(pr, now, &res);
	memcpy(d1, res.ctrl, res.ctrl_len);
	pkt = (struct engine_pkt){ .buf = d1, .len = res.ctrl_len, .cap = sizeof(d1) };
	engine_receive(ei, &pkt, (struct sockaddr *)&s4, sizeof(s4), now, &res);
	if (res.ctrl_len != WIRE_RESPONSE_LEN)
		return 1;
	memcpy(resp, res.ctrl, sizeof(resp));
	{
		const uint8_t *m[] = { resp, resp };
		size_t l[] = { sizeof(resp), sizeof(resp) };

		write_seed(argv[1], "initiated-response", 8, m, l, 2);
		write_seed(argv[1], "initiated-response-underload", 9, m, l, 1);
	}
	engine_free(ei);
	engine_free(er);
	return 0;
}

#endif
