// SPDX-License-Identifier: MIT
/*
 * The server's half of a TCP or UDP test (contract in load_serve.h):
 * limits, data connections from the client's address only, the
 * measurement in either direction, RESULTS.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "ctrl.h"
#include "data_conn.h"
#include "hostfacts.h"
#include "load_facts.h"
#include "interrupt.h"
#include "load_serve.h"
#include "load_streams.h"
#include "log.h"
#include "sockopt.h"
#include "tcp_congestion.h"
#include "udp_load.h"

#define SETUP_TIMEOUT_MS      10000
#define DATA_HELLO_TIMEOUT_MS 2000
#define TCP_MAX_LEN	      (16u << 20)
#define MIN_INTERVAL_NS	      (10 * NSEC_PER_MSEC)
/* A test whose client never says STOP is ended this long after its end. */
#define STOP_GRACE_NS (30 * NSEC_PER_SEC)
#define LOOP_SLICE_MS 10 /* how soon the end of a stream is noticed */

static int serve_refuse(const struct load_serve_session *s, uint16_t type, uint16_t reason,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Tells the client why (an ERROR, or a TEST_REJECT that leaves the session
 * usable); the server counts it by reason. The result of ctrl_send(). */
static int serve_refuse(const struct load_serve_session *s, uint16_t type, uint16_t reason,
			const char *fmt, ...)
{
	char text[PROTO_TEXT_MAX + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (s->refused)
		s->refused(s->arg, reason);
	return ctrl_send_text(s->c, type, reason, "%s", text);
}

static int reject(const struct load_serve_session *s, uint16_t code, const char *text)
{
	log_warn("%s: test rejected: %s", s->name, text);
	return serve_refuse(s, PROTO_TEST_REJECT, code, "%s", text);
}

/* 0 when the request fits the server's limits, else the reason code. */
static uint16_t check_limits(const struct load_serve_limits *lim,
			     const struct proto_test_request *r, char *why, size_t n)
{
	if (r->streams > lim->max_streams) {
		snprintf(why, n, "%u streams asked; this server allows at most %u", r->streams,
			 lim->max_streams);
		return PROTO_R_LIMIT_STREAMS;
	}
	if (!r->duration_ns) {
		snprintf(why, n, "a test needs a duration above 0");
		return PROTO_R_UNSPEC;
	}
	if (r->duration_ns > lim->max_duration_ns ||
	    r->omit_ns > lim->max_duration_ns - r->duration_ns) {
		snprintf(why, n, "%.1f s asked (omit included); this server allows at most %.1f s",
			 (double)(r->duration_ns + r->omit_ns) / 1e9,
			 (double)lim->max_duration_ns / 1e9);
		return PROTO_R_LIMIT_DURATION;
	}
	if (lim->max_rate_bps && (!r->rate_bps || r->rate_bps > lim->max_rate_bps)) {
		snprintf(why, n,
			 "%s rate asked; this server allows at most %" PRIu64 " bit/s (use -b)",
			 r->rate_bps ? "a higher" : "an unlimited", lim->max_rate_bps);
		return PROTO_R_LIMIT_RATE;
	}
	if (r->kind == PROTO_KIND_TCP && r->len > TCP_MAX_LEN) {
		snprintf(why, n, "TCP write size %u above %u bytes", r->len, TCP_MAX_LEN);
		return PROTO_R_UNSPEC;
	}
	if (r->interval_ns && r->interval_ns < MIN_INTERVAL_NS) {
		snprintf(why, n, "interval below 10 ms");
		return PROTO_R_UNSPEC;
	}
	return 0;
}

/* -C: the algorithm asked for must exist here (a TCP test's only); cc gets
 * the one this end's connections will use, the default when none is asked.
 * 0 or the reason code. */
static uint16_t check_congestion(const struct load_serve_session *s,
				 const struct proto_test_request *r,
				 char cc[static PROTO_CC_NAME_LEN], char *why, size_t n)
{
	int rc;

	cc[0] = '\0';
	if (r->kind != PROTO_KIND_TCP) {
		if (!r->congestion[0])
			return 0;
		snprintf(why, n, "congestion control applies to TCP tests");
		return PROTO_R_UNSUPPORTED;
	}
	rc = tcp_congestion_probe(s->local->ss_family, r->congestion, cc, PROTO_CC_NAME_LEN);
	if (rc < 0 && r->congestion[0]) {
		snprintf(why, n, "TCP congestion control '%s' is not available on the server: %s",
			 r->congestion, strerror(-rc));
		return PROTO_R_UNSUPPORTED;
	}
	if (rc < 0)
		cc[0] = '\0'; /* the default is unknown: say nothing */
	return 0;
}

/* The test's TCP connections at this end get the algorithm the client
 * asked for (tcp(7) TCP_CONGESTION), before any data moves. */
static int set_congestion(const struct load_serve_session *s, const struct load_spec *spec,
			  const int *fds)
{
	int rc;

	if (spec->proto != LOAD_TCP || !spec->congestion[0])
		return 0;
	for (unsigned i = 0; i < spec->streams; i++) {
		rc = tcp_congestion_set(fds[i], spec->congestion);
		if (rc < 0) {
			serve_refuse(s, PROTO_ERROR, PROTO_R_INTERNAL,
				     "cannot set congestion control %s: %s", spec->congestion,
				     strerror(-rc));
			return rc;
		}
	}
	return 0;
}

static int send_accept(const struct load_serve_session *s, const struct data_server *ds,
		       const char *cc)
{
	const struct load_serve_limits *lim = s->limits;
	struct proto_test_accept a = { .test_id = ds->test_id,
				       .max_duration_ns = lim->max_duration_ns,
				       .max_rate_bps = lim->max_rate_bps,
				       .max_streams = (uint16_t)lim->max_streams,
				       .nports = (uint16_t)ds->nports };

	memcpy(a.cookie, ds->cookie, sizeof(a.cookie));
	for (unsigned i = 0; i < ds->nports; i++)
		a.ports[i] = ds->ports[i];
	a.has_cc = s->client_caps & PROTO_CAP_CONGESTION;
	snprintf(a.congestion, sizeof(a.congestion), "%s", cc);
	return ctrl_send(s->c, proto_encode_test_accept(s->c->out, PROTO_MAX_MSG, &a));
}

/* The client sends START once every stream of it is connected: what is
 * still missing is in flight. Serve the data sockets a little longer. */
static void finish_setup(struct data_server *ds)
{
	uint64_t end = clock_now_ns() + DATA_HELLO_TIMEOUT_MS * NSEC_PER_MSEC;
	struct pollfd pfd[LOAD_MAX_STREAMS];

	while (!data_server_complete(ds) && clock_now_ns() < end) {
		unsigned n = data_server_pollfds(ds, pfd, LOAD_MAX_STREAMS);

		if (poll(pfd, n, 10) > 0)
			data_server_handle(ds, pfd, n, DATA_HELLO_TIMEOUT_MS);
	}
}

/* At least ms, or the control-message deadline (--msg-timeout) when that is
 * longer: on a lossy path TCP's retransmission backoff (RFC 6298) can hold a
 * START or a STOP back for tens of seconds, and the operator said so. */
static uint64_t at_least_msg_timeout_ns(const struct load_serve_session *s, uint64_t ms)
{
	uint64_t m = s->limits->msg_timeout_ms;

	return (m > ms ? m : ms) * NSEC_PER_MSEC;
}

/* Until START: serves data connection greetings and watches the control
 * connection. 0 on START with every stream connected, 1 when the client
 * abandoned the test (STOP), negative on failure (the client was told). */
static int wait_start(const struct load_serve_session *s, struct data_server *ds)
{
	uint64_t wait_ns = at_least_msg_timeout_ns(s, SETUP_TIMEOUT_MS),
		 deadline = clock_now_ns() + wait_ns;
	struct pollfd pfd[1 + LOAD_MAX_STREAMS];

	for (;;) {
		unsigned n = 1 + data_server_pollfds(ds, pfd + 1, LOAD_MAX_STREAMS);
		struct proto_start st;
		struct proto_msg m;
		int rc;

		pfd[0] = (struct pollfd){ .fd = s->c->fd, .events = POLLIN };
		if (poll(pfd, n, LOOP_SLICE_MS) < 0 && errno != EINTR)
			return -errno;
		data_server_handle(ds, pfd + 1, n - 1, DATA_HELLO_TIMEOUT_MS);
		rc = ctrl_recv(s->c, &m, 0, true);
		if (rc == 1 && m.type == PROTO_STOP)
			return 1;
		if (rc == 1 &&
		    (m.type != PROTO_START || proto_decode_start(m.body, m.len, &st) < 0 ||
		     st.test_id != ds->test_id)) {
			serve_refuse(s, PROTO_ERROR, PROTO_R_BAD_MESSAGE,
				     "expected START of test %u, got %s", ds->test_id,
				     proto_type_name(m.type));
			return -EPROTO;
		}
		if (rc == 1 && !data_server_complete(ds))
			finish_setup(ds);
		if (rc == 1 && !data_server_complete(ds)) {
			serve_refuse(s, PROTO_ERROR, PROTO_R_BAD_MESSAGE,
				     "START before all data connections arrived (%u of %u)",
				     ds->nready, ds->streams);
			return -EPROTO;
		}
		if (rc == 1)
			return 0;
		if (rc < 0) {
			if (rc == PROTO_E_STALLED || rc == -EINTR)
				serve_refuse(s, PROTO_ERROR,
					     rc == -EINTR ? PROTO_R_INTERRUPTED : PROTO_R_TIMEOUT,
					     "%s", proto_strerror(rc));
			return rc;
		}
		if (clock_now_ns() > deadline) {
			unsigned ms = (unsigned)(wait_ns / NSEC_PER_MSEC);

			if (data_server_complete(ds))
				serve_refuse(s, PROTO_ERROR, PROTO_R_TIMEOUT,
					     "no START within %u ms (all %u data connections "
					     "arrived)",
					     ms, ds->streams);
			else
				serve_refuse(s, PROTO_ERROR, PROTO_R_TIMEOUT,
					     "data connections did not arrive within %u ms "
					     "(%u of %u)",
					     ms, ds->nready, ds->streams);
			return -ETIMEDOUT;
		}
	}
}

static int send_interval(const struct load_serve_session *s, struct load_streams *ls,
			 uint32_t test_id)
{
	struct proto_interval iv;

	load_streams_interval(ls, clock_now_ns(), &iv);
	iv.test_id = test_id;
	return ctrl_send(s->c, proto_encode_interval(s->c->out, PROTO_MAX_MSG, &iv));
}

/* Runs the streams until this end's part is over and the client said STOP.
 * 0, or negative when the control connection failed. */
static int run_loop(const struct load_serve_session *s, struct load_streams *ls, uint32_t test_id)
{
	uint64_t stop_at = 0,
		 hard_end = ls->end_ns + at_least_msg_timeout_ns(s, STOP_GRACE_NS / NSEC_PER_MSEC);

	for (;;) {
		uint64_t now = clock_now_ns(), tick = load_streams_next_tick(ls);
		struct proto_stop stop;
		struct proto_msg m;
		bool done;
		int rc;

		if (!ls->sender && tick != UINT64_MAX && now >= tick) {
			if ((rc = send_interval(s, ls, test_id)) < 0)
				return rc;
			continue;
		}
		done = ls->sender ? load_streams_sender_done(ls)
				  : load_streams_receiver_done(ls, now, stop_at);
		if (done && stop_at) {
			/* The ends' clocks start the test a little apart: the
			 * client may be done before this end's last tick. That
			 * interval ends with the test: report it before RESULTS,
			 * so that -t 2 -i 1 always gives two. */
			if (!ls->sender && tick != UINT64_MAX &&
			    (rc = send_interval(s, ls, test_id)) < 0)
				return rc;
			return 0;
		}
		if (now > hard_end) {
			log_warn("%s: test %u: no STOP from the client; ending it", s->name,
				 test_id);
			return 0;
		}
		uint64_t wait = ls->sender || tick == UINT64_MAX || tick <= now
					? LOOP_SLICE_MS
					: (tick - now) / NSEC_PER_MSEC + 1;
		rc = ctrl_recv(s->c, &m, (int)(wait < LOOP_SLICE_MS ? wait : LOOP_SLICE_MS), true);
		if (rc == 0)
			continue;
		if (rc < 0)
			return rc;
		if (m.type != PROTO_STOP || proto_decode_stop(m.body, m.len, &stop) < 0) {
			serve_refuse(s, PROTO_ERROR, PROTO_R_BAD_MESSAGE, "expected STOP, got %s",
				     proto_type_name(m.type));
			return -EPROTO;
		}
		stop_at = clock_now_ns();
		/* interrupted: a sender stops now; a receiver still drains what
		 * is in flight (FINs or a quiet moment), like after DONE */
		if (stop.reason != PROTO_STOP_DONE && ls->sender)
			atomic_store(&ls->stop, true);
	}
}

/* The server's host facts over the test, before its RESULTS: the client
 * takes RESULTS as the test's end. */
static int send_facts(const struct load_serve_session *s, const struct hostfacts *f)
{
	return ctrl_send(s->c, proto_encode_host_facts(s->c->out, PROTO_MAX_MSG, f));
}

/* The window's first read of this host's facts: the data socket's
 * interface is the path's (a VPN's TUN, whose holder is found). */
static struct hostfacts_probe *facts_prepare(int fd, double baseline)
{
	struct hostfacts_where w = { .baseline_cores = baseline };
	char dev[IF_NAMESIZE] = "";

	sockopt_local_ifname(fd, dev, sizeof(dev));
	w.path_if = dev;
	return hostfacts_prepare(&w);
}

static int send_results(const struct load_serve_session *s, struct load_streams *ls,
			uint32_t test_id)
{
	struct proto_results *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return -ENOMEM;
	load_streams_results(ls, r);
	r->test_id = test_id;
	/* an older client refuses a RESULTS longer than it knows */
	r->has_local_drops = r->has_local_drops && (s->client_caps & PROTO_CAP_LOCAL_DROPS);
	r->has_rx_wait = r->has_rx_wait && (s->client_caps & PROTO_CAP_RX_WAIT);
	r->has_sock_drops = r->has_sock_drops && (s->client_caps & PROTO_CAP_SOCK_DROPS);
	r->has_sock_owner = r->has_sock_owner && (s->client_caps & PROTO_CAP_SOCK_OWNER);
	r->has_tcp_limits = r->has_tcp_limits && (s->client_caps & PROTO_CAP_TCP_LIMITS);
	rc = ctrl_send(s->c, proto_encode_results(s->c->out, PROTO_MAX_MSG, r));
	free(r);
	return rc;
}

/* Reverse UDP with DF: a datagram above our path MTU (mtu; 0: read it from
 * fd) is the test's error, told to the client, never a silent stream end. */
static int df_refuse(const struct load_serve_session *s, const struct load_spec *spec, int fd,
		     uint32_t mtu)
{
	unsigned hdr = sockopt_udp_overhead(fd);
	char dev[IF_NAMESIZE], msg[256];

	if (!mtu)
		mtu = sockopt_path_mtu(fd);
	if (!mtu || spec->len + hdr <= mtu)
		return 0;
	sockopt_local_ifname(fd, dev, sizeof(dev));
	udp_fit_error(msg, sizeof(msg), spec->len, mtu, hdr, dev);
	log_warn("%s: %s", s->name, msg);
	serve_refuse(s, PROTO_ERROR, PROTO_R_UNSPEC, "server: %s", msg);
	return -EMSGSIZE;
}

static int measure(const struct load_serve_session *s, struct data_server *ds,
		   const struct load_spec *spec)
{
	bool df_sender = spec->proto == LOAD_UDP && spec->reverse && spec->dont_fragment;
	int fds[LOAD_MAX_STREAMS];
	struct load_streams ls;
	struct hostfacts_probe *probe;
	struct hostfacts *facts;
	double baseline;
	int rc;

	for (unsigned i = 0; i < ds->streams; i++)
		fds[i] = data_server_take(ds, i);
	data_server_close(ds);
	rc = set_congestion(s, spec, fds);
	if (rc == 0 && df_sender)
		rc = df_refuse(s, spec, fds[0], 0);
	if (rc < 0) {
		for (unsigned i = 0; i < ds->streams; i++)
			close(fds[i]);
		return rc;
	}
	/* ~5 KiB: off the session thread's stack */
	facts = s->host_facts ? malloc(sizeof(*facts)) : NULL;
	baseline = s->idle ? hostfacts_idle_start(s->idle) : -1;
	/* the path's interface, a VPN's TUN, its holder found: before the
	 * streams own the fds and the window starts */
	probe = facts ? facts_prepare(fds[0], baseline) : NULL;
	rc = load_streams_start(&ls, spec, fds, spec->reverse, ds->test_id, 0);
	if (rc < 0) {
		serve_refuse(s, PROTO_ERROR, PROTO_R_INTERNAL, "cannot start streams: %s",
			     strerror(-rc));
		load_streams_free(&ls);
		if (s->idle)
			hostfacts_idle_stop(s->idle);
		if (facts)
			hostfacts_end(probe, facts);
		free(facts);
		return rc;
	}
	/* once the streams' threads run, and until they are joined: their
	 * CPU is the test's */
	hostfacts_start(probe);
	rc = run_loop(s, &ls, ds->test_id);
	if (facts)
		hostfacts_end(probe, facts);
	load_streams_stop(&ls);
	if (facts)
		load_facts_streams(facts, &ls);
	if (s->idle)
		hostfacts_idle_stop(s->idle);
	/* the path MTU fell below the datagrams during the test (ICMP) */
	if (df_sender && rc == 0 && load_streams_error(&ls) == -EMSGSIZE &&
	    (rc = df_refuse(s, spec, ls.us[0].fd, load_streams_path_mtu(&ls))) < 0) {
		load_streams_free(&ls);
		free(facts);
		return rc;
	}
	if (rc < 0 && rc != -EINTR)
		log_warn("%s: test %u aborted: %s", s->name, ds->test_id,
			 rc == PROTO_E_EOF ? "the client went away" : proto_strerror(rc));
	if (rc == 0 || rc == -EINTR) {
		int r2 = facts ? send_facts(s, facts) : 0;

		if (r2 == 0)
			r2 = send_results(s, &ls, ds->test_id);

		if (rc == -EINTR)
			serve_refuse(s, PROTO_ERROR, PROTO_R_INTERRUPTED, "server shutting down");
		rc = rc ? rc : r2;
	}
	load_streams_free(&ls);
	free(facts);
	return rc;
}

int load_serve(const struct load_serve_session *s, const struct proto_test_request *req,
	       unsigned *foreign)
{
	const struct load_serve_limits *lim = s->limits;
	struct data_opts opts = { .mss = req->mss, .sock_buf = req->sock_buf, .dscp = req->dscp };
	struct load_spec spec;
	struct data_server ds;
	char why[PROTO_TEXT_MAX], cc[PROTO_CC_NAME_LEN];
	uint16_t code;
	int rc;

	*foreign = 0;
	memset(&spec, 0, sizeof(spec));
	proto_test_request_to_spec(req, &spec);
	spec.family = s->local->ss_family;
	spec.realtime = lim->realtime;
	/* a client cannot make the server pin more than this per socket */
	if (spec.sock_buf > SOCKOPT_MAX_REQUEST_BUF)
		spec.sock_buf = SOCKOPT_MAX_REQUEST_BUF;
	if (!spec.sock_buf && spec.proto == LOAD_UDP)
		spec.sock_buf = sockopt_udp_default_buf(spec.streams);
	opts.sock_buf = spec.sock_buf;
	if (!spec.len)
		spec.len = spec.proto == LOAD_UDP ? LOAD_UDP_DEFAULT_LEN : LOAD_TCP_DEFAULT_LEN;
	code = check_limits(lim, req, why, sizeof(why));
	if (!code)
		code = check_congestion(s, req, cc, why, sizeof(why));
	if (!code &&
	    (req->flags & PROTO_REQ_IPV6) != (spec.family == AF_INET6 ? PROTO_REQ_IPV6 : 0)) {
		snprintf(why, sizeof(why),
			 "the data path must use the control connection's family");
		code = PROTO_R_UNSUPPORTED;
	}
	if (code)
		return reject(s, code, why) < 0 ? -EIO : 0;
	rc = data_server_open(&ds, spec.proto == LOAD_UDP, spec.streams,
			      atomic_fetch_add(s->next_test_id, 1), s->local, s->peer, s->reg,
			      &opts);
	if (rc < 0) {
		snprintf(why, sizeof(why), "cannot open data sockets: %s", strerror(-rc));
		return reject(s, PROTO_R_INTERNAL, why) < 0 ? -EIO : 0;
	}
	log_info("%s: test %u: %s, %u stream(s), %.1f s, %s", s->name, ds.test_id,
		 spec.proto == LOAD_UDP ? "UDP" : "TCP", spec.streams,
		 (double)spec.duration_ns / 1e9, spec.reverse ? "server sends" : "client sends");
	ds.ack_hello = s->client_caps & PROTO_CAP_DATA_ACK;
	rc = send_accept(s, &ds, cc);
	if (rc == 0)
		rc = wait_start(s, &ds);
	if (rc != 0) {
		data_server_close(&ds);
		*foreign = ds.refused;
		return rc > 0 ? 0 : rc;
	}
	rc = measure(s, &ds, &spec);
	*foreign = ds.refused;
	if (rc == 0)
		log_info("%s: test %u done", s->name, ds.test_id);
	return rc < 0 ? rc : 1;
}
