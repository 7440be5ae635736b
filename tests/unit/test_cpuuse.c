// SPDX-License-Identifier: MIT
/* CPU use deltas and the per-Gbit figure, on constructed snapshots and on
 * the live process and thread. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void write_stat(const char *root, int pid, int tid, const char *comm, unsigned long ut,
		       unsigned long st)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d", root, pid);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%d/task", root, pid);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%d/task/%d", root, pid, tid);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", root, pid, tid);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%d (%s) R 1 %d %d 0 -1 4194368 120 0 0 0 %lu %lu 0 0 20 0 3 0 12345\n", tid,
		comm, pid, pid, ut, st);
	fclose(f);
}

/* Another process's threads from a /proc of our own making: the names
 * (one with a space and a parenthesis), CPU in clock ticks, the busiest
 * between two reads, a missing process. */
static void test_threads(void **state)
{
	char root[] = "/tmp/ovlperf-cpuuse-XXXXXX";
	struct cpuuse_threads *a = calloc(2, sizeof(*a)), *b = a + 1;
	long hz = sysconf(_SC_CLK_TCK);
	double share;
	int i;

	(void)state;
	assert_non_null(mkdtemp(root));
	write_stat(root, 42, 42, "exe", 10, 5);
	write_stat(root, 42, 43, "ovl-tx0", 100, 50);
	write_stat(root, 42, 44, "odd) (name", 7, 0);
	assert_int_equal(cpuuse_threads_read(root, 42, a), 0);
	assert_int_equal(a->n, 3);
	for (unsigned k = 0; k < a->n; k++)
		if (a->t[k].tid == 44)
			assert_string_equal(a->t[k].name, "odd) (name");
	write_stat(root, 42, 43, "ovl-tx0", 100 + (unsigned long)hz / 2, 50);
	write_stat(root, 42, 44, "odd) (name", 7 + (unsigned long)hz / 10, 0);
	assert_int_equal(cpuuse_threads_read(root, 42, b), 0);
	b->wall_ns = a->wall_ns + 1000000000ULL; /* one second between */
	i = cpuuse_threads_busiest(a, b, &share);
	assert_true(i >= 0);
	assert_string_equal(b->t[i].name, "ovl-tx0");
	assert_true(fabs(share - 0.5) < 1e-9);
	assert_int_equal(cpuuse_threads_read(root, 7, a), -ESRCH);
	b->wall_ns = a->wall_ns;
	assert_int_equal(cpuuse_threads_busiest(a, b, &share), -1);
	free(a);
	{
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		assert_int_equal(system(cmd), 0);
	}
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A process's cpu cgroup and quota, v1 (cpu,cpuacct mounted together)
 * and v2, from trees of our own. */
static void test_cgroup(void **state)
{
	char root[] = "/tmp/ovlperf-cgroup-XXXXXX", p[256], cmd[64];
	struct cpuuse_cgroup cg;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(p, sizeof(p), "%s/proc", root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/proc/42", root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/proc/42/cgroup", root);
	put(p, "9:name=systemd:/\n2:cpu,cpuacct:/vpn\n1:memory:/x\n0::/\n");
	snprintf(p, sizeof(p), "%s/cg", root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/cg/cpu,cpuacct", root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/cg/cpu,cpuacct/vpn", root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/cg/cpu,cpuacct/vpn/cpu.stat", root);
	put(p, "nr_periods 30\nnr_throttled 29\nthrottled_time 1227583629\n");
	snprintf(p, sizeof(p), "%s/cg/cpu,cpuacct/vpn/cpu.cfs_quota_us", root);
	put(p, "20000\n");
	snprintf(p, sizeof(p), "%s/cg/cpu,cpuacct/vpn/cpu.cfs_period_us", root);
	put(p, "100000\n");
	snprintf(p, sizeof(p), "%s/proc", root);
	{
		char cgroot[256];

		snprintf(cgroot, sizeof(cgroot), "%s/cg", root);
		assert_int_equal(cpuuse_cgroup_read(p, cgroot, 42, &cg), 0);
		assert_true(cg.found);
		assert_string_equal(cg.path, "/vpn");
		assert_true(fabs(cg.quota_cores - 0.2) < 1e-12);
		assert_int_equal(cg.throttled_ns, 1227583629ULL);
		assert_int_equal(cg.version, 1);
		assert_int_equal(cg.nr_periods, 30);
		assert_int_equal(cg.nr_throttled, 29);
		/* v2: the unified line alone, cpu.max and throttled_usec */
		snprintf(p, sizeof(p), "%s/proc/42/cgroup", root);
		put(p, "0::/vpn2\n");
		snprintf(p, sizeof(p), "%s/cg/vpn2", root);
		mkdir(p, 0700);
		snprintf(p, sizeof(p), "%s/cg/vpn2/cpu.stat", root);
		put(p, "usage_usec 5\nnr_periods 12\nnr_throttled 4\nthrottled_usec 1500\n");
		snprintf(p, sizeof(p), "%s/cg/vpn2/cpu.max", root);
		put(p, "50000 100000\n");
		snprintf(p, sizeof(p), "%s/proc", root);
		assert_int_equal(cpuuse_cgroup_read(p, cgroot, 42, &cg), 0);
		assert_true(fabs(cg.quota_cores - 0.5) < 1e-12);
		assert_int_equal(cg.throttled_ns, 1500000ULL);
		assert_int_equal(cg.version, 2);
		assert_int_equal(cg.nr_throttled, 4);
		snprintf(p, sizeof(p), "%s/cg/vpn2/cpu.max", root);
		put(p, "max 100000\n");
		snprintf(p, sizeof(p), "%s/proc", root);
		assert_int_equal(cpuuse_cgroup_read(p, cgroot, 42, &cg), 0);
		assert_true(cg.quota_cores == 0);
		assert_int_equal(cpuuse_cgroup_read(p, cgroot, 7, &cg), -ESRCH);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

/* Softirq per CPU from /proc/stat trees of our own: the share of each
 * CPU's time, CPU numbers with a gap (cpu2 offline), the busiest, a
 * kernel without steal and guest columns, a file with no cpuN line. */
static void test_softirq(void **state)
{
	char root[] = "/tmp/ovlperf-softirq-XXXXXX", p[256], cmd[64];
	struct cpuuse_softirq *a = calloc(2, sizeof(*a)), *b = a + 1;
	double share[CPUUSE_MAX_CPUS];
	int busiest;

	(void)state;
	assert_non_null(a);
	assert_non_null(mkdtemp(root));
	snprintf(p, sizeof(p), "%s/stat", root);
	put(p, "cpu  300 0 300 1000 0 0 400 0 0 0\n"
	       "cpu0 100 0 100 500 0 0 100 0 0 0\n"
	       "cpu1 200 0 200 500 0 0 300 0 50 0\n"
	       "cpu3 0 0 0 1000 0 0 0\n"
	       "intr 12345 0 0\nsoftirq 999 0 0\n");
	assert_int_equal(cpuuse_softirq_read(root, a), 0);
	assert_int_equal(a->ncpu, 4);
	assert_int_equal(a->softirq[1], 300);
	assert_int_equal(a->total[1], 1200); /* guest is inside user: not added */
	assert_int_equal(a->total[2], 0);
	/* over the window: cpu0 100 more ticks, 50 in softirq; cpu1 200, 196
	 * in softirq; cpu3 100 idle */
	put(p, "cpu  300 0 300 1000 0 0 400 0 0 0\n"
	       "cpu0 120 0 110 520 0 0 150 0 0 0\n"
	       "cpu1 202 0 200 502 0 0 496 0 60 0\n"
	       "cpu3 0 0 0 1100 0 0 0\n");
	assert_int_equal(cpuuse_softirq_read(root, b), 0);
	assert_int_equal(cpuuse_softirq_shares(a, b, share, CPUUSE_MAX_CPUS, &busiest), 4);
	assert_true(fabs(share[0] - 0.5) < 1e-12);
	assert_true(fabs(share[1] - 0.98) < 1e-12);
	assert_true(share[2] == 0 && share[3] == 0);
	assert_int_equal(busiest, 1);
	/* max bounds the shares written */
	assert_int_equal(cpuuse_softirq_shares(a, b, share, 1, &busiest), 1);
	assert_int_equal(busiest, 0);
	/* the same read twice: no time between, no busiest */
	assert_int_equal(cpuuse_softirq_shares(b, b, share, CPUUSE_MAX_CPUS, &busiest), 4);
	assert_int_equal(busiest, -1);
	put(p, "intr 1\n");
	assert_int_equal(cpuuse_softirq_read(root, a), -EINVAL);
	assert_int_equal(cpuuse_softirq_read("/nonexistent-proc", a), -ENOENT);
	free(a);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta_and_ratios), cmocka_unit_test(test_live),
		cmocka_unit_test(test_threads),		 cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_softirq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
