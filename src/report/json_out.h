/* SPDX-License-Identifier: MIT */
/*
 * Printing a cJSON document as the one result on a stream.
 */
#ifndef OVLPERF_JSON_OUT_H
#define OVLPERF_JSON_OUT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "load_result.h"

/* Prints root (indented, one trailing newline) on f and frees it; root may
 * be NULL (the builder ran out of memory). Returns 0, -ENOMEM or -EIO. */
int json_out_print(FILE *f, cJSON *root);
/* {"client": "other", "server": "fifo:1"}: how each end's test threads ran
 * (load_result.h); an end that did not say is null. NULL when out of memory. */
cJSON *json_out_sched(const struct load_sched *client, const struct load_sched *server);

#endif
