/* SPDX-License-Identifier: MIT */
/*
 * The device's sockets on the underlay: per worker one UDP socket per family
 * in use, bound to the configured 'listen' address (the other workers' on
 * worker 0's port, one SO_REUSEPORT group per family), path MTU discovery
 * on (IP_PMTUDISC_DO), the configured buffer sizes, UDP GRO when asked for;
 * or one inherited socket ('underlay_fd') that every worker shares; with
 * several workers and worker_ports = on, workers 1.. send from sockets of
 * their own ports, and the listening group picks a worker by the sender's
 * address and port (underlay_spread.h). Knows
 * the configuration, not the device: the device keeps one struct
 * underlay_socks per worker. Sending is device_send_one() in send.c.
 */
#ifndef OVLPERF_TUNNEL_UNDERLAY_H
#define OVLPERF_TUNNEL_UNDERLAY_H

#include <stdbool.h>
#include <netinet/in.h>
#include <sys/socket.h>

struct config;

/* One worker's sockets: [0] IPv4, [1] IPv6, -1 when absent. fd is the
 * listening socket (a member of the reuseport group); txfd, when present,
 * the socket this worker sends its data from, bound to a port of its own
 * (worker_ports = on: underlay_spread.h), which it also reads. */
struct underlay_socks {
	int fd[2];
	int txfd[2];
	bool gro[2]; /* fd[i] (and txfd[i]) have UDP_GRO (udp_gro = on, kernel agreed) */
};

/* Both absent. */
void underlay_socks_init(struct underlay_socks *s);
/* Worker k's sockets (of nworkers) into s; first is worker 0's (the port the
 * others bind; unused for k = 0). 0 or -errno (logged). */
int underlay_open(const struct config *cfg, unsigned nworkers, unsigned k,
		  const struct underlay_socks *first, struct underlay_socks *s);
/* Closes what s holds; both absent after. */
void underlay_close(struct underlay_socks *s);
/* -EAFNOSUPPORT (logged, naming the file and line) when a peer's endpoint has
 * a family s has no socket for. */
int underlay_check_endpoints(const struct config *cfg, const struct underlay_socks *s);

static inline int underlay_sock_for(const struct underlay_socks *s, int family)
{
	return s->fd[family == AF_INET6 ? 1 : 0];
}

/* The socket this worker's data leaves from: its own port's, else the
 * listening one. */
static inline int underlay_tx_sock_for(const struct underlay_socks *s, int family)
{
	int i = family == AF_INET6 ? 1 : 0;

	return s->txfd[i] >= 0 ? s->txfd[i] : s->fd[i];
}

/* The local port of fd, 0 if unknown. */
uint16_t underlay_port(int fd);
/* How many of s's sockets have a datagram waiting unread (a peek, which
 * takes nothing): 0 when every receive queue is empty. A test reads the
 * daemon's counters once this is 0. (SO_MEMINFO's rmem_alloc would not
 * do: it keeps what UDP frees in batches after the reads, /proc/net/udp's
 * rx_queue less that deficit.) */
unsigned underlay_rx_waiting(const struct underlay_socks *s);

socklen_t underlay_sockaddr_len(const struct sockaddr_storage *ss);

#endif
