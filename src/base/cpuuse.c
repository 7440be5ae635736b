// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

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

/* "TID (comm) S ppid ... utime stime ...": the name between the first '('
 * and the last ')' (a comm may hold either), utime and stime the 14th and
 * 15th fields, in clock ticks. */
static int thread_stat(const char *path, int tid, struct cpuuse_thread *t)
{
	char line[1024], *open_p, *close_p, *f;
	unsigned long long ut, st;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *fp = fopen(path, "re");
	size_t nl;

	if (!fp)
		return -errno;
	f = fgets(line, sizeof(line), fp);
	fclose(fp);
	open_p = f ? strchr(line, '(') : NULL;
	close_p = f ? strrchr(line, ')') : NULL;
	if (!open_p || !close_p || close_p < open_p || hz <= 0)
		return -EINVAL;
	nl = (size_t)(close_p - open_p - 1);
	if (nl >= sizeof(t->name))
		nl = sizeof(t->name) - 1;
	memcpy(t->name, open_p + 1, nl);
	t->name[nl] = '\0';
	/* after ") ": state is field 3, utime field 14 */
	if (sscanf(close_p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
		   &st) != 2)
		return -EINVAL;
	t->tid = tid;
	t->cpu_ns = (uint64_t)(ut + st) * (NSEC_PER_SEC / (uint64_t)hz);
	return 0;
}

int cpuuse_threads_read(const char *proc_root, int pid, struct cpuuse_threads *out)
{
	char path[256];
	struct dirent *de;
	DIR *d;

	memset(out, 0, sizeof(*out));
	out->pid = pid;
	snprintf(path, sizeof(path), "%s/%d/task", proc_root, pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	out->wall_ns = clock_now_ns();
	while ((de = readdir(d)) && out->n < CPUUSE_MAX_THREADS) {
		int tid = atoi(de->d_name);

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%d/task/%d/stat", proc_root, pid, tid);
		/* a thread may end between the listing and the read */
		if (thread_stat(path, tid, &out->t[out->n]) == 0)
			out->n++;
	}
	closedir(d);
	return 0;
}

int cpuuse_threads_busiest(const struct cpuuse_threads *a, const struct cpuuse_threads *b,
			   double *share)
{
	uint64_t best = 0;
	int at = -1;

	*share = 0;
	if (b->wall_ns <= a->wall_ns)
		return -1;
	for (unsigned i = 0; i < b->n; i++)
		for (unsigned j = 0; j < a->n; j++) {
			uint64_t d;

			if (a->t[j].tid != b->t[i].tid)
				continue;
			d = b->t[i].cpu_ns > a->t[j].cpu_ns ? b->t[i].cpu_ns - a->t[j].cpu_ns : 0;
			if (at < 0 || d > best) {
				best = d;
				at = (int)i;
			}
		}
	if (at >= 0)
		*share = (double)best / (double)(b->wall_ns - a->wall_ns);
	return at;
}

static int read_line(const char *dir, const char *name, char *buf, size_t len)
{
	char path[320];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	return ok ? 0 : -EIO;
}

/* cpu.stat: "throttled_time N" (v1, ns) or "throttled_usec N" (v2), and
 * nr_periods / nr_throttled (both). */
static int throttled(const char *dir, struct cpuuse_cgroup *out)
{
	char path[320], key[64];
	unsigned long long v;
	int rc = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cpu.stat", dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fscanf(f, "%63s %llu", key, &v) == 2) {
		if (!strcmp(key, "throttled_time")) {
			out->throttled_ns = v;
			rc = 0;
		} else if (!strcmp(key, "throttled_usec")) {
			out->throttled_ns = v * 1000;
			rc = 0;
		} else if (!strcmp(key, "nr_periods")) {
			out->nr_periods = v;
		} else if (!strcmp(key, "nr_throttled")) {
			out->nr_throttled = v;
		}
	}
	fclose(f);
	return rc;
}

static bool has_cpu(char *controllers)
{
	for (char *tok = strtok(controllers, ","); tok; tok = strtok(NULL, ","))
		if (!strcmp(tok, "cpu"))
			return true;
	return false;
}

int cpuuse_cgroup_read(const char *proc_root, const char *cg_root, int pid,
		       struct cpuuse_cgroup *out)
{
	static const char *const v1[] = { "cpu", "cpu,cpuacct", "cpuacct,cpu" };
	char path[256], line[512], dir[320], v2path[128] = "";
	bool v1found = false;
	long long quota = -1, period = 0;
	FILE *f;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/%d/cgroup", proc_root, pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c1 = '\0';
		*c2 = '\0';
		c2[strcspn(c2 + 1, "\n") + 1] = '\0';
		if (!strcmp(line, "0") && !c1[1])
			snprintf(v2path, sizeof(v2path), "%s", c2 + 1);
		else if (has_cpu(c1 + 1)) {
			snprintf(out->path, sizeof(out->path), "%s", c2 + 1);
			v1found = true;
		}
	}
	fclose(f);
	if (v1found) {
		for (size_t i = 0; i < sizeof(v1) / sizeof(v1[0]) && !out->found; i++) {
			snprintf(dir, sizeof(dir), "%s/%s%s", cg_root, v1[i], out->path);
			if (throttled(dir, out))
				continue;
			out->found = true;
			out->version = 1;
			if (!read_line(dir, "cpu.cfs_quota_us", line, sizeof(line)))
				quota = atoll(line);
			if (!read_line(dir, "cpu.cfs_period_us", line, sizeof(line)))
				period = atoll(line);
		}
	} else if (v2path[0]) {
		snprintf(out->path, sizeof(out->path), "%s", v2path);
		snprintf(dir, sizeof(dir), "%s%s", cg_root, v2path);
		if (throttled(dir, out)) {
			snprintf(dir, sizeof(dir), "%s/unified%s", cg_root, v2path);
			if (throttled(dir, out))
				return -ENOENT;
		}
		out->found = true;
		out->version = 2;
		/* "max 100000" or "20000 100000" */
		if (!read_line(dir, "cpu.max", line, sizeof(line)) && strncmp(line, "max", 3) &&
		    sscanf(line, "%lld %lld", &quota, &period) != 2)
			quota = -1;
	}
	if (!out->found)
		return -ENOENT;
	if (quota > 0 && period > 0)
		out->quota_cores = (double)quota / (double)period;
	return 0;
}

/* "cpuN user nice system idle iowait irq softirq steal guest guest_nice":
 * guest time is inside user already, so the first eight are the total. */
int cpuuse_softirq_read(const char *proc_root, struct cpuuse_softirq *out)
{
	char path[256], line[512];
	FILE *f;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/stat", proc_root);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[8] = { 0 };
		unsigned cpu;
		uint64_t total = 0;

		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		if (sscanf(line + 3, "%u %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 8 ||
		    cpu >= CPUUSE_MAX_CPUS)
			continue;
		for (unsigned k = 0; k < 8; k++)
			total += v[k];
		out->total[cpu] = total;
		out->softirq[cpu] = v[6];
		if (cpu + 1 > out->ncpu)
			out->ncpu = cpu + 1;
	}
	fclose(f);
	return out->ncpu ? 0 : -EINVAL;
}

unsigned cpuuse_softirq_shares(const struct cpuuse_softirq *a, const struct cpuuse_softirq *b,
			       double *share, unsigned max, int *busiest)
{
	unsigned n = b->ncpu < max ? b->ncpu : max;
	int best = -1;

	for (unsigned i = 0; i < n; i++) {
		uint64_t dt = b->total[i] > a->total[i] ? b->total[i] - a->total[i] : 0;
		uint64_t ds = b->softirq[i] > a->softirq[i] ? b->softirq[i] - a->softirq[i] : 0;

		share[i] = dt && a->total[i] ? (double)(ds < dt ? ds : dt) / (double)dt : 0;
		if (dt && a->total[i] && (best < 0 || share[i] > share[best]))
			best = (int)i;
	}
	if (busiest)
		*busiest = best;
	return n;
}

double cpuuse_threads_cores(const struct cpuuse_threads *a, const struct cpuuse_threads *b)
{
	uint64_t used = 0;

	if (b->wall_ns <= a->wall_ns)
		return 0;
	for (unsigned i = 0; i < b->n; i++)
		for (unsigned j = 0; j < a->n; j++)
			if (a->t[j].tid == b->t[i].tid && b->t[i].cpu_ns > a->t[j].cpu_ns)
				used += b->t[i].cpu_ns - a->t[j].cpu_ns;
	return (double)used / (double)(b->wall_ns - a->wall_ns);
}

int cpuuse_process_cpu(const char *proc_root, int pid, uint64_t *cpu_ns)
{
	struct cpuuse_thread t;
	char path[256];
	int rc;

	snprintf(path, sizeof(path), "%s/%d/stat", proc_root, pid);
	rc = thread_stat(path, pid, &t);
	if (rc == 0)
		*cpu_ns = t.cpu_ns;
	return rc;
}

int cpuuse_machine_busy(const char *proc_root, uint64_t *busy_ns)
{
	unsigned long long v[8] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	char path[256];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/stat", proc_root);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 7 || hz <= 0)
		return -EINVAL;
	/* user nice system [idle iowait] irq softirq steal */
	*busy_ns = (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) * (1000000000ULL / (uint64_t)hz);
	return 0;
}
