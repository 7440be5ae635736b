/* SPDX-License-Identifier: MIT */
/* The sending side of the data path (send.c): the TX thread, and sending on
 * the underlay from any thread. */
#ifndef OVLPERF_TUNNEL_SEND_H
#define OVLPERF_TUNNEL_SEND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "device_state.h"
#include "tunnel_engine.h"

/* Sending on the underlay, from any thread (send.c). Sends one datagram,
 * with the outer packet allowed to fragment when allow_frag; on EMSGSIZE
 * re-sends it that way and marks the peer's path MTU stale (a drop of the
 * path MTU must not lose the packet). 0 or -errno. */
int device_send_one(struct device *dev, struct device_peer *peer, const void *buf, size_t len,
		    const struct sockaddr_storage *dst, bool allow_frag);
/* Sends a control message (initiation, keepalive) to the peer's endpoint;
 * nothing when res has none. */
void device_send_ctrl(struct device *dev, struct device_peer *peer,
		      const struct engine_result *res);

/* arg: a struct device_worker. */
void *device_tx_thread(void *arg);

#endif
