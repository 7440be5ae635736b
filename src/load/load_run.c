// SPDX-License-Identifier: MIT
/*
 * load_run(): one test against an `ovlperf server`. Connects the control
 * connection, proves the PSK, asks for the test, connects the data streams
 * from the control connection's own source address, runs this end's
 * streams, collects the server's RESULTS and merges both views.
 */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "auth_client.h"
#include "clock.h"
#include "ctrl.h"
#include "data_conn.h"
#include "interrupt.h"
#include "load.h"
#include "load_facts.h"
#include "load_local.h"
#include "load_merge.h"
#include "load_tunnel.h"
#include "load_sched.h"
#include "load_streams.h"
#include "log.h"
#include "owd_clock.h"
#include "sockopt.h"
#include "tcp_congestion.h"
#include "udp_load.h"
#include "version.h"

#define LOOP_SLICE_MS 10 /* how soon the end of a stream is noticed */
/* After STOP, the server drains and answers; a UDP receiver may wait up to
 * LOAD_STREAMS_DRAIN_MAX_NS for its FINs first. */
#define INTERRUPT_RESULTS_TIMEOUT_NS (3 * NSEC_PER_SEC)

struct client {
	struct load_spec spec; /* with defaults applied */
	struct load_result *res;
	const struct load_hooks *hooks;
	struct ctrl c;
	struct sockaddr_storage server, local;
	struct proto_test_accept acc;
	struct owd_clock clock; /* UDP: the server's clock against ours */
	bool have_server_results;
	bool data_ack;	       /* the server has PROTO_CAP_DATA_ACK */
	bool dgram_short;      /* the server has PROTO_CAP_DGRAM_SHORT */
	bool cc_cap;	       /* the server has PROTO_CAP_CONGESTION */
	bool facts_cap;	       /* the server sends HOST_FACTS */
	bool have_facts;       /* ... and did for this test */
	uint32_t path_mtu;     /* UDP: the data socket's path MTU before START */
	unsigned udp_hdr;      /* UDP: IP + UDP header bytes (28 or 48) */
	char dev[IF_NAMESIZE]; /* UDP: interface of the local address */
	struct proto_results *mine, *theirs;
	struct proto_interval retrans_prev; /* forward TCP: local retransmit counts */
	struct load_local samples;	    /* the client's own per-stream samples */
};

void load_spec_defaults(struct load_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->proto = LOAD_TCP;
	spec->port = LOAD_DEFAULT_PORT;
	spec->family = AF_UNSPEC;
	spec->streams = 1;
	spec->duration_ns = 10 * NSEC_PER_SEC;
	spec->udp_gso = true;
	spec->udp_gro = true;
}

void load_result_free(struct load_result *res)
{
	load_local_free(res);
	free(res->conns);
	res->conns = NULL;
	res->nconns = 0;
	free(res->streams);
	free(res->intervals);
	res->streams = NULL;
	res->intervals = NULL;
	res->nstreams = 0;
	res->nintervals = 0;
}

static int fail(struct client *cl, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct client *cl, int rc, const char *fmt, ...)
{
	va_list ap;

	if (!cl->res->error[0]) {
		va_start(ap, fmt);
		vsnprintf(cl->res->error, sizeof(cl->res->error), fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* A message the server sent instead of what we expected: ERROR explains. */
static int unexpected(struct client *cl, const struct proto_msg *m, const char *expect)
{
	struct proto_text t;

	if ((m->type == PROTO_ERROR || m->type == PROTO_TEST_REJECT) &&
	    proto_decode_text(m->body, m->len, &t) == 0) {
		int rc = t.code == PROTO_R_AUTH	  ? -EACCES
			 : t.code == PROTO_R_BUSY ? -EBUSY
						  : -ECONNREFUSED;

		return fail(cl, rc, "server %s: %s (%s)",
			    m->type == PROTO_ERROR ? "error" : "refused the test", t.text,
			    proto_reason_str(t.code));
	}
	return fail(cl, -EPROTO, "protocol error: expected %s, got %s", expect,
		    proto_type_name(m->type));
}

static int recv_expect(struct client *cl, struct proto_msg *m, uint16_t type, const char *name)
{
	int rc = ctrl_recv(&cl->c, m, (int)(cl->c.msg_timeout_ns / NSEC_PER_MSEC), true);

	if (rc == 0)
		return fail(cl, -ETIMEDOUT, "no %s from the server within %u ms", name,
			    (unsigned)(cl->c.msg_timeout_ns / NSEC_PER_MSEC));
	if (rc < 0)
		return fail(cl, rc, "waiting for %s: %s", name, proto_strerror(rc));
	if (m->type != type)
		return unexpected(cl, m, name);
	return 0;
}

static int connect_control(struct client *cl)
{
	socklen_t len;
	int fd, rc;

	rc = addr_resolve(cl->spec.host, cl->spec.port, cl->spec.family, false, &cl->server, &len);
	if (rc < 0)
		return fail(cl, rc, "cannot resolve '%s'", cl->spec.host);
	fd = socket(cl->server.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(cl, -errno, "socket: %s", strerror(errno));
	if (cl->spec.bind_addr[0]) {
		struct sockaddr_storage b;

		rc = addr_resolve(cl->spec.bind_addr, 0, cl->server.ss_family, true, &b, &len);
		if (rc == 0 && bind(fd, (struct sockaddr *)&b, len) < 0)
			rc = -errno;
		if (rc < 0) {
			close(fd);
			return fail(cl, rc, "cannot bind to %s: %s", cl->spec.bind_addr,
				    strerror(-rc));
		}
	}
	/* Connecting is the first control step and gets its deadline: Linux
	 * retries a lost SYN after 1, 3, 7, 15, 31 s (RFC 6298 backoff), so a
	 * fixed few seconds give up on a lossy path the kernel would cross. */
	rc = data_connect(fd, &cl->server,
			  (int)(cl->spec.connect_timeout_ms ? cl->spec.connect_timeout_ms
				: cl->spec.msg_timeout_ms   ? cl->spec.msg_timeout_ms
							    : CTRL_DEFAULT_MSG_TIMEOUT_MS));
	if (rc < 0) {
		char a[80] = "";

		addr_format(&cl->server, true, a, sizeof(a));
		close(fd);
		return fail(cl, rc, "cannot connect to %s: %s", a, strerror(-rc));
	}
	len = sizeof(cl->local);
	getsockname(fd, (struct sockaddr *)&cl->local, &len);
	addr_set_port(&cl->local, 0);
	addr_format(&cl->local, false, cl->res->local_addr, sizeof(cl->res->local_addr));
	addr_format(&cl->server, false, cl->res->remote_addr, sizeof(cl->res->remote_addr));
	cl->spec.family = cl->server.ss_family;
	cl->res->spec.family = cl->server.ss_family;
	rc = ctrl_init(&cl->c, fd, cl->spec.msg_timeout_ms);
	return rc < 0 ? fail(cl, rc, "out of memory") : 0;
}

static int expect_msg(void *ctx, struct proto_msg *m, uint16_t type)
{
	return recv_expect(ctx, m, type, proto_type_name(type));
}

static int authenticate(struct client *cl)
{
	char err[256];
	int rc;

	if (!cl->spec.psk_file[0])
		return fail(cl, -EACCES, "the server requires a pre-shared key (--psk-file)");
	rc = auth_client_exchange(&cl->c, cl->spec.psk_file, expect_msg, cl, err, sizeof(err));
	return rc < 0 && err[0] ? fail(cl, rc, "%s", err) : rc;
}

static int handshake(struct client *cl)
{
	struct proto_hello h = { .version = PROTO_VERSION,
				 .caps = PROTO_CAP_TCP | PROTO_CAP_UDP | PROTO_CAP_REVERSE |
					 PROTO_CAP_DATA_ACK | PROTO_CAP_LOCAL_DROPS |
					 PROTO_CAP_CONGESTION | PROTO_CAP_RX_WAIT |
					 PROTO_CAP_SOCK_DROPS | PROTO_CAP_SOCK_OWNER |
					 PROTO_CAP_TCP_LIMITS | PROTO_CAP_HOST_FACTS };
	struct proto_msg m;
	int rc;

	snprintf(h.software, sizeof(h.software), "ovlperf %s", OVLPERF_VERSION);
	rc = ctrl_send(&cl->c, proto_encode_hello(cl->c.out, PROTO_MAX_MSG, &h));
	if (rc < 0)
		return fail(cl, rc, "sending HELLO: %s", proto_strerror(rc));
	rc = recv_expect(cl, &m, PROTO_HELLO, "HELLO");
	if (rc < 0)
		return rc;
	if (proto_decode_hello(m.body, m.len, &h) < 0)
		return fail(cl, -EPROTO, "malformed HELLO from the server");
	snprintf(cl->res->server_version, sizeof(cl->res->server_version), "%s", h.software);
	cl->data_ack = h.caps & PROTO_CAP_DATA_ACK;
	cl->dgram_short = h.caps & PROTO_CAP_DGRAM_SHORT;
	cl->cc_cap = h.caps & PROTO_CAP_CONGESTION;
	cl->facts_cap = h.caps & PROTO_CAP_HOST_FACTS;
	if (!cl->facts_cap) {
		char why[HOSTFACTS_WHY];

		snprintf(why, sizeof(why), "not reported by server %.40s", h.software);
		hostfacts_unknown(&cl->res->facts_server, why);
	}
	if (h.caps & PROTO_CAP_AUTH_REQUIRED)
		return authenticate(cl);
	if (cl->spec.psk_file[0])
		log_warn("the server does not ask for a pre-shared key");
	return 0;
}

static int request(struct client *cl)
{
	struct proto_test_request req;
	struct proto_msg m;
	int rc = proto_test_request_from_spec(&cl->spec, &req);

	if ((req.flags & PROTO_REQ_DGRAM_SHORT) && !cl->dgram_short)
		return fail(cl, -EPROTONOSUPPORT,
			    "a UDP payload of %u bytes needs the short datagram header, which the "
			    "server (%s) does not offer; it takes %d bytes or more",
			    cl->spec.len, cl->res->server_version, LOAD_UDP_MIN_LEN);
	if (rc < 0)
		return fail(cl, -EINVAL, "the test does not fit the protocol's ranges");
	if (cl->spec.congestion[0] && !cl->cc_cap)
		return fail(cl, -EOPNOTSUPP,
			    "the server (%s) cannot set TCP congestion control (-C): an older "
			    "ovlperf",
			    cl->res->server_version);
	/* a server that can says its own end's algorithm in TEST_ACCEPT */
	req.has_cc = cl->cc_cap;
	rc = ctrl_send(&cl->c, proto_encode_test_request(cl->c.out, PROTO_MAX_MSG, &req));
	if (rc < 0)
		return fail(cl, rc, "sending TEST_REQUEST: %s", proto_strerror(rc));
	rc = recv_expect(cl, &m, PROTO_TEST_ACCEPT, "TEST_ACCEPT");
	if (rc < 0)
		return rc;
	if (proto_decode_test_accept(m.body, m.len, &cl->acc) < 0 ||
	    (cl->acc.nports != 1 && cl->acc.nports != cl->spec.streams))
		return fail(cl, -EPROTO, "malformed TEST_ACCEPT from the server");
	for (unsigned i = 0; i < PROTO_COOKIE_LEN; i++)
		snprintf(cl->res->cookie + 2 * i, sizeof(cl->res->cookie) - 2 * i, "%02x",
			 cl->acc.cookie[i]);
	if (cl->acc.has_cc)
		snprintf(cl->res->cc_peer, sizeof(cl->res->cc_peer), "%s", cl->acc.congestion);
	return 0;
}

static int check_fit(struct client *cl, int fd);

/* What iperf3 says about a data connection: its descriptor and ports, and
 * for the first one the MSS, buffers and congestion control it got. */
static void note_stream(struct client *cl, unsigned i, int fd)
{
	struct sockaddr_storage a;
	socklen_t len = sizeof(a);
	struct load_result *res = cl->res;
	struct load_conn *c;
	int v;

	if (!res->conns)
		res->conns = calloc(cl->spec.streams, sizeof(*res->conns));
	if (!res->conns || i >= cl->spec.streams)
		return;
	c = &res->conns[i];
	res->nconns = i + 1;
	c->socket = fd;
	if (getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		c->local_port = addr_port(&a);
	len = sizeof(a);
	if (getpeername(fd, (struct sockaddr *)&a, &len) == 0)
		c->remote_port = addr_port(&a);
	if (i)
		return;
	len = sizeof(v);
	if (cl->spec.proto == LOAD_TCP && getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &v, &len) == 0)
		res->tcp_mss = (uint32_t)v;
	len = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, &len) == 0)
		res->sndbuf_bytes = (uint32_t)v;
	len = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &len) == 0)
		res->rcvbuf_local_bytes = (uint32_t)v;
	if (cl->spec.proto == LOAD_TCP)
		tcp_congestion_get(fd, res->cc_local, sizeof(res->cc_local));
}

static int connect_streams(struct client *cl, int *fds)
{
	struct data_opts o = { .mss = cl->spec.mss,
			       .sock_buf = cl->spec.sock_buf || cl->spec.proto != LOAD_UDP
						   ? cl->spec.sock_buf
						   : sockopt_udp_default_buf(cl->spec.streams),
			       .dscp = cl->spec.dscp };
	int tmo = (int)(cl->c.msg_timeout_ns / NSEC_PER_MSEC);

	owd_clock_init(&cl->clock);
	for (unsigned i = 0; i < cl->spec.streams; i++) {
		struct proto_data_hello h = { .test_id = cl->acc.test_id, .stream = (uint16_t)i };
		uint16_t port = cl->acc.ports[cl->acc.nports == 1 ? 0 : i];
		struct owd_clock_sample sample = { 0 };
		struct sockaddr_storage local = cl->local;

		memcpy(h.cookie, cl->acc.cookie, sizeof(h.cookie));
		/* --cport: stream i from cport + i (validate() checked the range) */
		if (cl->spec.cport)
			addr_set_port(&local, (uint16_t)(cl->spec.cport + i));
		if (cl->spec.proto == LOAD_UDP)
			fds[i] = data_client_udp(&cl->server, port, &local, &h, &o, tmo, &sample);
		else
			fds[i] = data_client_tcp(&cl->server, port, &local, &h, &o, tmo,
						 cl->data_ack);
		if (fds[i] >= 0 && cl->spec.proto == LOAD_UDP)
			owd_clock_add(&cl->clock, &sample);
		if (fds[i] >= 0 && cl->spec.proto == LOAD_TCP && cl->spec.congestion[0]) {
			int rc = tcp_congestion_set(fds[i], cl->spec.congestion);

			if (rc < 0) {
				close(fds[i]);
				fds[i] = rc;
			}
		}
		if (fds[i] >= 0)
			note_stream(cl, i, fds[i]);
		if (fds[i] < 0) {
			int rc = fds[i];

			for (unsigned k = 0; k < i; k++)
				close(fds[k]);
			if (cl->spec.cport && (rc == -EADDRINUSE || rc == -EADDRNOTAVAIL))
				return fail(cl, rc,
					    "--cport: source port %u (stream %u) is in use: %s",
					    cl->spec.cport + i, i + 1, strerror(-rc));
			return fail(cl, rc, "data connection %u to port %u: %s", i + 1, port,
				    strerror(-rc));
		}
	}
	if (cl->spec.proto == LOAD_UDP && check_fit(cl, fds[0]) < 0) {
		for (unsigned i = 0; i < cl->spec.streams; i++)
			close(fds[i]);
		return -EMSGSIZE;
	}
	return 0;
}

/* Whether a datagram fits the path: with --dont-fragment one that does not
 * is refused here, before anything is sent; without it the kernel will
 * fragment each datagram, which the result reports. */
static int check_fit(struct client *cl, int fd)
{
	uint32_t len = cl->spec.len, mtu = sockopt_path_mtu(fd);
	unsigned hdr = sockopt_udp_overhead(fd);
	char msg[256];

	cl->path_mtu = mtu;
	cl->udp_hdr = hdr;
	sockopt_local_ifname(fd, cl->dev, sizeof(cl->dev));
	cl->res->udp.len = len;
	cl->res->udp.path_mtu = mtu;
	cl->res->udp.fragments = cl->spec.dont_fragment ? 1 : udp_fragments(len, mtu, hdr);
	cl->res->udp.dont_fragment = cl->spec.dont_fragment;
	if (!mtu || len + hdr <= mtu)
		return 0;
	if (cl->spec.dont_fragment) {
		udp_fit_error(msg, sizeof(msg), len, mtu, hdr, cl->dev);
		return fail(cl, -EMSGSIZE, "%s", msg);
	}
	if (!cl->spec.fit_judged)
		log_warn("%u-byte datagrams make %u-byte IPv%c packets, above the path MTU %u%s%s: "
			 "each "
			 "leaves as %u IP fragments (one lost fragment loses the datagram); -l %u "
			 "or "
			 "less avoids it, --dont-fragment refuses it",
			 len, len + hdr, hdr == 48 ? '6' : '4', mtu, cl->dev[0] ? " via " : "",
			 cl->dev, udp_fragments(len, mtu, hdr), mtu - hdr);
	return 0;
}

/* The path MTU the test really had (ICMP may have lowered it during the
 * test) and what it did to the datagrams. */
static void udp_path_result(struct client *cl, uint32_t end_mtu)
{
	struct udp_result *u = &cl->res->udp;
	uint32_t mtu = cl->path_mtu;
	unsigned frags;

	if (end_mtu && (!mtu || end_mtu < mtu))
		mtu = end_mtu;
	frags = cl->spec.dont_fragment ? 1 : udp_fragments(cl->spec.len, mtu, cl->udp_hdr);
	if (frags > 1 && udp_fragments(cl->spec.len, cl->path_mtu, cl->udp_hdr) == 1)
		log_warn("the path MTU fell to %u during the test: the %u-byte datagrams left as "
			 "%u IP fragments each from then on",
			 mtu, cl->spec.len, frags);
	u->path_mtu = mtu;
	u->fragments = frags;
	u->dont_fragment = cl->spec.dont_fragment;
}

static void add_interval(struct client *cl, const struct proto_interval *iv)
{
	struct load_result *res = cl->res;
	struct load_interval *a = realloc(res->intervals, (res->nintervals + 1) * sizeof(*a));
	double omit = (double)cl->spec.omit_ns / 1e9, len;

	if (!a)
		return;
	res->intervals = a;
	a += res->nintervals++;
	a->start_s = (double)iv->start_ns / 1e9 - omit;
	a->end_s = (double)iv->end_ns / 1e9 - omit;
	len = a->end_s - a->start_s;
	a->bytes = iv->bytes;
	a->bps = len > 0 ? (uint64_t)((double)iv->bytes * 8 / len) : 0;
	a->lost = iv->lost;
	a->retransmits = iv->retransmits;
	if (cl->hooks && cl->hooks->on_interval)
		cl->hooks->on_interval(res, a, cl->hooks->arg);
}

/* The server (receiving end) reported an interval; a forward TCP test adds
 * this end's retransmits over the same moment. */
static void server_interval(struct client *cl, struct load_streams *ls, const struct proto_msg *m)
{
	struct proto_interval iv, cum;

	if (proto_decode_interval(m->body, m->len, &iv) < 0 || iv.test_id != cl->acc.test_id)
		return;
	/* no more than the test can have: a bad server cannot grow our memory */
	if (!cl->spec.interval_ns ||
	    cl->res->nintervals > cl->spec.duration_ns / cl->spec.interval_ns + 2)
		return;
	if (!ls->udp) {
		tcp_streams_sample(ls->tcp, ls->n, true, &cum);
		iv.retransmits = cum.retransmits - cl->retrans_prev.retransmits;
		cl->retrans_prev = cum;
	}
	add_interval(cl, &iv);
}

/* The client's own per-stream view of the interval that just ended. */
static void local_interval(struct client *cl, const struct load_streams *ls,
			   const struct proto_interval *iv)
{
	unsigned max = (unsigned)(cl->spec.duration_ns / cl->spec.interval_ns) + 2;

	if (load_local_sample(&cl->samples, ls, iv, cl->spec.omit_ns, max, cl->res) == 0 &&
	    cl->hooks && cl->hooks->on_local)
		cl->hooks->on_local(cl->res, cl->res->nlocal - 1, cl->hooks->arg);
}

static int send_stop(struct client *cl, uint16_t reason, const struct load_streams *ls)
{
	struct proto_stop s = { .test_id = cl->acc.test_id,
				.reason = reason,
				.elapsed_ns = clock_now_ns() - ls->start_ns };

	return ctrl_send(&cl->c, proto_encode_stop(cl->c.out, PROTO_MAX_MSG, &s));
}

/* Handles one control message during the test; 1 when RESULTS arrived. */
static int on_message(struct client *cl, struct load_streams *ls, const struct proto_msg *m)
{
	if (m->type == PROTO_INTERVAL) {
		server_interval(cl, ls, m);
		return 0;
	}
	if (m->type == PROTO_HOST_FACTS && cl->facts_cap) {
		if (proto_decode_host_facts(m->body, m->len, &cl->res->facts_server) < 0)
			return fail(cl, -EPROTO, "malformed HOST_FACTS from the server");
		cl->have_facts = true;
		return 0;
	}
	if (m->type != PROTO_RESULTS)
		return unexpected(cl, m, "RESULTS");
	if (proto_decode_results(m->body, m->len, cl->theirs) < 0 ||
	    cl->theirs->test_id != cl->acc.test_id)
		return fail(cl, -EPROTO, "malformed RESULTS from the server");
	cl->have_server_results = true;
	return 1;
}

/* This end's part is over (or it was interrupted): say STOP. A sender
 * stops its threads first (they send their FINs); a receiver keeps reading
 * until the FINs or a quiet moment, so nothing in flight is counted lost. */
static int stop_local(struct client *cl, struct load_streams *ls, bool interrupted)
{
	int rc;

	if (ls->sender)
		load_streams_stop(ls);
	rc = send_stop(cl, interrupted ? PROTO_STOP_INTERRUPTED : PROTO_STOP_DONE, ls);
	return rc < 0 ? fail(cl, rc, "sending STOP: %s", proto_strerror(rc)) : 0;
}

static int run_loop(struct client *cl, struct load_streams *ls)
{
	uint64_t stop_at = 0;
	bool drained = ls->sender;

	for (;;) {
		uint64_t now = clock_now_ns(), tick = load_streams_next_tick(ls);
		struct proto_msg m;
		int rc = 0;

		if (tick != UINT64_MAX && now >= tick) {
			struct proto_interval iv;

			load_streams_interval(ls, now, &iv);
			local_interval(cl, ls, &iv);
			/* a receiver's own sums are the test's intervals; a
			 * sender's come from the server */
			if (!ls->sender)
				add_interval(cl, &iv);
			continue;
		}
		if (!stop_at && interrupt_requested()) {
			cl->res->interrupted = true;
			stop_at = now;
			rc = stop_local(cl, ls, true);
		} else if (!stop_at &&
			   (ls->sender ? load_streams_sender_done(ls) : now >= ls->end_ns)) {
			stop_at = now;
			rc = stop_local(cl, ls, false);
		}
		if (rc < 0)
			return rc;
		if (stop_at && !drained && load_streams_receiver_done(ls, now, stop_at)) {
			load_streams_stop(ls);
			drained = true;
		}
		if (drained && cl->have_server_results)
			return 0;
		/* RESULTS may take the drain plus one control-message deadline
		 * (--msg-timeout): on a lossy path TCP backs off for seconds */
		if (stop_at &&
		    now > stop_at + (cl->res->interrupted
					     ? INTERRUPT_RESULTS_TIMEOUT_NS
					     : LOAD_STREAMS_DRAIN_MAX_NS + cl->c.msg_timeout_ns))
			return fail(cl, -ETIMEDOUT, "no RESULTS from the server");
		rc = ctrl_recv(&cl->c, &m, LOOP_SLICE_MS, false);
		if (rc < 0) {
			/* the server is gone mid-test: what we have covers part of it */
			cl->res->interrupted = true;
			return fail(cl, rc, "control connection: %s", proto_strerror(rc));
		}
		if (rc == 1 && (rc = on_message(cl, ls, &m)) < 0)
			return rc;
		if (cl->have_server_results && !stop_at) {
			/* RESULTS before our STOP: the server cut the test short */
			cl->res->interrupted = true;
			return fail(cl, -ECONNABORTED,
				    "the server ended the test early: the figures cover only part "
				    "of it");
		}
	}
}

static void client_facts_end(struct client *cl, struct hostfacts_probe *p)
{
	load_facts_end(cl->hooks, p, &cl->res->facts_client);
	if (cl->facts_cap && !cl->have_facts)
		hostfacts_unknown(&cl->res->facts_server, "the server sent none");
}

static int measure(struct client *cl, int *fds)
{
	struct proto_start st = { .test_id = cl->acc.test_id };
	struct load_streams ls;
	static const struct proto_results none;
	uint64_t wake, slow, blocked, refused;
	struct udp_outer outer;
	struct hostfacts_probe *probe;
	uint32_t end_mtu;
	bool owd_ok = owd_clock_usable(&cl->clock);
	int rc, serr;

	probe = load_facts_prepare(cl->hooks, fds[0]);
	cl->res->started_unix = (int64_t)time(NULL);
	rc = ctrl_send(&cl->c, proto_encode_start(cl->c.out, PROTO_MAX_MSG, &st));
	if (rc < 0) {
		for (unsigned i = 0; i < cl->spec.streams; i++)
			close(fds[i]);
		client_facts_end(cl, probe);
		return fail(cl, rc, "sending START: %s", proto_strerror(rc));
	}
	rc = load_streams_start(&ls, &cl->spec, fds, !cl->spec.reverse, cl->acc.test_id,
				owd_clock_shift(&cl->clock, !cl->spec.reverse));
	if (rc < 0) {
		load_streams_free(&ls);
		client_facts_end(cl, probe);
		return fail(cl, rc, "cannot start streams: %s", strerror(-rc));
	}
	load_facts_start(probe);
	rc = run_loop(cl, &ls);
	/* before the streams' threads are joined: their CPU is the test's */
	client_facts_end(cl, probe);
	load_streams_stop(&ls);
	load_facts_streams(&cl->res->facts_client, &ls);
	load_streams_results(&ls, cl->mine);
	load_streams_outer(&ls, &outer);
	serr = load_streams_error(&ls);
	end_mtu = load_streams_path_mtu(&ls);
	load_streams_sender_diag(&ls, &wake, &slow, &blocked, &refused);
	load_streams_free(&ls);
	if (cl->spec.reverse)
		load_merge(cl->have_server_results ? cl->theirs : &none, cl->mine, owd_ok, cl->res);
	else
		load_merge(cl->mine, cl->have_server_results ? cl->theirs : &none, owd_ok, cl->res);
	cl->res->owd_shared_clock = cl->clock.shared;
	load_sched_get(cl->mine, &cl->res->sched_client);
	if (cl->have_server_results)
		load_sched_get(cl->theirs, &cl->res->sched_server);
	if (cl->spec.proto == LOAD_UDP) {
		uint64_t err = owd_clock_error(&cl->clock);

		cl->res->udp.owd.error_ns = cl->res->udp.owd.valid ? err : 0;
		for (unsigned i = 0; i < cl->res->nstreams; i++)
			cl->res->streams[i].udp.owd.error_ns =
				cl->res->streams[i].udp.owd.valid ? err : 0;
	}
	cl->res->peer_missing = !cl->have_server_results;
	if (cl->spec.proto == LOAD_UDP) {
		udp_path_result(cl, end_mtu);
		cl->res->udp.sender_diag = !cl->spec.reverse;
		cl->res->udp.skipped_late_wakeup = wake;
		cl->res->udp.skipped_slow_send = slow;
		cl->res->udp.skipped_blocked_send = blocked;
		cl->res->udp.send_refused = refused;
		/* the daemons' traffic is this test's outer packets only when
		 * its datagrams leave by their interface (not the underlay
		 * path of a host that also runs the overlay) */
		if (load_tunnel_serves(cl->dev))
			cl->res->udp.outer = outer;
	}
	/* a stream that failed is the test's error, not a log line beside a
	 * result that looks clean */
	if (!rc && serr == -EMSGSIZE && cl->spec.proto == LOAD_UDP) {
		char msg[256];

		udp_fit_error(msg, sizeof(msg), cl->spec.len, cl->res->udp.path_mtu, cl->udp_hdr,
			      cl->dev);
		rc = fail(cl, serr, "%s", msg);
	} else if (!rc && serr) {
		rc = fail(cl, serr, "a data stream failed: %s", strerror(-serr));
	}
	if (cl->res->interrupted)
		return fail(cl, rc ? rc : -EINTR,
			    "interrupted: the figures cover only part of the test");
	return rc;
}

static void apply_defaults(struct load_spec *s)
{
	if (!s->port)
		s->port = LOAD_DEFAULT_PORT;
	if (!s->streams)
		s->streams = 1;
	if (!s->len)
		s->len = s->proto == LOAD_UDP ? LOAD_UDP_DEFAULT_LEN : LOAD_TCP_DEFAULT_LEN;
}

/* -C: TCP only, and an algorithm this host has (the server checks its own). */
static int validate_congestion(struct client *cl)
{
	const struct load_spec *s = &cl->spec;
	char cc[16];
	int rc;

	if (!s->congestion[0])
		return 0;
	if (s->proto != LOAD_TCP)
		return fail(cl, -EINVAL, "congestion control (-C) applies to TCP tests");
	rc = tcp_congestion_probe(AF_INET, s->congestion, cc, sizeof(cc));
	if (rc < 0)
		return fail(cl, rc, "TCP congestion control '%s' is not available here: %s%s",
			    s->congestion, strerror(-rc),
			    rc == -ENOENT ? " (modprobe tcp_<name>, or see "
					    "net.ipv4.tcp_available_congestion_control)"
					  : "");
	return 0;
}

static int validate(struct client *cl)
{
	const struct load_spec *s = &cl->spec;

	if (s->proto != LOAD_TCP && s->proto != LOAD_UDP)
		return fail(cl, -EINVAL, "protocol must be TCP or UDP");
	if (s->streams < 1 || s->streams > LOAD_MAX_STREAMS)
		return fail(cl, -EINVAL, "streams must be 1..%d", LOAD_MAX_STREAMS);
	if (!s->duration_ns)
		return fail(cl, -EINVAL, "the duration must be above 0");
	if (s->proto == LOAD_UDP && (s->len < LOAD_UDP_SHORT_MIN_LEN || s->len > LOAD_UDP_MAX_LEN))
		return fail(cl, -EINVAL, "UDP datagram length must be %d..%d bytes",
			    LOAD_UDP_SHORT_MIN_LEN, LOAD_UDP_MAX_LEN);
	if (!s->host[0])
		return fail(cl, -EINVAL, "no server given");
	if (s->cport && s->cport + s->streams - 1u > 65535u)
		return fail(cl, -ERANGE,
			    "--cport %u with %u streams needs source ports up to %u, above 65535",
			    s->cport, s->streams, s->cport + s->streams - 1u);
	return validate_congestion(cl);
}

int load_run_hooks(const struct load_spec *spec, struct load_result *res,
		   const struct load_hooks *hooks)
{
	struct client *cl = calloc(1, sizeof(*cl));
	int fds[LOAD_MAX_STREAMS];
	int rc;

	memset(res, 0, sizeof(*res));
	res->spec = *spec;
	if (!cl)
		return -ENOMEM;
	cl->c.fd = -1;
	cl->spec = *spec;
	apply_defaults(&cl->spec);
	res->spec = cl->spec;
	cl->res = res;
	cl->hooks = hooks;
	load_local_init(&cl->samples);
	cl->mine = calloc(1, sizeof(*cl->mine));
	cl->theirs = calloc(1, sizeof(*cl->theirs));
	rc = !cl->mine || !cl->theirs ? -ENOMEM : validate(cl);
	if (rc == 0)
		rc = connect_control(cl);
	if (rc == 0)
		rc = handshake(cl);
	if (rc == 0)
		rc = request(cl);
	if (rc == 0)
		rc = connect_streams(cl, fds);
	if (rc == 0)
		rc = measure(cl, fds);
	if (cl->c.out)
		ctrl_free(&cl->c);
	else if (cl->c.fd >= 0)
		close(cl->c.fd);
	free(cl->mine);
	free(cl->theirs);
	free(cl);
	return rc;
}

int load_run(const struct load_spec *spec, struct load_result *res)
{
	return load_run_hooks(spec, res, NULL);
}
