// SPDX-License-Identifier: MIT
/*
 * Scenario parser: every malformed file in tests/unit/scenarios/ gets an
 * error naming file, line, section and key; valid text fills the struct as
 * the schema says; value parsers and the benchmark-range check, table-driven.
 */
#include <errno.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "run.h"
#include "scenario.h"

static const char *scenario_dir(void)
{
	static char dir[512];
	const char *slash = strrchr(__FILE__, '/');

	snprintf(dir, sizeof(dir), "%.*sscenarios", slash ? (int)(slash - __FILE__ + 1) : 0,
		 __FILE__);
	return dir;
}

/* file, line (0: the message names no line), what follows "file:line: " */
static const struct {
	const char *file;
	unsigned line;
	const char *msg;
} malformed[] = {
	{ "unknown-section.ini", 3, "[bogus]: unknown section" },
	{ "unknown-key.ini", 4, "[udp] sizez: unknown key (expected one of: enabled, sizes" },
	{ "bad-sizes.ini", 4, "[udp] sizes: '46,abc' is not a list of sizes" },
	{ "size-range.ini", 4, "[udp] sizes: 70000 is out of range (16..65507)" },
	{ "bad-rate.ini", 6, "[sweep] from: 'fast' is not a rate" },
	{ "bad-duration.ini", 4, "[tcp] duration: '10 minutes' is not a duration" },
	{ "streams-range.ini", 4, "[tcp] streams: 500 is out of range (1..128)" },
	{ "dup-path.ini", 7, "[path.overlay]: section given twice (first at line 3)" },
	{ "dup-key.ini", 4, "[scenario] repetitions: given twice (first at line 2)" },
	{ "missing-type.ini", 3, "[path.x]: missing required key 'type'" },
	{ "missing-address.ini", 3, "[path.vpn]: missing required key 'address'" },
	{ "lab-and-host.ini", 3, "[host.r]: a scenario runs either in a lab" },
	{ "real-address.ini", 5, "[path.vpn] address: '10.1.2.3' is not in 198.18.0.0/15" },
	{ "real-address6.ini", 5, "[path.vpn] address: '2001:db8::1' is not in 198.18.0.0/15" },
	{ "hostname-in-lab.ini", 5, "[path.vpn] address: 'vpn.example.com' is not in" },
	{ "builtin-remote.ini", 5, "[path.ovl] address: not for a builtin path" },
	{ "overlay-subnets.ini", 6,
	  "[path.ovl] overlay_subnets: '10.0.0.0/24': an IPv4 overlay subnet is /8../30 inside "
	  "198.18.0.0/15" },
	{ "overlay-subnets-lab.ini", 5, "[path.ovl] overlay_subnets: only between [host.*] hosts" },
	{ "sweep-order.ini", 7, "[sweep] to: is below from" },
	{ "sweep-missing.ini", 5, "[sweep]: missing required key 'to'" },
	{ "sweep-too-many.ini", 8, "[sweep] step: makes more than 200 trials" },
	{ "knee-missing-max.ini", 5, "[knee]: missing required key 'max_rate'" },
	{ "knee-final-short.ini", 8, "[knee] final: must not be shorter than short" },
	{ "knee-max-time-short.ini", 8, "[knee] max_time: must not be shorter than short (2 s)" },
	{ "knee-min-max.ini", 7, "[knee] min_rate: must be below max_rate" },
	{ "no-paths.ini", 0, "no [path.NAME] section" },
	{ "bad-bool.ini", 2, "[scenario] interleave: 'maybe' is not yes or no" },
	{ "no-equals.ini", 3, "expected 'key = value'" },
	{ "long-line.ini", 4, "line longer than 196 characters" },
	{ "continuation.ini", 3, "indented line (continuation lines are not supported)" },
	{ "key-before-section.ini", 1, "repetitions: key before the first [section]" },
	{ "link-keys-mixed.ini", 2, "[lab] mtu: link settings go in the [link.*] sections" },
	{ "link-host-range.ini", 5, "[link.x] b: host 5 does not exist (hosts = 2)" },
	{ "link-missing-end.ini", 1, "[link.x]: missing required key 'b'" },
	{ "path-unknown-link.ini", 3, "[path.u] link: no [link.nowhere] section" },
	{ "family-mismatch.ini", 6, "[path.v] address: is IPv6 but family = 4" },
	{ "builtin-only-key.ini", 3, "[path.u] cipher: only for builtin paths" },
	{ "setup-on-underlay.ini", 3, "[path.u] setup: only for external paths" },
	{ "bad-path-type.ini", 2,
	  "[path.u] type: 'wireguard' is not underlay, builtin or external" },
	{ "bad-section-name.ini", 1, "[path.my path]: 'my path' is not a name" },
	{ "mtu-max-below-base.ini", 5, "[mtu] max: is below base (1200)" },
	{ "udp-disabled-sweep.ini", 4, "[udp] enabled: is no, but [sweep] sweeps UDP" },
	{ "nothing.ini", 1, "[scenario]: nothing to measure" },
	{ "loss-goal-range.ini", 7, "[knee] loss_goal: '150' is not a percentage" },
	{ "lab-name.ini", 2, "[lab] name: 'My_Lab' is not a lab name (1 to 12 of a-z" },
	{ "host-address-bad.ini", 2, "[host.r] address: '[2001:2::2' is not an address" },
	{ "host-address-port.ini", 3, "[host.r] address: says port 5211, but port = 6000" },
	{ "path-address-port.ini", 6, "[path.v] address: '[2001:2::9]:0': the port must be" },
	{ "remote-two-hosts.ini", 5, "[path.native]: name its host (host = NAME)" },
	{ "remote-unknown-host.ini", 5, "[path.native] host: no [host.c] section" },
	{ "no-close-bracket.ini", 3, "section header without ']'" },
	{ "host-port.ini", 3, "[host.r] port: 70000 is out of range (1..65535)" },
	{ "drop-pct.ini", 2, "[lab] drop_pct: '101' is not a percentage" },
	{ "client-server-same.ini", 3, "[lab] server: the server must not be the client" },
	{ "empty-value.ini", 4, "[scenario] name: is empty" },
	{ "zero-duration.ini", 2, "[scenario] duration: must be above 0" },
	{ "omit-too-long.ini", 3, "[scenario] omit: must be shorter than the duration" },
	{ "width-goal.ini", 7, "[knee] width_goal: must be above 0 and below 50%" },
	{ "host-in-lab-path.ini", 3, "[path.u] host: only for scenarios with [host.*] sections" },
	{ "empty.ini", 0, "no [path.NAME] section" },
	{ "nul-byte.ini", 4, "line contains a NUL byte" },
};

static void test_malformed_files(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		char path[600], want[700], err[4096];
		struct scenario s;
		int rc;

		snprintf(path, sizeof(path), "%s/%s", scenario_dir(), malformed[i].file);
		rc = scenario_load(path, &s, err, sizeof(err));
		if (malformed[i].line)
			snprintf(want, sizeof(want), "%s:%u: %s", path, malformed[i].line,
				 malformed[i].msg);
		else
			snprintf(want, sizeof(want), "%s: %s", path, malformed[i].msg);
		if (rc != -EINVAL || !strstr(err, want))
			print_error("%s: rc %d, wanted\n  %s\ngot\n%s", malformed[i].file, rc, want,
				    err);
		assert_int_equal(rc, -EINVAL);
		assert_non_null(strstr(err, want));
	}
}

/* Every file in tests/unit/scenarios/ is in the table above. */
static void test_malformed_all_listed(void **state)
{
	glob_t g;
	char pattern[600];

	(void)state;
	snprintf(pattern, sizeof(pattern), "%s/*.ini", scenario_dir());
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, sizeof(malformed) / sizeof(malformed[0]));
	globfree(&g);
}

static const char full[] = "; a comment\n"
			   "[scenario]\n"
			   "name = sdwan\n"
			   "description = SD-WAN overlay against native\n"
			   "repetitions = 5\n"
			   "duration = 20s\n"
			   "interleave = no\n"
			   "\n"
			   "[lab]\n"
			   "name = sw\n"
			   "mtu = 9001\n"
			   "rate = 200M\n"
			   "drop_pct = 1%\n"
			   "block_icmp = yes\n"
			   "\n"
			   "[path.native]\n"
			   "type = underlay\n"
			   "[path.native6]\n"
			   "type = underlay\n"
			   "family = 6\n"
			   "[path.ovl]\n"
			   "type = builtin\n"
			   "mtu = 1420\n"
			   "cipher = chacha20poly1305\n"
			   "underlay_family = 6\n"
			   "expect_mtu = 8941\n"
			   "[path.wg]\n"
			   "type = external\n"
			   "address = 2001:2:0:ff::2 ; family inferred\n"
			   "setup = /usr/local/bin/wg-lab up\n"
			   "teardown = /usr/local/bin/wg-lab down\n"
			   "[tcp]\n"
			   "streams = 1, 5,10 ,20,50\n"
			   "mss = 1348\n"
			   "[udp]\n"
			   "sizes = 46,100,200,1400\n"
			   "duration = 3s\n"
			   "[sweep]\n"
			   "from = 100M\n"
			   "to = 900M\n"
			   "step = 100M\n"
			   "[knee]\n"
			   "max_rate = 1.5G\n"
			   "loss_goal = 0.1\n"
			   "short = 500ms\n"
			   "final = 2s\n"
			   "[mtu]\n"
			   "base = 576\n"
			   "probes = 5\n";

static void test_full_scenario(void **state)
{
	struct scenario s;
	struct lab_spec ls;
	char err[2048];

	(void)state;
	assert_int_equal(scenario_parse("full.ini", full, strlen(full), &s, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_string_equal(s.name, "sdwan");
	assert_int_equal(s.repetitions, 5);
	assert_int_equal(s.duration_ns, 20000000000ULL);
	assert_false(s.interleave);
	assert_true(s.is_lab);
	assert_string_equal(s.lab.name, "sw");
	assert_int_equal(s.lab.nlinks, 1);
	assert_int_equal(s.lab.links[0].mtu, 9001);
	assert_int_equal(s.lab.links[0].rate_bps, 200000000ULL);
	assert_true(s.lab.links[0].drop_pct == 1.0);
	assert_true(s.lab.links[0].block_icmp);
	assert_int_equal(s.npaths, 4);
	assert_int_equal(scenario_find_path(&s, "ovl"), 2);
	assert_int_equal(scenario_find_path(&s, "nope"), -1);
	assert_int_equal(s.paths[0].type, SCN_PATH_UNDERLAY);
	assert_int_equal(s.paths[0].family, AF_INET);
	assert_int_equal(s.paths[1].family, AF_INET6);
	assert_int_equal(s.paths[2].type, SCN_PATH_BUILTIN);
	assert_int_equal(s.paths[2].mtu, 1420);
	assert_int_equal(s.paths[2].underlay_family, AF_INET6);
	assert_int_equal(s.paths[2].expect_mtu, 8941);
	assert_string_equal(s.paths[2].cipher, "chacha20poly1305");
	assert_int_equal(s.paths[3].type, SCN_PATH_EXTERNAL);
	assert_int_equal(s.paths[3].family, AF_INET6);
	assert_string_equal(s.paths[3].address, "2001:2:0:ff::2");
	assert_string_equal(s.paths[3].setup, "/usr/local/bin/wg-lab up");
	assert_int_equal(s.paths[3].line, 27);
	assert_true(s.tcp.enabled);
	assert_int_equal(s.tcp.nstreams, 5);
	assert_int_equal(s.tcp.streams[4], 50);
	assert_int_equal(s.tcp.mss, 1348);
	assert_int_equal(s.tcp.duration_ns, 20000000000ULL); /* from [scenario] */
	assert_true(s.udp.enabled);
	assert_int_equal(s.udp.nsizes, 4);
	assert_int_equal(s.udp.sizes[0], 46);
	assert_int_equal(s.udp.duration_ns, 3000000000ULL);
	assert_true(s.sweep.enabled);
	assert_int_equal(s.sweep.from_bps, 100000000ULL);
	assert_int_equal(s.sweep.to_bps, 900000000ULL);
	assert_int_equal(s.sweep.duration_ns, 3000000000ULL); /* from [udp] */
	assert_true(s.knee.enabled);
	assert_int_equal(s.knee.max_rate_bps, 1500000000ULL);
	assert_true(s.knee.loss_goal > 0.000999 && s.knee.loss_goal < 0.001001);
	assert_true(s.knee.width_goal > 0.00999 && s.knee.width_goal < 0.01001);
	assert_int_equal(s.knee.short_ns, 500000000ULL);
	assert_int_equal(s.knee.final_ns, 2000000000ULL);
	assert_true(s.mtu.enabled);
	assert_int_equal(s.mtu.base, 576);
	assert_int_equal(s.mtu.probes, 5);
	assert_true(s.mtu.mss);
	assert_int_equal(scenario_check_lab_targets(&s, err, sizeof(err)), 0);
	scenario_lab_spec(&s, &ls);
	assert_string_equal(ls.name, "sw");
	assert_int_equal(ls.nhosts, 2);
	assert_int_equal(ls.nlinks, 1);
	assert_int_equal(ls.links[0].rate_bps, 200000000ULL);
	assert_true(ls.links[0].block_icmp_too_big);
	/* the safety net catches an address planted after parsing, too */
	snprintf(s.paths[3].address, sizeof(s.paths[3].address), "192.168.1.1");
	assert_int_equal(scenario_check_lab_targets(&s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "full.ini:27: [path.wg] address: '192.168.1.1'"));
}

static void test_minimal_defaults(void **state)
{
	static const char text[] = "[path.native]\ntype = underlay\n[udp]\n";
	struct scenario s;
	char err[512];

	(void)state;
	assert_int_equal(
		scenario_parse("scenarios/minimal.ini", text, strlen(text), &s, err, sizeof(err)),
		0);
	assert_string_equal(s.name, "minimal");
	assert_int_equal(s.repetitions, 3);
	assert_true(s.interleave);
	assert_true(s.is_lab);
	assert_string_equal(s.lab.name, "lab");
	assert_int_equal(s.lab.nlinks, 1);
	assert_int_equal(s.lab.links[0].a, 0);
	assert_int_equal(s.lab.links[0].b, 1);
	assert_false(s.tcp.enabled);
	assert_true(s.udp.enabled);
	assert_int_equal(s.udp.nsizes, 1);
	assert_int_equal(s.udp.sizes[0], 1400);
	assert_false(s.sweep.enabled);
	assert_false(s.knee.enabled);
	assert_false(s.mtu.enabled);
}

/* [udp] delay_loads: 50 % and 90 % of the NDR unless given; each load a
 * percentage above 0, no two alike, and not together with a fixed rate. */
static void test_delay_loads(void **state)
{
	static const struct {
		const char *value, *msg;
	} bad[] = {
		{ "0", "[udp] delay_loads: 0 is out of range (above 0, up to 100 %)" },
		{ "50, 50%", "[udp] delay_loads: 50% is given twice" },
		{ "abc", "[udp] delay_loads: 'abc' is not a percentage" },
		{ "101", "[udp] delay_loads: '101' is not a percentage" },
		{ "50,,90", "[udp] delay_loads: '50,,90' is not a list of 1 to 8 percentages" },
		{ "1,2,3,4,5,6,7,8,9", "is not a list of 1 to 8 percentages" },
	};
	static const char base[] = "[path.native]\ntype = underlay\n[udp]\n";
	char text[256], err[512];
	struct scenario s;

	(void)state;
	assert_int_equal(scenario_parse("d.ini", base, strlen(base), &s, err, sizeof(err)), 0);
	assert_int_equal(s.udp.ndelay_loads, 2);
	assert_true(s.udp.delay_loads_pct[0] == 50 && s.udp.delay_loads_pct[1] == 90);
	snprintf(text, sizeof(text), "%sdelay_loads = 25%%, 75 %% ,12.5\n", base);
	assert_int_equal(scenario_parse("d.ini", text, strlen(text), &s, err, sizeof(err)), 0);
	assert_int_equal(s.udp.ndelay_loads, 3);
	assert_true(s.udp.delay_loads_pct[0] == 25 && s.udp.delay_loads_pct[1] == 75 &&
		    s.udp.delay_loads_pct[2] == 12.5);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "%sdelay_loads = %s\n", base, bad[i].value);
		assert_int_equal(scenario_parse("d.ini", text, strlen(text), &s, err, sizeof(err)),
				 -EINVAL);
		if (!strstr(err, bad[i].msg) || !strstr(err, "d.ini:4:"))
			fail_msg("'%s': got %s", bad[i].value, err);
	}
	snprintf(text, sizeof(text), "%srate = 20M\ndelay_loads = 50%%\n", base);
	assert_int_equal(scenario_parse("d.ini", text, strlen(text), &s, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "d.ini:5: [udp] delay_loads: and rate exclude each other"));
}

static void test_links_and_remote(void **state)
{
	static const char lab[] = "[lab]\nhosts = 3\nclient = 0\nserver = 2\n"
				  "[link.a]\na = 0\nb = 1\n[link.b]\na = 0\nb = 2\nmtu = 1400\n"
				  "[path.direct]\ntype = underlay\n"
				  "[path.via]\ntype = underlay\nlink = a\n"
				  "[tcp]\n";
	static const char chain[] = "[lab]\nhosts = 3\nserver = 2\nmtu = 9000\nrate = 300M\n"
				    "[path.routed]\ntype = underlay\n[tcp]\n";
	static const char remote[] = "[host.dc1]\naddress = 192.0.2.10\nport = 6000\n"
				     "psk_file = /etc/ovlperf/psk\n"
				     "[host.dc2]\naddress = server.example.net\n"
				     "[path.native]\ntype = underlay\nhost = dc2\n"
				     "[path.vpn]\ntype = external\nhost = dc1\naddress = 10.8.0.1\n"
				     "[tcp]\nstreams = 1,5\n";
	struct scenario s;
	char err[1024];

	(void)state;
	assert_int_equal(scenario_parse("lab.ini", lab, strlen(lab), &s, err, sizeof(err)), 0);
	assert_int_equal(s.lab.nlinks, 2);
	assert_string_equal(s.lab.links[1].name, "b");
	assert_int_equal(s.lab.links[1].mtu, 1400);
	assert_int_equal(s.paths[0].link, 1); /* the link joining client 0 and server 2 */
	assert_int_equal(s.paths[1].link, 0);

	/* no [link.*]: a chain like `lab up --hosts 3`, the server's link chosen */
	assert_int_equal(scenario_parse("chain.ini", chain, strlen(chain), &s, err, sizeof(err)),
			 0);
	assert_int_equal(s.lab.nlinks, 2);
	assert_int_equal(s.lab.links[1].a, 1);
	assert_int_equal(s.lab.links[1].b, 2);
	assert_int_equal(s.lab.links[1].rate_bps, 300000000ULL);
	assert_int_equal(s.lab.links[0].mtu, 9000);
	assert_int_equal(s.paths[0].link, 1);

	assert_int_equal(scenario_parse("remote.ini", remote, strlen(remote), &s, err, sizeof(err)),
			 0);
	assert_false(s.is_lab);
	assert_int_equal(s.nhosts, 2);
	assert_int_equal(s.hosts[0].port, 6000);
	assert_string_equal(s.hosts[0].psk_file, "/etc/ovlperf/psk");
	assert_int_equal(s.paths[0].host, 1);
	assert_int_equal(s.paths[1].host, 0);
	/* real addresses are fine on real hosts, never in a lab */
	assert_string_equal(s.paths[1].address, "10.8.0.1");
	assert_int_equal(scenario_check_lab_targets(&s, err, sizeof(err)), 0);
}

/* Real hosts over IPv6: the family follows the address unless stated, a
 * bracketed literal may carry the port, and the dry run shows both. */
static void test_remote_ipv6(void **state)
{
	static const char text[] = "[host.far]\naddress = 2001:2:0:c8::2\n"
				   "[host.near]\naddress = [2001:2:0:c9::2]:5300\n"
				   "[host.v4]\naddress = 198.18.200.2:6000\n"
				   "[host.name]\naddress = server.example.net\n"
				   "[path.u6]\ntype = underlay\nhost = far\n"
				   "[path.b6]\ntype = underlay\nhost = near\n"
				   "[path.u4]\ntype = underlay\nhost = v4\n"
				   "[path.byname]\ntype = underlay\nhost = name\n"
				   "[path.named6]\ntype = underlay\nhost = name\nfamily = 6\n"
				   "[path.vpn]\ntype = external\nhost = v4\n"
				   "address = [2001:2:0:ff::2]:5400\n"
				   "[tcp]\n";
	static const char lab[] = "[path.v]\ntype = external\naddress = [2001:2:0:ff::2]\n[tcp]\n";
	struct run_plan plan;
	struct scenario s;
	char err[1024];

	(void)state;
	assert_int_equal(scenario_parse("v6.ini", text, strlen(text), &s, err, sizeof(err)), 0);
	assert_string_equal(s.hosts[0].address, "2001:2:0:c8::2");
	assert_int_equal(s.hosts[0].port, 0);
	assert_string_equal(s.hosts[1].address, "2001:2:0:c9::2");
	assert_int_equal(s.hosts[1].port, 5300);
	assert_string_equal(s.hosts[2].address, "198.18.200.2");
	assert_int_equal(s.hosts[2].port, 6000);
	assert_int_equal(s.paths[0].family, AF_INET6);
	assert_int_equal(s.paths[1].family, AF_INET6);
	assert_int_equal(s.paths[2].family, AF_INET);
	assert_int_equal(s.paths[3].family, AF_INET); /* a name: IPv4 unless stated */
	assert_int_equal(s.paths[4].family, AF_INET6);
	assert_string_equal(s.paths[5].address, "2001:2:0:ff::2");
	assert_int_equal(s.paths[5].port, 5400);
	assert_int_equal(s.paths[5].family, AF_INET6);
	run_plan_build(&s, 0, &plan);
	assert_int_equal(plan.paths[0].family, AF_INET6);
	assert_string_equal(plan.paths[0].address, "2001:2:0:c8::2");
	assert_string_equal(plan.paths[1].address, "2001:2:0:c9::2");
	assert_string_equal(plan.paths[5].address, "2001:2:0:ff::2");

	/* in a lab, a bracketed literal is checked against the ranges as the literal */
	assert_int_equal(scenario_parse("lab6.ini", lab, strlen(lab), &s, err, sizeof(err)), 0);
	assert_string_equal(s.paths[0].address, "2001:2:0:ff::2");
	assert_int_equal(s.paths[0].family, AF_INET6);
}

static void test_crlf_bom_and_comments(void **state)
{
	static const char text[] =
		"\xef\xbb\xbf# hash comment\r\n[scenario]\r\nname = crlf ; inline\r\n"
		"[path.u]\r\ntype = underlay\r\n[tcp]\r\n";
	struct scenario s;
	char err[512];

	(void)state;
	assert_int_equal(scenario_parse("crlf.ini", text, strlen(text), &s, err, sizeof(err)), 0);
	assert_string_equal(s.name, "crlf");
}

/* Many errors: all listed (up to a cap), and a short buffer stays a string. */
static void test_error_list(void **state)
{
	char text[4096] = "", small[40];
	struct scenario s;
	char err[8192];
	size_t used = 0;

	(void)state;
	for (int i = 0; i < 40; i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, "[bogus%d]\n", i);
	assert_int_equal(scenario_parse("many.ini", text, used, &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "many.ini:1: [bogus0]: unknown section"));
	assert_non_null(strstr(err, "too many errors"));
	assert_null(strstr(err, "[bogus39]"));
	memset(small, 'x', sizeof(small));
	assert_int_equal(scenario_parse("many.ini", text, used, &s, small, sizeof(small)), -EINVAL);
	assert_true(memchr(small, '\0', sizeof(small)) != NULL);
	assert_int_equal(scenario_parse("many.ini", text, used, &s, NULL, 0), -EINVAL);
}

static void test_missing_file(void **state)
{
	struct scenario s;
	char err[512];

	(void)state;
	assert_int_equal(scenario_load("/nonexistent/x.ini", &s, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/x.ini: cannot read"));
	assert_int_equal(scenario_load("/", &s, err, sizeof(err)), -EISDIR);
}

static void test_durations(void **state)
{
	static const struct {
		const char *s;
		bool ok;
		uint64_t ns;
	} durs[] = {
		{ "10", true, 10000000000ULL },
		{ "10s", true, 10000000000ULL },
		{ "500ms", true, 500000000ULL },
		{ "2m", true, 120000000000ULL },
		{ "1.5s", true, 1500000000ULL },
		{ "250us", true, 250000 },
		{ "1 min", true, 60000000000ULL },
		{ "10 minutes", false, 0 },
		{ "-1", false, 0 },
		{ "s", false, 0 },
		{ "2d", false, 0 },
		{ "100000m", false, 0 },
	};
	uint64_t v;
	double pct;
	bool b;
	uint64_t list[SCN_MAX_LIST];
	unsigned n;

	(void)state;
	for (size_t i = 0; i < sizeof(durs) / sizeof(durs[0]); i++) {
		v = 0;
		assert_int_equal(scenario_parse_duration(durs[i].s, &v), durs[i].ok);
		if (durs[i].ok)
			assert_int_equal(v, durs[i].ns);
	}
	assert_true(scenario_parse_percent("0.5%", &pct) && pct == 0.5);
	assert_true(scenario_parse_percent("100", &pct) && pct == 100);
	assert_false(scenario_parse_percent("100.1", &pct));
	assert_false(scenario_parse_percent("5%%", &pct));
	assert_true(scenario_parse_bool("On", &b) && b);
	assert_true(scenario_parse_bool("0", &b) && !b);
	assert_false(scenario_parse_bool("maybe", &b));
	assert_true(scenario_parse_uint("65535", 1, 65535, &v) && v == 65535);
	assert_false(scenario_parse_uint("65536", 1, 65535, &v));
	assert_false(scenario_parse_uint("99999999999999999999999", 0, UINT64_MAX, &v));
	assert_false(scenario_parse_uint("+1", 0, 10, &v));
	assert_true(scenario_parse_list(" 1, 5 ,10", 1, 128, list, SCN_MAX_LIST, &n));
	assert_int_equal(n, 3);
	assert_int_equal(list[2], 10);
	assert_false(scenario_parse_list("1,,5", 1, 128, list, SCN_MAX_LIST, &n));
	assert_false(scenario_parse_list("1,5,", 1, 128, list, SCN_MAX_LIST, &n));
	assert_false(scenario_parse_list("", 1, 128, list, SCN_MAX_LIST, &n));
	assert_false(scenario_parse_list("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", 1, 128, list,
					 SCN_MAX_LIST, &n));
}

static void test_benchmark_ranges(void **state)
{
	static const struct {
		const char *a;
		bool in;
	} t[] = {
		{ "198.18.0.1", true },		{ "198.19.255.254", true },
		{ "198.17.255.255", false },	{ "198.20.0.0", false },
		{ "10.0.0.1", false },		{ "192.0.2.1", false },
		{ "2001:2::1", true },		{ "2001:2:0:ff::2", true },
		{ "2001:2:1::1", false },	{ "2001:db8::1", false },
		{ "::ffff:198.18.0.1", false }, { "fe80::1", false },
		{ "lab-host", false },		{ "", false },
		{ "198.18.0.1/24", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(scenario_addr_is_benchmark(t[i].a), t[i].in);
}

/* The scenarios the project ships (every .ini in scenarios/) all parse. */
/* Sizes and rates at the IP, frame or line layer (RFC 2544): sizes become
 * payloads for the paths' family, rates payload rates per size. */
static void test_layers(void **state)
{
	static const char *const head = "[lab]\nrate = 1G\nrate_layer = line\n"
					"[path.u]\ntype = underlay\n";
	static const struct {
		const char *text;
		const char *err; /* NULL: accepted */
	} cases[] = {
		{ "[udp]\nsize_layer = frame\nsizes = 64,128,1518\n", NULL },
		{ "[udp]\nsize_layer = frame\nsizes = 63\n",
		  "layers.ini:8: [udp] sizes: a UDP datagram over IPv4 is at least 64 bytes at "
		  "the frame layer, not 63" },
		{ "[udp]\nsize_layer = line\nsizes = 100\n",
		  "[udp] size_layer: 'line' is not payload, ip or frame" },
		{ "[udp]\nsize_layer = frame\n", "size_layer: says what sizes count" },
		{ "[udp]\nsize_layer = frame\nsizes = fit\n", "fit is a payload size" },
		{ "[udp]\nrate_layer = line\nrate = 1000\nsizes = 1472\n",
		  "[udp] rate: 1000 bit/s at the line layer is less than one datagram" },
		{ "[sweep]\nrate_layer = wire\nfrom = 1M\nto = 2M\nstep = 1M\n",
		  "[sweep] rate_layer: 'wire' is not payload, ip, frame or line" },
		{ "[path.v]\ntype = underlay\nfamily = 6\n[knee]\nrate_layer = ip\n"
		  "max_rate = 1G\n",
		  "[knee] rate_layer: layers count IP headers, so the paths must share one "
		  "family (path u is IPv4, path v IPv6)" },
		{ "[knee]\nrate_layer = line\nmin_rate = 1001k\nmax_rate = 1002k\n"
		  "[udp]\nsizes = 1472\n",
		  "[knee] min_rate: is the same number of 1472-byte datagrams a second" },
		{ "[link.x]\na = 0\nb = 1\nrate_layer = frame\n[udp]\nsizes = 100\n",
		  "[link.x] rate_layer: counts the rate of a shaped link: give rate too" },
	};
	char text[512], err[4096];
	struct scenario s;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *h =
			strstr(cases[i].text, "[link.") ? "[path.u]\ntype = underlay\n" : head;
		int rc;

		snprintf(text, sizeof(text), "%s%s", h, cases[i].text);
		err[0] = '\0';
		rc = scenario_parse("layers.ini", text, strlen(text), &s, err, sizeof(err));
		if (!cases[i].err ? rc != 0 : rc != -EINVAL || !strstr(err, cases[i].err))
			print_error("case %zu: rc %d, wanted '%s', got\n%s", i, rc,
				    cases[i].err ? cases[i].err : "", err);
		assert_int_equal(rc, cases[i].err ? -EINVAL : 0);
		if (cases[i].err)
			assert_non_null(strstr(err, cases[i].err));
	}
	/* the accepted case: payloads, and rates per size */
	snprintf(text, sizeof(text), "%s%s", head, cases[0].text);
	assert_int_equal(scenario_parse("layers.ini", text, strlen(text), &s, err, sizeof(err)), 0);
	assert_int_equal(s.lab.links[0].rate_layer, LAYER_LINE);
	assert_int_equal(s.udp.family, AF_INET);
	assert_int_equal(s.udp.nsizes, 3);
	assert_int_equal(s.udp.sizes[0], 18); /* RFC 2544's 64-byte frame */
	assert_int_equal(s.udp.sizes[1], 82);
	assert_int_equal(s.udp.sizes[2], 1472);
	assert_int_equal(s.udp.size_given[2], 1518);
	/* 1 Gbit/s of line rate: 81,274 frames of 1518 bytes, 844,594 of 128,
	 * 1,488,095 of 64 */
	assert_int_equal(scenario_rate_payload(&s, LAYER_LINE, 1000000000, 1472),
			 81274ULL * 1472 * 8);
	assert_int_equal(scenario_rate_payload(&s, LAYER_LINE, 1000000000, 82), 844594ULL * 82 * 8);
	assert_int_equal(scenario_rate_payload(&s, LAYER_LINE, 1000000000, 18),
			 1488095ULL * 18 * 8);
	assert_int_equal(scenario_rate_payload(&s, LAYER_PAYLOAD, 1000000000, 82), 1000000000);
	assert_int_equal(scenario_rate_payload(&s, LAYER_LINE, 0, 82), 0);
}

/* [lab] and [link.NAME] WAN conditions: the one reader of link.h, errors
 * naming file, line and key, and what reaches the lab's spec. */
static void test_link_conditions(void **state)
{
	static const struct {
		const char *key, *msg;
	} bad[] = {
		{ "delay = 40parsecs", "w.ini:2: [lab] delay: '40parsecs' is not a duration" },
		{ "loss = 120%", "w.ini:2: [lab] loss: '120%' is not a percentage" },
		{ "loss_burst = 1%", "w.ini:2: [lab] loss_burst:" },
		{ "link_means = tc", "w.ini:2: [lab] link_means: 'tc' is not auto, netem or" },
		{ "loss = 1%\nloss_burst = 1%,20%", "w.ini:3: [lab] loss_burst: with loss: one" },
		{ "tcp_rmem_max = 1k", "w.ini:2: [lab] tcp_rmem_max: 1k is out of range (4k..1G" },
		{ "tcp_wmem_max = lots", "w.ini:2: [lab] tcp_wmem_max:" },
		{ "cpus = 0|1-x", "w.ini:2: [lab] cpus: host 1: '1-x': a range is LOW-HIGH" },
		{ "cpus = 0|1|0", "w.ini:2: [lab] cpus: 3 CPU lists for 2 hosts: one per host" },
		{ "hosts = 3\ncpus = 0|1", "w.ini:3: [lab] cpus: 2 CPU lists for 3 hosts" },
	};
	static const char good[] = "[lab]\ndelay = 35ms/10ms\njitter = 2ms\nloss = 1%\n"
				   "reorder = 0.5%\nlink_means = userspace\n"
				   "tcp_rmem_max = 256K\ntcp_wmem_max = 16M\n"
				   "cpus = 0-1 | 2\n"
				   "[path.u]\ntype = underlay\n[tcp]\n";
	static const char links[] = "[lab]\nhosts = 3\n[link.x]\na = 0\nb = 1\n"
				    "[link.y]\na = 1\nb = 2\nloss_burst = 1%,20%\n"
				    "[path.u]\ntype = underlay\n[tcp]\n";
	char text[256], err[512];
	struct lab_spec spec;
	struct scenario s;

	(void)state;
	assert_int_equal(scenario_parse("w.ini", good, strlen(good), &s, err, sizeof(err)), 0);
	scenario_lab_spec(&s, &spec);
	assert_int_equal(spec.means, LAB_MEANS_USERSPACE);
	assert_int_equal(spec.links[0].cond.dir[0].delay_ns, 35000000);
	assert_int_equal(spec.links[0].cond.dir[1].delay_ns, 10000000);
	assert_int_equal(spec.links[0].cond.dir[1].jitter_ns, 2000000);
	assert_int_equal(spec.links[0].cond.dir[0].loss_ppm, 10000);
	assert_int_equal(spec.links[0].cond.dir[1].reorder_ppm, 5000);
	assert_int_equal(spec.tcp_rmem_max, 262144);
	assert_int_equal(spec.tcp_wmem_max, 16u << 20);
	assert_int_equal(spec.cpus_hosts, 2);
	assert_string_equal(spec.cpus[0], "0-1");
	assert_string_equal(spec.cpus[1], "2");
	assert_int_equal(scenario_parse("w.ini", links, strlen(links), &s, err, sizeof(err)), 0);
	scenario_lab_spec(&s, &spec);
	assert_false(link_conf_active(&spec.links[0].cond));
	assert_int_equal(spec.links[1].cond.dir[0].ge_p_ppm, 10000);
	assert_int_equal(spec.links[1].cond.dir[1].ge_r_ppm, 200000);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[lab]\n%s\n[path.u]\ntype = underlay\n", bad[i].key);
		assert_int_equal(scenario_parse("w.ini", text, strlen(text), &s, err, sizeof(err)),
				 -EINVAL);
		if (!strstr(err, bad[i].msg))
			fail_msg("'%s': got %s", bad[i].key, err);
	}
	/* with [link.*] sections the conditions belong there */
	snprintf(text, sizeof(text),
		 "[lab]\ndelay = 5ms\n[link.x]\na = 0\nb = 1\n"
		 "[path.u]\ntype = underlay\n[tcp]\n");
	assert_int_equal(scenario_parse("w.ini", text, strlen(text), &s, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "w.ini:2: [lab] delay: link settings go in the [link.*]"));
}

static void test_shipped_scenarios(void **state)
{
	glob_t g;
	char err[4096];

	(void)state;
	if (glob("scenarios/*.ini", 0, NULL, &g) != 0) {
		print_message("no scenarios/*.ini here (run from the repository root)\n");
		return;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct scenario s;
		int rc = scenario_load(g.gl_pathv[i], &s, err, sizeof(err));

		if (rc)
			print_error("%s", err);
		assert_int_equal(rc, 0);
		assert_int_equal(scenario_check_lab_targets(&s, err, sizeof(err)), 0);
	}
	globfree(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_malformed_files),
		cmocka_unit_test(test_malformed_all_listed),
		cmocka_unit_test(test_full_scenario),
		cmocka_unit_test(test_minimal_defaults),
		cmocka_unit_test(test_delay_loads),
		cmocka_unit_test(test_links_and_remote),
		cmocka_unit_test(test_remote_ipv6),
		cmocka_unit_test(test_crlf_bom_and_comments),
		cmocka_unit_test(test_error_list),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_benchmark_ranges),
		cmocka_unit_test(test_layers),
		cmocka_unit_test(test_link_conditions),
		cmocka_unit_test(test_shipped_scenarios),
	};

	return cmocka_run_group_tests_name("scenario", tests, NULL, NULL);
}
