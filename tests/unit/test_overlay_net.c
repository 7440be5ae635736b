// SPDX-License-Identifier: MIT
/*
 * The overlay's subnets (src/overlay/overlay_net.c): the defaults per slot
 * (inside the benchmarking ranges, apart from the lab's and from each
 * other), parsing a user's choice with its refusals, each end's address,
 * prefix overlap at byte and bit boundaries, and the route collision check
 * (default, link-local and unrelated routes do not count; a covering, a
 * covered and an equal route do, IPv4 and IPv6 alike).
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "overlay.h"

static struct overlay_route route(const char *prefix)
{
	struct overlay_route r = { 0 };
	char host[64];
	unsigned len;

	assert_int_equal(sscanf(prefix, "%63[^/]/%u", host, &len), 2);
	r.family = strchr(host, ':') ? AF_INET6 : AF_INET;
	assert_int_equal(inet_pton(r.family, host, r.dst), 1);
	r.len = (uint8_t)len;
	snprintf(r.desc, sizeof(r.desc), "%s", prefix);
	return r;
}

static void test_defaults(void **state)
{
	struct proto_overlay_nets a, b;
	struct proto_overlay_accept acc = { 0 };
	char s[INET6_ADDRSTRLEN];
	/* the lab: its links and its own overlay */
	struct overlay_route lab[] = { route("198.18.0.0/24"),	 route("198.18.3.0/24"),
				       route("198.19.0.0/24"),	 route("2001:2:0:0::/64"),
				       route("2001:2:0:3::/64"), route("2001:2:0:ff::/64") };

	(void)state;
	overlay_net_default(0, &a);
	overlay_net_hosts(&a, &acc);
	inet_ntop(AF_INET, acc.server_v4, s, sizeof(s));
	assert_string_equal(s, "198.19.128.1");
	inet_ntop(AF_INET, acc.client_v4, s, sizeof(s));
	assert_string_equal(s, "198.19.128.2");
	inet_ntop(AF_INET6, acc.server_v6, s, sizeof(s));
	assert_string_equal(s, "2001:2:0:80::1");
	inet_ntop(AF_INET6, acc.client_v6, s, sizeof(s));
	assert_string_equal(s, "2001:2:0:80::2");
	for (unsigned slot = 0; slot < OVERLAY_MAX_SLOTS; slot++) {
		overlay_net_default(slot, &a);
		assert_null(overlay_net_collision(&a, lab, sizeof(lab) / sizeof(lab[0])));
		overlay_net_default((slot + 1) % OVERLAY_MAX_SLOTS, &b);
		assert_false(overlay_prefix_overlap(AF_INET, a.v4, a.v4_len, b.v4, b.v4_len));
		assert_false(overlay_prefix_overlap(AF_INET6, a.v6, a.v6_len, b.v6, b.v6_len));
	}
}

static void test_parse(void **state)
{
	static const char *const bad[] = {
		"",
		"198.19.210.0",	       /* no length */
		"198.19.210.1/24",     /* host bits */
		"198.19.210.0/31",     /* no room for two hosts and a network */
		"10.0.0.0/24",	       /* outside 198.18.0.0/15 */
		"198.20.0.0/24",       /* just outside */
		"2001:2:0:fa::/127",   /* IPv6 /126 at most */
		"2001:db8::/64",       /* outside 2001:2::/48 */
		"2001:2:0:fa::/48x",   /* junk */
		"198.19.210.0/24, foo" /* one bad item spoils the list */
	};
	struct proto_overlay_nets n;
	char why[200];

	(void)state;
	assert_true(overlay_net_parse("198.19.210.0/24, 2001:2:0:fa::/64", &n, why, sizeof(why)));
	assert_int_equal(n.v4_len, 24);
	assert_int_equal(n.v6_len, 64);
	assert_int_equal(n.v4[2], 210);
	assert_int_equal(n.v6[7], 0xfa);
	assert_true(overlay_net_parse("2001:2:0:fa::/64", &n, why, sizeof(why)));
	assert_int_equal(n.v4_len, 0); /* the server's default */
	assert_true(overlay_net_parse("198.18.255.252/30", &n, why, sizeof(why)));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_false(overlay_net_parse(bad[i], &n, why, sizeof(why)));
		assert_true(why[0] != '\0');
	}
	assert_false(overlay_net_parse("10.0.0.0/24", &n, why, sizeof(why)));
	assert_non_null(strstr(why, "198.18.0.0/15"));
}

static void test_overlap(void **state)
{
	static const struct {
		const char *a, *b;
		bool overlap;
	} cases[] = {
		{ "198.19.128.0/24", "198.19.128.0/24", true },
		{ "198.19.128.0/24", "198.19.128.77/32", true }, /* a host inside */
		{ "198.19.128.0/24", "198.18.0.0/15", true },	 /* a route covering it */
		{ "198.19.128.0/24", "198.19.129.0/24", false },
		{ "198.19.128.0/25", "198.19.128.128/25", false }, /* bit boundary */
		{ "198.19.128.0/23", "198.19.129.128/25", true },
		{ "2001:2:0:80::/64", "2001:2:0:80::2/128", true },
		{ "2001:2:0:80::/64", "2001:2:0:81::/64", false },
		{ "2001:2:0:80::/63", "2001:2:0:81::/64", true },
		{ "2001:2:0:80::/64", "2001:2::/48", true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct overlay_route a = route(cases[i].a), b = route(cases[i].b);

		assert_int_equal(overlay_prefix_overlap(a.family, a.dst, a.len, b.dst, b.len),
				 cases[i].overlap);
		assert_int_equal(overlay_prefix_overlap(a.family, b.dst, b.len, a.dst, a.len),
				 cases[i].overlap);
	}
}

static void test_collision(void **state)
{
	struct overlay_route routes[] = {
		route("0.0.0.0/0"), /* default routes never collide */
		route("::/0"),
		route("198.18.31.0/24"), /* the underlay */
		route("2001:2:0:31::/64"),
		route("198.19.129.0/24"),      /* slot 1 of another overlay */
		route("2001:2:0:80::1234/128") /* inside slot 0's IPv6 subnet */
	};
	struct proto_overlay_nets n;
	const struct overlay_route *hit;
	char why[200];

	(void)state;
	overlay_net_default(2, &n);
	assert_null(overlay_net_collision(&n, routes, sizeof(routes) / sizeof(routes[0])));
	overlay_net_default(1, &n);
	hit = overlay_net_collision(&n, routes, sizeof(routes) / sizeof(routes[0]));
	assert_non_null(hit);
	assert_string_equal(hit->desc, "198.19.129.0/24");
	overlay_net_default(0, &n);
	hit = overlay_net_collision(&n, routes, sizeof(routes) / sizeof(routes[0]));
	assert_non_null(hit);
	assert_string_equal(hit->desc, "2001:2:0:80::1234/128");
	/* a family the client left to the server is not checked here */
	n.v6_len = 0;
	assert_null(overlay_net_collision(&n, routes, sizeof(routes) / sizeof(routes[0])));
	/* the subnet of an ACCEPT's addresses */
	assert_true(overlay_net_parse("198.19.200.64/26, 2001:2:0:fa::/120", &n, why, sizeof(why)));
	{
		struct proto_overlay_accept acc = { 0 };
		struct proto_overlay_nets back;

		overlay_net_hosts(&n, &acc);
		assert_int_equal(acc.server_v4[3], 65);
		assert_int_equal(acc.client_v4[3], 66);
		overlay_net_of(&acc, &back);
		assert_memory_equal(&back, &n, sizeof(n));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_collision),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
