// SPDX-License-Identifier: MIT
/*
 * TCP MSS of a real connection, on both ends: right after the handshake
 * (what the SYNs and the route said) and after a transfer both ways (what
 * PMTU discovery made of it). A transfer that stalls because segments of
 * that MSS never arrive is the black-hole symptom users report as "TCP hangs
 * on large transfers"; it is recorded, not treated as an error.
 */
#include <errno.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "clock.h"
#include "ctrl.h"
#include "interrupt.h"
#include "mtu.h"
#include "mtu_wire.h"
#include "proto.h"

#define CONNECT_TIMEOUT_MS 3000
/* A transfer gets at least this long before it is called stalled. */
#define MIN_TRANSFER_NS (2 * NSEC_PER_SEC)
#define IO_BUF		(64 * 1024)

/* skip: bytes sent before the transfer (the greeting), not part of it. */
static int read_info(int fd, struct mtu_tcp_end *end, bool *timestamps, uint64_t *acked,
		     uint64_t skip)
{
	struct tcp_info ti;
	socklen_t sl = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &sl) < 0)
		return -errno;
	end->valid = true;
	end->snd_mss = ti.tcpi_snd_mss;
	end->adv_mss = ti.tcpi_advmss;
	end->rcv_mss = ti.tcpi_rcv_mss;
	end->pmtu = ti.tcpi_pmtu;
	if (timestamps)
		*timestamps = ti.tcpi_options & TCPI_OPT_TIMESTAMPS;
	/* tcpi_bytes_acked counts the SYN's sequence number too. */
	if (acked)
		*acked = ti.tcpi_bytes_acked > 1 + skip ? ti.tcpi_bytes_acked - 1 - skip : 0;
	return 0;
}

int mtu_bind_port(int fd, int family, uint16_t port)
{
	struct sockaddr_storage ss = { .ss_family = (sa_family_t)family };
	int one = 1;

	if (!port)
		return 0;
	addr_set_port(&ss, port);
	/* a TCP port pinned run after run: its last connection may be in
	 * TIME_WAIT, which must not refuse the next run */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	return bind(fd, (struct sockaddr *)&ss, addr_len(&ss)) < 0 ? -errno : 0;
}

static int tcp_connect(const struct sockaddr_storage *peer, uint16_t cport)
{
	struct pollfd p;
	socklen_t sl = sizeof(int);
	int fd, soerr = 0, rc;

	fd = socket(peer->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	rc = mtu_bind_port(fd, peer->ss_family, cport);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	if (connect(fd, (const struct sockaddr *)peer, addr_len(peer)) < 0 &&
	    errno != EINPROGRESS) {
		rc = -errno;
		close(fd);
		return rc;
	}
	p = (struct pollfd){ .fd = fd, .events = POLLOUT };
	rc = poll(&p, 1, CONNECT_TIMEOUT_MS);
	if (rc <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
		close(fd);
		return rc == 0 ? -ETIMEDOUT : soerr ? -soerr : -EIO;
	}
	return fd;
}

/* Sends MTU_WIRE_TCP_CLIENT_BYTES and reads the server's bytes until both
 * are through (everything sent is acknowledged) or the deadline passes. */
static void transfer(int fd, uint64_t deadline, uint64_t skip, struct mtu_tcp_result *res)
{
	uint8_t *buf = malloc(IO_BUF);

	if (!buf)
		return;
	memset(buf, 0x3c, IO_BUF);
	while (!interrupt_requested() && clock_now_ns() < deadline) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct mtu_tcp_end end;
		ssize_t n;

		if (res->bytes_sent < MTU_WIRE_TCP_CLIENT_BYTES)
			p.events |= POLLOUT;
		read_info(fd, &end, NULL, &res->bytes_acked, skip);
		if (res->bytes_acked >= MTU_WIRE_TCP_CLIENT_BYTES &&
		    res->bytes_received >= MTU_WIRE_TCP_SERVER_BYTES) {
			res->completed = true;
			break;
		}
		if (poll(&p, 1, 10) < 0 && errno != EINTR)
			break;
		if (p.revents & POLLOUT) {
			size_t want = MTU_WIRE_TCP_CLIENT_BYTES - res->bytes_sent;

			n = send(fd, buf, want < IO_BUF ? want : IO_BUF,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n > 0)
				res->bytes_sent += (uint64_t)n;
		}
		if (p.revents & POLLIN) {
			n = recv(fd, buf, IO_BUF, MSG_DONTWAIT);
			if (n > 0)
				res->bytes_received += (uint64_t)n;
			else if (n == 0)
				break;
		}
	}
	free(buf);
}

static int server_end(struct ctrl *c, struct mtu_tcp_result *res)
{
	uint8_t b[MTU_WIRE_OP_LEN];
	struct mtu_wire_tcp_report rep;
	struct proto_msg m;
	enum mtu_wire_op op;
	int rc;

	mtu_wire_put_op(b, MTU_OP_TCP_QUERY);
	rc = ctrl_send(c, proto_encode_opaque(c->out, PROTO_MAX_MSG, PROTO_MTU_PROBE_REQUEST, b,
					      sizeof(b)));
	if (rc < 0)
		return rc;
	rc = ctrl_recv(c, &m, CTRL_DEFAULT_MSG_TIMEOUT_MS, true);
	if (rc == 0)
		return -ETIMEDOUT;
	if (rc < 0)
		return rc;
	if (m.type != PROTO_MTU_PROBE_REPLY || !mtu_wire_get_op(m.body, m.len, &op) ||
	    op != MTU_OP_TCP_REPORT ||
	    !mtu_wire_get_tcp_report(m.body + MTU_WIRE_OP_LEN, m.len - MTU_WIRE_OP_LEN, &rep))
		return -EPROTO;
	res->server = (struct mtu_tcp_end){ .valid = rep.snd_mss != 0,
					    .snd_mss = rep.snd_mss,
					    .adv_mss = rep.adv_mss,
					    .rcv_mss = rep.rcv_mss,
					    .pmtu = rep.pmtu };
	res->syn_arrived = rep.syn_mss;
	return 0;
}

/* The probe header that tells the server's port which session this is. */
static int greet_server(int fd, uint64_t token)
{
	uint8_t g[MTU_WIRE_PROBE_HDR_LEN];

	mtu_wire_put_probe(g, &(struct mtu_wire_probe){ .token = token });
	return proto_write_all(fd, g, sizeof(g), CONNECT_TIMEOUT_MS);
}

int mtu_tcp_check(struct ctrl *c, const struct sockaddr_storage *peer, uint64_t timeout_ns,
		  bool greet, uint64_t token, uint16_t cport, struct mtu_tcp_result *res)
{
	uint64_t budget = 2 * timeout_ns > MIN_TRANSFER_NS ? 2 * timeout_ns : MIN_TRANSFER_NS;
	int fd, rc;

	memset(res, 0, sizeof(*res));
	res->run = true;
	res->family = peer->ss_family;
	fd = tcp_connect(peer, cport);
	if (fd >= 0 && greet && (rc = greet_server(fd, token)) < 0) {
		close(fd);
		fd = rc;
	}
	if (fd < 0) {
		if (cport && (fd == -EADDRINUSE || fd == -EADDRNOTAVAIL))
			snprintf(res->error, sizeof(res->error),
				 "--cport %u: the TCP source port is in use", cport);
		else
			snprintf(res->error, sizeof(res->error),
				 "cannot connect to the TCP port: %s", strerror(-fd));
		/* The control session is still fine: report what we have. */
		return server_end(c, res);
	}
	read_info(fd, &res->client_initial, &res->timestamps, NULL, 0);
	transfer(fd, clock_now_ns() + budget, greet ? MTU_WIRE_PROBE_HDR_LEN : 0, res);
	read_info(fd, &res->client, &res->timestamps, &res->bytes_acked,
		  greet ? MTU_WIRE_PROBE_HDR_LEN : 0);
	if (!res->completed)
		snprintf(res->error, sizeof(res->error),
			 "transfer stalled: %llu of %u bytes acknowledged, %llu of %u received "
			 "in %.1f s",
			 (unsigned long long)res->bytes_acked, MTU_WIRE_TCP_CLIENT_BYTES,
			 (unsigned long long)res->bytes_received, MTU_WIRE_TCP_SERVER_BYTES,
			 (double)budget / 1e9);
	rc = server_end(c, res);
	close(fd);
	if (rc < 0)
		snprintf(res->error, sizeof(res->error), "no TCP report from the server: %s",
			 proto_strerror(rc));
	return rc;
}
