// SPDX-License-Identifier: MIT
/*
 * value.h: the readers every option and scenario key share, the ranges they
 * state, and (through the subcommands themselves, with stderr captured) the
 * exact message each numeric option of each subcommand gives for a bad value:
 * exit status 2 and "ovlperf CMD: --OPT: ..." with the allowed range. None of
 * the commands gets past its options, so nothing is sent and no lab is made.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_opt.h"

#include "cmd.h"
#include "value.h"

static const struct {
	const char *s;
	bool ok;
	uint64_t v;
} uints[] = {
	{ "0", true, 0 },
	{ "65535", true, 65535 },
	{ "007", true, 7 },
	{ "18446744073709551615", true, UINT64_MAX },
	{ "18446744073709551616", false, 0 },
	{ "99999999999999999999", false, 0 },
	{ "", false, 0 },
	{ "+1", false, 0 },
	{ "-1", false, 0 },
	{ " 1", false, 0 },
	{ "1 ", false, 0 },
	{ "1.0", false, 0 },
	{ "0x10", false, 0 },
	{ "1k", false, 0 },
};

static const struct {
	const char *s;
	bool ok;
	uint64_t v;
} sizes[] = {
	{ "1500", true, 1500 },	 { "64k", true, 65536 },  { "64K", true, 65536 },
	{ "4M", true, 4 << 20 }, { "4m", true, 4 << 20 }, { "1G", true, 1u << 30 },
	{ "0", true, 0 },	 { "1.5M", false, 0 },	  { "4MB", false, 0 },
	{ "4 M", false, 0 },	 { "M", false, 0 },	  { "-4M", false, 0 },
	{ "4T", false, 0 },	 { "", false, 0 },	  { "17179869184G", false, 0 },
};

static const struct {
	const char *s;
	bool ok;
	uint64_t ns;
} durations[] = {
	{ "10", true, 10000000000ULL },
	{ "10s", true, 10000000000ULL },
	{ "10 sec", true, 10000000000ULL },
	{ "1.5", true, 1500000000ULL },
	{ ".5", true, 500000000ULL },
	{ "10.", true, 10000000000ULL },
	{ "500ms", true, 500000000ULL },
	{ "500MS", true, 500000000ULL },
	{ "250us", true, 250000ULL },
	{ "2m", true, 120000000000ULL },
	{ "1 min", true, 60000000000ULL },
	{ "1h", true, 3600000000000ULL },
	{ "1e-3", true, 1000000ULL }, /* client -t took strtod's exponents */
	{ "2.5E1ms", true, 25000000ULL },
	{ "0", true, 0 },
	{ "10 ", true, 10000000000ULL },
	{ "10 minutes", false, 0 },
	{ "2d", false, 0 },
	{ "s", false, 0 },
	{ "", false, 0 },
	{ "-1", false, 0 },
	{ "+1", false, 0 },
	{ " 1", false, 0 },
	{ "0x10", false, 0 },
	{ "inf", false, 0 },
	{ "nan", false, 0 },
	{ "1e", false, 0 },
	{ "1e99", false, 0 },
	{ "1e30s", false, 0 },
};

static const struct {
	const char *s;
	bool ok;
	double pct;
} percents[] = {
	{ "0.5", true, 0.5 }, { "0.5%", true, 0.5 }, { "0.5 %", true, 0.5 }, { "100", true, 100 },
	{ "0", true, 0 },     { "1e1", true, 10 },   { "100.1", false, 0 },  { "5%%", false, 0 },
	{ "-1", false, 0 },   { "5x", false, 0 },    { "", false, 0 },	     { "nan", false, 0 },
	{ "% 5", false, 0 },
};

static void test_uint_and_size(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(uints) / sizeof(uints[0]); i++) {
		uint64_t v = 12345;

		if (value_uint(uints[i].s, &v) != uints[i].ok)
			fail_msg("value_uint(\"%s\") != %d", uints[i].s, uints[i].ok);
		if (v != (uints[i].ok ? uints[i].v : 12345))
			fail_msg("value_uint(\"%s\") = %llu", uints[i].s, (unsigned long long)v);
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t v = 12345;

		if (value_size(sizes[i].s, &v) != sizes[i].ok)
			fail_msg("value_size(\"%s\") != %d", sizes[i].s, sizes[i].ok);
		if (v != (sizes[i].ok ? sizes[i].v : 12345))
			fail_msg("value_size(\"%s\") = %llu", sizes[i].s, (unsigned long long)v);
	}
}

static void test_duration_and_percent(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		uint64_t v = 12345;

		if (value_duration(durations[i].s, &v) != durations[i].ok)
			fail_msg("value_duration(\"%s\") != %d", durations[i].s, durations[i].ok);
		if (v != (durations[i].ok ? durations[i].ns : 12345))
			fail_msg("value_duration(\"%s\") = %llu", durations[i].s,
				 (unsigned long long)v);
	}
	for (size_t i = 0; i < sizeof(percents) / sizeof(percents[0]); i++) {
		double v = -7;

		if (value_percent(percents[i].s, &v) != percents[i].ok)
			fail_msg("value_percent(\"%s\") != %d", percents[i].s, percents[i].ok);
		if (v != (percents[i].ok ? percents[i].pct : -7))
			fail_msg("value_percent(\"%s\") = %g", percents[i].s, v);
	}
}

static void test_bool_and_list(void **state)
{
	uint64_t vals[4];
	unsigned n = 0;
	bool b = false;

	(void)state;
	assert_true(value_bool("Yes", &b) && b);
	assert_true(value_bool("OFF", &b) && !b);
	assert_true(value_bool("1", &b) && b);
	assert_true(value_bool("false", &b) && !b);
	assert_false(value_bool("maybe", &b));
	assert_false(value_bool("", &b));
	assert_true(value_list(" 1, 5 ,10", vals, 4, &n));
	assert_int_equal(n, 3);
	assert_int_equal(vals[2], 10);
	assert_false(value_list("1,,5", vals, 4, &n));
	assert_false(value_list("1,5,", vals, 4, &n));
	assert_false(value_list("1,2,3,4,5", vals, 4, &n));
	assert_false(value_list("1,x", vals, 4, &n));
}

static void test_ranges_and_sentences(void **state)
{
	static const struct {
		enum value_kind kind;
		const char *s;
		uint64_t lo, hi;
		int rc;
		const char *why; /* or the value, for rc 0 */
	} t[] = {
		{ VALUE_UINT, "63", 0, 63, 0, "63" },
		{ VALUE_UINT, "64", 0, 63, -ERANGE, "64 is out of range (0..63)" },
		{ VALUE_UINT, "abc", 0, 63, -EINVAL, "'abc' is not a whole number (0..63)" },
		{ VALUE_UINT, "", 1, 65535, -EINVAL, "'' is not a whole number (1..65535)" },
		{ VALUE_SIZE, "2G", 1, 1u << 30, -ERANGE, "2G is out of range (1..1G bytes)" },
		{ VALUE_SIZE, "4MB", 1, 16u << 20, -EINVAL,
		  "'4MB' is not a size (1..16M bytes, e.g. 1500, 64k, 4M)" },
		{ VALUE_SIZE, "1500", 1, 65507, 0, "1500" },
		{ VALUE_DURATION, "25h", 0, 24 * 3600 * VALUE_NS_PER_S, -ERANGE,
		  "25h is out of range (0..24h)" },
		{ VALUE_DURATION, "0", 1000, 90 * VALUE_NS_PER_S, -ERANGE,
		  "0 is out of range (1us..90s)" },
		{ VALUE_DURATION, "x", 1500 * 1000000ULL, 1000000ULL, -EINVAL,
		  "'x' is not a duration (1500ms..1ms, e.g. 500ms, 10s, 2m)" },
		{ VALUE_DURATION, "0", 1, 2 * 60 * VALUE_NS_PER_S, -ERANGE,
		  "0 is out of range (1e-09s..2m)" },
		{ VALUE_RATE, "500", 1000, 100000000000000ULL, -ERANGE,
		  "500 is out of range (1k..100T bit/s)" },
		{ VALUE_RATE, "10MB", 8000, 17000000000ULL, -EINVAL,
		  "'10MB' is not a rate (8k..17G bit/s, e.g. 500k, 100M, 1.5G)" },
		{ VALUE_RATE, "1.5G", 1500000001, 2000000000ULL, -ERANGE,
		  "1.5G is out of range (1500000001..2G bit/s)" },
		{ VALUE_UINT, "a\tb\x01", 0, 1, -EINVAL, "'a?b?' is not a whole number (0..1)" },
	};
	char why[VALUE_WHY_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t v = 777;
		int rc;

		why[0] = '\0';
		rc = value_get(t[i].kind, t[i].s, t[i].lo, t[i].hi, &v, why, sizeof(why));
		if (rc != t[i].rc)
			fail_msg("value_get(\"%s\") = %d, expected %d", t[i].s, rc, t[i].rc);
		if (rc) {
			if (strcmp(why, t[i].why))
				fail_msg("value_get(\"%s\"): \"%s\", expected \"%s\"", t[i].s, why,
					 t[i].why);
			if (v != 777)
				fail_msg("value_get(\"%s\") failed but wrote %llu", t[i].s,
					 (unsigned long long)v);
		} else if (v != strtoull(t[i].why, NULL, 10)) {
			fail_msg("value_get(\"%s\") = %llu", t[i].s, (unsigned long long)v);
		}
	}
	assert_int_equal(value_get_percent("0.001", 0.01, 100, &(double){ 0 }, why, sizeof(why)),
			 -ERANGE);
	assert_string_equal(why, "0.001 is out of range (0.01..100)");
	assert_int_equal(value_get_percent("150", 0, 100, &(double){ 0 }, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "'150' is not a percentage (0..100, e.g. 0.5 or 0.5%)");
	assert_int_equal(value_get_bool("maybe", &(bool){ false }, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "'maybe' is not yes or no (yes/no, true/false, on/off, 1/0)");
	/* a short buffer still gets a string */
	assert_int_equal(value_get(VALUE_UINT, "99", 0, 9, &(uint64_t){ 0 }, why, 8), -ERANGE);
	assert_string_equal(why, "99 is o");
}

/* Runs a subcommand as main() would, with stderr in a buffer; returns its
 * exit status. */
static int run(int (*cmd)(int, char **), const char *const *args, char *out, size_t len)
{
	char *argv[16];
	int argc = 0, saved, rc;
	FILE *tmp = tmpfile();
	size_t n;

	assert_non_null(tmp);
	for (; args[argc]; argc++) {
		assert_true(argc < 15);
		argv[argc] = strdup(args[argc]); /* getopt_long() permutes argv */
	}
	argv[argc] = NULL;
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0 && dup2(fileno(tmp), STDERR_FILENO) >= 0);
	optind = 0; /* glibc: start afresh, as in a new process */
	rc = cmd(argc, argv);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, len - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return rc;
}

#define A(...) ((const char *const[]){ __VA_ARGS__, NULL })

static const struct {
	int (*cmd)(int, char **);
	const char *const *argv;
	const char *line; /* the first line on stderr */
} options[] = {
	{ cmd_client, A("client", "--dscp", "64", "198.18.0.1"),
	  "ovlperf client: --dscp: 64 is out of range (0..63)" },
	{ cmd_client, A("client", "--dscp", "ef", "198.18.0.1"),
	  "ovlperf client: --dscp: 'ef' is not a whole number (0..63)" },
	{ cmd_client, A("client", "-P", "0", "198.18.0.1"),
	  "ovlperf client: --parallel: 0 is out of range (1..128)" },
	{ cmd_client, A("client", "--time", "0", "198.18.0.1"),
	  "ovlperf client: --time: 0 is out of range (1us..10000000s)" },
	{ cmd_client, A("client", "-t", "10 minutes", "198.18.0.1"),
	  "ovlperf client: --time: '10 minutes' is not a duration (1us..10000000s, e.g. 500ms, "
	  "10s, 2m)" },
	{ cmd_client, A("client", "-i", "-1", "198.18.0.1"),
	  "ovlperf client: --interval: '-1' is not a duration (0..10000000s, e.g. 500ms, 10s, "
	  "2m)" },
	{ cmd_client, A("client", "-O", "1e8", "198.18.0.1"),
	  "ovlperf client: --omit: 1e8 is out of range (0..10000000s)" },
	{ cmd_client, A("client", "-b", "10MB", "198.18.0.1"),
	  "ovlperf client: --bitrate: '10MB' is not a rate (0..100T bit/s, e.g. 500k, 100M, "
	  "1.5G)" },
	{ cmd_client, A("client", "-l", "17M", "198.18.0.1"),
	  "ovlperf client: --length: 17M is out of range (1..16M bytes)" },
	{ cmd_client, A("client", "-M", "87", "198.18.0.1"),
	  "ovlperf client: --mss: 87 is out of range (88..65535)" },
	{ cmd_client, A("client", "-w", "2G", "198.18.0.1"),
	  "ovlperf client: --window: 2G is out of range (1..1G bytes)" },
	{ cmd_client, A("client", "-p", "0", "198.18.0.1"),
	  "ovlperf client: --port: 0 is out of range (1..65535)" },
	{ cmd_client, A("client", "--msg-timeout", "3600001", "198.18.0.1"),
	  "ovlperf client: --msg-timeout: 3600001 is out of range (1..3600000)" },
	{ cmd_client, A("client", "--connect-timeout", "0", "198.18.0.1"),
	  "ovlperf client: --connect-timeout: 0 is out of range (1..3600000)" },
	{ cmd_client, A("client", "-f", "T", "198.18.0.1"),
	  "ovlperf client: --format: 'T': one of k, m, g, K, M, G" },
	{ cmd_client, A("client", "-f", "mm", "198.18.0.1"),
	  "ovlperf client: --format: 'mm': one of k, m, g, K, M, G" },
	{ cmd_client, A("client", "--json-format", "iperf2", "198.18.0.1"),
	  "ovlperf client: --json-format: 'iperf2': ovlperf or iperf3" },
	{ cmd_client, A("client", "-C", "cubic;reno", "198.18.0.1"),
	  "ovlperf client: --congestion: 'cubic;reno' is not a congestion control name (1..15 "
	  "of A-Z a-z 0-9 _ -)" },
	{ cmd_client, A("client", "-C", "averyveryverylongname", "198.18.0.1"),
	  "ovlperf client: --congestion: 'averyveryverylongname' is not a congestion control "
	  "name (1..15 of A-Z a-z 0-9 _ -)" },
	{ cmd_server, A("server", "-p", "65536"),
	  "ovlperf server: --port: 65536 is out of range (1..65535)" },
	{ cmd_server, A("server", "--max-duration", "0"),
	  "ovlperf server: --max-duration: 0 is out of range (1us..10000000s)" },
	{ cmd_server, A("server", "--max-rate", "0"),
	  "ovlperf server: --max-rate: 0 is out of range (1..100T bit/s)" },
	{ cmd_server, A("server", "--max-streams", "129"),
	  "ovlperf server: --max-streams: 129 is out of range (1..128)" },
	{ cmd_server, A("server", "--max-sessions", "4097"),
	  "ovlperf server: --max-sessions: 4097 is out of range (1..4096)" },
	{ cmd_server, A("server", "--msg-timeout", "0"),
	  "ovlperf server: --msg-timeout: 0 is out of range (1..3600000)" },
	{ cmd_server, A("server", "--idle-timeout", "1h"),
	  "ovlperf server: --idle-timeout: '1h' is not a whole number (1..3600000)" },
	{ cmd_sweep, A("sweep", "--from", "0", "198.18.0.1"),
	  "ovlperf sweep: --from: 0 is out of range (1..100T bit/s)" },
	{ cmd_sweep, A("sweep", "--to", "fast", "198.18.0.1"),
	  "ovlperf sweep: --to: 'fast' is not a rate (1..100T bit/s, e.g. 500k, 100M, 1.5G)" },
	{ cmd_sweep, A("sweep", "--step", "101T", "198.18.0.1"),
	  "ovlperf sweep: --step: '101T' is not a rate (1..100T bit/s, e.g. 500k, 100M, 1.5G)" },
	{ cmd_sweep, A("sweep", "--knee", "--max", "-1", "198.18.0.1"),
	  "ovlperf sweep: --max: '-1' is not a rate (1..100T bit/s, e.g. 500k, 100M, 1.5G)" },
	{ cmd_sweep, A("sweep", "--min", "0", "198.18.0.1"),
	  "ovlperf sweep: --min: 0 is out of range (1..100T bit/s)" },
	{ cmd_sweep, A("sweep", "-t", "0", "198.18.0.1"),
	  "ovlperf sweep: --time: 0 is out of range (1us..24h)" },
	{ cmd_sweep, A("sweep", "--final", "25h", "198.18.0.1"),
	  "ovlperf sweep: --final: 25h is out of range (1us..24h)" },
	{ cmd_sweep, A("sweep", "--gap", "1d", "198.18.0.1"),
	  "ovlperf sweep: --gap: '1d' is not a duration (0..24h, e.g. 500ms, 10s, 2m)" },
	{ cmd_sweep, A("sweep", "--loss-goal", "150", "198.18.0.1"),
	  "ovlperf sweep: --loss-goal: '150' is not a percentage (0..100, e.g. 0.5 or 0.5%)" },
	{ cmd_sweep, A("sweep", "--loss-goal", "100", "198.18.0.1"),
	  "ovlperf sweep: --loss-goal: 100 is out of range (0..100, 100 excluded)" },
	{ cmd_sweep, A("sweep", "--width-goal", "0", "198.18.0.1"),
	  "ovlperf sweep: --width-goal: 0 is out of range (0..50, both excluded)" },
	{ cmd_sweep, A("sweep", "--max-trials", "129", "198.18.0.1"),
	  "ovlperf sweep: --max-trials: 129 is out of range (1..128)" },
	{ cmd_sweep, A("sweep", "-l", "15", "198.18.0.1"),
	  "ovlperf sweep: --length: 15 is out of range (16..65507)" },
	{ cmd_sweep, A("sweep", "-P", "0", "198.18.0.1"),
	  "ovlperf sweep: --parallel: 0 is out of range (1..128)" },
	{ cmd_sweep, A("sweep", "-w", "0", "198.18.0.1"),
	  "ovlperf sweep: --window: 0 is out of range (1..1G bytes)" },
	{ cmd_sweep, A("sweep", "-p", "x", "198.18.0.1"),
	  "ovlperf sweep: --port: 'x' is not a whole number (1..65535)" },
	{ cmd_mtu, A("mtu", "--max", "65536", "198.18.0.1"),
	  "ovlperf mtu: --max: 65536 is out of range (68..65535)" },
	{ cmd_mtu, A("mtu", "--max", "65575", "198.18.0.1"),
	  "ovlperf mtu: --max: 65575 is out of range (68..65535)" },
	{ cmd_mtu, A("mtu", "--base", "67", "198.18.0.1"),
	  "ovlperf mtu: --base: 67 is out of range (68..65535)" },
	{ cmd_mtu, A("mtu", "--probes", "21", "198.18.0.1"),
	  "ovlperf mtu: --probes: 21 is out of range (1..20)" },
	{ cmd_mtu, A("mtu", "--timeout", "0", "198.18.0.1"),
	  "ovlperf mtu: --timeout: 0 is out of range (1us..24h)" },
	{ cmd_mtu, A("mtu", "--expect-mtu", "1e3", "198.18.0.1"),
	  "ovlperf mtu: --expect-mtu: '1e3' is not a whole number (68..65535)" },
	{ cmd_mtu, A("mtu", "--expect-mss", "0", "198.18.0.1"),
	  "ovlperf mtu: --expect-mss: 0 is out of range (1..65535)" },
	{ cmd_mtu, A("mtu", "-p", "65536", "198.18.0.1"),
	  "ovlperf mtu: --port: 65536 is out of range (1..65535)" },
	{ cmd_mtu, A("mtu", "--underlay-family", "5", "198.18.0.1"),
	  "ovlperf mtu: --underlay-family: '5' is not 4 or 6" },
	{ cmd_lab, A("lab", "up", "hvx", "--hosts", "9"),
	  "ovlperf lab: --hosts: 9 is out of range (2..8)" },
	{ cmd_lab, A("lab", "up", "hvx", "--mtu", "67"),
	  "ovlperf lab: --mtu: 67 is out of range (68..65535)" },
	{ cmd_lab, A("lab", "up", "hvx", "--rate", "1k"),
	  "ovlperf lab: --rate: 1k is out of range (8k..17G bit/s)" },
	{ cmd_lab, A("lab", "up", "hvx", "--drop", "0.001"),
	  "ovlperf lab: --drop: 0.001 is out of range (0.01..100)" },
	{ cmd_lab, A("lab", "up", "hvx", "--drop", "101"),
	  "ovlperf lab: --drop: '101' is not a percentage (0.01..100, e.g. 0.5 or 0.5%)" },
	{ cmd_lab, A("lab", "up", "hvx", "--link", "0:mtu=70000"),
	  "ovlperf lab: --link: mtu '70000' is out of range (68..65535)" },
	{ cmd_lab, A("lab", "up", "hvx", "--link", "0:rate=fast"),
	  "ovlperf lab: --link: rate 'fast' is not a rate (8k..17G bit/s, e.g. 100M, 1.5G)" },
	{ cmd_lab, A("lab", "exec", "hvx", "8", "true"),
	  "ovlperf lab: HOST: 8 is out of range (0..7)" },
	{ cmd_run, A("run", "-r", "0", "scenarios/default.ini"),
	  "ovlperf run: --repetitions: 0 is out of range (1..100)" },
	{ cmd_run, A("run", "--repetitions", "x", "scenarios/default.ini"),
	  "ovlperf run: --repetitions: 'x' is not a whole number (1..100)" },
};

static void test_option_messages(void **state)
{
	char out[2048];

	(void)state;
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		const char *const *a = options[i].argv;
		int rc = run(options[i].cmd, a, out, sizeof(out));
		size_t n = strcspn(out, "\n");

		if (rc != EXIT_USAGE)
			fail_msg("%s %s %s: exit status %d, expected %d", a[0], a[1], a[2], rc,
				 EXIT_USAGE);
		if (strlen(options[i].line) != n || strncmp(out, options[i].line, n))
			fail_msg("%s %s %s:\n  got      %.*s\n  expected %s", a[0], a[1], a[2],
				 (int)n, out, options[i].line);
	}
}

/* Good values get past the options: the command fails later, for another
 * reason, so the table above fails for the reason it names. */
static void test_good_values_pass(void **state)
{
	char out[2048];

	(void)state;
	assert_int_equal(run(cmd_client, A("client", "--dscp", "63", "-t", "1.5", "-w", "4M"), out,
			     sizeof(out)),
			 EXIT_USAGE);
	assert_non_null(strstr(out, "give exactly one server HOST"));
	assert_int_equal(run(cmd_mtu, A("mtu", "--max", "65535", "--base", "68"), out, sizeof(out)),
			 EXIT_USAGE);
	assert_non_null(strstr(out, "which host?"));
	assert_int_equal(run(cmd_sweep, A("sweep", "--width-goal", "1", "-w", "64k", "198.18.0.1"),
			     out, sizeof(out)),
			 EXIT_USAGE);
	assert_non_null(strstr(out, "say --from/--to/--step or --knee"));
}

/* A name chosen from a list; anything else is refused with the list. */
static void test_choice(void **state)
{
	static const char *const names[] = { "table", "json", "openmetrics" };
	char why[160];

	(void)state;
	assert_int_equal(cli_opt_choice("json", names, 3, why, sizeof(why)), 1);
	assert_int_equal(cli_opt_choice("openmetrics", names, 3, why, sizeof(why)), 2);
	assert_int_equal(cli_opt_choice("JSON", names, 3, why, sizeof(why)), -1);
	assert_string_equal(why, "'JSON': expected table, json or openmetrics");
	assert_int_equal(cli_opt_choice("x", names, 1, why, sizeof(why)), -1);
	assert_string_equal(why, "'x': expected table");
}

/* A misspelt long option and the one it is near: a letter left out,
 * added, changed or two swapped; nothing for a far or a short one. */
static void test_nearest(void **state)
{
	static const struct option opts[] = {
		{ "bidir", no_argument, NULL, 1 },	{ "bitrate", required_argument, NULL, 2 },
		{ "time", required_argument, NULL, 3 }, { "port", required_argument, NULL, 4 },
		{ "udp", no_argument, NULL, 5 },	{ NULL, 0, NULL, 0 },
	};
	static const struct {
		const char *typed, *near;
	} cases[] = {
		{ "bidr", "bidir" },  { "bidirr", "bidir" }, { "bitrat", "bitrate" },
		{ "tmie", "time" },   { "prot=1", "port" },  { "tim", "time" },
		{ "zzzzzz", NULL },   { "u", NULL },	     { "", NULL },
		{ "parallel", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = cli_opt_nearest(opts, cases[i].typed);

		if (!cases[i].near)
			assert_null(got);
		else
			assert_string_equal(got, cases[i].near);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nearest),
		cmocka_unit_test(test_uint_and_size),
		cmocka_unit_test(test_duration_and_percent),
		cmocka_unit_test(test_bool_and_list),
		cmocka_unit_test(test_ranges_and_sentences),
		cmocka_unit_test(test_option_messages),
		cmocka_unit_test(test_choice),
		cmocka_unit_test(test_good_values_pass),
	};

	return cmocka_run_group_tests_name("value", tests, NULL, NULL);
}
