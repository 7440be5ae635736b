/* SPDX-License-Identifier: MIT */
/*
 * One end's own view of a test, in the wire form both ends exchange
 * (struct proto_results): the server sends it in RESULTS, the client builds
 * its own with the same code, and load_merge() combines the sender's and the
 * receiver's views into a struct load_result.
 *
 * Host counters are read in the calling thread's network namespace before
 * and after the test (netcounters.h).
 */
#ifndef OVLPERF_LOAD_SIDE_H
#define OVLPERF_LOAD_SIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "load_result.h"
#include "load_tunnel.h"
#include "netcounters.h"
#include "proto.h"
#include "qdiscstats.h"
#include "tcp_load.h"
#include "udp_load.h"
#include "udpsock.h"

struct load_side {
	int family;		   /* of the data path: selects Udp or Udp6 */
	struct netcounters before; /* counters at the start */
	bool have_before;
	struct qdiscstats qdisc_before; /* root qdiscs at the start */
	bool have_qdisc_before;
	uint64_t sndbuf_calls; /* SndbufErrors over the test, unscaled */
	bool have_tunnel;      /* a built-in overlay daemon answered at the start */
	/* the daemons' drops and outer datagrams at the start ... */
	struct load_tunnel_traffic traffic_before;
	/* ... and at the end, once their queues are through (read before the
	 * host's counters, so that those count what the daemons' pipeline
	 * still dropped when the streams ended) */
	struct load_tunnel_traffic traffic_after;
	bool have_tunnel_after;
	struct udp_outer outer; /* this end's outer datagrams over the test (UDP) */
	uint64_t per_mille;	/* datagrams per kernel packet x1000 (GSO/GRO);
				 * 0: one each */
	/* The test's own sockets' drops (receiver): as the kernel counts
	 * them (packets) and in datagrams (estimated under GRO) */
	uint64_t own_drops_raw, own_drops;
	/* every UDP socket's drops at the start: which other socket of this
	 * host overflowed (udpsock.h) */
	struct udpsock_table socks_before;
	bool have_socks_before;
};

/* Snapshot of the host counters at the start of the test. */
void load_side_begin(struct load_side *side, int family);

/* Fill *out (role, streams, total, host deltas, CPU) from the streams of a
 * finished test. out->test_id is left to the caller. */
void load_side_tcp(struct load_side *side, const struct tcp_stream *st, unsigned n, bool sender,
		   struct proto_results *out);
void load_side_udp(struct load_side *side, const struct udp_stream *st, unsigned n, bool sender,
		   struct proto_results *out);

#endif
