// SPDX-License-Identifier: MIT
/*
 * Codecs of the messages that describe a test (layouts in proto.h): the
 * client's TEST_REQUEST (and its mapping from / to a load_spec), the
 * server's TEST_ACCEPT, and the RESULTS of each side. Lengths are checked
 * against the type before any field is read.
 */
#include <errno.h>
#include <string.h>

#include "bytes.h"
#include "load_spec.h"
#include "proto.h"
#include "proto_int.h"

_Static_assert(PROTO_RESULTS_FIXED_LEN + PROTO_MAX_STREAMS * PROTO_STREAM_STATS_LEN <=
		       PROTO_MAX_BODY,
	       "RESULTS for every stream fits one message");
_Static_assert(PROTO_TEST_ACCEPT_FIXED_LEN + PROTO_MAX_STREAMS * 2 <= PROTO_MAX_BODY,
	       "TEST_ACCEPT fits");

/* ---- congestion control extension -------------------------------------- */

/* A name is 1..15 of [A-Za-z0-9_-] then NULs (tcp(7) names modules so);
 * "" says nothing. */
static bool cc_name_valid(const char *name)
{
	size_t n = strnlen(name, PROTO_CC_NAME_LEN);

	if (n == PROTO_CC_NAME_LEN)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-'))
			return false;
	}
	return true;
}

static void put_cc(struct wr *w, const char *name)
{
	uint8_t b[PROTO_CC_NAME_LEN] = { 0 };

	memcpy(b, name, strnlen(name, PROTO_CC_NAME_LEN - 1));
	wbytes(w, b, sizeof(b));
}

/* The extension at r: every byte after the name's NUL must be NUL too. */
static int get_cc(struct rd *r, char name[static PROTO_CC_NAME_LEN])
{
	size_t n;

	rbytes(r, (uint8_t *)name, PROTO_CC_NAME_LEN);
	n = strnlen(name, PROTO_CC_NAME_LEN);
	if (n == PROTO_CC_NAME_LEN || !cc_name_valid(name))
		return PROTO_E_VALUE;
	for (size_t i = n; i < PROTO_CC_NAME_LEN; i++)
		if (name[i])
			return PROTO_E_VALUE;
	return 0;
}

/* ---- TEST_REQUEST ------------------------------------------------------ */

static bool request_valid(const struct proto_test_request *m)
{
	bool short_hdr = m->flags & PROTO_REQ_DGRAM_SHORT;

	if (m->kind < PROTO_KIND_TCP || m->kind > PROTO_KIND_MTU)
		return false;
	if (m->dscp > 63)
		return false;
	if (m->flags & ~(uint16_t)(PROTO_REQ_REVERSE | PROTO_REQ_UDP_GSO | PROTO_REQ_UDP_GRO |
				   PROTO_REQ_IPV6 | PROTO_REQ_DONT_FRAG | PROTO_REQ_DGRAM_SHORT))
		return false;
	if (m->streams < 1 || m->streams > PROTO_MAX_STREAMS)
		return false;
	/* the short header is asked for exactly when the payload needs it */
	if (m->kind == PROTO_KIND_UDP && m->len != 0 &&
	    (m->len < LOAD_UDP_SHORT_MIN_LEN || m->len > LOAD_UDP_MAX_LEN ||
	     short_hdr != (m->len < LOAD_UDP_MIN_LEN)))
		return false;
	if (m->kind != PROTO_KIND_UDP && short_hdr)
		return false;
	return !m->has_cc || cc_name_valid(m->congestion);
}

ssize_t proto_encode_test_request(uint8_t *buf, size_t cap, const struct proto_test_request *m)
{
	struct wr w;
	ssize_t n;

	if (!request_valid(m))
		return PROTO_E_VALUE;
	n = begin(buf, cap, PROTO_TEST_REQUEST,
		  PROTO_TEST_REQUEST_LEN + (m->has_cc ? PROTO_CC_NAME_LEN : 0), &w);
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
	if (m->has_cc)
		put_cc(&w, m->congestion);
	return n;
}

int proto_decode_test_request(const uint8_t *body, size_t len, struct proto_test_request *m)
{
	struct rd r = { body, 0 };
	int ret;

	/* the fixed fields, and the congestion extension or nothing */
	if (len != PROTO_TEST_REQUEST_LEN && len != PROTO_TEST_REQUEST_LEN + PROTO_CC_NAME_LEN)
		return PROTO_E_LENGTH;
	memset(m, 0, sizeof(*m));
	m->has_cc = len != PROTO_TEST_REQUEST_LEN;
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
	if (m->has_cc && (ret = get_cc(&r, m->congestion)) < 0)
		return ret;
	return request_valid(m) ? 0 : PROTO_E_VALUE;
}

int proto_test_request_from_spec(const struct load_spec *spec, struct proto_test_request *req)
{
	memset(req, 0, sizeof(*req));
	if (spec->proto != LOAD_TCP && spec->proto != LOAD_UDP)
		return PROTO_E_VALUE;
	req->kind = spec->proto == LOAD_TCP ? PROTO_KIND_TCP : PROTO_KIND_UDP;
	req->dscp = spec->dscp;
	req->flags =
		(uint16_t)((spec->reverse ? PROTO_REQ_REVERSE : 0) |
			   (spec->udp_gso ? PROTO_REQ_UDP_GSO : 0) |
			   (spec->udp_gro ? PROTO_REQ_UDP_GRO : 0) |
			   (spec->family == AF_INET6 ? PROTO_REQ_IPV6 : 0) |
			   (spec->dont_fragment ? PROTO_REQ_DONT_FRAG : 0) |
			   (spec->proto == LOAD_UDP && spec->len && spec->len < LOAD_UDP_MIN_LEN
				    ? PROTO_REQ_DGRAM_SHORT
				    : 0));
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
	if (strlen(spec->congestion) >= PROTO_CC_NAME_LEN)
		return PROTO_E_VALUE;
	memcpy(req->congestion, spec->congestion, strlen(spec->congestion) + 1);
	req->has_cc = req->congestion[0] != 0;
	return request_valid(req) ? 0 : PROTO_E_VALUE;
}

void proto_test_request_to_spec(const struct proto_test_request *req, struct load_spec *spec)
{
	spec->proto = req->kind == PROTO_KIND_UDP ? LOAD_UDP : LOAD_TCP;
	spec->dscp = req->dscp;
	spec->reverse = req->flags & PROTO_REQ_REVERSE;
	spec->udp_gso = req->flags & PROTO_REQ_UDP_GSO;
	spec->udp_gro = req->flags & PROTO_REQ_UDP_GRO;
	spec->dont_fragment = req->flags & PROTO_REQ_DONT_FRAG;
	spec->family = req->flags & PROTO_REQ_IPV6 ? AF_INET6 : AF_INET;
	spec->streams = req->streams;
	spec->len = req->len;
	spec->mss = req->mss;
	spec->sock_buf = req->sock_buf;
	spec->duration_ns = req->duration_ns;
	spec->omit_ns = req->omit_ns;
	spec->interval_ns = req->interval_ns;
	spec->rate_bps = req->rate_bps;
	memcpy(spec->congestion, req->congestion, sizeof(req->congestion));
	spec->congestion[sizeof(spec->congestion) - 1] = '\0';
}

/* ---- TEST_ACCEPT ------------------------------------------------------- */

ssize_t proto_encode_test_accept(uint8_t *buf, size_t cap, const struct proto_test_accept *m)
{
	struct wr w;
	ssize_t n;
	unsigned i;

	if (m->nports < 1 || m->nports > PROTO_MAX_STREAMS ||
	    (m->has_cc && !cc_name_valid(m->congestion)))
		return PROTO_E_VALUE;
	n = begin(buf, cap, PROTO_TEST_ACCEPT,
		  PROTO_TEST_ACCEPT_FIXED_LEN + 2u * m->nports +
			  (m->has_cc ? PROTO_CC_NAME_LEN : 0),
		  &w);
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
	if (m->has_cc)
		put_cc(&w, m->congestion);
	return n;
}

int proto_decode_test_accept(const uint8_t *body, size_t len, struct proto_test_accept *m)
{
	struct rd r = { body, 0 };
	size_t base;
	unsigned i;

	if (len < PROTO_TEST_ACCEPT_FIXED_LEN)
		return PROTO_E_LENGTH;
	memset(m, 0, sizeof(*m));
	m->test_id = r32(&r);
	rbytes(&r, m->cookie, PROTO_COOKIE_LEN);
	m->max_duration_ns = r64(&r);
	m->max_rate_bps = r64(&r);
	m->max_streams = r16(&r);
	m->nports = r16(&r);
	/* The count must account for the length exactly, and be in range. */
	if (m->nports < 1 || m->nports > PROTO_MAX_STREAMS)
		return PROTO_E_VALUE;
	/* ... with the congestion extension after the ports, or nothing */
	base = PROTO_TEST_ACCEPT_FIXED_LEN + 2u * m->nports;
	if (len != base && len != base + PROTO_CC_NAME_LEN)
		return PROTO_E_LENGTH;
	for (i = 0; i < m->nports; i++) {
		m->ports[i] = r16(&r);
		if (m->ports[i] == 0)
			return PROTO_E_VALUE;
	}
	m->has_cc = len != base;
	return m->has_cc ? get_cc(&r, m->congestion) : 0;
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

static void put_local(struct wr *w, const struct proto_local_drops *l)
{
	uint8_t text[16];

	w32(w, l->flags);
	w32(w, l->txqlen);
	w64(w, l->qdisc_drops);
	w64(w, l->refused_msgs);
	w64(w, l->refused_dgrams);
	w64(w, l->hidden_msgs);
	w64(w, l->hidden_dgrams);
	w64(w, l->sndbuf_unseen);
	w64(w, l->qdisc_units);
	w64(w, l->other_units);
	w64(w, l->tunnel_drops);
	memset(text, 0, sizeof(text));
	memcpy(text, l->qdisc_kind, strnlen(l->qdisc_kind, sizeof(text) - 1));
	wbytes(w, text, sizeof(text));
	memset(text, 0, sizeof(text));
	memcpy(text, l->qdisc_if, strnlen(l->qdisc_if, sizeof(text) - 1));
	wbytes(w, text, sizeof(text));
}

static void get_local(struct rd *r, struct proto_local_drops *l)
{
	uint8_t text[16];

	l->flags = r32(r);
	l->txqlen = r32(r);
	l->qdisc_drops = r64(r);
	l->refused_msgs = r64(r);
	l->refused_dgrams = r64(r);
	l->hidden_msgs = r64(r);
	l->hidden_dgrams = r64(r);
	l->sndbuf_unseen = r64(r);
	l->qdisc_units = r64(r);
	l->other_units = r64(r);
	l->tunnel_drops = r64(r);
	rbytes(r, text, sizeof(text));
	copy_text(l->qdisc_kind, text, sizeof(text) - 1);
	rbytes(r, text, sizeof(text));
	copy_text(l->qdisc_if, text, sizeof(text) - 1);
}

static void put_wait(struct wr *w, const struct proto_rx_wait *x)
{
	w32(w, x->flags);
	w32(w, x->reserved);
	w64(w, x->samples);
	w64(w, x->min_ns);
	w64(w, x->p50_ns);
	w64(w, x->p99_ns);
	w64(w, x->max_ns);
	w64(w, x->mean_ns);
}

static void get_wait(struct rd *r, struct proto_rx_wait *x)
{
	x->flags = r32(r);
	x->reserved = r32(r);
	x->samples = r64(r);
	x->min_ns = r64(r);
	x->p50_ns = r64(r);
	x->p99_ns = r64(r);
	x->max_ns = r64(r);
	x->mean_ns = r64(r);
}

static bool wait_valid(const struct proto_rx_wait *x)
{
	if (x->flags)
		return false;
	if (!x->samples)
		return !x->min_ns && !x->p50_ns && !x->p99_ns && !x->max_ns && !x->mean_ns;
	return x->min_ns <= x->p50_ns && x->p50_ns <= x->p99_ns && x->p99_ns <= x->max_ns &&
	       x->min_ns <= x->mean_ns && x->mean_ns <= x->max_ns;
}

static void put_sock(struct wr *w, const struct proto_sock_drops *x)
{
	w32(w, x->flags);
	w32(w, x->tail_skbs);
	w64(w, x->dgrams);
	w64(w, x->skbs);
}

static void get_sock(struct rd *r, struct proto_sock_drops *x)
{
	x->flags = r32(r);
	x->tail_skbs = r32(r);
	x->dgrams = r64(r);
	x->skbs = r64(r);
}

/* Which optional tails a RESULTS body of len bytes holds past base: the
 * one mix of them whose lengths add up to the rest. */
static void put_owner(struct wr *w, const struct proto_sock_owner *x)
{
	uint8_t comm[PROTO_SOCK_OWNER_COMM] = { 0 };

	memcpy(comm, x->comm, strnlen(x->comm, sizeof(comm) - 1));
	w32(w, x->pid);
	w16(w, x->port);
	w8(w, x->family);
	w8(w, x->flags);
	w64(w, x->drops);
	wbytes(w, comm, sizeof(comm));
	w64(w, x->others);
	w64(w, x->inode);
}

static void get_owner(struct rd *r, struct proto_sock_owner *x)
{
	uint8_t comm[PROTO_SOCK_OWNER_COMM];

	x->pid = r32(r);
	x->port = r16(r);
	x->family = r8(r);
	x->flags = r8(r);
	x->drops = r64(r);
	rbytes(r, comm, sizeof(comm));
	copy_text(x->comm, comm, sizeof(comm) - 1);
	x->others = r64(r);
	x->inode = r64(r);
}

_Static_assert(PROTO_SOCK_OWNER_LEN == 4 + 2 + 1 + 1 + 8 + PROTO_SOCK_OWNER_COMM + 8 + 8,
	       "sock owner tail");

static void put_limits(struct wr *w, const struct proto_tcp_limits *x)
{
	w32(w, x->flags);
	w32(w, x->streams);
	w64(w, x->window_us);
	w64(w, x->busy_us);
	w64(w, x->rwnd_limited_us);
	w64(w, x->sndbuf_limited_us);
	w64(w, x->bytes_sent);
	w64(w, x->bytes_retrans);
	w64(w, x->delivery_Bps);
	w32(w, x->app_limited_streams);
	w32(w, x->min_rtt_us);
	w32(w, x->snd_wnd);
	w32(w, x->sock_sndbuf);
	w32(w, x->sock_rcvbuf);
	w32(w, x->tcp_rmem_max);
	w32(w, x->tcp_wmem_max);
	w32(w, x->rmem_max);
	w32(w, x->wmem_max);
	w32(w, x->thread_cpu_permille);
	w32(w, x->rcv_space);
}

static void get_limits(struct rd *r, struct proto_tcp_limits *x)
{
	x->flags = r32(r);
	x->streams = r32(r);
	x->window_us = r64(r);
	x->busy_us = r64(r);
	x->rwnd_limited_us = r64(r);
	x->sndbuf_limited_us = r64(r);
	x->bytes_sent = r64(r);
	x->bytes_retrans = r64(r);
	x->delivery_Bps = r64(r);
	x->app_limited_streams = r32(r);
	x->min_rtt_us = r32(r);
	x->snd_wnd = r32(r);
	x->sock_sndbuf = r32(r);
	x->sock_rcvbuf = r32(r);
	x->tcp_rmem_max = r32(r);
	x->tcp_wmem_max = r32(r);
	x->rmem_max = r32(r);
	x->wmem_max = r32(r);
	x->thread_cpu_permille = r32(r);
	x->rcv_space = r32(r);
}

_Static_assert(PROTO_TCP_LIMITS_LEN == 2 * 4 + 7 * 8 + 11 * 4, "tcp limits tail");

/* The chronographs' parts lie within busy time, busy time within the
 * window (a jiffy's rounding aside), resent bytes within those sent. */
static bool limits_valid(const struct proto_tcp_limits *x)
{
	return !(x->flags & ~(PROTO_TL_CHRONO | PROTO_TL_SYSCTL)) && x->streams &&
	       x->streams <= PROTO_MAX_STREAMS && x->app_limited_streams <= x->streams &&
	       x->rwnd_limited_us <= x->busy_us && x->sndbuf_limited_us <= x->busy_us &&
	       x->bytes_retrans <= x->bytes_sent && x->thread_cpu_permille <= 10000;
}

static size_t tail_len(unsigned mix)
{
	return (mix & 1 ? PROTO_LOCAL_DROPS_LEN : 0) + (mix & 2 ? PROTO_RX_WAIT_LEN : 0) +
	       (mix & 4 ? PROTO_SOCK_DROPS_LEN : 0) + (mix & 8 ? PROTO_SOCK_OWNER_LEN : 0) +
	       (mix & 16 ? PROTO_TCP_LIMITS_LEN : 0);
}

static bool tails_of(size_t len, size_t base, struct proto_results *m)
{
	for (unsigned mix = 0; mix < 32; mix++) {
		if (base + tail_len(mix) == len) {
			m->has_local_drops = mix & 1;
			m->has_rx_wait = mix & 2;
			m->has_sock_drops = mix & 4;
			m->has_sock_owner = mix & 8;
			m->has_tcp_limits = mix & 16;
			return true;
		}
	}
	return false;
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
		  PROTO_RESULTS_FIXED_LEN + (size_t)m->nstreams * PROTO_STREAM_STATS_LEN +
			  (m->has_local_drops ? PROTO_LOCAL_DROPS_LEN : 0) +
			  (m->has_rx_wait ? PROTO_RX_WAIT_LEN : 0) +
			  (m->has_sock_drops ? PROTO_SOCK_DROPS_LEN : 0) +
			  (m->has_sock_owner ? PROTO_SOCK_OWNER_LEN : 0) +
			  (m->has_tcp_limits ? PROTO_TCP_LIMITS_LEN : 0),
		  &w);
	if (n < 0)
		return n;
	w32(&w, m->test_id);
	w8(&w, m->role);
	w8(&w, m->sched_prio);
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
	if (m->has_local_drops)
		put_local(&w, &m->local);
	if (m->has_rx_wait)
		put_wait(&w, &m->rx_wait);
	if (m->has_sock_drops)
		put_sock(&w, &m->sock_drops);
	if (m->has_sock_owner)
		put_owner(&w, &m->sock_owner);
	if (m->has_tcp_limits)
		put_limits(&w, &m->tcp_limits);
	return n;
}

int proto_decode_results(const uint8_t *body, size_t len, struct proto_results *m)
{
	struct rd r = { body, 0 };
	size_t base;
	unsigned i;

	if (len < PROTO_RESULTS_FIXED_LEN)
		return PROTO_E_LENGTH;
	m->test_id = r32(&r);
	m->role = r8(&r);
	m->sched_prio = r8(&r);
	m->nstreams = r16(&r);
	if (m->nstreams > PROTO_MAX_STREAMS)
		return PROTO_E_VALUE;
	base = PROTO_RESULTS_FIXED_LEN + (size_t)m->nstreams * PROTO_STREAM_STATS_LEN;
	/* the optional tails, in this order; their lengths differ, so the
	 * total says which are there */
	if (!tails_of(len, base, m))
		return PROTO_E_LENGTH;
	if (m->role != PROTO_ROLE_SENDER && m->role != PROTO_ROLE_RECEIVER)
		return PROTO_E_VALUE;
	m->duration_ns = r64(&r);
	m->cpu_user_ns = r64(&r);
	m->cpu_sys_ns = r64(&r);
	m->cpu_wall_ns = r64(&r);
	m->rcvbuf_bytes = r32(&r);
	m->flags = r32(&r);
	/* sched(7): real-time priorities are 1..99 */
	if ((m->flags & PROTO_RES_SCHED) && m->sched_prio > 99)
		return PROTO_E_VALUE;
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
	memset(&m->local, 0, sizeof(m->local));
	if (m->has_local_drops) {
		get_local(&r, &m->local);
		if (m->local.flags & ~(PROTO_LD_QDISC_READ | PROTO_LD_TUNNEL_READ))
			return PROTO_E_VALUE;
	}
	memset(&m->rx_wait, 0, sizeof(m->rx_wait));
	if (m->has_rx_wait) {
		get_wait(&r, &m->rx_wait);
		if (!wait_valid(&m->rx_wait))
			return PROTO_E_VALUE;
	}
	memset(&m->sock_drops, 0, sizeof(m->sock_drops));
	if (m->has_sock_drops) {
		get_sock(&r, &m->sock_drops);
		/* a dropped skb holds one datagram or more */
		if ((m->sock_drops.flags & ~PROTO_SD_GRO) || m->sock_drops.dgrams > m->total.lost)
			return PROTO_E_VALUE;
	}
	memset(&m->sock_owner, 0, sizeof(m->sock_owner));
	if (m->has_sock_owner) {
		get_owner(&r, &m->sock_owner);
		if (m->sock_owner.flags ||
		    (m->sock_owner.family != 4 && m->sock_owner.family != 6) ||
		    m->sock_owner.drops > m->sock_owner.others)
			return PROTO_E_VALUE;
	}
	memset(&m->tcp_limits, 0, sizeof(m->tcp_limits));
	if (m->has_tcp_limits) {
		get_limits(&r, &m->tcp_limits);
		if (!limits_valid(&m->tcp_limits))
			return PROTO_E_VALUE;
	}
	return 0;
}
