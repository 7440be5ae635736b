// SPDX-License-Identifier: MIT
/*
 * Control protocol codecs (layouts in proto.h): HELLO, AUTH_*, TEST_REJECT /
 * ERROR, START / STOP / INTERVAL, MTU_PROBE_* and the data connection
 * greeting. The header is in proto_hdr.c; TEST_REQUEST, TEST_ACCEPT and
 * RESULTS are in proto_load.c, the names of types and errors in
 * proto_names.c, the UDP test datagram header in dgram.c, the framing reader
 * in proto_reader.c. Every decoder checks the body length against the type
 * before reading a field; fields are read and written byte-wise through
 * bytes.h, never by casting.
 */
#include <errno.h>
#include <string.h>

#include "bytes.h"
#include "proto.h"
#include "proto_int.h"

_Static_assert(PROTO_TEXT_FIXED_LEN + PROTO_TEXT_MAX <= PROTO_MAX_BODY, "text fits");
_Static_assert(PROTO_NONCE_LEN == 32 && PROTO_MAC_LEN == 32, "auth sizes (auth.h)");

/* ---- HELLO ------------------------------------------------------------- */

ssize_t proto_encode_hello(uint8_t *buf, size_t cap, const struct proto_hello *m)
{
	uint8_t sw[PROTO_SOFTWARE_LEN] = { 0 };
	struct wr w;
	ssize_t n = begin(buf, cap, PROTO_HELLO, PROTO_HELLO_LEN, &w);

	if (n < 0)
		return n;
	memcpy(sw, m->software, strnlen(m->software, PROTO_SOFTWARE_LEN));
	w16(&w, m->version);
	w16(&w, 0);
	w32(&w, m->caps);
	wbytes(&w, sw, sizeof(sw));
	return n;
}

int proto_decode_hello(const uint8_t *body, size_t len, struct proto_hello *m)
{
	struct rd r = { body, 0 };
	int ret = fixed_len(len, PROTO_HELLO_LEN);

	if (ret < 0)
		return ret;
	m->version = r16(&r);
	(void)r16(&r);
	m->caps = r32(&r);
	copy_text(m->software, body + r.off, PROTO_SOFTWARE_LEN);
	return 0;
}

/* ---- AUTH_* ------------------------------------------------------------ */

ssize_t proto_encode_auth_challenge(uint8_t *buf, size_t cap, const struct proto_auth_challenge *m)
{
	struct wr w;
	ssize_t n = begin(buf, cap, PROTO_AUTH_CHALLENGE, PROTO_AUTH_CHALLENGE_LEN, &w);

	if (n >= 0)
		wbytes(&w, m->server_nonce, PROTO_NONCE_LEN);
	return n;
}

int proto_decode_auth_challenge(const uint8_t *body, size_t len, struct proto_auth_challenge *m)
{
	int ret = fixed_len(len, PROTO_AUTH_CHALLENGE_LEN);

	if (ret == 0)
		memcpy(m->server_nonce, body, PROTO_NONCE_LEN);
	return ret;
}

ssize_t proto_encode_auth_response(uint8_t *buf, size_t cap, const struct proto_auth_response *m)
{
	struct wr w;
	ssize_t n = begin(buf, cap, PROTO_AUTH_RESPONSE, PROTO_AUTH_RESPONSE_LEN, &w);

	if (n >= 0) {
		wbytes(&w, m->client_nonce, PROTO_NONCE_LEN);
		wbytes(&w, m->mac, PROTO_MAC_LEN);
	}
	return n;
}

int proto_decode_auth_response(const uint8_t *body, size_t len, struct proto_auth_response *m)
{
	int ret = fixed_len(len, PROTO_AUTH_RESPONSE_LEN);

	if (ret == 0) {
		memcpy(m->client_nonce, body, PROTO_NONCE_LEN);
		memcpy(m->mac, body + PROTO_NONCE_LEN, PROTO_MAC_LEN);
	}
	return ret;
}

ssize_t proto_encode_auth_ok(uint8_t *buf, size_t cap, const struct proto_auth_ok *m)
{
	struct wr w;
	ssize_t n = begin(buf, cap, PROTO_AUTH_OK, PROTO_AUTH_OK_LEN, &w);

	if (n >= 0)
		wbytes(&w, m->mac, PROTO_MAC_LEN);
	return n;
}

int proto_decode_auth_ok(const uint8_t *body, size_t len, struct proto_auth_ok *m)
{
	int ret = fixed_len(len, PROTO_AUTH_OK_LEN);

	if (ret == 0)
		memcpy(m->mac, body, PROTO_MAC_LEN);
	return ret;
}

/* ---- TEST_REJECT / ERROR ------------------------------------------------ */

ssize_t proto_encode_text(uint8_t *buf, size_t cap, uint16_t type, uint16_t code, const char *text)
{
	size_t tlen = text ? strnlen(text, PROTO_TEXT_MAX) : 0;
	struct wr w;
	ssize_t n;

	if (type != PROTO_TEST_REJECT && type != PROTO_ERROR)
		return PROTO_E_VALUE;
	n = begin(buf, cap, type, PROTO_TEXT_FIXED_LEN + tlen, &w);
	if (n < 0)
		return n;
	w16(&w, code);
	w16(&w, (uint16_t)tlen);
	wbytes(&w, text, tlen);
	return n;
}

int proto_decode_text(const uint8_t *body, size_t len, struct proto_text *m)
{
	struct rd r = { body, 0 };
	uint16_t tlen;

	if (len < PROTO_TEXT_FIXED_LEN)
		return PROTO_E_LENGTH;
	m->code = r16(&r);
	tlen = r16(&r);
	if (tlen > PROTO_TEXT_MAX)
		return PROTO_E_VALUE;
	if (len != PROTO_TEXT_FIXED_LEN + (size_t)tlen)
		return PROTO_E_LENGTH;
	copy_text(m->text, body + r.off, tlen);
	return 0;
}

/* ---- START / STOP / INTERVAL -------------------------------------------- */

ssize_t proto_encode_start(uint8_t *buf, size_t cap, const struct proto_start *m)
{
	struct wr w;
	ssize_t n = begin(buf, cap, PROTO_START, PROTO_START_LEN, &w);

	if (n >= 0) {
		w32(&w, m->test_id);
		w32(&w, 0);
	}
	return n;
}

int proto_decode_start(const uint8_t *body, size_t len, struct proto_start *m)
{
	struct rd r = { body, 0 };
	int ret = fixed_len(len, PROTO_START_LEN);

	if (ret == 0) {
		m->test_id = r32(&r);
		m->reserved = r32(&r);
	}
	return ret;
}

ssize_t proto_encode_stop(uint8_t *buf, size_t cap, const struct proto_stop *m)
{
	struct wr w;
	ssize_t n;

	if (m->reason > PROTO_STOP_ERROR)
		return PROTO_E_VALUE;
	n = begin(buf, cap, PROTO_STOP, PROTO_STOP_LEN, &w);
	if (n >= 0) {
		w32(&w, m->test_id);
		w16(&w, m->reason);
		w16(&w, 0);
		w64(&w, m->elapsed_ns);
	}
	return n;
}

int proto_decode_stop(const uint8_t *body, size_t len, struct proto_stop *m)
{
	struct rd r = { body, 0 };
	int ret = fixed_len(len, PROTO_STOP_LEN);

	if (ret < 0)
		return ret;
	m->test_id = r32(&r);
	m->reason = r16(&r);
	(void)r16(&r);
	m->elapsed_ns = r64(&r);
	return m->reason > PROTO_STOP_ERROR ? PROTO_E_VALUE : 0;
}

ssize_t proto_encode_interval(uint8_t *buf, size_t cap, const struct proto_interval *m)
{
	struct wr w;
	ssize_t n = begin(buf, cap, PROTO_INTERVAL, PROTO_INTERVAL_LEN, &w);

	if (n < 0)
		return n;
	w32(&w, m->test_id);
	w32(&w, m->index);
	w64(&w, m->start_ns);
	w64(&w, m->end_ns);
	w64(&w, m->bytes);
	w64(&w, m->packets);
	w64(&w, m->lost);
	w32(&w, m->retransmits);
	w32(&w, 0);
	return n;
}

int proto_decode_interval(const uint8_t *body, size_t len, struct proto_interval *m)
{
	struct rd r = { body, 0 };
	int ret = fixed_len(len, PROTO_INTERVAL_LEN);

	if (ret < 0)
		return ret;
	m->test_id = r32(&r);
	m->index = r32(&r);
	m->start_ns = r64(&r);
	m->end_ns = r64(&r);
	m->bytes = r64(&r);
	m->packets = r64(&r);
	m->lost = r64(&r);
	m->retransmits = r32(&r);
	m->reserved = r32(&r);
	return m->end_ns < m->start_ns ? PROTO_E_VALUE : 0;
}

/* ---- MTU_PROBE_* --------------------------------------------------------- */

ssize_t proto_encode_opaque(uint8_t *buf, size_t cap, uint16_t type, const uint8_t *body,
			    size_t len)
{
	struct wr w;
	ssize_t n;

	if (type != PROTO_MTU_PROBE_REQUEST && type != PROTO_MTU_PROBE_REPLY)
		return PROTO_E_VALUE;
	n = begin(buf, cap, type, len, &w);
	if (n >= 0 && len)
		wbytes(&w, body, len);
	return n;
}

/* ---- data connection greeting ------------------------------------------- */

ssize_t proto_encode_data_hello(uint8_t *buf, size_t cap, const struct proto_data_hello *m)
{
	if (cap < PROTO_DATA_HELLO_LEN)
		return PROTO_E_NOSPACE;
	put_be32(buf, PROTO_DATA_MAGIC);
	put_be32(buf + 4, m->test_id);
	put_be16(buf + 8, m->stream);
	put_be16(buf + 10, 0);
	memcpy(buf + 12, m->cookie, PROTO_COOKIE_LEN);
	return PROTO_DATA_HELLO_LEN;
}

int proto_decode_data_hello(const uint8_t *buf, size_t len, struct proto_data_hello *m)
{
	if (len != PROTO_DATA_HELLO_LEN)
		return PROTO_E_LENGTH;
	if (get_be32(buf) != PROTO_DATA_MAGIC)
		return PROTO_E_MAGIC;
	m->test_id = get_be32(buf + 4);
	m->stream = get_be16(buf + 8);
	m->reserved = get_be16(buf + 10);
	memcpy(m->cookie, buf + 12, PROTO_COOKIE_LEN);
	return 0;
}
