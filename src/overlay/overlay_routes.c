// SPDX-License-Identifier: MIT
/*
 * The overlay's use of libnl-route-3: this host's routes, IPv4 and IPv6, of
 * every table (the local table holds the host's own addresses), for the
 * collision check, leaving out broadcast, multicast and link-local routes
 * (they cannot collide with an overlay subnet); and IPv4 forwarding off on
 * the server's overlay device, set through netlink (IFLA_INET_CONF) so that
 * it works where /proc/sys is read-only (systemd's ProtectKernelTunables).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/ip.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/link/inet.h>
#include <netlink/route/route.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_error.h"
#include "overlay_int.h"

struct collect {
	struct overlay_route *r;
	size_t n, cap;
	int err;
};

static bool ignored(const struct rtnl_route *route, int family, const uint8_t *dst)
{
	uint8_t type = rtnl_route_get_type((struct rtnl_route *)route);

	if (type == RTN_BROADCAST || type == RTN_MULTICAST || type == RTN_ANYCAST)
		return true;
	/* fe80::/10 and ff00::/8 exist on every IPv6 interface */
	return family == AF_INET6 &&
	       (dst[0] == 0xff || (dst[0] == 0xfe && (dst[1] & 0xc0) == 0x80));
}

static void describe(struct rtnl_route *route, struct overlay_route *o)
{
	char a[INET6_ADDRSTRLEN], dev[IF_NAMESIZE] = "", table[16], via[INET6_ADDRSTRLEN + 8] = "";
	struct rtnl_nexthop *nh = rtnl_route_nexthop_n(route, 0);
	uint32_t t = rtnl_route_get_table(route);
	struct nl_addr *gw = nh ? rtnl_route_nh_get_gateway(nh) : NULL;

	inet_ntop(o->family, o->dst, a, sizeof(a));
	if (nh && rtnl_route_nh_get_ifindex(nh) > 0)
		if_indextoname((unsigned)rtnl_route_nh_get_ifindex(nh), dev);
	if (gw && nl_addr_get_len(gw) <= 16) {
		char g[INET6_ADDRSTRLEN];

		if (inet_ntop(nl_addr_get_family(gw), nl_addr_get_binary_addr(gw), g, sizeof(g)))
			snprintf(via, sizeof(via), " via %s", g);
	}
	if (t == RT_TABLE_MAIN)
		snprintf(table, sizeof(table), "main");
	else if (t == RT_TABLE_LOCAL)
		snprintf(table, sizeof(table), "local");
	else
		snprintf(table, sizeof(table), "%u", t);
	snprintf(o->desc, sizeof(o->desc), "%s/%u%s%s%s table %s", a, o->len, via,
		 dev[0] ? " dev " : "", dev, table);
}

static void add_route(struct nl_object *obj, void *arg)
{
	struct rtnl_route *route = (struct rtnl_route *)obj;
	struct collect *c = arg;
	struct nl_addr *dst = rtnl_route_get_dst(route);
	struct overlay_route o = { .family = rtnl_route_get_family(route) };

	if (c->err || !dst || (o.family != AF_INET && o.family != AF_INET6) ||
	    nl_addr_get_len(dst) > sizeof(o.dst))
		return;
	memcpy(o.dst, nl_addr_get_binary_addr(dst), nl_addr_get_len(dst));
	o.len = (uint8_t)nl_addr_get_prefixlen(dst);
	if (ignored(route, o.family, o.dst))
		return;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct overlay_route *g = realloc(c->r, cap * sizeof(*g));

		if (!g) {
			c->err = -ENOMEM;
			return;
		}
		c->r = g;
		c->cap = cap;
	}
	describe(route, &o);
	c->r[c->n++] = o;
}

int overlay_routes_read(struct overlay_route **out, size_t *n)
{
	static const int families[] = { AF_INET, AF_INET6 };
	struct collect c = { 0 };
	struct nl_sock *sk = nl_socket_alloc();
	int r;

	*out = NULL;
	*n = 0;
	if (!sk)
		return -ENOMEM;
	r = nl_connect(sk, NETLINK_ROUTE);
	if (r < 0) {
		nl_socket_free(sk);
		return nl_error(r, "netlink");
	}
	for (size_t i = 0; i < 2 && !c.err; i++) {
		struct nl_cache *cache = NULL;

		r = rtnl_route_alloc_cache(sk, families[i], 0, &cache);
		if (r < 0) {
			c.err = nl_error(r, "reading the routes");
			break;
		}
		nl_cache_foreach(cache, add_route, &c);
		nl_cache_free(cache);
	}
	nl_socket_free(sk);
	if (c.err) {
		free(c.r);
		return c.err;
	}
	*out = c.r;
	*n = c.n;
	return 0;
}

int ovl_no_forwarding(const char *ifname)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct rtnl_link *link = NULL, *change = rtnl_link_alloc();
	int r = !sk || !change ? -NLE_NOMEM : nl_connect(sk, NETLINK_ROUTE);

	if (r == 0)
		r = rtnl_link_get_kernel(sk, 0, ifname, &link);
	/* ip-sysctl: conf/<if>/forwarding "controls whether packets received
	 * on this interface can be forwarded" (IPv4; IPv6's per-interface
	 * switch only selects host or router behaviour) */
	if (r == 0)
		r = rtnl_link_inet_set_conf(change, IPV4_DEVCONF_FORWARDING, 0);
	if (r == 0)
		r = rtnl_link_change(sk, link, change, 0);
	if (r < 0)
		r = nl_error(r, "IPv4 forwarding off on %s", ifname);
	rtnl_link_put(link);
	rtnl_link_put(change);
	nl_socket_free(sk);
	return r;
}
