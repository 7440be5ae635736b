// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <sys/resource.h>
#include <sys/time.h>

#include "clock.h"
#include "cpuuse.h"

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * NSEC_PER_SEC + (uint64_t)tv->tv_usec * NSEC_PER_USEC;
}

int cpuuse_snapshot(enum cpuuse_scope scope, struct cpuuse_snap *s)
{
	struct rusage ru;

	if (getrusage(scope == CPUUSE_THREAD ? RUSAGE_THREAD : RUSAGE_SELF, &ru) < 0)
		return -errno;
	s->user_ns = tv_ns(&ru.ru_utime);
	s->sys_ns = tv_ns(&ru.ru_stime);
	s->wall_ns = clock_now_ns();
	return 0;
}

static double delta_s(uint64_t a, uint64_t b)
{
	return b > a ? (double)(b - a) / 1e9 : 0.0;
}

void cpuuse_delta(const struct cpuuse_snap *a, const struct cpuuse_snap *b, struct cpu_use *out)
{
	out->user_s = delta_s(a->user_ns, b->user_ns);
	out->sys_s = delta_s(a->sys_ns, b->sys_ns);
	out->wall_s = delta_s(a->wall_ns, b->wall_ns);
}

double cpuuse_s_per_gbit(const struct cpu_use *u, uint64_t bits)
{
	if (bits == 0)
		return 0.0;
	return (u->user_s + u->sys_s) / ((double)bits / 1e9);
}

double cpuuse_percent(const struct cpu_use *u)
{
	if (u->wall_s <= 0.0)
		return 0.0;
	return (u->user_s + u->sys_s) / u->wall_s * 100.0;
}
