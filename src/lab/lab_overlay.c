// SPDX-License-Identifier: MIT
/*
 * The built-in overlay inside a lab: keys and configs in a private 0700
 * directory, one `ovlperf tunnel up` daemon per host (spawned into the host's
 * namespace), ready once every daemon answers on its control socket with a
 * completed handshake to every peer.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "control.h"
#include "interrupt.h"
#include "key.h"
#include "lab_int.h"
#include "lab_overlay.h"
#include "log.h"

#define OVERLAY_PORT		 51900
#define OVERLAY_IFNAME		 "ovl0"
#define OVERLAY_READY_TIMEOUT_MS 15000
#define OVERLAY_STOP_TIMEOUT_MS	 5000

struct lab_overlay {
	const struct lab *lab;
	unsigned nhosts;
	char dir[96]; /* paths under it fit in 128 */
	pid_t pid[LAB_MAX_HOSTS];
	bool detached; /* pid[] are the detached spawns', not the daemons' */
	uint64_t netns_ino[LAB_MAX_HOSTS];
	uint8_t pub[LAB_MAX_HOSTS][KEY_LEN];
};

int lab_overlay_addr(const struct lab_overlay *ov, unsigned host, int family,
		     struct sockaddr_storage *ss)
{
	(void)ov;
	memset(ss, 0, sizeof(*ss));
	if (host >= LAB_MAX_HOSTS || host > 253)
		return -EINVAL;
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = htonl(0xC6130000u | (host + 1)); /* 198.19.0.h+1 */
		return 0;
	}
	if (family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
		static const uint8_t base[16] = { 0x20, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0xff };

		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, base, 16);
		sin6->sin6_addr.s6_addr[15] = (uint8_t)(host + 1);
		return 0;
	}
	return -EAFNOSUPPORT;
}

const char *lab_overlay_ifname(const struct lab_overlay *ov, unsigned host)
{
	(void)ov;
	(void)host;
	return OVERLAY_IFNAME;
}

int lab_overlay_pid(const struct lab_overlay *ov, unsigned host)
{
	return ov && host < ov->nhosts && ov->pid[host] > 0 && !ov->detached ? (int)ov->pid[host]
									     : 0;
}

bool lab_overlay_alive(const struct lab_overlay *ov, unsigned host)
{
	if (!ov || host >= ov->nhosts || ov->pid[host] <= 0)
		return false;
	return waitpid(ov->pid[host], NULL, WNOHANG) == 0;
}

/* The link host h is best reached on: the overlay's link if h is an end of it. */
static int endpoint_of(const struct lab *lab, const struct lab_overlay_spec *spec, unsigned h,
		       char *buf, size_t len)
{
	const struct lab_spec *ls = lab_get_spec(lab);
	struct sockaddr_storage ss;
	char host[INET6_ADDRSTRLEN];
	unsigned link = spec->link;
	int family = spec->underlay_family ? spec->underlay_family : AF_INET;
	int r, n;

	if (link >= ls->nlinks || (ls->links[link].a != h && ls->links[link].b != h))
		for (link = 0; link < ls->nlinks; link++)
			if (ls->links[link].a == h || ls->links[link].b == h)
				break;
	if (link >= ls->nlinks)
		return -EHOSTUNREACH;
	r = lab_host_addr(lab, h, link, family, &ss);
	if (r < 0)
		return r;
	if (family == AF_INET) {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof(host));
		n = snprintf(buf, len, "%s:%d", host, OVERLAY_PORT);
	} else {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof(host));
		n = snprintf(buf, len, "[%s]:%d", host, OVERLAY_PORT);
	}
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

static int write_keys(struct lab_overlay *ov)
{
	if (sodium_init() < 0)
		return -EIO;
	for (unsigned h = 0; h < ov->nhosts; h++) {
		uint8_t *priv = key_alloc();
		char path[128];
		int r;

		if (!priv)
			return -ENOMEM;
		key_generate(priv);
		r = key_public(ov->pub[h], priv);
		snprintf(path, sizeof(path), "%s/host%u.key", ov->dir, h);
		if (r == 0)
			r = key_write_file(path, priv);
		key_free(priv);
		if (r < 0)
			return r;
	}
	return 0;
}

static int write_config(struct lab_overlay *ov, const struct lab_overlay_spec *spec, unsigned h)
{
	char path[128], ep[80], b64[KEY_B64_LEN + 1];
	FILE *f;
	int fd, r = 0;

	snprintf(path, sizeof(path), "%s/host%u.conf", ov->dir, h);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	fprintf(f, "; written by lab_overlay_up for lab host %u\n[interface]\n", h);
	fprintf(f, "private_key_file = host%u.key\nlisten = %d\n", h, OVERLAY_PORT);
	fprintf(f, "address = 198.19.0.%u/24, 2001:2:0:ff::%x/64\nname = %s\n", h + 1, h + 1,
		OVERLAY_IFNAME);
	if (spec->mtu)
		fprintf(f, "mtu = %u\n", spec->mtu);
	fprintf(f, "cipher = %s\n", spec->cipher ? spec->cipher : "auto");
	if (spec->extra)
		fprintf(f, "%s\n", spec->extra);
	for (unsigned j = 0; j < ov->nhosts && r == 0; j++) {
		if (j == h)
			continue;
		key_to_base64(b64, ov->pub[j]);
		r = endpoint_of(ov->lab, spec, j, ep, sizeof(ep));
		fprintf(f, "\n[peer]\npublic_key = %s\nendpoint = %s\n", b64, ep);
		fprintf(f, "allowed_ips = 198.19.0.%u/32, 2001:2:0:ff::%x/128\n", j + 1, j + 1);
	}
	if (fclose(f) != 0 && r == 0)
		r = -EIO;
	return r;
}

/* How many of a daemon's peers have completed a handshake; -errno if it does not answer. */
static int handshakes_done(const struct lab_overlay *ov, unsigned h)
{
	char path[128], val[32];
	char *reply = malloc(CONTROL_REPLY_MAX);
	ssize_t n;
	int r;

	if (!reply)
		return -ENOMEM;
	r = control_path(ov->netns_ino[h], OVERLAY_IFNAME, path, sizeof(path));
	if (r == 0) {
		n = control_request(path, "show", reply, CONTROL_REPLY_MAX, 1000);
		r = n < 0 ? (int)n : control_get(reply, "peers_with_handshake", val, sizeof(val));
		if (r == 0)
			r = atoi(val);
	}
	free(reply);
	return r;
}

int lab_overlay_cipher(const struct lab_overlay *ov, unsigned host, struct lab_overlay_cipher *out)
{
	char path[128];
	char *reply = malloc(CONTROL_REPLY_MAX);
	ssize_t n;
	int r;

	memset(out, 0, sizeof(*out));
	if (!reply)
		return -ENOMEM;
	r = host < ov->nhosts
		    ? control_path(ov->netns_ino[host], OVERLAY_IFNAME, path, sizeof(path))
		    : -EINVAL;
	if (r == 0) {
		n = control_request(path, "show", reply, CONTROL_REPLY_MAX, 1000);
		if (n < 0)
			r = (int)n;
	}
	if (r == 0) {
		/* A key the daemon does not print (an older one) stays "". */
		(void)control_get(reply, "session_cipher", out->name, sizeof(out->name));
		(void)control_get(reply, "session_cipher_impl", out->impl, sizeof(out->impl));
		(void)control_get(reply, "session_cipher_by", out->by, sizeof(out->by));
		(void)control_get(reply, "cipher_order", out->order, sizeof(out->order));
	}
	free(reply);
	return r;
}

static int wait_ready(struct lab_overlay *ov)
{
	uint64_t deadline = clock_now_ns() + OVERLAY_READY_TIMEOUT_MS * NSEC_PER_MSEC;
	unsigned ready = 0;

	while (ready < ov->nhosts) {
		ready = 0;
		for (unsigned h = 0; h < ov->nhosts; h++) {
			if (!lab_overlay_alive(ov, h)) {
				log_err("overlay daemon in lab host %u exited during start-up", h);
				return -ECHILD;
			}
			if (handshakes_done(ov, h) == (int)ov->nhosts - 1)
				ready++;
		}
		if (ready == ov->nhosts)
			break;
		if (interrupt_requested())
			return -EINTR;
		if (clock_now_ns() > deadline) {
			log_err("overlay: %u of %u hosts completed their handshakes in %u ms",
				ready, ov->nhosts, OVERLAY_READY_TIMEOUT_MS);
			return -ETIMEDOUT;
		}
		usleep(50 * 1000);
	}
	return 0;
}

/* A detached daemon's stdout and stderr: its log file, opened here so that
 * a failure is this command's error, not a daemon's silent exit. */
static int open_log(const struct lab_overlay *ov, unsigned h, char *path, size_t len)
{
	int fd, r = lab_overlay_log_path(lab_get_spec(ov->lab)->name, (int)h, path, len);

	if (r < 0)
		return r;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0640);
	if (fd < 0) {
		r = -errno;
		log_err("overlay: cannot open %s: %s", path, strerror(errno));
		return r;
	}
	return fd;
}

static int spawn_all(struct lab_overlay *ov, bool detach)
{
	ov->detached = detach;
	for (unsigned h = 0; h < ov->nhosts; h++) {
		char conf[128], log[256];
		char *argv[] = { "/proc/self/exe", "tunnel", "up", conf, NULL };
		/* Time-stamped lines in the detached daemon's log. */
		char *dargv[] = { "/proc/self/exe", "--logfile", log, "tunnel", "up", conf, NULL };
		int fd, r;

		snprintf(conf, sizeof(conf), "%s/host%u.conf", ov->dir, h);
		fd = lab_netns_fd(ov->lab, h);
		if (fd < 0)
			return fd;
		r = control_netns_ino(fd, &ov->netns_ino[h]);
		close(fd);
		if (r < 0)
			return r;
		if (detach) {
			fd = open_log(ov, h, log, sizeof(log));
			if (fd < 0)
				return fd;
			ov->pid[h] = lab_spawn_detached(ov->lab, h, dargv, fd, fd);
			close(fd);
		} else {
			ov->pid[h] = lab_spawn(ov->lab, h, argv, -1, -1);
		}
		if (ov->pid[h] < 0) {
			r = (int)ov->pid[h];
			ov->pid[h] = 0;
			return r;
		}
	}
	return 0;
}

static void remove_dir(const char *dir, unsigned nhosts)
{
	char path[128];

	for (unsigned h = 0; h < nhosts; h++) {
		snprintf(path, sizeof(path), "%s/host%u.key", dir, h);
		unlink(path);
		snprintf(path, sizeof(path), "%s/host%u.conf", dir, h);
		unlink(path);
	}
	if (rmdir(dir) < 0 && errno != ENOENT)
		log_warn("cannot remove %s: %s", dir, strerror(errno));
}

int lab_overlay_up(const struct lab *lab, const struct lab_overlay_spec *spec,
		   struct lab_overlay **out)
{
	static const struct lab_overlay_spec defaults = { .underlay_family = AF_INET };
	struct lab_overlay *ov;
	const char *tmp;
	int r;

	*out = NULL;
	if (!spec)
		spec = &defaults;
	ov = calloc(1, sizeof(*ov));
	if (!ov)
		return -ENOMEM;
	ov->lab = lab;
	ov->nhosts = lab_get_spec(lab)->nhosts;
	/* under $TMPDIR when it names a directory (as mktemp(1) does), else /tmp */
	tmp = getenv("TMPDIR");
	if (!tmp || tmp[0] != '/' ||
	    (size_t)snprintf(ov->dir, sizeof(ov->dir), "%s/ovlperf-overlay-XXXXXX", tmp) >=
		    sizeof(ov->dir))
		snprintf(ov->dir, sizeof(ov->dir), "/tmp/ovlperf-overlay-XXXXXX");
	if (!mkdtemp(ov->dir)) { /* mkdtemp makes it 0700 */
		r = -errno;
		free(ov);
		return r;
	}
	r = write_keys(ov);
	for (unsigned h = 0; h < ov->nhosts && r == 0; h++)
		r = write_config(ov, spec, h);
	if (r == 0)
		r = spawn_all(ov, spec->detach);
	if (r == 0)
		r = wait_ready(ov);
	/* The daemons read their keys at start-up and need no file afterwards:
	 * no secret stays on disk while the overlay runs. */
	remove_dir(ov->dir, ov->nhosts);
	if (r < 0) {
		log_err("cannot start the built-in overlay: %s", strerror(-r));
		lab_overlay_down(ov);
		return r;
	}
	*out = ov;
	return 0;
}

int lab_overlay_down(struct lab_overlay *ov)
{
	int r = 0;

	if (!ov)
		return 0;
	for (unsigned h = 0; h < ov->nhosts; h++) {
		if (ov->pid[h] <= 0)
			continue;
		int st = lab_reap(ov->pid[h], OVERLAY_STOP_TIMEOUT_MS);

		if (st != 0 && r == 0)
			r = st < 0 ? st : -ECHILD;
		ov->pid[h] = 0;
	}
	free(ov);
	return r;
}
