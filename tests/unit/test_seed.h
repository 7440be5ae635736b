/* SPDX-License-Identifier: MIT */
/*
 * Seeded randomness for the unit tests that draw their inputs at random.
 * main() calls test_seed_init() once: the seed is OVLPERF_TEST_SEED when set,
 * else the clock, and is printed first ("seed N") so that a failing run can
 * be replayed exactly with OVLPERF_TEST_SEED=N. The test's random inputs come
 * from this one stream, in the order the tests run (replay the whole binary).
 *
 * The generator is splitmix64 (Steele, Lea, Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014): any 64-bit seed is a good
 * one, and the stream is the same on every machine.
 */
#ifndef TEST_SEED_H
#define TEST_SEED_H

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t test_rng_state;

/* The seed (see above), printed to stderr; exits 2 on a malformed variable. */
static inline uint64_t test_seed_init(void)
{
	const char *env = getenv("OVLPERF_TEST_SEED");
	struct timespec ts;
	uint64_t seed;
	char *end;

	if (env && *env) {
		errno = 0;
		seed = strtoull(env, &end, 10);
		if (errno || *end || *env == '-') {
			fprintf(stderr, "OVLPERF_TEST_SEED='%s': expected 0..%" PRIu64 "\n", env,
				UINT64_MAX);
			exit(2);
		}
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	test_rng_state = seed;
	fprintf(stderr, "seed %" PRIu64 " (OVLPERF_TEST_SEED=%" PRIu64 " replays this run)\n", seed,
		seed);
	return seed;
}

static inline uint64_t test_rand64(void)
{
	uint64_t z = (test_rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1): 53 bits, never 0 (a log of it is finite). */
static inline double test_rand01(void)
{
	return ((double)(test_rand64() >> 11) + 0.5) / 9007199254740992.0;
}

/* Uniform in [0, n), n > 0 (Lemire's multiply-shift; its bias is below
 * n / 2^32, far under anything a test could notice). */
static inline uint32_t test_rand_below(uint32_t n)
{
	return (uint32_t)(((test_rand64() >> 32) * (uint64_t)n) >> 32);
}

static inline void test_rand_buf(void *buf, size_t len)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = test_rand64();

		for (size_t k = 0; k < 8 && i + k < len; k++)
			p[i + k] = (uint8_t)(v >> (8 * k));
	}
}

#endif
