/* SPDX-License-Identifier: MIT */
/*
 * Named network namespaces the way `ip netns add` makes them: a file under
 * /run/netns (a shared mount) on which the namespace is bind-mounted, so that
 * `ip netns exec NAME` and setns() by path both work. Returns 0 or -errno.
 */
#ifndef OVLPERF_NETNS_H
#define OVLPERF_NETNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Path of a named namespace; -ENAMETOOLONG if it does not fit. */
int netns_path(const char *name, char *buf, size_t len);
/* Creates the empty file that reserves NAME (O_EXCL): -EEXIST if taken. */
int netns_claim(const char *name);
/* Makes a new namespace and bind-mounts it on the claimed file. The calling
 * thread's namespace is untouched (a helper thread does the unshare).
 * IPv6 DAD is switched off in it. *ino identifies the namespace. */
int netns_mount(const char *name, uint64_t *ino);
/* Inode of the namespace mounted at NAME; -ENOENT if there is no file,
 * -ENXIO if the file is not a namespace (an unmounted claim). */
int netns_ino(const char *name, uint64_t *ino);
/* Kills every process whose network namespace is NAME's: SIGTERM, up to
 * grace_ms, then SIGKILL. Our own process is spared. Returns the number of
 * processes signalled or -errno. */
int netns_kill_procs(const char *name, unsigned grace_ms);
/* Kills the processes inside, unmounts and unlinks. expect_ino: the inode
 * recorded at creation (0: only an unmounted claim may be removed). -EPERM
 * if NAME is now some other namespace; 0 if it does not exist. */
int netns_delete(const char *name, uint64_t expect_ino);
/* O_RDONLY|O_CLOEXEC descriptor of NAME, or of the calling thread's own
 * namespace when name is NULL. */
int netns_open(const char *name);
/* setns(fd, CLONE_NEWNET) for the calling thread. */
int netns_enter_fd(int fd);
/* Writes a /proc/sys value inside the calling thread's namespace. */
int netns_sysctl(const char *path, const char *value);

#endif
