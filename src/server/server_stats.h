/* SPDX-License-Identifier: MIT */
/*
 * What the server served and refused, logged when it stops: the operator's
 * view of hostile or broken clients. Counted from every thread at once.
 */
#ifndef OVLPERF_SERVER_STATS_H
#define OVLPERF_SERVER_STATS_H

#include <stdatomic.h>
#include <stdint.h>

#include "proto.h"

#define SERVER_REASONS (PROTO_R_VERSION + 1)
struct server_stats {
	atomic_uint_fast64_t sessions;		      /* control connections served */
	atomic_uint_fast64_t tests;		      /* tests that ran to their end */
	atomic_uint_fast64_t foreign_data;	      /* data connections/datagrams refused
						       * (other address, bad greeting) */
	atomic_uint_fast64_t refused[SERVER_REASONS]; /* ERROR/REJECT sent, by reason */
};

/* Counts an ERROR or TEST_REJECT sent, by its reason. */
void server_stats_refused(struct server_stats *st, uint16_t reason);
/* One log line: sessions, tests, refusals by reason, refused data. */
void server_stats_log(struct server_stats *st);

#endif
