/* SPDX-License-Identifier: MIT */
/*
 * "Too big" replies of the built-in overlay, so that path MTU discovery works
 * through it. Pure functions over byte buffers: no sockets, no globals.
 *
 * The data path (tunnel/), for each inner packet read from the TUN device:
 *
 *	if (icmp_needs_too_big(pkt, len, inner_mtu)) {
 *		n = icmp_build_too_big(pkt, len, inner_mtu, NULL, 0,
 *				       reply, sizeof(reply));
 *		if (n > 0)
 *			write(tun_fd, reply, n);	// back to the local stack
 *		// n == 0 (a reply is not allowed) or < 0 (malformed): drop and count
 *		continue;				// never encapsulate it
 *	}
 *	// otherwise encapsulate; a packet without DF that is larger than the
 *	// underlay can carry is sent anyway (the outer packet may fragment)
 *
 * inner_mtu is the largest inner packet that still fits the underlay after
 * encapsulation (underlay path MTU minus the overlay's overhead).
 *
 * The reply's source: pass NULL to use the inner packet's destination (the
 * far side of the tunnel "answers"), which always routes back through the
 * TUN device. Do not pass the TUN device's own local address: Linux drops an
 * IPv4 packet arriving with a local source address as a martian (unless
 * accept_local is set), and the too-big would be lost. An explicit source is
 * for tunnels that own a separate, non-local address on the overlay.
 *
 * IPv6 never has a link MTU below 1280 (RFC 8200 section 5): when inner_mtu is
 * smaller, packets up to 1280 bytes must still be carried (the tunnel fragments
 * the outer packet), so the predicate uses max(inner_mtu, 1280) and so does the
 * MTU in the reply. For IPv4 the MTU is raised to at least 68 (RFC 791).
 *
 * IPv4 reply: 20-byte header (TOS 0xc0, DF, TTL 64) + ICMP 3/4 + quote.
 * IPv6 reply: 40-byte header (hop limit 64) + ICMPv6 2/0 + quote.
 */
#ifndef OVLPERF_ICMP_H
#define OVLPERF_ICMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* RFC 1812 4.3.2.3: an ICMPv4 error quotes as much of the original datagram
 * as fits without the reply exceeding 576 bytes. RFC 4443 2.4(c): an ICMPv6
 * error quotes as much as fits without exceeding the IPv6 minimum MTU. */
#define ICMP_V4_REPLY_MAX 576
#define ICMP_V6_REPLY_MAX 1280
#define ICMP_REPLY_MAX	  ICMP_V6_REPLY_MAX

#define ICMP_IPV4_HDR_MIN 20
#define ICMP_IPV6_HDR_LEN 40
#define ICMP_HDR_LEN	  8
#define ICMP_V4_MIN_MTU	  68
#define ICMP_V6_MIN_MTU	  1280

/* ICMPv4 destination unreachable / fragmentation needed (RFC 792, RFC 1191). */
#define ICMP_V4_TYPE_UNREACH	 3
#define ICMP_V4_CODE_FRAG_NEEDED 4
/* ICMPv6 packet too big (RFC 4443 3.2). */
#define ICMP_V6_TYPE_TOO_BIG 2

/* Whether an inner packet must be answered with a too-big reply instead of
 * being encapsulated: IPv4 with DF set and total length > mtu; IPv6 with
 * length > max(mtu, 1280). false for anything that is not a well-formed IPv4
 * or IPv6 header (the caller's normal path decides what to do with it). */
bool icmp_needs_too_big(const uint8_t *pkt, size_t len, uint32_t mtu);

/* Writes the too-big reply for pkt into out (out_cap >= ICMP_REPLY_MAX is
 * always enough): an IPv4 packet carrying ICMP type 3 code 4 with the next-hop
 * MTU, or an IPv6 packet carrying ICMPv6 type 2 with the MTU, from src (4 or
 * 16 bytes, the family of pkt) to pkt's source, quoting pkt as far as the
 * RFCs allow, with correct checksums. src NULL (src_len ignored): the source
 * is pkt's destination.
 *
 * Returns the reply's length; 0 when no reply may be sent (pkt is itself an
 * ICMP error, a non-first IPv4 fragment, or comes from an address that is not
 * a single host: unspecified, multicast, broadcast, loopback); -EINVAL when
 * pkt is malformed, src has the wrong length or out is NULL; -ENOSPC when out
 * is too small. Without src, a multicast destination gives 0 (it cannot be a
 * source). */
ssize_t icmp_build_too_big(const uint8_t *pkt, size_t len, uint32_t mtu, const uint8_t *src,
			   size_t src_len, uint8_t *out, size_t out_cap);

/* Reads a too-big reply (as icmp_build_too_big writes, or as a router sends):
 * checks lengths and both checksums, and returns the MTU it announces in
 * *mtu. For tests and diagnostics; pkt is untrusted. */
bool icmp_parse_too_big(const uint8_t *pkt, size_t len, uint32_t *mtu);

/* The Internet checksum (RFC 1071) of buf, folded and complemented, continuing
 * from a partial 32-bit sum (0 to start). */
uint16_t icmp_checksum(const uint8_t *buf, size_t len, uint32_t sum);

#endif
