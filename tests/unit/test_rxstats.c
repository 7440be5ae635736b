// SPDX-License-Identifier: MIT
/*
 * Receiver statistics on crafted sequences (in order, loss, duplicates,
 * reordering, tail loss, late beyond the window, stale window bits), a
 * randomised run against a full-bitmap reference, RFC 3550 jitter against
 * known values, and one-way-delay percentiles within 1 %.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rxstats.h"

#define W    RXSTATS_WINDOW
#define MSEC 1000000ULL
#define USEC 1000ULL
#define END  UINT64_MAX

static struct rxstats *new_stats(void)
{
	struct rxstats *st = test_malloc(sizeof(*st));

	rxstats_init(st);
	return st;
}

/* Feeds sequences (END-terminated), each sent at seq ms, received 1 ms later. */
static void feed(struct rxstats *st, const uint64_t *seqs)
{
	for (; *seqs != END; seqs++)
		rxstats_add(st, *seqs, *seqs * MSEC, *seqs * MSEC + MSEC, *seqs * MSEC + MSEC, 100);
}

struct seq_case {
	const char *name;
	uint64_t seqs[16];
	uint64_t sent; /* the sender's count; 0: unknown */
	uint64_t received, lost, duplicates, reordered, late;
};

static const struct seq_case seq_cases[] = {
	{ "in order", { 0, 1, 2, 3, 4, END }, 5, 5, 0, 0, 0, 0 },
	{ "gap", { 0, 1, 2, 5, 6, END }, 7, 5, 2, 0, 0, 0 },
	{ "gap, sent unknown", { 0, 1, 2, 5, 6, END }, 0, 5, 2, 0, 0, 0 },
	{ "tail loss", { 0, 1, 2, 3, 4, END }, 10, 5, 5, 0, 0, 0 },
	{ "head loss", { 3, 4, 5, END }, 6, 3, 3, 0, 0, 0 },
	{ "duplicate", { 0, 1, 1, 2, END }, 3, 3, 0, 1, 0, 0 },
	{ "duplicate of the highest", { 0, 1, 2, 2, 2, END }, 3, 3, 0, 2, 0, 0 },
	{ "reorder", { 0, 2, 1, 3, END }, 4, 4, 0, 0, 1, 0 },
	{ "reorder then duplicate", { 0, 2, 1, 1, 2, END }, 3, 3, 0, 2, 1, 0 },
	{ "head arrives last", { 3, 2, 1, 0, END }, 4, 4, 0, 0, 3, 0 },
	{ "reorder with loss", { 0, 3, 1, 5, END }, 6, 4, 2, 0, 1, 0 },
	{ "late beyond the window", { 0, W + 5, 1, 5, 6, END }, W + 6, 3, W + 3, 0, 1, 2 },
	{ "nothing", { END }, 10, 0, 10, 0, 0, 0 },
	/* seq 50 seen, the window slides past it by less than a window per
	 * step, then W + 50 (same bit) arrives late: a hole filled, not a
	 * duplicate of 50 */
	{ "stale bit", { 50, 100, W + 60, W + 50, END }, W + 61, 4, W + 57, 0, 1, 0 },
	/* a jump of exactly the window clears everything */
	{ "jump of a window", { 7, W + 7, 7, W + 7, END }, W + 8, 2, W + 6, 1, 0, 1 },
};

static void test_sequences(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(seq_cases) / sizeof(seq_cases[0]); i++) {
		const struct seq_case *c = &seq_cases[i];
		struct rxstats *st = new_stats();
		struct udp_result r = { 0 };

		print_message("case: %s\n", c->name);
		feed(st, c->seqs);
		rxstats_result(st, c->sent, 1000 * MSEC, &r);
		assert_int_equal(r.received, c->received);
		assert_int_equal(r.lost, c->lost);
		assert_int_equal(r.duplicates, c->duplicates);
		assert_int_equal(r.reordered, c->reordered);
		assert_int_equal(st->late, c->late);
		assert_int_equal(r.received_bps, c->received * 100 * 8);
		test_free(st);
	}
}

/* xorshift64*: deterministic */
static uint64_t rng(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* 300000 datagrams with loss, duplicates and reordering (some displaced
 * further than the window), checked against a reference that remembers
 * every sequence. */
static void test_random_against_reference(void **state)
{
	enum { N = 300000 };
	struct rxstats *st = new_stats();
	uint8_t *seen = test_calloc(N, 1);
	uint64_t *order = test_malloc(sizeof(uint64_t) * N * 2);
	uint64_t s = 0x9e3779b97f4a7c15ULL, n = 0, i, highest = 0;
	uint64_t ref_unique = 0, ref_dup = 0, ref_reord = 0, ref_late = 0;
	bool any = false;

	(void)state;
	for (i = 0; i < N; i++) {
		uint64_t r = rng(&s) % 1000;

		if (r < 20)
			continue; /* 2 % lost */
		order[n++] = i;
		if (r < 30)
			order[n++] = i; /* 1 % duplicated */
	}
	/* displace 3 % of the entries: most by < 1000, some by ~1.5 windows */
	for (i = 0; i < n; i++) {
		uint64_t r = rng(&s) % 1000, d, j, t;

		if (r >= 30)
			continue;
		d = r < 3 ? W + W / 2 : rng(&s) % 1000;
		j = i + d < n ? i + d : n - 1;
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++) {
		uint64_t q = order[i];

		rxstats_add(st, q, q * 1000, q * 1000 + 50000, q * 1000 + 50000, 1400);
		if (!any || q > highest) {
			highest = q;
			any = true;
			ref_unique += !seen[q];
			seen[q] = 1;
		} else if (highest - q >= W) {
			ref_late++;
		} else if (seen[q]) {
			ref_dup++;
		} else {
			seen[q] = 1;
			ref_unique++;
			ref_reord++;
		}
	}
	assert_int_equal(st->received, ref_unique);
	assert_int_equal(st->duplicates, ref_dup);
	assert_int_equal(st->reordered, ref_reord);
	assert_int_equal(st->late, ref_late);
	assert_true(ref_late > 0 && ref_reord > 0 && ref_dup > 0);
	assert_int_equal(rxstats_lost(st, N), N - ref_unique);
	test_free(order);
	test_free(seen);
	test_free(st);
}

/* RFC 3550: transit alternating 1 ms / 2 ms gives |D| = 1 ms each step and
 * J_k = 1 ms * (1 - (15/16)^k) after k differences. */
static void test_jitter_known_values(void **state)
{
	struct rxstats *st = new_stats();
	double want = 0;
	uint64_t i;

	(void)state;
	for (i = 0; i < 50; i++) {
		uint64_t send = i * 10 * MSEC, transit = i % 2 ? 2 * MSEC : MSEC;

		rxstats_add(st, i, send, send + transit, send + transit, 1000);
		if (i > 0)
			want += (1e6 - want) / 16.0;
		assert_true(fabs(st->jitter_ns - want) < 1e-6);
	}
	assert_true(fabs(st->jitter_ns - 1e6 * (1 - pow(15.0 / 16.0, 49))) < 1e-3);
	test_free(st);

	/* constant transit: zero jitter whatever the spacing */
	st = new_stats();
	for (i = 0; i < 100; i++)
		rxstats_add(st, i, i * i * 1000, i * i * 1000 + 777, i * i * 1000 + 777, 1000);
	assert_true(st->jitter_ns == 0.0);
	test_free(st);

	/* one step of 16 us from zero: J = 1 us exactly */
	st = new_stats();
	rxstats_add(st, 0, 0, 100000, 100000, 100);
	rxstats_add(st, 1, 1000000, 1116000, 1116000, 100);
	assert_true(fabs(st->jitter_ns - 1000.0) < 1e-9);
	test_free(st);
}

static void test_percentiles(void **state)
{
	struct rxstats *st = new_stats();
	struct owd_summary o;
	uint64_t i;

	(void)state;
	/* one-way delays 1 us .. 1000 us, shuffled arrival order irrelevant */
	for (i = 1; i <= 1000; i++)
		rxstats_add(st, i - 1, 0, i * 1000, i * 1000, 100);
	rxstats_owd(st, &o);
	assert_true(o.valid);
	assert_int_equal(o.min_ns, 1000);
	assert_int_equal(o.max_ns, 1000000);
	assert_int_equal(o.mean_ns, 500500);
	assert_true(fabs((double)o.p50_ns - 500000.0) <= 5000.0);
	assert_true(fabs((double)o.p99_ns - 990000.0) <= 9900.0);
	test_free(st);

	/* empty: invalid */
	st = new_stats();
	rxstats_owd(st, &o);
	assert_false(o.valid);
	/* a single value comes back exactly (clamped to min/max) */
	rxstats_add(st, 0, 100, 123456789, 123456789, 100);
	rxstats_owd(st, &o);
	assert_int_equal(o.p50_ns, 123456689);
	assert_int_equal(o.p99_ns, 123456689);
	/* a negative delay (clocks apart) is counted and recorded as 0 */
	rxstats_add(st, 1, 1000, 10, 10, 100);
	assert_int_equal(st->owd_negative, 1);
	rxstats_owd(st, &o);
	assert_int_equal(o.min_ns, 0);
	test_free(st);
}

static void test_histogram_error_bound(void **state)
{
	uint64_t s = 12345, v, lo, hi, mid;
	unsigned i, idx, prev = 0;
	int k;

	(void)state;
	for (k = 0; k < 200000; k++) {
		v = rng(&s) >> (rng(&s) % 64);
		idx = rxstats_hist_index(v);
		assert_true(idx < RXSTATS_OWD_BUCKETS);
		lo = rxstats_hist_bucket_low(idx);
		hi = rxstats_hist_bucket_high(idx);
		assert_true(lo <= v && v <= hi);
		mid = lo + (hi - lo) / 2;
		/* midpoint within 1/128 of any value of the bucket */
		assert_true((double)(mid > v ? mid - v : v - mid) <= (double)v / 128.0 + 0.5);
	}
	/* buckets tile the range in order */
	for (i = 1; i < RXSTATS_OWD_BUCKETS; i++) {
		assert_int_equal(rxstats_hist_bucket_low(i), rxstats_hist_bucket_high(i - 1) + 1);
		idx = rxstats_hist_index(rxstats_hist_bucket_low(i));
		assert_int_equal(idx, i);
		assert_true(idx > prev);
		prev = idx;
	}
	assert_int_equal(rxstats_hist_index(UINT64_MAX), RXSTATS_OWD_BUCKETS - 1);
	assert_int_equal(rxstats_hist_bucket_high(RXSTATS_OWD_BUCKETS - 1), UINT64_MAX);
	assert_int_equal(rxstats_hist_index(0), 0);
}

static void test_merge(void **state)
{
	struct rxstats *a = new_stats(), *b = new_stats(), *sum = new_stats();
	static const uint64_t sa[] = { 0, 1, 3, 2, 2, END };
	static const uint64_t sb[] = { 0, 1, 2, 3, 4, 5, 6, 7, END };
	struct udp_result r = { 0 };
	double ja, jb;
	uint64_t i;

	(void)state;
	feed(a, sa);
	for (i = 0; sb[i] != END; i++) /* stream b: transit 1 ms, 3 ms alternating */
		rxstats_add(b, sb[i], i * MSEC, i * MSEC + (i % 2 ? 3 : 1) * MSEC,
			    i * MSEC + (i % 2 ? 3 : 1) * MSEC, 200);
	ja = a->jitter_ns;
	jb = b->jitter_ns;
	rxstats_merge(sum, a);
	rxstats_merge(sum, b);
	rxstats_result(sum, 5 + 10, 1000 * MSEC, &r);
	assert_int_equal(r.received, 4 + 8);
	assert_int_equal(r.duplicates, 1);
	assert_int_equal(r.reordered, 1);
	assert_int_equal(r.lost, 15 - 12); /* a: 1 tail, b: 2 tail */
	assert_int_equal(rxstats_lost(a, 5) + rxstats_lost(b, 10), r.lost);
	assert_true(fabs(sum->jitter_ns - (ja * 3 + jb * 7) / 10) < 1e-6);
	assert_int_equal(sum->owd.count, 12);
	assert_int_equal(r.owd.min_ns, MSEC);
	assert_int_equal(r.owd.max_ns, 3 * MSEC);
	assert_int_equal(r.received_bps, (4 * 100 + 8 * 200) * 8);
	test_free(a);
	test_free(b);
	test_free(sum);
}

/* Socket waits: a histogram of their own, merged over streams, summarised
 * like the delay; none recorded: not valid. */
static void test_wait(void **state)
{
	struct rxstats *a = new_stats(), *b = new_stats(), *sum = new_stats();
	struct owd_summary w;

	(void)state;
	rxstats_wait(a, &w);
	assert_false(w.valid);
	for (uint64_t i = 0; i < 99; i++)
		rxstats_wait_add(a, 10 * USEC);
	rxstats_wait_add(b, 400 * MSEC); /* a receiver stopped for 400 ms */
	rxstats_merge(sum, a);
	rxstats_merge(sum, b);
	rxstats_wait(sum, &w);
	assert_true(w.valid);
	assert_int_equal(sum->wait.count, 100);
	assert_int_equal(w.min_ns, 10 * USEC);
	assert_int_equal(w.max_ns, 400 * MSEC);
	assert_true(w.p50_ns >= 10 * USEC * 127 / 128 && w.p50_ns <= 10 * USEC * 129 / 128);
	assert_true(w.p99_ns <= 10 * USEC * 129 / 128); /* the 100th sample is p100 */
	assert_int_equal(w.mean_ns, (99 * 10 * USEC + 400 * MSEC) / 100);
	/* the delay's histogram is not the wait's */
	assert_int_equal(sum->owd.count, 0);
	test_free(a);
	test_free(b);
	test_free(sum);
}

static void test_snapshots_and_malformed(void **state)
{
	struct rxstats *st = new_stats();
	struct rxstats_snapshot s1, s2, d;
	static const uint64_t first[] = { 0, 1, 2, 4, END };
	static const uint64_t second[] = { 3, 5, 5, 8, END };

	(void)state;
	feed(st, first);
	rxstats_snapshot(st, &s1);
	assert_int_equal(s1.received, 4);
	assert_int_equal(s1.lost_so_far, 1);
	feed(st, second);
	rxstats_malformed(st);
	rxstats_malformed(st);
	rxstats_snapshot(st, &s2);
	rxstats_snapshot_delta(&s1, &s2, &d);
	assert_int_equal(d.received, 3);
	assert_int_equal(d.bytes, 300);
	assert_int_equal(d.duplicates, 1);
	assert_int_equal(d.reordered, 1);
	assert_int_equal(d.malformed, 2);
	assert_int_equal(s2.lost_so_far, 2); /* 6 and 7 */
	assert_int_equal(d.lost_so_far, 1);
	test_free(st);
}

/* The receiver's window is first to last arrival, whatever the order. */
static void test_window(void **state)
{
	struct rxstats *st = new_stats();

	(void)state;
	assert_int_equal(rxstats_window_ns(st), 0);
	rxstats_add(st, 0, 0, 5 * MSEC, 5 * MSEC, 1000);
	assert_int_equal(rxstats_window_ns(st), 0); /* one datagram: no window */
	rxstats_add(st, 2, 2 * MSEC, 7 * MSEC, 7 * MSEC, 1000);
	rxstats_add(st, 1, 1 * MSEC, 15 * MSEC, 15 * MSEC, 1000);
	assert_int_equal(rxstats_window_ns(st), 10 * MSEC);
	/* 3 datagrams, 2 gaps in 10 ms: 200 pps, 1.6 Mbit/s */
	assert_int_equal(rxstats_window_pps(3, rxstats_window_ns(st)), 200);
	assert_int_equal(rxstats_window_bps(3, 1000, rxstats_window_ns(st)), 1600000);
	assert_int_equal(rxstats_window_bps(1, 1000, 10 * MSEC), 0);
	assert_int_equal(rxstats_window_bps(3, 1000, 0), 0);
	test_free(st);
}

/* The window is the kernel's arrivals', not the reads': a first read
 * 3 ms late (the receiving thread woke late on a busy host) does not
 * shorten it, a last one late does not lengthen it; the one-way delay
 * keeps the read (the wait in the socket is in it). */
static void test_window_arrival(void **state)
{
	struct rxstats *st = new_stats();
	struct owd_summary o;

	(void)state;
	rxstats_add(st, 0, 0, 4 * MSEC, 1 * MSEC, 1000);
	rxstats_add(st, 1, 100 * MSEC, 101 * MSEC, 101 * MSEC, 1000);
	rxstats_add(st, 2, 500 * MSEC, 505 * MSEC, 501 * MSEC, 1000);
	assert_int_equal(rxstats_window_ns(st), 500 * MSEC);
	rxstats_owd(st, &o);
	assert_true(o.max_ns >= 4 * MSEC);
	test_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_window_arrival),
		cmocka_unit_test(test_sequences),
		cmocka_unit_test(test_random_against_reference),
		cmocka_unit_test(test_jitter_known_values),
		cmocka_unit_test(test_percentiles),
		cmocka_unit_test(test_histogram_error_bound),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_wait),
		cmocka_unit_test(test_snapshots_and_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
