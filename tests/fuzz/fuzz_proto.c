// SPDX-License-Identifier: MIT
/*
 * Control protocol from untrusted bytes: the input is (1) parsed as one
 * message and decoded by its type, and (2) fed through the framing reader
 * in chunks whose sizes come from the input, decoding every message that
 * completes. A message that decodes is encoded again and must decode to
 * the same fields.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hostfacts.h"
#include "proto.h"
#include "proto_overlay.h"

static uint8_t out[PROTO_MAX_MSG], out2[PROTO_MAX_MSG];
static struct proto_results res, res2;
static struct hostfacts facts, facts2;

static void reencode(ssize_t n, uint16_t type)
{
	struct proto_msg m;

	if (n < 0)
		abort();
	if (proto_parse(out, (size_t)n, &m) != 0 || m.type != type)
		abort();
}

/* The overlay's messages: what decodes encodes again to the same body. */
static void decode_overlay(const struct proto_msg *m)
{
	union {
		struct proto_overlay_request q;
		struct proto_overlay_accept a;
		struct proto_overlay_ready r;
		struct proto_overlay_down d;
	} u;
	ssize_t n = -1;

	switch (m->type) {
	case PROTO_OVERLAY_REQUEST:
		if (proto_decode_overlay_request(m->body, m->len, &u.q) == 0)
			n = proto_encode_overlay_request(out, sizeof(out), &u.q);
		break;
	case PROTO_OVERLAY_ACCEPT:
		if (proto_decode_overlay_accept(m->body, m->len, &u.a) == 0)
			n = proto_encode_overlay_accept(out, sizeof(out), &u.a);
		break;
	case PROTO_OVERLAY_READY:
		if (proto_decode_overlay_ready(m->body, m->len, &u.r) == 0)
			n = proto_encode_overlay_ready(out, sizeof(out), &u.r);
		break;
	default:
		if (proto_decode_overlay_down(m->body, m->len, &u.d) == 0)
			n = proto_encode_overlay_down(out, sizeof(out), &u.d);
		break;
	}
	if (n < 0)
		return;
	reencode(n, m->type);
	/* reserved bytes are ignored by the decoders and written as 0 */
	if ((size_t)n - PROTO_HDR_LEN != m->len)
		abort();
}

/* HOST_FACTS: what decodes encodes again, and that encoding is a fixed
 * point (the shares' parts per million survive the round trip). */
static void decode_facts(const struct proto_msg *m)
{
	ssize_t n, n2;

	if (proto_decode_host_facts(m->body, m->len, &facts) != 0)
		return;
	if (!facts.known)
		abort();
	n = proto_encode_host_facts(out, sizeof(out), &facts);
	reencode(n, m->type);
	if (proto_decode_host_facts(out + PROTO_HDR_LEN, (size_t)n - PROTO_HDR_LEN, &facts2) != 0)
		abort();
	n2 = proto_encode_host_facts(out2, sizeof(out2), &facts2);
	if (n2 != n || memcmp(out, out2, (size_t)n) != 0)
		abort();
}

static void decode(const struct proto_msg *m)
{
	union {
		struct proto_hello h;
		struct proto_auth_challenge c;
		struct proto_auth_response r;
		struct proto_auth_ok o;
		struct proto_test_request q;
		struct proto_test_accept a;
		struct proto_text t;
		struct proto_start s;
		struct proto_stop p;
		struct proto_interval i;
	} u, v;

	switch (m->type) {
	case PROTO_HELLO:
		if (proto_decode_hello(m->body, m->len, &u.h) == 0)
			reencode(proto_encode_hello(out, sizeof(out), &u.h), m->type);
		break;
	case PROTO_AUTH_CHALLENGE:
		if (proto_decode_auth_challenge(m->body, m->len, &u.c) == 0)
			reencode(proto_encode_auth_challenge(out, sizeof(out), &u.c), m->type);
		break;
	case PROTO_AUTH_RESPONSE:
		if (proto_decode_auth_response(m->body, m->len, &u.r) == 0)
			reencode(proto_encode_auth_response(out, sizeof(out), &u.r), m->type);
		break;
	case PROTO_AUTH_OK:
		if (proto_decode_auth_ok(m->body, m->len, &u.o) == 0)
			reencode(proto_encode_auth_ok(out, sizeof(out), &u.o), m->type);
		break;
	case PROTO_TEST_REQUEST:
		if (proto_decode_test_request(m->body, m->len, &u.q) == 0) {
			ssize_t n = proto_encode_test_request(out, sizeof(out), &u.q);

			reencode(n, m->type);
			if (proto_decode_test_request(out + PROTO_HDR_LEN,
						      (size_t)n - PROTO_HDR_LEN, &v.q) != 0 ||
			    v.q.rate_bps != u.q.rate_bps || v.q.streams != u.q.streams ||
			    v.q.flags != u.q.flags || v.q.len != u.q.len ||
			    v.q.has_cc != u.q.has_cc || strcmp(v.q.congestion, u.q.congestion))
				abort();
		}
		break;
	case PROTO_TEST_ACCEPT:
		if (proto_decode_test_accept(m->body, m->len, &u.a) == 0) {
			ssize_t n = proto_encode_test_accept(out, sizeof(out), &u.a);

			reencode(n, m->type);
			if ((size_t)n - PROTO_HDR_LEN != m->len)
				abort();
		}
		break;
	case PROTO_TEST_REJECT:
	case PROTO_ERROR:
		if (proto_decode_text(m->body, m->len, &u.t) == 0) {
			if (strlen(u.t.text) > PROTO_TEXT_MAX)
				abort();
			reencode(proto_encode_text(out, sizeof(out), m->type, u.t.code, u.t.text),
				 m->type);
		}
		break;
	case PROTO_START:
		if (proto_decode_start(m->body, m->len, &u.s) == 0)
			reencode(proto_encode_start(out, sizeof(out), &u.s), m->type);
		break;
	case PROTO_STOP:
		if (proto_decode_stop(m->body, m->len, &u.p) == 0)
			reencode(proto_encode_stop(out, sizeof(out), &u.p), m->type);
		break;
	case PROTO_INTERVAL:
		if (proto_decode_interval(m->body, m->len, &u.i) == 0)
			reencode(proto_encode_interval(out, sizeof(out), &u.i), m->type);
		break;
	case PROTO_RESULTS:
		if (proto_decode_results(m->body, m->len, &res) == 0) {
			ssize_t n = proto_encode_results(out, sizeof(out), &res);

			reencode(n, m->type);
			if (proto_decode_results(out + PROTO_HDR_LEN, (size_t)n - PROTO_HDR_LEN,
						 &res2) != 0 ||
			    memcmp(&res.streams, &res2.streams,
				   sizeof(res.streams[0]) * res.nstreams) != 0)
				abort();
		}
		break;
	case PROTO_HOST_FACTS:
		decode_facts(m);
		break;
	case PROTO_MTU_PROBE_REQUEST:
	case PROTO_MTU_PROBE_REPLY:
		reencode(proto_encode_opaque(out, sizeof(out), m->type, m->body, m->len), m->type);
		break;
	case PROTO_OVERLAY_REQUEST:
	case PROTO_OVERLAY_ACCEPT:
	case PROTO_OVERLAY_READY:
	case PROTO_OVERLAY_DOWN:
		decode_overlay(m);
		break;
	default:
		abort(); /* the header check lets only known types through */
	}
	(void)proto_type_name(m->type);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct proto_reader rd;
	struct proto_msg m;
	size_t off = 0, used, chunk;
	uint64_t now = 0;
	int ret;

	if (!rd.buf && proto_reader_init(&rd) != 0)
		abort();
	if (proto_parse(data, size, &m) == 0)
		decode(&m);

	/* fresh reader state per input */
	rd.have = rd.want = 0;
	rd.ready = false;
	while (off < size) {
		chunk = 1 + data[off] % 64;
		if (chunk > size - off)
			chunk = size - off;
		ret = proto_reader_push(&rd, data + off, chunk, &used, now++, &m);
		if (used > chunk)
			abort();
		off += used;
		if (ret < 0) {
			(void)proto_strerror(ret);
			break;
		}
		if (ret == 1) {
			if (m.len > PROTO_MAX_BODY)
				abort();
			decode(&m);
		}
		if (used == 0 && ret == 0)
			abort(); /* must make progress */
		(void)proto_reader_stalled(&rd, now, 5);
	}
	return 0;
}
