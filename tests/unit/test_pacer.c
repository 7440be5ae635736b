// SPDX-License-Identifier: MIT
/*
 * The pacer against a fake clock: exact deadlines, rates from 10 Mbit/s to
 * 10 Gbit/s with several batch sizes, a stall that must turn into shortfall
 * instead of a burst, partial sends, unpaced mode and the 99 % rule.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pacer.h"

#define SEC  1000000000ULL
#define MSEC 1000000ULL
#define USEC 1000ULL
#define T0   5000000000ULL /* a start that is not 0, like CLOCK_MONOTONIC */

/* A sender driven by a fake clock. Each send costs cost_ns per datagram;
 * the sender wakes wake_ns after the time it asked for; between stall_at
 * and stall_at + stall_ns it is frozen (descheduled). */
struct sim {
	uint64_t rate, duration, cost_ns, wake_ns, stall_at, stall_ns, tolerance;
	uint32_t len, batch;
	/* out */
	uint64_t sent, max_batch_seen, calls, end_ns;
	uint64_t max_burst_after_stall;
};

static void simulate(struct sim *s, struct pacer *p)
{
	uint64_t now = T0, next;
	bool stalled = false;
	uint32_t n;

	assert_int_equal(pacer_init(p, T0, s->duration, s->rate, s->len, s->tolerance), 0);
	for (;;) {
		if (s->stall_ns && !stalled && now >= T0 + s->stall_at) {
			now += s->stall_ns;
			stalled = true;
			n = pacer_next(p, now, UINT32_MAX, &next);
			s->max_burst_after_stall = n;
		}
		n = pacer_next(p, now, s->batch, &next);
		s->calls++;
		assert_true(n <= s->batch);
		if (n > s->max_batch_seen)
			s->max_batch_seen = n;
		pacer_consume(p, n);
		s->sent += n;
		now += n * s->cost_ns;
		if (next == UINT64_MAX)
			break;
		if (next > now)
			now = next + s->wake_ns;
		assert_true(s->calls < 100000000ULL);
	}
	s->end_ns = now;
}

/* Number of slots in duration at rate for len-byte units, rounding up as the
 * schedule does (slot 0 is at start). */
static uint64_t expected_slots(uint64_t rate, uint32_t len, uint64_t duration)
{
	unsigned __int128 b = (unsigned __int128)len * 8 * SEC;

	return (uint64_t)(((unsigned __int128)duration * rate + b - 1) / b);
}

static void test_exact_deadlines(void **state)
{
	static const struct {
		uint64_t rate;
		uint32_t len;
		uint64_t n, want_ns;
	} cases[] = {
		{ 10000000ULL, 1250, 0, 0 },
		{ 10000000ULL, 1250, 1, 1 * MSEC },
		{ 10000000ULL, 1250, 1000, 1 * SEC },
		{ 1000000000ULL, 1400, 1, 11200 },
		{ 1000000000ULL, 1400, 3, 33600 },
		{ 10000000000ULL, 1400, 1, 1120 },
		/* 3 bit/s with 1-byte units: 8/3 s per slot, floored, no drift */
		{ 3, 1, 1, 2666666666ULL },
		{ 3, 1, 2, 5333333333ULL },
		{ 3, 1, 3, 8 * SEC },
		{ 3, 1, 3000000, 8000000 * SEC },
		/* 7 Gbit/s, 1472 B: 1682.28... ns per slot */
		{ 7000000000ULL, 1472, 1000000, 1682285714ULL },
	};
	struct pacer p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(pacer_init(&p, T0, 0, cases[i].rate, cases[i].len, 0), 0);
		assert_int_equal(pacer_deadline(&p, cases[i].n), T0 + cases[i].want_ns);
	}
}

static void test_first_slot_and_next(void **state)
{
	struct pacer p;
	uint64_t next;

	(void)state;
	assert_int_equal(pacer_init(&p, T0, SEC, 10000000ULL, 1250, 0), 0);
	assert_int_equal(p.total, 1000);
	/* before the start nothing is due */
	assert_int_equal(pacer_next(&p, T0 - 1, 64, &next), 0);
	assert_int_equal(next, T0);
	/* at the start exactly one */
	assert_int_equal(pacer_next(&p, T0, 64, &next), 1);
	assert_int_equal(next, T0 + MSEC);
	/* not consumed: still due */
	assert_int_equal(pacer_next(&p, T0 + 10, 64, &next), 1);
	pacer_consume(&p, 1);
	assert_int_equal(pacer_next(&p, T0 + 10, 64, &next), 0);
	assert_int_equal(next, T0 + MSEC);
	/* 300 us late: 1 due, within tolerance */
	assert_int_equal(pacer_next(&p, T0 + MSEC + 300 * USEC, 64, &next), 1);
	pacer_consume(&p, 1);
	assert_int_equal(p.max_late_ns, 300 * USEC);
	assert_int_equal(p.skipped, 0);
}

/* Rates x batch sizes: every slot sent exactly once, never more than the batch
 * at a time, achieved within 1 % of target, not generator limited. */
static void test_rates_and_batches(void **state)
{
	static const uint64_t rates[] = { 10000000ULL, 100000000ULL, 1000000000ULL, 4000000000ULL,
					  10000000000ULL };
	static const uint32_t batches[] = { 1, 8, 64 };
	static const uint32_t lens[] = { 64, 1400, 8972 };
	size_t r, b, l;

	(void)state;
	for (r = 0; r < 5; r++)
		for (b = 0; b < 3; b++)
			for (l = 0; l < 3; l++) {
				struct sim s = { .rate = rates[r],
						 .len = lens[l],
						 .batch = batches[b],
						 .duration = 100 * MSEC,
						 .wake_ns = 2 * USEC };
				struct pacer p;
				uint64_t want = expected_slots(s.rate, s.len, s.duration);
				uint64_t got_bps;

				simulate(&s, &p);
				assert_int_equal(s.sent, want);
				assert_int_equal(p.sent, want);
				assert_int_equal(p.skipped, 0);
				assert_int_equal(pacer_shortfall(&p, T0 + s.duration), 0);
				assert_true(s.max_batch_seen <= s.batch);
				got_bps = pacer_rate_bps(s.sent, s.len, s.duration);
				assert_false(pacer_generator_limited(s.rate, got_bps));
				assert_true(pacer_done(&p));
			}
}

/* A 50 ms stall at 1 Gbit/s: the pacer must not send the 4464 missed slots
 * in a burst; at most the tolerance's worth, and the rest is shortfall. */
static void test_stall_is_shortfall_not_burst(void **state)
{
	struct sim s = { .rate = 1000000000ULL,
			 .len = 1400,
			 .batch = 1024,
			 .duration = 1 * SEC,
			 .stall_at = 100 * MSEC,
			 .stall_ns = 50 * MSEC,
			 .tolerance = 500 * USEC };
	uint64_t want = expected_slots(s.rate, s.len, s.duration);
	uint64_t per_tol = 500 * USEC * s.rate / (s.len * 8ULL * SEC) + 1;
	struct pacer p;

	(void)state;
	simulate(&s, &p);
	assert_true(s.max_burst_after_stall <= per_tol);
	assert_true(s.max_burst_after_stall >= per_tol - 1);
	assert_int_equal(p.stalls, 1);
	/* 50 ms at 11.2 us per slot, minus the tolerance's slots */
	assert_in_range(p.skipped, 4464 - per_tol - 1, 4464 - per_tol + 1);
	assert_int_equal(p.sent + p.skipped, want);
	assert_int_equal(pacer_shortfall(&p, T0 + s.duration), p.skipped);
	assert_true(pacer_generator_limited(s.rate, pacer_rate_bps(p.sent, s.len, s.duration)));
	/* the schedule moved on: the slot after the stall is the one due then */
	assert_true(p.max_late_ns <= 500 * USEC);
}

/* A sender slower than the rate: slots fall behind by more than the
 * tolerance and are skipped continually; achieved is what the sender can. */
static void test_slow_sender(void **state)
{
	/* 10 Gbit/s of 1400 B needs 1.12 us per datagram; this one takes 2 us */
	struct sim s = { .rate = 10000000000ULL,
			 .len = 1400,
			 .batch = 64,
			 .duration = 100 * MSEC,
			 .cost_ns = 2000,
			 .tolerance = 200 * USEC };
	struct pacer p;
	uint64_t bps;

	(void)state;
	simulate(&s, &p);
	bps = pacer_rate_bps(p.sent, s.len, s.duration);
	assert_true(p.skipped > 0);
	assert_true(pacer_generator_limited(s.rate, bps));
	/* 1400 B every 2 us = 5.6 Gbit/s, within 2 % */
	assert_in_range(bps, 5488000000ULL, 5712000000ULL);
	assert_int_equal(p.sent + p.skipped, expected_slots(s.rate, s.len, s.duration));
}

static void test_batch_cap_and_partial_send(void **state)
{
	struct pacer p;
	uint64_t next;

	(void)state;
	/* 10 us per slot; 200 us late: 21 due (slots 0..20) */
	assert_int_equal(pacer_init(&p, T0, SEC, 1000000000ULL, 1250, 0), 0);
	assert_int_equal(pacer_next(&p, T0 + 200 * USEC, 8, &next), 8);
	assert_int_equal(next, T0 + 200 * USEC); /* more are due now */
	pacer_consume(&p, 3);			 /* the socket took only 3 */
	assert_int_equal(p.sent, 3);
	assert_int_equal(pacer_next(&p, T0 + 200 * USEC, 64, &next), 18);
	assert_int_equal(next, T0 + 210 * USEC);
	/* consuming more than due is clamped */
	pacer_consume(&p, 100);
	assert_int_equal(p.sent, 21);
	assert_int_equal(pacer_scheduled(&p, T0 + 200 * USEC), 20);
	assert_int_equal(pacer_scheduled(&p, T0 + 200 * USEC + 1), 21);
	assert_int_equal(pacer_shortfall(&p, T0 + 200 * USEC + 1), 0);
	/* then stuck for 2 ms: slots later than 500 us skipped */
	assert_int_equal(pacer_next(&p, T0 + 2200 * USEC, 1000, &next), 51);
	assert_int_equal(p.skipped, 149); /* slots 21..169: deadline < 1700 us */
	assert_int_equal(pacer_shortfall(&p, T0 + 2200 * USEC + 1), 200);
}

static void test_end_of_schedule(void **state)
{
	struct pacer p;
	uint64_t next;

	(void)state;
	assert_int_equal(pacer_init(&p, T0, 10 * MSEC, 10000000ULL, 1250, 20 * MSEC), 0);
	assert_int_equal(p.total, 10);
	assert_int_equal(pacer_next(&p, T0 + 9 * MSEC, 64, &next), 10);
	assert_int_equal(next, UINT64_MAX);
	pacer_consume(&p, 10);
	assert_true(pacer_done(&p));
	assert_int_equal(pacer_next_deadline(&p), UINT64_MAX);
	assert_int_equal(pacer_next(&p, T0 + 20 * MSEC, 64, &next), 0);
	assert_int_equal(next, UINT64_MAX);
	assert_int_equal(pacer_shortfall(&p, T0 + 20 * MSEC), 0);
	/* a slot exactly at the end time is not part of the schedule */
	assert_int_equal(pacer_init(&p, T0, 10 * MSEC + 1, 10000000ULL, 1250, 0), 0);
	assert_int_equal(p.total, 11);
}

static void test_unpaced(void **state)
{
	struct pacer p;
	uint64_t next;

	(void)state;
	assert_int_equal(pacer_init(&p, T0, SEC, 0, 1400, 0), 0);
	assert_int_equal(pacer_next(&p, T0, 32, &next), 32);
	assert_int_equal(next, T0);
	pacer_consume(&p, 20);
	assert_int_equal(p.sent, 20);
	assert_int_equal(pacer_next(&p, T0 + SEC, 32, &next), 0);
	assert_int_equal(next, UINT64_MAX);
	assert_int_equal(pacer_shortfall(&p, T0 + SEC), 0);
}

static void test_init_rejects(void **state)
{
	struct pacer p;

	(void)state;
	assert_int_equal(pacer_init(&p, T0, SEC, 1000, 0, 0), -EINVAL);
	assert_int_equal(pacer_init(&p, T0, SEC, 1000, PACER_MAX_UNIT + 1, 0), -EINVAL);
	assert_int_equal(pacer_init(&p, T0, SEC, PACER_MAX_RATE + 1, 1400, 0), -EINVAL);
	/* a duration that overflows the clock is open-ended, not a wrap */
	assert_int_equal(pacer_init(&p, UINT64_MAX - 10, SEC, 1000000, 1400, 0), 0);
	assert_int_equal(p.end_ns, UINT64_MAX);
}

static void test_generator_limited(void **state)
{
	static const struct {
		uint64_t target, achieved;
		bool limited;
	} cases[] = {
		{ 0, 0, false },
		{ 1000, 1000, false },
		{ 1000, 990, false },
		{ 1000, 989, true },
		{ 1000000000ULL, 990000000ULL, false },
		{ 1000000000ULL, 989999999ULL, true },
		{ UINT64_MAX, UINT64_MAX, false },
		{ UINT64_MAX, 0, true },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(pacer_generator_limited(cases[i].target, cases[i].achieved),
				 cases[i].limited);
	assert_int_equal(pacer_rate_bps(1000, 1250, SEC), 10000000ULL);
	assert_int_equal(pacer_rate_bps(1000, 1250, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_deadlines),
		cmocka_unit_test(test_first_slot_and_next),
		cmocka_unit_test(test_rates_and_batches),
		cmocka_unit_test(test_stall_is_shortfall_not_burst),
		cmocka_unit_test(test_slow_sender),
		cmocka_unit_test(test_batch_cap_and_partial_send),
		cmocka_unit_test(test_end_of_schedule),
		cmocka_unit_test(test_unpaced),
		cmocka_unit_test(test_init_rejects),
		cmocka_unit_test(test_generator_limited),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
