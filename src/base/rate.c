// SPDX-License-Identifier: MIT
/* One parser for bit rates (include/base/rate.h); the number is value.h's
 * decimal, as every other option and scenario key reads it. */
#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "rate.h"
#include "value.h"

static bool in_range(double v, uint64_t *bps)
{
	if (!(v <= RATE_MAX_BPS))
		return false;
	*bps = (uint64_t)llround(v);
	return true;
}

bool rate_parse(const char *s, uint64_t *bps)
{
	static const struct {
		char c;
		double mult;
	} prefixes[] = { { 'k', 1e3 }, { 'm', 1e6 }, { 'g', 1e9 }, { 't', 1e12 } };
	/* "bit..." in any case; the short forms only with a lower-case b: "B",
	 * "B/s" and "Bps" say bytes, which no rate here is. */
	static const char *const units[] = { "", "bit/s", "bits/s", "bit", "bits" };
	static const char *const short_units[] = { "bps", "b/s", "b" };
	const char *end, *num_end;
	double v;

	if (!s || !value_decimal(s, &v, &end))
		return false;
	num_end = end;
	while (*end == ' ' || *end == '\t')
		end++;
	if (!*end && end != num_end)
		return false; /* blanks lead to a unit, never end the string */
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		if (tolower((unsigned char)*end) == prefixes[i].c) {
			v *= prefixes[i].mult;
			end++;
			break;
		}
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(end, units[i]))
			return in_range(v, bps);
	for (size_t i = 0; i < sizeof(short_units) / sizeof(short_units[0]); i++)
		if (!strcmp(end, short_units[i]))
			return in_range(v, bps);
	return false;
}
