// SPDX-License-Identifier: MIT
/* One reader per kind of value for options and scenario keys (value.h). No
 * strtod or strtoul: they take leading blanks, a sign, hex, "inf" and
 * "nan", none of which is a value here. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rate.h"
#include "value.h"

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* "e3", "E-1", "e+6" after a number: an exponent only when digits follow,
 * so "1e" and "1eM" are not numbers. */
static bool exponent(const char **sp, double *x)
{
	const char *s = *sp;
	int sign = 1, e = 0;

	if (!((*s == 'e' || *s == 'E') &&
	      (isdigit((unsigned char)s[1]) ||
	       ((s[1] == '-' || s[1] == '+') && isdigit((unsigned char)s[2])))))
		return true;
	s++;
	if (*s == '-' || *s == '+')
		sign = *s++ == '-' ? -1 : 1;
	while (isdigit((unsigned char)*s)) {
		e = e * 10 + (*s++ - '0');
		if (e > 30)
			return false;
	}
	*x *= pow(10.0, sign * e);
	*sp = s;
	return true;
}

bool value_decimal(const char *s, double *v, const char **end)
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
	if (!digits || !exponent(&s, &x))
		return false;
	*v = x;
	*end = s;
	return true;
}

/* Leading digits into *v; *end after them. */
static bool digits(const char *s, uint64_t *v, const char **end)
{
	uint64_t x = 0;

	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++) {
		uint64_t d = (uint64_t)(*s - '0');

		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	*end = s;
	return true;
}

bool value_uint(const char *s, uint64_t *v)
{
	const char *end;
	uint64_t x;

	if (!digits(s, &x, &end) || *end)
		return false;
	*v = x;
	return true;
}

bool value_size(const char *s, uint64_t *bytes)
{
	const char *end;
	unsigned shift = 0;
	uint64_t x;

	if (!digits(s, &x, &end))
		return false;
	switch (tolower((unsigned char)*end)) {
	case 'k':
		shift = 10;
		break;
	case 'm':
		shift = 20;
		break;
	case 'g':
		shift = 30;
		break;
	default:
		break;
	}
	if (shift)
		end++;
	if (*end || x > UINT64_MAX >> shift)
		return false;
	*bytes = x << shift;
	return true;
}

bool value_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double sec;
	} units[] = { { "", 1 },      { "s", 1 },  { "sec", 1 },  { "ms", 1e-3 },
		      { "us", 1e-6 }, { "m", 60 }, { "min", 60 }, { "h", 3600 } };
	const char *end;
	double v;

	if (!value_decimal(s, &v, &end))
		return false;
	end = skip_blanks(end);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcasecmp(end, units[i].unit)) {
			double x = v * units[i].sec * 1e9 + 0.5;

			if (!(x < 18e18)) /* beyond uint64_t nanoseconds */
				return false;
			*ns = (uint64_t)x;
			return true;
		}
	}
	return false;
}

bool value_percent(const char *s, double *pct)
{
	const char *end;
	double v;

	if (!value_decimal(s, &v, &end))
		return false;
	end = skip_blanks(end);
	if (*end == '%')
		end++;
	if (*end || v > 100)
		return false;
	*pct = v;
	return true;
}

bool value_bool(const char *s, bool *v)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
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

bool value_list(const char *s, uint64_t *vals, unsigned max, unsigned *n)
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
		if (!value_uint(item, &vals[count]))
			return false;
		count++;
		if (!comma)
			break;
		s = comma + 1;
	}
	*n = count;
	return true;
}
