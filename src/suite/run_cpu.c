// SPDX-License-Identifier: MIT
/*
 * The CPU of a lab trial's measured window, read at its first and last
 * interval report (so connection set-up and tear-down do not count): the
 * whole machine's busy time, each CPU's softirq share, and the threads
 * and cgroup quota of the overlay's processes: the built-in overlay's
 * daemons on the client and server hosts, or the processes an external
 * path's `process` key names, each placed on its lab host by its network
 * namespace. Every lab host is a namespace of this machine, so /proc has
 * them all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuuse.h"
#include "lab.h"
#include "lab_overlay.h"
#include "load.h"
#include "procfind.h"
#include "run_int.h"

#define PROC_ROOT   "/proc"
#define CGROUP_ROOT "/sys/fs/cgroup"

struct run_cpu_proc {
	int pid; /* 0: not read (gone, or never found) */
	unsigned host;
	char comm[16];
	struct cpuuse_threads first, last;
	struct cpuuse_cgroup cg_first, cg_last;
};

struct run_cpu {
	unsigned n; /* interval reports seen */
	double cpu_first, cpu_last;
	double t_first, t_last;
	bool si_ok;
	struct cpuuse_softirq si_first, si_last;
	unsigned nproc;
	struct run_cpu_proc proc[RUN_CPU_MAX_PROCS];
};

/* Busy CPU time of the whole machine (all namespaces share it), in seconds. */
static bool host_busy_s(double *s)
{
	uint64_t ns;

	if (cpuuse_machine_busy(PROC_ROOT, &ns))
		return false;
	*s = (double)ns / 1e9;
	return true;
}

static void on_interval(const struct load_result *res, const struct load_interval *iv, void *arg)
{
	struct run_cpu *rc = arg;
	bool first = rc->n == 0;
	double s;

	(void)res;
	if (!host_busy_s(&s))
		return;
	if (!rc->n++) {
		rc->cpu_first = s;
		rc->t_first = iv->end_s;
		rc->si_ok = cpuuse_softirq_read(PROC_ROOT, &rc->si_first) == 0;
	} else {
		rc->cpu_last = s;
		rc->t_last = iv->end_s;
		if (rc->si_ok && cpuuse_softirq_read(PROC_ROOT, &rc->si_last))
			rc->si_ok = false;
	}
	for (unsigned i = 0; i < rc->nproc; i++) {
		struct run_cpu_proc *p = &rc->proc[i];

		if (p->pid && cpuuse_threads_read(PROC_ROOT, p->pid, first ? &p->first : &p->last))
			p->pid = 0;
		if (p->pid)
			cpuuse_cgroup_read(PROC_ROOT, CGROUP_ROOT, p->pid,
					   first ? &p->cg_first : &p->cg_last);
	}
}

static void add_proc(struct run_cpu *rc, int pid, unsigned host)
{
	struct run_cpu_proc *p;

	if (pid <= 0 || rc->nproc >= RUN_CPU_MAX_PROCS)
		return;
	p = &rc->proc[rc->nproc++];
	p->pid = pid;
	p->host = host;
	procfind_comm(PROC_ROOT, pid, p->comm, sizeof(p->comm));
}

/* The lab host whose network namespace process pid is in; false: none. */
static bool host_of(const struct lab *lab, int pid, unsigned *host)
{
	unsigned nhosts = lab_get_spec(lab)->nhosts;
	uint64_t dev, ino;

	if (procfind_netns(PROC_ROOT, pid, &dev, &ino))
		return false;
	for (unsigned h = 0; h < nhosts; h++) {
		int fd = lab_netns_fd(lab, h);
		struct stat st;
		bool same;

		if (fd < 0)
			continue;
		same = fstat(fd, &st) == 0 && (uint64_t)st.st_dev == dev &&
		       (uint64_t)st.st_ino == ino;
		close(fd);
		if (same) {
			*host = h;
			return true;
		}
	}
	return false;
}

/* An external path's processes, found again for every trial (a VPN may
 * restart); not finding them is said once per path. */
static void add_external(struct run *r, struct run_path *rp, struct run_cpu *rc)
{
	const char *spec = rp->sp->process;
	int pids[RUN_CPU_MAX_PROCS * 4];
	unsigned host, elsewhere = 0;
	int n = procfind(PROC_ROOT, spec, pids, sizeof(pids) / sizeof(pids[0]));

	for (int i = 0; i < n; i++) {
		if (host_of(r->lab, pids[i], &host))
			add_proc(rc, pids[i], host);
		else
			elsewhere++;
	}
	if (rc->nproc || rp->process_warned)
		return;
	rp->process_warned = true;
	if (n < 0)
		run_warn(r,
			 "path %s: process = %s: cannot read the pid file: %s; its CPU is not "
			 "read",
			 rp->sp->name, spec, strerror(-n));
	else
		run_warn(r, "path %s: process = %s: %s%s; its CPU is not read", rp->sp->name, spec,
			 procfind_is_pidfile(spec) ? "its process is not running"
						   : "no process of that name runs",
			 elsewhere ? " on the lab's hosts (only in other namespaces)" : "");
}

/* Between hosts: the `process` key's processes on this host go into the
 * client's host facts (the far host's VPN is found there by its TUN, as
 * this one's is here when the key names nothing). */
static void facts_pids(struct run *r, struct run_path *rp, struct load_hooks *hooks)
{
	const char *spec = rp->sp->process;
	int n;

	rp->nfacts_pids = 0;
	if (!spec[0])
		return;
	n = procfind(PROC_ROOT, spec, rp->facts_pids, HOSTFACTS_MAX_PROCS);
	if (n > 0) {
		rp->nfacts_pids = (unsigned)n;
		hooks->pids = rp->facts_pids;
		hooks->npids = rp->nfacts_pids;
		return;
	}
	if (rp->process_warned)
		return;
	rp->process_warned = true;
	run_warn(r, "path %s: process = %s: %s on this host; its CPU is not read", rp->sp->name,
		 spec, n < 0 ? "cannot read the pid file" : "no such process runs");
}

struct run_cpu *run_cpu_begin(struct run *r, struct run_path *rp, struct load_hooks *hooks)
{
	struct run_cpu *rc;

	if (!r->lab) {
		facts_pids(r, rp, hooks);
		return NULL;
	}
	rc = calloc(1, sizeof(*rc));
	if (!rc)
		return NULL;
	if (rp->sp->type == SCN_PATH_BUILTIN && r->ov) {
		add_proc(rc, lab_overlay_pid(r->ov, r->scn->lab.client), r->scn->lab.client);
		add_proc(rc, lab_overlay_pid(r->ov, r->scn->lab.server), r->scn->lab.server);
	} else if (rp->sp->type == SCN_PATH_EXTERNAL && rp->sp->process[0]) {
		add_external(r, rp, rc);
	}
	hooks->on_interval = on_interval;
	hooks->arg = rc;
	return rc;
}

static bool read_twice(const struct run_cpu *rc, const struct run_cpu_proc *p)
{
	return p->pid && rc->n >= 2;
}

/* The cores every process read in cgroup path used (the quota is the
 * cgroup's, shared by all its processes). */
static double cgroup_cores(const struct run_cpu *rc, const char *path)
{
	double used = 0;

	for (unsigned i = 0; i < rc->nproc; i++) {
		const struct run_cpu_proc *p = &rc->proc[i];

		if (read_twice(rc, p) && p->cg_last.found && !strcmp(p->cg_last.path, path))
			used += cpuuse_threads_cores(&p->first, &p->last);
	}
	return used;
}

/* A daemon held at its cgroup's quota: the process whose cgroup's
 * throttled time rose most, with its busiest thread. */
static void quota_of(const struct run_cpu *rc, struct results_trial *t)
{
	for (unsigned i = 0; i < rc->nproc; i++) {
		const struct run_cpu_proc *p = &rc->proc[i];
		const struct cpuuse_cgroup *a = &p->cg_first, *b = &p->cg_last;
		double thr, share;
		int k;

		/* a process moved to another cgroup between the reads: two
		 * counters, no difference to take */
		if (!read_twice(rc, p) || !a->found || !b->found || b->quota_cores <= 0 ||
		    strcmp(a->path, b->path))
			continue;
		thr = b->throttled_ns > a->throttled_ns
			      ? (double)(b->throttled_ns - a->throttled_ns) / 1e9
			      : 0;
		if (t->overlay_quota_cores > 0 && thr <= t->overlay_throttled_s)
			continue;
		t->overlay_quota_cores = b->quota_cores;
		t->overlay_throttled_s = thr;
		t->overlay_throttled_share =
			b->nr_periods > a->nr_periods && b->nr_throttled >= a->nr_throttled
				? (double)(b->nr_throttled - a->nr_throttled) /
					  (double)(b->nr_periods - a->nr_periods)
				: 0;
		t->overlay_quota_used = cgroup_cores(rc, b->path);
		t->overlay_quota_host = p->host;
		snprintf(t->overlay_quota_process, sizeof(t->overlay_quota_process), "%s", p->comm);
		k = cpuuse_threads_busiest(&p->first, &p->last, &share);
		t->overlay_quota_thread[0] = '\0';
		t->overlay_quota_thread_cpu = 0;
		if (k >= 0) {
			snprintf(t->overlay_quota_thread, sizeof(t->overlay_quota_thread), "%s",
				 p->last.t[k].name);
			t->overlay_quota_thread_cpu = share;
		}
	}
}

/* The processes' busiest thread over the measured window, of all hosts. */
static void threads_of(const struct run_cpu *rc, struct results_trial *t)
{
	for (unsigned i = 0; i < rc->nproc; i++) {
		const struct run_cpu_proc *p = &rc->proc[i];
		double share;
		int k;

		if (!read_twice(rc, p))
			continue;
		k = cpuuse_threads_busiest(&p->first, &p->last, &share);
		if (k < 0 || share <= t->overlay_thread_cpu)
			continue;
		t->overlay_thread_cpu = share;
		t->overlay_thread_host = p->host;
		snprintf(t->overlay_thread, sizeof(t->overlay_thread), "%s", p->last.t[k].name);
		snprintf(t->overlay_process, sizeof(t->overlay_process), "%s", p->comm);
	}
}

/* The cores the overlay's processes used together over the window. */
static double overlay_cores(const struct run_cpu *rc)
{
	double cores = 0;

	for (unsigned i = 0; i < rc->nproc; i++)
		if (read_twice(rc, &rc->proc[i]))
			cores += cpuuse_threads_cores(&rc->proc[i].first, &rc->proc[i].last);
	return cores;
}

void run_cpu_end(struct run_cpu *rc, double duration_s, struct results_trial *t)
{
	if (!rc)
		return;
	if (t) {
		if (rc->n >= 2 && rc->t_last > rc->t_first && rc->cpu_last >= rc->cpu_first)
			t->host_cpu_s = (rc->cpu_last - rc->cpu_first) /
					(rc->t_last - rc->t_first) * duration_s;
		if (rc->n >= 2 && rc->si_ok)
			t->softirq_ncpu = cpuuse_softirq_shares(&rc->si_first, &rc->si_last,
								t->softirq, CPUUSE_MAX_CPUS, NULL);
		threads_of(rc, t);
		quota_of(rc, t);
		t->overlay_cpu_s = overlay_cores(rc) * duration_s;
	}
	free(rc);
}
