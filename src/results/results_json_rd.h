/* SPDX-License-Identifier: MIT */
/*
 * The building blocks of run.json's reader (results_json_read.c), private
 * to src/results/. Each returns 0, or -EINVAL with the field's path and
 * what is wrong with it in rd->err.
 */
#ifndef OVLPERF_RESULTS_JSON_RD_H
#define OVLPERF_RESULTS_JSON_RD_H

#include <stdbool.h>
#include <stddef.h>

#include <cJSON.h>

#include "results_fields.h"

struct rd {
	char *err;
	size_t errlen;
	char where[96]; /* e.g. "trials[3]" */
};

/* "trials[3].rate_bps: is not a number" into rd->err; -EINVAL. */
int rd_error(struct rd *rd, const char *field, const char *what);
/* The n fields of base from obj, each type-checked; absent ones stay. */
int rd_fields(struct rd *rd, const cJSON *obj, void *base, const struct field *f, size_t n);
/* Copies an optional string member; a present non-string is an error. */
int rd_str(struct rd *rd, const cJSON *obj, const char *name, char *dst, size_t len, bool required);
/* Descends into a member for error messages; returns the length to pop to. */
size_t rd_push(struct rd *rd, const char *name);
/* The fields of member name, when present. */
int rd_sub(struct rd *rd, const cJSON *obj, const char *name, void *base, const struct field *f,
	   size_t n);

#endif
