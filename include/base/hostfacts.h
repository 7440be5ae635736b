/* SPDX-License-Identifier: MIT */
/*
 * One host's facts over a test's measured window, as that host reads them
 * itself (read only, no privilege the server lacks): the CPU of the
 * test's own threads and of every overlay/VPN process found on it (each
 * one's busiest thread, its cgroup's CPU quota and throttling, cgroup v1
 * or v2), the whole machine's busy CPU against a baseline measured with
 * no test running, softirq per CPU, the softnet backlog's drops
 * (/proc/net/softnet_stat), its interfaces' rx/tx drops (a TUN device
 * among them), the UDP sockets that dropped and their owners, and the TCP
 * settings in force (congestion control, tcp_rmem/wmem, rmem_max/wmem_max).
 *
 * Each end of a test fills one (the client its own, the server its own
 * and sends it back in HOST_FACTS, proto.h); load_result.h carries both,
 * the run model keeps them per trial. known false: the end did not report
 * (an older server), and unknown says why; every figure is then unknown,
 * never zero.
 *
 * How an overlay/VPN process was found is kept with it (found_by): the
 * TUN device it holds (/proc/PID/fdinfo/N "iff:", the interface of the
 * route to the far end), the UDP socket it owns (the inode of
 * /proc/net/udp{,6} under /proc/PID/fd), the built-in overlay's daemon,
 * or the scenario's `process` key.
 *
 * Fields may be added; none is renamed (run.json and the client's JSON
 * carry them under the names in docs/json.md).
 */
#ifndef OVLPERF_HOSTFACTS_H
#define OVLPERF_HOSTFACTS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cpuuse.h"

#define HOSTFACTS_MAX_PROCS 8
#define HOSTFACTS_MAX_LINKS 8
#define HOSTFACTS_MAX_SOCKS 4
#define HOSTFACTS_MAX_CPUS  CPUUSE_MAX_CPUS
#define HOSTFACTS_NAME	    16 /* a comm or an interface name, with its NUL */
#define HOSTFACTS_WHY	    64

/* How a process was found (hostfacts_proc.found_by, bits). */
#define HOSTFACTS_BY_TUN (1u << 0) /* holds the path's TUN device */
#define HOSTFACTS_BY_UDP                                                                           \
	(1u << 1)		       /* owns the UDP socket the far end's                        \
					* underlay address talks to */
#define HOSTFACTS_BY_BUILTIN (1u << 2) /* the built-in overlay's daemon */
#define HOSTFACTS_BY_PROCESS (1u << 3) /* the scenario's `process` key */

/* A cgroup's CPU controller over the window (cpuuse_cgroup, plus its
 * periods): v1 cpu.cfs_quota_us / cfs_period_us and cpu.stat's
 * nr_periods, nr_throttled, throttled_time; v2 cpu.max and cpu.stat's
 * nr_periods, nr_throttled, throttled_usec. */
struct hostfacts_cgroup {
	bool found;			   /* the process's cpu cgroup was read */
	uint8_t version;		   /* 1 or 2 */
	double quota_cores;		   /* cores it may use; 0 unlimited */
	uint64_t throttled_ns;		   /* rise over the window */
	uint64_t nr_periods, nr_throttled; /* rises over the window */
	char path[128];			   /* in the hierarchy ("/" the root) */
};

/* One process over the window: all its threads' CPU and its busiest. */
struct hostfacts_proc {
	int pid;
	char comm[HOSTFACTS_NAME];    /* its comm; for a program run through
				       * /proc/self/exe (comm "exe"), its file's
				       * name: "ovlperf" for the built-in daemons */
	uint32_t found_by;	      /* HOSTFACTS_BY_*; 0 for the test's own */
	char tun[HOSTFACTS_NAME];     /* the TUN device it holds ("": none) */
	uint16_t udp_port;	      /* the local port of its UDP socket (0: none) */
	double cores;		      /* CPU of all its threads, cores */
	char busiest[HOSTFACTS_NAME]; /* its busiest thread's name ("": none read) */
	int busiest_tid;
	double busiest_cores; /* that thread's share of a core */
	struct hostfacts_cgroup cgroup;
};

/* One interface's drops over the window (/proc/net/dev: rx drop + fifo,
 * tx drop + fifo) and its queue length (txqueuelen). */
struct hostfacts_link {
	char name[HOSTFACTS_NAME];
	bool tun; /* a TUN device (sysfs tun_flags) */
	uint32_t txqlen;
	uint64_t rx_drops, tx_drops;
};

/* A UDP socket whose drop count rose over the window (/proc/net/udp{,6}
 * "drops"), and the process holding it (pid 0, comm "": not found). */
struct hostfacts_sock {
	uint32_t pid;
	char comm[HOSTFACTS_NAME];
	uint16_t port;	/* local */
	uint8_t family; /* 4 or 6 */
	uint64_t drops;
};

struct hostfacts {
	bool known;		     /* this end reported them */
	char unknown[HOSTFACTS_WHY]; /* when not, why: "server ovlperf 0.1.0" */
	double window_s;	     /* the window they were read over */

	/* the test's own threads on this host (its process: ovlperf) */
	struct hostfacts_proc test;
	/* the overlay/VPN processes found on this host */
	unsigned nprocs;
	struct hostfacts_proc procs[HOSTFACTS_MAX_PROCS];

	/* The whole machine, cores busy over the window; its baseline (busy
	 * with no test running: before the run and between trials, < 0 not
	 * measured); rest_moved: the machine less the baseline less this
	 * test's own processes (test + procs) moved by more than the test's
	 * own share, so whole-machine figures carry something else. */
	double machine_cores, baseline_cores;
	bool rest_moved;
#define HOSTFACTS_MOVED_MIN_CORES                                                                  \
	0.1 /* and by more than this: /proc/stat's                                                 \
	     * ticks (1/100 s a CPU) are noise below */

	/* each CPU's share of its time in softirq (0..1), by CPU number, and
	 * the busiest (-1: none) */
	unsigned ncpu;
	double softirq[HOSTFACTS_MAX_CPUS];
	int softirq_busiest;
	/* /proc/net/softnet_stat, all CPUs, rises: packets dropped at a full
	 * backlog (netdev_max_backlog) and net_rx_action's time squeezes */
	bool softnet_known;
	uint64_t softnet_dropped, softnet_squeezed;

	/* the interfaces with drops, and the path's (the TUN) even without */
	unsigned nlinks;
	struct hostfacts_link links[HOSTFACTS_MAX_LINKS];

	/* UDP sockets that dropped, most first */
	unsigned nsocks;
	struct hostfacts_sock socks[HOSTFACTS_MAX_SOCKS];

	/* TCP settings in force (net.ipv4.tcp_congestion_control, tcp_rmem,
	 * tcp_wmem: min default max; net.core.rmem_max, wmem_max) */
	bool sysctl_known;
	char cc[HOSTFACTS_NAME];
	uint32_t tcp_rmem[3], tcp_wmem[3];
	uint32_t rmem_max, wmem_max;
};

/* Marks f unknown for why ("server ovlperf 0.1.0"). */
void hostfacts_unknown(struct hostfacts *f, const char *why);

/* Where and what to read. The /proc and cgroup trees are the calling
 * thread's (its network namespace for the interfaces and sockets). */
struct hostfacts_where {
	const char *proc_root, *cg_root, *proc_sys; /* NULL: /proc, /sys/fs/cgroup,
						     * /proc/sys */
	const char *path_if;			    /* the path's interface: its TUN's holder is
						     * found (NULL or "": unknown) */
	const char *far_addr; /* the far host's underlay address, a literal: the
			       * holder of a UDP socket connected to it is found
			       * (NULL, "" or a name: not looked for) */
	int test_pid;	      /* the test's process (0: this one) */
	/* processes found otherwise (the scenario's `process` key), each
	 * with its HOSTFACTS_BY_* */
	const int *pids;
	const uint32_t *pids_by;
	unsigned npids;
	double baseline_cores; /* the machine's busy cores with no test
				* running (hostfacts_idle); < 0: not measured */
};

/* Finds the processes (walking /proc: some milliseconds on a busy host,
 * so before the window starts); NULL when out of memory. */
struct hostfacts_probe *hostfacts_prepare(const struct hostfacts_where *w);
/* The window's first read (p may be NULL). */
void hostfacts_start(struct hostfacts_probe *p);
/* Both at once. */
struct hostfacts_probe *hostfacts_begin(const struct hostfacts_where *w);
/* Its last read: fills out over the window and frees p (NULL: out is
 * unknown, "not read"). */
void hostfacts_end(struct hostfacts_probe *p, struct hostfacts *out);

/* The machine's busy cores over f's window less its baseline: what the
 * test, its overlay and whatever changed on the machine since it was at
 * rest used. < 0: unknown (not reported, no baseline, the rest of the
 * machine moved by more than the test's own share, or nothing left). */
double hostfacts_net_cores(const struct hostfacts *f);

/* The TCP settings in force under proc_sys ("/proc/sys") into f
 * (sysctl_known false when tcp_rmem cannot be read). */
void hostfacts_read_sysctls(const char *proc_sys, struct hostfacts *f);

/* The machine's busy CPU with no test running: the gaps between tests
 * (and before the first) of one process that runs them, a server's
 * sessions at once among them. */
struct hostfacts_idle {
	pthread_mutex_t lock;
	const char *proc_root;
	unsigned running; /* tests under way */
	bool marked;	  /* mark_* hold the start of an idle gap */
	uint64_t mark_busy_ns, mark_wall_ns;
	double cores; /* the last gap's busy cores; < 0: none yet */
};
/* The idle gap starts now. proc_root NULL: /proc. */
void hostfacts_idle_init(struct hostfacts_idle *i, const char *proc_root);
void hostfacts_idle_destroy(struct hostfacts_idle *i);
/* A test starts: closes the gap since the last test ended (one of at
 * least HOSTFACTS_IDLE_MIN_NS with none running) and returns the
 * baseline, the latest such gap's busy cores (< 0: none yet). */
#define HOSTFACTS_IDLE_MIN_NS 100000000ULL
double hostfacts_idle_start(struct hostfacts_idle *i);
/* A test ended: the last one running opens a gap. */
void hostfacts_idle_stop(struct hostfacts_idle *i);
/* Measures the machine idle for ns (a process with no gap before its one
 * test: `ovlperf client`); the busy cores, < 0 when unreadable. */
double hostfacts_idle_sample(const char *proc_root, uint64_t ns);

#endif
