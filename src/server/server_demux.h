/* SPDX-License-Identifier: MIT */
/*
 * What a connection to the server's port is, from its first bytes: the
 * accept loop's pending connections examined and expired.
 */
#ifndef OVLPERF_SERVER_DEMUX_H
#define OVLPERF_SERVER_DEMUX_H

#include <stdint.h>

#include "server_int.h"
#include "server_pending.h"

/* Looks at pending connection i, whose poll said revents: waits for more,
 * or starts a session, hands a data connection to its test, or refuses it
 * (closed and counted); then drops it from ps. */
void server_demux_examine(struct server_shared *sh, struct pending_set *ps, unsigned i,
			  short revents, uint64_t now_ns);
/* Ends pending connections past their deadline (the same the session would
 * give: no HELLO within the idle timeout, a stalled message). */
void server_demux_expire(struct server_shared *sh, struct pending_set *ps, uint64_t now_ns);

#endif
