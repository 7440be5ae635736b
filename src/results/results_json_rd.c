// SPDX-License-Identifier: MIT
/*
 * The building blocks of run.json's reader (results_json_rd.h): typed
 * fields, strings and sub-objects read with the path of the field in every
 * error.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results_json_rd.h"

/* "trials[3].rate_bps: is not a number" into rd->err; -EINVAL. */
int rd_error(struct rd *rd, const char *field, const char *what)
{
	snprintf(rd->err, rd->errlen, "%s%s%s: %s", rd->where, rd->where[0] ? "." : "", field,
		 what);
	return -EINVAL;
}

int rd_fields(struct rd *rd, const cJSON *obj, void *base, const struct field *f, size_t n)
{
	if (!cJSON_IsObject(obj))
		return rd_error(rd, "(object)", "is not an object");
	for (size_t i = 0; i < n; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, f[i].name);
		char *p = (char *)base + f[i].off;
		double d;

		if (!v)
			continue;
		if (f[i].type == F_BOOL) {
			if (!cJSON_IsBool(v))
				return rd_error(rd, f[i].name, "must be true or false");
			*(bool *)p = cJSON_IsTrue(v);
			continue;
		}
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
			return rd_error(rd, f[i].name, "must be a number");
		d = v->valuedouble;
		if (f[i].type != F_DBL && (d < 0 || d != floor(d)))
			return rd_error(rd, f[i].name, "must be a non-negative integer");
		switch (f[i].type) {
		case F_U64:
			if (d >= 18446744073709551616.0)
				return rd_error(rd, f[i].name, "is out of range");
			*(uint64_t *)p = (uint64_t)d;
			break;
		case F_U32:
		case F_UINT:
			if (d > UINT32_MAX)
				return rd_error(rd, f[i].name, "is out of range");
			if (f[i].type == F_U32)
				*(uint32_t *)p = (uint32_t)d;
			else
				*(unsigned *)p = (unsigned)d;
			break;
		default:
			*(double *)p = d;
			break;
		}
	}
	return 0;
}

/* Copies an optional string member; a present non-string is an error. */
int rd_str(struct rd *rd, const cJSON *obj, const char *name, char *dst, size_t len, bool required)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	if (!v) {
		if (required)
			return rd_error(rd, name, "is missing");
		dst[0] = '\0';
		return 0;
	}
	if (!cJSON_IsString(v))
		return rd_error(rd, name, "must be a string");
	snprintf(dst, len, "%s", v->valuestring);
	return 0;
}

/* Descends into a member for error messages; returns the length to pop to. */
size_t rd_push(struct rd *rd, const char *name)
{
	size_t l = strlen(rd->where);

	snprintf(rd->where + l, sizeof(rd->where) - l, "%s%s", l ? "." : "", name);
	return l;
}

int rd_sub(struct rd *rd, const cJSON *obj, const char *name, void *base, const struct field *f,
	   size_t n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	size_t l;
	int err;

	if (!v)
		return 0;
	l = rd_push(rd, name);
	err = rd_fields(rd, v, base, f, n);
	rd->where[l] = '\0';
	return err;
}
