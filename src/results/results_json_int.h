/* SPDX-License-Identifier: MIT */
/*
 * Between the two halves of run.json's writer: results_json.c (the run as
 * recorded: head, paths, links, trials, knees, MTU checks) and
 * results_json_summary.c (the derived sections), and the building blocks
 * both use (results_json_add.c). Private to them.
 */
#ifndef OVLPERF_RESULTS_JSON_INT_H
#define OVLPERF_RESULTS_JSON_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <cJSON.h>

#include "results.h"
#include "results_fields.h"

/* A new object holding the n fields of base (NULL when out of memory). */
cJSON *rj_obj_of(const void *base, const struct field *f, size_t n);
/* Adds child under name; on failure deletes child and returns false. */
bool rj_add_child(cJSON *parent, const char *name, cJSON *child);
/* Appends item; on failure deletes it and returns false. */
bool rj_add_array_item(cJSON *arr, cJSON *item);
bool rj_add_str(cJSON *o, const char *name, const char *s);
/* A number; NaN and infinities as 0 (JSON has neither). */
bool rj_add_num(cJSON *o, const char *name, double v);
/* Where datagrams were lost, under key, and what the fixes name under
 * detail_key when the run knew any of it. */
bool rj_add_loss(cJSON *o, const char *key, const char *detail_key, const struct loss_attrib *l);

/* "summary", "overhead", "breakdown" and "delay_loads" of run, under root. */
bool results_json_add_derived(cJSON *root, const struct results_run *run);

#endif
