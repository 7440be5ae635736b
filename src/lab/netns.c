// SPDX-License-Identifier: MIT
/*
 * Named network namespaces, as iproute2's `ip netns add/del` makes them, but
 * in C: /run/netns is made a shared mount (so an unmount in one mount
 * namespace reaches the others and the namespace can be freed), a file is
 * claimed with O_EXCL, and a helper thread that has unshare()d its network
 * namespace bind-mounts /proc/thread-self/ns/net on it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "lab.h"
#include "log.h"
#include "netns.h"

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

int netns_path(const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", LAB_NETNS_DIR, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* As iproute2: make LAB_NETNS_DIR a shared mount point, bind-mounting it on
 * itself first when it is not a mount point yet. */
static int run_dir_shared(void)
{
	bool made = false;

	if (mkdir(LAB_NETNS_DIR, 0755) < 0 && errno != EEXIST)
		return -errno;
	while (mount("", LAB_NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) < 0) {
		if (errno != EINVAL || made) {
			log_err("mount --make-shared %s: %s", LAB_NETNS_DIR, strerror(errno));
			return -errno;
		}
		if (mount(LAB_NETNS_DIR, LAB_NETNS_DIR, "none", MS_BIND | MS_REC, NULL) < 0) {
			log_err("mount --bind %s: %s", LAB_NETNS_DIR, strerror(errno));
			return -errno;
		}
		made = true;
	}
	return 0;
}

int netns_claim(const char *name)
{
	char path[256];
	int fd, rc;

	rc = netns_path(name, path, sizeof(path));
	if (rc)
		return rc;
	rc = run_dir_shared();
	if (rc)
		return rc;
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int netns_sysctl(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	size_t len = strlen(value);

	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	if (n < 0 || (size_t)n != len) {
		int rc = n < 0 ? -errno : -EIO;

		close(fd);
		return rc;
	}
	return close(fd) < 0 ? -errno : 0;
}

struct mount_job {
	const char *path;
	int rc;
};

static void *mount_thread(void *arg)
{
	struct mount_job *job = arg;

	if (unshare(CLONE_NEWNET) < 0) {
		job->rc = -errno;
		return NULL;
	}
	if (mount("/proc/thread-self/ns/net", job->path, "none", MS_BIND, NULL) < 0) {
		job->rc = -errno;
		return NULL;
	}
	/* Addresses then work at once: no duplicate address detection on the
	 * interfaces made later in this namespace (they inherit "default").
	 * No router solicitations or advertisements either: lab links carry
	 * only what the tests send (and what they count). */
	if (netns_sysctl("/proc/sys/net/ipv6/conf/default/accept_dad", "0") ||
	    netns_sysctl("/proc/sys/net/ipv6/conf/all/accept_dad", "0") ||
	    netns_sysctl("/proc/sys/net/ipv6/conf/default/router_solicitations", "0") ||
	    netns_sysctl("/proc/sys/net/ipv6/conf/default/accept_ra", "0"))
		log_debug("no IPv6 sysctls in %s; relying on IFA_F_NODAD", job->path);
	job->rc = 0;
	return NULL;
}

int netns_mount(const char *name, uint64_t *ino)
{
	struct mount_job job = { .rc = -EIO };
	char path[256];
	pthread_t t;
	int rc;

	rc = netns_path(name, path, sizeof(path));
	if (rc)
		return rc;
	job.path = path;
	rc = pthread_create(&t, NULL, mount_thread, &job);
	if (rc)
		return -rc;
	pthread_join(t, NULL);
	if (job.rc)
		return job.rc;
	return netns_ino(name, ino);
}

int netns_ino(const char *name, uint64_t *ino)
{
	char path[256];
	struct statfs sfs;
	struct stat st;
	int rc;

	rc = netns_path(name, path, sizeof(path));
	if (rc)
		return rc;
	if (stat(path, &st) < 0)
		return -errno;
	if (statfs(path, &sfs) < 0)
		return -errno;
	if ((unsigned long)sfs.f_type != NSFS_MAGIC)
		return -ENXIO;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

/* PIDs (not ours) whose network namespace is (dev, ino); at most max. */
static size_t procs_in(dev_t dev, ino_t ino, pid_t *pids, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;
	pid_t self = getpid();

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		char path[64], *end;
		struct stat st;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/ns/net", pid);
		/* Gone, or a zombie (its namespaces are already released). */
		if (stat(path, &st) < 0)
			continue;
		if (st.st_dev == dev && st.st_ino == ino)
			pids[n++] = (pid_t)pid;
	}
	closedir(d);
	return n;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	/* An interrupted sleep only shortens one poll interval. */
	nanosleep(&ts, NULL);
}

int netns_kill_procs(const char *name, unsigned grace_ms)
{
	enum { MAXP = 4096 };
	char path[256];
	struct stat st;
	pid_t *pids;
	size_t n;
	int rc, count;

	rc = netns_path(name, path, sizeof(path));
	if (rc)
		return rc;
	if (stat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	pids = calloc(MAXP, sizeof(*pids));
	if (!pids)
		return -ENOMEM;
	n = procs_in(st.st_dev, st.st_ino, pids, MAXP);
	count = (int)n;
	for (size_t i = 0; i < n; i++) {
		log_info("%s: stopping pid %d", name, (int)pids[i]);
		kill(pids[i], SIGTERM);
	}
	for (unsigned waited = 0; n && waited < grace_ms; waited += 20) {
		sleep_ms(20);
		n = procs_in(st.st_dev, st.st_ino, pids, MAXP);
	}
	for (int round = 0; n && round < 100; round++) {
		for (size_t i = 0; i < n; i++) {
			if (round == 0)
				log_warn("%s: pid %d ignored SIGTERM; killing it", name,
					 (int)pids[i]);
			kill(pids[i], SIGKILL);
		}
		sleep_ms(10);
		n = procs_in(st.st_dev, st.st_ino, pids, MAXP);
	}
	free(pids);
	return n ? -EBUSY : count;
}

int netns_delete(const char *name, uint64_t expect_ino)
{
	char path[256];
	uint64_t ino = 0;
	int rc;

	rc = netns_path(name, path, sizeof(path));
	if (rc)
		return rc;
	rc = netns_ino(name, &ino);
	if (rc == -ENOENT)
		return 0;
	if (rc == -ENXIO && expect_ino == 0) {
		/* A claim that never got its namespace (interrupted lab up). */
		return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	}
	if (rc)
		return rc;
	if (expect_ino == 0) {
		/* Claimed, then mounted by a lab up killed before it could
		 * record the inode. A lab records every host's inode before it
		 * starts anything in one, so the namespace is that lab up's
		 * only while nothing runs in it. */
		struct stat st;
		pid_t pid;

		if (stat(path, &st) < 0)
			return -errno;
		if (procs_in(st.st_dev, st.st_ino, &pid, 1) == 0)
			expect_ino = ino;
	}
	if (ino != expect_ino) {
		log_err("namespace %s is not the one ovlperf created (inode %llu, expected %llu); "
			"leaving it",
			name, (unsigned long long)ino, (unsigned long long)expect_ino);
		return -EPERM;
	}
	rc = netns_kill_procs(name, 2000);
	if (rc < 0)
		log_warn("%s: some processes would not die: %s", name, strerror(-rc));
	if (umount2(path, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT)
		return -errno;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int netns_open(const char *name)
{
	char path[256];
	int fd, rc;

	if (!name)
		snprintf(path, sizeof(path), "/proc/thread-self/ns/net");
	else if ((rc = netns_path(name, path, sizeof(path))))
		return rc;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int netns_enter_fd(int fd)
{
	return setns(fd, CLONE_NEWNET) < 0 ? -errno : 0;
}
