/* SPDX-License-Identifier: MIT */
/*
 * Combines the sender's and the receiver's view of a test (struct
 * proto_results, one from each end) into the client's struct load_result:
 * sent counts from the sender, received/lost/duplicates/reordered/jitter/
 * one-way delay from the receiver, loss attributed place by place from both
 * ends' host counters. Pure: no sockets, no clock.
 */
#ifndef OVLPERF_LOAD_MERGE_H
#define OVLPERF_LOAD_MERGE_H

#include <stdbool.h>

#include "load_result.h"
#include "proto.h"

/* res->spec must be set. owd_valid: both ends share CLOCK_MONOTONIC.
 * Allocates res->streams (spec.streams entries). 0 or -ENOMEM. */
int load_merge(const struct proto_results *sender, const struct proto_results *receiver,
	       bool owd_valid, struct load_result *res);

#endif
