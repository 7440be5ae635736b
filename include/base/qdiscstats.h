/* SPDX-License-Identifier: MIT */
/*
 * Drop counters of the root queueing discipline (qdisc) of every interface
 * of the calling thread's network namespace, read with libnl-route-3
 * (RTM_GETQDISC dump, TCA_STATS drops: what `tc -s qdisc` shows as
 * "dropped"). A shaper (tbf, htb ...) or a full queue drops there, before
 * the interface's own tx counters see the packet.
 *
 * Only root qdiscs are summed: a classful root already counts the drops of
 * its children (tbf_enqueue() counts a child's drop in its own stats), and
 * mq/mqprio sum their per-queue children into their dump.
 */
#ifndef OVLPERF_QDISCSTATS_H
#define OVLPERF_QDISCSTATS_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

#define QDISCSTATS_MAX_IFS  64
#define QDISCSTATS_KIND_LEN 16

struct qdiscstats_if {
	char ifname[IFNAMSIZ];
	char kind[QDISCSTATS_KIND_LEN]; /* "tbf", "fq_codel", ... */
	uint32_t txqlen;		/* the interface's txqueuelen */
	uint64_t drops;			/* RTNL_TC_DROPS of the root qdisc */
	uint32_t split_above;		/* tbf: a GSO packet longer than this (its
					 * bucket) is split into its segments before
					 * queueing, each counted when dropped
					 * (tbf_segment()); 0: never split */
	uint64_t overlimits;		/* RTNL_TC_OVERLIMITS: a shaper held a packet
					 * back for want of tokens (its queue grew) */
};

struct qdiscstats {
	unsigned n;
	struct qdiscstats_if ifs[QDISCSTATS_MAX_IFS];
};

/* Reads the root qdiscs of all interfaces but "lo". 0 or -errno. */
int qdiscstats_read(struct qdiscstats *qs);

/* Drops between before and after, summed over interfaces (matched by name
 * and qdisc kind: a qdisc replaced during the test counts from 0), and the
 * interface with the most (its qdisc kind and txqueuelen) in *top; top->ifname
 * is "" when nothing was dropped. Returns the sum. */
uint64_t qdiscstats_delta(const struct qdiscstats *before, const struct qdiscstats *after,
			  struct qdiscstats_if *top);

/* The same for the overlimits: the root qdisc whose shaper held packets
 * back most between before and after, in *top (its overlimits and drops
 * the rises; ifname "" when none rose). Returns the overlimits' sum. */
uint64_t qdiscstats_held(const struct qdiscstats *before, const struct qdiscstats *after,
			 struct qdiscstats_if *top);

#endif
