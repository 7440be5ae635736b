// SPDX-License-Identifier: MIT
/*
 * libnl-route-3 for the lab. This file is the boundary where libnl's -NLE_*
 * codes become -errno (nl_error.h), with nl_geterror() logged once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_arp.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/tbf.h>
#include <netlink/route/route.h>
#include <netlink/route/tc.h>

#include "log.h"
#include "nl_error.h"
#include "nl_route.h"

int nlr_open(struct nl_sock **out)
{
	struct nl_sock *sk = nl_socket_alloc();
	int rc;

	if (!sk)
		return -ENOMEM;
	rc = nl_connect(sk, NETLINK_ROUTE);
	if (rc < 0) {
		nl_socket_free(sk);
		return nl_error(rc, "netlink connect");
	}
	*out = sk;
	return 0;
}

void nlr_close(struct nl_sock *sk)
{
	if (sk)
		nl_socket_free(sk);
}

int nlr_veth_add(struct nl_sock *sk, const char *name, int ifindex, const char *peer_name,
		 int peer_ns_fd, int peer_ifindex, uint32_t mtu)
{
	struct rtnl_link *link = rtnl_link_veth_alloc(), *peer;
	int rc;

	if (!link)
		return -ENOMEM;
	peer = rtnl_link_veth_get_peer(link);
	rtnl_link_set_name(link, name);
	rtnl_link_set_mtu(link, mtu);
	rtnl_link_set_name(peer, peer_name);
	rtnl_link_set_mtu(peer, mtu);
	rtnl_link_set_ns_fd(peer, peer_ns_fd);
	if (ifindex > 0)
		rtnl_link_set_ifindex(link, ifindex);
	if (peer_ifindex > 0)
		rtnl_link_set_ifindex(peer, peer_ifindex);
	rc = rtnl_link_add(sk, link, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_link_put(peer);
	rtnl_link_veth_release(link);
	return nl_error(rc, "create veth %s", name);
}

int nlr_ifindex(struct nl_sock *sk, const char *ifname)
{
	struct rtnl_link *link;
	int rc, idx;

	rc = rtnl_link_get_kernel(sk, 0, ifname, &link);
	if (rc < 0)
		return nl_error(rc, "look up %s", ifname);
	idx = rtnl_link_get_ifindex(link);
	rtnl_link_put(link);
	return idx > 0 ? idx : -ENODEV;
}

int nlr_link_up(struct nl_sock *sk, const char *ifname)
{
	struct rtnl_link *link, *change;
	int rc;

	rc = rtnl_link_get_kernel(sk, 0, ifname, &link);
	if (rc < 0)
		return nl_error(rc, "look up %s", ifname);
	change = rtnl_link_alloc();
	if (!change) {
		rtnl_link_put(link);
		return -ENOMEM;
	}
	rtnl_link_set_flags(change, IFF_UP);
	rc = rtnl_link_change(sk, link, change, 0);
	rtnl_link_put(change);
	rtnl_link_put(link);
	return nl_error(rc, "set up %s", ifname);
}

int nlr_wait_oper_up(struct nl_sock *sk, const char *ifname, unsigned timeout_ms)
{
	struct timespec tick = { 0, 5 * 1000000L };

	for (unsigned waited = 0;; waited += 5) {
		struct rtnl_link *link;
		uint8_t oper;
		int rc = rtnl_link_get_kernel(sk, 0, ifname, &link);

		if (rc < 0)
			return nl_error(rc, "look up %s", ifname);
		oper = rtnl_link_get_operstate(link);
		rtnl_link_put(link);
		if (oper == IF_OPER_UP)
			return 0;
		if (waited >= timeout_ms)
			break;
		nanosleep(&tick, NULL);
	}
	log_err("%s: not operationally up after %u ms", ifname, timeout_ms);
	return -ETIMEDOUT;
}

static struct nl_addr *to_nl_addr(const struct sockaddr_storage *ss, unsigned prefixlen)
{
	struct nl_addr *a;

	if (ss->ss_family == AF_INET)
		a = nl_addr_build(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	else if (ss->ss_family == AF_INET6)
		a = nl_addr_build(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	else
		return NULL;
	if (a)
		nl_addr_set_prefixlen(a, (int)prefixlen);
	return a;
}

int nlr_addr_add(struct nl_sock *sk, const char *ifname, const struct sockaddr_storage *ss,
		 unsigned prefixlen)
{
	struct rtnl_addr *addr;
	struct nl_addr *local;
	int idx, rc;

	idx = nlr_ifindex(sk, ifname);
	if (idx < 0)
		return idx;
	local = to_nl_addr(ss, prefixlen);
	addr = rtnl_addr_alloc();
	if (!local || !addr) {
		nl_addr_put(local);
		rtnl_addr_put(addr);
		return -ENOMEM;
	}
	rtnl_addr_set_ifindex(addr, idx);
	rc = rtnl_addr_set_local(addr, local);
	/* IPv6 usable at once: no duplicate address detection. */
	if (rc >= 0 && ss->ss_family == AF_INET6)
		rtnl_addr_set_flags(addr, IFA_F_NODAD);
	if (rc >= 0)
		rc = rtnl_addr_add(sk, addr, 0);
	nl_addr_put(local);
	rtnl_addr_put(addr);
	return nl_error(rc, "add address on %s", ifname);
}

static void clear_host_bits(uint8_t *a, size_t len, unsigned prefixlen)
{
	for (size_t i = 0; i < len; i++) {
		unsigned bit = (unsigned)i * 8;

		if (bit >= prefixlen)
			a[i] = 0;
		else if (bit + 8 > prefixlen)
			a[i] &= (uint8_t)(0xff << (8 - (prefixlen - bit)));
	}
}

int nlr_route_add(struct nl_sock *sk, const struct sockaddr_storage *dst, unsigned prefixlen,
		  const struct sockaddr_storage *gw)
{
	struct sockaddr_storage net = *dst;
	struct rtnl_route *route = rtnl_route_alloc();
	struct rtnl_nexthop *nh = rtnl_route_nh_alloc();
	struct nl_addr *d, *g;
	int rc;

	if (net.ss_family == AF_INET)
		clear_host_bits((uint8_t *)&((struct sockaddr_in *)&net)->sin_addr, 4, prefixlen);
	else
		clear_host_bits(((struct sockaddr_in6 *)&net)->sin6_addr.s6_addr, 16, prefixlen);
	d = to_nl_addr(&net, prefixlen);
	g = to_nl_addr(gw, gw->ss_family == AF_INET ? 32 : 128);
	if (!route || !nh || !d || !g) {
		rc = -NLE_NOMEM;
		rtnl_route_nh_free(nh);
		goto out;
	}
	rtnl_route_set_family(route, (uint8_t)net.ss_family);
	rtnl_route_set_table(route, RT_TABLE_MAIN);
	rtnl_route_set_protocol(route, RTPROT_STATIC);
	rtnl_route_set_scope(route, RT_SCOPE_UNIVERSE);
	rc = rtnl_route_set_dst(route, d);
	if (rc < 0) {
		rtnl_route_nh_free(nh);
		goto out;
	}
	rtnl_route_nh_set_gateway(nh, g);
	rtnl_route_add_nexthop(route, nh);
	rc = rtnl_route_add(sk, route, NLM_F_CREATE | NLM_F_EXCL);
out:
	nl_addr_put(d);
	nl_addr_put(g);
	rtnl_route_put(route);
	return nl_error(rc, "add route");
}

struct rtnl_qdisc *nlr_qdisc_new(int ifindex, uint32_t parent, uint32_t handle, const char *kind)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();

	if (!q)
		return NULL;
	rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
	rtnl_tc_set_parent(TC_CAST(q), parent);
	if (handle)
		rtnl_tc_set_handle(TC_CAST(q), handle);
	if (kind && rtnl_tc_set_kind(TC_CAST(q), kind) < 0) {
		rtnl_qdisc_put(q);
		return NULL;
	}
	return q;
}

int nlr_tbf_add(struct nl_sock *sk, const char *ifname, bool under_netem, uint64_t rate_bps,
		uint32_t burst, uint32_t limit, uint32_t overhead, uint32_t mpu)
{
	struct rtnl_qdisc *q;
	uint64_t bytes = rate_bps / 8;
	int idx, rc;

	if (bytes == 0 || bytes > 0x7fffffff || burst > 0x7fffffff || limit > 0x7fffffff)
		return -ERANGE;
	idx = nlr_ifindex(sk, ifname);
	if (idx < 0)
		return idx;
	/* netem (handle 1:) has one class, 1:1, for its child */
	q = nlr_qdisc_new(idx, under_netem ? TC_HANDLE(1, 1) : TC_H_ROOT,
			  TC_HANDLE(under_netem ? 10 : 1, 0), "tbf");
	if (!q)
		return -ENOMEM;
	rtnl_qdisc_tbf_set_limit(q, (int)limit);
	rtnl_qdisc_tbf_set_rate(q, (int)bytes, (int)burst, 0);
	if (overhead || mpu) {
		/* the rate's overhead and mpu (tc ... tbf ... overhead N mpu M): every
		 * packet costs its length plus overhead, at least mpu, on an Ethernet link
		 */
		rtnl_tc_set_overhead(TC_CAST(q), overhead);
		rtnl_tc_set_mpu(TC_CAST(q), mpu);
		rtnl_tc_set_linktype(TC_CAST(q), ARPHRD_ETHER);
	}
	rc = rtnl_qdisc_add(sk, q, NLM_F_CREATE | NLM_F_REPLACE);
	rtnl_qdisc_put(q);
	return nl_error(rc, "add tbf on %s", ifname);
}

static void add_addrs(struct nl_cache *addrs, struct lab_if_info *info)
{
	for (struct nl_object *o = nl_cache_get_first(addrs); o; o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *)o;

		if ((unsigned)rtnl_addr_get_ifindex(a) != info->ifindex ||
		    info->naddrs >= LAB_IF_MAX_ADDRS)
			continue;
		nl_addr2str(rtnl_addr_get_local(a), info->addrs[info->naddrs],
			    sizeof(info->addrs[0]));
		info->naddrs++;
	}
}

static void fill_info(struct rtnl_link *link, struct nl_cache *addrs, struct nl_cache *qdiscs,
		      struct lab_if_info *info)
{
	struct rtnl_qdisc *q;
	const char *name = rtnl_link_get_name(link);

	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", name ? name : "?");
	info->ifindex = (unsigned)rtnl_link_get_ifindex(link);
	info->mtu = rtnl_link_get_mtu(link);
	info->up = rtnl_link_get_flags(link) & IFF_UP;
	info->carrier = rtnl_link_get_flags(link) & IFF_LOWER_UP;
	q = rtnl_qdisc_get_by_parent(qdiscs, (int)info->ifindex, TC_H_ROOT);
	if (q) {
		snprintf(info->qdisc, sizeof(info->qdisc), "%s", rtnl_tc_get_kind(TC_CAST(q)));
		rtnl_qdisc_put(q);
	}
	add_addrs(addrs, info);
}

int nlr_interfaces(struct nl_sock *sk, struct lab_if_info *out, size_t max, size_t *n)
{
	struct nl_cache *links = NULL, *addrs = NULL, *qdiscs = NULL;
	int rc;

	*n = 0;
	rc = rtnl_link_alloc_cache(sk, AF_UNSPEC, &links);
	if (rc >= 0)
		rc = rtnl_addr_alloc_cache(sk, &addrs);
	if (rc >= 0)
		rc = rtnl_qdisc_alloc_cache(sk, &qdiscs);
	if (rc < 0)
		goto out;
	for (struct nl_object *o = nl_cache_get_first(links); o; o = nl_cache_get_next(o)) {
		if (*n < max)
			fill_info((struct rtnl_link *)o, addrs, qdiscs, &out[*n]);
		(*n)++;
	}
out:
	nl_cache_free(qdiscs);
	nl_cache_free(addrs);
	nl_cache_free(links);
	return nl_error(rc, "list interfaces");
}
