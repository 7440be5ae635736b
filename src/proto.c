// SPDX-License-Identifier: MIT
/*
 * Control protocol and datagram header codecs (layouts in proto.h). Every
 * decoder checks the body length against the type before reading a field;
 * fields are read and written byte-wise through bytes.h, never by casting.
 * The framing reader is in proto_reader.c.
 */
#include <errno.h>
#include <string.h>

#include "bytes.h"
#include "proto.h"

_Static_assert(PROTO_HDR_LEN == 12, "header layout");
_Static_assert(PROTO_MAX_MSG == PROTO_HDR_LEN + PROTO_MAX_BODY, "max message");
_Static_assert(PROTO_RESULTS_FIXED_LEN + PROTO_MAX_STREAMS * PROTO_STREAM_STATS_LEN <=
		       PROTO_MAX_BODY,
	       "RESULTS for every stream fits one message");
_Static_assert(PROTO_TEST_ACCEPT_FIXED_LEN + PROTO_MAX_STREAMS * 2 <= PROTO_MAX_BODY,
	       "TEST_ACCEPT fits");
_Static_assert(PROTO_TEXT_FIXED_LEN + PROTO_TEXT_MAX <= PROTO_MAX_BODY, "text fits");
_Static_assert(PROTO_NONCE_LEN == 32 && PROTO_MAC_LEN == 32, "auth sizes (auth.h)");

/* Sequential writer over a buffer whose size the caller already checked. */
struct wr {
	uint8_t *p;
	size_t off;
};

static void w8(struct wr *w, uint8_t v)
{
	w->p[w->off++] = v;
}

static void w16(struct wr *w, uint16_t v)
{
	put_be16(w->p + w->off, v);
	w->off += 2;
}

static void w32(struct wr *w, uint32_t v)
{
	put_be32(w->p + w->off, v);
	w->off += 4;
}

static void w64(struct wr *w, uint64_t v)
{
	put_be64(w->p + w->off, v);
	w->off += 8;
}

static void wbytes(struct wr *w, const void *b, size_t n)
{
	if (n)	/* memcpy from NULL is undefined even for 0 bytes */
		memcpy(w->p + w->off, b, n);
	w->off += n;
}

/* Sequential reader over a body whose length the decoder already checked. */
struct rd {
	const uint8_t *p;
	size_t off;
};

static uint8_t r8(struct rd *r)
{
	return r->p[r->off++];
}

static uint16_t r16(struct rd *r)
{
	uint16_t v = get_be16(r->p + r->off);

	r->off += 2;
	return v;
}

static uint32_t r32(struct rd *r)
{
	uint32_t v = get_be32(r->p + r->off);

	r->off += 4;
	return v;
}

static uint64_t r64(struct rd *r)
{
	uint64_t v = get_be64(r->p + r->off);

	r->off += 8;
	return v;
}

static void rbytes(struct rd *r, void *b, size_t n)
{
	memcpy(b, r->p + r->off, n);
	r->off += n;
}

/* Copies wire text into a NUL-terminated string, replacing bytes that are
 * not printable ASCII, so a peer's text can be logged as is. A NUL ends it. */
static void copy_text(char *dst, const uint8_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && src[i]; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? (char)src[i] : '?';
	dst[i] = '\0';
}

/* ---- header ------------------------------------------------------------ */

void proto_put_hdr(uint8_t buf[static PROTO_HDR_LEN], uint16_t type, uint32_t body_len)
{
	put_be32(buf, PROTO_MAGIC);
	put_be16(buf + 4, PROTO_VERSION);
	put_be16(buf + 6, type);
	put_be32(buf + 8, body_len);
}

int proto_decode_hdr(const uint8_t *buf, size_t len, struct proto_hdr *hdr)
{
	if (len < PROTO_HDR_LEN)
		return PROTO_E_TRUNCATED;
	if (get_be32(buf) != PROTO_MAGIC)
		return PROTO_E_MAGIC;
	hdr->version = get_be16(buf + 4);
	hdr->type = get_be16(buf + 6);
	hdr->len = get_be32(buf + 8);
	if (hdr->version != PROTO_VERSION)
		return PROTO_E_VERSION;
	if (hdr->len > PROTO_MAX_BODY)
		return PROTO_E_TOOBIG;
	if (hdr->type == 0 || hdr->type > PROTO_TYPE_MAX)
		return PROTO_E_TYPE;
	return 0;
}

int proto_parse(const uint8_t *buf, size_t len, struct proto_msg *msg)
{
	struct proto_hdr h;
	int ret = proto_decode_hdr(buf, len, &h);

	if (ret < 0)
		return ret;
	if (len - PROTO_HDR_LEN < h.len)
		return PROTO_E_TRUNCATED;
	if (len - PROTO_HDR_LEN > h.len)
		return PROTO_E_LENGTH;
	msg->type = h.type;
	msg->body = buf + PROTO_HDR_LEN;
	msg->len = h.len;
	return 0;
}

/* Starts a message of body_len bytes: checks room, writes the header. */
static ssize_t begin(uint8_t *buf, size_t cap, uint16_t type, size_t body_len, struct wr *w)
{
	if (body_len > PROTO_MAX_BODY)
		return PROTO_E_VALUE;
	if (cap < PROTO_HDR_LEN + body_len)
		return PROTO_E_NOSPACE;
	proto_put_hdr(buf, type, (uint32_t)body_len);
	w->p = buf;
	w->off = PROTO_HDR_LEN;
	return (ssize_t)(PROTO_HDR_LEN + body_len);
}

static int fixed_len(size_t len, size_t want)
{
	return len == want ? 0 : PROTO_E_LENGTH;
}

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

/* ---- TEST_REQUEST ------------------------------------------------------ */

static bool request_valid(const struct proto_test_request *m)
{
	if (m->kind < PROTO_KIND_TCP || m->kind > PROTO_KIND_MTU)
		return false;
	if (m->dscp > 63)
		return false;
	if (m->flags & ~(uint16_t)(PROTO_REQ_REVERSE | PROTO_REQ_UDP_GSO | PROTO_REQ_UDP_GRO |
				   PROTO_REQ_IPV6))
		return false;
	if (m->streams < 1 || m->streams > PROTO_MAX_STREAMS)
		return false;
	if (m->kind == PROTO_KIND_UDP && m->len != 0 &&
	    (m->len < LOAD_UDP_MIN_LEN || m->len > LOAD_UDP_MAX_LEN))
		return false;
	return true;
}

ssize_t proto_encode_test_request(uint8_t *buf, size_t cap, const struct proto_test_request *m)
{
	struct wr w;
	ssize_t n;

	if (!request_valid(m))
		return PROTO_E_VALUE;
	n = begin(buf, cap, PROTO_TEST_REQUEST, PROTO_TEST_REQUEST_LEN, &w);
	if (n < 0)
		return n;
	w8(&w, m->kind);
	w8(&w, m->dscp);
	w16(&w, m->flags);
	w16(&w, m->streams);
	w16(&w, m->data_port);
	w32(&w, m->len);
	w32(&w, m->mss);
	w32(&w, m->sock_buf);
	w32(&w, 0);
	w64(&w, m->duration_ns);
	w64(&w, m->omit_ns);
	w64(&w, m->interval_ns);
	w64(&w, m->rate_bps);
	return n;
}

int proto_decode_test_request(const uint8_t *body, size_t len, struct proto_test_request *m)
{
	struct rd r = { body, 0 };
	int ret = fixed_len(len, PROTO_TEST_REQUEST_LEN);

	if (ret < 0)
		return ret;
	m->kind = r8(&r);
	m->dscp = r8(&r);
	m->flags = r16(&r);
	m->streams = r16(&r);
	m->data_port = r16(&r);
	m->len = r32(&r);
	m->mss = r32(&r);
	m->sock_buf = r32(&r);
	(void)r32(&r);
	m->duration_ns = r64(&r);
	m->omit_ns = r64(&r);
	m->interval_ns = r64(&r);
	m->rate_bps = r64(&r);
	return request_valid(m) ? 0 : PROTO_E_VALUE;
}

int proto_test_request_from_spec(const struct load_spec *spec, struct proto_test_request *req)
{
	memset(req, 0, sizeof(*req));
	if (spec->proto != LOAD_TCP && spec->proto != LOAD_UDP)
		return PROTO_E_VALUE;
	req->kind = spec->proto == LOAD_TCP ? PROTO_KIND_TCP : PROTO_KIND_UDP;
	req->dscp = spec->dscp;
	req->flags = (uint16_t)((spec->reverse ? PROTO_REQ_REVERSE : 0) |
				(spec->udp_gso ? PROTO_REQ_UDP_GSO : 0) |
				(spec->udp_gro ? PROTO_REQ_UDP_GRO : 0) |
				(spec->family == AF_INET6 ? PROTO_REQ_IPV6 : 0));
	if (spec->streams > PROTO_MAX_STREAMS)
		return PROTO_E_VALUE;
	req->streams = (uint16_t)spec->streams;
	req->len = spec->len;
	req->mss = spec->mss;
	req->sock_buf = spec->sock_buf;
	req->duration_ns = spec->duration_ns;
	req->omit_ns = spec->omit_ns;
	req->interval_ns = spec->interval_ns;
	req->rate_bps = spec->rate_bps;
	return request_valid(req) ? 0 : PROTO_E_VALUE;
}

void proto_test_request_to_spec(const struct proto_test_request *req, struct load_spec *spec)
{
	spec->proto = req->kind == PROTO_KIND_UDP ? LOAD_UDP : LOAD_TCP;
	spec->dscp = req->dscp;
	spec->reverse = req->flags & PROTO_REQ_REVERSE;
	spec->udp_gso = req->flags & PROTO_REQ_UDP_GSO;
	spec->udp_gro = req->flags & PROTO_REQ_UDP_GRO;
	spec->family = req->flags & PROTO_REQ_IPV6 ? AF_INET6 : AF_INET;
	spec->streams = req->streams;
	spec->len = req->len;
	spec->mss = req->mss;
	spec->sock_buf = req->sock_buf;
	spec->duration_ns = req->duration_ns;
	spec->omit_ns = req->omit_ns;
	spec->interval_ns = req->interval_ns;
	spec->rate_bps = req->rate_bps;
}

/* ---- TEST_ACCEPT ------------------------------------------------------- */

ssize_t proto_encode_test_accept(uint8_t *buf, size_t cap, const struct proto_test_accept *m)
{
	struct wr w;
	ssize_t n;
	unsigned i;

	if (m->nports < 1 || m->nports > PROTO_MAX_STREAMS)
		return PROTO_E_VALUE;
	n = begin(buf, cap, PROTO_TEST_ACCEPT, PROTO_TEST_ACCEPT_FIXED_LEN + 2u * m->nports, &w);
	if (n < 0)
		return n;
	w32(&w, m->test_id);
	wbytes(&w, m->cookie, PROTO_COOKIE_LEN);
	w64(&w, m->max_duration_ns);
	w64(&w, m->max_rate_bps);
	w16(&w, m->max_streams);
	w16(&w, m->nports);
	for (i = 0; i < m->nports; i++)
		w16(&w, m->ports[i]);
	return n;
}

int proto_decode_test_accept(const uint8_t *body, size_t len, struct proto_test_accept *m)
{
	struct rd r = { body, 0 };
	unsigned i;

	if (len < PROTO_TEST_ACCEPT_FIXED_LEN)
		return PROTO_E_LENGTH;
	m->test_id = r32(&r);
	rbytes(&r, m->cookie, PROTO_COOKIE_LEN);
	m->max_duration_ns = r64(&r);
	m->max_rate_bps = r64(&r);
	m->max_streams = r16(&r);
	m->nports = r16(&r);
	/* The count must account for the length exactly, and be in range. */
	if (m->nports < 1 || m->nports > PROTO_MAX_STREAMS)
		return PROTO_E_VALUE;
	if (len != PROTO_TEST_ACCEPT_FIXED_LEN + 2u * m->nports)
		return PROTO_E_LENGTH;
	for (i = 0; i < m->nports; i++) {
		m->ports[i] = r16(&r);
		if (m->ports[i] == 0)
			return PROTO_E_VALUE;
	}
	return 0;
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

/* ---- RESULTS ------------------------------------------------------------ */

static void put_stream(struct wr *w, const struct proto_stream_stats *s)
{
	w32(w, s->stream_id);
	w32(w, s->flags);
	w64(w, s->bytes);
	w64(w, s->sent);
	w64(w, s->send_shortfall);
	w64(w, s->send_errors);
	w64(w, s->received);
	w64(w, s->lost);
	w64(w, s->duplicates);
	w64(w, s->reordered);
	w64(w, s->late);
	w64(w, s->malformed);
	w64(w, s->jitter_ns);
	w64(w, s->owd_min_ns);
	w64(w, s->owd_p50_ns);
	w64(w, s->owd_p99_ns);
	w64(w, s->owd_max_ns);
	w64(w, s->owd_mean_ns);
	w64(w, s->rxq_ovfl);
	w32(w, s->tcp_retransmits);
	w32(w, s->tcp_rtt_us);
	w32(w, s->tcp_rttvar_us);
	w32(w, s->tcp_snd_mss);
	w32(w, s->tcp_adv_mss);
	w32(w, s->tcp_rcv_mss);
	w32(w, s->tcp_pmtu);
	w32(w, s->tcp_snd_cwnd);
}

static void get_stream(struct rd *r, struct proto_stream_stats *s)
{
	s->stream_id = r32(r);
	s->flags = r32(r);
	s->bytes = r64(r);
	s->sent = r64(r);
	s->send_shortfall = r64(r);
	s->send_errors = r64(r);
	s->received = r64(r);
	s->lost = r64(r);
	s->duplicates = r64(r);
	s->reordered = r64(r);
	s->late = r64(r);
	s->malformed = r64(r);
	s->jitter_ns = r64(r);
	s->owd_min_ns = r64(r);
	s->owd_p50_ns = r64(r);
	s->owd_p99_ns = r64(r);
	s->owd_max_ns = r64(r);
	s->owd_mean_ns = r64(r);
	s->rxq_ovfl = r64(r);
	s->tcp_retransmits = r32(r);
	s->tcp_rtt_us = r32(r);
	s->tcp_rttvar_us = r32(r);
	s->tcp_snd_mss = r32(r);
	s->tcp_adv_mss = r32(r);
	s->tcp_rcv_mss = r32(r);
	s->tcp_pmtu = r32(r);
	s->tcp_snd_cwnd = r32(r);
}

static bool stream_valid(const struct proto_stream_stats *s)
{
	const uint32_t known = PROTO_SS_OWD_VALID | PROTO_SS_TCP_INFO | PROTO_SS_GSO | PROTO_SS_GRO;

	if (s->flags & ~known)
		return false;
	if ((s->flags & PROTO_SS_OWD_VALID) &&
	    (s->owd_min_ns > s->owd_p50_ns || s->owd_p50_ns > s->owd_p99_ns ||
	     s->owd_p99_ns > s->owd_max_ns))
		return false;
	return true;
}

ssize_t proto_encode_results(uint8_t *buf, size_t cap, const struct proto_results *m)
{
	struct wr w;
	ssize_t n;
	unsigned i;

	if (m->nstreams > PROTO_MAX_STREAMS ||
	    (m->role != PROTO_ROLE_SENDER && m->role != PROTO_ROLE_RECEIVER))
		return PROTO_E_VALUE;
	n = begin(buf, cap, PROTO_RESULTS,
		  PROTO_RESULTS_FIXED_LEN + (size_t)m->nstreams * PROTO_STREAM_STATS_LEN, &w);
	if (n < 0)
		return n;
	w32(&w, m->test_id);
	w8(&w, m->role);
	w8(&w, 0);
	w16(&w, m->nstreams);
	w64(&w, m->duration_ns);
	w64(&w, m->cpu_user_ns);
	w64(&w, m->cpu_sys_ns);
	w64(&w, m->cpu_wall_ns);
	w32(&w, m->rcvbuf_bytes);
	w32(&w, m->flags);
	w64(&w, m->host.udp_sndbuf_errors);
	w64(&w, m->host.udp_rcvbuf_errors);
	w64(&w, m->host.udp_in_errors);
	w64(&w, m->host.udp_in_datagrams);
	w64(&w, m->host.udp_out_datagrams);
	w64(&w, m->host.link_rx_drops);
	w64(&w, m->host.link_tx_drops);
	put_stream(&w, &m->total);
	for (i = 0; i < m->nstreams; i++)
		put_stream(&w, &m->streams[i]);
	return n;
}

int proto_decode_results(const uint8_t *body, size_t len, struct proto_results *m)
{
	struct rd r = { body, 0 };
	unsigned i;

	if (len < PROTO_RESULTS_FIXED_LEN)
		return PROTO_E_LENGTH;
	m->test_id = r32(&r);
	m->role = r8(&r);
	m->reserved = r8(&r);
	m->nstreams = r16(&r);
	if (m->nstreams > PROTO_MAX_STREAMS)
		return PROTO_E_VALUE;
	if (len != PROTO_RESULTS_FIXED_LEN + (size_t)m->nstreams * PROTO_STREAM_STATS_LEN)
		return PROTO_E_LENGTH;
	if (m->role != PROTO_ROLE_SENDER && m->role != PROTO_ROLE_RECEIVER)
		return PROTO_E_VALUE;
	m->duration_ns = r64(&r);
	m->cpu_user_ns = r64(&r);
	m->cpu_sys_ns = r64(&r);
	m->cpu_wall_ns = r64(&r);
	m->rcvbuf_bytes = r32(&r);
	m->flags = r32(&r);
	m->host.udp_sndbuf_errors = r64(&r);
	m->host.udp_rcvbuf_errors = r64(&r);
	m->host.udp_in_errors = r64(&r);
	m->host.udp_in_datagrams = r64(&r);
	m->host.udp_out_datagrams = r64(&r);
	m->host.link_rx_drops = r64(&r);
	m->host.link_tx_drops = r64(&r);
	get_stream(&r, &m->total);
	if (!stream_valid(&m->total))
		return PROTO_E_VALUE;
	for (i = 0; i < m->nstreams; i++) {
		get_stream(&r, &m->streams[i]);
		if (!stream_valid(&m->streams[i]))
			return PROTO_E_VALUE;
	}
	return 0;
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

/* ---- names --------------------------------------------------------------- */

const char *proto_type_name(uint16_t type)
{
	static const char *const names[] = {
		[PROTO_HELLO] = "HELLO",
		[PROTO_AUTH_CHALLENGE] = "AUTH_CHALLENGE",
		[PROTO_AUTH_RESPONSE] = "AUTH_RESPONSE",
		[PROTO_AUTH_OK] = "AUTH_OK",
		[PROTO_TEST_REQUEST] = "TEST_REQUEST",
		[PROTO_TEST_ACCEPT] = "TEST_ACCEPT",
		[PROTO_TEST_REJECT] = "TEST_REJECT",
		[PROTO_START] = "START",
		[PROTO_INTERVAL] = "INTERVAL",
		[PROTO_STOP] = "STOP",
		[PROTO_RESULTS] = "RESULTS",
		[PROTO_ERROR] = "ERROR",
		[PROTO_MTU_PROBE_REQUEST] = "MTU_PROBE_REQUEST",
		[PROTO_MTU_PROBE_REPLY] = "MTU_PROBE_REPLY",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}

const char *proto_reason_str(uint16_t code)
{
	static const char *const reasons[] = {
		[PROTO_R_UNSPEC] = "unspecified",
		[PROTO_R_BUSY] = "server busy",
		[PROTO_R_LIMIT_DURATION] = "duration above the server's limit",
		[PROTO_R_LIMIT_RATE] = "rate above the server's limit",
		[PROTO_R_LIMIT_STREAMS] = "streams above the server's limit",
		[PROTO_R_UNSUPPORTED] = "not supported by the server",
		[PROTO_R_AUTH] = "authentication failed",
		[PROTO_R_BAD_MESSAGE] = "malformed or unexpected message",
		[PROTO_R_TIMEOUT] = "message timed out",
		[PROTO_R_INTERNAL] = "internal error",
		[PROTO_R_INTERRUPTED] = "interrupted",
		[PROTO_R_VERSION] = "protocol version mismatch",
	};

	if (code < sizeof(reasons) / sizeof(reasons[0]) && reasons[code])
		return reasons[code];
	return "unknown reason";
}

const char *proto_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case PROTO_E_TRUNCATED:
		return "message truncated";
	case PROTO_E_LENGTH:
		return "message length does not match its type";
	case PROTO_E_TOOBIG:
		return "message larger than the protocol allows";
	case PROTO_E_MAGIC:
		return "not an ovlperf control connection (bad magic)";
	case PROTO_E_VERSION:
		return "unsupported protocol version";
	case PROTO_E_TYPE:
		return "unknown message type";
	case PROTO_E_VALUE:
		return "field out of range";
	case PROTO_E_EOF:
		return "peer closed the connection";
	case PROTO_E_EOF_PARTIAL:
		return "peer closed the connection in the middle of a message";
	case PROTO_E_STALLED:
		return "message not completed before its deadline";
	case PROTO_E_NOSPACE:
		return "buffer too small for message";
	default:
		return err < 0 ? strerror(-err) : "unknown error";
	}
}

/* ---- UDP test datagram -------------------------------------------------- */

int dgram_put(uint8_t *buf, size_t len, const struct dgram_hdr *h)
{
	if (len < DGRAM_HDR_LEN)
		return -EINVAL;
	put_be32(buf, DGRAM_MAGIC);
	put_be16(buf + 4, h->stream);
	put_be16(buf + 6, h->flags);
	put_be64(buf + 8, h->seq);
	put_be64(buf + 16, h->send_ns);
	put_be32(buf + 24, h->test_id);
	put_be32(buf + 28, 0);
	return 0;
}

void dgram_restamp(uint8_t buf[static DGRAM_HDR_LEN], uint64_t seq, uint64_t send_ns)
{
	put_be64(buf + 8, seq);
	put_be64(buf + 16, send_ns);
}

bool dgram_parse(const uint8_t *buf, size_t len, struct dgram_hdr *h)
{
	if (len < LOAD_UDP_MIN_LEN || get_be32(buf) != DGRAM_MAGIC)
		return false;
	h->stream = get_be16(buf + 4);
	h->flags = get_be16(buf + 6);
	if (h->flags & ~(uint16_t)(DGRAM_F_OMIT | DGRAM_F_FIN))
		return false;
	h->seq = get_be64(buf + 8);
	h->send_ns = get_be64(buf + 16);
	h->test_id = get_be32(buf + 24);
	return true;
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

