// SPDX-License-Identifier: MIT
/* One parser for bit rates (include/rate.h). No strtod: it takes leading
 * blanks, a sign, hex, "inf" and "nan", none of which is a rate. */
#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "rate.h"

/* "12", "1.5", ".5", "1e9", "2.5E-1"; *end after it. */
static bool parse_number(const char *s, double *v, const char **end)
{
	double x = 0, scale = 1;
	bool digits = false;

	while (isdigit((unsigned char)*s)) {
		x = x * 10 + (*s++ - '0');
		digits = true;
		if (x > 1e18)
			return false;
	}
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s)) {
			scale /= 10;
			x += (*s++ - '0') * scale;
			digits = true;
		}
	}
	if (!digits)
		return false;
	/* An exponent only when digits follow: "1e" is not a number. */
	if ((*s == 'e' || *s == 'E') &&
	    (isdigit((unsigned char)s[1]) ||
	     ((s[1] == '-' || s[1] == '+') && isdigit((unsigned char)s[2])))) {
		int sign = 1, e = 0;

		s++;
		if (*s == '-' || *s == '+')
			sign = *s++ == '-' ? -1 : 1;
		while (isdigit((unsigned char)*s)) {
			e = e * 10 + (*s++ - '0');
			if (e > 30)
				return false;
		}
		x *= pow(10.0, sign * e);
	}
	*v = x;
	*end = s;
	return true;
}

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

	if (!s || !parse_number(s, &v, &end))
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
