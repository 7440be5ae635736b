// SPDX-License-Identifier: MIT
/*
 * Server side of `ovlperf mtu` (contract in mtu_serve.h): receives UDP probes,
 * tells the client which arrived, and serves the TCP MSS check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "bytes.h"
#include "clock.h"
#include "data_registry.h"
#include "interrupt.h"
#include "log.h"
#include "mtu.h"
#include "mtu_serve.h"
#include "mtu_wire.h"
#include "proto.h"
#include "sockopt.h"
#include "tcp_syn.h"

/* No message from the client for this long ends the session. */
#define IDLE_TIMEOUT_NS	 (30 * NSEC_PER_SEC)
#define STALL_TIMEOUT_NS (5 * NSEC_PER_SEC)
#define WRITE_TIMEOUT_MS 5000
/* Rounds remembered: a probe of an older round arriving late is ignored. */
#define ROUNDS 8
/* The server end of the TCP check sends this much, so that its own
 * tcpi_snd_mss / tcpi_pmtu reflect a real transfer. */
#define TCP_SEND_BYTES MTU_WIRE_TCP_SERVER_BYTES
/* IPv6 header + the largest TCP header (60 bytes), with room to spare. */
#define SAVED_SYN_MAX 256
#define PROBE_BUF     65536

struct round {
	uint32_t id;
	bool used;
	uint32_t mask, reassembled_mask;
};

struct session {
	int ctrl, udp, lsn, tcp;
	struct data_registry *reg;    /* the server's port (NULL: sockets of our own) */
	struct data_reg_entry *entry; /* the session's token in reg */
	int family;
	struct sockaddr_storage peer;
	uint64_t token;
	bool opened;
	struct round rounds[ROUNDS];
	bool query_pending;
	struct mtu_wire_query query;
	uint64_t query_deadline;
	uint64_t tcp_rx, tcp_tx;
	bool tcp_closed;  /* the client's end is closed: no more polling */
	uint32_t syn_mss; /* MSS option of the client's SYN as it arrived (0: unknown) */
	uint8_t *buf;
};

static int send_reply(int fd, const uint8_t *body, size_t len)
{
	uint8_t msg[PROTO_HDR_LEN + 64];
	ssize_t n = proto_encode_opaque(msg, sizeof(msg), PROTO_MTU_PROBE_REPLY, body, len);

	if (n < 0)
		return (int)n;
	return proto_write_all(fd, msg, (size_t)n, WRITE_TIMEOUT_MS);
}

static struct round *round_get(struct session *s, uint32_t id, bool create)
{
	struct round *r = &s->rounds[id % ROUNDS];

	if (r->used && r->id == id)
		return r;
	/* A late probe of a round older than the slot's must not reset it. */
	if (!create || (r->used && id < r->id))
		return NULL;
	*r = (struct round){ .id = id, .used = true };
	return r;
}

static int open_sockets(struct session *s, bool want_tcp, struct mtu_wire_ready *ready)
{
	struct sockaddr_storage local;
	socklen_t sl = sizeof(local);
	int one = 1;

	if (getsockname(s->ctrl, (struct sockaddr *)&local, &sl) < 0)
		return -errno;
	addr_unmap(&local);
	s->family = local.ss_family;
	addr_set_port(&local, 0);
	s->udp = socket(s->family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->udp < 0)
		return -errno;
	if (s->family == AF_INET)
		setsockopt(s->udp, IPPROTO_IP, IP_RECVFRAGSIZE, &one, sizeof(one));
	else
		setsockopt(s->udp, IPPROTO_IPV6, IPV6_RECVFRAGSIZE, &one, sizeof(one));
	sockopt_set_bufs(s->udp, 4u << 20, false, true);
	if (bind(s->udp, (struct sockaddr *)&local, addr_len(&local)) < 0)
		return -errno;
	sl = sizeof(local);
	if (getsockname(s->udp, (struct sockaddr *)&local, &sl) < 0)
		return -errno;
	ready->udp_port = addr_port(&local);
	ready->if_mtu = mtu_local_if_mtu(s->ctrl);
	if (!want_tcp)
		return 0;
	addr_set_port(&local, 0);
	s->lsn = socket(s->family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->lsn < 0)
		return -errno;
	/* Keep the SYN's headers: its MSS option as it arrived tells a clamp on
	 * the way from the value the client sent. Best effort (Linux >= 4.2). */
	setsockopt(s->lsn, IPPROTO_TCP, TCP_SAVE_SYN, &one, sizeof(one));
	if (bind(s->lsn, (struct sockaddr *)&local, addr_len(&local)) < 0 || listen(s->lsn, 1) < 0)
		return -errno;
	sl = sizeof(local);
	if (getsockname(s->lsn, (struct sockaddr *)&local, &sl) < 0)
		return -errno;
	ready->tcp_port = addr_port(&local);
	return 0;
}

/* Probes and the MSS check's connection come to the server's port; the
 * accept thread hands them over through the registry (data_registry.h). */
static int use_port(struct session *s, struct mtu_wire_ready *ready)
{
	struct data_claim key = { .kind = DATA_REG_MTU };
	struct sockaddr_storage local;
	socklen_t sl = sizeof(local);
	int err;

	if (getsockname(s->ctrl, (struct sockaddr *)&local, &sl) < 0)
		return -errno;
	addr_unmap(&local);
	s->family = local.ss_family;
	put_be64(key.secret, s->token);
	err = data_registry_add(s->reg, &key, 1, &s->peer, &s->entry);
	if (err < 0)
		return err;
	ready->udp_port = data_registry_port(s->reg);
	ready->tcp_port = ready->udp_port;
	ready->if_mtu = mtu_local_if_mtu(s->ctrl);
	return 0;
}

static int on_open(struct session *s, const uint8_t *body, size_t len)
{
	struct mtu_wire_request rq;
	struct mtu_wire_ready ready = { 0 };
	uint8_t out[MTU_WIRE_OP_LEN + MTU_WIRE_READY_LEN];
	int err;

	if (s->opened || !mtu_wire_get_request(body, len, &rq))
		return -EPROTO;
	s->token = rq.token;
	s->opened = true;
	if (s->reg && (rq.flags & MTU_WIRE_F_ONE_PORT))
		err = use_port(s, &ready);
	else
		err = open_sockets(s, rq.flags & MTU_WIRE_F_TCP, &ready);
	if (err < 0) {
		log_err("cannot open probe sockets: %s", strerror(-err));
		return err;
	}
	if ((rq.family == 4) != (s->family == AF_INET))
		log_warn("client asked for IPv%u probes over an IPv%u control connection",
			 rq.family, s->family == AF_INET ? 4 : 6);
	mtu_wire_put_op(out, MTU_OP_READY);
	mtu_wire_put_ready(out + MTU_WIRE_OP_LEN, &ready);
	return send_reply(s->ctrl, out, sizeof(out));
}

static int send_report(struct session *s)
{
	struct round *r = round_get(s, s->query.round, false);
	struct mtu_wire_report rep = { .round = s->query.round };
	struct mtu_frag_counters fc = { 0 };
	uint8_t out[MTU_WIRE_OP_LEN + MTU_WIRE_REPORT_LEN];

	if (r) {
		rep.mask = r->mask;
		rep.received = (uint16_t)__builtin_popcount(r->mask);
		rep.reassembled = (uint16_t)__builtin_popcount(r->reassembled_mask);
	}
	if (mtu_frag_counters_read(&fc) == 0) {
		rep.reasm_reqds = fc.reasm_reqds;
		rep.frag_creates = fc.frag_creates;
	}
	s->query_pending = false;
	mtu_wire_put_op(out, MTU_OP_REPORT);
	mtu_wire_put_report(out + MTU_WIRE_OP_LEN, &rep);
	return send_reply(s->ctrl, out, sizeof(out));
}

static bool query_satisfied(struct session *s, uint64_t now)
{
	struct round *r = round_get(s, s->query.round, false);
	unsigned got = r ? (unsigned)__builtin_popcount(r->mask) : 0;

	return got >= s->query.sent || now >= s->query_deadline;
}

static int on_tcp_query(struct session *s)
{
	struct mtu_wire_tcp_report rep = { .bytes = s->tcp_rx };
	struct tcp_info_summary ti;
	uint8_t out[MTU_WIRE_OP_LEN + MTU_WIRE_TCP_REPORT_LEN];

	if (s->tcp >= 0 && sockopt_tcp_info(s->tcp, &ti) == 0) {
		rep.snd_mss = ti.snd_mss;
		rep.adv_mss = ti.adv_mss;
		rep.rcv_mss = ti.rcv_mss;
		rep.pmtu = ti.pmtu;
	}
	rep.syn_mss = s->syn_mss;
	mtu_wire_put_op(out, MTU_OP_TCP_REPORT);
	mtu_wire_put_tcp_report(out + MTU_WIRE_OP_LEN, &rep);
	return send_reply(s->ctrl, out, sizeof(out));
}

/* Returns 1 when the client said DONE, 0 to go on, or a negative errno. */
static int on_message(struct session *s, const struct proto_msg *m, uint64_t now)
{
	const uint8_t *body = m->body + MTU_WIRE_OP_LEN;
	size_t len = m->len >= MTU_WIRE_OP_LEN ? m->len - MTU_WIRE_OP_LEN : 0;
	enum mtu_wire_op op;

	if (m->type != PROTO_MTU_PROBE_REQUEST || !mtu_wire_get_op(m->body, m->len, &op)) {
		log_warn("unexpected %s message in an MTU session", proto_type_name(m->type));
		return -EPROTO;
	}
	if (op != MTU_OP_OPEN && !s->opened)
		return -EPROTO;
	switch (op) {
	case MTU_OP_OPEN:
		return on_open(s, body, len);
	case MTU_OP_QUERY:
		if (!mtu_wire_get_query(body, len, &s->query))
			return -EPROTO;
		s->query_pending = true;
		s->query_deadline = now + s->query.wait_ms * NSEC_PER_MSEC;
		return query_satisfied(s, now) ? send_report(s) : 0;
	case MTU_OP_TCP_QUERY:
		return len == 0 ? on_tcp_query(s) : -EPROTO;
	case MTU_OP_DONE:
		return 1;
	default:
		return -EPROTO;
	}
}

static bool frag_cmsg(struct msghdr *mh)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
		if ((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVFRAGSIZE) ||
		    (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_RECVFRAGSIZE))
			return true;
	return false;
}

static void drain_udp(struct session *s)
{
	for (;;) {
		struct sockaddr_storage from;
		union {
			char buf[CMSG_SPACE(sizeof(int)) * 2];
			struct cmsghdr align;
		} cm;
		struct iovec iov = { s->buf, PROBE_BUF };
		struct msghdr mh = { .msg_name = &from,
				     .msg_namelen = sizeof(from),
				     .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = cm.buf,
				     .msg_controllen = sizeof(cm.buf) };
		struct mtu_wire_probe p;
		struct round *r;
		ssize_t n = recvmsg(s->udp, &mh, MSG_DONTWAIT);

		if (n < 0)
			return;
		if (!mtu_wire_get_probe(s->buf, (size_t)n, &p) || p.token != s->token ||
		    !addr_same_host(&from, &s->peer))
			continue;
		r = round_get(s, p.round, true);
		if (!r)
			continue;
		r->mask |= 1u << p.index;
		if (frag_cmsg(&mh))
			r->reassembled_mask |= 1u << p.index;
	}
}

static void saved_syn_mss(struct session *s)
{
	uint8_t syn[SAVED_SYN_MAX];
	socklen_t sl = sizeof(syn);

	if (getsockopt(s->tcp, IPPROTO_TCP, TCP_SAVED_SYN, syn, &sl) == 0 &&
	    !tcp_syn_mss(syn, sl, &s->syn_mss))
		s->syn_mss = 0;
}

static void take_tcp(struct session *s, int fd)
{
	if (s->tcp >= 0) {
		close(fd);
		return;
	}
	s->tcp = fd;
	saved_syn_mss(s);
}

/* What the accept thread handed over: probe records, the TCP connection. */
static void take_handoffs(struct session *s)
{
	struct data_handoff h;
	struct round *r;

	while (data_reg_entry_take(s->entry, &h) == 1) {
		if (h.fd >= 0) {
			take_tcp(s, h.fd);
			continue;
		}
		r = round_get(s, h.round, true);
		if (!r || h.index >= MTU_WIRE_MAX_ROUND)
			continue;
		r->mask |= 1u << h.index;
		if (h.reassembled)
			r->reassembled_mask |= 1u << h.index;
	}
}

static void tcp_accept(struct session *s)
{
	struct sockaddr_storage from;
	socklen_t sl = sizeof(from);
	int fd = accept4(s->lsn, (struct sockaddr *)&from, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	if (!addr_same_host(&from, &s->peer)) {
		close(fd);
		return;
	}
	take_tcp(s, fd);
}

static void tcp_io(struct session *s, short revents)
{
	ssize_t n;

	if (revents & (POLLIN | POLLHUP | POLLERR)) {
		while ((n = recv(s->tcp, s->buf, PROBE_BUF, MSG_DONTWAIT)) > 0)
			s->tcp_rx += (uint64_t)n;
		/* The client closed (or broke) it: keep the socket for TCP_INFO,
		 * stop polling it so the loop does not spin on the EOF. */
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
			s->tcp_closed = true;
	}
	if ((revents & POLLOUT) && !s->tcp_closed && s->tcp_tx < TCP_SEND_BYTES) {
		size_t want = TCP_SEND_BYTES - s->tcp_tx;

		memset(s->buf, 0x5a, want < PROBE_BUF ? want : PROBE_BUF);
		n = send(s->tcp, s->buf, want < PROBE_BUF ? want : PROBE_BUF,
			 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0)
			s->tcp_tx += (uint64_t)n;
	}
}

static int serve_loop(struct session *s)
{
	struct proto_reader rd;
	uint64_t last = clock_now_ns();
	int err;

	err = proto_reader_init(&rd);
	if (err < 0)
		return err;
	for (;;) {
		struct pollfd pf[5] = {
			{ s->ctrl, POLLIN, 0 },
			{ s->udp, POLLIN, 0 },
			{ s->lsn, POLLIN, 0 },
			{ s->tcp_closed ? -1 : s->tcp,
			  (short)(POLLIN | (s->tcp_tx < TCP_SEND_BYTES ? POLLOUT : 0)), 0 },
			{ s->entry ? data_reg_entry_pollfd(s->entry) : -1, POLLIN, 0 },
		};
		struct proto_msg m;
		uint64_t now;

		if (interrupt_requested()) {
			err = -EINTR;
			break;
		}
		if (poll(pf, 5, s->query_pending ? 5 : 200) < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		now = clock_now_ns();
		if (pf[1].revents & POLLIN)
			drain_udp(s);
		if (pf[4].revents & POLLIN)
			take_handoffs(s);
		if (pf[2].revents & POLLIN)
			tcp_accept(s);
		if (s->tcp >= 0 && pf[3].revents)
			tcp_io(s, pf[3].revents);
		if (pf[0].revents) {
			err = proto_reader_read(&rd, s->ctrl, now, &m);
			if (err == 1) {
				last = now;
				err = on_message(s, &m, now);
			}
			if (err < 0 || err == 1)
				break;
		}
		if (s->query_pending && query_satisfied(s, now) && (err = send_report(s)) < 0)
			break;
		if (now - last > IDLE_TIMEOUT_NS ||
		    proto_reader_stalled(&rd, now, STALL_TIMEOUT_NS)) {
			err = -ETIMEDOUT;
			break;
		}
	}
	proto_reader_free(&rd);
	return err == 1 ? 0 : err;
}

int mtu_serve_port(int ctrl_fd, const struct sockaddr_storage *client, struct data_registry *reg)
{
	struct session s = { .ctrl = ctrl_fd, .udp = -1, .lsn = -1, .tcp = -1, .reg = reg };
	int err;

	if (client) {
		s.peer = *client;
	} else {
		socklen_t sl = sizeof(s.peer);

		if (getpeername(ctrl_fd, (struct sockaddr *)&s.peer, &sl) < 0)
			return -errno;
	}
	addr_unmap(&s.peer);
	s.buf = malloc(PROBE_BUF);
	if (!s.buf)
		return -ENOMEM;
	err = serve_loop(&s);
	if (err < 0 && err != -EINTR)
		log_warn("MTU session ended: %s", proto_strerror(err));
	free(s.buf);
	if (s.entry)
		data_registry_remove(reg, s.entry);
	if (s.tcp >= 0)
		close(s.tcp);
	if (s.lsn >= 0)
		close(s.lsn);
	if (s.udp >= 0)
		close(s.udp);
	return err == PROTO_E_EOF ? 0 : err;
}

int mtu_serve(int ctrl_fd, const struct sockaddr_storage *client, const uint8_t *req,
	      size_t req_len)
{
	(void)req;
	(void)req_len;
	return mtu_serve_port(ctrl_fd, client, NULL);
}
