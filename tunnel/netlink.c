// SPDX-License-Identifier: MIT
#include <errno.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/inet6.h>
#include <netlink/route/route.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "log.h"
#include "netlink.h"
#include "nl_error.h"

struct netlink {
	struct nl_sock *sock;
};

int netlink_open(struct netlink **out)
{
	struct netlink *nl = calloc(1, sizeof(*nl));
	int r;

	if (!nl)
		return -ENOMEM;
	nl->sock = nl_socket_alloc();
	if (!nl->sock) {
		free(nl);
		return -ENOMEM;
	}
	r = nl_connect(nl->sock, NETLINK_ROUTE);
	if (r < 0) {
		nl_socket_free(nl->sock);
		free(nl);
		return nl_error(r, "netlink: connect");
	}
	*out = nl;
	return 0;
}

void netlink_close(struct netlink *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sock);
	free(nl);
}

/* One RTM_SETLINK: mtu (0: unchanged), IPv6 address generation off, up. */
static int link_change(struct netlink *nl, int ifindex, uint32_t mtu, uint32_t txqlen, bool no_ll,
		       bool up, const char *what)
{
	struct rtnl_link *orig = NULL, *change = NULL;
	int r = rtnl_link_get_kernel(nl->sock, ifindex, NULL, &orig);

	if (r < 0)
		return nl_error(r, "netlink: get link");
	change = rtnl_link_alloc();
	if (!change) {
		rtnl_link_put(orig);
		return -ENOMEM;
	}
	if (mtu)
		rtnl_link_set_mtu(change, mtu);
	if (txqlen)
		rtnl_link_set_txqlen(change, txqlen);
	if (no_ll)
		r = rtnl_link_inet6_set_addr_gen_mode(change, IN6_ADDR_GEN_MODE_NONE);
	if (up)
		rtnl_link_set_flags(change, IFF_UP);
	if (r >= 0)
		r = rtnl_link_change(nl->sock, orig, change, 0);
	rtnl_link_put(change);
	rtnl_link_put(orig);
	if (r < 0 && no_ll) {
		/* A kernel without IPv6 refuses the attribute: not an error. */
		log_debug("cannot disable IPv6 link-local generation: %s", nl_geterror(r));
		return 0;
	}
	return nl_error(r, "netlink: %s", what);
}

int netlink_link_up(struct netlink *nl, int ifindex, uint32_t mtu, uint32_t txqlen)
{
	/* The kernel applies IFLA_AF_SPEC after the flags of the same message, so
	 * the address generation mode must be set before the link goes up. */
	int r = link_change(nl, ifindex, 0, 0, true, false, "disable IPv6 link-local");

	if (r == 0)
		r = link_change(nl, ifindex, mtu, txqlen, false, true, "set MTU and up");
	return r;
}

int netlink_get_link(struct netlink *nl, int ifindex, struct netlink_link *out)
{
	struct rtnl_link *link = NULL;
	int r = rtnl_link_get_kernel(nl->sock, ifindex, NULL, &link);

	if (r < 0)
		return nl_error(r, "netlink: get link");
	out->mtu = rtnl_link_get_mtu(link);
	out->txqlen = rtnl_link_get_txqlen(link);
	out->tx_dropped = rtnl_link_get_stat(link, RTNL_LINK_TX_DROPPED);
	rtnl_link_put(link);
	return 0;
}

static struct nl_addr *make_addr(int family, const uint8_t *addr, unsigned prefixlen)
{
	struct nl_addr *a = nl_addr_build(family, addr, family == AF_INET ? 4 : 16);

	if (a)
		nl_addr_set_prefixlen(a, (int)prefixlen);
	return a;
}

int netlink_add_address(struct netlink *nl, int ifindex, int family, const uint8_t *addr,
			unsigned prefixlen)
{
	struct rtnl_addr *ra = rtnl_addr_alloc();
	struct nl_addr *local = make_addr(family, addr, prefixlen);
	int r = -NLE_NOMEM;

	if (ra && local) {
		rtnl_addr_set_ifindex(ra, ifindex);
		rtnl_addr_set_family(ra, family);
		r = rtnl_addr_set_local(ra, local);
		if (family == AF_INET6)
			rtnl_addr_set_flags(ra, IFA_F_NODAD);
		if (r >= 0)
			r = rtnl_addr_add(nl->sock, ra, 0);
	}
	nl_addr_put(local);
	rtnl_addr_put(ra);
	if (r == -NLE_EXIST)
		return 0;
	return nl_error(r, "netlink: add address");
}

int netlink_add_route(struct netlink *nl, int ifindex, int family, const uint8_t *addr,
		      unsigned prefixlen)
{
	struct rtnl_route *route = rtnl_route_alloc();
	struct rtnl_nexthop *nh = rtnl_route_nh_alloc();
	struct nl_addr *dst = make_addr(family, addr, prefixlen);
	int r = -NLE_NOMEM;

	if (route && nh && dst) {
		rtnl_route_set_family(route, (uint8_t)family);
		rtnl_route_set_table(route, RT_TABLE_MAIN);
		rtnl_route_set_scope(route, RT_SCOPE_LINK);
		rtnl_route_set_protocol(route, RTPROT_STATIC);
		rtnl_route_set_type(route, RTN_UNICAST);
		r = rtnl_route_set_dst(route, dst);
		rtnl_route_nh_set_ifindex(nh, ifindex);
		rtnl_route_add_nexthop(route, nh);
		nh = NULL; /* owned by the route now */
		if (r >= 0)
			r = rtnl_route_add(nl->sock, route, NLM_F_CREATE | NLM_F_EXCL);
	}
	if (nh)
		rtnl_route_nh_free(nh);
	nl_addr_put(dst);
	rtnl_route_put(route);
	if (r == -NLE_EXIST)
		return 0;
	return nl_error(r, "netlink: add route");
}
