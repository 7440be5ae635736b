/* SPDX-License-Identifier: MIT */
/*
 * `ovlperf client --bidir`: both directions at once, as two simultaneous
 * tests (one the client sends, one the server sends), printed as iperf3
 * --bidir prints them.
 */
#ifndef OVLPERF_CLIENT_BIDIR_H
#define OVLPERF_CLIENT_BIDIR_H

#include <stdbool.h>

#include "load_spec.h"

enum client_output {
	CLIENT_TERM,	      /* tables */
	CLIENT_JSON,	      /* ovlperf's document */
	CLIENT_IPERF3,	      /* iperf3's -J document */
	CLIENT_IPERF3_STREAM, /* iperf3's --json-stream lines */
};

struct client_out {
	enum client_output mode;
	char units;	    /* -f */
	bool server_output; /* --get-server-output */
};

/* Runs spec (spec->reverse is ignored) both ways at once and prints both.
 * Returns the first failure's negative errno, or 0. */
int client_bidir_run(const struct client_out *out, const struct load_spec *spec);

#endif
