/* SPDX-License-Identifier: MIT */
/* A TCP socket's congestion control (TCP_CONGESTION, tcp(7)); its TCP_INFO
 * is sockopt_tcp_info(). */
#ifndef OVLPERF_TCP_CONGESTION_H
#define OVLPERF_TCP_CONGESTION_H

#include <stddef.h>

/* The socket's congestion control algorithm into name (NUL-terminated). */
int tcp_congestion_get(int fd, char *name, size_t n);
/* Sets it; -ENOENT when the kernel has no such algorithm, -EPERM when it is
 * not in net.ipv4.tcp_allowed_congestion_control for an unprivileged user. */
int tcp_congestion_set(int fd, const char *name);
/* What a new TCP socket of family gets: with name, whether it can be set
 * (then effective is name), else the host's default into effective. */
int tcp_congestion_probe(int family, const char *name, char *effective, size_t n);

#endif
