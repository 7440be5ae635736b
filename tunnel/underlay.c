// SPDX-License-Identifier: MIT
/*
 * The underlay's UDP sockets: one per family and worker, bound to 'listen',
 * or one inherited socket ('underlay_fd') that every worker shares.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "underlay.h"
#include "underlay_spread.h"

/* Ephemeral ports tried for a worker's own port (underlay_spread_port_ok
 * accepts one in nworkers: 32 tries fail with two workers once in 4e9). */
#define TX_PORT_TRIES 32u

static void set_buffers(int fd, uint32_t bytes)
{
	int v = (int)bytes;

	/* FORCE variants pass net.core.[rw]mem_max (we are root in a lab). */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
}

static int open_socket(const struct config *cfg, unsigned nworkers, int family,
		       const struct sockaddr_storage *bind_to)
{
	struct sockaddr_storage ss = *bind_to;
	int one = 1, pmtu = family == AF_INET6 ? IPV6_PMTUDISC_DO : IP_PMTUDISC_DO;
	uint16_t port = ((struct sockaddr_in *)bind_to)->sin_port; /* same offset in sin6 */
	int fd, r;

	if (ss.ss_family == AF_UNSPEC) {
		memset(&ss, 0, sizeof(ss));
		ss.ss_family = (sa_family_t)family;
		if (family == AF_INET)
			((struct sockaddr_in *)&ss)->sin_port = port;
		else
			((struct sockaddr_in6 *)&ss)->sin6_port = port;
	}
	fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	/* Workers share the port: the kernel spreads datagrams by 4-tuple hash. */
	if (nworkers > 1 && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (setsockopt(fd, family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP,
		       family == AF_INET6 ? IPV6_MTU_DISCOVER : IP_MTU_DISCOVER, &pmtu,
		       sizeof(pmtu)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, underlay_sockaddr_len(&ss)) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	set_buffers(fd, cfg->sock_buf);
	return fd;
}

/* A peer whose endpoint's family has no socket could never be reached. */
int underlay_check_endpoints(const struct config *cfg, const struct underlay_socks *s)
{
	for (size_t i = 0; i < cfg->npeers; i++) {
		const struct config_peer *cp = &cfg->peers[i];

		if (cp->has_endpoint && underlay_sock_for(s, cp->endpoint.ss_family) < 0) {
			log_err("%s:%u: key 'endpoint': an %s endpoint, but 'listen' is %s only",
				cfg->path, cp->line,
				cp->endpoint.ss_family == AF_INET6 ? "IPv6" : "IPv4",
				cp->endpoint.ss_family == AF_INET6 ? "IPv4" : "IPv6");
			return -EAFNOSUPPORT;
		}
	}
	return 0;
}

/* Datagrams of one flow arrive as one buffer (split in receive.c). */
static bool enable_gro(int fd, int family, bool quiet)
{
	int one = 1;

	if (setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) == 0)
		return true;
	if (!quiet)
		log_warn("UDP GRO refused on the %s socket (%s): one datagram per buffer",
			 family == AF_INET ? "IPv4" : "IPv6", strerror(errno));
	return false;
}

uint16_t underlay_port(int fd)
{
	struct sockaddr_storage got;
	socklen_t gl = sizeof(got);

	if (fd < 0 || getsockname(fd, (struct sockaddr *)&got, &gl) < 0)
		return 0;
	/* Same port offset in sin and sin6. */
	return ntohs(((struct sockaddr_in *)&got)->sin_port);
}

static bool rx_waiting(int fd)
{
	return fd >= 0 && recv(fd, NULL, 0, MSG_PEEK | MSG_DONTWAIT | MSG_TRUNC) >= 0;
}

unsigned underlay_rx_waiting(const struct underlay_socks *s)
{
	unsigned n = 0;

	for (int i = 0; i < 2; i++)
		n += rx_waiting(s->fd[i]) + rx_waiting(s->txfd[i]);
	return n;
}

/* Worker k's own sending socket: the listening address, an ephemeral port
 * that underlay_spread_port_ok() takes (listen_port is worker 0's). */
static int open_tx_socket(const struct config *cfg, unsigned nworkers, unsigned k, int family,
			  uint16_t listen_port)
{
	struct sockaddr_storage at = cfg->listen;
	int fd = -EADDRINUSE;

	((struct sockaddr_in *)&at)->sin_port = 0; /* same offset in sin6 */
	for (unsigned t = 0; t < TX_PORT_TRIES * nworkers; t++) {
		fd = open_socket(cfg, 1, family, &at);
		if (fd < 0 || underlay_spread_port_ok(underlay_port(fd), listen_port, nworkers, k))
			return fd;
		close(fd);
	}
	return open_socket(cfg, 1, family, &at); /* spread by luck, still correct */
}

/* Worker k's extras with several workers and worker_ports = on: worker 0
 * attaches the group's picking program, the others open their own port. A
 * refusal costs the spread, never the tunnel: logged, and worker k sends
 * from the listening socket. */
static void spread_socket(const struct config *cfg, unsigned nworkers, unsigned k, int family,
			  uint16_t listen_port, struct underlay_socks *w)
{
	int i = family == AF_INET6 ? 1 : 0, r;

	if (k == 0) {
		r = underlay_spread_attach(w->fd[i], family, nworkers);
		if (r < 0)
			log_warn("SO_ATTACH_REUSEPORT_CBPF refused on the %s socket (%s): workers "
				 "picked by the kernel's 4-tuple hash",
				 family == AF_INET ? "IPv4" : "IPv6", strerror(-r));
		return;
	}
	r = open_tx_socket(cfg, nworkers, k, family, listen_port);
	if (r < 0) {
		log_warn("worker %u: no port of its own (%s): it sends from the listening port", k,
			 strerror(-r));
		return;
	}
	w->txfd[i] = r;
	if (w->gro[i] && !enable_gro(r, family, true))
		w->gro[i] = false;
}

/* Worker w's sockets: worker 0's bound to 'listen', the others to the same
 * address and port (an ephemeral port is the one worker 0 got). */
static int open_worker_sockets(const struct config *cfg, unsigned nworkers, unsigned k,
			       const struct underlay_socks *first, struct underlay_socks *w)
{
	const struct sockaddr_storage *l = &cfg->listen;
	char buf[80];
	int fd;

	for (int i = 0; i < 2; i++) {
		int family = i ? AF_INET6 : AF_INET;
		struct sockaddr_storage at = *l;

		if (l->ss_family != AF_UNSPEC && l->ss_family != family)
			continue;
		if (k > 0) {
			struct sockaddr_storage got;
			socklen_t gl = sizeof(got);

			if (first->fd[i] < 0)
				continue;
			if (getsockname(first->fd[i], (struct sockaddr *)&got, &gl) < 0)
				return -errno;
			/* Same port offset in sin and sin6; the address stays as configured. */
			((struct sockaddr_in *)&at)->sin_port =
				((struct sockaddr_in *)&got)->sin_port;
		}
		fd = open_socket(cfg, nworkers, family, &at);
		if (fd < 0) {
			config_format_endpoint(l, buf, sizeof(buf));
			/* "listen = PORT" on a host without IPv6 is fine with IPv4 alone. */
			if (k == 0 && l->ss_family == AF_UNSPEC && family == AF_INET6 &&
			    fd == -EAFNOSUPPORT)
				continue;
			log_err("%s: cannot listen on %s (%s%s): %s", cfg->path,
				l->ss_family == AF_UNSPEC ? "all addresses" : buf,
				family == AF_INET ? "IPv4" : "IPv6",
				k ? ", another worker's socket" : "", strerror(-fd));
			return fd;
		}
		w->fd[i] = fd;
		if (cfg->udp_gro)
			w->gro[i] = enable_gro(fd, family, k > 0);
		if (nworkers > 1 && cfg->worker_ports)
			spread_socket(cfg, nworkers, k, family,
				      underlay_port(k ? first->fd[i] : fd), w);
	}
	return 0;
}

/* The socket another program made (`ovlperf server --overlay` hands over a
 * connected UDP socket on its one port): the kernel delivers a datagram to
 * one socket, so the workers share it, each through its own descriptor. */
static int adopt_fd(const struct config *cfg, unsigned k, struct underlay_socks *w)
{
	int fd = cfg->underlay_fd, type = 0, pmtu, family, one_if;
	struct sockaddr_storage ss;
	socklen_t l = sizeof(type), sl = sizeof(ss);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0 || type != SOCK_DGRAM ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0 ||
	    (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)) {
		log_err("%s:%u: key 'underlay_fd': descriptor %d is not an inherited UDP socket",
			cfg->path, cfg->underlay_fd_line, fd);
		return -EBADF;
	}
	family = ss.ss_family;
	one_if = family == AF_INET6 ? 1 : 0;
	if (k > 0) {
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return -errno;
	} else if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ||
		   fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		return -errno;
	}
	w->fd[one_if] = fd;
	if (k > 0)
		return 0;
	pmtu = family == AF_INET6 ? IPV6_PMTUDISC_DO : IP_PMTUDISC_DO;
	if (setsockopt(fd, family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP,
		       family == AF_INET6 ? IPV6_MTU_DISCOVER : IP_MTU_DISCOVER, &pmtu,
		       sizeof(pmtu)) < 0)
		return -errno;
	set_buffers(fd, cfg->sock_buf);
	if (cfg->udp_gro)
		w->gro[one_if] = enable_gro(fd, family, false);
	return 0;
}

int underlay_open(const struct config *cfg, unsigned nworkers, unsigned k,
		  const struct underlay_socks *first, struct underlay_socks *s)
{
	int r;

	if (cfg->underlay_fd < 0)
		return open_worker_sockets(cfg, nworkers, k, first, s);
	r = adopt_fd(cfg, k, s);
	if (r == 0 && k > 0) {
		s->gro[0] = first->gro[0];
		s->gro[1] = first->gro[1];
	}
	return r;
}

void underlay_socks_init(struct underlay_socks *s)
{
	*s = (struct underlay_socks){ .fd = { -1, -1 }, .txfd = { -1, -1 } };
}

void underlay_close(struct underlay_socks *s)
{
	for (int i = 0; i < 2; i++) {
		if (s->fd[i] >= 0)
			close(s->fd[i]);
		if (s->txfd[i] >= 0)
			close(s->txfd[i]);
	}
	underlay_socks_init(s);
}

socklen_t underlay_sockaddr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}
