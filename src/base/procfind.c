// SPDX-License-Identifier: MIT
/* Processes by name or pid file, from a /proc tree (procfind.h). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procfind.h"

bool procfind_is_pidfile(const char *spec)
{
	return spec[0] == '/';
}

static bool is_pid(const char *s, int *pid)
{
	char *end;
	long v;

	if (*s < '1' || *s > '9')
		return false;
	v = strtol(s, &end, 10);
	if (*end || v <= 0 || v > 0x3fffffff)
		return false;
	*pid = (int)v;
	return true;
}

int procfind_comm(const char *proc_root, int pid, char *buf, size_t len)
{
	char path[256];
	FILE *f;
	bool ok;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%d/comm", proc_root, pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* The base name of argv[0] (up to its NUL); false for a kernel thread or
 * a zombie, whose cmdline is empty. */
static bool argv0_base(const char *proc_root, int pid, char *buf, size_t len)
{
	char path[256], arg[512], *slash;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/cmdline", proc_root, pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(arg, 1, sizeof(arg) - 1, f);
	fclose(f);
	arg[n] = '\0';
	if (!n || !arg[0])
		return false;
	slash = strrchr(arg, '/');
	snprintf(buf, len, "%s", slash ? slash + 1 : arg);
	return true;
}

/* The comm is the first 15 bytes of the program's name: a longer name
 * matches a comm of its first 15. */
static bool matches(const char *proc_root, int pid, const char *name)
{
	char comm[32], want[PROCFIND_COMM_MAX + 1], base[512];

	if (!argv0_base(proc_root, pid, base, sizeof(base)))
		return false;
	if (!strcmp(base, name))
		return true;
	snprintf(want, sizeof(want), "%s", name); /* truncated as the kernel does */
	return procfind_comm(proc_root, pid, comm, sizeof(comm)) == 0 && !strcmp(comm, want);
}

static int by_pidfile(const char *proc_root, const char *file, int *pids, unsigned max)
{
	char line[32], path[256];
	struct stat st;
	FILE *f = fopen(file, "re");
	bool ok;
	int pid;

	if (!f)
		return -errno;
	ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	if (!ok)
		return -EINVAL;
	line[strcspn(line, " \t\r\n")] = '\0';
	if (!is_pid(line, &pid))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%d", proc_root, pid);
	if (stat(path, &st) < 0 || !max)
		return 0;
	pids[0] = pid;
	return 1;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int procfind(const char *proc_root, const char *spec, int *pids, unsigned max)
{
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	if (procfind_is_pidfile(spec))
		return by_pidfile(proc_root, spec, pids, max);
	d = opendir(proc_root);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max) {
		int pid;

		if (is_pid(de->d_name, &pid) && matches(proc_root, pid, spec))
			pids[n++] = pid;
	}
	closedir(d);
	qsort(pids, n, sizeof(*pids), cmp_int);
	return (int)n;
}

int procfind_netns(const char *proc_root, int pid, uint64_t *dev, uint64_t *ino)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%d/ns/net", proc_root, pid);
	if (stat(path, &st) < 0)
		return -errno;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

/* fdinfo's "iff:\tNAME" line names the TUN device an fd is attached to. */
static bool fd_is_tun(const char *proc_root, int pid, const char *fd, const char *ifname)
{
	char path[300], line[128];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/fdinfo/%s", proc_root, pid, fd);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *v = line + 4;

		if (strncmp(line, "iff:", 4))
			continue;
		v += strspn(v, " \t");
		v[strcspn(v, " \t\r\n")] = '\0';
		found = !strcmp(v, ifname);
	}
	fclose(f);
	return found;
}

bool procfind_each_fd(const char *proc_root, int pid, procfind_fd_fn fn, void *arg)
{
	char dir[300];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%d/fd", proc_root, pid);
	d = opendir(dir);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		char target[64];
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		n = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		found = fn(de->d_name, target, arg);
	}
	closedir(d);
	return found;
}

struct tun_want {
	const char *proc_root, *ifname;
	int pid;
};

static bool is_tun(const char *fd, const char *target, void *arg)
{
	const struct tun_want *w = arg;

	return !strcmp(target, "/dev/net/tun") && fd_is_tun(w->proc_root, w->pid, fd, w->ifname);
}

int procfind_tun(const char *proc_root, const char *ifname, int *pids, unsigned max)
{
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	if (!ifname[0])
		return 0;
	d = opendir(proc_root);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max) {
		int pid;

		if (!is_pid(de->d_name, &pid))
			continue;
		if (procfind_each_fd(proc_root, pid, is_tun,
				     &(struct tun_want){ proc_root, ifname, pid }))
			pids[n++] = pid;
	}
	closedir(d);
	qsort(pids, n, sizeof(*pids), cmp_int);
	return (int)n;
}

struct sockets {
	uint64_t *inodes;
	unsigned n, max;
};

static bool add_socket(const char *fd, const char *target, void *arg)
{
	struct sockets *s = arg;
	uint64_t ino;

	(void)fd;
	if (sscanf(target, "socket:[%" SCNu64 "]", &ino) == 1)
		s->inodes[s->n++] = ino;
	return s->n >= s->max;
}

int procfind_sockets(const char *proc_root, int pid, uint64_t *inodes, unsigned max)
{
	struct sockets s = { inodes, 0, max };
	char dir[300];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/%d/fd", proc_root, pid);
	if (stat(dir, &st) < 0)
		return -errno;
	if (max)
		procfind_each_fd(proc_root, pid, add_socket, &s);
	return (int)s.n;
}
