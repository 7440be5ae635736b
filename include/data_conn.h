/* SPDX-License-Identifier: MIT */
/*
 * Data connections of a test. The server opens them on the local address of
 * the control connection and accepts only what comes from the control
 * connection's peer address and presents the test's id and cookie (a
 * proto_data_hello); it never sends toward any other address. The client
 * connects one TCP connection or one UDP socket per stream.
 *
 * UDP: the client's socket sends the hello until the server's stream socket
 * answers with a datagram header (stream, test id, the server's
 * CLOCK_MONOTONIC in send_ns), so both sockets end up connect()ed to each
 * other. From the send time the client learns whether both ends share a
 * clock (then one-way delays are exact).
 *
 * Functions return 0 or a negative errno.
 */
#ifndef OVLPERF_DATA_CONN_H
#define OVLPERF_DATA_CONN_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "load.h"
#include "owd_clock.h"
#include "proto.h"

struct data_opts {
	uint32_t mss;	   /* TCP_MAXSEG (0: kernel's) */
	uint32_t sock_buf; /* TCP: 0 = autotuning; UDP: 0 = engine default */
	uint8_t dscp;
};

/* ---- server side ---- */
struct data_server {
	bool udp;
	unsigned streams;
	uint32_t test_id;
	uint8_t cookie[PROTO_COOKIE_LEN];
	struct sockaddr_storage local, peer;
	struct data_opts opts;
	int lsn;	 /* TCP listener, -1 for UDP */
	int *fds;	 /* per stream: TCP connection or UDP socket */
	bool *ready;	 /* UDP socket connected / TCP stream accepted */
	bool *data_seen; /* UDP: a test datagram is waiting (not consumed) */
	uint16_t *ports; /* UDP: one per stream; TCP: ports[0] */
	unsigned nports;
	unsigned nready;
	unsigned refused; /* connections/datagrams not accepted */
	bool ack_hello;	  /* TCP: echo each registered greeting (PROTO_CAP_DATA_ACK) */
};

/* Opens the test's data sockets; want_port 0: ephemeral. */
int data_server_open(struct data_server *ds, bool udp, unsigned streams, uint32_t test_id,
		     const struct sockaddr_storage *local, const struct sockaddr_storage *peer,
		     uint16_t want_port, const struct data_opts *opts);
/* pollfds to watch for connection/hello progress; returns how many were set. */
unsigned data_server_pollfds(const struct data_server *ds, struct pollfd *pfd, unsigned max);
/* Handles readiness on the fds given by data_server_pollfds. */
void data_server_handle(struct data_server *ds, const struct pollfd *pfd, unsigned n,
			int hello_timeout_ms);
bool data_server_complete(const struct data_server *ds);
/* Hands over fd of stream i (the caller closes it). */
int data_server_take(struct data_server *ds, unsigned i);
void data_server_close(struct data_server *ds);

/* ---- client side ---- */
/* Non-blocking connect with a deadline (fd is left non-blocking): 0,
 * -ETIMEDOUT, -EINTR when a signal ended the wait, or the connect error. */
int data_connect(int fd, const struct sockaddr_storage *to, int timeout_ms);
/* Connects stream `stream` of the test to server:port. local_bind may be NULL.
 * *sample (UDP, may be NULL) gets the greeting's timed echo (owd_clock.h).
 * TCP with wait_ack: returns only once the server echoed the greeting, that
 * is registered the connection (PROTO_CAP_DATA_ACK). */
int data_client_tcp(const struct sockaddr_storage *server, uint16_t port,
		    const struct sockaddr_storage *local_bind, const struct proto_data_hello *hello,
		    const struct data_opts *opts, int timeout_ms, bool wait_ack);
int data_client_udp(const struct sockaddr_storage *server, uint16_t port,
		    const struct sockaddr_storage *local_bind, const struct proto_data_hello *hello,
		    const struct data_opts *opts, int timeout_ms, struct owd_clock_sample *sample);

#endif
