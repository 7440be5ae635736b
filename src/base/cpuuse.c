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
