// SPDX-License-Identifier: MIT
/*
 * link_model.c with fixed seeds over 1e6 packets: random loss within the
 * binomial 99 % interval, Gilbert-Elliott bursts of mean length 1/r and a
 * loss share of p/(p+r), jitter that never reorders when reorder is 0 and
 * whose delays are uniform in delay +/- jitter, the reorder share as set and
 * its packets undelayed, the rate's serialization clock and backlog bound,
 * and the queue bounds that hold the bandwidth-delay product.
 */
#define _GNU_SOURCE /* link_int.h: struct mmsghdr */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "link_int.h"

#define N    1000000
#define MS   1000000ULL
#define Z99  2.5758 /* two-sided 99 % */
#define SEED 0x5eed

/* k successes of n within the binomial 99 % interval of probability p */
static void assert_binomial(uint64_t k, uint64_t n, double p)
{
	double half = Z99 * sqrt((double)n * p * (1 - p));

	if (fabs((double)k - (double)n * p) > half)
		fail_msg("%llu of %llu: outside %.0f +/- %.0f", (unsigned long long)k,
			 (unsigned long long)n, (double)n * p, half);
}

static void test_random_loss(void **state)
{
	static const uint32_t ppm[] = { 10000, 100000, 500, 1 };

	(void)state;
	for (size_t i = 0; i < sizeof(ppm) / sizeof(ppm[0]); i++) {
		struct link_dir_conf c = { .loss_ppm = ppm[i] };
		struct link_model m;
		uint64_t lost = 0;

		link_model_init(&m, &c, SEED + i, 0, 0);
		for (int k = 0; k < N; k++) {
			enum link_loss l = link_model_loss(&m);

			assert_true(l != LINK_LOST_BURST);
			lost += l == LINK_LOST_RANDOM;
		}
		assert_binomial(lost, N, ppm[i] / 1e6);
	}
}

static void test_no_loss_no_draw(void **state)
{
	struct link_dir_conf c = { 0 };
	struct link_model m;

	(void)state;
	link_model_init(&m, &c, SEED, 0, 0);
	for (int k = 0; k < 1000; k++)
		assert_int_equal(link_model_loss(&m), LINK_KEEP);
	c.loss_ppm = LINK_PPM;
	link_model_init(&m, &c, SEED, 0, 0);
	for (int k = 0; k < 1000; k++)
		assert_int_equal(link_model_loss(&m), LINK_LOST_RANDOM);
}

static void test_gilbert_elliott(void **state)
{
	static const struct {
		uint32_t p, r;
	} cases[] = { { 10000, 200000 }, { 50000, 500000 }, { 1000, 100000 } };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct link_dir_conf c = { .ge_p_ppm = cases[i].p, .ge_r_ppm = cases[i].r };
		double p = cases[i].p / 1e6, r = cases[i].r / 1e6;
		uint64_t lost = 0, bursts = 0;
		bool in_burst = false;
		struct link_model m;
		double mean_len, share;

		link_model_init(&m, &c, SEED + i, 1, 0);
		for (int k = 0; k < N; k++) {
			enum link_loss l = link_model_loss(&m);

			assert_true(l != LINK_LOST_RANDOM);
			if (l == LINK_LOST_BURST) {
				lost++;
				bursts += !in_burst;
			}
			in_burst = l == LINK_LOST_BURST;
		}
		mean_len = (double)lost / (double)bursts;
		share = (double)lost / N;
		/* burst lengths are geometric: sd sqrt(1-r)/r, over `bursts` bursts */
		if (fabs(mean_len - 1 / r) > 4 * sqrt(1 - r) / r / sqrt((double)bursts))
			fail_msg("p %g r %g: mean burst %.3f, expected %.3f", p, r, mean_len,
				 1 / r);
		if (fabs(share - p / (p + r)) > 0.05 * p / (p + r))
			fail_msg("p %g r %g: loss share %.5f, expected %.5f", p, r, share,
				 p / (p + r));
	}
}

static void test_jitter_keeps_order(void **state)
{
	struct link_dir_conf c = { .delay_ns = 10 * MS, .jitter_ns = 5 * MS };
	struct link_model m;
	uint64_t prev = 0, now = 1000 * MS;
	unsigned clamped = 0;

	(void)state;
	link_model_init(&m, &c, SEED, 0, 0);
	for (int k = 0; k < N; k++, now += 10000) { /* 10 us apart: far denser than the jitter */
		struct link_due d;

		assert_true(link_model_due(&m, now, 100, &d));
		assert_true(d.due_ns >= prev);
		assert_false(d.reordered);
		assert_true(d.due_ns >= now + 5 * MS);
		assert_true(d.due_ns <= now + 15 * MS);
		clamped += d.due_ns == prev;
		prev = d.due_ns;
	}
	assert_true(clamped > 0); /* the order was kept by holding packets, not by luck */
}

static void test_jitter_distribution(void **state)
{
	struct link_dir_conf c = { .delay_ns = 10 * MS, .jitter_ns = 4 * MS };
	double sum = 0, sq = 0, mean, var, want_var = (8.0 * 8.0) / 12; /* ms^2 */
	unsigned bins[8] = { 0 }, n = 200000;
	struct link_model m;
	uint64_t now = 1000 * MS;

	(void)state;
	link_model_init(&m, &c, SEED, 0, 0);
	/* arrivals 20 ms apart, more than 2 x jitter: no sample is held back */
	for (unsigned k = 0; k < n; k++, now += 20 * MS) {
		struct link_due d;
		double ms;

		assert_true(link_model_due(&m, now, 100, &d));
		ms = (double)(d.due_ns - now) / MS;
		assert_true(ms >= 6 && ms <= 14);
		sum += ms;
		sq += ms * ms;
		bins[ms >= 14 ? 7 : (unsigned)(ms - 6)]++;
	}
	mean = sum / n;
	var = sq / n - mean * mean;
	/* the mean within 4 standard errors, the variance within 2 % */
	assert_true(fabs(mean - 10) < 4 * sqrt(want_var / n));
	assert_true(fabs(var - want_var) < 0.02 * want_var);
	for (unsigned b = 0; b < 8; b++)
		assert_binomial(bins[b], n, 1.0 / 8);
}

static void test_jitter_floor(void **state)
{
	struct link_dir_conf c = { .delay_ns = 1 * MS, .jitter_ns = 3 * MS, .reorder_ppm = 1 };
	struct link_model m;
	uint64_t now = 1000 * MS;

	(void)state;
	link_model_init(&m, &c, SEED, 0, 0);
	for (int k = 0; k < 10000; k++, now += 10 * MS) {
		struct link_due d;

		assert_true(link_model_due(&m, now, 100, &d));
		assert_true(d.due_ns >= now && d.due_ns <= now + 4 * MS);
	}
}

static void test_reorder(void **state)
{
	struct link_dir_conf c = { .delay_ns = 10 * MS, .reorder_ppm = 250000 };
	uint64_t chosen = 0, overtakes = 0, last_delayed = 0, now = 1000 * MS;
	struct link_model m;

	(void)state;
	link_model_init(&m, &c, SEED, 0, 0);
	for (int k = 0; k < N; k++, now += 100000) {
		struct link_due d;

		assert_true(link_model_due(&m, now, 100, &d));
		if (d.reordered) {
			chosen++;
			assert_int_equal(d.due_ns, now); /* sent at once */
			assert_false(d.delayed);
			overtakes += d.due_ns < last_delayed;
		} else {
			assert_int_equal(d.due_ns, now + 10 * MS);
			last_delayed = d.due_ns;
		}
	}
	assert_binomial(chosen, N, 0.25);
	assert_true(overtakes > chosen / 2); /* they go out ahead of delayed packets */
}

static void test_rate(void **state)
{
	/* 12 Mbit/s: a 1500-byte frame takes 1 ms on the wire */
	struct link_dir_conf c = { .rate_bps = 12000000, .delay_ns = 5 * MS };
	struct link_model m;
	struct link_due d;
	uint64_t t0 = 1000 * MS;

	(void)state;
	link_model_init(&m, &c, SEED, 0, 3000);
	assert_true(link_model_due(&m, t0, 1500, &d));
	assert_int_equal(d.due_ns, t0 + 1 * MS + 5 * MS);
	assert_true(link_model_due(&m, t0, 1500, &d));
	assert_int_equal(d.due_ns, t0 + 2 * MS + 5 * MS);
	/* the backlog holds 3000 bytes: the third frame at once is refused ... */
	assert_false(link_model_due(&m, t0, 1500, &d));
	/* ... and changed nothing: half a millisecond later 2250 bytes wait */
	assert_false(link_model_due(&m, t0 + MS / 2, 1500, &d));
	assert_true(link_model_due(&m, t0 + 1 * MS, 1500, &d));
	assert_int_equal(d.due_ns, t0 + 3 * MS + 5 * MS);
	/* an idle link starts the next frame at its arrival */
	assert_true(link_model_due(&m, t0 + 100 * MS, 150, &d));
	assert_int_equal(d.due_ns, t0 + 100 * MS + MS / 10 + 5 * MS);
}

static void test_seeded(void **state)
{
	struct link_dir_conf c = { .loss_ppm = 300000, .jitter_ns = MS, .delay_ns = MS };
	struct link_model a, b, other;
	unsigned differ = 0;

	(void)state;
	link_model_init(&a, &c, 42, 0, 0);
	link_model_init(&b, &c, 42, 0, 0);
	link_model_init(&other, &c, 42, 1, 0); /* the other direction's stream */
	for (int k = 0; k < 10000; k++) {
		struct link_due da, db, dother;
		enum link_loss la = link_model_loss(&a);

		assert_int_equal(la, link_model_loss(&b));
		differ += la != link_model_loss(&other);
		link_model_due(&a, (uint64_t)k * MS, 100, &da);
		link_model_due(&b, (uint64_t)k * MS, 100, &db);
		link_model_due(&other, (uint64_t)k * MS, 100, &dother);
		assert_int_equal(da.due_ns, db.due_ns);
	}
	assert_true(differ > 1000);
}

static void test_bounds(void **state)
{
	struct link_dir_conf c = { .delay_ns = 40 * MS };
	struct link_bounds b;

	(void)state;
	/* no rate: twice the BDP at 10 Gbit/s */
	link_bounds_get(&c, 0, &b);
	assert_int_equal(b.queue_bytes, 2 * 10000000000ULL / 8 * 40 / 1000);
	assert_int_equal(b.backlog_bytes, 0);
	link_bounds_get(&c, 65536, &b);
	assert_int_equal(b.queue_bytes, 65536);
	assert_int_equal(b.slots, LINK_SLOTS_MIN);
	/* 0 delay: 1 MiB at least */
	memset(&c, 0, sizeof(c));
	link_bounds_get(&c, 0, &b);
	assert_int_equal(b.queue_bytes, LINK_AUTO_MIN);
	/* a rate: the limit bounds the backlog, the BDP at the rate comes on top */
	c.rate_bps = 100000000;
	c.delay_ns = 40 * MS;
	link_bounds_get(&c, 100000, &b);
	assert_int_equal(b.backlog_bytes, 100000);
	assert_true(b.queue_bytes >= 100000 + 100000000ULL / 8 * 40 / 1000);
	link_bounds_get(&c, 0, &b);
	assert_int_equal(b.backlog_bytes, 100000000ULL / 8 * 20 / 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_loss),
		cmocka_unit_test(test_no_loss_no_draw),
		cmocka_unit_test(test_gilbert_elliott),
		cmocka_unit_test(test_jitter_keeps_order),
		cmocka_unit_test(test_jitter_distribution),
		cmocka_unit_test(test_jitter_floor),
		cmocka_unit_test(test_reorder),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_seeded),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
