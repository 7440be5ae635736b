// SPDX-License-Identifier: MIT
/* The queue a TCP verdict reads: the sender's median round trip over the
 * measured window against its least, not one reading at the test's end.
 * A flow held by random loss to a few segments waits on a delayed ACK now
 * and then, which lifts the smoothed round trip for a few round trips; a
 * bottleneck's queue holds it up all through. Figures measured in a lab
 * (ovlperf lab up --drop 2 --delay 1ms; --rate 200M) unless said; BBR at
 * a router's shaper with its median is test_tcp_limit_bbr.c's. */
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
	/* cubic at 2 % random drop, 1 ms each way, beside CPU hogs: the round
	 * trip at the end 7.689 ms over its least 2 ms (a delayed ACK's
	 * sample), its per-50 ms readings' median 2.244 ms (the bytes' median
	 * of 24 runs so: at most 0.28 ms above the least); a fresh-clone CI
	 * read "network rate" from the end's reading */
	{ "cubic at 2 % random drop, a delayed ACK at the end",
	  20.1e6,
	  7.689,
	  2.0,
	  0.0225,
	  { .congestion = "cubic" },
	  TCP_LIMIT_LOSS,
	  NULL,
	  "bottleneck",
	  "-C bbr",
	  NULL,
	  2.244 },
	/* the same, its median 4.9 ms above its least (the most any of 40
	 * runs' readings had was 0.8 ms above it): still loss */
	{ "cubic at 2 % random drop, 4.9 ms above",
	  25e6,
	  7.689,
	  2.0,
	  0.02,
	  { .congestion = "cubic" },
	  TCP_LIMIT_LOSS,
	  NULL,
	  "bottleneck",
	  NULL,
	  NULL,
	  6.9 },
	/* a tbf at 200 Mbit/s: 191 Mbit/s, its bytes' median round trip 4.767
	 * ms (4.807 ms at the end) over a least of 7 us */
	{ "a tbf at 200 Mbit/s",
	  191e6,
	  4.807,
	  0.007,
	  0,
	  { 0 },
	  TCP_LIMIT_NETWORK_RATE,
	  "the median round trip over the test 4.76 ms above its least 0.007 ms (a "
	  "bottleneck's queue)",
	  NULL,
	  "path's rate",
	  NULL,
	  4.767 },
	/* the same from a sender that read no median (a peer's: the server
	 * sent): the one reading at the end, and the evidence says so */
	{ "a tbf at 200 Mbit/s, no median read",
	  191e6,
	  4.807,
	  0.007,
	  0,
	  { 0 },
	  TCP_LIMIT_NETWORK_RATE,
	  "the round trip at the test's end 4.80 ms above its least 0.007 ms",
	  NULL,
	  "path's rate",
	  NULL,
	  0 },
	/* an AQM's queue (the built-in overlay's CoDel, constructed): 1.5 %
	 * dropped early, the round trip 8 ms above its least most of the time but
	 * only 2.8 ms at the end (the queue drained there) */
	{ "CoDel's queue, drained at the end",
	  300e6,
	  3.0,
	  0.2,
	  0.015,
	  { 0 },
	  TCP_LIMIT_NETWORK_RATE,
	  "the median round trip over the test 8.00 ms above",
	  NULL,
	  NULL,
	  NULL,
	  8.2 },
};

static void test_cases(void **state)
{
	(void)state;
	verdict_check_all(cases, sizeof(cases) / sizeof(cases[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
