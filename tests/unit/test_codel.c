// SPDX-License-Identifier: MIT
/*
 * The receive queue's policy (codel.h) with a fake clock: no drop below
 * target or for a burst shorter than an interval; the first drop exactly
 * one interval after the sojourn went above target; drops that come closer
 * together (interval/sqrt(count)) while the queue stands; leaving the
 * dropping state as soon as the sojourn is below target; and a simulated
 * FIFO served slower than it fills, where the policy keeps the sojourn near
 * its limit without ever reordering what it keeps. The histogram's buckets and
 * quantiles, the receive timestamp's parser and the statistics too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "codel.h"
#include "rxq.h"
#include "sockopt.h"

#define MS 1000000ull
#define US 1000ull

static struct codel fresh(void)
{
	struct codel c;

	codel_init(&c, 1 * MS, 20 * MS, 0);
	return c;
}

static void test_below_target_never(void **state)
{
	struct codel c = fresh();

	(void)state;
	for (uint64_t t = 0; t < 5000 * MS; t += 10 * US)
		assert_int_equal(CODEL_PASS, codel_drop(&c, 999 * US, t));
}

static void test_short_burst_never(void **state)
{
	struct codel c = fresh();
	uint64_t t = 1000 * MS;

	(void)state;
	/* 19.9 ms above target, then below: not a standing queue. */
	for (uint64_t d = 0; d < 19900 * US; d += 100 * US)
		assert_int_equal(CODEL_PASS, codel_drop(&c, 8 * MS, t + d));
	assert_int_equal(CODEL_PASS, codel_drop(&c, 100 * US, t + 20 * MS));
	for (uint64_t d = 0; d < 19900 * US; d += 100 * US)
		assert_int_equal(CODEL_PASS, codel_drop(&c, 8 * MS, t + 30 * MS + d));
}

static void test_first_drop_after_interval(void **state)
{
	struct codel c = fresh();
	uint64_t t0 = 500 * MS;

	(void)state;
	assert_int_equal(CODEL_PASS, codel_drop(&c, 2 * MS, t0));
	assert_int_equal(CODEL_PASS, codel_drop(&c, 2 * MS, t0 + 20 * MS - 1));
	assert_int_equal(CODEL_DROP, codel_drop(&c, 2 * MS, t0 + 20 * MS));
	/* The next one waits interval/sqrt(1) = 20 ms. */
	assert_int_equal(CODEL_PASS, codel_drop(&c, 2 * MS, t0 + 21 * MS));
	assert_int_equal(CODEL_PASS, codel_drop(&c, 2 * MS, t0 + 40 * MS - 1));
	assert_int_equal(CODEL_DROP, codel_drop(&c, 2 * MS, t0 + 40 * MS));
}

static void test_drops_come_closer(void **state)
{
	struct codel c = fresh();
	uint64_t last = 0, gap_prev = UINT64_MAX, t;
	unsigned drops = 0;

	(void)state;
	for (t = 0; t < 400 * MS && drops < 12; t += 10 * US) {
		if (codel_drop(&c, 5 * MS, t) == CODEL_PASS)
			continue;
		if (drops >= 1) {
			uint64_t gap = t - last;

			assert_true(gap <= gap_prev);
			/* interval/sqrt(count) of the count before this drop, to the step */
			uint64_t want = (uint64_t)(20.0 * MS / __builtin_sqrt((double)drops));

			assert_true(gap + 10 * US >= want && gap <= want + 10 * US);
			gap_prev = gap;
		}
		last = t;
		drops++;
	}
	assert_int_equal(drops, 12);
}

static void test_leaves_dropping_below_target(void **state)
{
	struct codel c = fresh();
	uint64_t t;

	(void)state;
	for (t = 0; t <= 20 * MS; t += 100 * US)
		(void)codel_drop(&c, 3 * MS, t);
	assert_true(c.dropping);
	assert_int_equal(CODEL_PASS, codel_drop(&c, 10 * US, t));
	assert_false(c.dropping);
	/* Back above: a new interval must pass first. */
	assert_int_equal(CODEL_PASS, codel_drop(&c, 3 * MS, t + 100 * US));
	assert_int_equal(CODEL_PASS, codel_drop(&c, 3 * MS, t + 20 * MS));
}

static void test_off(void **state)
{
	struct codel c;

	(void)state;
	codel_init(&c, 0, 20 * MS, 0);
	for (uint64_t t = 0; t < 1000 * MS; t += 100 * US)
		assert_int_equal(CODEL_PASS, codel_drop(&c, 900 * MS, t));
}

/* Arrivals every 9 us, service every 10 us (11 % too much), as from a UDP
 * load offered above what the overlay carries: without a limit the wait
 * grows by a ms every 10 ms. Returns the largest sojourn served after the
 * first 2 s; *dropped counts the drops. Checks the order of what is kept. */
static uint64_t serve_overload(struct codel *c, uint64_t *dropped)
{
	enum { N = 400000 };
	uint64_t late_max = 0, t = 0;
	size_t head = 0, last = 0;
	bool any = false;

	*dropped = 0;
	while (head < N) {
		uint64_t arrival = head * 9 * US;

		if (arrival > t)
			t = arrival;
		if (codel_drop(c, t - arrival, t) != CODEL_PASS) {
			head++;
			(*dropped)++;
			continue; /* a drop costs no service time */
		}
		assert_true(!any || head > last);
		any = true;
		last = head;
		if (t > 2000 * MS && t - arrival > late_max)
			late_max = t - arrival;
		head++;
		t += 10 * US;
	}
	return late_max;
}

static void test_fifo_overload(void **state)
{
	struct codel c;
	uint64_t dropped, late;

	(void)state;
	/* CoDel alone drops, but too gently for a sender that does not slow
	 * down: the wait keeps growing. This is why the limit exists. */
	codel_init(&c, 1 * MS, 20 * MS, 0);
	late = serve_overload(&c, &dropped);
	assert_true(dropped > 0);
	assert_true(late > 50 * MS);
	/* With the limit the wait is bounded by it, and the drops are the
	 * excess (about 10 % of arrivals), not more than twice that. */
	codel_init(&c, 1 * MS, 20 * MS, 5 * MS);
	late = serve_overload(&c, &dropped);
	assert_true(late <= 5 * MS);
	assert_true(dropped > 400000 / 20 && dropped < 400000 / 5);
}

static void test_hist(void **state)
{
	uint64_t h[CODEL_HIST_BUCKETS] = { 0 };

	(void)state;
	assert_int_equal(codel_hist_bucket(0), 0);
	assert_int_equal(codel_hist_bucket(1999), 0);
	assert_int_equal(codel_hist_bucket(2 * US), 1);
	assert_int_equal(codel_hist_bucket(4 * US), 2);
	assert_int_equal(codel_hist_bucket(1000 * US), 9); /* [512, 1024) us */
	assert_int_equal(codel_hist_bucket(1024 * US), 10);
	assert_int_equal(codel_hist_bucket(UINT64_MAX), CODEL_HIST_BUCKETS - 1);
	assert_int_equal(codel_hist_upper_us(9), 1024);
	assert_int_equal(codel_hist_quantile_us(h, 0.99), 0);
	h[2] = 99;
	h[10] = 1;
	assert_int_equal(codel_hist_quantile_us(h, 0.5), 8);
	assert_int_equal(codel_hist_quantile_us(h, 0.99), 8);
	assert_int_equal(codel_hist_quantile_us(h, 1.0), 2048);
}

/* sockopt_rx_stamp: the timestamp after another control message, a truncated
 * one, a cmsg_len that points past the buffer, none at all. */
static void test_stamp(void **state)
{
	union {
		uint8_t b[128];
		struct cmsghdr align;
	} u;
	struct cmsghdr *c;
	struct timespec ts = { .tv_sec = 1700000000, .tv_nsec = 123456789 };
	int gso = 1400;
	uint64_t ns = 0;
	size_t len;

	(void)state;
	memset(&u, 0, sizeof(u));
	c = (struct cmsghdr *)u.b;
	c->cmsg_level = SOL_UDP;
	c->cmsg_type = UDP_GRO;
	c->cmsg_len = CMSG_LEN(sizeof(gso));
	memcpy(CMSG_DATA(c), &gso, sizeof(gso));
	c = (struct cmsghdr *)(u.b + CMSG_SPACE(sizeof(gso)));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_TIMESTAMPNS;
	c->cmsg_len = CMSG_LEN(sizeof(ts));
	memcpy(CMSG_DATA(c), &ts, sizeof(ts));
	len = CMSG_SPACE(sizeof(gso)) + CMSG_SPACE(sizeof(ts));
	assert_true(sockopt_rx_stamp(u.b, len, &ns));
	assert_int_equal(ns, 1700000000123456789ull);
	assert_false(sockopt_rx_stamp(u.b, CMSG_SPACE(sizeof(gso)) + 8, &ns));
	assert_false(sockopt_rx_stamp(u.b, CMSG_SPACE(sizeof(gso)), &ns));
	assert_false(sockopt_rx_stamp(NULL, 0, &ns));
	c->cmsg_len = 4096;
	assert_false(sockopt_rx_stamp(u.b, len, &ns));
}

static void test_record(void **state)
{
	static struct rxq_stats s;
	struct rxq_batch b = { 0 };

	(void)state;
	rxq_record(&b, 3 * US, 2);
	rxq_flush(&s, &b);
	assert_int_equal(b.samples, 0);
	rxq_record(&b, 40 * MS, 1);
	rxq_flush(&s, &b);
	assert_int_equal(atomic_load(&s.samples), 3);
	assert_int_equal(atomic_load(&s.max_ns), 40 * MS);
	assert_int_equal(atomic_load(&s.hist[1]), 2);
	assert_int_equal(rxq_mean_ns(&s), (6 * US + 40 * MS) / 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_below_target_never),
		cmocka_unit_test(test_short_burst_never),
		cmocka_unit_test(test_first_drop_after_interval),
		cmocka_unit_test(test_drops_come_closer),
		cmocka_unit_test(test_leaves_dropping_below_target),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_fifo_overload),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_stamp),
		cmocka_unit_test(test_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
