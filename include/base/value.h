/* SPDX-License-Identifier: MIT */
/*
 * Values as command-line options and scenario keys take them: one reader per
 * kind, shared by every subcommand and the scenario parser, so an option and
 * the key it mirrors accept the same spellings and refuse with the same words.
 *
 *   decimal   "12", "1.5", ".5", "10.", with an optional exponent "1e9",
 *             "2.5E-1"; no sign, hex, "inf", "nan" or blanks around it
 *   uint      digits only: "1500"
 *   size      bytes, a uint with an optional binary k, M or G (any case):
 *             "1500", "64k", "4M"
 *   duration  a decimal, optional blanks, and a unit: none or s, sec
 *             (seconds), ms, us, m, min, h (any case): "10", "500ms", "2m"
 *   percent   a decimal 0..100, optional blanks and '%': "0.5", "0.5 %"
 *   bool      yes/no, true/false, on/off, 1/0 (any case)
 *   rate      rate_parse() (rate.h), whose number is the decimal above
 *
 * The readers (bool) take the whole string or nothing and write their result
 * only on success. value_get() and value_get_percent() add a range and, when
 * the text is refused, one sentence for the user that shows the allowed range
 * ("'abc' is not a whole number (0..63)", "64 is out of range (0..63)"); the
 * caller puts the option or file, line and key in front of it.
 */
#ifndef OVLPERF_VALUE_H
#define OVLPERF_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VALUE_WHY_MAX  160 /* room for value_get()'s sentence */
#define VALUE_NS_PER_S 1000000000ULL

bool value_decimal(const char *s, double *v, const char **end); /* *end after it */
bool value_uint(const char *s, uint64_t *v);
bool value_size(const char *s, uint64_t *bytes);
bool value_duration(const char *s, uint64_t *ns);
bool value_percent(const char *s, double *pct);
bool value_bool(const char *s, bool *v);
/* "1, 5,10": 1..max uints separated by commas, blanks around each allowed. */
bool value_list(const char *s, uint64_t *vals, unsigned max, unsigned *n);

enum value_kind {
	VALUE_UINT,
	VALUE_SIZE,	/* bytes */
	VALUE_DURATION, /* nanoseconds */
	VALUE_RATE,	/* bit/s */
};

/* Reads s as kind into *v if it lies in lo..hi. 0, -EINVAL (not a value of
 * that kind) or -ERANGE (outside lo..hi); on error why (VALUE_WHY_MAX is
 * enough) says which, with the range, and *v is untouched. */
int value_get(enum value_kind kind, const char *s, uint64_t lo, uint64_t hi, uint64_t *v, char *why,
	      size_t whylen);
/* The same for a percentage in lo..hi (within 0..100). */
int value_get_percent(const char *s, double lo, double hi, double *pct, char *why, size_t whylen);
/* The same for a bool; -EINVAL and why name the spellings. */
int value_get_bool(const char *s, bool *v, char *why, size_t whylen);

/* "0..63", "1..1G bytes", "1us..24h", "8k..17G bit/s": how value_get()
 * states a range, in spellings the reader takes back. */
void value_range_str(enum value_kind kind, uint64_t lo, uint64_t hi, char *buf, size_t len);

#endif
