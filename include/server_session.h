/* SPDX-License-Identifier: MIT */
/* Internals shared by server.c, server_session.c and server_test.c. */
#ifndef OVLPERF_SERVER_SESSION_H
#define OVLPERF_SERVER_SESSION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "auth.h"
#include "ctrl.h"
#include "proto.h"
#include "server.h"

struct server_shared {
	const struct server_config *cfg;
	struct auth_key *key;		/* NULL: no PSK */
	atomic_uint sessions;		/* running session threads */
	atomic_uint next_test_id;
	atomic_uint tests_done;		/* for one_shot */
	atomic_bool stop;		/* one_shot reached: stop accepting */
};

struct session {
	struct ctrl c;
	struct sockaddr_storage peer, local;
	char name[80];			/* "[2001:2::1]:40000" for logs */
	struct server_shared *sh;
	bool authed;
	bool data_ack;			/* the client has PROTO_CAP_DATA_ACK */
};

/* Thread entry: serves one control connection, frees the session. */
void *server_session_main(void *arg);
/* Runs one accepted-or-rejected TCP/UDP test request. 0 when the session
 * may go on, negative when it must end (the peer was told why). */
int server_test_run(struct session *s, const struct proto_test_request *req);

#endif
