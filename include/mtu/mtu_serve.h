/* SPDX-License-Identifier: MIT */
/*
 * The server's half of `ovlperf mtu`: the server (src/server/server.c) hands a
 * control session whose test kind is MTU to mtu_serve(), which answers probe
 * queries until the client ends the session. mtu_serve() owns the session
 * for its duration and returns when the client says MTU_PROBE_DONE, closes
 * the connection, or interrupt_requested() becomes true.
 *
 * The server's part before the call (src/server/server_session.c): after HELLO and
 * authentication, a TEST_REQUEST of kind PROTO_KIND_MTU is not answered with
 * TEST_ACCEPT; the server calls mtu_serve() at once and the session ends when
 * it returns. Everything after the TEST_REQUEST on the connection is
 * PROTO_MTU_PROBE_REQUEST (client) / PROTO_MTU_PROBE_REPLY (server) messages,
 * bodies in mtu_wire.h, until the client's DONE. A server that cannot serve
 * the session answers PROTO_ERROR instead of READY.
 *
 * With a registry (mtu_serve_port) and a client that asks for it
 * (MTU_WIRE_F_ONE_PORT), probes and the MSS check's connection come to the
 * server's own port: READY announces it, and the server's accept thread
 * hands them over by the session's token (data_registry.h). Otherwise
 * mtu_serve() opens a UDP socket on the control connection's local address
 * (and a TCP listener when asked for the MSS check) and announces their ports;
 * the client sends UDP probes with DF set and asks which of each round
 * arrived, so delivery is confirmed over the control connection and never
 * inferred from ICMP. Probes must come from the control peer's address and
 * carry the session's token; others are ignored.
 */
#ifndef OVLPERF_MTU_SERVE_H
#define OVLPERF_MTU_SERVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct data_registry;

/* ctrl_fd: the connected control socket, already past hello/auth and the
 * TEST_REQUEST (blocking or not: mtu_serve polls it); client: the control
 * peer's address (probes must come from it; NULL: taken from getpeername);
 * req/req_len: the TEST_REQUEST body (may be NULL/0). The caller keeps
 * ownership of ctrl_fd and closes it after the return.
 * Returns 0 when the client ended the session normally, or a negative errno
 * (-EPROTO for a malformed request or message, -EINTR when interrupted). */
int mtu_serve(int ctrl_fd, const struct sockaddr_storage *client, const uint8_t *req,
	      size_t req_len);
/* The same on the server's port (reg: the server's registry; NULL works
 * as mtu_serve). */
int mtu_serve_port(int ctrl_fd, const struct sockaddr_storage *client, struct data_registry *reg);

#endif
