/* SPDX-License-Identifier: MIT */
/*
 * Interface setup through libnl-route-3: MTU, state, addresses and routes of
 * the TUN device. libnl's -NLE_* codes stop here: every function returns 0 or
 * a negative errno and logs nl_geterror() with what it was doing.
 */
#ifndef OVLPERF_TUNNEL_NETLINK_H
#define OVLPERF_TUNNEL_NETLINK_H

#include <stdint.h>

struct netlink;

int netlink_open(struct netlink **out);
void netlink_close(struct netlink *nl);

/* Sets the MTU and queue length (0: unchanged), turns off IPv6 link-local address generation
 * (nothing on an overlay answers router solicitations) and brings the link up. */
int netlink_link_up(struct netlink *nl, int ifindex, uint32_t mtu, uint32_t txqlen);
/* addr: 4 or 16 bytes. IPv6 addresses are added without DAD. */
int netlink_add_address(struct netlink *nl, int ifindex, int family, const uint8_t *addr,
			unsigned prefixlen);
/* A link-scope route to prefix via the device; an existing identical route
 * (e.g. the one the kernel made for the address's subnet) is not an error. */
int netlink_add_route(struct netlink *nl, int ifindex, int family, const uint8_t *addr,
		      unsigned prefixlen);
/* What the kernel keeps of the interface: its MTU, and its transmit queue's
 * length (packets per queue) and the packets it dropped because a queue was
 * full (the link's tx_dropped: a TUN tail-drops, it never pushes back on a
 * qdisc). */
struct netlink_link {
	uint32_t mtu, txqlen;
	uint64_t tx_dropped;
};

/* Reading needs no capability. 0 or a negative errno. */
int netlink_get_link(struct netlink *nl, int ifindex, struct netlink_link *out);

#endif
