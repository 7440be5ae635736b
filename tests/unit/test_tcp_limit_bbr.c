// SPDX-License-Identifier: MIT
/* A BBR sender's loss against the loss-based bound (Mathis et al. 1997):
 * far above it, BBR ran at the bottleneck rate it measured and the loss is
 * no limit, the bottleneck decided as a queue's is; near it, or with a
 * host seen dropping the segments, the loss verdict stands. Each case's
 * cause known by construction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tcp_limit.h"
#include "verdict_fixture.h"

static const struct verdict_case cases[] = {
	/* the lab's 2 % random drop and 1 ms each way under BBR: 1.8 Gbit/s
	 * against about 49 Mbit/s a loss-based control carries there */
	{ "lab's random drop, BBR",
	  1.8e9,
	  9.1,
	  2.0,
	  0.021,
	  { .trial_drop = { .kind = TCP_DROP_NETWORK }, .congestion = "bbr" },
	  TCP_LIMIT_NETWORK_RATE,
	  "a loss-based control would carry about 10.7 Mbit/s at that loss and a 9.10 ms",
	  "where is unknown",
	  "path's rate",
	  "find where" },
	/* BBR through a 300 Mbit/s tbf on a router between two namespaces,
	 * the shaper's drops 3.3 % of the bytes, its queue 4.2 ms over a least
	 * round trip of 16 us (a fresh-clone CI read "loss ... find where"):
	 * the bound at the flow's own round trip, 18.7 Mbit/s; the round trip
	 * median over the test as high (4.3 ms), the queue held throughout */
	{ "BBR at a router's shaper",
	  300e6,
	  4.2,
	  0.016,
	  0.033,
	  { .congestion = "bbr" },
	  TCP_LIMIT_NETWORK_RATE,
	  "a loss-based control would carry about 18.",
	  "where is unknown",
	  "path's rate",
	  "find where",
	  4.3 },
	/* BBR at 20 % resent, 100 Mbit/s: within the loss-based bound's reach
	 * (81 Mbit/s at 0.39 ms), so the loss may be what held it */
	{ "BBR near the loss bound",
	  100e6,
	  0.39,
	  0.3,
	  0.2,
	  { .udp_drop = WIRE_DROP, .congestion = "bbr" },
	  TCP_LIMIT_LOSS,
	  "lost them between the hosts",
	  "BBR sent",
	  "path between the hosts",
	  "-C bbr" },
	/* BBR far above the bound, but a host's TUN seen dropping: that host
	 * is the bottleneck itself, its loss verdict and fix stand */
	{ "BBR, a host's TUN drops",
	  3.8e9,
	  0.39,
	  0.3,
	  0.02,
	  { .udp_drop = TUN_DROP, .congestion = "bbr" },
	  TCP_LIMIT_LOSS,
	  "dropped at the sender's interface (92 % of the drops in this path's UDP trials)",
	  "BBR sent",
	  "wireguard-go",
	  "-C bbr" },
	/* BBR far above the bound, a host's CPU unread: the bottleneck BBR
	 * measured may be a process at a core, so neither is named */
	{ "BBR, a host's CPU unread",
	  3.8e9,
	  0.39,
	  0.3,
	  0.02,
	  { .udp_drop = WIRE_DROP, .congestion = "bbr", .cpu_unknown = FAR },
	  TCP_LIMIT_UNKNOWN,
	  "which is unknown: " FAR,
	  "network rate",
	  NULL,
	  "find where" },
	/* over an overlay whose underlay carried far more: its hosts' */
	{ "BBR, the underlay carried more",
	  2e9,
	  0.39,
	  0.3,
	  0.02,
	  { .udp_drop = WIRE_DROP, .congestion = "bbr", .underlay_bps = 9000000000 },
	  TCP_LIMIT_HOST_CPU,
	  "BBR, not slowed by the 2.0 % of the bytes resent",
	  NULL,
	  "CPU for the overlay's processes",
	  "find where" },
};

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		verdict_check(&cases[i]);
}

/* The bound itself: 1448 B at a 2 ms round trip and 2 % lost carry
 * 1448 * 8 / 0.002 * 1.22 / sqrt(0.02) = 49.97 Mbit/s; none without a
 * loss or a round trip. */
static void test_loss_bound(void **state)
{
	struct tcp_result t;
	struct tcp_limit_ctx c = { .congestion = "bbr" };
	struct tcp_limit_verdict v;

	(void)state;
	tcp(&t, 1.8e9, 2.0, 2.0, 0.02);
	tcp_limit_judge(&t, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);
	assert_non_null(strstr(v.evidence, "about 50 Mbit/s at that loss and a 2.00 ms"));
	/* 4x the bound is the line, no queue to decide it: 199 Mbit/s is
	 * loss, 201 is not */
	tcp(&t, 199e6, 2.0, 2.0, 0.02);
	tcp_limit_judge(&t, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_LOSS);
	tcp(&t, 201e6, 2.0, 2.0, 0.02);
	tcp_limit_judge(&t, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);
	/* the bound at the flow's own (smoothed) round trip, not its least:
	 * 9.1 ms of it through a queue over a least of 2 ms */
	tcp(&t, 1.8e9, 9.1, 2.0, 0.02);
	tcp_limit_judge(&t, &c, &v);
	assert_non_null(strstr(v.evidence, "about 11 Mbit/s at that loss and a 9.10 ms"));
	/* the least where no smoothed one was reported */
	tcp(&t, 1.8e9, 2.0, 0, 0.02);
	tcp_limit_judge(&t, &c, &v);
	assert_non_null(strstr(v.evidence, "a 2.00 ms round trip"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_loss_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
