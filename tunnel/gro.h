/* SPDX-License-Identifier: MIT */
/*
 * Receive coalescing for a TUN with IFF_VNET_HDR: consecutive decrypted TCP
 * segments of one flow become one super-packet written with a virtio_net_hdr
 * (GSO TCPV4/TCPV6, partial checksum), so the kernel runs its TCP receive
 * path once per ~45 segments instead of once per segment. The rules follow
 * Linux GRO: same addresses, ports, TTL/hop limit, TOS/traffic class, ACK
 * number, window and TCP options; the next expected sequence number; every
 * segment but the last exactly gso_size long; only ACK (and PSH, which ends
 * the super-packet) among the flags; IPv4 without options or fragments.
 * Anything else is written as it came. Pure, no allocation after init.
 */
#ifndef OVLPERF_TUNNEL_GRO_H
#define OVLPERF_TUNNEL_GRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gso.h"

struct gro {
	uint8_t *buf;		/* GSO_VNET_HDR_LEN + GSO_MAX_PACKET bytes */
	size_t len;		/* bytes of packet after the vnet header; 0: empty */
	size_t ip_hl, hdr;	/* IP header length; IP + TCP header length */
	bool v6;
	uint16_t gso_size;
	unsigned segs;
	uint32_t next_seq;
	bool closed;		/* the last segment was short or had PSH */
};

/* buf: GSO_VNET_HDR_LEN + GSO_MAX_PACKET bytes owned by the caller. */
void gro_init(struct gro *g, uint8_t *buf);

/* Whether pkt extends the pending super-packet (then it was appended). */
bool gro_append(struct gro *g, const uint8_t *pkt, size_t len);
/* Whether pkt may start a super-packet (TCP data segment we can coalesce). */
bool gro_can_start(const uint8_t *pkt, size_t len);
/* Starts a new super-packet with pkt (gro_can_start() was true; gro empty). */
void gro_start(struct gro *g, const uint8_t *pkt, size_t len);
/* Finishes the pending super-packet: returns the bytes to write (vnet header
 * included) and empties g; *out points to them. 0 when empty. */
size_t gro_flush(struct gro *g, const uint8_t **out);

#endif
