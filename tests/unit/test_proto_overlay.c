// SPDX-License-Identifier: MIT
/*
 * The built-in overlay's control messages (src/proto/proto_overlay.c):
 * round trips of OVERLAY_REQUEST, OVERLAY_ACCEPT, OVERLAY_READY and
 * OVERLAY_DOWN with every field set; every body length but the right one
 * refused before a field is read; values outside their range (subnet
 * lengths, cipher, flags, MTU, port, reason) refused by both the encoder
 * and the decoder; the type names.
 */
#include "bytes.h"
#include "proto_fixture.h"
#include "proto_overlay.h"

static struct proto_overlay_request full_request(void)
{
	struct proto_overlay_request r = { .mtu = 1380,
					   .cipher = PROTO_OVL_CIPHER_CHACHA20POLY1305,
					   .nets = { .v4_len = 24,
						     .v6_len = 64,
						     .v4 = { 198, 19, 210, 0 },
						     .v6 = { 0x20, 0x01, 0, 2, 0, 0, 0, 0xfa } } };

	for (unsigned i = 0; i < PROTO_OVERLAY_KEY_LEN; i++)
		r.client_key[i] = (uint8_t)(i * 7 + 1);
	return r;
}

static struct proto_overlay_accept full_accept(void)
{
	struct proto_overlay_accept a = { .test_id = 0x80000005u,
					  .port = 5211,
					  .mtu = 1420,
					  .v4_len = 30,
					  .v6_len = 126,
					  .server_v4 = { 198, 19, 128, 1 },
					  .client_v4 = { 198, 19, 128, 2 } };

	for (unsigned i = 0; i < PROTO_COOKIE_LEN; i++)
		a.cookie[i] = (uint8_t)(0xc0 + i);
	for (unsigned i = 0; i < PROTO_OVERLAY_KEY_LEN; i++)
		a.server_key[i] = (uint8_t)(255 - i);
	for (unsigned i = 0; i < 16; i++) {
		a.server_v6[i] = (uint8_t)(i + 1);
		a.client_v6[i] = (uint8_t)(i + 2);
	}
	return a;
}

static void test_request_roundtrip(void **state)
{
	struct proto_overlay_request r = full_request(), d;
	struct proto_msg m;

	(void)state;
	m = parsed(proto_encode_overlay_request(buf, sizeof(buf), &r), PROTO_OVERLAY_REQUEST);
	assert_int_equal(m.len, PROTO_OVERLAY_REQUEST_LEN);
	assert_int_equal(proto_decode_overlay_request(m.body, m.len, &d), 0);
	assert_memory_equal(&d, &r, sizeof(r));
	/* lengths 0: the server chooses */
	r.nets.v4_len = r.nets.v6_len = 0;
	m = parsed(proto_encode_overlay_request(buf, sizeof(buf), &r), PROTO_OVERLAY_REQUEST);
	assert_int_equal(proto_decode_overlay_request(m.body, m.len, &d), 0);
	assert_int_equal(d.nets.v4_len, 0);
}

static void test_accept_ready_down_roundtrip(void **state)
{
	struct proto_overlay_accept a = full_accept(), da;
	struct proto_overlay_ready rdy = { 7 }, dr;
	struct proto_overlay_down dn = { PROTO_OVL_DOWN_DAEMON }, dd;
	struct proto_msg m;

	(void)state;
	m = parsed(proto_encode_overlay_accept(buf, sizeof(buf), &a), PROTO_OVERLAY_ACCEPT);
	assert_int_equal(m.len, PROTO_OVERLAY_ACCEPT_LEN);
	assert_int_equal(proto_decode_overlay_accept(m.body, m.len, &da), 0);
	assert_memory_equal(&da, &a, sizeof(a));
	m = parsed(proto_encode_overlay_ready(buf, sizeof(buf), &rdy), PROTO_OVERLAY_READY);
	assert_int_equal(proto_decode_overlay_ready(m.body, m.len, &dr), 0);
	assert_int_equal(dr.reserved, 7);
	m = parsed(proto_encode_overlay_down(buf, sizeof(buf), &dn), PROTO_OVERLAY_DOWN);
	assert_int_equal(proto_decode_overlay_down(m.body, m.len, &dd), 0);
	assert_int_equal(dd.reason, PROTO_OVL_DOWN_DAEMON);
	assert_string_equal(proto_type_name(PROTO_OVERLAY_REQUEST), "OVERLAY_REQUEST");
	assert_string_equal(proto_type_name(PROTO_OVERLAY_DOWN), "OVERLAY_DOWN");
}

/* Every length but the type's own is refused, and no byte beyond the body
 * is read (the decoders get a body that ends exactly where it claims). */
static void test_wrong_lengths(void **state)
{
	static const struct {
		uint16_t type;
		size_t len;
	} types[] = {
		{ PROTO_OVERLAY_REQUEST, PROTO_OVERLAY_REQUEST_LEN },
		{ PROTO_OVERLAY_ACCEPT, PROTO_OVERLAY_ACCEPT_LEN },
		{ PROTO_OVERLAY_READY, PROTO_OVERLAY_READY_LEN },
		{ PROTO_OVERLAY_DOWN, PROTO_OVERLAY_DOWN_LEN },
	};
	uint8_t body[PROTO_OVERLAY_ACCEPT_LEN + 8];
	union {
		struct proto_overlay_request q;
		struct proto_overlay_accept a;
		struct proto_overlay_ready r;
		struct proto_overlay_down d;
	} u;

	(void)state;
	memset(body, 0, sizeof(body));
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++)
		for (size_t len = 0; len <= sizeof(body); len++) {
			uint8_t *b = test_malloc(len ? len : 1);
			int r;

			memcpy(b, body, len);
			switch (types[t].type) {
			case PROTO_OVERLAY_REQUEST:
				r = proto_decode_overlay_request(b, len, &u.q);
				break;
			case PROTO_OVERLAY_ACCEPT:
				r = proto_decode_overlay_accept(b, len, &u.a);
				break;
			case PROTO_OVERLAY_READY:
				r = proto_decode_overlay_ready(b, len, &u.r);
				break;
			default:
				r = proto_decode_overlay_down(b, len, &u.d);
				break;
			}
			test_free(b);
			if (len != types[t].len)
				assert_int_equal(r, PROTO_E_LENGTH);
			else if (types[t].type == PROTO_OVERLAY_ACCEPT)
				assert_int_equal(r, PROTO_E_VALUE); /* port 0 */
			else
				assert_int_equal(r, 0);
		}
}

static void test_values_out_of_range(void **state)
{
	static const struct {
		size_t off; /* into the REQUEST body */
		uint8_t val;
	} bad_req[] = {
		{ 0, 1 },   /* flags */
		{ 6, 3 },   /* cipher */
		{ 8, 7 },   /* IPv4 length below 8 */
		{ 8, 31 },  /* ... above 30 */
		{ 9, 63 },  /* IPv6 length below 64 */
		{ 9, 127 }, /* ... above 126 */
	};
	struct proto_overlay_request r = full_request(), d;
	struct proto_overlay_accept a = full_accept(), da;
	struct proto_overlay_down dn = { PROTO_OVL_DOWN_REASON_MAX + 1 }, dd;
	struct proto_msg m;
	uint8_t *body = buf + PROTO_HDR_LEN;

	(void)state;
	for (size_t i = 0; i < sizeof(bad_req) / sizeof(bad_req[0]); i++) {
		m = parsed(proto_encode_overlay_request(buf, sizeof(buf), &r),
			   PROTO_OVERLAY_REQUEST);
		body[bad_req[i].off] = bad_req[i].val;
		assert_int_equal(proto_decode_overlay_request(m.body, m.len, &d), PROTO_E_VALUE);
	}
	m = parsed(proto_encode_overlay_request(buf, sizeof(buf), &r), PROTO_OVERLAY_REQUEST);
	put_be16(body + 4, 575); /* MTU below the IPv4 minimum datagram */
	assert_int_equal(proto_decode_overlay_request(m.body, m.len, &d), PROTO_E_VALUE);
	r.cipher = 9;
	assert_int_equal(proto_encode_overlay_request(buf, sizeof(buf), &r), PROTO_E_VALUE);

	/* ACCEPT: both lengths are required, and a port */
	m = parsed(proto_encode_overlay_accept(buf, sizeof(buf), &a), PROTO_OVERLAY_ACCEPT);
	body[56] = 0;
	assert_int_equal(proto_decode_overlay_accept(m.body, m.len, &da), PROTO_E_VALUE);
	a.v6_len = 0;
	assert_int_equal(proto_encode_overlay_accept(buf, sizeof(buf), &a), PROTO_E_VALUE);
	a = full_accept();
	a.port = 0;
	assert_int_equal(proto_encode_overlay_accept(buf, sizeof(buf), &a), PROTO_E_VALUE);

	assert_int_equal(proto_encode_overlay_down(buf, sizeof(buf), &dn), PROTO_E_VALUE);
	dn.reason = PROTO_OVL_DOWN_DONE;
	m = parsed(proto_encode_overlay_down(buf, sizeof(buf), &dn), PROTO_OVERLAY_DOWN);
	put_be16(body, PROTO_OVL_DOWN_REASON_MAX + 1);
	assert_int_equal(proto_decode_overlay_down(m.body, m.len, &dd), PROTO_E_VALUE);
	/* too small a buffer */
	assert_int_equal(
		proto_encode_overlay_accept(buf, PROTO_HDR_LEN + PROTO_OVERLAY_ACCEPT_LEN - 1, &a),
		PROTO_E_VALUE); /* port 0 is checked first */
	a = full_accept();
	assert_int_equal(
		proto_encode_overlay_accept(buf, PROTO_HDR_LEN + PROTO_OVERLAY_ACCEPT_LEN - 1, &a),
		PROTO_E_NOSPACE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_roundtrip),
		cmocka_unit_test(test_accept_ready_down_roundtrip),
		cmocka_unit_test(test_wrong_lengths),
		cmocka_unit_test(test_values_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
