// SPDX-License-Identifier: MIT
/*
 * `ovlperf server`: the port (a TCP listener and a UDP socket of the same
 * number, proto.h says what comes there), the connections that have not
 * yet said what they are, and one thread per control connection.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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
#include "load_spec.h"
#include "log.h"
#include "overlay.h"
#include "server.h"
#include "server_demux.h"
#include "server_int.h"
#include "server_pending.h"
#include "server_refuse.h"
#include "server_stats.h"
#include "server_udp.h"
#include "sockopt.h"

#define ACCEPT_POLL_MS 200
#define ACCEPT_BATCH   64
/* how often pending connections' deadlines are looked at */
#define PENDING_POLL_MS 50
/* a datagram on the port: MTU probes go up to the largest IP packet */
#define PORT_DGRAM_MAX 65536
#define DRAIN_WAIT_NS  (5 * NSEC_PER_SEC)

void server_config_defaults(struct server_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->port = LOAD_DEFAULT_PORT;
	cfg->family = AF_UNSPEC;
	cfg->max_duration_ns = SERVER_DEFAULT_MAX_DURATION_NS;
	cfg->max_streams = LOAD_MAX_STREAMS;
	cfg->max_sessions = SERVER_DEFAULT_MAX_SESSIONS;
	cfg->msg_timeout_ms = CTRL_DEFAULT_MSG_TIMEOUT_MS;
	cfg->idle_timeout_ms = SERVER_DEFAULT_IDLE_MS;
	cfg->overlay_max = OVERLAY_DEFAULT_MAX;
}

/* ss: where it listens (the UDP socket binds the same). */
static int open_listener(const struct server_config *cfg, struct sockaddr_storage *ss)
{
	socklen_t len;
	int fd, rc, one = 1;

	rc = addr_resolve(cfg->bind_addr, cfg->port ? cfg->port : LOAD_DEFAULT_PORT, cfg->family,
			  true, ss, &len);
	if (rc < 0)
		return rc;
	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sockopt_reuseaddr(fd);
	if (ss->ss_family == AF_INET6) {
		int v6only = cfg->family == AF_INET6;

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only));
	}
	/* the MTU check reads the SYN of its connection as it arrived (its
	 * MSS option): accepted connections inherit this */
	setsockopt(fd, IPPROTO_TCP, TCP_SAVE_SYN, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)ss, len) < 0 || listen(fd, 128) < 0) {
		rc = -errno;
		log_err("cannot listen on port %u: %s", addr_port(ss), strerror(-rc));
		close(fd);
		return rc;
	}
	sockopt_nonblock(fd, true);
	log_info("listening on port %u, TCP and UDP (%s)", addr_port(ss),
		 ss->ss_family == AF_INET6 && cfg->family != AF_INET6 ? "IPv4 and IPv6"
		 : ss->ss_family == AF_INET6			      ? "IPv6"
								      : "IPv4");
	return fd;
}

/* Takes the connections waiting in the backlog (a batch, so that a flood
 * of them does not starve the rest of the loop): each stays pending until
 * its first bytes say what it is (server_demux.c). */
static void accept_all(struct server_shared *sh, int lsn, struct pending_set *ps)
{
	for (int k = 0; k < ACCEPT_BATCH; k++) {
		struct sockaddr_storage peer;
		socklen_t l = sizeof(peer);
		int fd = accept4(lsn, (struct sockaddr *)&peer, &l, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0)
			return;
		addr_unmap(&peer);
		if (pending_add(ps, fd, &peer, clock_now_ns()) < 0)
			server_refuse_busy(sh, fd);
	}
}

static int server_overlay_open(struct server_shared *sh)
{
	const struct server_config *cfg = sh->cfg;

	if (!sh->key) {
		log_err("--overlay needs --psk-file");
		return -EINVAL;
	}
	return overlay_server_open(cfg->overlay_state, cfg->port ? cfg->port : LOAD_DEFAULT_PORT,
				   cfg->overlay_max, &sh->ovl);
}

static int load_key(const struct server_config *cfg, struct auth_key **key)
{
	char err[256];
	int rc;

	*key = NULL;
	if (!cfg->psk_file[0])
		return 0;
	rc = auth_key_load(cfg->psk_file, key, err, sizeof(err));
	if (rc < 0)
		log_err("%s", err);
	return rc;
}

/* The accept loop: the listener, the UDP socket, the pending connections.
 * Nothing here waits on a peer. */
static void serve_port(struct server_shared *sh, int lsn, int udp, struct pending_set *ps,
		       uint8_t *buf, size_t cap)
{
	struct pollfd *pfd = calloc(2 + PENDING_MAX, sizeof(*pfd));

	if (!pfd)
		return;
	while (!interrupt_requested() && !atomic_load(&sh->stop)) {
		unsigned n = ps->n;
		uint64_t now;

		pfd[0] = (struct pollfd){ .fd = lsn, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = udp, .events = POLLIN };
		for (unsigned i = 0; i < n; i++)
			pfd[2 + i] =
				(struct pollfd){ .fd = ps->v[i].fd, .events = POLLIN | POLLRDHUP };
		if (poll(pfd, 2 + n, n ? PENDING_POLL_MS : ACCEPT_POLL_MS) < 0 && errno != EINTR)
			break;
		now = clock_now_ns();
		/* from the end: examining i moves the last entry into i */
		for (unsigned i = n; i-- > 0;)
			if (pfd[2 + i].revents && i < ps->n && ps->v[i].fd == pfd[2 + i].fd)
				server_demux_examine(sh, ps, i, pfd[2 + i].revents, now);
		server_demux_expire(sh, ps, now);
		if (pfd[1].revents & POLLIN)
			server_udp_drain(sh, udp, buf, cap);
		if (pfd[0].revents & POLLIN)
			accept_all(sh, lsn, ps);
	}
	free(pfd);
}

/* The port's sockets and the registry; 0 or negative. */
static int open_port(struct server_shared *sh, int *lsn, int *udp)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	int rc;

	*udp = -1;
	*lsn = open_listener(sh->cfg, &ss);
	if (*lsn < 0)
		return *lsn;
	/* the port the kernel gave (port 0 asks for any) */
	if (getsockname(*lsn, (struct sockaddr *)&ss, &l) < 0) {
		rc = -errno;
	} else if ((rc = server_udp_open(&ss, sh->cfg->family == AF_INET6)) >= 0) {
		*udp = rc;
		rc = data_registry_new(addr_port(&ss), &sh->reg);
	}
	if (rc < 0) {
		if (*udp >= 0)
			close(*udp);
		close(*lsn);
		return rc;
	}
	return 0;
}

int server_run(const struct server_config *cfg)
{
	struct server_shared *sh = calloc(1, sizeof(*sh));
	uint8_t *buf = malloc(PORT_DGRAM_MAX);
	struct pending_set ps = { 0 };
	int lsn = -1, udp = -1, rc;
	uint64_t t0;

	if (!sh || !buf || pending_init(&ps, PENDING_MAX) < 0) {
		free(sh);
		free(buf);
		return -ENOMEM;
	}
	sh->cfg = cfg;
	sh->limits = (struct load_serve_limits){ .max_duration_ns = cfg->max_duration_ns,
						 .max_rate_bps = cfg->max_rate_bps,
						 .max_streams = cfg->max_streams,
						 .msg_timeout_ms = cfg->msg_timeout_ms,
						 .realtime = cfg->realtime };
	atomic_init(&sh->sessions, 0);
	atomic_init(&sh->next_test_id, 1);
	atomic_init(&sh->tests_done, 0);
	atomic_init(&sh->stop, false);
	hostfacts_idle_init(&sh->idle, NULL);
	rc = load_key(cfg, &sh->key);
	if (rc == 0)
		rc = open_port(sh, &lsn, &udp);
	if (rc < 0) {
		auth_key_free(sh->key);
		pending_free(&ps);
		free(buf);
		hostfacts_idle_destroy(&sh->idle);
		free(sh);
		return rc;
	}
	/* after the port is ours: a second server on this port fails there,
	 * before it could mistake the first one's overlays for leftovers */
	if (cfg->overlay && (rc = server_overlay_open(sh)) < 0) {
		close(lsn);
		close(udp);
		data_registry_free(sh->reg);
		auth_key_free(sh->key);
		pending_free(&ps);
		free(buf);
		hostfacts_idle_destroy(&sh->idle);
		free(sh);
		return rc;
	}
	serve_port(sh, lsn, udp, &ps, buf, PORT_DGRAM_MAX);
	close(lsn);
	close(udp);
	pending_free(&ps);
	free(buf);
	/* sessions see interrupt_requested() and unwind; give them a moment */
	t0 = clock_now_ns();
	while (atomic_load(&sh->sessions) > 0 && clock_now_ns() - t0 < DRAIN_WAIT_NS)
		clock_sleep_until_ns(clock_now_ns() + 20 * NSEC_PER_MSEC);
	server_stats_log(&sh->stats);
	if (atomic_load(&sh->sessions) > 0) {
		log_warn("%u sessions still running at exit", atomic_load(&sh->sessions));
		return 0; /* detached threads still use sh: leave it */
	}
	overlay_server_close(sh->ovl);
	data_registry_free(sh->reg);
	auth_key_free(sh->key);
	hostfacts_idle_destroy(&sh->idle);
	free(sh);
	return 0;
}
