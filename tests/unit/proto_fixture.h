/* SPDX-License-Identifier: MIT */
/*
 * What the control protocol's unit tests share (test_proto.c: the control
 * messages, framing reader and datagram header; test_proto_load.c: the
 * messages that describe a test and carry its results): one message buffer,
 * a parser of a whole encoded message, and a RESULTS message with every
 * field filled. (static inline: a test that includes this header uses some
 * of the helpers, not all.)
 */
#ifndef PROTO_FIXTURE_H
#define PROTO_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include <cmocka.h>

#include "proto.h"

/* The buffer the tests encode into and parse from: static, so each test
 * program (one translation unit) has its own. */
static uint8_t buf[PROTO_MAX_MSG + 64];

/* Parses a whole encoded message and checks its type. */
static inline struct proto_msg parsed(ssize_t n, uint16_t type)
{
	struct proto_msg m;

	assert_true(n >= PROTO_HDR_LEN);
	assert_int_equal(proto_parse(buf, (size_t)n, &m), 0);
	assert_int_equal(m.type, type);
	assert_int_equal(m.len, (size_t)n - PROTO_HDR_LEN);
	return m;
}

static inline void fill_stream(struct proto_stream_stats *s, uint32_t id)
{
	memset(s, 0, sizeof(*s));
	s->stream_id = id;
	s->flags = PROTO_SS_OWD_VALID | PROTO_SS_GRO;
	s->bytes = 1000000ULL * id + 1;
	s->sent = 1000 + id;
	s->send_shortfall = id;
	s->send_errors = 2 * id;
	s->received = 900 + id;
	s->lost = 100;
	s->duplicates = 3;
	s->reordered = 4;
	s->late = 5;
	s->malformed = 6;
	s->jitter_ns = 12345;
	s->owd_min_ns = 10;
	s->owd_p50_ns = 20;
	s->owd_p99_ns = 30;
	s->owd_max_ns = 40;
	s->owd_mean_ns = 22;
	s->rxq_ovfl = 7;
	s->tcp_retransmits = 8;
	s->tcp_rtt_us = 9;
	s->tcp_rttvar_us = 10;
	s->tcp_snd_mss = 1448;
	s->tcp_adv_mss = 1460;
	s->tcp_rcv_mss = 1448;
	s->tcp_pmtu = 1500;
	s->tcp_snd_cwnd = 10 + id;
}

static inline struct proto_results *results_sample(uint16_t nstreams)
{
	struct proto_results *r = test_calloc(1, sizeof(*r));
	unsigned i;

	r->test_id = 77;
	r->role = PROTO_ROLE_RECEIVER;
	r->nstreams = nstreams;
	r->duration_ns = 10000000000ULL;
	r->cpu_user_ns = 1;
	r->cpu_sys_ns = 2;
	r->cpu_wall_ns = 3;
	r->rcvbuf_bytes = 8 << 20;
	r->flags = PROTO_SS_GRO;
	r->host = (struct proto_host_counters){ 1, 2, 3, 4, 5, 6, 7 };
	fill_stream(&r->total, 0xffffffffu);
	for (i = 0; i < nstreams; i++)
		fill_stream(&r->streams[i], i);
	return r;
}

#endif
