// SPDX-License-Identifier: MIT
/*
 * Path MTU bookkeeping of the device's peers (pmtu.h): each peer's underlay
 * path MTU read from a socket connected to its endpoint, the largest inner
 * packet that fits it, and the engine's padding cap that follows both it and
 * the TUN's MTU.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "device_state.h"
#include "log.h"
#include "netlink.h"
#include "pmtu.h"
#include "underlay.h"

static unsigned overhead_for(int family)
{
	return family == AF_INET6 ? WIRE_UNDERLAY_OVERHEAD_V6 : WIRE_UNDERLAY_OVERHEAD_V4;
}

/* Path MTU towards ep: connect() a spare UDP socket (a fresh route lookup, so a
 * PMTU learned from ICMP since the last call is seen) and read IP_MTU. */
static int path_mtu(int *fd, const struct sockaddr_storage *ep)
{
	int family = ep->ss_family;
	int mtu = 0;
	socklen_t sl = sizeof(mtu);

	if (*fd < 0) {
		*fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (*fd < 0)
			return -errno;
	}
	if (connect(*fd, (const struct sockaddr *)ep, underlay_sockaddr_len(ep)) < 0)
		return -errno;
	if (getsockopt(*fd, family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP,
		       family == AF_INET6 ? IPV6_MTU : IP_MTU, &mtu, &sl) < 0)
		return -errno;
	return mtu;
}

void pmtu_set_pad(struct device_peer *peer)
{
	uint32_t link = atomic_load(&peer->dev->link_mtu), inner = atomic_load(&peer->inner_mtu);
	uint32_t cap = link;

	if (inner && (!cap || inner < cap))
		cap = inner;
	if (peer->ep)
		engine_peer_set_pad_mtu(peer->ep, cap);
}

void pmtu_refresh(struct device_peer *peer)
{
	struct sockaddr_storage ep;
	uint32_t inner, old, limit;
	int mtu;

	atomic_store(&peer->pmtu_stale, false);
	pthread_mutex_lock(&peer->lock);
	if (!peer->has_endpoint) {
		pthread_mutex_unlock(&peer->lock);
		return;
	}
	ep = peer->endpoint;
	if (peer->pmtu_fd >= 0) {
		/* A socket of the other family cannot connect to the new endpoint. */
		struct sockaddr_storage cur;
		socklen_t cl = sizeof(cur);

		if (getsockname(peer->pmtu_fd, (struct sockaddr *)&cur, &cl) == 0 &&
		    cur.ss_family != ep.ss_family) {
			close(peer->pmtu_fd);
			peer->pmtu_fd = -1;
		}
	}
	mtu = path_mtu(&peer->pmtu_fd, &ep);
	pthread_mutex_unlock(&peer->lock);
	if (mtu <= 0) {
		log_debug("peer %u: cannot read path MTU: %s", peer->id, strerror(-mtu));
		return;
	}
	inner = (uint32_t)mtu > overhead_for(ep.ss_family)
			? (uint32_t)mtu - overhead_for(ep.ss_family)
			: 0;
	/* Padding stops at the smaller of the device's current MTU and the path's
	 * inner MTU, so a packet that fits the path still fits once padded. */
	limit = inner;
	old = atomic_exchange(&peer->inner_mtu, inner);
	pmtu_set_pad(peer);
	atomic_store(&peer->send_limit, limit);
	if (old != inner) {
		if (old)
			device_count(peer->dev, DEV_PMTU_UPDATES, 1);
		log_info("peer %u: underlay path MTU %d, inner packets up to %u", peer->id, mtu,
			 inner);
	}
}

/* `ip link set DEV mtu N` since start-up: padding must follow it (a packet
 * of the new MTU must not grow past it on the wire). Up to max_mtu the
 * buffers hold the larger packets; above it they are dropped (too big). */
void pmtu_link_check(struct device *dev)
{
	struct netlink_link l;

	if (netlink_get_link(dev->nl, dev->tun.ifindex, &l) < 0 || l.mtu == 0 ||
	    l.mtu == atomic_load(&dev->link_mtu))
		return;
	if (l.mtu > dev->max_mtu)
		log_warn("%s: MTU now %u, above max_mtu %u: packets larger than %u are dropped "
			 "(set max_mtu in [interface] of %s)",
			 dev->tun.name, l.mtu, dev->max_mtu, dev->max_mtu, dev->cfg->path);
	else
		log_info("%s: MTU now %u", dev->tun.name, l.mtu);
	atomic_store(&dev->link_mtu, l.mtu);
	for (size_t i = 0; i < dev->npeers; i++)
		pmtu_set_pad(&dev->peers[i]);
}
