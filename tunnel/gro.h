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
 *
 * With udp (a TUN that takes UDP segmentation offload, Linux 6.2+), UDP
 * datagrams of one flow coalesce the same way into a GSO_UDP_L4
 * super-packet: same addresses, ports, TTL/hop limit, TOS/traffic class and
 * DF; every datagram but the last exactly gso_size long; at most
 * GRO_UDP_MAX_SEGS of them (UDP_MAX_SEGMENTS of older kernels; newer take 128). A
 * receiving socket with UDP_GRO takes the super-packet in one read; any
 * other gets the datagrams one by one, as they were sent (the kernel
 * segments). Datagrams are only ever appended: a flow is never reordered.
 */
#ifndef OVLPERF_TUNNEL_GRO_H
#define OVLPERF_TUNNEL_GRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gso.h"

#define GRO_TCP		 6
#define GRO_UDP		 17
#define GRO_UDP_MAX_SEGS 64

struct gro {
	uint8_t *buf;	   /* GSO_VNET_HDR_LEN + GSO_MAX_PACKET bytes */
	bool udp;	   /* UDP datagrams coalesce too */
	uint8_t proto;	   /* GRO_TCP or GRO_UDP: the pending super-packet's */
	size_t len;	   /* bytes of packet after the vnet header; 0: empty */
	size_t ip_hl, hdr; /* IP header length; IP + TCP header length */
	bool v6;
	uint16_t gso_size;
	unsigned segs;
	uint32_t next_seq; /* TCP */
	bool closed;	   /* the last segment was short (or had PSH) */
};

/* buf: GSO_VNET_HDR_LEN + GSO_MAX_PACKET bytes owned by the caller; udp:
 * UDP datagrams coalesce too. */
void gro_init(struct gro *g, uint8_t *buf, bool udp);

/* Whether pkt extends the pending super-packet (then it was appended). */
bool gro_append(struct gro *g, const uint8_t *pkt, size_t len);
/* Starts a new super-packet with pkt (g empty) when pkt may start one: a
 * TCP data segment, or with udp a UDP datagram, that we can coalesce. False
 * (g unchanged) for anything else. */
bool gro_start(struct gro *g, const uint8_t *pkt, size_t len);
/* Finishes the pending super-packet: returns the bytes to write (vnet header
 * included) and empties g; *out points to them. 0 when empty. */
size_t gro_flush(struct gro *g, const uint8_t **out);

/*
 * UDP_GRO on the underlay socket: the kernel may hand over several datagrams
 * of one flow as one buffer, each gso_size bytes but the last (which may be
 * shorter), with the size in a (SOL_UDP, UDP_GRO) control message.
 */

/* The segment size from the control bytes of a recvmsg: 0 when there is no
 * UDP_GRO message (one datagram), -EINVAL when one is there but truncated or
 * carries 0 (treat the buffer as malformed and drop it). Accepts the kernel's
 * int and a 16-bit value. Walks headers only inside control/len. */
int gro_udp_gso_size(const void *control, size_t len);
/* Number of datagrams in a buffer of len bytes cut every gso_size bytes (the
 * last one shorter when len is not a multiple); gso_size 0: one datagram. */
size_t gro_udp_count(size_t len, size_t gso_size);
/* Datagram i of that buffer: its offset, and its length as return value
 * (0 when i is out of range). */
size_t gro_udp_segment(size_t len, size_t gso_size, size_t i, size_t *off);

#endif
