/* SPDX-License-Identifier: MIT */
/*
 * What tcp_limit.c (the verdict's order and its network and window causes),
 * tcp_limit_bbr.c (a BBR sender against the loss-based bound)
 * and tcp_limit_cpu.c (its CPU causes) share; private to src/results.
 */
#ifndef OVLPERF_TCP_LIMIT_INT_H
#define OVLPERF_TCP_LIMIT_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "tcp_limit.h"

/* "the sending thread at 99 % of a core on HOST" into v: its evidence,
 * fix and limit's sentence for the end (sender or receiver) at share. */
void tcp_limit_cpu(const char *host, const char *who, double share, bool sender,
		   struct tcp_limit_verdict *v);
/* The overlay's daemon held at its cgroup's quota or at a full core: v
 * filled, true; else false and v untouched. */
bool tcp_limit_overlay_bound(const struct tcp_limit_ctx *c, struct tcp_limit_verdict *v);
/* Any CPU cause, in order: the overlay's daemon, the sending and
 * receiving threads, a CPU in softirq, every core of the lab's machine
 * busy. */
/* Which round trip v's queue was read from, for an evidence's words: the
 * one averaged over the test, or the one at its end. */
static inline const char *tcp_limit_rtt_read(const struct tcp_limit_verdict *v)
{
	return v->queue_median ? "the median round trip over the test"
			       : "the round trip at the test's end";
}
/* Every core of a real host busy with the test (c->host_busy), no thread
 * at one: v filled as that host's CPU, a queue's cause. */
void tcp_limit_host_busy(const struct tcp_limit_ctx *c, struct tcp_limit_verdict *v);
bool tcp_limit_cpu_bound(const struct tcp_limit_ctx *c, const char *snd_host, const char *rcv_host,
			 struct tcp_limit_verdict *v);

/* The sender's congestion control is BBR (c->congestion "bbr"). */
bool tcp_limit_is_bbr(const struct tcp_limit_ctx *c);
/* What a loss-based control carries at a share p of its segments lost and
 * t's round trip (Mathis et al. 1997), bit/s; 0 where either is unknown. */
double tcp_limit_loss_bound_bps(const struct tcp_result *t, double p);
/* A BBR sender far above that bound at the share v resent: the loss was
 * not its limit. */
bool tcp_limit_bbr_unslowed(const struct tcp_result *t, const struct tcp_limit_ctx *c,
			    const struct tcp_limit_verdict *v);
/* "BBR sent at the bottleneck rate it measured: ..." into buf: the share
 * resent, where it was lost, the loss-based bound and this flow's rate. */
void tcp_limit_bbr_words(char *buf, size_t len, const struct tcp_result *t,
			 const struct tcp_limit_ctx *c, const struct tcp_limit_verdict *v);

#endif
