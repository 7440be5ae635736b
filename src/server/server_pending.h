/* SPDX-License-Identifier: MIT */
/*
 * Connections the server accepted on its port but that have not yet said
 * what they are (control session, data stream, MTU check: data_registry.h).
 * The accept loop never waits for a peer: it keeps them here, a bounded
 * number for a bounded time, and looks again when bytes arrive. Plain
 * bookkeeping over fds and times, so the limits are testable without a
 * server.
 */
#ifndef OVLPERF_SERVER_PENDING_H
#define OVLPERF_SERVER_PENDING_H

#include <stdint.h>
#include <sys/socket.h>

/* Connections waiting for their first bytes at once: far above what
 * honest clients have in flight (one data connection per client at a time,
 * a control connection each), small enough to poll cheaply. */
#define PENDING_MAX 256

struct pending_conn {
	int fd;
	struct sockaddr_storage peer;
	uint64_t since_ns; /* accepted */
	uint64_t first_ns; /* first bytes seen, 0: none yet */
};

struct pending_set {
	struct pending_conn *v;
	unsigned n, max;
};

int pending_init(struct pending_set *ps, unsigned max);
/* Closes what is still pending. */
void pending_free(struct pending_set *ps);
/* -ENOSPC when max are pending (the caller refuses fd). */
int pending_add(struct pending_set *ps, int fd, const struct sockaddr_storage *peer,
		uint64_t now_ns);
/* Forgets entry i without closing it (the last entry takes its place). */
void pending_drop(struct pending_set *ps, unsigned i);

enum pending_state {
	PENDING_LIVE,	 /* still within its time */
	PENDING_SILENT,	 /* nothing came within idle_ns */
	PENDING_STALLED, /* its first bytes came, the rest not within msg_ns */
};
enum pending_state pending_check(const struct pending_conn *p, uint64_t now_ns, uint64_t idle_ns,
				 uint64_t msg_ns);

#endif
