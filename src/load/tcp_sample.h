/* SPDX-License-Identifier: MIT */
/*
 * What a TCP socket's kernel state says at one moment (TCP_INFO as Linux
 * defines it, with the fields glibc's struct tcp_info lacks), and its
 * congestion control (TCP_CONGESTION, tcp(7)).
 */
#ifndef OVLPERF_TCP_SAMPLE_H
#define OVLPERF_TCP_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tcp_sample {
	uint32_t total_retrans;
	uint32_t snd_cwnd_bytes; /* congestion window in packets times snd_mss */
	uint32_t snd_wnd;	 /* the peer's advertised receive window */
	bool snd_wnd_known;	 /* the kernel reports it (5.4 and later) */
	uint32_t rtt_us, rttvar_us, pmtu;
};

/* 0 or a negative errno. */
int tcp_sample_read(int fd, struct tcp_sample *s);
/* The socket's congestion control algorithm into name (NUL-terminated). */
int tcp_congestion_get(int fd, char *name, size_t n);
/* Sets it; -ENOENT when the kernel has no such algorithm, -EPERM when it is
 * not in net.ipv4.tcp_allowed_congestion_control for an unprivileged user. */
int tcp_congestion_set(int fd, const char *name);
/* What a new TCP socket of family gets: with name, whether it can be set
 * (then effective is name), else the host's default into effective. */
int tcp_congestion_probe(int family, const char *name, char *effective, size_t n);

#endif
