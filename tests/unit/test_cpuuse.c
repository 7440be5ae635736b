// SPDX-License-Identifier: MIT
/* CPU use deltas and the per-Gbit figure, on constructed snapshots and on
 * the live process and thread. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cpuuse.h"

static void test_delta_and_ratios(void **state)
{
	const struct cpuuse_snap a = { .user_ns = 1000000000ULL,
				       .sys_ns = 500000000ULL,
				       .wall_ns = 10000000000ULL };
	const struct cpuuse_snap b = { .user_ns = 3000000000ULL,
				       .sys_ns = 1500000000ULL,
				       .wall_ns = 14000000000ULL };
	struct cpu_use u;

	(void)state;
	cpuuse_delta(&a, &b, &u);
	assert_true(fabs(u.user_s - 2.0) < 1e-12);
	assert_true(fabs(u.sys_s - 1.0) < 1e-12);
	assert_true(fabs(u.wall_s - 4.0) < 1e-12);
	/* 3 CPU seconds for 12 Gbit: 0.25 s/Gbit; 75 % of a core */
	assert_true(fabs(cpuuse_s_per_gbit(&u, 12000000000ULL) - 0.25) < 1e-12);
	assert_true(fabs(cpuuse_percent(&u) - 75.0) < 1e-9);
	assert_true(cpuuse_s_per_gbit(&u, 0) == 0.0);
	/* backwards (wrong order): zeros, not huge unsigned values */
	cpuuse_delta(&b, &a, &u);
	assert_true(u.user_s == 0.0 && u.sys_s == 0.0 && u.wall_s == 0.0);
	assert_true(cpuuse_percent(&u) == 0.0);
}

static volatile uint64_t spin_sink; /* keeps the spin loop from being optimised away */

static void test_live(void **state)
{
	static const enum cpuuse_scope scopes[] = { CPUUSE_PROCESS, CPUUSE_THREAD };
	struct cpuuse_snap a, b;
	unsigned i;
	uint64_t k;

	(void)state;
	for (i = 0; i < 2; i++) {
		assert_int_equal(cpuuse_snapshot(scopes[i], &a), 0);
		/* spin until the kernel has charged some CPU time (not a timing
		 * assertion: the bound only keeps a broken clock from hanging) */
		for (k = 0; k < 20000000000ULL; k++) {
			spin_sink += k;
			if (k % 1000000 == 0) {
				assert_int_equal(cpuuse_snapshot(scopes[i], &b), 0);
				if (b.user_ns + b.sys_ns > a.user_ns + a.sys_ns)
					break;
			}
		}
		assert_true(b.user_ns + b.sys_ns > a.user_ns + a.sys_ns);
		assert_true(b.wall_ns >= a.wall_ns);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta_and_ratios),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
