/* SPDX-License-Identifier: MIT */
/* One end's test-thread scheduling into and out of its RESULTS (load_result.h). */
#ifndef OVLPERF_LOAD_SCHED_H
#define OVLPERF_LOAD_SCHED_H

#include "load_result.h"
#include "proto.h"
#include "udp_load.h"

/* The scheduling of n UDP stream threads (as they read it back), or with us
 * NULL of the TCP threads (the caller's own, which they inherit). */
void load_sched_of(const struct udp_stream *us, unsigned n, struct load_sched *s);
/* Into a RESULTS message (flags PROTO_RES_SCHED*, sched_prio) and back; an
 * older peer's RESULTS give LOAD_SCHED_UNKNOWN. */
void load_sched_put(const struct load_sched *s, struct proto_results *out);
void load_sched_get(const struct proto_results *in, struct load_sched *s);

#endif
