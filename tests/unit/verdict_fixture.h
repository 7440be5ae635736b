/* SPDX-License-Identifier: MIT */
/*
 * What the verdict tests share (test_verdict_evidence.c, test_tcp_limit_bbr.c,
 * test_verdict_hosts.c): a TCP result whose causes are set by hand.
 */
#ifndef OVLPERF_VERDICT_FIXTURE_H
#define OVLPERF_VERDICT_FIXTURE_H

#include <math.h>
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

/* macros, not const objects: a static initializer takes only constants
 * (clang holds to the standard there) */
#define TUN_DROP                                                                                   \
	{                                                                                          \
		.kind = TCP_DROP_HOST, .place = "the sender's interface", .share = 0.92,           \
		.process = "wireguard-go", .process_cpu = 0.99,                                    \
		.fix = "the process reading the overlay's TUN on the sending host (wireguard-go) " \
		       "did not take packets as fast as they came"                                 \
	}

#define WIRE_DROP                                                                                  \
	{                                                                                          \
		.kind = TCP_DROP_NETWORK, .place = "the network between the hosts", .share = 0.97  \
	}

#define FAR "the far host's CPU not reported: server 0.1.0"

/* A verdict's case: a TCP result's figures (tcp()'s), its context, the
 * verdict wanted and words its evidence and fix must and must not hold
 * (NULL: none; never holds for both); and the sender's round trip
 * median over the test, ms (0: not read, the queue from rtt_ms's). */
struct verdict_case {
	const char *name;
	double bps, rtt_ms, min_ms, resent;
	struct tcp_limit_ctx c;
	enum tcp_limit want;
	const char *says, *never, *fix_says, *fix_never;
	double median_ms;
};

/* Judges k's figures and checks the verdict against k (cmocka's asserts:
 * the including test includes cmocka.h first). */
static inline void verdict_check(const struct verdict_case *k)
{
	struct tcp_result t;
	struct tcp_limit_verdict v;

	tcp(&t, k->bps, k->rtt_ms, k->min_ms, k->resent);
	t.sender_limits.rtt_median_us = (uint32_t)(k->median_ms * 1e3 + 0.5);
	tcp_limit_judge(&t, &k->c, &v);
	print_message("%s: %s: %s; fix: %s\n", k->name, tcp_limit_name(v.limit), v.evidence, v.fix);
	assert_int_equal(v.limit, k->want);
	/* the queue read from the median where there is one */
	assert_true(v.queue_median == (k->median_ms > 0));
	if (k->median_ms > k->min_ms)
		assert_true(fabs(v.queue_ms - (k->median_ms - k->min_ms)) < 0.001);
	if (k->says)
		assert_non_null(strstr(v.evidence, k->says));
	if (k->never) {
		assert_null(strstr(v.evidence, k->never));
		assert_null(strstr(v.fix, k->never));
	}
	if (k->fix_says)
		assert_non_null(strstr(v.fix, k->fix_says));
	if (k->fix_never)
		assert_null(strstr(v.fix, k->fix_never));
}

/* Every case of a table, in its order. */
static inline void verdict_check_all(const struct verdict_case *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		verdict_check(&k[i]);
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
