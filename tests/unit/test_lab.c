// SPDX-License-Identifier: MIT
/* The pure part of the lab: names, spec checks, rates, the address plan,
 * routes, the state file format and the nftables ruleset. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab.h"
#include "lab_int.h"

static void test_names(void **state)
{
	static const struct {
		const char *name;
		bool ok;
	} cases[] = {
		{ "lab", true },   { "lt", true },	     { "a", true },
		{ "a-b-9", true }, { "123456789012", true }, { "1234567890123", false },
		{ "", false },	   { "-x", false },	     { "_x", false },
		{ "a b", false },  { "a/b", false },	     { "..", false },
		{ "a.b", false },  { "ü", false },	     { "Lab", false },
		{ "hX1", false },  { "a_b", false },	     { "x-", true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (lab_name_valid(cases[i].name) != cases[i].ok)
			fail_msg("lab_name_valid(\"%s\") != %d", cases[i].name, cases[i].ok);
	}
	assert_false(lab_name_valid(NULL));
}

static void test_netns_name(void **state)
{
	char buf[32];

	(void)state;
	assert_int_equal(lab_plan_netns_name("lt", 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "ovp-lt-0");
	assert_int_equal(lab_plan_netns_name("123456789012", 7, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "ovp-123456789012-7");
	assert_int_equal(lab_plan_netns_name("lt", 0, buf, 8), -ENAMETOOLONG);
}

static void test_pct(void **state)
{
	double v = -1;

	(void)state;
	assert_true(lab_parse_pct("5", &v) && v == 5.0);
	assert_true(lab_parse_pct("0.5%", &v) && v == 0.5);
	assert_true(lab_parse_pct("100", &v) && v == 100.0);
	assert_true(lab_parse_pct("0", &v) && v == 0.0);
	assert_false(lab_parse_pct("100.01", &v));
	assert_false(lab_parse_pct("-1", &v));
	assert_false(lab_parse_pct("5%%", &v));
	assert_false(lab_parse_pct("", &v));
	assert_false(lab_parse_pct("nan", &v));
	assert_false(lab_parse_pct("5x", &v));
}

static void test_link_opts(void **state)
{
	static const struct {
		const char *opt;
		const char *reason; /* NULL: accepted */
	} bad[] = {
		{ "2:mtu=1280", "links 0..1" },
		{ "1", "expected L:" },
		{ "x:mtu=1", "expected L:" },
		{ "-1:mtu=1", "expected L:" },
		{ "1:", "nothing to set" },
		{ "1:mtu", "needs a value" },
		{ "1:mtu=abc", "mtu 'abc'" },
		{ "1:mtu=-5", "mtu '-5'" },
		{ "1:mtu=70000", "mtu '70000'" },
		{ "1:rate=fast", "rate 'fast'" },
		{ "1:drop=101", "drop '101'" },
		{ "1:color=red", "unknown key" },
		{ "1:block-icmp=2", "unknown key" },
		{ "1:mtu=1280,,rate=1M", "bad --link item" },
		{ "1:rate-layer=ip", "not frame or line" },
		{ "1:rate-layer=Line", "not frame or line" },
	};
	struct lab_spec s;
	char err[160];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		lab_spec_chain(&s, "lt", 3, 0);
		err[0] = '\0';
		if (lab_parse_link_opt(bad[i].opt, &s, err, sizeof(err)) != -EINVAL)
			fail_msg("--link %s accepted", bad[i].opt);
		if (!strstr(err, bad[i].reason))
			fail_msg("--link %s: reason '%s' lacks '%s'", bad[i].opt, err,
				 bad[i].reason);
	}
	lab_spec_chain(&s, "lt", 3, 9000);
	assert_int_equal(lab_parse_link_opt("1:mtu=1280,rate=1.5G,drop=2.5%,block-icmp", &s, err,
					    sizeof(err)),
			 0);
	assert_int_equal(s.links[1].mtu, 1280);
	assert_int_equal(s.links[1].rate_bps, 1500000000ULL);
	assert_true(s.links[1].drop_pct == 2.5);
	assert_true(s.links[1].block_icmp_too_big);
	/* link 0 untouched */
	assert_int_equal(s.links[0].mtu, 9000);
	assert_int_equal(s.links[0].rate_bps, 0);
	assert_false(s.links[0].block_icmp_too_big);
	assert_int_equal(lab_parse_link_opt("1:block-icmp=0", &s, err, sizeof(err)), 0);
	assert_false(s.links[1].block_icmp_too_big);
	assert_int_equal(lab_spec_check(&s, NULL, 0), 0);
	/* a link that counts like Ethernet: only with a rate */
	assert_int_equal(lab_parse_link_opt("0:rate-layer=line", &s, err, sizeof(err)), 0);
	assert_int_equal(s.links[0].rate_layer, LAYER_LINE);
	assert_int_equal(lab_spec_check(&s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "rate-layer line needs a rate"));
	assert_int_equal(lab_parse_link_opt("0:rate=1G,rate-layer=frame", &s, err, sizeof(err)), 0);
	assert_int_equal(s.links[0].rate_layer, LAYER_FRAME);
	assert_int_equal(lab_spec_check(&s, NULL, 0), 0);
}

/* What a tbf adds to skb->len (the frame without FCS) and charges at least. */
static void test_tbf_overhead(void **state)
{
	uint32_t overhead = 7, mpu = 7;

	(void)state;
	lab_plan_tbf_overhead(LAYER_PAYLOAD, &overhead, &mpu);
	assert_int_equal(overhead, 0);
	assert_int_equal(mpu, 0);
	lab_plan_tbf_overhead(LAYER_FRAME, &overhead, &mpu);
	assert_int_equal(overhead, 4); /* FCS */
	assert_int_equal(mpu, 64);
	lab_plan_tbf_overhead(LAYER_LINE, &overhead, &mpu);
	assert_int_equal(overhead, 24); /* FCS, preamble, SFD, gap */
	assert_int_equal(mpu, 84);
}

static void check_addr(unsigned link, unsigned end, int family, const char *want,
		       unsigned want_plen)
{
	struct sockaddr_storage ss;
	char buf[INET6_ADDRSTRLEN];
	unsigned plen = 0;
	const void *a;

	assert_int_equal(lab_plan_addr(link, end, family, &ss, &plen), 0);
	assert_int_equal(ss.ss_family, family);
	a = family == AF_INET ? (const void *)&((struct sockaddr_in *)&ss)->sin_addr
			      : (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr;
	assert_non_null(inet_ntop(family, a, buf, sizeof(buf)));
	assert_string_equal(buf, want);
	assert_int_equal(plen, want_plen);
}

static void test_addr_plan(void **state)
{
	struct sockaddr_storage ss;

	(void)state;
	check_addr(0, 0, AF_INET, "198.18.0.1", 24);
	check_addr(0, 1, AF_INET, "198.18.0.2", 24);
	check_addr(7, 1, AF_INET, "198.18.7.2", 24);
	check_addr(0, 0, AF_INET6, "2001:2::1", 64);
	check_addr(0, 1, AF_INET6, "2001:2::2", 64);
	check_addr(3, 0, AF_INET6, "2001:2:0:3::1", 64);
	assert_int_equal(lab_plan_addr(LAB_MAX_LINKS, 0, AF_INET, &ss, NULL), -EINVAL);
	assert_int_equal(lab_plan_addr(0, 2, AF_INET, &ss, NULL), -EINVAL);
	assert_int_equal(lab_plan_addr(0, 0, AF_UNIX, &ss, NULL), -EAFNOSUPPORT);
}

static void test_spec_defaults(void **state)
{
	struct lab_spec s;

	(void)state;
	lab_spec_pair(&s, "lt", 0);
	assert_string_equal(s.name, "lt");
	assert_int_equal(s.nhosts, 2);
	assert_int_equal(s.nlinks, 1);
	assert_int_equal(s.links[0].a, 0);
	assert_int_equal(s.links[0].b, 1);
	assert_int_equal(lab_spec_check(&s, NULL, 0), 0);
	lab_spec_chain(&s, "lt", 8, 9000);
	assert_int_equal(s.nlinks, 7);
	assert_int_equal(s.links[6].a, 6);
	assert_int_equal(s.links[6].b, 7);
	assert_int_equal(s.links[6].mtu, 9000);
	assert_int_equal(lab_spec_check(&s, NULL, 0), 0);
}

/* Each case breaks one thing in a valid pair; the reason names it. */
static void test_spec_check(void **state)
{
	static const struct {
		const char *what;
		int field;
		double value;
		const char *reason;
	} cases[] = {
		{ "MTU 67", 0, 67, "MTU 67" },
		{ "MTU 65536", 0, 65536, "MTU 65536" },
		{ "host b 2", 1, 2, "hosts 0..1" },
		{ "self link", 2, 0, "to itself" },
		{ "1 host", 3, 1, "1 hosts" },
		{ "9 hosts", 3, 9, "9 hosts" },
		{ "0 links", 4, 0, "0 links" },
		{ "9 links", 4, 9, "9 links" },
		{ "rate 1", 5, 1, "rate 1 bit/s" },
		{ "rate 20G", 5, 2e10, "out of range" },
		{ "drop -1", 6, -1, "drop -1%" },
		{ "drop 101", 6, 101, "drop 101%" },
		{ "drop 0.001", 6, 0.001, "resolution" },
	};
	struct lab_spec s;
	char err[160];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		lab_spec_pair(&s, "lt", 1500);
		switch (cases[i].field) {
		case 0:
			s.links[0].mtu = (uint32_t)cases[i].value;
			break;
		case 1:
			s.links[0].b = (unsigned)cases[i].value;
			break;
		case 2:
			s.links[0].b = 0;
			break;
		case 3:
			s.nhosts = (unsigned)cases[i].value;
			break;
		case 4:
			s.nlinks = (unsigned)cases[i].value;
			break;
		case 5:
			s.links[0].rate_bps = (uint64_t)cases[i].value;
			break;
		default:
			s.links[0].drop_pct = cases[i].value;
			break;
		}
		err[0] = '\0';
		if (lab_spec_check(&s, err, sizeof(err)) != -EINVAL)
			fail_msg("%s accepted", cases[i].what);
		if (!strstr(err, cases[i].reason))
			fail_msg("%s: reason '%s' lacks '%s'", cases[i].what, err, cases[i].reason);
	}
	lab_spec_pair(&s, "lt", 68);
	assert_int_equal(lab_spec_check(&s, NULL, 0), 0);
	lab_spec_pair(&s, "lt", 65535);
	s.links[0].rate_bps = LAB_RATE_MAX_BPS;
	s.links[0].drop_pct = 100;
	assert_int_equal(lab_spec_check(&s, NULL, 0), 0);
	lab_spec_pair(&s, "bad name", 0);
	assert_int_equal(lab_spec_check(&s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "bad name"));
}

static void test_routes(void **state)
{
	struct lab_spec s;
	unsigned via_link = 99, via_end = 99;

	(void)state;
	lab_spec_chain(&s, "lt", 4, 0);
	/* host 0 is on link 0; link 2 (hosts 2-3) is reached via host 1 = link 0 end b */
	assert_int_equal(lab_plan_route(&s, 0, 0, &via_link, &via_end), 0);
	assert_int_equal(lab_plan_route(&s, 0, 2, &via_link, &via_end), 1);
	assert_int_equal(via_link, 0);
	assert_int_equal(via_end, 1);
	/* host 3 reaches link 0 via host 2 = link 2 end a */
	assert_int_equal(lab_plan_route(&s, 3, 0, &via_link, &via_end), 1);
	assert_int_equal(via_link, 2);
	assert_int_equal(via_end, 0);
	/* two separate pairs: no way across */
	s.nlinks = 2;
	s.links[1].a = 2;
	s.links[1].b = 3;
	assert_int_equal(lab_plan_route(&s, 0, 1, &via_link, &via_end), -EHOSTUNREACH);
	assert_int_equal(lab_plan_route(&s, 4, 0, &via_link, &via_end), -EINVAL);
}

static void test_drop_and_burst(void **state)
{
	(void)state;
	assert_int_equal(lab_plan_drop_threshold(0), 0);
	assert_int_equal(lab_plan_drop_threshold(5), 500);
	assert_int_equal(lab_plan_drop_threshold(0.01), 1);
	assert_int_equal(lab_plan_drop_threshold(0.004), 0);
	assert_int_equal(lab_plan_drop_threshold(100), 10000);
	assert_int_equal(lab_plan_drop_threshold(-3), 0);
	/* 1 Gbit/s: 1 ms is 125000 bytes; 10 Mbit/s: four 1514-byte frames */
	assert_int_equal(lab_plan_tbf_burst(1000000000ULL, 1500), 125000);
	assert_int_equal(lab_plan_tbf_burst(10000000ULL, 1500), 4 * 1514);
	assert_int_equal(lab_plan_tbf_burst(10000000ULL, 9000), 4 * 9014);
	assert_int_equal(lab_plan_tbf_burst(10000000ULL, 0), 4 * 1514);
}

static void test_state_roundtrip(void **state)
{
	struct lab_state st, back;
	char buf[4096];

	(void)state;
	memset(&st, 0, sizeof(st));
	lab_spec_chain(&st.spec, "lt", 3, 9000);
	st.spec.links[1].rate_bps = 100000000ULL;
	st.spec.links[1].drop_pct = 2.5;
	st.spec.links[1].block_icmp_too_big = true;
	st.spec.links[1].rate_layer = LAYER_LINE;
	st.spec.tcp_rmem_max = 262144;
	st.spec.tcp_wmem_max = 1u << 20;
	assert_int_equal(lab_parse_cpus_opt("0|1-3|0,2", &st.spec, NULL, 0), 0);
	st.pid = 42;
	st.owner = LAB_OWNER_RUN;
	st.nns = 2;
	strcpy(st.ns[0].name, "ovp-lt-0");
	st.ns[0].ino = 4026532177ULL;
	strcpy(st.ns[1].name, "ovp-lt-1");
	st.ns[1].ino = 0;
	assert_true(lab_state_format(&st, buf, sizeof(buf)) > 0);
	assert_int_equal(lab_state_parse(buf, &back), 0);
	assert_string_equal(back.spec.name, "lt");
	assert_int_equal(back.pid, 42);
	assert_int_equal(back.owner, LAB_OWNER_RUN);
	st.owner = LAB_OWNER_USER;
	assert_true(lab_state_format(&st, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\nowner user\n"));
	assert_int_equal(lab_state_parse(buf, &back), 0);
	assert_int_equal(back.owner, LAB_OWNER_USER);
	st.owner = LAB_OWNER_RUN;
	assert_int_equal(back.spec.nhosts, 3);
	assert_int_equal(back.spec.nlinks, 2);
	assert_int_equal(back.spec.links[0].mtu, 9000);
	assert_int_equal(back.spec.links[1].rate_bps, 100000000ULL);
	assert_true(back.spec.links[1].drop_pct == 2.5);
	assert_true(back.spec.links[1].block_icmp_too_big);
	assert_int_equal(back.spec.links[1].rate_layer, LAYER_LINE);
	assert_int_equal(back.spec.links[0].rate_layer, LAYER_PAYLOAD);
	assert_int_equal(back.spec.tcp_rmem_max, 262144);
	assert_int_equal(back.spec.tcp_wmem_max, 1u << 20);
	assert_int_equal(back.spec.cpus_hosts, 3);
	assert_string_equal(back.spec.cpus[1], "1-3");
	assert_string_equal(back.spec.cpus[2], "0,2");
	assert_int_equal(back.nns, 2);
	assert_string_equal(back.ns[0].name, "ovp-lt-0");
	assert_int_equal(back.ns[0].ino, 4026532177ULL);
	assert_int_equal(back.ns[1].ino, 0);
	assert_int_equal(lab_state_format(&st, buf, 20), -ENOSPC);
}

/* Each host's CPUs: taskset -c's lists, one per host, all or none. */
static void test_cpus(void **state)
{
	static const char *const bad[] = { "",	   "x",	 "1-",	"-1",	"3-1",
					   "1,,2", "1,", "0 1", "1024", "99999999999999999999",
					   "1;2" };
	struct lab_spec s;
	cpu_set_t set;
	char err[160];

	(void)state;
	assert_int_equal(lab_cpus_parse("0,2,4-6", &set, err, sizeof(err)), 0);
	assert_int_equal(CPU_COUNT(&set), 5);
	assert_true(CPU_ISSET(0, &set) && CPU_ISSET(2, &set) && CPU_ISSET(6, &set));
	assert_false(CPU_ISSET(1, &set) || CPU_ISSET(3, &set) || CPU_ISSET(7, &set));
	assert_int_equal(lab_cpus_parse("1023", &set, err, sizeof(err)), 0);
	assert_int_equal(CPU_COUNT(&set), 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (lab_cpus_parse(bad[i], &set, err, sizeof(err)) != -EINVAL || !err[0])
			fail_msg("accepted CPU list '%s'", bad[i]);

	lab_spec_chain(&s, "lt", 3, 0);
	assert_int_equal(lab_parse_cpus_opt(" 0 | 1-2|3,5 ", &s, err, sizeof(err)), 0);
	assert_int_equal(s.cpus_hosts, 3);
	assert_string_equal(s.cpus[0], "0");
	assert_string_equal(s.cpus[1], "1-2");
	assert_string_equal(s.cpus[2], "3,5");
	assert_int_equal(lab_spec_check(&s, err, sizeof(err)), 0);
	/* one list per host, never fewer or more */
	assert_int_equal(lab_parse_cpus_opt("0|1", &s, err, sizeof(err)), 0);
	assert_int_equal(lab_spec_check(&s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "CPU lists for 2 hosts: the lab has 3"));
	assert_int_equal(lab_parse_cpus_opt("0|x|1", &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "host 1: 'x' is not a CPU list"));
	assert_int_equal(lab_parse_cpus_opt("0|1|2|3|4|5|6|7|8", &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(lab_parse_cpus_opt("0||1", &s, err, sizeof(err)), -EINVAL);

	/* a CPU this process may not run on is refused, naming host and CPU */
	lab_spec_pair(&s, "lt", 0);
	assert_int_equal(lab_parse_cpus_opt("0|1023", &s, err, sizeof(err)), 0);
	assert_int_equal(lab_cpus_available(&s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "host 1's CPU 1023 is not one this process may run on"));
	s.cpus_hosts = 0;
	assert_int_equal(lab_cpus_available(&s, err, sizeof(err)), 0);
}

/* A state file may only list namespaces of its own lab's naming scheme. */
#define STATE_HEAD "ovlperf-lab 1\nname lt\nhosts 2\n"
#define STATE_LINK "link 0 1 mtu 0 rate 0 drop 0.00 block-icmp 0\n"

/* A state file may only list namespaces of its own lab's naming scheme, for
 * a spec lab_up() would have accepted. Each bad case differs from a good
 * file in one place. */
static void test_state_rejects(void **state)
{
	static const char *bad[] = {
		"",
		"ovlperf-lab 2\nname lt\nhosts 2\n" STATE_LINK,
		STATE_HEAD STATE_LINK "netns ovp-other-0 1\n",
		STATE_HEAD STATE_LINK "netns ovp-lt-2 1\n",
		STATE_HEAD STATE_LINK "netns ../../etc 1\n",
		STATE_HEAD STATE_LINK "netns ovp-lt-0\n",
		STATE_HEAD STATE_LINK "netns ovp-lt-0 1\nnetns ovp-lt-1 2\nnetns ovp-lt-1 3\n",
		STATE_HEAD STATE_LINK "netns ovp-lt-1 1\n",
		STATE_HEAD STATE_LINK "netns ovp-lt-0 1\nnetns ovp-lt-0 2\n",
		STATE_HEAD STATE_LINK "bogus\n",
		STATE_HEAD STATE_LINK "owner someone\n",
		STATE_HEAD STATE_LINK "owner run x\n",
		STATE_HEAD STATE_LINK "hosts 2 3\n",
		"ovlperf-lab 1\nname bad/name\nhosts 2\n" STATE_LINK,
		"ovlperf-lab 1\nhosts 2\n" STATE_LINK,
		"ovlperf-lab 1\nname lt\nhosts 100\n" STATE_LINK,
		STATE_HEAD "link 0 5 mtu 0 rate 0 drop 0.00 block-icmp 0\n",
		STATE_HEAD "link 0 1 mtu 50 rate 0 drop 0.00 block-icmp 0\n",
		STATE_HEAD "link 0 1 mtu 0 rate 1000 drop 0.00 block-icmp 0 rate-layer ip\n",
		STATE_HEAD "link 0 1 mtu 0 rate 1000 drop 0.00 block-icmp 0 rate-layer line x\n",
		STATE_HEAD "link 0 1 mtu 0 rate 0 drop 0.00 block-icmp 0 rate-layer line\n",
		STATE_HEAD,
		STATE_HEAD "cpus 0 0\n" STATE_LINK,
		STATE_HEAD "cpus 0 0\ncpus 1 x\n" STATE_LINK,
		STATE_HEAD "cpus 1 0\ncpus 0 1\n" STATE_LINK,
		STATE_HEAD "cpus 0 0\ncpus 1 1\ncpus 2 1\n" STATE_LINK,
	};
	struct lab_state st;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (lab_state_parse(bad[i], &st) != -EBADMSG)
			fail_msg("accepted state %zu: %s", i, bad[i]);
	assert_int_equal(lab_state_parse(STATE_HEAD STATE_LINK "netns ovp-lt-0 1\n"
							       "netns ovp-lt-1 0\n",
					 &st),
			 0);
	assert_int_equal(st.nns, 2);
	/* No owner line (an older ovlperf): the user's, never removed by a run */
	assert_int_equal(st.owner, LAB_OWNER_USER);
	assert_int_equal(lab_state_parse(STATE_HEAD "owner run\n" STATE_LINK, &st), 0);
	assert_int_equal(st.owner, LAB_OWNER_RUN);
	assert_int_equal(lab_state_parse(STATE_HEAD "cpus 0 1\ncpus 1 0-1\n" STATE_LINK, &st), 0);
	assert_string_equal(st.spec.cpus[1], "0-1");
	assert_int_equal(lab_state_parse("ovlperf-lab 1\nname lt\nhosts 8\n"
					 "link 0 7 mtu 0 rate 0 drop 0.00 block-icmp 0\n"
					 "netns ovp-lt-0 5\n",
					 &st),
			 0);
}

static void test_nft_ruleset(void **state)
{
	struct lab_spec s;
	char buf[4096];

	(void)state;
	lab_spec_chain(&s, "lt", 3, 0);
	assert_int_equal(lab_nft_ruleset(&s, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	s.links[1].drop_pct = 2.5;
	/* host 0 is not on link 1: still nothing */
	assert_int_equal(lab_nft_ruleset(&s, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(lab_nft_ruleset(&s, 2, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "table inet ovlperf"));
	assert_non_null(strstr(buf, "iifname \"ovp1\" numgen random mod 10000 < 250 drop"));
	assert_non_null(strstr(buf, "iifname \"ovp1\" icmpv6 type { nd-neighbor-solicit, "
				    "nd-neighbor-advert } accept\n"
				    "\t\tiifname \"ovp1\" numgen"));
	assert_null(strstr(buf, "packet-too-big"));
	assert_null(strstr(buf, "frag-needed"));
	s.links[0].block_icmp_too_big = true;
	assert_int_equal(lab_nft_ruleset(&s, 1, buf, sizeof(buf)), 0);
	assert_non_null(strstr(
		buf,
		"iifname \"ovp0\" icmp type destination-unreachable icmp code frag-needed drop"));
	assert_non_null(strstr(buf, "iifname \"ovp0\" icmpv6 type packet-too-big drop"));
	assert_non_null(strstr(buf, "iifname \"ovp1\" numgen"));
	assert_null(strstr(buf, "iifname \"ovp0\" numgen"));
	/* ... and host 1 does not send the too-big messages link 0 causes */
	assert_non_null(strstr(buf,
			       "\tchain output {\n\t\ttype filter hook output priority 0; "
			       "policy accept;\n\t\ticmp type destination-unreachable icmp code "
			       "frag-needed icmp mtu 1500 drop\n\t\ticmpv6 type packet-too-big "
			       "icmpv6 mtu 1500 drop\n\t}\n}\n"));
	assert_int_equal(lab_nft_ruleset(&s, 1, buf, 40), -ENOSPC);

	/* A narrow link 1 with block-icmp: its entry (host 1) drops what it would
	 * send back over link 0 announcing 1280; host 0, on link 0 only, has no
	 * rule at all; one rule per MTU when two links block the same size. */
	lab_spec_chain(&s, "lt", 3, 0);
	s.links[1].mtu = 1280;
	s.links[1].block_icmp_too_big = true;
	assert_int_equal(lab_nft_ruleset(&s, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	for (unsigned h = 1; h <= 2; h++) {
		assert_int_equal(lab_nft_ruleset(&s, h, buf, sizeof(buf)), 0);
		assert_non_null(strstr(buf, "icmp code frag-needed icmp mtu 1280 drop\n"));
		assert_non_null(strstr(buf, "icmpv6 type packet-too-big icmpv6 mtu 1280 drop\n"));
		assert_null(strstr(buf, "mtu 1500"));
	}
	lab_spec_chain(&s, "lt", 3, 0);
	s.links[0].block_icmp_too_big = s.links[1].block_icmp_too_big = true;
	assert_int_equal(lab_nft_ruleset(&s, 1, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "icmp mtu 1500 drop"));
	assert_null(strstr(strstr(buf, "icmp mtu 1500 drop") + 1, "icmp mtu 1500 drop"));
}

static bool bind_ok(int family, const char *addr)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, rc;

	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET) {
		((struct sockaddr_in *)&ss)->sin_family = AF_INET;
		inet_pton(AF_INET, addr, &((struct sockaddr_in *)&ss)->sin_addr);
		len = sizeof(struct sockaddr_in);
	} else {
		((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
		inet_pton(AF_INET6, addr, &((struct sockaddr_in6 *)&ss)->sin6_addr);
		len = sizeof(struct sockaddr_in6);
	}
	fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	rc = bind(fd, (struct sockaddr *)&ss, len);
	close(fd);
	return rc == 0;
}

/* What a child started with lab_spawn() writes on its stdout. */
static void spawn_output(const struct lab *lab, unsigned host, char *const argv[], char *buf,
			 size_t len, int *status)
{
	int p[2];
	ssize_t n, got = 0;
	pid_t pid;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid = lab_spawn(lab, host, argv, p[1], -1);
	close(p[1]);
	assert_true(pid > 0);
	while ((n = read(p[0], buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	close(p[0]);
	*status = lab_reap(pid, 2000);
}

/* A child that ignores SIGTERM (once it says so) needs lab_reap's SIGKILL. */
static int stubborn_reap(const struct lab *lab, char *const argv[])
{
	char line[16] = "";
	int p[2];
	pid_t pid;
	FILE *f;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid = lab_spawn(lab, 0, argv, p[1], -1);
	close(p[1]);
	assert_true(pid > 0);
	f = fdopen(p[0], "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_string_equal(line, "ready\n");
	return lab_reap(pid, 300);
}

/* Removes the lab a failed test left, and only that one: *state holds it. */
static int remove_lab(void **state)
{
	if (*state)
		lab_down(*state);
	*state = NULL;
	return 0;
}

/* The C API the other modules use, on a real lab. Needs root. Its lab is
 * "hxu<pid>": no netns test and no other run of this test uses that name, so
 * finding it taken is a failure (a lab leaked), never a reason to skip. */
static void test_api_in_namespaces(void **state)
{
	char *ipargv[] = { "/bin/sh", "-c", "ip -o -4 addr show dev ovp0", NULL };
	char *sleeper[] = { "/bin/sleep", "30", NULL };
	char *cpusargv[] = { "/bin/grep", "Cpus_allowed_list", "/proc/self/status", NULL };
	char *stubborn[] = { "/bin/sh", "-c",
			     "trap '' TERM; echo ready; while :; do sleep 0.05; done", NULL };
	struct sockaddr_storage ss;
	struct lab *lab, *again, *opened;
	struct lab_spec s;
	struct stat st1, st2;
	char buf[512], name[16], ns0[64], ns1[64], path0[96], path1[96];
	int fd, status;

	*state = NULL;
	if (geteuid() != 0)
		skip();
	snprintf(name, sizeof(name), "hxu%d", (int)getpid());
	snprintf(ns0, sizeof(ns0), "ovp-%s-0", name);
	snprintf(ns1, sizeof(ns1), "ovp-%s-1", name);
	snprintf(path0, sizeof(path0), "/run/netns/%s", ns0);
	snprintf(path1, sizeof(path1), "/run/netns/%s", ns1);
	assert_true(lab_name_valid(name));
	lab_spec_pair(&s, name, 1400);
	s.links[0].a = 5; /* refused before anything is made */
	assert_int_equal(lab_up(&s, &lab), -EINVAL);
	assert_null(lab);
	lab_spec_pair(&s, name, 1400);
	assert_int_equal(lab_parse_cpus_opt("0|1023", &s, NULL, 0), 0);
	assert_int_equal(lab_up(&s, &lab), -EINVAL); /* no CPU 1023: refused, nothing made */
	assert_null(lab);
	assert_int_equal(stat(path0, &st1), -1);
	/* host 1 on CPU 0 alone: what it starts runs there (this process may
	 * run on every CPU, so a lab that ignored it would show them all) */
	lab_spec_pair(&s, name, 1400);
	assert_int_equal(lab_parse_cpus_opt("0|0", &s, NULL, 0), 0);
	status = lab_up(&s, &lab);
	if (status == -EEXIST)
		fail_msg("lab %s exists already: left by an earlier run?", name);
	assert_int_equal(status, 0);
	*state = lab;
	assert_int_equal(lab_up(&s, &again), -EEXIST);
	assert_null(again);

	assert_string_equal(lab_netns_name(lab, 1), ns1);
	assert_string_equal(lab_host_ifname(lab, 1, 0), "ovp0");
	assert_null(lab_host_ifname(lab, 2, 0));
	assert_int_equal(lab_host_addr(lab, 1, 0, AF_INET6, &ss), 0);
	assert_int_equal(((struct sockaddr_in6 *)&ss)->sin6_addr.s6_addr[15], 2);
	assert_int_equal(lab_get_spec(lab)->links[0].mtu, 1400);

	/* lab_enter moves only this thread; lab_leave brings it back */
	assert_false(bind_ok(AF_INET, "198.18.0.1"));
	assert_int_equal(lab_enter(lab, 0), 0);
	assert_true(bind_ok(AF_INET, "198.18.0.1"));
	assert_true(bind_ok(AF_INET6, "2001:2::1"));
	assert_false(bind_ok(AF_INET, "198.18.0.2"));
	assert_int_equal(if_nametoindex("ovp0"), LAB_IFINDEX_BASE);
	assert_int_equal(lab_leave(lab), 0);
	assert_false(bind_ok(AF_INET, "198.18.0.1"));
	assert_int_equal(lab_enter(lab, 7), -EINVAL);

	fd = lab_netns_fd(lab, 0);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st1), 0);
	assert_int_equal(stat(path0, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	close(fd);

	spawn_output(lab, 1, ipargv, buf, sizeof(buf), &status);
	assert_non_null(strstr(buf, "198.18.0.2/24"));
	assert_int_equal(status, 0);
	spawn_output(lab, 1, cpusargv, buf, sizeof(buf), &status);
	assert_string_equal(buf, "Cpus_allowed_list:\t0\n");
	assert_string_equal(lab_host_cpus(lab, 1), "0");
	status = lab_reap(lab_spawn(lab, 0, sleeper, -1, -1), 1000);
	assert_int_equal(status, 128 + SIGTERM);
	status = stubborn_reap(lab, stubborn);
	assert_int_equal(status, 128 + SIGKILL);

	assert_int_equal(lab_open(name, &opened), 0);
	assert_int_equal(lab_get_spec(opened)->nhosts, 2);
	assert_string_equal(lab_netns_name(opened, 0), ns0);
	lab_close(opened);
	assert_int_equal(stat(path0, &st1), 0);

	/* lab_down from inside a host brings the thread back out first */
	assert_int_equal(lab_enter(lab, 1), 0);
	*state = NULL;
	assert_int_equal(lab_down(lab), 0);
	assert_false(bind_ok(AF_INET, "198.18.0.2"));
	assert_int_equal(stat(path0, &st1), -1);
	assert_int_equal(stat(path1, &st1), -1);
	assert_int_equal(lab_down_by_name(name), -ENOENT);
	assert_int_equal(lab_open(name, &opened), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_netns_name),
		cmocka_unit_test(test_pct),
		cmocka_unit_test(test_link_opts),
		cmocka_unit_test(test_addr_plan),
		cmocka_unit_test(test_spec_defaults),
		cmocka_unit_test(test_spec_check),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_drop_and_burst),
		cmocka_unit_test(test_tbf_overhead),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_state_roundtrip),
		cmocka_unit_test(test_state_rejects),
		cmocka_unit_test(test_nft_ruleset),
		cmocka_unit_test_teardown(test_api_in_namespaces, remove_lab),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
