// SPDX-License-Identifier: MIT
/*
 * One direction of an emulated link as a netem qdisc, through libnl-route-3
 * (the kernel means; the userspace one is `ovlperf link run`, src/link/).
 * libnl's netem knows the classic struct tc_netem_qopt (delay and jitter in
 * scheduler ticks, loss, gap, reorder) but neither the nanosecond delays
 * (TCA_NETEM_LATENCY64, TCA_NETEM_JITTER64), nor netem's own rate
 * (TCA_NETEM_RATE, TCA_NETEM_RATE64), nor the Gilbert-Elliott loss model
 * (TCA_NETEM_LOSS holding NETEM_LOSS_GE). Those go after the attributes libnl
 * wrote, inside its TCA_OPTIONS, which netem parses as a struct tc_netem_qopt
 * followed by attributes (the layout tc's q_netem.c sends).
 */
#include <errno.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/netem.h>
#include <netlink/route/tc.h>

#include "log.h"
#include "nl_error.h"
#include "nl_route.h"

/* A part per million as netem's 32-bit probability (tc's get_percent():
 * 100 % is UINT32_MAX). */
uint32_t nlr_netem_prob(uint32_t ppm)
{
	if (ppm >= 1000000)
		return UINT32_MAX;
	return (uint32_t)(((uint64_t)ppm * UINT32_MAX + 500000) / 1000000);
}

/* The classic fields, through libnl's own setters. */
static int classic(struct rtnl_qdisc *q, const struct link_dir_conf *d, uint32_t limit)
{
	uint64_t delay_us = d->delay_ns / 1000, jitter_us = d->jitter_ns / 1000;

	if (delay_us > INT32_MAX || jitter_us > INT32_MAX)
		return -ERANGE;
	rtnl_netem_set_limit(q, (int)limit);
	rtnl_netem_set_delay(q, (int)delay_us);
	if (jitter_us)
		rtnl_netem_set_jitter(q, (int)jitter_us);
	if (d->loss_ppm)
		rtnl_netem_set_loss(q, (int)nlr_netem_prob(d->loss_ppm));
	if (d->reorder_ppm) {
		/* netem sends a packet ahead only with a delay to skip, and
		 * only every gap-th one: gap 1 lets any packet go (tc's default) */
		if (!d->delay_ns)
			return -EINVAL;
		rtnl_netem_set_reorder_probability(q, (int)nlr_netem_prob(d->reorder_ppm));
		rtnl_netem_set_gap(q, 1);
	}
	return 0;
}

/* What libnl lacks, appended to the message's tail. */
static int extra(struct nl_msg *msg, const struct link_dir_conf *d)
{
	int64_t lat = (int64_t)d->delay_ns, jit = (int64_t)d->jitter_ns;
	int rc;

	rc = nla_put(msg, TCA_NETEM_LATENCY64, sizeof(lat), &lat);
	if (!rc && jit)
		rc = nla_put(msg, TCA_NETEM_JITTER64, sizeof(jit), &jit);
	if (!rc && (d->ge_p_ppm || d->ge_r_ppm)) {
		/* netem's `loss gemodel p r`: lost in the bad state always
		 * (h = 0), never in the good one (1 - k = 0) */
		struct tc_netem_gemodel ge = { .p = nlr_netem_prob(d->ge_p_ppm),
					       .r = nlr_netem_prob(d->ge_r_ppm) };
		struct nlattr *nest = nla_nest_start(msg, TCA_NETEM_LOSS);

		rc = nest ? nla_put(msg, NETEM_LOSS_GE, sizeof(ge), &ge) : -NLE_NOMEM;
		if (!rc)
			rc = nla_nest_end(msg, nest);
	}
	if (!rc && d->rate_bps) {
		uint64_t bytes = d->rate_bps / 8;
		struct tc_netem_rate r = { .rate = bytes > UINT32_MAX ? UINT32_MAX
								      : (uint32_t)bytes };

		rc = nla_put(msg, TCA_NETEM_RATE, sizeof(r), &r);
		/* netem_change(): the 64-bit rate replaces the 32-bit one */
		if (!rc && bytes > UINT32_MAX)
			rc = nla_put(msg, TCA_NETEM_RATE64, sizeof(bytes), &bytes);
	}
	return rc;
}

/* The TCA_OPTIONS attribute libnl wrote, which must be the last attribute so
 * that what is appended falls inside it. libnl 3.7 leaves zeroed bytes after
 * it when it grows it for the reorder attribute (its nlmsg_len counts the
 * growth twice); the kernel only warns of "bytes leftover", but they would
 * sit between the options and what follows, so they are cut off first. */
static struct nlattr *options_at_tail(struct nl_msg *msg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *a, *found = NULL;
	char *end = NULL, *tail = (char *)nlmsg_tail(nlh);
	int rem;

	nlmsg_for_each_attr(a, nlh, sizeof(struct tcmsg), rem)
	{
		found = nla_type(a) == TCA_OPTIONS ? a : NULL;
		end = (char *)a + NLA_ALIGN(a->nla_len);
	}
	if (!found || end > tail)
		return NULL;
	for (char *p = end; p < tail; p++)
		if (*p)
			return NULL;
	nlh->nlmsg_len = (uint32_t)(end - (char *)nlh);
	return found;
}

int nlr_netem_msg(int ifindex, const struct link_dir_conf *d, uint32_t limit, struct nl_msg **out)
{
	struct rtnl_qdisc *q = nlr_qdisc_new(ifindex, TC_H_ROOT, TC_HANDLE(1, 0), "netem");
	struct nl_msg *msg = NULL;
	struct nlattr *opts;
	int rc;

	*out = NULL;
	if (!q)
		return -ENOMEM;
	rc = classic(q, d, limit);
	if (!rc)
		rc = nl_error(rtnl_qdisc_build_add_request(q, NLM_F_CREATE | NLM_F_REPLACE, &msg),
			      "build netem request");
	rtnl_qdisc_put(q);
	if (rc)
		return rc;
	opts = options_at_tail(msg);
	rc = opts ? nl_error(extra(msg, d), "netem attributes") : -EPROTO;
	if (rc) {
		if (!opts)
			log_err("libnl's netem request does not end in its options");
		nlmsg_free(msg);
		return rc;
	}
	opts->nla_len = (uint16_t)((char *)nlmsg_tail(nlmsg_hdr(msg)) - (char *)opts);
	*out = msg;
	return 0;
}

static int send_msg(struct nl_sock *sk, struct nl_msg *msg)
{
	int rc = nl_send_auto_complete(sk, msg);

	nlmsg_free(msg);
	return rc < 0 ? rc : nl_wait_for_ack(sk);
}

int nlr_netem_add(struct nl_sock *sk, const char *ifname, const struct link_dir_conf *d,
		  uint32_t limit)
{
	struct nl_msg *msg;
	int idx, rc;

	idx = nlr_ifindex(sk, ifname);
	if (idx < 0)
		return idx;
	rc = nlr_netem_msg(idx, d, limit, &msg);
	if (rc == -EINVAL)
		log_err("%s: netem reorders only packets it delays: reorder needs a delay", ifname);
	if (rc)
		return rc;
	return nl_error(send_msg(sk, msg), "add netem on %s", ifname);
}

int nlr_netem_probe(struct nl_sock *sk, const char *ifname)
{
	const struct link_dir_conf none = { 0 };
	struct nl_msg *msg;
	int idx, rc;

	idx = nlr_ifindex(sk, ifname);
	if (idx < 0)
		return idx;
	rc = nlr_netem_msg(idx, &none, 1000, &msg);
	if (rc)
		return rc;
	/* qdisc_create(): a kind the kernel has neither built in nor can load
	 * is -ENOENT; a kernel without qdiscs at all says -EOPNOTSUPP. */
	rc = nl_error_to_errno(send_msg(sk, msg));
	if (rc == -ENOENT || rc == -EOPNOTSUPP)
		return -ENOENT;
	if (rc) {
		log_err("probe netem on %s: %s", ifname, strerror(-rc));
		return rc;
	}
	return nlr_qdisc_del_root(sk, ifname);
}

int nlr_qdisc_del_root(struct nl_sock *sk, const char *ifname)
{
	struct rtnl_qdisc *q;
	int idx, rc;

	idx = nlr_ifindex(sk, ifname);
	if (idx < 0)
		return idx;
	q = nlr_qdisc_new(idx, TC_H_ROOT, 0, NULL);
	if (!q)
		return -ENOMEM;
	rc = rtnl_qdisc_delete(sk, q);
	rtnl_qdisc_put(q);
	return nl_error(rc, "remove the root qdisc of %s", ifname);
}
