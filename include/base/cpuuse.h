/* SPDX-License-Identifier: MIT */
/*
 * CPU time of the measuring process (or thread) over a test: snapshots of
 * getrusage() and CLOCK_MONOTONIC, turned into struct cpu_use (the load
 * engine's results carry one per end, load_result.h).
 * A server running several tests at once should use CPUUSE_THREAD from the
 * thread that does the test's work, or the figures include the other tests.
 */
#ifndef OVLPERF_CPUUSE_H
#define OVLPERF_CPUUSE_H

#include <stdbool.h>
#include <stdint.h>

enum cpuuse_scope { CPUUSE_PROCESS = 0, CPUUSE_THREAD = 1 };

/* The CPU time of one end over a test. */
struct cpu_use {
	double user_s, sys_s; /* CPU seconds of the process over the test */
	double wall_s;
};

struct cpuuse_snap {
	uint64_t user_ns, sys_ns, wall_ns;
};

/* 0 or -errno. */
int cpuuse_snapshot(enum cpuuse_scope scope, struct cpuuse_snap *s);
/* b - a (negative steps give 0). */
void cpuuse_delta(const struct cpuuse_snap *a, const struct cpuuse_snap *b, struct cpu_use *out);
/* (user + sys) seconds per Gbit of bits moved; 0 when bits is 0. */
double cpuuse_s_per_gbit(const struct cpu_use *u, uint64_t bits);
/* Utilisation of one core in percent ((user + sys) / wall * 100); 0 if wall is 0. */
double cpuuse_percent(const struct cpu_use *u);

/* The threads of another process (a VPN daemon) from /proc/PID/task/TID/
 * stat: each one's name (its comm, "ovl-tx0") and CPU time so far, and
 * when they were read. */
#define CPUUSE_MAX_THREADS 64
struct cpuuse_thread {
	int tid;
	char name[16];
	uint64_t cpu_ns; /* utime + stime */
};
struct cpuuse_threads {
	int pid;
	unsigned n;
	uint64_t wall_ns; /* CLOCK_MONOTONIC when read */
	struct cpuuse_thread t[CPUUSE_MAX_THREADS];
};
/* Reads process pid's threads under proc_root ("/proc"); 0 or -errno
 * (-ESRCH: no such process). */
int cpuuse_threads_read(const char *proc_root, int pid, struct cpuuse_threads *out);
/* Of the threads in both a and b (the same tid), the one that used the
 * most CPU between them: its index in b and its share of a core over the
 * wall time between (*share); -1 when none. */
int cpuuse_threads_busiest(const struct cpuuse_threads *a, const struct cpuuse_threads *b,
			   double *share);
/* The cores the whole process used between a and b (its threads in
 * both); 0 when no time passed. */
double cpuuse_threads_cores(const struct cpuuse_threads *a, const struct cpuuse_threads *b);

/* Process pid's CPU time so far, all its threads, those that ended
 * included (/proc/PID/stat's utime + stime); 0 or -errno. */
int cpuuse_process_cpu(const char *proc_root, int pid, uint64_t *cpu_ns);

/* The whole machine's busy CPU time so far (every namespace shares it),
 * from proc_root/stat's cpu line: user nice system irq softirq steal
 * (idle and iowait not); 0 or -errno. */
int cpuuse_machine_busy(const char *proc_root, uint64_t *busy_ns);

/* The CPU quota of a process's cgroup and the time the kernel held it at
 * that quota so far: cgroup v1's cpu controller (cpu.cfs_quota_us over
 * cpu.cfs_period_us, cpu.stat throttled_time) or v2's (cpu.max, cpu.stat
 * throttled_usec). quota_cores 0: no quota. */
struct cpuuse_cgroup {
	bool found;	    /* the process's cpu cgroup was read */
	double quota_cores; /* cores it may use; 0 unlimited */
	uint64_t throttled_ns;
	char path[128];	 /* its path in the hierarchy ("/" the root) */
	uint8_t version; /* 1 or 2 */
	/* cpu.stat's enforcement periods so far and those the group was
	 * throttled in (both versions name them so) */
	uint64_t nr_periods, nr_throttled;
};
/* For process pid, with /proc at proc_root and the cgroup mounts under
 * cg_root ("/sys/fs/cgroup"). 0 or -errno (-ENOENT: no cpu cgroup). */
int cpuuse_cgroup_read(const char *proc_root, const char *cg_root, int pid,
		       struct cpuuse_cgroup *out);

/* Each CPU's time so far and the part of it spent in softirq (the
 * kernel's packet work: NAPI polls, the stack's receive and transmit),
 * from /proc/stat's cpuN lines, indexed by CPU number (an offline CPU's
 * total is 0). */
#define CPUUSE_MAX_CPUS 64
struct cpuuse_softirq {
	unsigned ncpu; /* the highest CPU number read, plus 1 */
	uint64_t total[CPUUSE_MAX_CPUS], softirq[CPUUSE_MAX_CPUS]; /* clock ticks */
};
/* Reads proc_root/stat; 0 or -errno (-EINVAL: no cpuN line). */
int cpuuse_softirq_read(const char *proc_root, struct cpuuse_softirq *out);
/* Each CPU's share of its time in softirq between a and b (0..1) into
 * share[0..max-1], by CPU number (0 for a CPU not counted in both);
 * returns how many were written, and *busiest (if not NULL) the CPU with
 * the largest share (-1 when none). */
unsigned cpuuse_softirq_shares(const struct cpuuse_softirq *a, const struct cpuuse_softirq *b,
			       double *share, unsigned max, int *busiest);

#endif
