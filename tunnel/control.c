// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "clock.h"
#include "control.h"

int control_netns_ino(int nsfd, uint64_t *ino)
{
	struct stat st;
	int r = nsfd >= 0 ? fstat(nsfd, &st) : stat("/proc/thread-self/ns/net", &st);

	if (r < 0)
		return -errno;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

int control_path(uint64_t ino, const char *ifname, char *buf, size_t len)
{
	int n, r;

	if (!ino && (r = control_netns_ino(-1, &ino)) < 0)
		return r;
	if (!*ifname || strchr(ifname, '/') || strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	n = snprintf(buf, len, "%s/%" PRIu64 ".%s.sock", CONTROL_DIR, ino, ifname);
	return n < 0 || (size_t)n >= len || (size_t)n >= sizeof(((struct sockaddr_un *)0)->sun_path)
		       ? -ENAMETOOLONG
		       : 0;
}

static int make_dirs(void)
{
	static const char *const dirs[] = { "/run/ovlperf", CONTROL_DIR };

	for (size_t i = 0; i < 2; i++)
		if (mkdir(dirs[i], 0700) < 0 && errno != EEXIST)
			return -errno;
	return 0;
}

static int fill_addr(const char *path, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path))
		return -ENAMETOOLONG;
	memcpy(sun->sun_path, path, strlen(path) + 1);
	return 0;
}

int control_listen(const char *path)
{
	struct sockaddr_un sun;
	int fd, r;

	if ((r = make_dirs()) < 0 || (r = fill_addr(path, &sun)) < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 && errno == EADDRINUSE) {
		/* Someone's socket file: is a daemon still behind it? */
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		r = probe >= 0 && connect(probe, (struct sockaddr *)&sun, sizeof(sun)) == 0;
		if (probe >= 0)
			close(probe);
		if (r) {
			close(fd);
			return -EADDRINUSE;
		}
		unlink(path);
		r = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	} else {
		r = 0;
	}
	if (r < 0 || chmod(path, 0600) < 0 || listen(fd, 16) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

static int wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	uint64_t now = clock_now_ns();
	int r;

	if (now >= deadline)
		return -ETIMEDOUT;
	r = poll(&pfd, 1, (int)((deadline - now) / NSEC_PER_MSEC) + 1);
	if (r < 0)
		return -errno;
	return r == 0 ? -ETIMEDOUT : 0;
}

ssize_t control_request(const char *path, const char *cmd, char *reply, size_t cap,
			unsigned timeout_ms)
{
	uint64_t deadline = clock_now_ns() + timeout_ms * NSEC_PER_MSEC;
	struct sockaddr_un sun;
	char line[CONTROL_CMD_MAX + 2];
	size_t got = 0;
	int fd, r, n;

	if (cap == 0)
		return -EINVAL;
	if ((r = fill_addr(path, &sun)) < 0)
		return r;
	n = snprintf(line, sizeof(line), "%s\n", cmd);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -EINVAL;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    send(fd, line, (size_t)n, MSG_NOSIGNAL) != n) {
		r = -errno;
		goto out;
	}
	for (;;) {
		ssize_t k;

		if ((r = wait_fd(fd, POLLIN, deadline)) < 0)
			goto out;
		k = recv(fd, reply + got, cap - 1 - got, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = -errno;
			goto out;
		}
		if (k == 0)
			break;
		got += (size_t)k;
		if (got == cap - 1) {
			r = -EMSGSIZE;
			goto out;
		}
	}
	r = 0;
out:
	close(fd);
	reply[got] = '\0';
	return r < 0 ? r : (ssize_t)got;
}

int control_get(const char *reply, const char *key, char *val, size_t len)
{
	size_t kl = strlen(key);
	const char *s = reply;

	while (s && *s) {
		const char *eol = strchr(s, '\n');
		size_t ll = eol ? (size_t)(eol - s) : strlen(s);

		if (ll > kl && !strncmp(s, key, kl) && s[kl] == '=') {
			size_t vl = ll - kl - 1;

			if (vl >= len)
				return -ENOSPC;
			memcpy(val, s + kl + 1, vl);
			val[vl] = '\0';
			return 0;
		}
		s = eol ? eol + 1 : NULL;
	}
	return -ENOENT;
}

int control_list(uint64_t ino, void (*fn)(void *ctx, const char *ifname), void *ctx)
{
	char prefix[32];
	struct dirent *de;
	DIR *d;
	int r;

	if (!ino && (r = control_netns_ino(-1, &ino)) < 0)
		return r;
	snprintf(prefix, sizeof(prefix), "%" PRIu64 ".", ino);
	d = opendir(CONTROL_DIR);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		size_t pl = strlen(prefix), nl = strlen(de->d_name);
		char name[IFNAMSIZ];

		if (nl <= pl + 5 || strncmp(de->d_name, prefix, pl) ||
		    strcmp(de->d_name + nl - 5, ".sock") || nl - pl - 5 >= IFNAMSIZ)
			continue;
		memcpy(name, de->d_name + pl, nl - pl - 5);
		name[nl - pl - 5] = '\0';
		fn(ctx, name);
	}
	closedir(d);
	return 0;
}
