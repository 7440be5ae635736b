// SPDX-License-Identifier: MIT
/*
 * Values of scenario keys and command-line options: rates, durations,
 * percentages, booleans, whole numbers and lists of them. Each parser takes
 * the whole string or nothing; no strtod (it accepts "inf", "nan", hex and
 * leading blanks, none of which belong in a scenario).
 */
#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "rate.h"
#include "scenario.h"

#define DURATION_MAX_S (24.0 * 3600)

/* A non-negative decimal number "12", "1.5", ".5"; *end after it. */
static bool parse_decimal(const char *s, double *v, const char **end)
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
	*v = x;
	*end = s;
	return true;
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

bool scenario_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double sec;
	} units[] = { { "", 1 },      { "s", 1 },  { "sec", 1 }, { "ms", 1e-3 },
		      { "us", 1e-6 }, { "m", 60 }, { "min", 60 } };
	const char *end;
	double v;

	if (!parse_decimal(s, &v, &end))
		return false;
	end = skip_blanks(end);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcasecmp(end, units[i].unit)) {
			double sec = v * units[i].sec;

			if (sec > DURATION_MAX_S)
				return false;
			*ns = (uint64_t)(sec * 1e9 + 0.5);
			return true;
		}
	}
	return false;
}

bool scenario_parse_bool(const char *s, bool *v)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*v = true;
			return true;
		}
		if (!strcasecmp(s, no[i])) {
			*v = false;
			return true;
		}
	}
	return false;
}

bool scenario_parse_percent(const char *s, double *pct)
{
	const char *end;
	double v;

	if (!parse_decimal(s, &v, &end))
		return false;
	end = skip_blanks(end);
	if (*end == '%')
		end++;
	if (*end || v > 100)
		return false;
	*pct = v;
	return true;
}

bool scenario_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (!isdigit((unsigned char)*s))
		return false;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return false;
		if (x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (x < min || x > max)
		return false;
	*v = x;
	return true;
}

bool scenario_parse_list(const char *s, uint64_t min, uint64_t lim, uint64_t *vals, unsigned max,
			 unsigned *n)
{
	unsigned count = 0;

	for (;;) {
		char item[24];
		size_t len;
		const char *comma;

		s = skip_blanks(s);
		comma = strchr(s, ',');
		len = comma ? (size_t)(comma - s) : strlen(s);
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		if (!len || len >= sizeof(item) || count >= max)
			return false;
		memcpy(item, s, len);
		item[len] = '\0';
		if (!scenario_parse_uint(item, min, lim, &vals[count]))
			return false;
		count++;
		if (!comma)
			break;
		s = comma + 1;
	}
	*n = count;
	return true;
}
