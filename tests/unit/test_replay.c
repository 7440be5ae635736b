// SPDX-License-Identifier: MIT
/*
 * Anti-replay window: a table of (counter, accepted?) steps on one window
 * (in order, out of order inside the window, too old, duplicates, the
 * REJECT_AFTER_MESSAGES limit), a full-window reverse sweep, and a long
 * random walk (test_seed.h) checked against a naive model (a set of seen
 * counters).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "replay.h"
#include "timers.h"
#include "test_seed.h"

#define W REPLAY_WINDOW_SIZE
#define L REJECT_AFTER_MESSAGES

struct step {
	uint64_t counter;
	bool ok;
};

static const struct step steps[] = {
	{ 0, true },
	{ 1, true },
	{ 1, false },
	{ 9, true },
	{ 8, true },
	{ 7, true },
	{ 7, false },
	{ W, true },
	{ W - 1, true },
	{ W - 1, false },
	{ W - 2, true },
	{ 2, true }, /* W - 2 behind the newest: inside */
	{ 2, false },
	{ 0, false }, /* W behind: too old */
	{ W + 16, true },
	{ 3, false },
	{ 16, false },
	{ 17, true },
	{ W + 16, false },
	{ 4 * W, true },
	{ 4 * W - (W - 1), true },
	{ 10, false },
	{ 4 * W - W, false },
	{ 4 * W - (W + 1), false },
	{ 4 * W - (W - 2), true },
	{ 4 * W - (W - 1), false },
	{ 4 * W + 63, true },
	{ 4 * W + 64, true },
	{ 4 * W + 65, true },
	{ 4 * W + 62, true },
	{ L, false },
	{ L - 1, true },
	{ L, false },
	{ L - 1, false },
	{ L - 2, true },
	{ L + 1, false },
	{ L + 2, false },
	{ L - 2, false },
	{ L - 3, true },
	{ 0, false },
	{ UINT64_MAX, false },
};

static void test_table(void **state)
{
	struct replay r;

	(void)state;
	replay_init(&r);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		bool peek = replay_check(&r, steps[i].counter, L);
		bool got = replay_update(&r, steps[i].counter, L);

		if (got != steps[i].ok || peek != steps[i].ok)
			fail_msg("step %zu: counter %llu: got %d (check %d), want %d", i,
				 (unsigned long long)steps[i].counter, got, peek, steps[i].ok);
	}
}

static void test_window_sweep(void **state)
{
	struct replay r;
	uint64_t top = 5 * W + 37, c;

	(void)state;
	assert_true(W >= 2048);
	replay_init(&r);
	assert_true(replay_update(&r, top, L));
	/* Every counter inside the window, newest first, accepted once. */
	for (c = top - 1; c > top - W; c--)
		assert_true(replay_update(&r, c, L));
	for (c = top; c > top - W; c--)
		assert_false(replay_update(&r, c, L));
	assert_false(replay_update(&r, top - W, L));
	/* Jumping far ahead forgets everything older. */
	assert_true(replay_update(&r, top + 10 * W, L));
	assert_false(replay_update(&r, top, L));
	assert_true(replay_update(&r, top + 10 * W - 1, L));
}

/* Naive model: bitmap over a bounded counter range. */
static void test_random_walk(void **state)
{
	enum { RANGE = 40000, STEPS = 300000 };
	uint8_t *seen = calloc(RANGE, 1);
	uint64_t greatest = 0;
	bool any = false;
	struct replay r;

	(void)state;
	replay_init(&r);
	for (int i = 0; i < STEPS; i++) {
		uint64_t c;
		bool want, got;

		/* Mostly near the front, sometimes behind the window, sometimes ahead. */
		uint32_t k = test_rand_below(100);

		if (k < 60)
			c = greatest + test_rand_below(70);
		else if (k < 95)
			c = greatest > W + 100 ? greatest - W - 100 + test_rand_below(W + 200)
					       : test_rand_below(W);
		else
			c = greatest + test_rand_below(3 * W);
		if (c >= RANGE)
			continue;
		want = !seen[c] && (!any || c > greatest || greatest - c < W);
		got = replay_update(&r, c, L);
		if (got != want)
			fail_msg("step %d: counter %llu greatest %llu: got %d want %d", i,
				 (unsigned long long)c, (unsigned long long)greatest, got, want);
		if (got) {
			seen[c] = 1;
			if (!any || c > greatest)
				greatest = c;
			any = true;
		}
	}
	free(seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_window_sweep),
		cmocka_unit_test(test_random_walk),
	};

	if (sodium_init() < 0)
		return 1;
	test_seed_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
