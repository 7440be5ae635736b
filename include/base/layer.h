/* SPDX-License-Identifier: MIT */
/*
 * The layer a size or a rate is stated at. ovlperf's engine counts UDP
 * payload; forwarding studies count the way RFC 2544 does: "64-byte frames"
 * are Ethernet frames with their FCS, and a rate is the line's, each frame
 * also taking its preamble, SFD and inter-frame gap on the wire (RFC 2544
 * 9.1, IEEE 802.3 clause 4.4.2): 100 Mbit/s of 64-byte frames is 148,809
 * frames per second. These conversions are pure, so the edge (options,
 * scenario keys) turns what the user said into payload units and every
 * printer states a result at each layer.
 *
 *   payload  UDP payload (the engine's unit, the default)
 *   ip       IP packet: payload + 8 UDP + 20 IPv4 / 40 IPv6 (no options)
 *   frame    Ethernet frame with FCS: ip + 14 + 4, padded to 64 (802.3 3.2.8)
 *   line     what the frame takes on the line: frame + 7 preamble + 1 SFD
 *            + 12 inter-frame gap
 *
 * A datagram is one IP packet here (no fragments); sizes are bytes, rates
 * bit/s.
 */
#ifndef OVLPERF_LAYER_H
#define OVLPERF_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum layer { LAYER_PAYLOAD = 0, LAYER_IP, LAYER_FRAME, LAYER_LINE, LAYER_COUNT };

#define LAYER_UDP_HDR	   8
#define LAYER_IPV4_HDR	   20
#define LAYER_IPV6_HDR	   40
#define LAYER_ETH_HDR	   14 /* destination, source, EtherType */
#define LAYER_ETH_FCS	   4
#define LAYER_ETH_MIN	   64 /* smallest frame, FCS included (802.3 4.2.3.3) */
#define LAYER_ETH_WIRE	   20 /* preamble 7 + SFD 1 + inter-frame gap 12 */
#define LAYER_ETH_LINE_MIN (LAYER_ETH_MIN + LAYER_ETH_WIRE)

/* "payload", "ip", "frame", "line". */
const char *layer_name(enum layer l);
/* The name back, the whole string; false otherwise. */
bool layer_parse(const char *s, enum layer *l);
/* The allowed names for an error message: "payload, ip, frame or line"
 * (upto LAYER_FRAME: "payload, ip or frame"). */
const char *layer_names(enum layer upto);

/* Bytes one datagram of payload bytes takes at layer l over family
 * (AF_INET or AF_INET6). */
uint64_t layer_bytes(enum layer l, int family, uint32_t payload);

/* The UDP payload of a datagram that is size bytes at layer l. A minimum
 * frame (64 bytes) is padded: the largest payload that makes it is given.
 * 0, or -EINVAL with why when no datagram has that size (a frame below 64,
 * an IP packet below its headers) or its payload lies outside
 * min_payload..max_payload (why then states the sizes at l that fit). */
int layer_payload_len(enum layer l, int family, uint64_t size, uint32_t min_payload,
		      uint32_t max_payload, uint32_t *payload, char *why, size_t whylen);

/* A rate of bps at layer l, datagrams of payload bytes: the datagrams per
 * second that fit in it (rounded down: never above the rate stated) and
 * the payload rate that sends exactly those (*pps * 8 * payload). 0, or
 * -ERANGE with why when not one datagram a second fits (bps > 0). */
int layer_rate(enum layer l, int family, uint32_t payload, uint64_t bps, uint64_t *pps,
	       uint64_t *payload_bps, char *why, size_t whylen);

/* Bytes at layer l of n UDP datagrams carrying payload_bytes in all, each
 * its own IP packet over family: for counts of datagrams of many sizes (an
 * overlay's outer packets). No frame is padded: every datagram is taken to
 * fill the 64-byte minimum (an outer packet of ovlperf's overlay carries at
 * least 32 bytes of UDP payload: 78 bytes with Ethernet over IPv4). */
uint64_t layer_bytes_of(enum layer l, int family, uint64_t n, uint64_t payload_bytes);

/* pps datagrams of payload bytes a second, as bit/s at every layer. */
void layer_bps(int family, uint32_t payload, double pps, double bps[static LAYER_COUNT]);

#endif
