/* SPDX-License-Identifier: MIT */
/* Internals shared by server.c, server_session.c, server_demux.c and server_udp.c. */
#ifndef OVLPERF_SERVER_SESSION_H
#define OVLPERF_SERVER_SESSION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "auth.h"
#include "overlay.h"
#include "ctrl.h"
#include "data_registry.h"
#include "load_serve.h"
#include "proto.h"
#include "server.h"
#include "server_stats.h"

struct server_shared {
	struct server_stats stats;
	const struct server_config *cfg;
	struct load_serve_limits limits; /* cfg's, for load_serve() */
	struct auth_key *key;		 /* NULL: no PSK */
	struct data_registry *reg;	 /* tests expecting data on the port */
	struct overlay_server *ovl;	 /* NULL: no --overlay */
	atomic_uint sessions;		 /* running session threads */
	atomic_uint next_test_id;
	atomic_uint tests_done; /* for one_shot */
	atomic_bool stop;	/* one_shot reached: stop accepting */
};

struct session {
	struct ctrl c;
	struct sockaddr_storage peer, local;
	char name[80]; /* "[2001:2::1]:40000" for logs */
	struct server_shared *sh;
	bool authed;
	uint32_t client_caps; /* the client's HELLO: PROTO_CAP_* */
};

/* Tells the client why (an ERROR, or a TEST_REJECT that leaves the session
 * usable) and counts it by reason. The result of ctrl_send(). */
int session_refuse(struct session *s, uint16_t type, uint16_t reason, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ---- the one port (server.c, server_demux.c, server_udp.c) ---- */
struct pending_set;
/* Starts a session thread for a control connection (server_session.c). */
void server_start_session(struct server_shared *sh, int fd, const struct sockaddr_storage *peer);
/* Looks at pending connection i, whose poll said revents: waits for more,
 * or starts a session, hands a data connection to its test, or refuses it
 * (closed and counted); then drops it from ps. */
void server_demux_examine(struct server_shared *sh, struct pending_set *ps, unsigned i,
			  short revents, uint64_t now_ns);
/* Ends pending connections past their deadline (the same the session would
 * give: no HELLO within the idle timeout, a stalled message). */
void server_demux_expire(struct server_shared *sh, struct pending_set *ps, uint64_t now_ns);
/* The UDP socket on the port: opened like the listener (v6only: IPv6
 * only); its greetings and probes drained into the registry. */
int server_udp_open(const struct sockaddr_storage *ss, bool v6only);
void server_udp_drain(struct server_shared *sh, int fd, uint8_t *buf, size_t cap);

#endif
