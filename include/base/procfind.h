/* SPDX-License-Identifier: MIT */
/*
 * The processes a scenario's `process` key names (an external VPN's
 * daemon): by name, every process whose comm or argv[0]'s base name is
 * that name ("wireguard-go"), or by a pid file ("/run/vpn.pid", an
 * absolute path), read from a /proc tree; and which network namespace
 * each one is in, to tell the lab host it runs on.
 */
#ifndef OVLPERF_PROCFIND_H
#define OVLPERF_PROCFIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest comm the kernel keeps (TASK_COMM_LEN less its NUL). */
#define PROCFIND_COMM_MAX 15

/* Whether spec names a pid file (an absolute path) rather than a name. */
bool procfind_is_pidfile(const char *spec);

/* The processes spec names under proc_root ("/proc"), in ascending pid
 * order, at most max into pids. Returns how many (0: none running, or a
 * pid file whose process is gone), or -errno: a pid file that cannot be
 * read (its errno) or holds no pid (-EINVAL). */
int procfind(const char *proc_root, const char *spec, int *pids, unsigned max);

/* Process pid's comm into buf ("" and -errno when it is gone). */
int procfind_comm(const char *proc_root, int pid, char *buf, size_t len);

/* The identity of process pid's network namespace (device and inode of
 * /proc/PID/ns/net); 0 or -errno. */
int procfind_netns(const char *proc_root, int pid, uint64_t *dev, uint64_t *ino);

/* The processes holding TUN device ifname: an fd of theirs that links to
 * /dev/net/tun whose /proc/PID/fdinfo/N says "iff:\tIFNAME" (the kernel's
 * tun_chr_show_fdinfo), in ascending pid order, at most max into pids.
 * Returns how many, or -errno when proc_root cannot be read. A TUN of
 * that name in another network namespace matches too: the caller tells
 * them apart (procfind_netns). */
int procfind_tun(const char *proc_root, const char *ifname, int *pids, unsigned max);

/* Calls fn with each of process pid's fds (its name under /proc/PID/fd)
 * and what it links to ("socket:[123]", "/dev/net/tun"), until fn
 * returns true; whether one did (false too when the fds cannot be read). */
typedef bool (*procfind_fd_fn)(const char *fd, const char *target, void *arg);
bool procfind_each_fd(const char *proc_root, int pid, procfind_fd_fn fn, void *arg);

/* The inodes of process pid's sockets (its fds that link to
 * "socket:[INODE]"), at most max; how many, or -errno. */
int procfind_sockets(const char *proc_root, int pid, uint64_t *inodes, unsigned max);

#endif
