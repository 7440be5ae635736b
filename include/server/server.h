/* SPDX-License-Identifier: MIT */
/*
 * `ovlperf server`: owns one port, TCP and UDP (IPv4 and IPv6 on one
 * dual-stack socket each unless bound to one address), where control
 * connections, data connections, UDP streams and MTU probes all arrive
 * (proto.h: the demux); serves each client in its own thread so a slow,
 * stalled or hostile client never holds up the others, enforces limits, and
 * with a PSK requires proof of the key before anything else. Logs go to
 * stderr; the server prints no results.
 */
#ifndef OVLPERF_SERVER_H
#define OVLPERF_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#define SERVER_DEFAULT_MAX_SESSIONS    16
#define SERVER_DEFAULT_MAX_DURATION_NS (3600ULL * 1000000000ULL)
#define SERVER_DEFAULT_IDLE_MS	       30000u

struct server_config {
	char bind_addr[64];	  /* "" : every address (dual stack) */
	uint16_t port;		  /* the one port, TCP and UDP; 0: LOAD_DEFAULT_PORT */
	int family;		  /* AF_UNSPEC, AF_INET or AF_INET6 */
	uint64_t max_duration_ns; /* per test, omit included */
	uint64_t max_rate_bps;	  /* 0: no limit */
	unsigned max_streams;	  /* 1..LOAD_MAX_STREAMS */
	unsigned max_sessions;	  /* control connections at once */
	char psk_file[256];	  /* "" : no authentication */
	bool one_shot;		  /* serve one test, then exit */
	uint32_t msg_timeout_ms;  /* a started message must complete within this */
	uint32_t idle_timeout_ms; /* a session may stay silent between messages this long */
	bool realtime;		  /* opt-in: UDP test threads SCHED_FIFO (load_spec.h) */
	bool overlay;		  /* serve the built-in overlay (overlay.h); needs a PSK */
	unsigned overlay_max;	  /* overlays at once */
	char overlay_state[256];  /* "" : the default state file */
	bool no_host_facts;	  /* answer as a server before HOST_FACTS did (to
				   * test clients against an older server) */
};

void server_config_defaults(struct server_config *cfg);

/* Runs until interrupted (or after one test with one_shot). 0, or a negative
 * errno when it could not start (e.g. the port is in use, a bad PSK file). */
int server_run(const struct server_config *cfg);

#endif
