// SPDX-License-Identifier: MIT
/*
 * Codecs of the built-in overlay's control messages (layouts in
 * proto_overlay.h). Every decoder checks the body length against the type
 * before reading a field, and refuses values outside their documented range
 * so the overlay code never sees them.
 */
#include <string.h>

#include "proto_int.h"
#include "proto_overlay.h"

_Static_assert(PROTO_OVERLAY_REQUEST_LEN == 4 + 2 + 1 + 1 + 4 + 4 + 16 + PROTO_OVERLAY_KEY_LEN,
	       "OVERLAY_REQUEST layout");
_Static_assert(PROTO_OVERLAY_ACCEPT_LEN ==
		       4 + 2 + 2 + PROTO_COOKIE_LEN + PROTO_OVERLAY_KEY_LEN + 4 + 8 + 32,
	       "OVERLAY_ACCEPT layout");

static bool v4_len_ok(uint8_t l, bool zero_ok)
{
	return (zero_ok && l == 0) || (l >= 8 && l <= 30);
}

static bool v6_len_ok(uint8_t l, bool zero_ok)
{
	return (zero_ok && l == 0) || (l >= 64 && l <= 126);
}

ssize_t proto_encode_overlay_request(uint8_t *buf, size_t cap,
				     const struct proto_overlay_request *m)
{
	struct wr w;
	ssize_t n;

	if (m->flags || m->cipher > PROTO_OVL_CIPHER_CHACHA20POLY1305 ||
	    !v4_len_ok(m->nets.v4_len, true) || !v6_len_ok(m->nets.v6_len, true))
		return PROTO_E_VALUE;
	n = begin(buf, cap, PROTO_OVERLAY_REQUEST, PROTO_OVERLAY_REQUEST_LEN, &w);
	if (n < 0)
		return n;
	w32(&w, m->flags);
	w16(&w, m->mtu);
	w8(&w, m->cipher);
	w8(&w, 0);
	w8(&w, m->nets.v4_len);
	w8(&w, m->nets.v6_len);
	w16(&w, 0);
	wbytes(&w, m->nets.v4, 4);
	wbytes(&w, m->nets.v6, 16);
	wbytes(&w, m->client_key, PROTO_OVERLAY_KEY_LEN);
	return n;
}

int proto_decode_overlay_request(const uint8_t *body, size_t len, struct proto_overlay_request *m)
{
	struct rd r = { body, 0 };
	int ret = fixed_len(len, PROTO_OVERLAY_REQUEST_LEN);

	if (ret < 0)
		return ret;
	memset(m, 0, sizeof(*m));
	m->flags = r32(&r);
	m->mtu = r16(&r);
	m->cipher = r8(&r);
	(void)r8(&r);
	m->nets.v4_len = r8(&r);
	m->nets.v6_len = r8(&r);
	(void)r16(&r);
	rbytes(&r, m->nets.v4, 4);
	rbytes(&r, m->nets.v6, 16);
	rbytes(&r, m->client_key, PROTO_OVERLAY_KEY_LEN);
	if (m->flags || m->cipher > PROTO_OVL_CIPHER_CHACHA20POLY1305 ||
	    !v4_len_ok(m->nets.v4_len, true) || !v6_len_ok(m->nets.v6_len, true) ||
	    (m->mtu && m->mtu < 576))
		return PROTO_E_VALUE;
	return 0;
}

ssize_t proto_encode_overlay_accept(uint8_t *buf, size_t cap, const struct proto_overlay_accept *m)
{
	struct wr w;
	ssize_t n;

	if (!m->port || !v4_len_ok(m->v4_len, false) || !v6_len_ok(m->v6_len, false))
		return PROTO_E_VALUE;
	n = begin(buf, cap, PROTO_OVERLAY_ACCEPT, PROTO_OVERLAY_ACCEPT_LEN, &w);
	if (n < 0)
		return n;
	w32(&w, m->test_id);
	w16(&w, m->port);
	w16(&w, m->mtu);
	wbytes(&w, m->cookie, PROTO_COOKIE_LEN);
	wbytes(&w, m->server_key, PROTO_OVERLAY_KEY_LEN);
	w8(&w, m->v4_len);
	w8(&w, m->v6_len);
	w16(&w, 0);
	wbytes(&w, m->server_v4, 4);
	wbytes(&w, m->client_v4, 4);
	wbytes(&w, m->server_v6, 16);
	wbytes(&w, m->client_v6, 16);
	return n;
}

int proto_decode_overlay_accept(const uint8_t *body, size_t len, struct proto_overlay_accept *m)
{
	struct rd r = { body, 0 };
	int ret = fixed_len(len, PROTO_OVERLAY_ACCEPT_LEN);

	if (ret < 0)
		return ret;
	memset(m, 0, sizeof(*m));
	m->test_id = r32(&r);
	m->port = r16(&r);
	m->mtu = r16(&r);
	rbytes(&r, m->cookie, PROTO_COOKIE_LEN);
	rbytes(&r, m->server_key, PROTO_OVERLAY_KEY_LEN);
	m->v4_len = r8(&r);
	m->v6_len = r8(&r);
	(void)r16(&r);
	rbytes(&r, m->server_v4, 4);
	rbytes(&r, m->client_v4, 4);
	rbytes(&r, m->server_v6, 16);
	rbytes(&r, m->client_v6, 16);
	if (!m->port || !v4_len_ok(m->v4_len, false) || !v6_len_ok(m->v6_len, false) ||
	    (m->mtu && m->mtu < 576))
		return PROTO_E_VALUE;
	return 0;
}

ssize_t proto_encode_overlay_ready(uint8_t *buf, size_t cap, const struct proto_overlay_ready *m)
{
	struct wr w;
	ssize_t n = begin(buf, cap, PROTO_OVERLAY_READY, PROTO_OVERLAY_READY_LEN, &w);

	if (n >= 0)
		w32(&w, m->reserved);
	return n;
}

int proto_decode_overlay_ready(const uint8_t *body, size_t len, struct proto_overlay_ready *m)
{
	struct rd r = { body, 0 };
	int ret = fixed_len(len, PROTO_OVERLAY_READY_LEN);

	if (ret == 0)
		m->reserved = r32(&r);
	return ret;
}

ssize_t proto_encode_overlay_down(uint8_t *buf, size_t cap, const struct proto_overlay_down *m)
{
	struct wr w;
	ssize_t n;

	if (m->reason > PROTO_OVL_DOWN_REASON_MAX)
		return PROTO_E_VALUE;
	n = begin(buf, cap, PROTO_OVERLAY_DOWN, PROTO_OVERLAY_DOWN_LEN, &w);
	if (n >= 0) {
		w16(&w, m->reason);
		w16(&w, 0);
	}
	return n;
}

int proto_decode_overlay_down(const uint8_t *body, size_t len, struct proto_overlay_down *m)
{
	struct rd r = { body, 0 };
	int ret = fixed_len(len, PROTO_OVERLAY_DOWN_LEN);

	if (ret < 0)
		return ret;
	m->reason = r16(&r);
	return m->reason > PROTO_OVL_DOWN_REASON_MAX ? PROTO_E_VALUE : 0;
}
