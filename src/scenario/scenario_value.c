// SPDX-License-Identifier: MIT
/*
 * The value readers under their scenario names (scenario.h): value.h's, with
 * the bounds a scenario puts on them (durations up to 24 h). The key handlers
 * (scenario_keys.c) call value_get() for its messages, which state the range.
 */
#include <stdint.h>

#include "scenario.h"
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
