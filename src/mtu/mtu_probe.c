// SPDX-License-Identifier: MIT
/*
 * The client of `ovlperf mtu`: opens a control session of kind MTU with an
 * `ovlperf server`, then drives mtu_search with UDP probes sent with DF set
 * (IP_PMTUDISC_PROBE: the local PMTU cache is ignored, so every probe reaches
 * the network) and counts a probe only when the server confirms it over the
 * control connection. ICMP too-big messages are read from the socket's error
 * queue (IP_RECVERR) as hints and as evidence against a black hole.
 */
#include <errno.h>
#include <time.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "auth.h"
#include "clock.h"
#include "ctrl.h"
#include "interrupt.h"
#include "load_spec.h"
#include "log.h"
#include "mtu.h"
#include "mtu_wire.h"
#include "proto.h"
#include "version.h"

#define CONNECT_TIMEOUT_MS 5000
#define REPLY_SLACK_MS	   5000
#define MIN_WAIT_MS	   20
#define V4_UDP_HDR	   28
#define V6_UDP_HDR	   48

struct prober {
	struct ctrl c;
	bool have_ctrl;
	int udp;
	int family;
	uint64_t token;
	bool one_port; /* the server takes everything on its port */
	uint32_t round;
	uint16_t wait_ms;
	uint8_t *buf;
	bool late_icmp;
	bool watch_frags;     /* read the fragment counters around every round */
	bool drop_fragmented; /* the second search: a fragmented round failed */
	bool have_first_report;
	struct mtu_wire_report first, last;
	unsigned reassembled;
	struct mtu_path_result *res;
};

static int fail(struct mtu_path_result *res, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct mtu_path_result *res, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(res->error, sizeof(res->error), fmt, ap);
	va_end(ap);
	res->status = err < 0 ? err : -EIO;
	return res->status;
}

void mtu_probe_spec_defaults(struct mtu_probe_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	snprintf(spec->name, sizeof(spec->name), "path");
	spec->family = AF_UNSPEC;
	spec->base = MTU_DEFAULT_BASE;
	spec->probes = MTU_DEFAULT_PROBES;
	spec->timeout_ns = MTU_DEFAULT_TIMEOUT_NS;
	spec->fragments = true;
}

static int connect_ctrl(const struct mtu_probe_spec *spec, struct sockaddr_storage *ss, int *fdp)
{
	socklen_t sl;
	int fd, rc, soerr = 0;
	struct pollfd p;

	rc = addr_resolve(spec->host, spec->port ? spec->port : LOAD_DEFAULT_PORT, spec->family,
			  false, ss, &sl);
	if (rc < 0)
		return rc;
	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)ss, sl) < 0 && errno != EINPROGRESS) {
		rc = -errno;
		close(fd);
		return rc;
	}
	p = (struct pollfd){ .fd = fd, .events = POLLOUT };
	rc = poll(&p, 1, CONNECT_TIMEOUT_MS);
	sl = sizeof(soerr);
	if (rc <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
		close(fd);
		return rc == 0 ? -ETIMEDOUT : soerr ? -soerr : -errno;
	}
	*fdp = fd;
	return 0;
}

/* Receives one message of type want (PROTO_ERROR becomes a sentence). */
static int recv_type(struct prober *p, uint16_t want, struct proto_msg *m, int wait_ms)
{
	int rc = ctrl_recv(&p->c, m, wait_ms, true);

	/* A server that acknowledges the MTU request with TEST_ACCEPT before
	 * the session (mtu_serve.h says it need not) is fine too. */
	if (rc == 1 && m->type == PROTO_TEST_ACCEPT && want == PROTO_MTU_PROBE_REPLY)
		rc = ctrl_recv(&p->c, m, wait_ms, true);

	if (rc == 0)
		return fail(p->res, -ETIMEDOUT, "the server did not answer within %d ms", wait_ms);
	if (rc < 0)
		return fail(p->res, rc, "control connection: %s", proto_strerror(rc));
	if (m->type == PROTO_ERROR || m->type == PROTO_TEST_REJECT) {
		struct proto_text t = { 0 };

		proto_decode_text(m->body, m->len, &t);
		return fail(p->res, -ECONNREFUSED, "the server refused: %s (%s)", t.text,
			    proto_reason_str(t.code));
	}
	if (m->type != want)
		return fail(p->res, -EPROTO, "expected %s from the server, got %s",
			    proto_type_name(want), proto_type_name(m->type));
	return 0;
}

static int authenticate(struct prober *p, const char *psk_file)
{
	struct auth_key *key = NULL;
	struct proto_auth_challenge ch;
	struct proto_auth_response resp;
	struct proto_auth_ok ok;
	struct proto_msg m;
	char err[256] = "";
	int rc;

	if (!psk_file[0])
		return fail(p->res, -EACCES, "the server requires a pre-shared key (--psk-file)");
	rc = auth_key_load(psk_file, &key, err, sizeof(err));
	if (rc < 0)
		return fail(p->res, rc, "%s", err);
	rc = recv_type(p, PROTO_AUTH_CHALLENGE, &m, CTRL_DEFAULT_MSG_TIMEOUT_MS);
	if (rc == 0 && proto_decode_auth_challenge(m.body, m.len, &ch) < 0)
		rc = fail(p->res, -EPROTO, "malformed AUTH_CHALLENGE");
	if (rc == 0) {
		auth_nonce(resp.client_nonce);
		auth_proof(key, AUTH_CLIENT, ch.server_nonce, resp.client_nonce, PROTO_VERSION,
			   resp.mac);
		rc = ctrl_send(&p->c, proto_encode_auth_response(p->c.out, PROTO_MAX_MSG, &resp));
	}
	if (rc == 0)
		rc = recv_type(p, PROTO_AUTH_OK, &m, CTRL_DEFAULT_MSG_TIMEOUT_MS);
	if (rc == 0 && (proto_decode_auth_ok(m.body, m.len, &ok) < 0 ||
			auth_verify(key, AUTH_SERVER, ch.server_nonce, resp.client_nonce,
				    PROTO_VERSION, ok.mac) < 0))
		rc = fail(p->res, -EACCES, "the server's proof is wrong: it does not hold the key");
	auth_key_free(key);
	return rc;
}

/* HELLO, authentication, TEST_REQUEST of kind MTU. Measures the control
 * round trip on the way, for the probe wait. */
static int handshake(struct prober *p, const struct mtu_probe_spec *spec, uint64_t *rtt_ns)
{
	struct proto_hello h = { .version = PROTO_VERSION, .caps = PROTO_CAP_MTU };
	struct proto_test_request rq = { .kind = PROTO_KIND_MTU, .streams = 1 };
	struct proto_msg m;
	uint64_t t0 = clock_now_ns();
	int rc;

	snprintf(h.software, sizeof(h.software), "ovlperf %s", OVLPERF_VERSION);
	rc = ctrl_send(&p->c, proto_encode_hello(p->c.out, PROTO_MAX_MSG, &h));
	if (rc < 0)
		return fail(p->res, rc, "sending HELLO: %s", proto_strerror(rc));
	rc = recv_type(p, PROTO_HELLO, &m, CTRL_DEFAULT_MSG_TIMEOUT_MS);
	if (rc < 0)
		return rc;
	*rtt_ns = clock_now_ns() - t0;
	if (proto_decode_hello(m.body, m.len, &h) < 0)
		return fail(p->res, -EPROTO, "malformed HELLO from the server");
	if (!(h.caps & PROTO_CAP_MTU))
		return fail(p->res, -EOPNOTSUPP, "the server (%s) does not serve MTU probes",
			    h.software);
	p->one_port = h.caps & PROTO_CAP_ONE_PORT;
	if (h.caps & PROTO_CAP_AUTH_REQUIRED) {
		rc = authenticate(p, spec->psk_file);
		if (rc < 0)
			return rc;
	}
	if (p->family == AF_INET6)
		rq.flags |= PROTO_REQ_IPV6;
	rc = ctrl_send(&p->c, proto_encode_test_request(p->c.out, PROTO_MAX_MSG, &rq));
	return rc < 0 ? fail(p->res, rc, "sending TEST_REQUEST: %s", proto_strerror(rc)) : 0;
}

static int send_op(struct prober *p, enum mtu_wire_op op, const uint8_t *body, size_t len)
{
	uint8_t b[MTU_WIRE_OP_LEN + 32];
	int rc;

	if (len > sizeof(b) - MTU_WIRE_OP_LEN)
		return fail(p->res, -EINVAL, "MTU message body too long");
	mtu_wire_put_op(b, op);
	if (len)
		memcpy(b + MTU_WIRE_OP_LEN, body, len);
	rc = ctrl_send(&p->c, proto_encode_opaque(p->c.out, PROTO_MAX_MSG, PROTO_MTU_PROBE_REQUEST,
						  b, MTU_WIRE_OP_LEN + len));
	return rc < 0 ? fail(p->res, rc, "control connection: %s", proto_strerror(rc)) : 0;
}

/* Waits for the reply op; body and len point past the op header. */
static int recv_op(struct prober *p, enum mtu_wire_op want, const uint8_t **body, size_t *len,
		   int wait_ms)
{
	struct proto_msg m;
	enum mtu_wire_op op;
	int rc = recv_type(p, PROTO_MTU_PROBE_REPLY, &m, wait_ms);

	if (rc < 0)
		return rc;
	if (!mtu_wire_get_op(m.body, m.len, &op) || op != want)
		return fail(p->res, -EPROTO, "unexpected MTU reply from the server");
	*body = m.body + MTU_WIRE_OP_LEN;
	*len = m.len - MTU_WIRE_OP_LEN;
	return 0;
}

static int open_session(struct prober *p, const struct mtu_probe_spec *spec,
			struct sockaddr_storage *server, struct mtu_wire_ready *ready)
{
	struct mtu_wire_request rq = { .version = MTU_WIRE_VERSION };
	uint8_t b[MTU_WIRE_REQUEST_LEN], rnd[AUTH_NONCE_LEN];
	const uint8_t *body;
	size_t len;
	uint64_t rtt = 0, wait;
	int fd = -1, rc;

	rc = connect_ctrl(spec, server, &fd);
	if (rc < 0)
		return fail(p->res, rc, "cannot reach the server %s: %s", spec->host,
			    strerror(-rc));
	rc = ctrl_init(&p->c, fd, CTRL_DEFAULT_MSG_TIMEOUT_MS);
	if (rc < 0) {
		close(fd);
		return fail(p->res, rc, "out of memory");
	}
	p->have_ctrl = true;
	addr_unmap(server);
	p->family = server->ss_family;
	rc = handshake(p, spec, &rtt);
	if (rc < 0)
		return rc;
	/* Long enough for a probe that left before the query to arrive after
	 * it, short enough that a black-holed size costs little. */
	wait = 4 * rtt / NSEC_PER_MSEC + 10;
	if (wait < MIN_WAIT_MS)
		wait = MIN_WAIT_MS;
	if (wait > spec->timeout_ns / NSEC_PER_MSEC)
		wait = spec->timeout_ns / NSEC_PER_MSEC;
	p->wait_ms = (uint16_t)(wait > MTU_WIRE_MAX_WAIT_MS ? MTU_WIRE_MAX_WAIT_MS : wait);
	auth_nonce(rnd); /* random bytes for the token */
	memcpy(&p->token, rnd, sizeof(p->token));
	rq.token = p->token;
	rq.family = p->family == AF_INET6 ? 6 : 4;
	rq.flags = (spec->tcp_mss ? MTU_WIRE_F_TCP : 0) | (p->one_port ? MTU_WIRE_F_ONE_PORT : 0);
	mtu_wire_put_request(b, &rq);
	rc = send_op(p, MTU_OP_OPEN, b, sizeof(b));
	if (rc == 0)
		rc = recv_op(p, MTU_OP_READY, &body, &len, CTRL_DEFAULT_MSG_TIMEOUT_MS);
	if (rc == 0 && !mtu_wire_get_ready(body, len, ready))
		rc = fail(p->res, -EPROTO, "malformed READY from the server");
	return rc;
}

static int open_udp(struct prober *p, const struct sockaddr_storage *server, uint16_t port,
		    uint16_t cport)
{
	struct sockaddr_storage ss = *server;
	int one = 1, probe, rc;

	addr_set_port(&ss, port);
	p->udp = socket(p->family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (p->udp < 0)
		return -errno;
	rc = mtu_bind_port(p->udp, p->family, cport);
	if (rc < 0)
		return rc;
	if (p->family == AF_INET6) {
		probe = IPV6_PMTUDISC_PROBE;
		if (setsockopt(p->udp, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &probe, sizeof(probe)) <
			    0 ||
		    setsockopt(p->udp, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof(one)) < 0 ||
		    setsockopt(p->udp, IPPROTO_IPV6, IPV6_DONTFRAG, &one, sizeof(one)) < 0)
			return -errno;
	} else {
		probe = IP_PMTUDISC_PROBE;
		if (setsockopt(p->udp, IPPROTO_IP, IP_MTU_DISCOVER, &probe, sizeof(probe)) < 0 ||
		    setsockopt(p->udp, IPPROTO_IP, IP_RECVERR, &one, sizeof(one)) < 0)
			return -errno;
	}
	if (connect(p->udp, (struct sockaddr *)&ss, addr_len(&ss)) < 0)
		return -errno;
	return 0;
}

/* Reads the error queue: ICMP too-big (and local refusals) for our probes.
 * Sets *icmp / *icmp_mtu / *local_mtu for entries of this round (or without a
 * readable probe header); entries of older rounds only mark late_icmp. */
static void drain_errors(struct prober *p, bool *icmp, uint32_t *icmp_mtu, uint32_t *local_mtu)
{
	for (;;) {
		union {
			char buf[512];
			struct cmsghdr align;
		} cm;
		uint8_t data[64];
		struct iovec iov = { data, sizeof(data) };
		struct msghdr mh = { .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = cm.buf,
				     .msg_controllen = sizeof(cm.buf) };
		ssize_t n = recvmsg(p->udp, &mh, MSG_ERRQUEUE | MSG_DONTWAIT);
		struct mtu_wire_probe pr;
		bool ours;

		if (n < 0)
			return;
		ours = !mtu_wire_get_probe(data, (size_t)n, &pr) || pr.round == p->round;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			const struct sock_extended_err *ee;

			if (!((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVERR) ||
			      (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_RECVERR)))
				continue;
			ee = (const struct sock_extended_err *)CMSG_DATA(c);
			if (ee->ee_origin == SO_EE_ORIGIN_LOCAL && ee->ee_errno == EMSGSIZE) {
				if (ours)
					*local_mtu = ee->ee_info;
			} else if ((ee->ee_origin == SO_EE_ORIGIN_ICMP && ee->ee_type == 3 &&
				    ee->ee_code == 4) ||
				   (ee->ee_origin == SO_EE_ORIGIN_ICMP6 && ee->ee_type == 2)) {
				if (!ours) {
					p->late_icmp = true;
					continue;
				}
				*icmp = true;
				if (ee->ee_info && (!*icmp_mtu || ee->ee_info < *icmp_mtu))
					*icmp_mtu = ee->ee_info;
			}
		}
	}
}

/* Errors with which this host's stack refuses one datagram, not the socket:
 * a full device queue or qdisc (ENOBUFS), a local firewall (EPERM, EACCES),
 * a route or neighbour that is gone. The probe is lost like one dropped on
 * the way; PMTU discovery exists to find such silent limits. */
static bool local_refusal(int err)
{
	switch (err) {
	case ENOBUFS:
	case EPERM:
	case EACCES:
	case EAGAIN:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case ENETDOWN:
	case EHOSTDOWN:
		return true;
	default:
		return false;
	}
}

/* Sends one probe. 1 sent, 0 refused locally as too big, 2 refused by this
 * host for another reason (*refused_errno), negative: error. */
static int send_probe(struct prober *p, uint32_t size, unsigned index, bool *icmp,
		      uint32_t *icmp_mtu, uint32_t *local_mtu, int *refused_errno)
{
	size_t hdr = p->family == AF_INET6 ? V6_UDP_HDR : V4_UDP_HDR;
	struct mtu_wire_probe pr = {
		.token = p->token, .round = p->round, .index = (uint16_t)index, .size = size
	};

	mtu_wire_put_probe(p->buf, &pr);
	for (int attempt = 0; attempt < 3; attempt++) {
		if (send(p->udp, p->buf, size - hdr, 0) >= 0)
			return 1;
		if (local_refusal(errno)) {
			*refused_errno = errno;
			return 2;
		}
		if (errno != EMSGSIZE && errno != ECONNREFUSED && errno != EINTR)
			return -errno;
		/* An ICMP error reported on the socket fails the next send once
		 * (IP_RECVERR); the queue tells it from a local refusal. */
		*local_mtu = 0;
		drain_errors(p, icmp, icmp_mtu, local_mtu);
		if (*local_mtu)
			return 0;
	}
	return 0;
}

/* Asks the server which probes of the current round arrived. */
static int query_round(struct prober *p, unsigned sent, struct mtu_wire_report *rep)
{
	uint8_t q[MTU_WIRE_QUERY_LEN];
	struct mtu_wire_query qu = { .round = p->round,
				     .sent = (uint16_t)sent,
				     .wait_ms = sent ? p->wait_ms : 0 };
	const uint8_t *body;
	size_t len;
	int rc;

	mtu_wire_put_query(q, &qu);
	rc = send_op(p, MTU_OP_QUERY, q, sizeof(q));
	if (rc == 0)
		rc = recv_op(p, MTU_OP_REPORT, &body, &len, p->wait_ms + REPLY_SLACK_MS);
	if (rc < 0)
		return rc;
	if (!mtu_wire_get_report(body, len, rep) || rep->round != p->round)
		return fail(p->res, -EPROTO, "malformed REPORT from the server");
	return 0;
}

static int run_round(struct prober *p, const struct mtu_step *st, struct mtu_outcome *o)
{
	struct mtu_frag_counters before = { 0 }, after = { 0 };
	struct mtu_wire_report rep, prev = p->last;
	bool counted = p->watch_frags && mtu_frag_counters_read(&before) == 0;
	uint32_t local_mtu = 0;
	int rc;

	memset(o, 0, sizeof(*o));
	o->size = st->size;
	p->round++;
	for (unsigned i = 0; i < st->count; i++) {
		rc = send_probe(p, st->size, i, &o->icmp, &o->icmp_mtu, &local_mtu,
				&o->refused_errno);
		if (rc < 0)
			return fail(p->res, rc, "sending a %u-byte probe: %s", st->size,
				    strerror(-rc));
		if (rc == 0) {
			o->local_too_big = true;
			o->icmp_mtu = local_mtu;
			break;
		}
		if (rc == 2)
			o->refused++;
		o->sent++;
	}
	rc = query_round(p, o->sent - o->refused, &rep);
	if (rc < 0)
		return rc;
	o->delivered = (unsigned)__builtin_popcount(rep.mask & ((1u << st->count) - 1));
	p->reassembled += rep.reassembled;
	if (counted && mtu_frag_counters_read(&after) == 0)
		o->fragmented = after.frag_creates != before.frag_creates ||
				(p->have_first_report && rep.reasm_reqds != prev.reasm_reqds) ||
				rep.reassembled;
	if (!p->have_first_report)
		p->first = rep;
	p->have_first_report = true;
	p->last = rep;
	drain_errors(p, &o->icmp, &o->icmp_mtu, &local_mtu);
	log_debug("round %u: %u bytes, %u/%u delivered, %u refused here%s", p->round, o->size,
		  o->delivered, o->sent, o->refused,
		  o->icmp	     ? ", ICMP too-big"
		  : o->local_too_big ? ", EMSGSIZE"
				     : "");
	return 0;
}

static int search(struct prober *p, const struct mtu_probe_spec *spec, uint32_t max,
		  struct mtu_search_result *out)
{
	struct mtu_path_result *res = p->res;
	struct mtu_search *s = calloc(1, sizeof(*s));
	struct mtu_search_cfg cfg = { .base = spec->base ? spec->base : MTU_DEFAULT_BASE,
				      .max = max,
				      .probes = spec->probes ? spec->probes : MTU_DEFAULT_PROBES };
	uint32_t min_size =
		(p->family == AF_INET6 ? V6_UDP_HDR : V4_UDP_HDR) + MTU_WIRE_PROBE_HDR_LEN;
	struct mtu_step st;
	int rc = 0;

	if (!s)
		return fail(res, -ENOMEM, "out of memory");
	if (cfg.probes > MTU_WIRE_MAX_ROUND)
		cfg.probes = MTU_WIRE_MAX_ROUND;
	if (p->family == AF_INET && cfg.max > MTU_MAX_SIZE_V4)
		cfg.max = MTU_MAX_SIZE_V4;
	if (cfg.base < min_size)
		cfg.base = min_size;
	if (!cfg.max || !mtu_search_init(s, &cfg)) {
		free(s);
		return fail(res, -EINVAL, "no interface MTU known for this path: give --max");
	}
	while (rc == 0 && mtu_search_next(s, &st)) {
		struct mtu_outcome o;

		if (interrupt_requested()) {
			rc = fail(res, -EINTR, "interrupted");
			break;
		}
		rc = run_round(p, &st, &o);
		if (rc == 0 && p->drop_fragmented && o.fragmented)
			o.delivered = 0;
		if (rc == 0)
			mtu_search_feed(s, &o);
	}
	mtu_search_result(s, out);
	if (p->late_icmp && !out->icmp_seen) {
		out->icmp_seen = true;
		out->blackhole = false;
	}
	for (unsigned i = 0; i < s->nrecords && res->nrecords < MTU_MAX_RECORDS; i++) {
		res->records[res->nrecords++] = s->records[i];
		if (s->records[i].delivered && s->records[i].fragmented)
			res->fragmenting = true;
	}
	free(s);
	return rc;
}

/* After the search, when sizes above the path MTU fail: the same size
 * again WITHOUT DF, to see what the path does with traffic that may be
 * fragmented. Fragments made on this host (a tunnel fragmenting its outer
 * packets, or the stack using a learned PMTU) move the local counters;
 * fragments the far end reassembles move its counters; a probe that arrives
 * in pieces (IP_RECVFRAGSIZE at the server) was fragmented on the way. */
static int nodf_round(struct prober *p, const struct sockaddr_storage *dst, unsigned count)
{
	struct mtu_nodf *n = &p->res->nodf;
	struct mtu_frag_counters before = { 0 }, after = { 0 };
	struct mtu_wire_report prev = p->last, rep;
	size_t hdr = p->family == AF_INET6 ? V6_UDP_HDR : V4_UDP_HDR;
	int dont = p->family == AF_INET6 ? IPV6_PMTUDISC_DONT : IP_PMTUDISC_DONT, on = 1;
	int fd, rc;

	fd = socket(p->family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, p->family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP,
		       p->family == AF_INET6 ? IPV6_MTU_DISCOVER : IP_MTU_DISCOVER, &dont,
		       sizeof(dont)) < 0 ||
	    /* Without it a device's drop (NET_XMIT_DROP) is reported as sent. */
	    setsockopt(fd, p->family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP,
		       p->family == AF_INET6 ? IPV6_RECVERR : IP_RECVERR, &on, sizeof(on)) < 0 ||
	    connect(fd, (const struct sockaddr *)dst, addr_len(dst)) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	n->run = true;
	n->size = p->res->if_mtu;
	if (p->family == AF_INET && n->size > MTU_MAX_SIZE_V4)
		n->size = MTU_MAX_SIZE_V4;
	p->round++;
	mtu_frag_counters_read(&before);
	for (unsigned i = 0; i < count; i++) {
		struct mtu_wire_probe pr = {
			.token = p->token, .round = p->round, .index = (uint16_t)i, .size = n->size
		};

		mtu_wire_put_probe(p->buf, &pr);
		if (send(fd, p->buf, n->size - hdr, 0) >= 0)
			n->sent++;
		else if (local_refusal(errno))
			n->refused++;
	}
	close(fd);
	rc = query_round(p, n->sent, &rep);
	if (rc < 0)
		return rc;
	mtu_frag_counters_read(&after);
	n->delivered = (unsigned)__builtin_popcount(rep.mask);
	n->reassembled = rep.reassembled;
	n->local_frag_creates = after.frag_creates - before.frag_creates;
	n->remote_reasm_reqds = rep.reasm_reqds - prev.reasm_reqds;
	return 0;
}

static void close_prober(struct prober *p)
{
	if (p->udp >= 0)
		close(p->udp);
	if (p->have_ctrl)
		ctrl_free(&p->c);
	free(p->buf);
}

static int probe_session(struct prober *p, const struct mtu_probe_spec *spec)
{
	struct mtu_path_result *res = p->res;
	struct mtu_frag_counters before = { 0 }, after = { 0 };
	struct sockaddr_storage server, local;
	socklen_t sl = sizeof(local);
	struct mtu_wire_ready ready;
	bool frag_ok;
	int rc;

	rc = open_session(p, spec, &server, &ready);
	if (rc < 0)
		return rc;
	res->family = p->family;
	res->server_if_mtu = ready.if_mtu;
	addr_format(&server, false, res->remote_addr, sizeof(res->remote_addr));
	rc = open_udp(p, &server, ready.udp_port, spec->cport);
	if (rc == -EADDRINUSE && spec->cport)
		return fail(res, rc, "--cport %u: the UDP source port is in use", spec->cport);
	if (rc < 0)
		return fail(res, rc, "probe socket: %s", strerror(-rc));
	if (getsockname(p->udp, (struct sockaddr *)&local, &sl) == 0)
		addr_format(&local, false, res->local_addr, sizeof(res->local_addr));
	res->if_mtu = mtu_socket_if_mtu(p->udp, res->ifname, sizeof(res->ifname));
	/* TCP first: it must meet the path as applications do, before the
	 * probes' ICMP too-bigs have filled the kernel's PMTU cache. */
	if (spec->tcp_mss && ready.tcp_port) {
		struct sockaddr_storage tcp_peer = server;

		addr_set_port(&tcp_peer, ready.tcp_port);
		rc = mtu_tcp_check(&p->c, &tcp_peer, spec->timeout_ns, p->one_port, p->token,
				   spec->cport, &res->tcp);
		if (rc < 0)
			return fail(res, rc, "TCP check: %s", res->tcp.error);
	}
	frag_ok = spec->fragments && mtu_frag_counters_read(&before) == 0;
	p->watch_frags = frag_ok;
	rc = search(p, spec, spec->max ? spec->max : res->if_mtu, &res->search);
	if (rc < 0)
		return rc;
	if (res->fragmenting && res->search.state == MTU_SEARCH_DONE) {
		/* Delivered only in fragments above some size: find that size. */
		p->drop_fragmented = true;
		rc = search(p, spec, res->search.pmtu, &res->nofrag);
		p->drop_fragmented = false;
		if (rc < 0)
			return rc;
	}
	if (frag_ok && mtu_frag_counters_read(&after) == 0 && p->have_first_report) {
		res->frag_valid = true;
		res->local_frag_creates = after.frag_creates - before.frag_creates;
		res->local_reasm_reqds = after.reasm_reqds - before.reasm_reqds;
		res->remote_frag_creates = p->last.frag_creates - p->first.frag_creates;
		res->remote_reasm_reqds = p->last.reasm_reqds - p->first.reasm_reqds;
		res->reassembled = p->reassembled;
	}
	/* Only when a size the interface sends failed on the path. */
	if (frag_ok && res->search.state == MTU_SEARCH_DONE && res->search.smallest_failed &&
	    res->search.smallest_failed <= res->if_mtu && p->have_first_report) {
		struct sockaddr_storage dst;
		socklen_t dl = sizeof(dst);

		if (getpeername(p->udp, (struct sockaddr *)&dst, &dl) == 0) {
			rc = nodf_round(p, &dst, spec->probes ? spec->probes : MTU_DEFAULT_PROBES);
			if (rc < 0)
				return rc;
		}
	}
	return send_op(p, MTU_OP_DONE, NULL, 0);
}

int mtu_probe_path(const struct mtu_probe_spec *spec, struct mtu_path_result *res)
{
	struct prober p = { .udp = -1, .res = res };
	uint64_t t0 = clock_now_ns();
	int rc;

	memset(res, 0, sizeof(*res));
	res->spec = *spec;
	if (!res->spec.timeout_ns)
		res->spec.timeout_ns = MTU_DEFAULT_TIMEOUT_NS;
	p.buf = malloc(MTU_MAX_SIZE);
	if (!p.buf)
		return fail(res, -ENOMEM, "out of memory");
	memset(p.buf, 0xa5, MTU_MAX_SIZE);
	rc = probe_session(&p, &res->spec);
	close_prober(&p);
	res->duration_s = (double)(clock_now_ns() - t0) / 1e9;
	return rc;
}
