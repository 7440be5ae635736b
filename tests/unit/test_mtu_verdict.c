// SPDX-License-Identifier: MIT
/*
 * Verdicts from measured reports (no network): each failure the checks exist for
 * (black hole, ICMP-only PMTU, MSS too large, TCP stall, MSS too small,
 * overlay MTU too large for the underlay, overlay MTU wasting bytes, external
 * overhead inference, fragmentation, jumbo, expectations, probe errors) gets
 * the right level and a fix with the right numbers. Also the scenario helpers
 * (roles and specs from a parsed scenario) and the MTU_PROBE_* wire bodies.
 */
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <cmocka.h>

#include "mtu.h"
#include "mtu_wire.h"
#include "results.h"
#include "scenario.h"

static struct mtu_report *new_report(void)
{
	struct mtu_report *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	return r;
}

/* A path that found pmtu with the given interface MTU. */
static struct mtu_path_result *path(struct mtu_report *r, const char *name, int family,
				    uint32_t if_mtu, uint32_t pmtu, bool icmp)
{
	struct mtu_path_result *p = &r->paths[r->npaths];

	memset(p, 0, sizeof(*p));
	snprintf(p->spec.name, sizeof(p->spec.name), "%s", name);
	snprintf(p->ifname, sizeof(p->ifname), "%s", "eth0");
	p->family = family;
	p->if_mtu = if_mtu;
	p->search.state = MTU_SEARCH_DONE;
	p->search.pmtu = pmtu;
	p->search.reached_max = pmtu == if_mtu;
	p->search.smallest_failed = pmtu == if_mtu ? 0 : pmtu + 1;
	p->search.icmp_seen = icmp;
	p->search.icmp_mtu = icmp ? pmtu : 0;
	p->search.blackhole = pmtu != if_mtu && !icmp;
	r->roles[r->npaths] = (struct mtu_path_role){ .kind = MTU_PATH_PLAIN, .underlay = -1 };
	r->npaths++;
	return p;
}

static const struct mtu_verdict *find(const struct mtu_report *r, const char *p, const char *c)
{
	for (unsigned i = 0; i < r->nverdicts; i++)
		if (!strcmp(r->verdicts[i].path, p) && !strcmp(r->verdicts[i].check, c))
			return &r->verdicts[i];
	return NULL;
}

static void expect_verdict(const struct mtu_report *r, const char *p, const char *c,
			   enum mtu_level level, const char *in_reason, const char *in_fix)
{
	const struct mtu_verdict *v = find(r, p, c);

	assert_non_null(v);
	assert_int_equal(v->level, level);
	if (in_reason && !strstr(v->reason, in_reason))
		fail_msg("%s/%s reason '%s' lacks '%s'", p, c, v->reason, in_reason);
	if (in_fix && !strstr(v->fix, in_fix))
		fail_msg("%s/%s fix '%s' lacks '%s'", p, c, v->fix, in_fix);
	if (!in_fix)
		assert_string_equal(v->fix, "");
}

static void tcp(struct mtu_path_result *p, bool completed, uint32_t initial, uint32_t final,
		uint32_t adv)
{
	p->tcp.run = true;
	p->tcp.family = p->family;
	p->tcp.completed = completed;
	p->tcp.timestamps = true;
	p->tcp.client_initial = (struct mtu_tcp_end){ true, initial, adv, 0, 0 };
	p->tcp.client = (struct mtu_tcp_end){ true, final, adv, 0, p->search.pmtu };
	p->tcp.server = (struct mtu_tcp_end){ true, final, adv, 0, p->search.pmtu };
	if (!completed)
		snprintf(p->tcp.error, sizeof(p->tcp.error), "transfer stalled");
}

/* Every fix of path p that names an MTU or an MSS names these ones; at least
 * min_fixes verdicts of p have a fix. */
static void expect_fixes_agree(const struct mtu_report *r, const char *p, unsigned mtu,
			       unsigned mss, unsigned min_fixes)
{
	unsigned fixes = 0;

	for (unsigned i = 0; i < r->nverdicts; i++) {
		const struct mtu_verdict *v = &r->verdicts[i];
		const char *s;
		unsigned n;

		if (strcmp(v->path, p) || !v->fix[0])
			continue;
		fixes++;
		if ((s = strstr(v->fix, "MTU to ")) && sscanf(s, "MTU to %u", &n) == 1 && n != mtu)
			fail_msg("%s/%s fix '%s' names MTU %u, not %u", p, v->check, v->fix, n,
				 mtu);
		if ((s = strstr(v->fix, "MSS to ")) && sscanf(s, "MSS to %u", &n) == 1 && n != mss)
			fail_msg("%s/%s fix '%s' names MSS %u, not %u", p, v->check, v->fix, n,
				 mss);
	}
	if (fixes < min_fixes)
		fail_msg("%s: %u fixes, expected at least %u", p, fixes, min_fixes);
}

static void test_clean_and_jumbo(void **state)
{
	struct mtu_report *r = new_report();

	(void)state;
	tcp(path(r, "plain", AF_INET, 1500, 1500, false), true, 1448, 1448, 1448);
	tcp(path(r, "jumbo", AF_INET, 9001, 9001, false), true, 8949, 8949, 8949);
	tcp(path(r, "jumbo6", AF_INET6, 9001, 9001, false), true, 8929, 8929, 8929);
	mtu_verdicts(r);
	expect_verdict(r, "plain", "pmtu", MTU_OK, "path MTU 1500 confirmed", NULL);
	expect_verdict(r, "plain", "mss", MTU_OK,
		       "MSS 1460 (1448 bytes of payload per segment) matches path MTU 1500", NULL);
	expect_verdict(r, "jumbo", "pmtu", MTU_OK,
		       "jumbo path confirmed: MTU 9001 end to end, MSS 8961 (8949 bytes of "
		       "payload per segment)",
		       NULL);
	expect_verdict(r, "jumbo", "mss", MTU_OK,
		       "jumbo path confirmed: MSS 8961, 8949 bytes of payload", NULL);
	expect_verdict(r, "jumbo6", "pmtu", MTU_OK, "MSS 8941 (8929 bytes of payload", NULL);
	assert_int_equal(mtu_report_worst(r), MTU_OK);
	free(r);
}

static void test_narrow_paths(void **state)
{
	struct mtu_report *r = new_report();

	(void)state;
	tcp(path(r, "icmp", AF_INET, 1500, 1400, true), true, 1448, 1348, 1448);
	tcp(path(r, "hole", AF_INET, 1500, 1400, false), false, 1448, 1448, 1448);
	path(r, "hole6", AF_INET6, 1500, 1280, false);
	mtu_verdicts(r);
	expect_verdict(r, "icmp", "pmtu", MTU_WARN, "ICMP frag-needed arrives (MTU 1400)",
		       "set the MTU of eth0 to 1400, or clamp MSS to 1360");
	expect_verdict(
		r, "icmp", "mss", MTU_WARN,
		"MSS 1460 on the SYNs is larger than the path MTU 1400 allows (MSS 1360): "
		"PMTU discovery had to bring the payload per segment from 1448 at connect to 1348",
		"clamp MSS to 1360 on eth0 (or set its MTU to 1400)");
	expect_verdict(r, "hole", "blackhole", MTU_FAIL, "1401..1500 bytes are black-holed",
		       "set the MTU of eth0 to 1400, or clamp MSS to 1360");
	expect_verdict(r, "hole", "mss", MTU_FAIL,
		       "TCP with MSS 1460 (1448 bytes of payload per segment) stalls",
		       "clamp MSS to 1360");
	expect_verdict(r, "hole6", "blackhole", MTU_FAIL, "ICMPv6 packet-too-big",
		       "clamp MSS to 1220");
	assert_null(find(r, "hole", "pmtu"));
	assert_int_equal(mtu_report_worst(r), MTU_FAIL);
	free(r);
}

static void test_mss_small(void **state)
{
	struct mtu_report *r = new_report();
	struct mtu_path_result *p;

	(void)state;
	/* The SD-WAN field report: a clamp of 1348 on the way, where 1460
	 * fits. It fits the path: OK, said in the option value users set. */
	p = path(r, "sdwan", AF_INET, 1500, 1500, false);
	tcp(p, true, 1336, 1336, 1448);
	p->tcp.syn_arrived = 1348;
	/* The same clamp seen only in the SYN-ACK (a far end too old to say
	 * what its SYN carried). */
	p = path(r, "back", AF_INET, 1500, 1500, false);
	tcp(p, true, 1336, 1336, 1448);
	/* OpenVPN's mssfix: clamped at connect inside the tunnel, on an
	 * overlay whose unfragmented path MTU is 1387. */
	p = path(r, "ovpn", AF_INET, 1500, 1387, true);
	tcp(p, true, 1335, 1335, 1448);
	p->tcp.syn_arrived = 1347;
	/* The same VPN with --mssfix 0: nothing clamps, PMTUD must work. */
	p = path(r, "ovpn0", AF_INET, 1500, 1387, true);
	tcp(p, true, 1448, 1335, 1448);
	p->tcp.syn_arrived = 1460;
	/* A path MTU the kernel learned before the connection holds the first
	 * segments down; the SYNs still said 1460: too large. */
	p = path(r, "cached", AF_INET, 1500, 1400, true);
	tcp(p, true, 1348, 1348, 1448);
	p->tcp.client_initial.pmtu = 1400;
	p->tcp.syn_arrived = 1460;
	/* The far end's own clamp (its SYN-ACK says 1400). */
	p = path(r, "far", AF_INET6, 1500, 1500, false);
	tcp(p, true, 1388, 1388, 1428);
	p->tcp.server.adv_mss = 1388;
	p->tcp.syn_arrived = 1440;
	mtu_verdicts(r);
	expect_verdict(r, "sdwan", "mss", MTU_OK,
		       "MSS 1348 (1336 bytes of payload per segment), clamped on the path (the "
		       "SYN left with 1460 and arrived with 1348): fits the path MTU 1500, which "
		       "allows up to MSS 1460",
		       NULL);
	expect_verdict(r, "back", "mss", MTU_OK,
		       "MSS 1348 (1336 bytes of payload per segment), clamped on the path (the "
		       "SYN-ACK left with 1460)",
		       NULL);
	expect_verdict(r, "ovpn", "mss", MTU_OK, "MSS 1347 (1335 bytes of payload per segment)",
		       NULL);
	expect_verdict(r, "ovpn0", "mss", MTU_WARN,
		       "MSS 1460 on the SYNs is larger than the path MTU 1387 allows (MSS 1347)",
		       "clamp MSS to 1347 on eth0 (or set its MTU to 1387)");
	expect_verdict(r, "cached", "mss", MTU_WARN,
		       "MSS 1460 on the SYNs is larger than the path MTU 1400 allows (MSS 1360)",
		       "clamp MSS to 1360");
	expect_verdict(r, "far", "mss", MTU_OK,
		       "MSS 1400 (1388 bytes of payload per segment), as the far end advertises",
		       NULL);
	/* --expect-mss compares the option value, never the payload. */
	r->paths[0].spec.expect_mss = 1348;
	r->paths[1].spec.expect_mss = 1336;
	mtu_verdicts(r);
	expect_verdict(r, "sdwan", "expect", MTU_OK, "TCP MSS 1348 (1336 bytes of payload", NULL);
	expect_verdict(r, "back", "expect", MTU_FAIL, "expected 1336", NULL);
	free(r);
}

static void test_builtin_overlay(void **state)
{
	struct mtu_report *r = new_report();
	struct mtu_path_result *ov;

	(void)state;
	/* too large, black-holed: underlay 1400, overlay interface 1440 */
	path(r, "under", AF_INET, 1500, 1400, false);
	ov = path(r, "over", AF_INET, 1440, 1328, false);
	r->roles[0].kind = MTU_PATH_UNDERLAY;
	r->roles[1] = (struct mtu_path_role){ .kind = MTU_PATH_BUILTIN,
					      .underlay = 0,
					      .underlay_family = AF_INET };
	mtu_verdicts(r);
	assert_true(r->tunnels[1].valid);
	assert_int_equal(r->tunnels[1].inner_expected, 1340);
	assert_int_equal(r->tunnels[1].overhead_inferred, 72);
	/* the MTU to set is 1500 - 60; an MSS clamp must keep padded packets
	 * at what got through (1328) */
	expect_verdict(r, "over", "tunnel", MTU_FAIL,
		       "overlay MTU 1440 is larger than the underlay",
		       "set the overlay MTU to 1340, or clamp MSS to 1288");
	expect_verdict(r, "over", "blackhole", MTU_FAIL, NULL,
		       "set the overlay MTU to 1340, or clamp MSS to 1288");
	/* One advice for the path: with TCP stalling and fragments counted
	 * too, every fix of the overlay names the same MTU and clamp. */
	tcp(ov, false, 1388, 1388, 1388);
	ov->frag_valid = true;
	ov->local_frag_creates = 2;
	mtu_verdicts(r);
	expect_fixes_agree(r, "over", 1340, 1288, 4);
	/* with ICMP from the tunnel: a warning */
	ov->search.blackhole = false;
	ov->search.icmp_seen = true;
	mtu_verdicts(r);
	expect_verdict(r, "over", "tunnel", MTU_WARN, NULL, "set the overlay MTU to 1340");
	/* right: IPv6 underlay, overhead 80 */
	memset(r, 0, sizeof(*r));
	path(r, "under", AF_INET6, 1500, 1500, false);
	path(r, "over", AF_INET, 1420, 1420, false);
	r->roles[1] = (struct mtu_path_role){ .kind = MTU_PATH_BUILTIN,
					      .underlay = 0,
					      .underlay_family = AF_INET6 };
	mtu_verdicts(r);
	expect_verdict(r, "over", "tunnel", MTU_OK,
		       "overlay MTU 1420 = underlay path MTU 1500 - 80", NULL);
	/* unsaid, the outer family is the underlay probe's */
	r->roles[1].underlay_family = 0;
	mtu_verdicts(r);
	assert_int_equal(r->tunnels[1].overhead_expected, 80);
	r->paths[0].family = AF_INET;
	mtu_verdicts(r);
	assert_int_equal(r->tunnels[1].overhead_expected, 60);
	/* too small: the overlay wastes bytes */
	memset(r, 0, sizeof(*r));
	path(r, "under", AF_INET, 1500, 1500, false);
	path(r, "over", AF_INET, 1380, 1380, false);
	r->roles[1] = (struct mtu_path_role){ .kind = MTU_PATH_BUILTIN,
					      .underlay = 0,
					      .underlay_family = AF_INET };
	mtu_verdicts(r);
	expect_verdict(r, "over", "tunnel", MTU_WARN, "60 bytes per packet unused",
		       "set the overlay MTU to 1440");
	free(r);
}

static void test_external_overlay(void **state)
{
	struct mtu_report *r = new_report();

	(void)state;
	path(r, "under", AF_INET, 1500, 1500, false);
	path(r, "wg", AF_INET, 1420, 1420, false);
	r->roles[1] = (struct mtu_path_role){ .kind = MTU_PATH_EXTERNAL, .underlay = 0 };
	mtu_verdicts(r);
	expect_verdict(r, "wg", "tunnel", MTU_OK,
		       "fits the underlay path MTU 1500: overhead at most 80", NULL);
	assert_int_equal(find(r, "wg", "tunnel")->value, 80);
	/* limited by the path, not the interface: the overhead is measured */
	r->paths[1].if_mtu = 1500;
	r->paths[1].search.reached_max = false;
	r->paths[1].search.icmp_seen = true;
	r->roles[1].overlay_mtu = 1420;
	mtu_verdicts(r);
	expect_verdict(r, "wg", "tunnel", MTU_OK, "overlay overhead 80 bytes", NULL);
	/* fragmenting: the unfragmented size counts */
	memset(r, 0, sizeof(*r));
	path(r, "under", AF_INET, 1500, 1500, false);
	path(r, "frag", AF_INET, 1500, 1500, false);
	r->paths[1].fragmenting = true;
	r->paths[1].frag_valid = true;
	r->paths[1].local_frag_creates = 54;
	r->paths[1].nofrag = (struct mtu_search_result){ .state = MTU_SEARCH_DONE, .pmtu = 1440 };
	r->roles[1] = (struct mtu_path_role){ .kind = MTU_PATH_EXTERNAL, .underlay = 0 };
	mtu_verdicts(r);
	assert_int_equal(r->tunnels[1].overhead_inferred, 60);
	expect_verdict(r, "frag", "fragments", MTU_WARN, "1441..1500 bytes got through only",
		       "set the overlay MTU to 1440");
	expect_verdict(r, "frag", "tunnel", MTU_WARN,
		       "1500 - 60 bytes of encapsulation inside the MTU = 1440",
		       "set the overlay MTU to 1440");
	expect_verdict(r, "frag", "pmtu", MTU_OK, "above 1440 only in fragments", NULL);
	/* an external overlay whose interface promises more than it carries */
	memset(r, 0, sizeof(*r));
	path(r, "under", AF_INET, 1500, 1500, false);
	path(r, "vpn", AF_INET, 1500, 1400, false);
	r->roles[1] = (struct mtu_path_role){ .kind = MTU_PATH_EXTERNAL, .underlay = 0 };
	mtu_verdicts(r);
	expect_verdict(r, "vpn", "tunnel", MTU_FAIL, "overlay MTU 1500 is larger",
		       "set the overlay MTU to 1400");
	/* no underlay probed: no tunnel verdict */
	r->roles[1].underlay = -1;
	mtu_verdicts(r);
	assert_null(find(r, "vpn", "tunnel"));
	free(r);
}

static void test_fragments_expect_errors(void **state)
{
	struct mtu_report *r = new_report();
	struct mtu_path_result *p;

	(void)state;
	p = path(r, "frag", AF_INET, 1500, 1500, false);
	p->frag_valid = true;
	p->local_frag_creates = 4;
	p->remote_reasm_reqds = 4;
	p->spec.expect_mtu = 1400;
	p = path(r, "clean", AF_INET, 1500, 1500, false);
	p->frag_valid = true;
	p->spec.expect_mtu = 1500;
	p = path(r, "down", AF_INET, 0, 0, false);
	p->status = -111;
	snprintf(p->spec.host, sizeof(p->spec.host), "198.18.0.9");
	snprintf(p->error, sizeof(p->error), "cannot reach the server");
	p = path(r, "base", AF_INET, 1500, 0, true);
	p->search.state = MTU_SEARCH_BASE_FAILED;
	p->search.icmp_mtu = 1000;
	p->nrecords = 1;
	p->records[0].size = 1200;
	mtu_verdicts(r);
	expect_verdict(r, "frag", "fragments", MTU_WARN, "4 created here, 4 received",
		       "set the MTU of eth0 to 1500, or clamp MSS to 1460");
	expect_verdict(r, "frag", "expect", MTU_FAIL, "path MTU 1500, expected 1400", NULL);
	expect_verdict(r, "clean", "fragments", MTU_OK, NULL, NULL);
	expect_verdict(r, "clean", "expect", MTU_OK, NULL, NULL);
	expect_verdict(r, "down", "probe", MTU_FAIL, "cannot reach the server", "198.18.0.9");
	assert_null(find(r, "down", "pmtu"));
	expect_verdict(r, "base", "pmtu", MTU_FAIL, "not one probe of 1200 bytes",
		       "the path says its MTU is 1000");
	assert_string_equal(mtu_level_name(mtu_report_worst(r)), "FAIL");
	free(r);
}

static void test_nodf(void **state)
{
	struct mtu_report *r = new_report();
	struct mtu_path_result *p;

	(void)state;
	p = path(r, "routers", AF_INET, 1500, 1400, false);
	p->nodf = (struct mtu_nodf){ .run = true,
				     .size = 1500,
				     .sent = 3,
				     .delivered = 3,
				     .reassembled = 3,
				     .remote_reasm_reqds = 6 };
	p = path(r, "lost", AF_INET, 1500, 1400, false);
	p->nodf = (struct mtu_nodf){ .run = true, .size = 1500, .sent = 3 };
	path(r, "tunnel-under", AF_INET, 1500, 1500, false);
	p = path(r, "tunnel", AF_INET, 1500, 1440, true);
	p->nodf = (struct mtu_nodf){ .run = true,
				     .size = 1500,
				     .sent = 3,
				     .delivered = 3,
				     .local_frag_creates = 6,
				     .remote_reasm_reqds = 6 };
	r->roles[3] = (struct mtu_path_role){ .kind = MTU_PATH_BUILTIN,
					      .underlay = 2,
					      .underlay_family = AF_INET };
	mtu_verdicts(r);
	expect_verdict(r, "routers", "nodf", MTU_WARN, "arrive in IP fragments (3 of 3 reassembled",
		       "set the MTU of eth0 to 1400");
	expect_verdict(r, "lost", "nodf", MTU_WARN, "without DF are lost too", "1400");
	expect_verdict(r, "tunnel", "nodf", MTU_WARN, "fragmenting the outer packets (6 fragments",
		       "set the overlay MTU to 1440");
	assert_null(find(r, "tunnel-under", "nodf"));
	free(r);
}

static void test_expected_mss(void **state)
{
	(void)state;
	assert_int_equal(mtu_expected_snd_mss(1500, AF_INET, true), 1448);
	assert_int_equal(mtu_expected_snd_mss(1500, AF_INET, false), 1460);
	assert_int_equal(mtu_expected_snd_mss(1500, AF_INET6, true), 1428);
	assert_int_equal(mtu_expected_snd_mss(9001, AF_INET, true), 8949);
	assert_int_equal(mtu_expected_adv_mss(1420, AF_INET), 1380);
	assert_int_equal(mtu_expected_adv_mss(30, AF_INET), 0);
	assert_int_equal(mtu_expected_snd_mss(45, AF_INET, true), 0);
}

static const char scn_text[] = "[lab]\nname = t\nhosts = 2\n"
			       "[path.under]\ntype = underlay\nexpect_mtu = 1500\n"
			       "[path.under6]\ntype = underlay\nfamily = 6\n"
			       "[path.ovl]\ntype = builtin\nunderlay_family = 6\nmtu = 1400\n"
			       "[path.vpn]\ntype = external\naddress = 198.19.5.2\n"
			       "[mtu]\nbase = 576\nprobes = 5\ntimeout = 300ms\nmss = yes\n";

static void test_scenario_helpers(void **state)
{
	struct scenario *scn = calloc(1, sizeof(*scn));
	struct mtu_report *r = new_report();
	struct mtu_probe_spec spec;
	char err[512] = "";

	(void)state;
	assert_non_null(scn);
	if (scenario_parse("t.ini", scn_text, sizeof(scn_text) - 1, scn, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	mtu_spec_from_scenario(scn, 0, "198.18.0.2", &spec);
	assert_string_equal(spec.name, "under");
	assert_string_equal(spec.host, "198.18.0.2");
	assert_int_equal(spec.base, 576);
	assert_int_equal(spec.probes, 5);
	assert_int_equal(spec.timeout_ns, 300000000ULL);
	assert_true(spec.tcp_mss);
	assert_int_equal(spec.expect_mtu, 1500);
	r->npaths = scn->npaths;
	for (unsigned i = 0; i < scn->npaths; i++)
		mtu_spec_from_scenario(scn, i, "x", &r->paths[i].spec);
	mtu_roles_from_scenario(scn, r);
	assert_int_equal(r->roles[0].kind, MTU_PATH_UNDERLAY);
	assert_int_equal(r->roles[2].kind, MTU_PATH_BUILTIN);
	assert_int_equal(r->roles[2].underlay, 1); /* the IPv6 underlay */
	assert_int_equal(r->roles[2].overlay_mtu, 1400);
	assert_int_equal(r->roles[3].kind, MTU_PATH_EXTERNAL);
	assert_int_equal(r->roles[3].underlay, 0); /* same family: IPv4 */
	assert_int_equal(mtu_report_find_path(r, "vpn"), 3);
	assert_int_equal(mtu_report_find_path(r, "nope"), -1);
	free(r);
	free(scn);
}

static void test_printers(void **state)
{
	struct mtu_report *r = new_report();
	struct mtu_path_result *p;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	cJSON *j;

	(void)state;
	p = path(r, "a-rather-long-path-name", AF_INET, 1500, 1400, true);
	tcp(p, true, 1448, 1348, 1448);
	p->server_if_mtu = 1400;
	mtu_verdicts(r);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	mtu_report_print_term(f, r);
	fclose(f);
	assert_non_null(strstr(text, "a-rather-long-path-name v4"));
	assert_non_null(strstr(text, "fix: set the MTU of eth0 to 1400, or clamp MSS to 1360"));
	assert_non_null(strstr(text, "the limit is at its end"));
	assert_non_null(strstr(text, "Overall: WARN"));
	free(text);
	j = mtu_report_to_json(r);
	assert_non_null(j);
	assert_string_equal(cJSON_GetObjectItem(j, "worst")->valuestring, "WARN");
	assert_int_equal(
		cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "paths"), 0), "pmtu")
			->valueint,
		1400);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "verdicts")), (int)r->nverdicts);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(
		cJSON_GetArrayItem(cJSON_GetObjectItem(j, "paths"), 0), "nodf")));
	cJSON_Delete(j);
	free(r);
}

/* The suite's one call: with no server (loopback port 1 refuses at once)
 * every path becomes a "probe" FAIL, recorded in the run model. */
static void test_suite_run(void **state)
{
	static const char text[] = "[host.far]\naddress = 127.0.0.1\nport = 1\n"
				   "[path.under]\ntype = underlay\n"
				   "[path.vpn]\ntype = external\naddress = 127.0.0.1\n"
				   "[mtu]\nmss = no\n";
	const char *addrs[] = { "127.0.0.1", "127.0.0.1" };
	struct scenario *scn = calloc(1, sizeof(*scn));
	struct results_run run;
	struct mtu_report *rep = NULL;
	char err[512] = "";

	(void)state;
	assert_non_null(scn);
	if (scenario_parse("s.ini", text, sizeof(text) - 1, scn, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	results_init(&run);
	assert_int_equal(mtu_scenario_run(scn, addrs, &run, &rep), MTU_FAIL);
	assert_non_null(rep);
	assert_int_equal(rep->npaths, 2);
	assert_int_equal(run.nmtu, 2);
	assert_int_equal(run.mtu[1].path, 1);
	assert_string_equal(run.mtu[1].check, "probe");
	assert_int_equal(run.mtu[1].verdict, RESULTS_FAIL);
	assert_non_null(strstr(run.mtu[0].reason, "cannot reach the server 127.0.0.1"));
	free(rep);
	results_free(&run);
	/* [mtu] off: nothing probed, nothing recorded */
	scn->mtu.enabled = false;
	results_init(&run);
	assert_int_equal(mtu_scenario_run(scn, addrs, &run, &rep), 0);
	assert_null(rep);
	assert_int_equal(run.nmtu, 0);
	results_free(&run);
	free(scn);
}

static void test_wire(void **state)
{
	uint8_t b[64];
	struct mtu_wire_request rq = { MTU_WIRE_VERSION, MTU_WIRE_F_TCP, 6, 0x0102030405060708ULL },
				rq2;
	struct mtu_wire_report rp = { 7, 3, 1, 0x7, 11, 22 }, rp2;
	struct mtu_wire_probe pr = { 0xabcdefULL, 9, 31, 1400 }, pr2;
	struct mtu_wire_query q = { 5, 3, 20 }, q2;
	enum mtu_wire_op op;

	(void)state;
	mtu_wire_put_request(b, &rq);
	assert_true(mtu_wire_get_request(b, MTU_WIRE_REQUEST_LEN, &rq2));
	assert_int_equal(rq2.token, rq.token);
	assert_int_equal(rq2.family, 6);
	assert_false(mtu_wire_get_request(b, MTU_WIRE_REQUEST_LEN - 1, &rq2));
	b[2] = 5; /* family 5 */
	assert_false(mtu_wire_get_request(b, MTU_WIRE_REQUEST_LEN, &rq2));
	mtu_wire_put_report(b, &rp);
	assert_true(mtu_wire_get_report(b, MTU_WIRE_REPORT_LEN, &rp2));
	assert_int_equal(rp2.mask, 7);
	assert_int_equal(rp2.frag_creates, 22);
	b[5] = 40; /* received 40 > 32 probes */
	assert_false(mtu_wire_get_report(b, MTU_WIRE_REPORT_LEN, &rp2));
	mtu_wire_put_probe(b, &pr);
	assert_true(mtu_wire_get_probe(b, MTU_WIRE_PROBE_HDR_LEN, &pr2));
	assert_int_equal(pr2.index, 31);
	assert_int_equal(pr2.size, 1400);
	b[0] ^= 1; /* magic */
	assert_false(mtu_wire_get_probe(b, MTU_WIRE_PROBE_HDR_LEN, &pr2));
	mtu_wire_put_query(b, &q);
	assert_true(mtu_wire_get_query(b, MTU_WIRE_QUERY_LEN, &q2));
	assert_int_equal(q2.wait_ms, 20);
	q.wait_ms = MTU_WIRE_MAX_WAIT_MS + 1;
	mtu_wire_put_query(b, &q);
	assert_false(mtu_wire_get_query(b, MTU_WIRE_QUERY_LEN, &q2));
	mtu_wire_put_op(b, MTU_OP_DONE);
	assert_true(mtu_wire_get_op(b, MTU_WIRE_OP_LEN, &op));
	assert_int_equal(op, MTU_OP_DONE);
	b[0] = 99;
	assert_false(mtu_wire_get_op(b, MTU_WIRE_OP_LEN, &op));
	mtu_wire_put_op(b, MTU_OP_READY);
	b[1] = MTU_WIRE_VERSION + 1;
	assert_false(mtu_wire_get_op(b, MTU_WIRE_OP_LEN, &op));
	assert_false(mtu_wire_get_op(b, 3, &op));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_and_jumbo),
		cmocka_unit_test(test_narrow_paths),
		cmocka_unit_test(test_mss_small),
		cmocka_unit_test(test_builtin_overlay),
		cmocka_unit_test(test_external_overlay),
		cmocka_unit_test(test_fragments_expect_errors),
		cmocka_unit_test(test_nodf),
		cmocka_unit_test(test_expected_mss),
		cmocka_unit_test(test_scenario_helpers),
		cmocka_unit_test(test_printers),
		cmocka_unit_test(test_suite_run),
		cmocka_unit_test(test_wire),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
