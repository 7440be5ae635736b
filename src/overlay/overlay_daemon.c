// SPDX-License-Identifier: MIT
/*
 * One end's `ovlperf tunnel up` daemon for the overlay between two hosts:
 * the same tunnel code, sandbox and offloads as the lab's (lab_overlay.c),
 * but on the underlay socket this process hands over ('underlay_fd') rather
 * than one bound to a port of its own, so its datagrams ride the server's
 * one port through firewalls and NAT. Its key and config are memory files
 * it inherits: no secret is ever written to a disk.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "addr.h"
#include "clock.h"
#include "control.h"
#include "key.h"
#include "log.h"
#include "overlay_int.h"

/* The daemon's descriptors: its underlay socket, its key, its config. */
#define CHILD_UNDERLAY_FD 3
#define CHILD_KEY_FD	  4
#define CHILD_CONF_FD	  5

void ovl_keepalive(int fd)
{
	int on = 1, idle = OVERLAY_KEEPIDLE_S, intvl = OVERLAY_KEEPINTVL_S, cnt = OVERLAY_KEEPCNT;
	unsigned user = OVERLAY_DEAD_S * 1000;

	/* RFC 1122 4.2.3.6 keep-alives find a peer that vanished without a
	 * FIN or RST; TCP_USER_TIMEOUT (RFC 5482) ends a connection whose data
	 * stays unacknowledged as long. */
	if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user, sizeof(user)) < 0)
		log_warn("control socket keepalive: %s", strerror(errno));
}

uint64_t ovl_proc_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long st = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the command name may hold spaces and ')' */
	/* after ")": state is field 3, starttime field 22 */
	if (!p || sscanf(p + 1,
			 " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
			 "%*d %*d %*d %llu",
			 &st) != 1)
		return 0;
	return st;
}

static void put_addr(FILE *f, int family, const uint8_t *a, unsigned len)
{
	char s[INET6_ADDRSTRLEN];

	inet_ntop(family, a, s, sizeof(s));
	fprintf(f, "%s/%u", s, len);
}

/* A sealed-off file in memory (mode 0600, as key_read_file() wants) that
 * the daemon opens as /proc/self/fd/N: no secret ever touches a disk, and
 * nothing is left behind if either process is killed. */
static int memfd_with(const char *name, const char *data, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC), r = 0;
	size_t off = 0;

	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0600) < 0)
		r = -errno;
	while (r == 0 && off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno != EINTR)
			r = -errno;
		else if (n > 0)
			off += (size_t)n;
	}
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

static void put_config(FILE *f, const struct ovl_daemon_spec *sp)
{
	const struct proto_overlay_accept *a = sp->acc;
	static const char *const ciphers[] = { "auto", "aes256gcm", "chacha20poly1305" };
	char ep[80], b64[KEY_B64_LEN + 1];

	fprintf(f, "; the built-in overlay between two hosts (%s end)\n[interface]\n",
		sp->is_server ? "server" : "client");
	fprintf(f, "private_key_file = /proc/self/fd/%d\nunderlay_fd = %d\nname = %s\naddress = ",
		CHILD_KEY_FD, CHILD_UNDERLAY_FD, sp->ifname);
	put_addr(f, AF_INET, sp->is_server ? a->server_v4 : a->client_v4, a->v4_len);
	fputs(", ", f);
	put_addr(f, AF_INET6, sp->is_server ? a->server_v6 : a->client_v6, a->v6_len);
	fprintf(f, "\ncipher = %s\n", ciphers[sp->cipher < 3 ? sp->cipher : 0]);
	if (sp->mtu)
		fprintf(f, "mtu = %u\n", sp->mtu);
	key_to_base64(b64, sp->peer_key);
	fprintf(f, "\n[peer]\npublic_key = %s\nallowed_ips = ", b64);
	put_addr(f, AF_INET, sp->is_server ? a->client_v4 : a->server_v4, 32);
	fputs(", ", f);
	put_addr(f, AF_INET6, sp->is_server ? a->client_v6 : a->server_v6, 128);
	fputs("\n", f);
	if (addr_format(&sp->endpoint, true, ep, sizeof(ep)) == 0)
		fprintf(f, "endpoint = %s\n", ep);
	if (sp->keepalive_s)
		fprintf(f, "persistent_keepalive = %u\n", sp->keepalive_s);
}

/* The key and the config as memory files: fd[0] key, fd[1] config. */
static int make_files(const struct ovl_daemon_spec *sp, int fd[2])
{
	char b64[KEY_B64_LEN + 2], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fd[0] = fd[1] = -1;
	if (!f)
		return -ENOMEM;
	put_config(f, sp);
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	key_to_base64(b64, sp->private_key);
	b64[KEY_B64_LEN] = '\n';
	fd[0] = memfd_with("ovlperf-overlay-key", b64, KEY_B64_LEN + 1);
	sodium_memzero(b64, sizeof(b64));
	fd[1] = memfd_with("ovlperf-overlay-conf", text, len);
	free(text);
	if (fd[0] < 0 || fd[1] < 0) {
		int r = fd[0] < 0 ? fd[0] : fd[1];

		if (fd[0] >= 0)
			close(fd[0]);
		if (fd[1] >= 0)
			close(fd[1]);
		fd[0] = fd[1] = -1;
		return r;
	}
	return 0;
}

/* In the child between fork and exec: async-signal-safe calls only. */
static void exec_daemon(const int src[3], pid_t parent)
{
	static const int to[3] = { CHILD_UNDERLAY_FD, CHILD_KEY_FD, CHILD_CONF_FD };
	char conf[32] = "/proc/self/fd/5";
	char *argv[] = { "/proc/self/exe", "tunnel", "up", conf, NULL };
	int tmp[3];

	_Static_assert(CHILD_CONF_FD == 5, "conf's path");
	/* Dies with the thread that started it: a crashed or killed ovlperf
	 * leaves no daemon (and so no TUN device) behind. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
		_exit(127);
	/* Its own process group: a Ctrl-C at the terminal reaches ovlperf,
	 * which takes the overlay down in order. */
	setpgid(0, 0);
	/* Out of the way first, so that no source is overwritten by another's
	 * target; dup2() leaves the targets open across exec. */
	for (int i = 0; i < 3; i++)
		if ((tmp[i] = fcntl(src[i], F_DUPFD_CLOEXEC, 10)) < 0)
			_exit(127);
	for (int i = 0; i < 3; i++)
		if (dup2(tmp[i], to[i]) < 0)
			_exit(127);
	execv(argv[0], argv);
	_exit(127);
}

/* Whether the daemon's control socket answers "show". */
static int answers(const struct ovl_daemon *d, const char *key, char *val, size_t vlen)
{
	char path[128], *reply = malloc(CONTROL_REPLY_MAX);
	ssize_t n;
	int r;

	if (!reply)
		return -ENOMEM;
	r = control_path(d->netns_ino, d->ifname, path, sizeof(path));
	if (r == 0) {
		n = control_request(path, "show", reply, CONTROL_REPLY_MAX, 1000);
		r = n < 0 ? (int)n : control_get(reply, key, val, vlen);
	}
	free(reply);
	return r;
}

static int wait_for(struct ovl_daemon *d, const char *key, bool want_handshake, unsigned timeout_ms)
{
	uint64_t deadline = clock_now_ns() + timeout_ms * NSEC_PER_MSEC;
	char val[32];

	for (;;) {
		if (!ovl_daemon_alive(d)) {
			log_err("overlay: the tunnel daemon of %s exited during start-up",
				d->ifname);
			return -ECHILD;
		}
		if (answers(d, key, val, sizeof(val)) == 0 && (!want_handshake || atoi(val) >= 1))
			return 0;
		if (clock_now_ns() > deadline) {
			log_err("overlay: %s: %s within %u ms", d->ifname,
				want_handshake ? "no handshake with the other end"
					       : "the daemon did not answer",
				timeout_ms);
			return -ETIMEDOUT;
		}
		clock_sleep_until_ns(clock_now_ns() + 50 * NSEC_PER_MSEC);
	}
}

int ovl_netns_ino(uint64_t *ino)
{
	int fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = control_netns_ino(fd, ino);
	close(fd);
	return r;
}

int ovl_daemon_start(const struct ovl_daemon_spec *spec, struct ovl_daemon *d)
{
	pid_t parent = getpid();
	int files[2] = { -1, -1 }, r;

	memset(d, 0, sizeof(*d));
	snprintf(d->ifname, sizeof(d->ifname), "%s", spec->ifname);
	r = ovl_netns_ino(&d->netns_ino);
	if (r == 0)
		r = make_files(spec, files);
	if (r < 0)
		return r;
	d->pid = fork();
	if (d->pid == 0)
		exec_daemon((const int[3]){ spec->underlay_fd, files[0], files[1] }, parent);
	if (d->pid < 0) {
		r = -errno;
		d->pid = 0;
	}
	if (r == 0) {
		d->start_time = ovl_proc_start_time(d->pid);
		r = wait_for(d, "peers", false, OVERLAY_READY_TIMEOUT_MS);
	}
	/* The daemon read its key at start-up: empty the memory file it keeps
	 * open, so that the key lives on only in its guarded memory. */
	if (ftruncate(files[0], 0) < 0)
		log_warn("overlay: cannot empty the key's memory file: %s", strerror(errno));
	close(files[0]);
	close(files[1]);
	if (r < 0)
		ovl_daemon_stop(d);
	return r;
}

int ovl_daemon_wait_handshake(struct ovl_daemon *d, unsigned timeout_ms)
{
	return wait_for(d, "peers_with_handshake", true, timeout_ms);
}

bool ovl_daemon_alive(struct ovl_daemon *d)
{
	if (d->pid <= 0)
		return false;
	if (waitpid(d->pid, NULL, WNOHANG) == d->pid) {
		d->pid = 0; /* reaped: never signal a pid that may be reused */
		return false;
	}
	return true;
}

int ovl_daemon_stop(struct ovl_daemon *d)
{
	uint64_t deadline;
	int st = 0;

	if (d->pid <= 0)
		return 0;
	kill(d->pid, SIGTERM);
	deadline = clock_now_ns() + OVERLAY_STOP_TIMEOUT_MS * NSEC_PER_MSEC;
	for (;;) {
		pid_t w = waitpid(d->pid, &st, WNOHANG);

		if (w == d->pid || (w < 0 && errno != EINTR))
			break;
		if (clock_now_ns() > deadline) {
			log_warn("overlay: the daemon of %s ignored SIGTERM: killed", d->ifname);
			kill(d->pid, SIGKILL);
			waitpid(d->pid, &st, 0);
			break;
		}
		clock_sleep_until_ns(clock_now_ns() + 20 * NSEC_PER_MSEC);
	}
	d->pid = 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -ECHILD;
}
