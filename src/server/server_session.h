/* SPDX-License-Identifier: MIT */
/*
 * One control connection at the server, in a thread of its own: HELLO, the
 * PSK proof, then each request handed to its half of a test (load_serve.h,
 * mtu_serve.h, overlay_serve() in overlay.h).
 */
#ifndef OVLPERF_SERVER_SESSION_H
#define OVLPERF_SERVER_SESSION_H

#include <sys/socket.h>

#include "server_int.h"

/* Starts a session thread for a control connection; fd is its (closed
 * when the thread cannot start). */
void server_start_session(struct server_shared *sh, int fd, const struct sockaddr_storage *peer);

#endif
