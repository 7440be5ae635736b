/* SPDX-License-Identifier: MIT */
/*
 * What tcp_limit.c (the verdict's order and its network and window causes)
 * and tcp_limit_cpu.c (its CPU causes) share; private to src/results.
 */
#ifndef OVLPERF_TCP_LIMIT_INT_H
#define OVLPERF_TCP_LIMIT_INT_H

#include <stdbool.h>

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
/* Every core of a real host busy with the test (c->host_busy), no thread
 * at one: v filled as that host's CPU, a queue's cause. */
void tcp_limit_host_busy(const struct tcp_limit_ctx *c, struct tcp_limit_verdict *v);
bool tcp_limit_cpu_bound(const struct tcp_limit_ctx *c, const char *snd_host, const char *rcv_host,
			 struct tcp_limit_verdict *v);

#endif
