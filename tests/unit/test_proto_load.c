// SPDX-License-Identifier: MIT
/*
 * Control protocol, the messages that describe a test (src/proto/proto_load.c):
 * round trips of TEST_REQUEST (and its mapping from / to a load_spec),
 * TEST_ACCEPT with its ports, the text of TEST_REJECT and ERROR (cut at its
 * maximum, control characters neutralised), and RESULTS with 0 to
 * PROTO_MAX_STREAMS streams, the sender's local drops and the scheduling
 * byte; every byte of a stream record read by the decoder; port, stream and
 * text counts that disagree with the body they ride in. Malformed headers,
 * bodies and values of every type are in test_proto.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bytes.h"
#include "load_spec.h"
#include "proto.h"
#include "proto_fixture.h"

static void assert_req_equal(const struct proto_test_request *a, const struct proto_test_request *b)
{
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->dscp, b->dscp);
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(a->streams, b->streams);
	assert_int_equal(a->data_port, b->data_port);
	assert_int_equal(a->len, b->len);
	assert_int_equal(a->mss, b->mss);
	assert_int_equal(a->sock_buf, b->sock_buf);
	assert_int_equal(a->duration_ns, b->duration_ns);
	assert_int_equal(a->omit_ns, b->omit_ns);
	assert_int_equal(a->interval_ns, b->interval_ns);
	assert_int_equal(a->rate_bps, b->rate_bps);
}

static void test_roundtrip_request_and_spec(void **state)
{
	struct proto_test_request q = {
		.kind = PROTO_KIND_UDP, .dscp = 46, .flags = PROTO_REQ_REVERSE | PROTO_REQ_UDP_GSO,
		.streams = 128, .data_port = 5212, .len = 1400, .mss = 1348, .sock_buf = 4 << 20,
		.duration_ns = 10000000000ULL, .omit_ns = 1000000000ULL, .interval_ns = 1000000000ULL,
		.rate_bps = 2000000000ULL,
	}, q2;
	struct load_spec spec = { 0 }, spec2 = { 0 };
	struct proto_msg m;

	(void)state;
	m = parsed(proto_encode_test_request(buf, sizeof(buf), &q), PROTO_TEST_REQUEST);
	assert_int_equal(m.len, PROTO_TEST_REQUEST_LEN);
	assert_int_equal(proto_decode_test_request(m.body, m.len, &q2), 0);
	assert_req_equal(&q, &q2);

	proto_test_request_to_spec(&q2, &spec);
	assert_int_equal(spec.proto, LOAD_UDP);
	assert_true(spec.reverse);
	assert_true(spec.udp_gso);
	assert_false(spec.udp_gro);
	assert_int_equal(spec.streams, 128);
	assert_int_equal(spec.rate_bps, 2000000000ULL);
	assert_int_equal(proto_test_request_from_spec(&spec, &q2), 0);
	q.data_port = 0; /* not part of a spec */
	assert_req_equal(&q, &q2);
	spec2 = spec;
	spec2.streams = 129;
	assert_int_equal(proto_test_request_from_spec(&spec2, &q2), PROTO_E_VALUE);
	spec2 = spec;
	spec2.len = LOAD_UDP_SHORT_MIN_LEN - 1;
	assert_int_equal(proto_test_request_from_spec(&spec2, &q2), PROTO_E_VALUE);
	/* below the full header: the request asks for the short one */
	spec2.len = 18;
	assert_int_equal(proto_test_request_from_spec(&spec2, &q2), 0);
	assert_true(q2.flags & PROTO_REQ_DGRAM_SHORT);
	spec2.len = LOAD_UDP_MIN_LEN;
	assert_int_equal(proto_test_request_from_spec(&spec2, &q2), 0);
	assert_false(q2.flags & PROTO_REQ_DGRAM_SHORT);
}

static void test_roundtrip_accept_and_text(void **state)
{
	struct proto_test_accept a = { .test_id = 42,
				       .max_duration_ns = 60000000000ULL,
				       .max_rate_bps = 10000000000ULL,
				       .max_streams = 128,
				       .nports = 3,
				       .ports = { 5212, 5213, 5214 } },
				 a2;
	struct proto_text t;
	char longtext[PROTO_TEXT_MAX + 50];
	struct proto_msg m;

	(void)state;
	memset(a.cookie, 0x5c, sizeof(a.cookie));
	m = parsed(proto_encode_test_accept(buf, sizeof(buf), &a), PROTO_TEST_ACCEPT);
	assert_int_equal(m.len, PROTO_TEST_ACCEPT_FIXED_LEN + 6);
	assert_int_equal(proto_decode_test_accept(m.body, m.len, &a2), 0);
	assert_int_equal(a2.nports, 3);
	assert_memory_equal(a.ports, a2.ports, 3 * sizeof(a.ports[0]));
	assert_memory_equal(a.cookie, a2.cookie, PROTO_COOKIE_LEN);
	assert_int_equal(a2.max_rate_bps, a.max_rate_bps);

	m = parsed(proto_encode_text(buf, sizeof(buf), PROTO_TEST_REJECT, PROTO_R_LIMIT_RATE,
				     "rate 40 Gbit/s above the limit of 10 Gbit/s"),
		   PROTO_TEST_REJECT);
	assert_int_equal(proto_decode_text(m.body, m.len, &t), 0);
	assert_int_equal(t.code, PROTO_R_LIMIT_RATE);
	assert_string_equal(t.text, "rate 40 Gbit/s above the limit of 10 Gbit/s");

	/* too long: cut at PROTO_TEXT_MAX */
	memset(longtext, 'x', sizeof(longtext) - 1);
	longtext[sizeof(longtext) - 1] = '\0';
	m = parsed(proto_encode_text(buf, sizeof(buf), PROTO_ERROR, PROTO_R_INTERNAL, longtext),
		   PROTO_ERROR);
	assert_int_equal(proto_decode_text(m.body, m.len, &t), 0);
	assert_int_equal(strlen(t.text), PROTO_TEXT_MAX);

	/* control characters from the peer are neutralised for logs */
	m = parsed(proto_encode_text(buf, sizeof(buf), PROTO_ERROR, 1, "a\033[2Jb\nc"),
		   PROTO_ERROR);
	assert_int_equal(proto_decode_text(m.body, m.len, &t), 0);
	assert_string_equal(t.text, "a?[2Jb?c");
	/* empty text */
	m = parsed(proto_encode_text(buf, sizeof(buf), PROTO_ERROR, 1, NULL), PROTO_ERROR);
	assert_int_equal(proto_decode_text(m.body, m.len, &t), 0);
	assert_string_equal(t.text, "");
	assert_int_equal(proto_encode_text(buf, sizeof(buf), PROTO_START, 1, "x"), PROTO_E_VALUE);
}

static void test_roundtrip_results(void **state)
{
	static const uint16_t counts[] = { 0, 1, 2, PROTO_MAX_STREAMS };
	struct proto_results *r2 = test_calloc(1, sizeof(*r2));
	struct proto_msg m;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		struct proto_results *r = results_sample(counts[i]);

		m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
		assert_int_equal(m.len,
				 PROTO_RESULTS_FIXED_LEN + counts[i] * PROTO_STREAM_STATS_LEN);
		memset(r2, 0, sizeof(*r2));
		assert_int_equal(proto_decode_results(m.body, m.len, r2), 0);
		assert_memory_equal(r, r2, sizeof(*r));
		test_free(r);
	}
	test_free(r2);
}

/* The sender's local drops ride after the streams when asked for; their
 * text fields come back NUL-terminated and printable. */
static void test_roundtrip_local_drops(void **state)
{
	struct proto_results *r = results_sample(2), *r2 = test_calloc(1, sizeof(*r2));
	struct proto_msg m;

	(void)state;
	r->role = PROTO_ROLE_SENDER;
	r->has_local_drops = true;
	r->local = (struct proto_local_drops){ .flags = PROTO_LD_QDISC_READ,
					       .txqlen = 1000,
					       .qdisc_drops = 1,
					       .refused_msgs = 2,
					       .refused_dgrams = 3,
					       .hidden_msgs = 4,
					       .hidden_dgrams = 5,
					       .sndbuf_unseen = 6,
					       .qdisc_units = 7,
					       .other_units = 8,
					       .tunnel_drops = 9,
					       .qdisc_kind = "tbf",
					       .qdisc_if = "ovp0" };
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(m.len, PROTO_RESULTS_FIXED_LEN + 2 * PROTO_STREAM_STATS_LEN +
					PROTO_LOCAL_DROPS_LEN);
	assert_int_equal(proto_decode_results(m.body, m.len, r2), 0);
	assert_memory_equal(r, r2, sizeof(*r));
	/* a length between the two forms is refused */
	assert_int_equal(proto_decode_results(m.body, m.len - 1, r2), PROTO_E_LENGTH);
	/* an unknown flag is refused */
	buf[PROTO_HDR_LEN + m.len - PROTO_LOCAL_DROPS_LEN + 3] |= 0x80;
	assert_int_equal(proto_decode_results(m.body, m.len, r2), PROTO_E_VALUE);
	test_free(r);
	test_free(r2);
}

/* The receiver's socket drops: a tail of their own, alone or after the
 * other two (every mix of lengths differs), more datagrams than were lost
 * refused. */
static void test_roundtrip_sock_drops(void **state)
{
	const size_t base = PROTO_RESULTS_FIXED_LEN + 2 * PROTO_STREAM_STATS_LEN;
	struct proto_results *r = results_sample(2), *r2 = test_calloc(1, sizeof(*r2));
	struct proto_msg m;

	(void)state;
	r->has_sock_drops = true;
	r->sock_drops = (struct proto_sock_drops){ .dgrams = r->total.lost, .skbs = 1 };
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(m.len, base + PROTO_SOCK_DROPS_LEN);
	assert_int_equal(proto_decode_results(m.body, m.len, r2), 0);
	assert_true(r2->has_sock_drops);
	assert_false(r2->has_rx_wait || r2->has_local_drops);
	assert_memory_equal(r, r2, sizeof(*r));
	r->has_local_drops = r->has_rx_wait = true;
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(m.len,
			 base + PROTO_LOCAL_DROPS_LEN + PROTO_RX_WAIT_LEN + PROTO_SOCK_DROPS_LEN);
	memset(r2, 0, sizeof(*r2));
	assert_int_equal(proto_decode_results(m.body, m.len, r2), 0);
	assert_true(r2->has_sock_drops && r2->has_rx_wait && r2->has_local_drops);
	assert_memory_equal(r, r2, sizeof(*r));
	/* more datagrams than the receiver lost */
	r->sock_drops.dgrams = r->total.lost + 1;
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(proto_decode_results(m.body, m.len, r2), PROTO_E_VALUE);
	test_free(r);
	test_free(r2);
}

/* The receiving host's other socket that dropped most rides last, alone
 * or after every other tail; every mix of tails and stream counts has a
 * length of its own; a bad family, unknown flags or more drops than all
 * other sockets had are refused. */
static void test_roundtrip_sock_owner(void **state)
{
	struct proto_results *r = results_sample(2), *r2 = test_calloc(1, sizeof(*r2));
	struct proto_msg m;
	size_t lens[16 * 3];
	unsigned nl = 0;

	(void)state;
	r->has_sock_owner = true;
	r->sock_owner = (struct proto_sock_owner){ .pid = 4242,
						   .port = 51820,
						   .family = 4,
						   .drops = 1234,
						   .others = 1300,
						   .comm = "wireguard-go",
						   .inode = 98765 };
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(m.len, PROTO_RESULTS_FIXED_LEN + 2 * PROTO_STREAM_STATS_LEN +
					PROTO_SOCK_OWNER_LEN);
	assert_int_equal(proto_decode_results(m.body, m.len, r2), 0);
	assert_true(r2->has_sock_owner);
	assert_false(r2->has_sock_drops || r2->has_rx_wait || r2->has_local_drops);
	assert_memory_equal(r, r2, sizeof(*r));
	r->has_local_drops = r->has_rx_wait = r->has_sock_drops = true;
	r->sock_drops = (struct proto_sock_drops){ .dgrams = r->total.lost, .skbs = 1 };
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	memset(r2, 0, sizeof(*r2));
	assert_int_equal(proto_decode_results(m.body, m.len, r2), 0);
	assert_memory_equal(r, r2, sizeof(*r));
	/* 1, 2 and 3 streams with every mix of tails: no two lengths meet */
	for (unsigned ns = 1; ns <= 3; ns++)
		for (unsigned mix = 0; mix < 16; mix++) {
			size_t len = PROTO_RESULTS_FIXED_LEN + ns * PROTO_STREAM_STATS_LEN +
				     (mix & 1 ? PROTO_LOCAL_DROPS_LEN : 0) +
				     (mix & 2 ? PROTO_RX_WAIT_LEN : 0) +
				     (mix & 4 ? PROTO_SOCK_DROPS_LEN : 0) +
				     (mix & 8 ? PROTO_SOCK_OWNER_LEN : 0);

			for (unsigned i = 0; i < nl; i++)
				assert_true(lens[i] != len);
			lens[nl++] = len;
		}
	r->sock_owner.family = 5;
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(proto_decode_results(m.body, m.len, r2), PROTO_E_VALUE);
	r->sock_owner.family = 6;
	r->sock_owner.drops = r->sock_owner.others + 1;
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(proto_decode_results(m.body, m.len, r2), PROTO_E_VALUE);
	test_free(r);
	test_free(r2);
}

/* A TCP end's limits ride last, alone or after every other tail; every
 * mix of the five tails and 1..PROTO_MAX_STREAMS streams has a length of
 * its own; stalls longer than the busy time, more resent than sent and
 * unknown flags are refused. */
static void test_roundtrip_tcp_limits(void **state)
{
	struct proto_results *r = results_sample(2), *r2 = test_calloc(1, sizeof(*r2));
	size_t lens[32];
	struct proto_msg m;

	(void)state;
	r->has_tcp_limits = true;
	r->tcp_limits = (struct proto_tcp_limits){ .flags = PROTO_TL_CHRONO | PROTO_TL_SYSCTL,
						   .streams = 2,
						   .window_us = 6000000,
						   .busy_us = 5900000,
						   .rwnd_limited_us = 2000000,
						   .sndbuf_limited_us = 100000,
						   .bytes_sent = 50000000,
						   .bytes_retrans = 1000,
						   .delivery_Bps = 8000000,
						   .app_limited_streams = 1,
						   .min_rtt_us = 20015,
						   .snd_wnd = 324864,
						   .sock_sndbuf = 5184000,
						   .sock_rcvbuf = 262144,
						   .tcp_rmem_max = 262144,
						   .tcp_wmem_max = 4194304,
						   .rmem_max = 212992,
						   .wmem_max = 212992,
						   .thread_cpu_permille = 990,
						   .rcv_space = 163880 };
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(m.len, PROTO_RESULTS_FIXED_LEN + 2 * PROTO_STREAM_STATS_LEN +
					PROTO_TCP_LIMITS_LEN);
	assert_int_equal(proto_decode_results(m.body, m.len, r2), 0);
	assert_true(r2->has_tcp_limits);
	assert_false(r2->has_sock_owner || r2->has_sock_drops || r2->has_rx_wait);
	assert_memory_equal(r, r2, sizeof(*r));
	r->has_local_drops = r->has_rx_wait = r->has_sock_drops = r->has_sock_owner = true;
	r->sock_drops = (struct proto_sock_drops){ .dgrams = r->total.lost, .skbs = 1 };
	r->sock_owner = (struct proto_sock_owner){ .family = 6, .drops = 1, .others = 2 };
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	memset(r2, 0, sizeof(*r2));
	assert_int_equal(proto_decode_results(m.body, m.len, r2), 0);
	assert_memory_equal(r, r2, sizeof(*r));
	/* the mixes differ modulo a stream's length: whatever the stream
	 * count, a RESULTS length names one mix */
	for (unsigned mix = 0; mix < 32; mix++) {
		lens[mix] = (mix & 1 ? PROTO_LOCAL_DROPS_LEN : 0) +
			    (mix & 2 ? PROTO_RX_WAIT_LEN : 0) +
			    (mix & 4 ? PROTO_SOCK_DROPS_LEN : 0) +
			    (mix & 8 ? PROTO_SOCK_OWNER_LEN : 0) +
			    (mix & 16 ? PROTO_TCP_LIMITS_LEN : 0);
		for (unsigned i = 0; i < mix; i++)
			assert_true(lens[i] % PROTO_STREAM_STATS_LEN !=
				    lens[mix] % PROTO_STREAM_STATS_LEN);
	}
	r->tcp_limits.rwnd_limited_us = r->tcp_limits.busy_us + 1;
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(proto_decode_results(m.body, m.len, r2), PROTO_E_VALUE);
	r->tcp_limits.rwnd_limited_us = 0;
	r->tcp_limits.bytes_retrans = r->tcp_limits.bytes_sent + 1;
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(proto_decode_results(m.body, m.len, r2), PROTO_E_VALUE);
	r->tcp_limits.bytes_retrans = 0;
	r->tcp_limits.flags |= 1u << 7;
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(proto_decode_results(m.body, m.len, r2), PROTO_E_VALUE);
	test_free(r);
	test_free(r2);
}

/* The receiver's socket wait rides last, alone or after the local drops:
 * the four lengths tell the tails apart; disordered figures, unknown flags
 * and figures without samples are refused. */
static void test_roundtrip_rx_wait(void **state)
{
	const size_t base = PROTO_RESULTS_FIXED_LEN + 2 * PROTO_STREAM_STATS_LEN;
	struct proto_results *r = results_sample(2), *r2 = test_calloc(1, sizeof(*r2));
	const struct proto_rx_wait w = { .samples = 1000,
					 .min_ns = 5000,
					 .p50_ns = 13000,
					 .p99_ns = 39000,
					 .max_ns = 241000,
					 .mean_ns = 14000 };
	struct proto_msg m;
	uint8_t *tail;

	(void)state;
	r->has_rx_wait = true;
	r->rx_wait = w;
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(m.len, base + PROTO_RX_WAIT_LEN);
	assert_int_equal(proto_decode_results(m.body, m.len, r2), 0);
	assert_true(r2->has_rx_wait);
	assert_false(r2->has_local_drops);
	assert_memory_equal(r, r2, sizeof(*r));
	/* both tails */
	r->has_local_drops = true;
	r->local = (struct proto_local_drops){ .flags = PROTO_LD_TUNNEL_READ, .tunnel_drops = 3 };
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(m.len, base + PROTO_LOCAL_DROPS_LEN + PROTO_RX_WAIT_LEN);
	memset(r2, 0, sizeof(*r2));
	assert_int_equal(proto_decode_results(m.body, m.len, r2), 0);
	assert_true(r2->has_rx_wait && r2->has_local_drops);
	assert_memory_equal(r, r2, sizeof(*r));
	/* neither (a server that predates it): no wait, no error */
	assert_int_equal(proto_decode_results(m.body, base, r2), 0);
	assert_false(r2->has_rx_wait);
	assert_int_equal(proto_decode_results(m.body, base + PROTO_RX_WAIT_LEN - 1, r2),
			 PROTO_E_LENGTH);
	/* the wait's fields, as the tail's 8-byte words after flags/reserved */
	tail = buf + PROTO_HDR_LEN + m.len - PROTO_RX_WAIT_LEN;
	assert_int_equal(get_be64(tail + 8), w.samples);
	assert_int_equal(get_be64(tail + 24), w.p50_ns);
	put_be64(tail + 24, w.p99_ns + 1); /* p50 above p99 */
	assert_int_equal(proto_decode_results(m.body, m.len, r2), PROTO_E_VALUE);
	put_be64(tail + 24, w.p50_ns);
	tail[3] = 1; /* an unknown flag */
	assert_int_equal(proto_decode_results(m.body, m.len, r2), PROTO_E_VALUE);
	tail[3] = 0;
	put_be64(tail + 8, 0); /* figures without samples */
	assert_int_equal(proto_decode_results(m.body, m.len, r2), PROTO_E_VALUE);
	put_be64(tail + 8, w.samples);
	assert_int_equal(proto_decode_results(m.body, m.len, r2), 0);
	test_free(r);
	test_free(r2);
}

/* Every field of a stream record lands where the decoder reads it: encode
 * a record with a distinct byte pattern per field and compare. */
static void test_results_field_positions(void **state)
{
	struct proto_results *r = results_sample(1), *r2 = test_calloc(1, sizeof(*r2));
	struct proto_msg m;
	uint8_t *p;
	size_t k;

	(void)state;
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	/* flip each byte of the per-stream record in turn: decoding must see a
	 * difference (no byte is ignored) or reject the value */
	p = (uint8_t *)m.body + PROTO_RESULTS_FIXED_LEN;
	for (k = 0; k < PROTO_STREAM_STATS_LEN; k++) {
		int ret;

		p[k] ^= 0x01;
		ret = proto_decode_results(m.body, m.len, r2);
		assert_true(ret == PROTO_E_VALUE || (ret == 0 && memcmp(r, r2, sizeof(*r)) != 0));
		p[k] ^= 0x01;
	}
	test_free(r);
	test_free(r2);
}

/* The scheduling byte travels with its flag; a priority past sched(7)'s
 * 1..99 is refused. */
static void test_results_sched(void **state)
{
	struct proto_results *r = results_sample(1), *r2 = test_calloc(1, sizeof(*r2));
	struct proto_msg m;

	(void)state;
	r->flags |= PROTO_RES_SCHED;
	r->sched_prio = 1;
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(proto_decode_results(m.body, m.len, r2), 0);
	assert_int_equal(r2->sched_prio, 1);
	assert_true(r2->flags & PROTO_RES_SCHED);
	r->sched_prio = 100;
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(proto_decode_results(m.body, m.len, r2), PROTO_E_VALUE);
	test_free(r);
	test_free(r2);
}

static void test_counts_that_lie(void **state)
{
	struct proto_test_accept a = { .test_id = 1, .nports = 2, .ports = { 1000, 1001 } };
	struct proto_results *r = results_sample(2), *r2 = test_calloc(1, sizeof(*r2));
	struct proto_text t;
	struct proto_msg m;
	uint8_t *body;

	(void)state;
	/* TEST_ACCEPT says 3 ports, carries 2 */
	m = parsed(proto_encode_test_accept(buf, sizeof(buf), &a), PROTO_TEST_ACCEPT);
	body = buf + PROTO_HDR_LEN;
	put_be16(body + 38, 3);
	assert_int_equal(proto_decode_test_accept(body, m.len, &a), PROTO_E_LENGTH);
	put_be16(body + 38, 1); /* says 1, carries 2 */
	assert_int_equal(proto_decode_test_accept(body, m.len, &a), PROTO_E_LENGTH);
	put_be16(body + 38, 0);
	assert_int_equal(proto_decode_test_accept(body, m.len, &a), PROTO_E_VALUE);
	put_be16(body + 38, 0xffff);
	assert_int_equal(proto_decode_test_accept(body, m.len, &a), PROTO_E_VALUE);
	put_be16(body + 38, 2);
	put_be16(body + 40, 0); /* port 0 */
	assert_int_equal(proto_decode_test_accept(body, m.len, &a), PROTO_E_VALUE);

	/* RESULTS says 3 streams, carries 2; says 200 */
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	put_be16(body + 6, 3);
	assert_int_equal(proto_decode_results(body, m.len, r2), PROTO_E_LENGTH);
	put_be16(body + 6, 1);
	assert_int_equal(proto_decode_results(body, m.len, r2), PROTO_E_LENGTH);
	put_be16(body + 6, PROTO_MAX_STREAMS + 1);
	assert_int_equal(proto_decode_results(body, m.len, r2), PROTO_E_VALUE);
	put_be16(body + 6, 2);
	assert_int_equal(proto_decode_results(body, m.len, r2), 0);
	assert_int_equal(proto_decode_results(body, m.len - 1, r2), PROTO_E_LENGTH);
	body[4] = 3; /* role */
	assert_int_equal(proto_decode_results(body, m.len, r2), PROTO_E_VALUE);

	/* text length beyond the body, or beyond the maximum */
	m = parsed(proto_encode_text(buf, sizeof(buf), PROTO_ERROR, 1, "abc"), PROTO_ERROR);
	put_be16(body + 2, 4);
	assert_int_equal(proto_decode_text(body, m.len, &t), PROTO_E_LENGTH);
	put_be16(body + 2, 2);
	assert_int_equal(proto_decode_text(body, m.len, &t), PROTO_E_LENGTH);
	put_be16(body + 2, PROTO_TEXT_MAX + 1);
	assert_int_equal(proto_decode_text(body, m.len, &t), PROTO_E_VALUE);
	test_free(r);
	test_free(r2);
}

/* The congestion control extension of TEST_REQUEST and TEST_ACCEPT:
 * present or absent by length, nothing in between; the name NUL-padded,
 * of tcp(7)'s characters. */
static void test_congestion_extension(void **state)
{
	struct proto_test_request q = { .kind = PROTO_KIND_TCP,
					.streams = 1,
					.duration_ns = 1000000000ULL,
					.has_cc = true,
					.congestion = "reno" },
				  q2;
	struct proto_test_accept a = { .test_id = 7,
				       .nports = 1,
				       .ports = { 5211 },
				       .has_cc = true,
				       .congestion = "cubic" },
				 a2;
	struct load_spec spec = { .proto = LOAD_TCP, .streams = 1, .duration_ns = 1 };
	uint8_t *body = buf + PROTO_HDR_LEN;
	struct proto_msg m;

	(void)state;
	m = parsed(proto_encode_test_request(buf, sizeof(buf), &q), PROTO_TEST_REQUEST);
	assert_int_equal(m.len, PROTO_TEST_REQUEST_LEN + PROTO_CC_NAME_LEN);
	assert_int_equal(proto_decode_test_request(body, m.len, &q2), 0);
	assert_true(q2.has_cc);
	assert_string_equal(q2.congestion, "reno");
	/* without it: the old length, as an older peer sends */
	assert_int_equal(proto_decode_test_request(body, PROTO_TEST_REQUEST_LEN, &q2), 0);
	assert_false(q2.has_cc);
	assert_string_equal(q2.congestion, "");
	assert_int_equal(proto_decode_test_request(body, m.len - 1, &q2), PROTO_E_LENGTH);
	body[PROTO_TEST_REQUEST_LEN + 5] = 'x'; /* a byte after the name's NUL */
	assert_int_equal(proto_decode_test_request(body, m.len, &q2), PROTO_E_VALUE);
	memset(body + PROTO_TEST_REQUEST_LEN, 'a', PROTO_CC_NAME_LEN); /* no NUL */
	assert_int_equal(proto_decode_test_request(body, m.len, &q2), PROTO_E_VALUE);
	memcpy(body + PROTO_TEST_REQUEST_LEN, "re/no\0\0\0\0\0\0\0\0\0\0", PROTO_CC_NAME_LEN);
	assert_int_equal(proto_decode_test_request(body, m.len, &q2), PROTO_E_VALUE);
	snprintf(q.congestion, sizeof(q.congestion), "a b");
	assert_int_equal(proto_encode_test_request(buf, sizeof(buf), &q), PROTO_E_VALUE);

	/* from a spec: the extension rides only with a name */
	assert_int_equal(proto_test_request_from_spec(&spec, &q2), 0);
	assert_false(q2.has_cc);
	snprintf(spec.congestion, sizeof(spec.congestion), "bbr");
	assert_int_equal(proto_test_request_from_spec(&spec, &q2), 0);
	assert_true(q2.has_cc);
	memset(&spec, 0, sizeof(spec));
	proto_test_request_to_spec(&q2, &spec);
	assert_string_equal(spec.congestion, "bbr");

	m = parsed(proto_encode_test_accept(buf, sizeof(buf), &a), PROTO_TEST_ACCEPT);
	assert_int_equal(m.len, PROTO_TEST_ACCEPT_FIXED_LEN + 2 + PROTO_CC_NAME_LEN);
	assert_int_equal(proto_decode_test_accept(body, m.len, &a2), 0);
	assert_true(a2.has_cc);
	assert_string_equal(a2.congestion, "cubic");
	assert_int_equal(a2.ports[0], 5211);
	assert_int_equal(proto_decode_test_accept(body, m.len - PROTO_CC_NAME_LEN, &a2), 0);
	assert_false(a2.has_cc);
	assert_int_equal(proto_decode_test_accept(body, m.len - 1, &a2), PROTO_E_LENGTH);
	assert_int_equal(proto_decode_test_accept(body, m.len + 1, &a2), PROTO_E_LENGTH);
	body[PROTO_TEST_ACCEPT_FIXED_LEN + 2] = '\x01';
	assert_int_equal(proto_decode_test_accept(body, m.len, &a2), PROTO_E_VALUE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_request_and_spec),
		cmocka_unit_test(test_roundtrip_accept_and_text),
		cmocka_unit_test(test_roundtrip_results),
		cmocka_unit_test(test_roundtrip_local_drops),
		cmocka_unit_test(test_roundtrip_rx_wait),
		cmocka_unit_test(test_roundtrip_sock_drops),
		cmocka_unit_test(test_roundtrip_sock_owner),
		cmocka_unit_test(test_roundtrip_tcp_limits),
		cmocka_unit_test(test_results_field_positions),
		cmocka_unit_test(test_results_sched),
		cmocka_unit_test(test_counts_that_lie),
		cmocka_unit_test(test_congestion_extension),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
