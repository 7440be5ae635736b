// SPDX-License-Identifier: MIT
/* Longest-prefix match: a hand table, then random tables against a linear oracle. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "allowedips.h"
#include "test_seed.h"

static int P[8]; /* distinct peer identities */

static void ins(struct allowedips *t, const char *s, unsigned cidr, int *peer)
{
	uint8_t a[16];
	int family = strchr(s, ':') ? AF_INET6 : AF_INET;

	assert_int_equal(inet_pton(family, s, a), 1);
	assert_int_equal(allowedips_insert(t, family, a, cidr, peer), 0);
}

static void *look(struct allowedips *t, const char *s)
{
	uint8_t a[16];
	int family = strchr(s, ':') ? AF_INET6 : AF_INET;

	assert_int_equal(inet_pton(family, s, a), 1);
	return allowedips_lookup(t, family, a);
}

static void test_table(void **state)
{
	struct allowedips t;
	static const struct {
		const char *addr;
		int peer; /* -1: none */
	} cases[] = {
		{ "198.19.0.2", 1 },	 { "198.19.0.3", 0 },	  { "198.19.1.1", 2 },
		{ "198.19.1.128", 3 },	 { "198.19.1.129", 3 },	  { "198.18.0.1", 4 },
		{ "10.1.2.3", 4 },	 { "0.0.0.0", 4 },	  { "255.255.255.255", 4 },
		{ "2001:2:0:ff::2", 5 }, { "2001:2:0:ff::3", 6 }, { "2001:2:0:fe::1", -1 },
		{ "2001:3::1", -1 },
	};

	(void)state;
	allowedips_init(&t);
	ins(&t, "198.19.0.0", 24, &P[0]);
	ins(&t, "198.19.0.2", 32, &P[1]);
	ins(&t, "198.19.1.0", 24, &P[2]);
	ins(&t, "198.19.1.128", 25, &P[3]);
	ins(&t, "2001:2:0:ff::", 64, &P[6]);
	ins(&t, "2001:2:0:ff::2", 128, &P[5]);
	/* Host bits are ignored; an exact prefix changes owner. */
	ins(&t, "198.19.1.7", 24, &P[7]);
	ins(&t, "198.19.1.0", 24, &P[2]);
	assert_int_equal(t.nprefixes, 6);
	assert_null(look(&t, "10.1.2.3"));
	ins(&t, "0.0.0.0", 0, &P[4]);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		void *want = cases[i].peer < 0 ? NULL : &P[cases[i].peer];

		if (look(&t, cases[i].addr) != want)
			fail_msg("%s: wrong peer", cases[i].addr);
	}
	/* Removing the /25 falls back to the /24; removing a peer removes all of its. */
	uint8_t a[4];

	inet_pton(AF_INET, "198.19.1.128", a);
	assert_int_equal(allowedips_remove(&t, AF_INET, a, 25), 0);
	assert_int_equal(allowedips_remove(&t, AF_INET, a, 25), -ENOENT);
	assert_ptr_equal(look(&t, "198.19.1.129"), &P[2]);
	assert_int_equal(allowedips_remove_peer(&t, &P[4]), 1);
	assert_null(look(&t, "10.1.2.3"));
	assert_int_equal(allowedips_remove_peer(&t, &P[5]), 1);
	assert_ptr_equal(look(&t, "2001:2:0:ff::2"), &P[6]);
	assert_int_equal(allowedips_insert(&t, AF_INET, a, 33, &P[0]), -EINVAL);
	assert_int_equal(allowedips_insert(&t, AF_INET, a, 8, NULL), -EINVAL);
	allowedips_free(&t);
}

struct oracle_entry {
	uint8_t addr[16];
	unsigned cidr;
	int *peer;
};

static bool in_prefix(const uint8_t *a, const uint8_t *p, unsigned cidr)
{
	for (unsigned i = 0; i < cidr; i++) {
		unsigned m = 0x80 >> (i % 8);

		if ((a[i / 8] & m) != (p[i / 8] & m))
			return false;
	}
	return true;
}

/* Random prefixes clustered in a small space (so they nest and collide). */
static void random_round(int family)
{
	unsigned bits = family == AF_INET ? 32 : 128, bytes = bits / 8;
	struct oracle_entry e[300];
	struct allowedips t;
	size_t n = 0;

	allowedips_init(&t);
	for (size_t i = 0; i < 300; i++) {
		struct oracle_entry x = { .cidr = test_rand_below(bits + 1),
					  .peer = &P[test_rand_below(8)] };
		size_t j;

		for (unsigned b = 0; b < bytes; b++)
			x.addr[b] = (uint8_t)(b < bytes - 2 ? 0xc6 : test_rand_below(4));
		for (unsigned b = x.cidr; b < bits; b++)
			x.addr[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
		assert_int_equal(allowedips_insert(&t, family, x.addr, x.cidr, x.peer), 0);
		for (j = 0; j < n; j++)
			if (e[j].cidr == x.cidr && !memcmp(e[j].addr, x.addr, bytes))
				break;
		e[j] = x;
		if (j == n)
			n++;
	}
	assert_int_equal(t.nprefixes, n);
	for (unsigned k = 0; k < 2000; k++) {
		uint8_t a[16] = { 0 };
		int *want = NULL;
		unsigned best = 0;

		for (unsigned b = 0; b < bytes; b++)
			a[b] = (uint8_t)(b < bytes - 2 ? 0xc6 : test_rand_below(4));
		if (k % 7 == 0)
			a[0] ^= 1;
		for (size_t j = 0; j < n; j++)
			if (in_prefix(a, e[j].addr, e[j].cidr) && (!want || e[j].cidr >= best)) {
				want = e[j].peer;
				best = e[j].cidr;
			}
		assert_ptr_equal(allowedips_lookup(&t, family, a), want);
	}
	allowedips_free(&t);
}

static void test_random_v4(void **state)
{
	(void)state;
	for (unsigned r = 0; r < 20; r++)
		random_round(AF_INET);
}

static void test_random_v6(void **state)
{
	(void)state;
	for (unsigned r = 0; r < 20; r++)
		random_round(AF_INET6);
}

/* Many peers, one /32 each: every peer finds its own address. */
static void test_many_peers(void **state)
{
	static int peers[4096];
	struct allowedips t;
	uint8_t a[4];

	(void)state;
	allowedips_init(&t);
	for (unsigned i = 0; i < 4096; i++) {
		uint32_t v = htonl(0xC6130000u + i);

		memcpy(a, &v, 4);
		assert_int_equal(allowedips_insert(&t, AF_INET, a, 32, &peers[i]), 0);
	}
	for (unsigned i = 0; i < 4096; i++) {
		uint32_t v = htonl(0xC6130000u + i);

		memcpy(a, &v, 4);
		assert_ptr_equal(allowedips_lookup(&t, AF_INET, a), &peers[i]);
	}
	assert_int_equal(allowedips_remove_peer(&t, &peers[17]), 1);
	assert_int_equal(t.nprefixes, 4095);
	allowedips_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_random_v4),
		cmocka_unit_test(test_random_v6),
		cmocka_unit_test(test_many_peers),
	};

	test_seed_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
