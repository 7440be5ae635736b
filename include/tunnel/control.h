/* SPDX-License-Identifier: MIT */
/*
 * The daemon's control socket: a UNIX stream socket under CONTROL_DIR, one
 * per device and network namespace (device names repeat across lab hosts, so
 * the path carries the namespace's inode: <netns-inode>.<dev>.sock). A client
 * writes one command line ("show", "show-keys", "stop") and reads the reply,
 * "key=value" lines, until the daemon closes. The directory is 0700 and the
 * socket 0600: only root talks to the daemon.
 */
#ifndef OVLPERF_TUNNEL_CONTROL_H
#define OVLPERF_TUNNEL_CONTROL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CONTROL_DIR	  "/run/ovlperf/tunnel"
#define CONTROL_REPLY_MAX (256 * 1024)
#define CONTROL_CMD_MAX	  64

/* Inode of the calling thread's network namespace, or of an nsfs fd. */
int control_netns_ino(int nsfd, uint64_t *ino);
/* Socket path for device ifname in netns ino (0: the caller's). */
int control_path(uint64_t ino, const char *ifname, char *buf, size_t len);

/* Creates the directory and a listening, non-blocking socket at path; a stale
 * socket (no daemon behind it) is replaced; a live one gives -EADDRINUSE. */
int control_listen(const char *path);

/* Sends cmd and reads the whole reply (NUL-terminated) into reply. Returns its
 * length or a negative errno; waits at most timeout_ms for the daemon. */
ssize_t control_request(const char *path, const char *cmd, char *reply, size_t cap,
			unsigned timeout_ms);

/* Value of the first "key=value" line in reply, copied to val; false if absent. */
int control_get(const char *reply, const char *key, char *val, size_t len);

/* Lists the devices with a control socket in netns ino: calls fn for each. */
int control_list(uint64_t ino, void (*fn)(void *ctx, const char *ifname), void *ctx);

#endif
