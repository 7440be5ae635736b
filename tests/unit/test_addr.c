// SPDX-License-Identifier: MIT
/* Addresses (addr.c): numeric resolution, formatting, IPv4-mapped forms
 * compared equal to plain IPv4, ports ignored by addr_same_host. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "addr.h"

static struct sockaddr_storage resolve(const char *host, uint16_t port, int family)
{
	struct sockaddr_storage ss;
	socklen_t len;

	assert_int_equal(addr_resolve(host, port, family, false, &ss, &len), 0);
	assert_int_equal(len, addr_len(&ss));
	return ss;
}

static void test_format(void **state)
{
	static const struct {
		const char *in;
		uint16_t port;
		const char *plain, *with_port;
	} cases[] = {
		{ "198.18.0.2", 5211, "198.18.0.2", "198.18.0.2:5211" },
		{ "2001:2::2", 5211, "2001:2::2", "[2001:2::2]:5211" },
		{ "2001:2:0:0::1", 1, "2001:2::1", "[2001:2::1]:1" },
	};
	char buf[80];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sockaddr_storage ss = resolve(cases[i].in, cases[i].port, AF_UNSPEC);

		assert_int_equal(addr_port(&ss), cases[i].port);
		assert_int_equal(addr_format(&ss, false, buf, sizeof(buf)), 0);
		assert_string_equal(buf, cases[i].plain);
		assert_int_equal(addr_format(&ss, true, buf, sizeof(buf)), 0);
		assert_string_equal(buf, cases[i].with_port);
	}
	{
		struct sockaddr_storage ss = resolve("2001:2::2", 5211, AF_UNSPEC);

		assert_int_equal(addr_format(&ss, true, buf, 8), -ENOSPC);
	}
}

static void test_same_host(void **state)
{
	struct sockaddr_storage a = resolve("198.18.0.1", 1000, AF_UNSPEC);
	struct sockaddr_storage b = resolve("198.18.0.1", 2000, AF_UNSPEC);
	struct sockaddr_storage c = resolve("198.18.0.2", 1000, AF_UNSPEC);
	struct sockaddr_storage m = resolve("::ffff:198.18.0.1", 3000, AF_INET6);
	struct sockaddr_storage v6 = resolve("2001:2::1", 1000, AF_UNSPEC);

	(void)state;
	assert_true(addr_same_host(&a, &b));
	assert_false(addr_same_host(&a, &c));
	assert_true(addr_same_host(&a, &m));
	assert_false(addr_same_host(&a, &v6));
	addr_unmap(&m);
	assert_int_equal(m.ss_family, AF_INET);
	assert_int_equal(addr_port(&m), 3000);
	addr_set_port(&m, 42);
	assert_int_equal(addr_port(&m), 42);
}

static void test_family_mismatch(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len;

	(void)state;
	assert_int_not_equal(addr_resolve("198.18.0.1", 1, AF_INET6, false, &ss, &len), 0);
	assert_int_equal(addr_resolve(NULL, 5211, AF_INET, true, &ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(addr_resolve("", 5211, AF_UNSPEC, true, &ss, &len), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
}

/* Every form a user writes an address in (options and scenario keys). */
static void test_split(void **state)
{
	static const struct {
		const char *in;
		int rc;
		const char *host;
		uint16_t port;
	} cases[] = {
		{ "198.18.0.2", 0, "198.18.0.2", 0 },
		{ "198.18.0.2:5211", 0, "198.18.0.2", 5211 },
		{ "server.example.net", 0, "server.example.net", 0 },
		{ "server.example.net:6000", 0, "server.example.net", 6000 },
		{ "2001:2:0:c8::2", 0, "2001:2:0:c8::2", 0 },
		{ "::1", 0, "::1", 0 },
		{ "[2001:2::2]", 0, "2001:2::2", 0 },
		{ "[2001:2::2]:5211", 0, "2001:2::2", 5211 },
		{ "[2001:2::2]:65535", 0, "2001:2::2", 65535 },
		{ "[fe80::1%ovp0]:1", 0, "fe80::1%ovp0", 1 },
		{ "fe80::1%ovp0", 0, "fe80::1%ovp0", 0 },
		{ "[::ffff:198.18.0.2]:80", 0, "::ffff:198.18.0.2", 80 },
		{ "", -EINVAL, NULL, 0 },
		{ ":5211", -EINVAL, NULL, 0 },
		{ "[]:5211", -EINVAL, NULL, 0 },
		{ "[2001:2::2", -EINVAL, NULL, 0 },
		{ "[2001:2::2]x", -EINVAL, NULL, 0 },
		{ "[2001:2::2]:", -EINVAL, NULL, 0 },
		{ "[198.18.0.2]:5211", -EINVAL, NULL, 0 },
		{ "[name]:5211", -EINVAL, NULL, 0 },
		{ "2001:2::2:5211:x", -EINVAL, NULL, 0 },
		{ "host:port:x", -EINVAL, NULL, 0 },
		{ "fe80::1%", -EINVAL, NULL, 0 },
		{ "name]", -EINVAL, NULL, 0 },
		{ "na[me:80", -EINVAL, NULL, 0 },
		{ "a b", -EINVAL, NULL, 0 },
		{ "host\t:80", -EINVAL, NULL, 0 },
		{ "198.18.0.2:0", -ERANGE, NULL, 0 },
		{ "198.18.0.2:65536", -ERANGE, NULL, 0 },
		{ "198.18.0.2:-1", -EINVAL, NULL, 0 },
		{ "198.18.0.2:52x", -ERANGE, NULL, 0 },
		{ "198.18.0.2:", -EINVAL, NULL, 0 },
		{ "[2001:2::2]:99999", -ERANGE, NULL, 0 },
	};
	char host[64];
	uint16_t port;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = addr_split(cases[i].in, host, sizeof(host), &port);

		if (rc != cases[i].rc)
			fail_msg("addr_split(\"%s\") = %d, expected %d", cases[i].in, rc,
				 cases[i].rc);
		if (rc)
			continue;
		assert_string_equal(host, cases[i].host);
		assert_int_equal(port, cases[i].port);
	}
	assert_int_equal(addr_split("[2001:2::2]:5211", host, 9, &port), -ENAMETOOLONG);
	assert_int_equal(addr_split("2001:2::2", host, 10, &port), 0);
	assert_int_equal(addr_split(NULL, host, sizeof(host), &port), -EINVAL);
}

static void test_literal_family(void **state)
{
	(void)state;
	assert_int_equal(addr_literal_family("198.18.0.2"), AF_INET);
	assert_int_equal(addr_literal_family("2001:2:0:c8::2"), AF_INET6);
	assert_int_equal(addr_literal_family("[2001:2::2]"), AF_INET6);
	assert_int_equal(addr_literal_family("fe80::1%ovp0"), AF_INET6);
	assert_int_equal(addr_literal_family("server.example.net"), AF_UNSPEC);
	assert_int_equal(addr_literal_family("[198.18.0.2]"), AF_UNSPEC);
	assert_int_equal(addr_literal_family(""), AF_UNSPEC);
	assert_int_equal(addr_literal_family(NULL), AF_UNSPEC);
}

/* A bracketed literal resolves as the literal (no resolver involved). */
static void test_resolve_brackets(void **state)
{
	struct sockaddr_storage ss = resolve("[2001:2::2]", 5211, AF_UNSPEC);
	char buf[80];

	(void)state;
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(addr_format(&ss, true, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "[2001:2::2]:5211");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),	       cmocka_unit_test(test_split),
		cmocka_unit_test(test_literal_family), cmocka_unit_test(test_resolve_brackets),
		cmocka_unit_test(test_same_host),      cmocka_unit_test(test_family_mismatch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
