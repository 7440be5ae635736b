// SPDX-License-Identifier: MIT
/*
 * Handshake rate limits: per peer at most RATELIMIT_PEER_PER_SEC (spacing,
 * a clock going backwards refused), per source a token bucket (burst, then
 * the steady rate), sources independent, IPv6 limited per /64.
 */
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "clock.h"
#include "ratelimit.h"

#define T0 (50 * NSEC_PER_SEC)

static void test_peer(void **state)
{
	struct ratelimit_peer rl = { 0 };
	uint64_t gap = NSEC_PER_SEC / RATELIMIT_PEER_PER_SEC;

	(void)state;
	assert_true(ratelimit_peer_allow(&rl, T0));
	assert_false(ratelimit_peer_allow(&rl, T0 + gap - 1));
	assert_false(ratelimit_peer_allow(&rl, T0 - 1));
	assert_true(ratelimit_peer_allow(&rl, T0 + gap));
	/* One second holds exactly RATELIMIT_PEER_PER_SEC. */
	{
		unsigned n = 0;

		for (uint64_t t = T0 + 10 * NSEC_PER_SEC; t < T0 + 11 * NSEC_PER_SEC;
		     t += NSEC_PER_MSEC)
			n += ratelimit_peer_allow(&rl, t);
		assert_int_equal(n, RATELIMIT_PEER_PER_SEC);
	}
}

static struct sockaddr_in v4(uint32_t a)
{
	struct sockaddr_in s = { .sin_family = AF_INET, .sin_port = htons(9) };

	s.sin_addr.s_addr = htonl(a);
	return s;
}

static void test_source(void **state)
{
	struct ratelimit *rl = malloc(sizeof(*rl));
	struct sockaddr_in a = v4(0xc6120001), b = v4(0xc6120002);
	struct sockaddr_in6 x = { .sin6_family = AF_INET6 }, y;
	unsigned n = 0;

	(void)state;
	assert_int_equal(ratelimit_init(rl), 0);
	/* Burst, then refused. */
	for (int i = 0; i < RATELIMIT_SOURCE_BURST; i++)
		assert_true(ratelimit_allow(rl, (struct sockaddr *)&a, sizeof(a), T0));
	assert_false(ratelimit_allow(rl, (struct sockaddr *)&a, sizeof(a), T0));
	/* Another source is unaffected (unless it shares a bucket: astronomically rare here). */
	assert_true(ratelimit_allow(rl, (struct sockaddr *)&b, sizeof(b), T0));
	/* The steady rate over ten seconds, one attempt per millisecond. */
	for (uint64_t t = T0 + 1; t <= T0 + 10 * NSEC_PER_SEC; t += NSEC_PER_MSEC)
		n += ratelimit_allow(rl, (struct sockaddr *)&a, sizeof(a), t);
	assert_true(n >= 10 * RATELIMIT_SOURCE_PER_SEC - 1 &&
		    n <= 10 * RATELIMIT_SOURCE_PER_SEC + 1);
	/* IPv6: the same /64 shares a bucket, another /64 does not. */
	x.sin6_addr.s6_addr[0] = 0x20;
	x.sin6_addr.s6_addr[1] = 0x01;
	x.sin6_addr.s6_addr[3] = 0x02;
	y = x;
	y.sin6_addr.s6_addr[15] = 0x77;
	for (int i = 0; i < RATELIMIT_SOURCE_BURST; i++)
		assert_true(ratelimit_allow(rl, (struct sockaddr *)&x, sizeof(x), T0));
	assert_false(ratelimit_allow(rl, (struct sockaddr *)&y, sizeof(y), T0));
	y.sin6_addr.s6_addr[7] = 1;
	assert_true(ratelimit_allow(rl, (struct sockaddr *)&y, sizeof(y), T0));
	ratelimit_destroy(rl);
	free(rl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peer),
		cmocka_unit_test(test_source),
	};

	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
