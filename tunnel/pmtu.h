/* SPDX-License-Identifier: MIT */
/*
 * Path MTU of the device's peers (RFC 1191/8201 through the overlay; see
 * device.h): the largest inner packet each peer's underlay path carries
 * (its path MTU less 60 or 80 bytes), and the engine's padding cap,
 * min(TUN MTU, that inner MTU), so a packet that fits still fits padded.
 */
#ifndef OVLPERF_TUNNEL_PMTU_H
#define OVLPERF_TUNNEL_PMTU_H

struct device;
struct device_peer;

/* Re-reads the peer's path MTU from its connected socket. */
void pmtu_refresh(struct device_peer *peer);
/* The engine's padding cap for peer: min(link MTU, inner path MTU). */
void pmtu_set_pad(struct device_peer *peer);
/* `ip link set DEV mtu N` since start-up: padding must follow it (a packet
 * of the new MTU must not grow past it on the wire). Up to max_mtu the
 * buffers hold the larger packets; above it they are dropped (too big). */
void pmtu_link_check(struct device *dev);

#endif
