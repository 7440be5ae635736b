/* SPDX-License-Identifier: MIT */
/*
 * The built-in overlay's own drops at one end: the daemons of the calling
 * thread's network namespace answer "show" on their control socket
 * (control.h) with "drop.<reason>=N" lines (no route, decrypt, replay, a
 * full queue ...). Their sum, before and after a test, says how many
 * packets the tunnel itself dropped there; their traffic counters, what the
 * tunnel put on the underlay (the overlay's outer packets, measured).
 */
#ifndef OVLPERF_LOAD_TUNNEL_H
#define OVLPERF_LOAD_TUNNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The sum of the "drop.<reason>=N" lines of a "show" reply. */
uint64_t load_tunnel_sum_drops(const char *reply, size_t len);

/* The outer (encrypted) datagrams the daemons of this namespace sent and
 * received on the underlay, as they count them ("counter.udp_tx_datagrams",
 * "counter.udp_tx_bytes": UDP payload bytes, and the rx ones), and the
 * underlay's IP version (6 when a peer's endpoint is an IPv6 address, 4
 * when one is IPv4, 0 when no peer has one). */
struct load_tunnel_traffic {
	uint64_t tx_datagrams, tx_bytes, rx_datagrams, rx_bytes;
	unsigned ip_version;
	/* how many of the daemons' underlay sockets hold a datagram unread
	 * ("queue.rx_waiting_sockets"): one whose drop is not counted yet;
	 * 0 from a daemon that does not say */
	unsigned rx_waiting;
	/* sum of every drop.* (load_tunnel_sum_drops) */
	uint64_t drops;
};

/* Adds one "show" reply's counters (its drops among them) into *t. */
void load_tunnel_add_traffic(const char *reply, size_t len, struct load_tunnel_traffic *t);
/* Whether a daemon of this namespace runs the interface ifname: a test
 * whose datagrams leave by it crosses the built-in overlay. */
bool load_tunnel_serves(const char *ifname);
/* Reads every daemon of this namespace: their drops and traffic summed
 * into *t. *ndev: how many answered (0: no built-in overlay here). 0 or
 * -errno. */
int load_tunnel_read(struct load_tunnel_traffic *t, unsigned *ndev);

#endif
