/* SPDX-License-Identifier: MIT */
/*
 * The daemon's end of the control socket (control.h): one client at a time,
 * served from the run loop between timer ticks. What "show" and "show-keys"
 * print and what "stop" does are the caller's, so this file knows neither the
 * device nor its status text.
 */
#ifndef OVLPERF_TUNNEL_CONTROL_SERVE_H
#define OVLPERF_TUNNEL_CONTROL_SERVE_H

#include <stdbool.h>
#include <stddef.h>

/* The timers wait while a client dawdles: this long for its command line. */
#define CONTROL_SERVE_WAIT_MS 200

struct control_handler {
	/* "show" / "show-keys": the reply into buf (NUL-terminated, truncated to
	 * cap); returns its length. */
	size_t (*status)(void *ctx, bool show_keys, char *buf, size_t cap);
	/* "stop": the daemon is asked to shut down. */
	void (*stop)(void *ctx);
	void *ctx;
};

/* Accepts one client on the non-blocking listen_fd (none waiting: returns at
 * once), reads its command line and answers it. An unknown command gets
 * "error=unknown command". */
void control_serve(int listen_fd, const struct control_handler *h);

#endif
