/* SPDX-License-Identifier: MIT */
/*
 * What the verdict tests share (test_verdict_evidence.c,
 * test_verdict_hosts.c): a TCP result whose causes are set by hand.
 */
#ifndef OVLPERF_VERDICT_FIXTURE_H
#define OVLPERF_VERDICT_FIXTURE_H

#include <string.h>

#include "results.h"
#include "tcp_limit.h"

/* One stream over 3 s in the congestion window: rate, round trip and its
 * least (ms), the share of the bytes resent. */
static inline void tcp(struct tcp_result *t, double bps, double rtt_ms, double min_ms,
		       double resent)
{
	struct tcp_end_limits *s = &t->sender_limits;

	memset(t, 0, sizeof(*t));
	t->goodput_bps = (uint64_t)bps;
	t->sender.rtt_us = (uint32_t)(rtt_ms * 1e3);
	t->sender.snd_mss = 1448;
	/* the congestion window just holds what was in flight */
	t->sender.snd_cwnd = (uint32_t)(bps * rtt_ms / 1e3 / 8 / 1448 + 1);
	t->sender.retransmits = 1000;
	*s = (struct tcp_end_limits){ .known = true,
				      .chrono = true,
				      .sysctl = true,
				      .streams = 1,
				      .window_s = 3,
				      .busy_s = 3,
				      .bytes_sent = (uint64_t)(bps * 3 / 8),
				      .min_rtt_us = (uint32_t)(min_ms * 1e3),
				      .snd_wnd = 1u << 30,
				      .sock_sndbuf = 64u << 20,
				      .sock_rcvbuf = 64u << 20,
				      .tcp_rmem_max = 64u << 20,
				      .tcp_wmem_max = 64u << 20,
				      .thread_cpu = 0.3 };
	s->bytes_retrans = (uint64_t)((double)s->bytes_sent * resent);
	t->receiver_limits = *s;
	t->receiver_limits.chrono = false;
	t->receiver_limits.thread_cpu = 0.4;
}

/* A run of two paths, the underlay (path 0) and one of kind (path 1),
 * each with one TCP trial of 1 stream over 3 s: tr[0] and tr[1], whose
 * figures the caller sets. */
static inline void two_paths(struct results_run *run, struct results_trial tr[2],
			     enum results_path_kind kind)
{
	memset(run, 0, sizeof(*run));
	memset(tr, 0, 2 * sizeof(*tr));
	run->npaths = 2;
	run->paths[0].kind = RESULTS_PATH_UNDERLAY;
	run->paths[1].kind = kind;
	run->ntrials = 2;
	run->trials = tr;
	tr[0].kind = tr[1].kind = RESULTS_TRIAL_TCP;
	tr[0].streams = tr[1].streams = 1;
	tr[0].duration_s = tr[1].duration_s = 3;
	tr[1].path = 1;
}

#endif
