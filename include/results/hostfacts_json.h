/* SPDX-License-Identifier: MIT */
/*
 * One host's facts (hostfacts.h) as JSON, the same object in run.json's
 * trials[].host_facts and the client's host_facts (docs/json.md), and
 * read back from it.
 */
#ifndef OVLPERF_HOSTFACTS_JSON_H
#define OVLPERF_HOSTFACTS_JSON_H

#include <stdbool.h>

#include <cJSON.h>

#include "hostfacts.h"

/* {"client": ..., "server": ...}; NULL when out of memory. */
cJSON *hostfacts_json_pair(const struct hostfacts *client, const struct hostfacts *server);
/* One end's object; NULL when out of memory. */
cJSON *hostfacts_json(const struct hostfacts *f);

/* Reads one end's object into f (absent, null or not an object: unknown,
 * "not recorded"); a field of the wrong type reads as unknown too. */
void hostfacts_json_read(const cJSON *o, struct hostfacts *f);
/* The pair under o's "host_facts". */
void hostfacts_json_read_pair(const cJSON *o, struct hostfacts *client, struct hostfacts *server);

#endif
