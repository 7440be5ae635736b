// SPDX-License-Identifier: MIT
/* Values with a range, and the sentence that refuses one (value.h): every
 * option and scenario key states what it takes in the same words. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rate.h"
#include "value.h"

/* How each kind is named in a sentence. */
static const struct {
	const char *noun, *example, *unit;
} kinds[] = {
	[VALUE_UINT] = { "a whole number", "", "" },
	[VALUE_SIZE] = { "a size", ", e.g. 1500, 64k, 4M", " bytes" },
	[VALUE_DURATION] = { "a duration", ", e.g. 500ms, 10s, 2m", "" },
	[VALUE_RATE] = { "a rate", ", e.g. 500k, 100M, 1.5G", " bit/s" },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

struct unit {
	uint64_t mult;
	const char *name;
};

/* The largest unit that divides v exactly, so the text reads back as v. */
static void with_unit(uint64_t v, const struct unit *units, size_t n, const char *other, char *buf,
		      size_t len)
{
	for (size_t i = 0; i < n && v; i++) {
		if (v % units[i].mult == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", v / units[i].mult, units[i].name);
			return;
		}
	}
	if (other && v)
		snprintf(buf, len, "%.9g%s", (double)v / 1e9, other);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

static void one(enum value_kind kind, uint64_t v, char *buf, size_t len)
{
	static const struct unit sizes[] = { { 1u << 30, "G" },
					     { 1u << 20, "M" },
					     { 1u << 10, "k" } };
	static const struct unit times[] = { { 3600 * VALUE_NS_PER_S, "h" },
					     { 60 * VALUE_NS_PER_S, "m" },
					     { VALUE_NS_PER_S, "s" },
					     { 1000000, "ms" },
					     { 1000, "us" } };
	static const struct unit rates[] = {
		{ 1000000000000ULL, "T" }, { 1000000000, "G" }, { 1000000, "M" }, { 1000, "k" }
	};

	switch (kind) {
	case VALUE_SIZE:
		with_unit(v, sizes, sizeof(sizes) / sizeof(sizes[0]), NULL, buf, len);
		return;
	case VALUE_DURATION:
		/* below a microsecond: seconds, which the reader takes back too */
		with_unit(v, times, sizeof(times) / sizeof(times[0]), "s", buf, len);
		return;
	case VALUE_RATE:
		with_unit(v, rates, sizeof(rates) / sizeof(rates[0]), NULL, buf, len);
		return;
	case VALUE_UINT:
		break;
	}
	snprintf(buf, len, "%" PRIu64, v);
}

void value_range_str(enum value_kind kind, uint64_t lo, uint64_t hi, char *buf, size_t len)
{
	char a[32], b[32];

	if ((unsigned)kind >= NKINDS) {
		snprintf(buf, len, "?");
		return;
	}
	one(kind, lo, a, sizeof(a));
	one(kind, hi, b, sizeof(b));
	snprintf(buf, len, "%s..%s%s", a, b, kinds[kind].unit);
}

/* The text as the user gave it, printable and at most 40 characters. */
static const char *quote(const char *s, char buf[static 48])
{
	size_t i = 0;

	for (; s[i] && i < 40; i++)
		buf[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	buf[i] = '\0';
	if (s[i])
		memcpy(buf + 37, "...", 4);
	return buf;
}

static bool read_kind(enum value_kind kind, const char *s, uint64_t *v)
{
	switch (kind) {
	case VALUE_UINT:
		return value_uint(s, v);
	case VALUE_SIZE:
		return value_size(s, v);
	case VALUE_DURATION:
		return value_duration(s, v);
	case VALUE_RATE:
		return rate_parse(s, v);
	}
	return false;
}

int value_get(enum value_kind kind, const char *s, uint64_t lo, uint64_t hi, uint64_t *v, char *why,
	      size_t whylen)
{
	char range[80], q[48];
	uint64_t x;

	if ((unsigned)kind >= NKINDS)
		return -EINVAL;
	value_range_str(kind, lo, hi, range, sizeof(range));
	if (!s || !read_kind(kind, s, &x)) {
		snprintf(why, whylen, "'%s' is not %s (%s%s)", quote(s ? s : "", q),
			 kinds[kind].noun, range, kinds[kind].example);
		return -EINVAL;
	}
	if (x < lo || x > hi) {
		snprintf(why, whylen, "%s is out of range (%s)", quote(s, q), range);
		return -ERANGE;
	}
	*v = x;
	return 0;
}

int value_get_percent(const char *s, double lo, double hi, double *pct, char *why, size_t whylen)
{
	char q[48];
	double x;

	if (!s || !value_percent(s, &x)) {
		snprintf(why, whylen, "'%s' is not a percentage (%g..%g, e.g. 0.5 or 0.5%%)",
			 quote(s ? s : "", q), lo, hi);
		return -EINVAL;
	}
	if (x < lo || x > hi) {
		snprintf(why, whylen, "%s is out of range (%g..%g)", quote(s, q), lo, hi);
		return -ERANGE;
	}
	*pct = x;
	return 0;
}

int value_get_bool(const char *s, bool *v, char *why, size_t whylen)
{
	char q[48];

	if (!s || !value_bool(s, v)) {
		snprintf(why, whylen, "'%s' is not yes or no (yes/no, true/false, on/off, 1/0)",
			 quote(s ? s : "", q));
		return -EINVAL;
	}
	return 0;
}
