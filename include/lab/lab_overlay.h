/* SPDX-License-Identifier: MIT */
/*
 * The built-in overlay inside a lab: one `ovlperf tunnel up CONF` daemon per
 * host, with freshly generated keys and configs in a private 0700 temporary
 * directory, so that host B's overlay address is reachable from host A.
 * Returns 0 or a negative errno.
 */
#ifndef OVLPERF_LAB_OVERLAY_H
#define OVLPERF_LAB_OVERLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "lab.h"

struct lab_overlay_spec {
	unsigned link;	     /* which underlay link carries the tunnel (usually 0) */
	uint32_t mtu;	     /* 0: underlay MTU minus overhead */
	const char *cipher;  /* NULL: "auto" */
	int underlay_family; /* AF_INET (default) or AF_INET6 */
	const char *extra;   /* extra "key = value" lines for [interface], or NULL */
	/* The daemons outlive the caller (`lab up --overlay`): each starts a
	 * session of its own, and logs to lab_overlay_log_path() instead of
	 * the caller's stderr, which a pipe may be waiting on. */
	bool detach;
};

struct lab_overlay;

/* Starts the daemons in every host of the lab and waits until each device is up. */
int lab_overlay_up(const struct lab *lab, const struct lab_overlay_spec *spec,
		   struct lab_overlay **out);
/* Stops the daemons (their devices go with them) and removes the key files. */
int lab_overlay_down(struct lab_overlay *ov);
/* Overlay address of host h (198.19.0.(h+1) or 2001:2:0:ff::(h+1)). */
int lab_overlay_addr(const struct lab_overlay *ov, unsigned host, int family,
		     struct sockaddr_storage *ss);
/* Name of the TUN device in host h (e.g. "ovl0"). */
const char *lab_overlay_ifname(const struct lab_overlay *ov, unsigned host);
/* The log file of host h's daemon when started with detach
 * (/run/ovlperf/labs/<lab>.overlay-<h>.log; lab_down() removes it); host < 0
 * gives the name of them all, with H for the host, for messages. */
int lab_overlay_log_path(const char *lab_name, int host, char *buf, size_t len);
/* The data cipher host h's daemon runs with its first peer, and why
 * (`tunnel show`: session_cipher, session_cipher_impl, session_cipher_by,
 * cipher_order); the fields are "" when the daemon does not say. */
struct lab_overlay_cipher {
	char name[24];
	char impl[16];
	char by[32];
	char order[16];
};
/* 0, or -errno if the daemon does not answer. */
int lab_overlay_cipher(const struct lab_overlay *ov, unsigned host, struct lab_overlay_cipher *out);
/* Whether the daemon in host h is still running. */
bool lab_overlay_alive(const struct lab_overlay *ov, unsigned host);
/* The pid of host h's daemon as this process started it (0: none, or one
 * started detached, whose pid is its own session's). */
int lab_overlay_pid(const struct lab_overlay *ov, unsigned host);

#endif
