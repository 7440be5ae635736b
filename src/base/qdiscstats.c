// SPDX-License-Identifier: MIT
/*
 * Root qdisc drop counters through libnl-route-3 (see qdiscstats.h). The
 * boundary where libnl's -NLE_* codes become -errno.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/pkt_sched.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/tbf.h>
#include <netlink/route/tc.h>

#include "log.h"
#include "qdiscstats.h"

struct walk {
	struct qdiscstats *qs;
	struct nl_cache *links;
};

static void add_qdisc(struct nl_object *obj, void *arg)
{
	struct rtnl_tc *tc = (struct rtnl_tc *)obj;
	struct walk *w = arg;
	struct qdiscstats_if *e;
	struct rtnl_link *link;
	const char *kind;

	if (rtnl_tc_get_parent(tc) != TC_H_ROOT || w->qs->n == QDISCSTATS_MAX_IFS)
		return;
	link = rtnl_link_get(w->links, rtnl_tc_get_ifindex(tc));
	if (!link)
		return;
	if (strcmp(rtnl_link_get_name(link), "lo") != 0) {
		e = &w->qs->ifs[w->qs->n++];
		memset(e, 0, sizeof(*e));
		snprintf(e->ifname, sizeof(e->ifname), "%s", rtnl_link_get_name(link));
		kind = rtnl_tc_get_kind(tc);
		snprintf(e->kind, sizeof(e->kind), "%s", kind ? kind : "?");
		e->txqlen = rtnl_link_get_txqlen(link);
		e->drops = rtnl_tc_get_stat(tc, RTNL_TC_DROPS);
		e->overlimits = rtnl_tc_get_stat(tc, RTNL_TC_OVERLIMITS);
		if (strcmp(e->kind, "tbf") == 0) {
			int b = rtnl_qdisc_tbf_get_rate_bucket((struct rtnl_qdisc *)tc);
			int pb = rtnl_qdisc_tbf_get_peakrate_bucket((struct rtnl_qdisc *)tc);

			/* tbf_change(): max_size is the bucket, or the peak
			 * rate's when lower */
			e->split_above = b > 0 ? (uint32_t)b : 0;
			if (pb > 0 && (uint32_t)pb < e->split_above)
				e->split_above = (uint32_t)pb;
		}
	}
	rtnl_link_put(link);
}

static int nle_errno(int nlerr, const char *what)
{
	log_warn("%s: %s", what, nl_geterror(nlerr));
	switch (-nlerr) {
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
	case NLE_NOACCESS:
		return -EPERM;
	default:
		return -EIO;
	}
}

int qdiscstats_read(struct qdiscstats *qs)
{
	struct nl_cache *qdiscs = NULL;
	struct walk w = { qs, NULL };
	struct nl_sock *sk;
	int rc;

	memset(qs, 0, sizeof(*qs));
	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	/* a socket opened now belongs to this thread's current namespace */
	rc = nl_connect(sk, NETLINK_ROUTE);
	if (rc < 0) {
		rc = nle_errno(rc, "netlink connect");
		goto out;
	}
	rc = rtnl_link_alloc_cache(sk, AF_UNSPEC, &w.links);
	if (rc < 0) {
		rc = nle_errno(rc, "interface dump");
		goto out;
	}
	rc = rtnl_qdisc_alloc_cache(sk, &qdiscs);
	if (rc < 0) {
		rc = nle_errno(rc, "qdisc dump");
		goto out;
	}
	nl_cache_foreach(qdiscs, add_qdisc, &w);
	rc = 0;
out:
	if (qdiscs)
		nl_cache_free(qdiscs);
	if (w.links)
		nl_cache_free(w.links);
	nl_socket_free(sk);
	return rc;
}

static const struct qdiscstats_if *find(const struct qdiscstats *qs, const struct qdiscstats_if *e)
{
	for (unsigned i = 0; i < qs->n; i++)
		if (strcmp(qs->ifs[i].ifname, e->ifname) == 0 &&
		    strcmp(qs->ifs[i].kind, e->kind) == 0)
			return &qs->ifs[i];
	return NULL;
}

static uint64_t rise(uint64_t before, uint64_t after)
{
	return after > before ? after - before : 0;
}

/* The rises of drops or overlimits (held) between before and after, summed,
 * and the root qdisc with the largest in *top with both its rises. */
static uint64_t top_rise(const struct qdiscstats *before, const struct qdiscstats *after,
			 struct qdiscstats_if *top, bool held)
{
	uint64_t sum = 0, best = 0;

	memset(top, 0, sizeof(*top));
	for (unsigned i = 0; i < after->n; i++) {
		const struct qdiscstats_if *a = &after->ifs[i], *b = find(before, a);
		uint64_t drops = rise(b ? b->drops : 0, a->drops),
			 over = rise(b ? b->overlimits : 0, a->overlimits), d = held ? over : drops;

		sum += d;
		if (d > best) {
			best = d;
			*top = *a;
			top->drops = drops;
			top->overlimits = over;
		}
	}
	return sum;
}

uint64_t qdiscstats_delta(const struct qdiscstats *before, const struct qdiscstats *after,
			  struct qdiscstats_if *top)
{
	return top_rise(before, after, top, false);
}

uint64_t qdiscstats_held(const struct qdiscstats *before, const struct qdiscstats *after,
			 struct qdiscstats_if *top)
{
	return top_rise(before, after, top, true);
}
