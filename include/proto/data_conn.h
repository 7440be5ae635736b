/* SPDX-License-Identifier: MIT */
/*
 * Data connections of a test. Every stream comes to the server's one port
 * (the port of the control connection, TCP or UDP): the server's accept
 * thread reads each greeting (a proto_data_hello with the test's id and
 * cookie), checks it in the server-wide registry (data_registry.h: only the
 * control connection's peer host, the right cookie) and hands the
 * connection to the test's data_server; it never sends toward any other
 * address. The client connects one TCP connection or one UDP socket per
 * stream.
 *
 * UDP: the client's socket sends the hello to the server's port until the
 * server answers with a datagram header (stream, test id, the server's
 * CLOCK_MONOTONIC in send_ns) from a socket of its own, bound to the address
 * and port the greeting was sent to and connected to the address and port
 * it came from (as a NAT in front of the client rewrote them), so both
 * sockets end up connect()ed to each other and reverse traffic passes a NAT
 * or a stateful firewall on the client's side. From the send time the
 * client learns whether both ends share a clock (then one-way delays are
 * exact).
 *
 * Functions return 0 or a negative errno.
 */
#ifndef OVLPERF_DATA_CONN_H
#define OVLPERF_DATA_CONN_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "data_registry.h"
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
	struct data_registry *reg;    /* the server's; the test's entry in it: */
	struct data_reg_entry *entry; /* NULL once closed */
	int *fds;		      /* per stream: TCP connection or UDP socket */
	bool *ready;		      /* UDP socket connected / TCP stream accepted */
	bool *data_seen;	      /* UDP: a test datagram is waiting (not consumed) */
	uint16_t *ports;	      /* ports[0]: the server's port, for every stream */
	unsigned nports;
	unsigned nready;
	unsigned refused; /* connections/datagrams not accepted */
	bool ack_hello;	  /* TCP: echo each registered greeting (PROTO_CAP_DATA_ACK) */
};

/* Registers the test in reg (its cookie is drawn here) so that the accept
 * thread hands its streams over. After take(), a UDP fd is bound to the
 * server's port and connected to the client's observed address and port;
 * a TCP fd is past its greeting. */
int data_server_open(struct data_server *ds, bool udp, unsigned streams, uint32_t test_id,
		     const struct sockaddr_storage *local, const struct sockaddr_storage *peer,
		     struct data_registry *reg, const struct data_opts *opts);
/* pollfds to watch for connection/hello progress; returns how many were set. */
unsigned data_server_pollfds(const struct data_server *ds, struct pollfd *pfd, unsigned max);
/* Handles readiness on the fds given by data_server_pollfds
 * (hello_timeout_ms: unused, greetings are read by the accept thread). */
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
