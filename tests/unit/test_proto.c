// SPDX-License-Identifier: MIT
/*
 * Control protocol: encode/decode round trips of the control messages
 * (HELLO, AUTH_*, START, STOP, INTERVAL), the header's wire layout, every
 * malformed case (truncated, oversized, wrong magic/version/type, fields out
 * of range, fixed-size bodies of the wrong length, encoders given too little
 * room), the framing reader on byte-wise input, on a non-blocking socket and
 * against a stalled sender, the UDP datagram header, the data connection
 * greeting and the names of types and errors. The malformed cases span every
 * message type; the round trips of TEST_REQUEST, TEST_ACCEPT, the texts and
 * RESULTS, and counts that disagree with their body, are in
 * test_proto_load.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "bytes.h"
#include "proto.h"
#include "proto_fixture.h"

static void test_roundtrip_small(void **state)
{
	struct proto_hello h = { .version = PROTO_VERSION, .caps = 0x7f }, h2;
	struct proto_auth_challenge c, c2;
	struct proto_auth_response r, r2;
	struct proto_auth_ok ok, ok2;
	struct proto_start st = { .test_id = 0xdeadbeef }, st2;
	struct proto_stop sp = { .test_id = 7,
				 .reason = PROTO_STOP_INTERRUPTED,
				 .elapsed_ns = 12345678901ULL },
			  sp2;
	struct proto_interval iv = { .test_id = 9,
				     .index = 3,
				     .start_ns = 1,
				     .end_ns = 2000000000ULL,
				     .bytes = 1ULL << 40,
				     .packets = 99,
				     .lost = 5,
				     .retransmits = 17 },
			      iv2;
	struct proto_msg m;

	(void)state;
	strcpy(h.software, "ovlperf 0.1.0");
	m = parsed(proto_encode_hello(buf, sizeof(buf), &h), PROTO_HELLO);
	assert_int_equal(m.len, PROTO_HELLO_LEN);
	assert_int_equal(proto_decode_hello(m.body, m.len, &h2), 0);
	assert_int_equal(h2.version, PROTO_VERSION);
	assert_int_equal(h2.caps, 0x7f);
	assert_string_equal(h2.software, "ovlperf 0.1.0");

	memset(c.server_nonce, 0xa5, sizeof(c.server_nonce));
	m = parsed(proto_encode_auth_challenge(buf, sizeof(buf), &c), PROTO_AUTH_CHALLENGE);
	assert_int_equal(proto_decode_auth_challenge(m.body, m.len, &c2), 0);
	assert_memory_equal(c.server_nonce, c2.server_nonce, PROTO_NONCE_LEN);

	memset(r.client_nonce, 0x11, sizeof(r.client_nonce));
	memset(r.mac, 0x22, sizeof(r.mac));
	m = parsed(proto_encode_auth_response(buf, sizeof(buf), &r), PROTO_AUTH_RESPONSE);
	assert_int_equal(proto_decode_auth_response(m.body, m.len, &r2), 0);
	assert_memory_equal(&r, &r2, sizeof(r));

	memset(ok.mac, 0x33, sizeof(ok.mac));
	m = parsed(proto_encode_auth_ok(buf, sizeof(buf), &ok), PROTO_AUTH_OK);
	assert_int_equal(proto_decode_auth_ok(m.body, m.len, &ok2), 0);
	assert_memory_equal(&ok, &ok2, sizeof(ok));

	m = parsed(proto_encode_start(buf, sizeof(buf), &st), PROTO_START);
	assert_int_equal(proto_decode_start(m.body, m.len, &st2), 0);
	assert_int_equal(st2.test_id, 0xdeadbeef);

	m = parsed(proto_encode_stop(buf, sizeof(buf), &sp), PROTO_STOP);
	assert_int_equal(proto_decode_stop(m.body, m.len, &sp2), 0);
	assert_int_equal(sp2.test_id, 7);
	assert_int_equal(sp2.reason, PROTO_STOP_INTERRUPTED);
	assert_int_equal(sp2.elapsed_ns, 12345678901ULL);

	m = parsed(proto_encode_interval(buf, sizeof(buf), &iv), PROTO_INTERVAL);
	assert_int_equal(proto_decode_interval(m.body, m.len, &iv2), 0);
	assert_memory_equal(&iv, &iv2, sizeof(iv));
}

/* Byte order is big-endian on the wire, whatever the host. */
static void test_wire_layout(void **state)
{
	struct proto_start st = { .test_id = 0x01020304 };
	ssize_t n;

	(void)state;
	n = proto_encode_start(buf, sizeof(buf), &st);
	assert_int_equal(n, PROTO_HDR_LEN + PROTO_START_LEN);
	static const uint8_t want[] = { 'O', 'V',
					'L', 'C',
					0,   PROTO_VERSION,
					0,   PROTO_START,
					0,   0,
					0,   PROTO_START_LEN,
					1,   2,
					3,   4,
					0,   0,
					0,   0 };
	assert_memory_equal(buf, want, sizeof(want));
}

/* ---- malformed -------------------------------------------------------- */

static void test_header_errors(void **state)
{
	struct proto_start st = { 1 };
	struct proto_hdr h;
	struct proto_msg m;
	ssize_t n;

	(void)state;
	n = proto_encode_start(buf, sizeof(buf), &st);
	assert_int_equal(proto_decode_hdr(buf, 11, &h), PROTO_E_TRUNCATED);
	assert_int_equal(proto_parse(buf, (size_t)n - 1, &m), PROTO_E_TRUNCATED);
	assert_int_equal(proto_parse(buf, (size_t)n + 1, &m), PROTO_E_LENGTH);
	buf[0] = 'X';
	assert_int_equal(proto_parse(buf, (size_t)n, &m), PROTO_E_MAGIC);
	buf[0] = 'O';
	put_be16(buf + 4, PROTO_VERSION + 1);
	assert_int_equal(proto_parse(buf, (size_t)n, &m), PROTO_E_VERSION);
	put_be16(buf + 4, PROTO_VERSION);
	put_be16(buf + 6, 0);
	assert_int_equal(proto_parse(buf, (size_t)n, &m), PROTO_E_TYPE);
	put_be16(buf + 6, PROTO_TYPE_MAX + 1);
	assert_int_equal(proto_parse(buf, (size_t)n, &m), PROTO_E_TYPE);
	put_be16(buf + 6, 0xffff);
	assert_int_equal(proto_parse(buf, (size_t)n, &m), PROTO_E_TYPE);
	put_be16(buf + 6, PROTO_START);
	put_be32(buf + 8, PROTO_MAX_BODY + 1);
	assert_int_equal(proto_decode_hdr(buf, PROTO_HDR_LEN, &h), PROTO_E_TOOBIG);
	put_be32(buf + 8, 0xffffffffu);
	assert_int_equal(proto_decode_hdr(buf, PROTO_HDR_LEN, &h), PROTO_E_TOOBIG);
	put_be32(buf + 8, PROTO_MAX_BODY);
	assert_int_equal(proto_decode_hdr(buf, PROTO_HDR_LEN, &h), 0);
}

typedef int (*decode_fn)(const uint8_t *body, size_t len, void *out);

/* Each fixed-size body one byte short and one byte long, and empty. */
static void test_fixed_lengths(void **state)
{
	static union {
		struct proto_hello h;
		struct proto_auth_challenge c;
		struct proto_auth_response r;
		struct proto_auth_ok o;
		struct proto_test_request q;
		struct proto_start s;
		struct proto_stop p;
		struct proto_interval i;
	} out;
	static uint8_t body[256];
	const struct {
		decode_fn fn;
		size_t len;
	} cases[] = {
		{ (decode_fn)proto_decode_hello, PROTO_HELLO_LEN },
		{ (decode_fn)proto_decode_auth_challenge, PROTO_AUTH_CHALLENGE_LEN },
		{ (decode_fn)proto_decode_auth_response, PROTO_AUTH_RESPONSE_LEN },
		{ (decode_fn)proto_decode_auth_ok, PROTO_AUTH_OK_LEN },
		{ (decode_fn)proto_decode_test_request, PROTO_TEST_REQUEST_LEN },
		{ (decode_fn)proto_decode_start, PROTO_START_LEN },
		{ (decode_fn)proto_decode_stop, PROTO_STOP_LEN },
		{ (decode_fn)proto_decode_interval, PROTO_INTERVAL_LEN },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(cases[i].fn(body, cases[i].len - 1, &out), PROTO_E_LENGTH);
		assert_int_equal(cases[i].fn(body, cases[i].len + 1, &out), PROTO_E_LENGTH);
		assert_int_equal(cases[i].fn(body, 0, &out), PROTO_E_LENGTH);
	}
	assert_int_equal(
		proto_decode_test_accept(body, PROTO_TEST_ACCEPT_FIXED_LEN - 1, (void *)&out),
		PROTO_E_LENGTH);
	assert_int_equal(proto_decode_text(body, PROTO_TEXT_FIXED_LEN - 1, (void *)&out),
			 PROTO_E_LENGTH);
	assert_int_equal(proto_decode_results(body, 10, (void *)&out), PROTO_E_LENGTH);
}

static void test_values_out_of_range(void **state)
{
	const struct proto_test_request good = { .kind = PROTO_KIND_TCP, .streams = 1 };
	static const struct {
		size_t off, width;
		uint64_t value;
	} bad[] = {
		{ 0, 1, 0 },			 /* kind */
		{ 0, 1, 4 },			 /* kind */
		{ 1, 1, 64 },			 /* dscp */
		{ 2, 2, 0x40 },			 /* unknown flag (0x20: DGRAM_SHORT) */
		{ 2, 2, PROTO_REQ_DGRAM_SHORT }, /* short datagrams on TCP */
		{ 4, 2, 0 },			 /* streams */
		{ 4, 2, PROTO_MAX_STREAMS + 1 }, /* streams */
	};
	struct proto_test_request q;
	struct proto_stop sp = { .reason = PROTO_STOP_DONE };
	struct proto_interval iv = { .start_ns = 5, .end_ns = 6 };
	struct proto_results *r = results_sample(1), *r2 = test_calloc(1, sizeof(*r2));
	struct proto_msg m;
	uint8_t *body = buf + PROTO_HDR_LEN;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = parsed(proto_encode_test_request(buf, sizeof(buf), &good), PROTO_TEST_REQUEST);
		if (bad[i].width == 1)
			body[bad[i].off] = (uint8_t)bad[i].value;
		else
			put_be16(body + bad[i].off, (uint16_t)bad[i].value);
		assert_int_equal(proto_decode_test_request(body, m.len, &q), PROTO_E_VALUE);
	}
	/* UDP length below the header */
	q = good;
	q.kind = PROTO_KIND_UDP;
	q.len = LOAD_UDP_SHORT_MIN_LEN - 1;
	q.flags = PROTO_REQ_DGRAM_SHORT;
	assert_int_equal(proto_encode_test_request(buf, sizeof(buf), &q), PROTO_E_VALUE);
	/* the short header is asked for exactly when the length needs it */
	q.len = LOAD_UDP_MIN_LEN - 1;
	q.flags = 0;
	assert_int_equal(proto_encode_test_request(buf, sizeof(buf), &q), PROTO_E_VALUE);
	q.flags = PROTO_REQ_DGRAM_SHORT;
	m = parsed(proto_encode_test_request(buf, sizeof(buf), &q), PROTO_TEST_REQUEST);
	assert_int_equal(proto_decode_test_request(body, m.len, &q), 0);
	assert_int_equal(q.len, LOAD_UDP_MIN_LEN - 1);
	q.len = LOAD_UDP_MIN_LEN;
	assert_int_equal(proto_encode_test_request(buf, sizeof(buf), &q), PROTO_E_VALUE);
	q.flags = 0;
	q.len = LOAD_UDP_MAX_LEN + 1;
	assert_int_equal(proto_encode_test_request(buf, sizeof(buf), &q), PROTO_E_VALUE);

	m = parsed(proto_encode_stop(buf, sizeof(buf), &sp), PROTO_STOP);
	put_be16(body + 4, PROTO_STOP_ERROR + 1);
	assert_int_equal(proto_decode_stop(body, m.len, &sp), PROTO_E_VALUE);

	m = parsed(proto_encode_interval(buf, sizeof(buf), &iv), PROTO_INTERVAL);
	put_be64(body + 8, 7); /* start after end */
	assert_int_equal(proto_decode_interval(body, m.len, &iv), PROTO_E_VALUE);

	/* percentiles out of order with OWD_VALID; unknown stream flags */
	r->streams[0].owd_p50_ns = 35;
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(proto_decode_results(body, m.len, r2), PROTO_E_VALUE);
	r->streams[0].owd_p50_ns = 20;
	r->total.flags |= 1u << 20;
	m = parsed(proto_encode_results(buf, sizeof(buf), r), PROTO_RESULTS);
	assert_int_equal(proto_decode_results(body, m.len, r2), PROTO_E_VALUE);
	test_free(r);
	test_free(r2);
}

static void test_encode_errors(void **state)
{
	struct proto_test_accept a = { .nports = 0 };
	struct proto_results *r = results_sample(PROTO_MAX_STREAMS);
	struct proto_start st = { 1 };
	uint8_t small[PROTO_HDR_LEN + PROTO_START_LEN - 1];

	(void)state;
	assert_int_equal(proto_encode_start(small, sizeof(small), &st), PROTO_E_NOSPACE);
	assert_int_equal(proto_encode_start(small, 0, &st), PROTO_E_NOSPACE);
	assert_int_equal(proto_encode_test_accept(buf, sizeof(buf), &a), PROTO_E_VALUE);
	a.nports = PROTO_MAX_STREAMS + 1;
	assert_int_equal(proto_encode_test_accept(buf, sizeof(buf), &a), PROTO_E_VALUE);
	assert_int_equal(proto_encode_results(buf, 1000, r), PROTO_E_NOSPACE);
	r->role = 0;
	assert_int_equal(proto_encode_results(buf, sizeof(buf), r), PROTO_E_VALUE);
	r->role = PROTO_ROLE_SENDER;
	r->nstreams = PROTO_MAX_STREAMS + 1;
	assert_int_equal(proto_encode_results(buf, sizeof(buf), r), PROTO_E_VALUE);
	assert_int_equal(proto_encode_opaque(buf, sizeof(buf), PROTO_MTU_PROBE_REQUEST, buf,
					     PROTO_MAX_BODY + 1),
			 PROTO_E_VALUE);
	assert_int_equal(proto_encode_opaque(buf, sizeof(buf), PROTO_HELLO, NULL, 0),
			 PROTO_E_VALUE);
	test_free(r);
}

/* ---- framing reader --------------------------------------------------- */

static void test_reader_bytewise_and_back_to_back(void **state)
{
	struct proto_reader rd;
	struct proto_start st = { 5 };
	struct proto_stop sp = { .test_id = 6 };
	struct proto_msg m;
	size_t n1, n2, i, used;
	uint8_t two[128];
	int ret;

	(void)state;
	assert_int_equal(proto_reader_init(&rd), 0);
	n1 = (size_t)proto_encode_start(two, sizeof(two), &st);
	n2 = (size_t)proto_encode_stop(two + n1, sizeof(two) - n1, &sp);
	/* one byte at a time: completes exactly at the last byte of each */
	for (i = 0; i < n1 + n2; i++) {
		ret = proto_reader_push(&rd, two + i, 1, &used, 1000 + i, &m);
		assert_int_equal(used, 1);
		if (i == n1 - 1 || i == n1 + n2 - 1) {
			assert_int_equal(ret, 1);
			assert_int_equal(m.type, i == n1 - 1 ? PROTO_START : PROTO_STOP);
			assert_false(proto_reader_partial(&rd));
		} else {
			assert_int_equal(ret, 0);
			assert_true(proto_reader_partial(&rd));
		}
	}
	/* both at once: one message per call, used says where the next starts */
	assert_int_equal(proto_reader_push(&rd, two, n1 + n2, &used, 0, &m), 1);
	assert_int_equal(used, n1);
	assert_int_equal(m.type, PROTO_START);
	assert_int_equal(proto_reader_push(&rd, two + used, n1 + n2 - used, &used, 0, &m), 1);
	assert_int_equal(used, n2);
	assert_int_equal(m.type, PROTO_STOP);
	assert_int_equal(proto_decode_stop(m.body, m.len, &sp), 0);
	assert_int_equal(sp.test_id, 6);
	/* an empty body completes with the header */
	n1 = (size_t)proto_encode_opaque(two, sizeof(two), PROTO_MTU_PROBE_REPLY, NULL, 0);
	assert_int_equal(n1, PROTO_HDR_LEN);
	assert_int_equal(proto_reader_push(&rd, two, n1, &used, 0, &m), 1);
	assert_int_equal(m.len, 0);
	proto_reader_free(&rd);
}

static void test_reader_rejects_early(void **state)
{
	struct proto_reader rd;
	struct proto_msg m;
	size_t used;
	uint8_t hdr[PROTO_HDR_LEN];
	static const char http[] = "GET / HTTP/1.1\r\n\r\n";

	(void)state;
	assert_int_equal(proto_reader_init(&rd), 0);
	/* a stranger is turned away at the header... */
	assert_int_equal(
		proto_reader_push(&rd, (const uint8_t *)http, sizeof(http) - 1, &used, 0, &m),
		PROTO_E_MAGIC);
	assert_int_equal(used, PROTO_HDR_LEN);
	proto_reader_free(&rd);
	/* ...or after 4 bytes when it sends no more */
	assert_int_equal(proto_reader_init(&rd), 0);
	assert_int_equal(proto_reader_push(&rd, (const uint8_t *)http, 3, &used, 0, &m), 0);
	assert_int_equal(proto_reader_push(&rd, (const uint8_t *)http + 3, 1, &used, 0, &m),
			 PROTO_E_MAGIC);
	proto_reader_free(&rd);

	/* an oversized length is refused from the header, before any body */
	assert_int_equal(proto_reader_init(&rd), 0);
	proto_put_hdr(hdr, PROTO_RESULTS, PROTO_MAX_BODY + 1);
	assert_int_equal(proto_reader_push(&rd, hdr, sizeof(hdr), &used, 0, &m), PROTO_E_TOOBIG);
	assert_int_equal(used, PROTO_HDR_LEN);
	proto_reader_free(&rd);

	assert_int_equal(proto_reader_init(&rd), 0);
	proto_put_hdr(hdr, 99, 0);
	assert_int_equal(proto_reader_push(&rd, hdr, sizeof(hdr), &used, 0, &m), PROTO_E_TYPE);
	proto_reader_free(&rd);
}

static void test_reader_stall(void **state)
{
	const uint64_t t0 = 7000000000ULL, timeout = 10000000000ULL;
	struct proto_reader rd;
	struct proto_start st = { 5 };
	struct proto_msg m;
	uint8_t msg[64];
	size_t n, used;

	(void)state;
	assert_int_equal(proto_reader_init(&rd), 0);
	n = (size_t)proto_encode_start(msg, sizeof(msg), &st);
	assert_false(
		proto_reader_stalled(&rd, t0 + 2 * timeout, timeout)); /* idle is not stalled */
	assert_int_equal(proto_reader_push(&rd, msg, 5, &used, t0, &m), 0);
	/* more bytes later do not restart the clock: the deadline is per message */
	assert_int_equal(proto_reader_push(&rd, msg + 5, 3, &used, t0 + timeout / 2, &m), 0);
	assert_false(proto_reader_stalled(&rd, t0 + timeout, timeout));
	assert_true(proto_reader_stalled(&rd, t0 + timeout + 1, timeout));
	assert_int_equal(proto_reader_push(&rd, msg + 8, n - 8, &used, t0 + timeout, &m), 1);
	assert_false(proto_reader_stalled(&rd, t0 + 3 * timeout, timeout));
	proto_reader_free(&rd);
}

static void test_reader_socket(void **state)
{
	struct proto_reader rd;
	struct proto_results *r = results_sample(PROTO_MAX_STREAMS);
	static uint8_t out[PROTO_MAX_MSG];
	struct proto_msg m;
	int sv[2];
	ssize_t n;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(proto_reader_init(&rd), 0);
	assert_int_equal(proto_reader_read(&rd, sv[0], 1, &m), 0); /* nothing yet */
	n = proto_encode_results(out, sizeof(out), r);
	assert_true(n > 20000);
	/* half a message: not complete, partial */
	assert_int_equal(write(sv[1], out, 1000), 1000);
	assert_int_equal(proto_reader_read(&rd, sv[0], 2, &m), 0);
	assert_true(proto_reader_partial(&rd));
	assert_int_equal(proto_write_all(sv[1], out + 1000, (size_t)n - 1000, 1000), 0);
	assert_int_equal(proto_reader_read(&rd, sv[0], 3, &m), 1);
	assert_int_equal(m.type, PROTO_RESULTS);
	assert_int_equal(m.len, (size_t)n - PROTO_HDR_LEN);
	/* then a partial header and a close: EOF inside a message */
	assert_int_equal(write(sv[1], out, 3), 3);
	close(sv[1]);
	assert_int_equal(proto_reader_read(&rd, sv[0], 4, &m), PROTO_E_EOF_PARTIAL);
	close(sv[0]);
	proto_reader_free(&rd);

	/* a clean close between messages */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(proto_reader_init(&rd), 0);
	close(sv[1]);
	assert_int_equal(proto_reader_read(&rd, sv[0], 5, &m), PROTO_E_EOF);
	close(sv[0]);
	proto_reader_free(&rd);
	test_free(r);
}

static void test_write_all_timeout(void **state)
{
	static uint8_t big[1 << 20];
	int sv[2];

	(void)state;
	/* nobody reads: a non-blocking writer gives up at its deadline */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(fcntl(sv[1], F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(proto_write_all(sv[1], big, sizeof(big), 50), -ETIMEDOUT);
	close(sv[0]);
	assert_int_equal(proto_write_all(sv[1], big, 10, 50), -EPIPE);
	close(sv[1]);
}

/* ---- datagrams, data greeting, names ----------------------------------- */

static void test_dgram(void **state)
{
	struct dgram_hdr h = { .stream = 127,
			       .flags = DGRAM_F_OMIT,
			       .seq = 0x0102030405060708ULL,
			       .send_ns = 0x1112131415161718ULL,
			       .test_id = 0xabcdef01 },
			 h2;
	uint8_t d[LOAD_UDP_MIN_LEN + 10] = { 0 };

	(void)state;
	assert_int_equal(dgram_put(d, DGRAM_HDR_LEN - 1, &h), 0); /* the short form */
	assert_int_equal(get_be16(d), DGRAM_SHORT_MAGIC);
	assert_int_equal(dgram_put(d, sizeof(d), &h), 0);
	assert_true(dgram_parse(d, sizeof(d), &h2));
	assert_int_equal(h2.stream, h.stream);
	assert_int_equal(h2.flags, h.flags);
	assert_int_equal(h2.seq, h.seq);
	assert_int_equal(h2.send_ns, h.send_ns);
	assert_int_equal(h2.test_id, h.test_id);
	assert_int_equal(d[8], 0x01); /* big-endian seq at offset 8 */
	assert_int_equal(d[23], 0x18);
	dgram_restamp(d, sizeof(d), 99, 1234);
	assert_true(dgram_parse(d, LOAD_UDP_MIN_LEN, &h2));
	assert_int_equal(h2.seq, 99);
	assert_int_equal(h2.send_ns, 1234);
	assert_int_equal(h2.stream, 127);
	assert_false(dgram_parse(d, LOAD_UDP_MIN_LEN - 1, &h2));
	assert_false(dgram_parse(d, 0, &h2));
	d[6] = 0x80; /* unknown flag */
	assert_false(dgram_parse(d, sizeof(d), &h2));
	d[6] = 0;
	d[0] ^= 1;
	assert_false(dgram_parse(d, sizeof(d), &h2));
}

/* RFC 2544's 64-byte IPv4 frame: 18 bytes of payload, the short header */
static void test_dgram_short(void **state)
{
	struct dgram_hdr h = { .stream = 127,
			       .flags = DGRAM_F_OMIT,
			       .seq = 0x0102030405060708ULL,
			       .send_ns = 0x1112131415161718ULL,
			       .test_id = 0xabcdef01 },
			 h2;
	uint8_t d[18] = { 0 };

	(void)state;
	assert_int_equal(dgram_put(d, DGRAM_SHORT_HDR_LEN - 1, &h), -EINVAL);
	assert_int_equal(dgram_put(d, sizeof(d), &h), 0);
	assert_int_equal(d[0], 'o');
	assert_int_equal(d[1], 'v');
	assert_int_equal(d[4], 0x05);  /* the low 32 bits of seq, big-endian */
	assert_int_equal(d[8], 0x13);  /* the low 48 bits of the stamp */
	assert_int_equal(d[14], 0xef); /* the low 16 bits of the test id */
	assert_true(dgram_parse(d, sizeof(d), &h2));
	assert_true(h2.narrow);
	assert_int_equal(h2.stream, 127);
	assert_int_equal(h2.flags, DGRAM_F_OMIT);
	assert_int_equal(h2.seq, 0x05060708u);
	assert_int_equal(h2.send_ns, 0x131415161718ULL);
	assert_true(dgram_is_of(&h2, 0xabcdef01, 127));
	assert_true(dgram_is_of(&h2, 0x1234ef01, 127)); /* only 16 bits to tell */
	assert_false(dgram_is_of(&h2, 0xabcdef02, 127));
	assert_false(dgram_is_of(&h2, 0xabcdef01, 126));
	dgram_widen(&h2, 0x0102030405060000ULL, 0x1112131415160000ULL);
	assert_int_equal(h2.seq, h.seq);
	assert_int_equal(h2.send_ns, h.send_ns);
	dgram_widen(&h2, 0x0102030405060000ULL, 0x1112131415160000ULL);
	assert_int_equal(h2.seq, h.seq); /* widening twice changes nothing */
	dgram_restamp(d, sizeof(d), 0x1ffffffffULL, 42);
	assert_true(dgram_parse(d, DGRAM_SHORT_HDR_LEN, &h2));
	assert_int_equal(h2.seq, 0xffffffffu);
	assert_int_equal(h2.send_ns, 42);
	/* the length names the form: a short header in 32 bytes or more, or a
	 * full one below 32, is malformed */
	assert_false(dgram_parse(d, DGRAM_SHORT_HDR_LEN - 1, &h2));
	{
		uint8_t big[DGRAM_HDR_LEN] = { 0 };

		memcpy(big, d, sizeof(d));
		assert_false(dgram_parse(big, sizeof(big), &h2));
		assert_int_equal(dgram_put(big, sizeof(big), &h), 0);
		assert_false(dgram_parse(big, DGRAM_HDR_LEN - 1, &h2));
		assert_true(dgram_parse(big, sizeof(big), &h2));
		assert_false(h2.narrow);
		assert_false(dgram_is_of(&h2, 0x1234ef01, 127)); /* all 32 bits */
	}
	d[2] = 0x80; /* unknown flag */
	assert_false(dgram_parse(d, sizeof(d), &h2));
}

/* The receiver's widening: the nearest value with the same low bits, across
 * the wrap in both directions, never below 0 (RFC 1982 serial arithmetic). */
static void test_dgram_extend(void **state)
{
	static const struct {
		uint64_t ref, low;
		unsigned bits;
		uint64_t want;
	} t[] = {
		{ 0, 0, 32, 0 },
		{ 5, 7, 32, 7 },				  /* ahead */
		{ 7, 5, 32, 5 },				  /* reordered: behind */
		{ 5, 0xfffffffeu, 32, 0xfffffffeu },		  /* never below 0 */
		{ 0xfffffffeu, 3, 32, 0x100000003ULL },		  /* forward over the wrap */
		{ 0x100000003ULL, 0xfffffffeu, 32, 0xfffffffeu }, /* late, across it */
		{ 0x500000000ULL, 0x7fffffffu, 32, 0x57fffffffULL },
		{ 0x500000000ULL, 0x80000000u, 32, 0x580000000ULL }, /* half: as is */
		{ 0x500000000ULL, 0x80000001u, 32, 0x480000001ULL }, /* beyond: back */
		{ 0xfffffffffff0ULL, 0x10, 48, 0x1000000000010ULL }, /* stamp wraps */
		{ 0x1000000000010ULL, 0xfffffffffff0ULL, 48, 0xfffffffffff0ULL },
		{ UINT64_MAX - 2, 0xffffffffu, 32, UINT64_MAX }, /* top: no overflow */
		{ UINT64_MAX, 1, 32, 0xffffffff00000001ULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(dgram_extend(t[i].ref, t[i].low, t[i].bits), t[i].want);
	/* a whole sequence through the wrap, in order, keeps counting */
	for (uint64_t seq = 0xfffffff0u, ref = seq; seq < 0x100000010ULL; seq++) {
		assert_int_equal(dgram_extend(ref, (uint32_t)seq, 32), seq);
		ref = seq;
	}
}

static void test_data_hello(void **state)
{
	struct proto_data_hello dh = { .test_id = 3, .stream = 9 }, dh2;
	uint8_t b[PROTO_DATA_HELLO_LEN + 1];

	(void)state;
	memset(dh.cookie, 0x77, sizeof(dh.cookie));
	assert_int_equal(proto_encode_data_hello(b, PROTO_DATA_HELLO_LEN - 1, &dh),
			 PROTO_E_NOSPACE);
	assert_int_equal(proto_encode_data_hello(b, sizeof(b), &dh), PROTO_DATA_HELLO_LEN);
	assert_int_equal(proto_decode_data_hello(b, PROTO_DATA_HELLO_LEN, &dh2), 0);
	assert_int_equal(dh2.test_id, 3);
	assert_int_equal(dh2.stream, 9);
	assert_memory_equal(dh.cookie, dh2.cookie, PROTO_COOKIE_LEN);
	assert_int_equal(proto_decode_data_hello(b, PROTO_DATA_HELLO_LEN + 1, &dh2),
			 PROTO_E_LENGTH);
	b[0] = 0;
	assert_int_equal(proto_decode_data_hello(b, PROTO_DATA_HELLO_LEN, &dh2), PROTO_E_MAGIC);
}

static void test_names(void **state)
{
	int codes[] = { PROTO_E_TRUNCATED,   PROTO_E_LENGTH,  PROTO_E_TOOBIG, PROTO_E_MAGIC,
			PROTO_E_VERSION,     PROTO_E_TYPE,    PROTO_E_VALUE,  PROTO_E_EOF,
			PROTO_E_EOF_PARTIAL, PROTO_E_STALLED, PROTO_E_NOSPACE };
	size_t i, j;
	uint16_t t;

	(void)state;
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		for (j = 0; j < i; j++)
			assert_string_not_equal(proto_strerror(codes[i]), proto_strerror(codes[j]));
	assert_string_equal(proto_strerror(-EPIPE), strerror(EPIPE));
	for (t = 1; t <= PROTO_TYPE_MAX; t++)
		assert_string_not_equal(proto_type_name(t), "unknown");
	assert_string_equal(proto_type_name(0), "unknown");
	assert_string_equal(proto_type_name(PROTO_TYPE_MAX + 1), "unknown");
	assert_string_equal(proto_reason_str(PROTO_R_AUTH), "authentication failed");
	assert_string_equal(proto_reason_str(999), "unknown reason");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_small),
		cmocka_unit_test(test_wire_layout),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_fixed_lengths),
		cmocka_unit_test(test_values_out_of_range),
		cmocka_unit_test(test_encode_errors),
		cmocka_unit_test(test_reader_bytewise_and_back_to_back),
		cmocka_unit_test(test_reader_rejects_early),
		cmocka_unit_test(test_reader_stall),
		cmocka_unit_test(test_reader_socket),
		cmocka_unit_test(test_write_all_timeout),
		cmocka_unit_test(test_dgram),
		cmocka_unit_test(test_dgram_short),
		cmocka_unit_test(test_dgram_extend),
		cmocka_unit_test(test_data_hello),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
