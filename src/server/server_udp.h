/* SPDX-License-Identifier: MIT */
/* The server's UDP socket on its port (server_udp.c). */
#ifndef OVLPERF_SERVER_UDP_H
#define OVLPERF_SERVER_UDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "server_int.h"

/* The UDP socket on the port: opened like the listener (v6only: IPv6
 * only); its greetings and probes drained into the registry. */
int server_udp_open(const struct sockaddr_storage *ss, bool v6only);
void server_udp_drain(struct server_shared *sh, int fd, uint8_t *buf, size_t cap);

#endif
