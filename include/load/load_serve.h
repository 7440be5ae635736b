/* SPDX-License-Identifier: MIT */
/*
 * The server's half of a TCP or UDP test, the load engine's: the server's
 * session (src/server/) hands a TEST_REQUEST of kind TCP or UDP to
 * load_serve(), which checks it against the server's limits, answers
 * TEST_ACCEPT (or TEST_REJECT), takes the test's data connections from the
 * server's port (data_registry.h) from the client's address only, measures
 * in either direction and answers RESULTS. The same shape as mtu_serve.h and
 * overlay_serve() (overlay.h): the server knows the session, the engine the
 * test.
 */
#ifndef OVLPERF_LOAD_SERVE_H
#define OVLPERF_LOAD_SERVE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "proto.h"

struct ctrl;
struct data_registry;
struct hostfacts_idle;

/* What the server allows a test (`ovlperf server` options). */
struct load_serve_limits {
	uint64_t max_duration_ns; /* per test, omit included */
	uint64_t max_rate_bps;	  /* 0: no limit */
	unsigned max_streams;	  /* 1..LOAD_MAX_STREAMS */
	uint32_t msg_timeout_ms;  /* a started message must complete within this */
	bool realtime;		  /* opt-in: UDP test threads SCHED_FIFO (load_spec.h) */
};

/* The control session a request came on, as the server knows it. */
struct load_serve_session {
	struct ctrl *c;				     /* past HELLO and the PSK proof */
	const char *name;			     /* the peer, for logs: "[2001:2::1]:40000" */
	const struct sockaddr_storage *peer, *local; /* the control connection's */
	uint32_t client_caps;			     /* the client's HELLO: PROTO_CAP_* */
	struct data_registry *reg;		     /* the server's port */
	const struct load_serve_limits *limits;
	atomic_uint *next_test_id; /* the server's test ids, one per accepted test */
	/* Called with the reason of each ERROR or TEST_REJECT sent (the server
	 * counts them); NULL: not counted. */
	void (*refused)(void *arg, uint16_t reason);
	void *arg;
	/* The server's host facts: the machine's busy CPU between tests
	 * (NULL: no baseline), and whether to send HOST_FACTS (the client
	 * asked, and the server answers so) */
	struct hostfacts_idle *idle;
	bool host_facts;
};

/* Runs one TCP or UDP test request. 1 when the test ran to its end, 0 when
 * it did not but the session may go on (rejected, or the client abandoned
 * it), negative when the session must end (the client was told why).
 * *foreign: the data connections and datagrams refused for the test (from
 * another address, a bad greeting). */
int load_serve(const struct load_serve_session *s, const struct proto_test_request *req,
	       unsigned *foreign);

#endif
