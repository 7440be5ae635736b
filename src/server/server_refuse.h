/* SPDX-License-Identifier: MIT */
/*
 * A connection to the server's port refused before a session would serve
 * it (server_demux.c, and the accept loop when too many are pending).
 */
#ifndef OVLPERF_SERVER_REFUSE_H
#define OVLPERF_SERVER_REFUSE_H

#include <stdint.h>
#include <sys/socket.h>

#include "server_int.h"

/* The reply a session would give (an ERROR with its reason, and the peer
 * named in the log), sent without waiting, counted; then closes fd. */
void server_refuse(struct server_shared *sh, int fd, const struct sockaddr_storage *peer,
		   uint16_t reason, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Too many sessions: one non-blocking ERROR, then closes fd. */
void server_refuse_busy(struct server_shared *sh, int fd);
/* Text for a data_registry_check/claim error. */
const char *server_claim_strerror(int rc);

#endif
