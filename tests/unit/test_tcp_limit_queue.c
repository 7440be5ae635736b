// SPDX-License-Identifier: MIT
/* The queue a TCP verdict reads: the sender's round trip averaged over the
 * measured window against its least, not one reading at the test's end.
 * A flow held by random loss to a few segments waits on a delayed ACK now
 * and then, which lifts the smoothed round trip for a few round trips; a
 * bottleneck's queue holds it up all through. Figures measured in a lab
 * (ovlperf lab up --drop 2 --delay 1ms; --rate 200M) unless said. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tcp_limit.h"
#include "verdict_fixture.h"

/* A verdict's case with the round trip averaged over the test (ms; 0: the
 * sender did not read it, a peer's) beside the one at its end. */
struct queue_case {
	struct verdict_case k;
	double mean_ms;
};

static const struct queue_case cases[] = {
	/* cubic at 2 % random drop, 1 ms each way, beside CPU hogs: the round
	 * trip at the end 7.689 ms over its least 2 ms (a delayed ACK's
	 * sample), its per-50 ms readings' mean 2.663 ms; a fresh-clone CI
	 * read "network rate" from the end's reading */
	{ { "cubic at 2 % random drop, a delayed ACK at the end",
	    20.1e6,
	    7.689,
	    2.0,
	    0.0225,
	    { .congestion = "cubic" },
	    TCP_LIMIT_LOSS,
	    NULL,
	    "bottleneck",
	    "-C bbr",
	    NULL },
	  2.663 },
	/* the same, the round trip 5 ms above its least on average (the most
	 * a run's readings averaged was 2.1 ms above it): still loss */
	{ { "cubic at 2 % random drop, 5 ms above on average",
	    25e6,
	    7.689,
	    2.0,
	    0.02,
	    { .congestion = "cubic" },
	    TCP_LIMIT_LOSS,
	    NULL,
	    "bottleneck",
	    NULL,
	    NULL },
	  6.9 },
	/* a tbf at 200 Mbit/s: 191 Mbit/s, its queue 4.85 ms on average
	 * (4.92 ms at the end) over a least of 10 us */
	{ { "a tbf at 200 Mbit/s",
	    191e6,
	    4.933,
	    0.010,
	    0,
	    { 0 },
	    TCP_LIMIT_NETWORK_RATE,
	    "the round trip averaged over the test 4.85 ms above its least 0.010 ms (a "
	    "bottleneck's queue)",
	    NULL,
	    "path's rate",
	    NULL },
	  4.862 },
	/* an AQM's queue (the built-in overlay's CoDel, constructed): 1.5 %
	 * dropped early, the round trip 8 ms above its least on average but
	 * only 2.8 ms at the end (the queue drained there) */
	{ { "CoDel's queue, drained at the end",
	    300e6,
	    3.0,
	    0.2,
	    0.015,
	    { 0 },
	    TCP_LIMIT_NETWORK_RATE,
	    "the round trip averaged over the test 8.00 ms above",
	    NULL,
	    NULL,
	    NULL },
	  8.2 },
	/* BBR at a router's shaper (test_tcp_limit_bbr.c's), its queue 4.2
	 * ms all through: still the network's rate */
	{ { "BBR at a router's shaper",
	    300e6,
	    4.2,
	    0.016,
	    0.033,
	    { .congestion = "bbr" },
	    TCP_LIMIT_NETWORK_RATE,
	    NULL,
	    "where is unknown",
	    "path's rate",
	    "find where" },
	  4.3 },
};

static void check(const struct queue_case *q)
{
	const struct verdict_case *k = &q->k;
	struct tcp_result t;
	struct tcp_limit_verdict v;

	tcp(&t, k->bps, k->rtt_ms, k->min_ms, k->resent);
	t.sender_limits.rtt_mean_us = (uint32_t)(q->mean_ms * 1e3 + 0.5);
	tcp_limit_judge(&t, &k->c, &v);
	print_message("%s: %s: %s; fix: %s\n", k->name, tcp_limit_name(v.limit), v.evidence, v.fix);
	assert_int_equal(v.limit, k->want);
	assert_true(v.queue_mean);
	assert_true(v.queue_ms > q->mean_ms - k->min_ms - 0.001 &&
		    v.queue_ms < q->mean_ms - k->min_ms + 0.001);
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

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(&cases[i]);
}

/* A sender that read no mean (a peer's: the server sent): the one reading
 * at the end, and the evidence says it is that one. */
static void test_end_reading(void **state)
{
	struct tcp_result t;
	const struct tcp_limit_ctx c = { 0 };
	struct tcp_limit_verdict v;

	(void)state;
	tcp(&t, 191e6, 4.933, 0.010, 0);
	tcp_limit_judge(&t, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);
	assert_false(v.queue_mean);
	assert_true(v.queue_ms > 4.922 && v.queue_ms < 4.924);
	assert_non_null(strstr(v.evidence, "the round trip at the test's end 4.92 ms above"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_end_reading),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
