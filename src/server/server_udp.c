// SPDX-License-Identifier: MIT
/*
 * The server's UDP socket on its port: a UDP stream's greeting and MTU
 * probes come here (proto.h: the demux). A greeting that the registry
 * accepts gets a socket of its own, bound to the address and port the
 * greeting was sent to and connected to the address and port it came from:
 * with SO_REUSEADDR on both, the kernel delivers that peer's datagrams to
 * the connected socket (the better match) and everyone else's here, and
 * what the server sends from it goes back through the NAT or stateful
 * firewall in front of the client that let the greeting in.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "data_registry.h"
#include "log.h"
#include "mtu_wire.h"
#include "server_refuse.h"
#include "server_udp.h"
#include "sockopt.h"

/* Datagrams read per wake-up, so the listener is not starved by a flood. */
#define DRAIN_BATCH 64
/* MTU probes in flight at once (a round of 32 at up to 64 KiB). */
#define PORT_RCVBUF (4u << 20)

int server_udp_open(const struct sockaddr_storage *ss, bool v6only)
{
	int fd = socket(ss->ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1, rc;

	if (fd < 0)
		return -errno;
	sockopt_reuseaddr(fd);
	if (ss->ss_family == AF_INET6) {
		int v6 = v6only;

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6, sizeof(v6));
		setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one));
		setsockopt(fd, IPPROTO_IPV6, IPV6_RECVFRAGSIZE, &one, sizeof(one));
	}
	/* on a dual-stack socket IPv4 datagrams carry IP_PKTINFO */
	setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	setsockopt(fd, IPPROTO_IP, IP_RECVFRAGSIZE, &one, sizeof(one));
	sockopt_set_bufs(fd, PORT_RCVBUF, false, true);
	if (bind(fd, (const struct sockaddr *)ss, addr_len(ss)) < 0) {
		rc = -errno;
		log_err("cannot bind UDP port %u: %s", addr_port(ss), strerror(-rc));
		close(fd);
		return rc;
	}
	return fd;
}

struct dgram_in {
	struct sockaddr_storage from, to; /* to: where it was sent (its port: ours) */
	bool have_to, reassembled;
};

static void read_cmsgs(struct msghdr *mh, uint16_t port, struct dgram_in *d)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;
			struct sockaddr_in *sin = (struct sockaddr_in *)&d->to;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			*sin = (struct sockaddr_in){ .sin_family = AF_INET,
						     .sin_port = htons(port),
						     .sin_addr = pi.ipi_addr };
			d->have_to = true;
		} else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;
			struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&d->to;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			*sin6 = (struct sockaddr_in6){ .sin6_family = AF_INET6,
						       .sin6_port = htons(port),
						       .sin6_addr = pi.ipi6_addr };
			/* a link-local destination needs its interface */
			if (IN6_IS_ADDR_LINKLOCAL(&pi.ipi6_addr))
				sin6->sin6_scope_id = pi.ipi6_ifindex;
			d->have_to = true;
		} else if ((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVFRAGSIZE) ||
			   (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_RECVFRAGSIZE)) {
			d->reassembled = true;
		}
	}
	addr_unmap(&d->to);
	addr_unmap(&d->from);
}

/* A socket of the stream's own: bound to the greeting's destination (our
 * port), connected to its source. */
static int stream_socket(const struct dgram_in *d)
{
	int fd = socket(d->to.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), rc;

	if (fd < 0)
		return -errno;
	sockopt_reuseaddr(fd);
	if (bind(fd, (const struct sockaddr *)&d->to, addr_len(&d->to)) < 0 ||
	    connect(fd, (const struct sockaddr *)&d->from, addr_len(&d->from)) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

static void greeting(struct server_shared *sh, const uint8_t *buf, size_t len,
		     const struct dgram_in *d)
{
	struct data_claim c;
	struct data_handoff h = { .fd = -1 };
	char who[80];
	int rc;

	if (!data_demux_claim(DATA_DEMUX_DATA, true, buf, len, &d->from, &c))
		rc = -EBADMSG;
	else if ((rc = data_registry_check(sh->reg, &c)) == 0 && !d->have_to)
		rc = -EADDRNOTAVAIL;
	if (rc == 0 && (h.fd = stream_socket(d)) < 0)
		rc = h.fd;
	h.stream = c.stream;
	if (rc == 0 && (rc = data_registry_claim(sh->reg, &c, &h)) < 0)
		close(h.fd);
	/* a copy of a greeting already served: the client retried before
	 * our echo came */
	if (rc == 0 || rc == -EALREADY)
		return;
	atomic_fetch_add(&sh->stats.foreign_data, 1);
	addr_format(&d->from, true, who, sizeof(who));
	log_warn("%s: UDP greeting refused: %s", who, server_claim_strerror(rc));
}

static void probe(struct server_shared *sh, const uint8_t *buf, size_t len,
		  const struct dgram_in *d)
{
	struct data_claim c;
	struct mtu_wire_probe p;
	struct data_handoff h = { .fd = -1, .reassembled = d->reassembled };

	/* probes from elsewhere or of a finished session are ignored, as
	 * mtu_serve.h says: the client learns what arrived over its session */
	if (!data_demux_claim(DATA_DEMUX_MTU, true, buf, len, &d->from, &c) ||
	    !mtu_wire_get_probe(buf, len, &p))
		return;
	h.round = p.round;
	h.index = p.index;
	data_registry_claim(sh->reg, &c, &h);
}

void server_udp_drain(struct server_shared *sh, int fd, uint8_t *buf, size_t cap)
{
	uint16_t port = data_registry_port(sh->reg);

	for (int k = 0; k < DRAIN_BATCH; k++) {
		union {
			char b[CMSG_SPACE(sizeof(struct in6_pktinfo)) +
			       CMSG_SPACE(sizeof(int)) * 2];
			struct cmsghdr align;
		} cm;
		struct dgram_in d = { .have_to = false };
		struct iovec iov = { buf, cap };
		struct msghdr mh = { .msg_name = &d.from,
				     .msg_namelen = sizeof(d.from),
				     .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = cm.b,
				     .msg_controllen = sizeof(cm.b) };
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
		size_t need;

		if (n < 0)
			return;
		read_cmsgs(&mh, port, &d);
		switch (data_demux_classify(buf, (size_t)n, &need)) {
		case DATA_DEMUX_DATA:
			greeting(sh, buf, (size_t)n, &d);
			break;
		case DATA_DEMUX_MTU:
			probe(sh, buf, (size_t)n, &d);
			break;
		default:
			/* a test datagram after its stream's socket closed (the
			 * client's last ones), or noise: nothing to answer */
			break;
		}
	}
}
