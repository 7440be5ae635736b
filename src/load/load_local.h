/* SPDX-License-Identifier: MIT */
/*
 * The client's own samples of its streams at each interval tick: what each
 * stream's sender wrote or receiver read, and a TCP sender's TCP_INFO (the
 * figures iperf3's interval reports carry), into res->local.
 */
#ifndef OVLPERF_LOAD_LOCAL_H
#define OVLPERF_LOAD_LOCAL_H

#include "load_result.h"
#include "load_spec.h"
#include "load_streams.h"
#include "proto.h"

struct load_local {
	struct proto_interval prev[LOAD_MAX_STREAMS]; /* cumulative at the last tick */
};

void load_local_init(struct load_local *l);
/* Samples every stream of ls for the interval iv (load_streams_interval's,
 * relative to the start) and appends it to res->local; at most max
 * intervals are kept. 0, -ENOSPC past max, or -ENOMEM. */
int load_local_sample(struct load_local *l, const struct load_streams *ls,
		      const struct proto_interval *iv, uint64_t omit_ns, unsigned max,
		      struct load_result *res);
/* Frees res->local. */
void load_local_free(struct load_result *res);

#endif
