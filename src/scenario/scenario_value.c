// SPDX-License-Identifier: MIT
/*
 * The value readers under their scenario names (scenario.h): value.h's, with
 * the bounds a scenario puts on them (durations up to 24 h). The key handlers
 * (scenario_keys.c) call value_get() for its messages, which state the range.
 * And a path's type, read and named from one table.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "scenario_int.h"
#include "value.h"

bool scenario_parse_duration(const char *s, uint64_t *ns)
{
	uint64_t v;

	if (!value_duration(s, &v) || v > SCN_DURATION_MAX_NS)
		return false;
	*ns = v;
	return true;
}

bool scenario_parse_bool(const char *s, bool *v)
{
	return value_bool(s, v);
}

bool scenario_parse_percent(const char *s, double *pct)
{
	return value_percent(s, pct);
}

bool scenario_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	uint64_t x;

	if (!value_uint(s, &x) || x < min || x > max)
		return false;
	*v = x;
	return true;
}

bool scenario_parse_list(const char *s, uint64_t min, uint64_t lim, uint64_t *vals, unsigned max,
			 unsigned *n)
{
	unsigned count;

	if (!value_list(s, vals, max, &count))
		return false;
	for (unsigned i = 0; i < count; i++)
		if (vals[i] < min || vals[i] > lim)
			return false;
	*n = count;
	return true;
}

int scn_parse_pct_list(const char *s, double *vals, unsigned max, unsigned *n, char *why,
		       size_t whylen)
{
	char item[VALUE_WHY_MAX / 2];
	unsigned count = 0;

	for (const char *p = s;; p++) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		double v;

		while (len && isblank((unsigned char)*p))
			p++, len--;
		while (len && isblank((unsigned char)p[len - 1]))
			len--;
		if (count == max || !len || len >= sizeof(item)) {
			snprintf(why, whylen, "'%.40s' is not a list of 1 to %u percentages", s,
				 max);
			return -EINVAL;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		if (value_get_percent(item, 0, 100, &v, why, whylen))
			return -EINVAL;
		/* A load of nothing measures no queue at all. */
		if (v <= 0) {
			snprintf(why, whylen, "%s is out of range (above 0, up to 100 %%)", item);
			return -EINVAL;
		}
		for (unsigned i = 0; i < count; i++) {
			if (vals[i] == v) {
				snprintf(why, whylen, "%s is given twice", item);
				return -EINVAL;
			}
		}
		vals[count++] = v;
		if (!end)
			break;
		p = end;
	}
	*n = count;
	return 0;
}

static const char *const path_types[] = {
	[SCN_PATH_UNDERLAY] = "underlay",
	[SCN_PATH_BUILTIN] = "builtin",
	[SCN_PATH_EXTERNAL] = "external",
};

bool scn_parse_path_type(const char *s, enum scenario_path_type *type)
{
	for (size_t i = SCN_PATH_UNDERLAY; i < sizeof(path_types) / sizeof(path_types[0]); i++) {
		if (!strcasecmp(s, path_types[i])) {
			*type = (enum scenario_path_type)i;
			return true;
		}
	}
	return false;
}

const char *scenario_path_type_name(enum scenario_path_type type)
{
	if (type < SCN_PATH_UNDERLAY || (size_t)type >= sizeof(path_types) / sizeof(path_types[0]))
		return "?";
	return path_types[type];
}
