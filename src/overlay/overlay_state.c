// SPDX-License-Identifier: MIT
/*
 * The server's record of the overlay daemons it runs, one line each
 * ("pid start_time netns_ino ifname"), rewritten atomically on every change
 * and locked (flock) for the server's life. The daemons die with the server
 * (PR_SET_PDEATHSIG); the record covers what that misses, a daemon that
 * outlived a crashed server. At start a server stops only a process the
 * record names by pid *and* start time *and* our own executable, and
 * removes only that daemon's control socket: never anything it did not
 * create.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "control.h"
#include "log.h"
#include "overlay_int.h"

struct ovl_state {
	char path[256], lock_path[300];
	int lock_fd;
	pthread_mutex_t lock;
	struct ovl_daemon d[OVERLAY_MAX_SLOTS];
	unsigned n;
};

static bool same_exe(pid_t pid)
{
	char a[64], pa[512], pb[512];
	ssize_t na, nb;

	snprintf(a, sizeof(a), "/proc/%d/exe", (int)pid);
	na = readlink(a, pa, sizeof(pa) - 1);
	nb = readlink("/proc/self/exe", pb, sizeof(pb) - 1);
	if (na <= 0 || nb <= 0)
		return false;
	pa[na] = pb[nb] = '\0';
	return strcmp(pa, pb) == 0;
}

/* A daemon an earlier server left: stop it if it is still the same process. */
static void remove_stale(const struct ovl_daemon *d)
{
	char path[128];
	uint64_t end;

	if (d->pid > 1 && d->start_time && ovl_proc_start_time(d->pid) == d->start_time &&
	    same_exe(d->pid)) {
		log_warn("overlay: stopping daemon %d of %s left by an earlier server", (int)d->pid,
			 d->ifname);
		kill(d->pid, SIGTERM);
		end = clock_now_ns() + OVERLAY_STOP_TIMEOUT_MS * NSEC_PER_MSEC;
		while (ovl_proc_start_time(d->pid) == d->start_time && clock_now_ns() < end)
			clock_sleep_until_ns(clock_now_ns() + 20 * NSEC_PER_MSEC);
		if (ovl_proc_start_time(d->pid) == d->start_time)
			kill(d->pid, SIGKILL);
	}
	/* A daemon killed outright leaves its control socket; its TUN device
	 * (never persistent) went with it. */
	if (control_path(d->netns_ino, d->ifname, path, sizeof(path)) == 0) {
		char *reply = malloc(64);

		if (reply && control_request(path, "show", reply, 64, 500) < 0 && unlink(path) == 0)
			log_info("overlay: removed the stale control socket %s", path);
		free(reply);
	}
}

static void recover(struct ovl_state *st)
{
	FILE *f = fopen(st->path, "re");
	char line[256];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct ovl_daemon d = { 0 };
		int pid;

		if (sscanf(line, "%d %" SCNu64 " %" SCNu64 " %15s", &pid, &d.start_time,
			   &d.netns_ino, d.ifname) != 4)
			continue;
		d.pid = pid;
		remove_stale(&d);
	}
	fclose(f);
}

static int save(struct ovl_state *st)
{
	char tmp[300];
	FILE *f;
	int r = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", st->path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	for (unsigned i = 0; i < st->n; i++)
		fprintf(f, "%d %" PRIu64 " %" PRIu64 " %s\n", (int)st->d[i].pid,
			st->d[i].start_time, st->d[i].netns_ino, st->d[i].ifname);
	if (fclose(f) != 0 || rename(tmp, st->path) < 0)
		r = -errno;
	if (r < 0)
		log_warn("overlay: cannot write the state file %s: %s", st->path, strerror(-r));
	return r;
}

int ovl_state_open(const char *path, struct ovl_state **out)
{
	struct ovl_state *st = calloc(1, sizeof(*st));
	int r;

	*out = NULL;
	if (!st)
		return -ENOMEM;
	snprintf(st->path, sizeof(st->path), "%s", path);
	snprintf(st->lock_path, sizeof(st->lock_path), "%s.lock", path);
	st->lock_fd = open(st->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (st->lock_fd < 0 || flock(st->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		r = -errno;
		log_err("overlay: state file %s: %s%s", st->lock_path, strerror(-r),
			r == -EWOULDBLOCK ? " (another server on this port uses it)" : "");
		if (st->lock_fd >= 0)
			close(st->lock_fd);
		free(st);
		return r;
	}
	pthread_mutex_init(&st->lock, NULL);
	recover(st);
	r = save(st);
	if (r < 0) {
		ovl_state_close(st);
		return r;
	}
	*out = st;
	return 0;
}

int ovl_state_add(struct ovl_state *st, const struct ovl_daemon *d)
{
	int r = -ENOSPC;

	pthread_mutex_lock(&st->lock);
	if (st->n < OVERLAY_MAX_SLOTS) {
		st->d[st->n++] = *d;
		r = save(st);
	}
	pthread_mutex_unlock(&st->lock);
	return r;
}

int ovl_state_remove(struct ovl_state *st, pid_t pid)
{
	int r = 0;

	pthread_mutex_lock(&st->lock);
	for (unsigned i = 0; i < st->n; i++) {
		if (st->d[i].pid != pid)
			continue;
		st->d[i] = st->d[--st->n];
		r = save(st);
		break;
	}
	pthread_mutex_unlock(&st->lock);
	return r;
}

void ovl_state_close(struct ovl_state *st)
{
	if (!st)
		return;
	unlink(st->path);
	/* still locked while it goes: the port, bound by this server until it
	 * exits, keeps a second server of this port from racing for it */
	unlink(st->lock_path);
	pthread_mutex_destroy(&st->lock);
	close(st->lock_fd); /* releases the flock */
	free(st);
}
