// SPDX-License-Identifier: MIT
/*
 * owd_clock (include/load/owd_clock.h): one clock or an estimated offset from
 * timed echoes, and the shift that makes every reported one-way delay an
 * upper bound within the echo's round trip. The property is checked over
 * many simulated hosts: true offsets either way (up to 1000 days), echo stamps
 * anywhere inside the round trip, both roles.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "owd_clock.h"

static void test_shared(void **state)
{
	struct owd_clock c;

	(void)state;
	owd_clock_init(&c);
	assert_false(owd_clock_usable(&c));
	assert_int_equal(owd_clock_shift(&c, true), 0);
	owd_clock_add(&c, &(struct owd_clock_sample){ .t0 = 1000, .t1 = 1400, .peer_ns = 1000 });
	owd_clock_add(&c, &(struct owd_clock_sample){ .t0 = 2000, .t1 = 2100, .peer_ns = 2100 });
	assert_true(owd_clock_usable(&c));
	assert_true(c.shared);
	assert_int_equal(owd_clock_shift(&c, true), 0);
	assert_int_equal(owd_clock_shift(&c, false), 0);
	assert_int_equal(owd_clock_error(&c), 0);
	/* one stamp outside its round trip: not one clock */
	owd_clock_add(&c, &(struct owd_clock_sample){ .t0 = 3000, .t1 = 3100, .peer_ns = 3101 });
	assert_false(c.shared);
}

static void test_best_sample(void **state)
{
	struct owd_clock c;

	(void)state;
	owd_clock_init(&c);
	/* peer 5 s ahead; round trips 400, 100 (kept), 300 ns */
	owd_clock_add(&c, &(struct owd_clock_sample){ .t0 = 0, .t1 = 400, .peer_ns = 5000000100 });
	owd_clock_add(&c,
		      &(struct owd_clock_sample){ .t0 = 1000, .t1 = 1100, .peer_ns = 5000001060 });
	owd_clock_add(&c,
		      &(struct owd_clock_sample){ .t0 = 2000, .t1 = 2300, .peer_ns = 5000002000 });
	assert_false(c.shared);
	assert_int_equal(c.samples, 3);
	assert_int_equal(c.offset_ns, 5000000010); /* 5000001060 - 1050 */
	assert_int_equal(c.error_ns, 50);
	assert_int_equal(owd_clock_error(&c), 100);
	assert_int_equal(owd_clock_shift(&c, true), 5000000010 - 50);
	assert_int_equal(owd_clock_shift(&c, false), -5000000010 - 50);
	/* a sample from before the echo was sent is ignored */
	owd_clock_add(&c, &(struct owd_clock_sample){ .t0 = 10, .t1 = 5, .peer_ns = 1 });
	assert_int_equal(c.samples, 3);
}

static void test_peer_behind(void **state)
{
	struct owd_clock c;

	(void)state;
	owd_clock_init(&c);
	/* the peer's clock reads 3000 s less than ours */
	owd_clock_add(&c, &(struct owd_clock_sample){ .t0 = 4000000000000,
						      .t1 = 4000000000200,
						      .peer_ns = 1000000000100 });
	assert_int_equal(c.offset_ns, -3000000000000LL);
	assert_int_equal(owd_clock_shift(&c, true), -3000000000000LL - 100);
	assert_int_equal(owd_clock_shift(&c, false), 3000000000000LL - 100);
}

/* Deterministic generator for the simulation. */
static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s ^ (*s >> 29); /* all 64 bits, the low ones mixed */
}

/* Simulated hosts: ours at time C, the peer's at C + theta. Echoes with a
 * random round trip, stamped anywhere inside it; then datagrams with a true
 * one-way delay d, both directions. Every reported delay must be in
 * [d, d + owd_clock_error()]. */
static void test_upper_bound_property(void **state)
{
	uint64_t seed = 42;

	(void)state;
	for (int run = 0; run < 20000; run++) {
		/* uptimes that differ by up to 1000 days either way */
		uint64_t span = 1000ULL * 86400 * 1000000000ULL;
		int64_t theta = (int64_t)(rnd(&seed) % (2 * span)) - (int64_t)span;
		uint64_t base = span + rnd(&seed) % 1000000000000ULL;
		unsigned n = 1 + (unsigned)(rnd(&seed) % 4);
		struct owd_clock c;

		owd_clock_init(&c);
		for (unsigned i = 0; i < n; i++) {
			uint64_t t0 = base + i * 1000000, rtt = 1 + rnd(&seed) % 5000000;
			uint64_t at = t0 + rnd(&seed) % (rtt + 1);

			owd_clock_add(&c, &(struct owd_clock_sample){
						  .t0 = t0,
						  .t1 = t0 + rtt,
						  .peer_ns = (uint64_t)((int64_t)at + theta) });
		}
		for (int k = 0; k < 4; k++) {
			uint64_t d = rnd(&seed) % 200000000,
				 send = base + 10000000 + rnd(&seed) % 1000000;
			uint64_t err = owd_clock_error(&c);
			/* we send: the peer receives at (send + d) on its clock */
			uint64_t stamp = send + (uint64_t)owd_clock_shift(&c, true);
			uint64_t fwd = (uint64_t)((int64_t)(send + d) + theta) - stamp;
			/* the peer sends at its clock's (send + theta); we receive at send + d */
			uint64_t read = (uint64_t)((int64_t)send + theta) +
					(uint64_t)owd_clock_shift(&c, false);
			uint64_t rev = send + d - read;

			if (theta == 0 && c.shared)
				err = 0;
			if (fwd < d || fwd > d + err || rev < d || rev > d + err)
				fail_msg("run %d: theta %lld d %llu err %llu: forward %llu reverse "
					 "%llu",
					 run, (long long)theta, (unsigned long long)d,
					 (unsigned long long)err, (unsigned long long)fwd,
					 (unsigned long long)rev);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared),
		cmocka_unit_test(test_best_sample),
		cmocka_unit_test(test_peer_behind),
		cmocka_unit_test(test_upper_bound_property),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
