// SPDX-License-Identifier: MIT
/*
 * rate_parse(): the one spelling of a bit rate that `client -b`, `server
 * --max-rate`, `lab --rate`, `--link rate=`, `sweep --rates` and scenario
 * keys take (include/base/rate.h). The table merges what each of them accepted
 * before they shared this parser: every spelling one took, all now take.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "rate.h"

static const struct {
	const char *s;
	bool ok;
	uint64_t bps;
} cases[] = {
	/* plain numbers and SI prefixes, any case */
	{ "42", true, 42 },
	{ "0", true, 0 },
	{ "2500000", true, 2500000 },
	{ "800k", true, 800000 },
	{ "800K", true, 800000 },
	{ "10M", true, 10000000 },
	{ "10m", true, 10000000 },
	{ "1.5G", true, 1500000000 },
	{ "1t", true, 1000000000000ULL },
	{ "2T", true, 2000000000000ULL },
	{ ".5M", true, 500000 },
	{ "100T", true, 100000000000000ULL },
	/* units: all bits per second */
	{ "10Mbit", true, 10000000 },
	{ "10mbit", true, 10000000 },
	{ "10mbps", true, 10000000 },
	{ "10Mbits", true, 10000000 },
	{ "10 Mbit/s", true, 10000000 },
	{ "1 Gbit/s", true, 1000000000 },
	{ "10Mb/s", true, 10000000 },
	{ "10Mb", true, 10000000 },
	{ "10bps", true, 10 },
	{ "10 bit", true, 10 },
	{ "1 M", true, 1000000 },
	{ "1\tG", true, 1000000000 },
	/* exponents (iperf3 takes them through sscanf) */
	{ "1e9", true, 1000000000 },
	{ "2.5E6", true, 2500000 },
	{ "1e+3k", true, 1000000 },
	{ "5e-1k", true, 500 },
	/* refused: nothing, signs, words, hex, stray characters, blanks at the ends */
	{ "", false, 0 },
	{ "M", false, 0 },
	{ "k10", false, 0 },
	{ "-1M", false, 0 },
	{ "-5M", false, 0 },
	{ "+5M", false, 0 },
	{ "abc", false, 0 },
	{ "inf", false, 0 },
	{ "nan", false, 0 },
	{ "0x10", false, 0 },
	{ "1X", false, 0 },
	{ "10X", false, 0 },
	{ "1MM", false, 0 },
	{ "100Mx", false, 0 },
	{ "100Mbitz", false, 0 },
	{ "1.2.3M", false, 0 },
	{ " 100M", false, 0 },
	{ "5M ", false, 0 },
	{ "5 ", false, 0 },
	{ "1e", false, 0 },
	{ "1e-", false, 0 },
	{ "1eM", false, 0 },
	/* bytes are never meant */
	{ "10MB/s", false, 0 },
	{ "10MB", false, 0 },
	{ "10MBps", false, 0 },
	{ "10MBit", true, 10000000 },
	{ "10MiB", false, 0 },
	{ "10Mbyte", false, 0 },
	/* above 100 Tbit/s: a typo, not a rate */
	{ "101T", false, 0 },
	{ "1000T", false, 0 },
	{ "1e30", false, 0 },
	{ "1e99", false, 0 },
	{ "99999999999999999999", false, 0 },
};

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;
		bool ok = rate_parse(cases[i].s, &v);

		if (ok != cases[i].ok)
			fail_msg("rate_parse(\"%s\") returned %d, expected %d", cases[i].s, ok,
				 cases[i].ok);
		if (ok && v != cases[i].bps)
			fail_msg("rate_parse(\"%s\") = %llu, expected %llu", cases[i].s,
				 (unsigned long long)v, (unsigned long long)cases[i].bps);
		if (!ok && v != 12345)
			fail_msg("rate_parse(\"%s\") failed but wrote %llu", cases[i].s,
				 (unsigned long long)v);
	}
}

static void test_null(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_false(rate_parse(NULL, &v));
	assert_int_equal(v, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
