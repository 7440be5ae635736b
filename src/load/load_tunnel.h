/* SPDX-License-Identifier: MIT */
/*
 * The built-in overlay's own drops at one end: the daemons of the calling
 * thread's network namespace answer "show" on their control socket
 * (control.h) with "drop.<reason>=N" lines (no route, decrypt, replay, a
 * full queue ...). Their sum, before and after a test, says how many
 * packets the tunnel itself dropped there.
 */
#ifndef OVLPERF_LOAD_TUNNEL_H
#define OVLPERF_LOAD_TUNNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sums the drop.* counters of every daemon in this namespace into *drops;
 * *ndev: how many answered (0: no built-in overlay here). 0 or -errno. */
int load_tunnel_drops(uint64_t *drops, unsigned *ndev);

/* The sum of the "drop.<reason>=N" lines of a "show" reply. */
uint64_t load_tunnel_sum_drops(const char *reply, size_t len);

#endif
