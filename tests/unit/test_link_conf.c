// SPDX-License-Identifier: MIT
/*
 * link_conf_set() / link_conf_get() / link_conf_argv(): the one reader of
 * link conditions (include/link/link.h). Every key, both directions ("X" and
 * "X/Y"), values read back in the spelling they print, and bad values
 * refused with a sentence that names the value, leaving the struct alone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "link.h"

static const struct {
	const char *key, *value;
	struct link_dir_conf ab, ba; /* the fields the key sets */
	const char *back;	     /* link_conf_get()'s spelling */
} good[] = {
	{ "delay", "20ms", { .delay_ns = 20000000 }, { .delay_ns = 20000000 }, "20ms" },
	{ "delay", "10ms/30ms", { .delay_ns = 10000000 }, { .delay_ns = 30000000 }, "10ms/30ms" },
	{ "delay", "1.5ms", { .delay_ns = 1500000 }, { .delay_ns = 1500000 }, "1500us" },
	{ "delay", "2s/0", { .delay_ns = 2000000000 }, { 0 }, "2s/0ms" },
	{ "delay", "0.0000015", { .delay_ns = 1500 }, { .delay_ns = 1500 }, "1.500us" },
	{ "jitter", "500us", { .jitter_ns = 500000 }, { .jitter_ns = 500000 }, "500us" },
	{ "jitter", "1ms/2ms", { .jitter_ns = 1000000 }, { .jitter_ns = 2000000 }, "1ms/2ms" },
	{ "loss", "1%", { .loss_ppm = 10000 }, { .loss_ppm = 10000 }, "1%" },
	{ "loss", "0.5/2.25 %", { .loss_ppm = 5000 }, { .loss_ppm = 22500 }, "0.5%/2.25%" },
	{ "loss", "0.0001%", { .loss_ppm = 1 }, { .loss_ppm = 1 }, "0.0001%" },
	{ "loss", "0.0111%", { .loss_ppm = 111 }, { .loss_ppm = 111 }, "0.0111%" }, /* rounded */
	{ "loss", "0.57", { .loss_ppm = 5700 }, { .loss_ppm = 5700 }, "0.57%" },
	{ "loss", "100", { .loss_ppm = 1000000 }, { .loss_ppm = 1000000 }, "100%" },
	{ "loss-burst",
	  "1%,20%",
	  { .ge_p_ppm = 10000, .ge_r_ppm = 200000 },
	  { .ge_p_ppm = 10000, .ge_r_ppm = 200000 },
	  "1%,20%" },
	{ "loss-burst",
	  "1,20/0,0",
	  { .ge_p_ppm = 10000, .ge_r_ppm = 200000 },
	  { 0 },
	  "1%,20%/0%,0%" },
	{ "reorder", "25%", { .reorder_ppm = 250000 }, { .reorder_ppm = 250000 }, "25%" },
	{ "reorder", "0/5", { 0 }, { .reorder_ppm = 50000 }, "0%/5%" },
	{ "rate", "100M", { .rate_bps = 100000000 }, { .rate_bps = 100000000 }, "100M" },
	{ "rate", "1G/10 Mbit/s", { .rate_bps = 1000000000 }, { .rate_bps = 10000000 }, "1G/10M" },
	{ "rate", "1500k", { .rate_bps = 1500000 }, { .rate_bps = 1500000 }, "1500k" },
	{ "rate", "1234", { .rate_bps = 1234 }, { .rate_bps = 1234 }, "1234" },
};

static void test_good(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct link_conf c = { 0 };
		char err[LINK_CONF_ERR_MAX] = "", back[LINK_CONF_VAL_MAX];

		if (!link_conf_set(&c, good[i].key, good[i].value, err, sizeof(err)))
			fail_msg("%s=%s refused: %s", good[i].key, good[i].value, err);
		assert_memory_equal(&c.dir[LINK_AB], &good[i].ab, sizeof(good[i].ab));
		assert_memory_equal(&c.dir[LINK_BA], &good[i].ba, sizeof(good[i].ba));
		assert_int_equal(link_conf_get(&c, good[i].key, back, sizeof(back)), 0);
		assert_string_equal(back, good[i].back);
		/* what it prints, it reads back to the same struct */
		{
			struct link_conf d = { 0 };

			assert_true(link_conf_set(&d, good[i].key, back, err, sizeof(err)));
			assert_memory_equal(&c, &d, sizeof(c));
		}
	}
}

static void test_limit_seed(void **state)
{
	struct link_conf c = { 0 };
	char err[LINK_CONF_ERR_MAX], back[LINK_CONF_VAL_MAX];

	(void)state;
	assert_true(link_conf_set(&c, "limit", "4M", err, sizeof(err)));
	assert_int_equal(c.limit_bytes, 4 << 20);
	assert_int_equal(link_conf_get(&c, "limit", back, sizeof(back)), 0);
	assert_string_equal(back, "4M");
	assert_true(link_conf_set(&c, "limit", "5000", err, sizeof(err)));
	assert_int_equal(c.limit_bytes, 5000);
	assert_true(link_conf_set(&c, "seed", "18446744073709551615", err, sizeof(err)));
	assert_true(c.seed == UINT64_MAX);
	assert_int_equal(link_conf_get(&c, "seed", back, sizeof(back)), 0);
	assert_string_equal(back, "18446744073709551615");
	assert_false(link_conf_active(&c)); /* a limit and a seed emulate nothing */
}

static const struct {
	const char *key, *value, *why; /* why: a part of the message */
} bad[] = {
	{ "delay", "20xs", "'20xs' is not a duration" },
	{ "delay", "61s", "out of range" },
	{ "delay", "-1ms", "'-1ms'" },
	{ "delay", "", "''" },
	{ "delay", "1ms/", "''" },
	{ "delay", "/1ms", "''" },
	{ "delay", "1ms/2ms/3ms", "'1ms/2ms/3ms' is not X or X/Y" },
	{ "jitter", "1 parsec", "'1 parsec'" },
	{ "loss", "120%", "120%" },
	{ "loss", "ten", "'ten' is not a percentage" },
	{ "loss", "0.00001%", "finer than the 0.0001 %" },
	{ "loss", "5/x", "'x'" },
	{ "loss-burst", "5%", "'5%' is not P,R" },
	{ "loss-burst", "5%,0", "r must be above 0" },
	{ "loss-burst", "5%,x", "'x'" },
	{ "loss-burst", "101,5", "101" },
	{ "reorder", "-5%", "'-5%'" },
	{ "rate", "1GB", "'1GB'" },
	{ "rate", "fast", "'fast'" },
	{ "limit", "1k", "out of range" },
	{ "limit", "1M/2M", "takes one value" },
	{ "limit", "lots", "'lots'" },
	{ "seed", "-1", "'-1'" },
	{ "seed", "1/2", "takes one value" },
	{ "speed", "1", "'speed' is not a link condition" },
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct link_conf c, before;
		char err[LINK_CONF_ERR_MAX] = "";

		memset(&c, 0x5a, sizeof(c));
		before = c;
		if (link_conf_set(&c, bad[i].key, bad[i].value, err, sizeof(err)))
			fail_msg("%s=%s accepted", bad[i].key, bad[i].value);
		if (!strstr(err, bad[i].why))
			fail_msg("%s=%s: message '%s' lacks '%s'", bad[i].key, bad[i].value, err,
				 bad[i].why);
		assert_memory_equal(&c, &before, sizeof(c));
	}
}

/* The a->b half is kept when the b->a half is refused. */
static void test_atomic(void **state)
{
	struct link_conf c = { 0 };
	char err[LINK_CONF_ERR_MAX];

	(void)state;
	assert_true(link_conf_set(&c, "delay", "5ms", err, sizeof(err)));
	assert_false(link_conf_set(&c, "delay", "7ms/bad", err, sizeof(err)));
	assert_int_equal(c.dir[LINK_AB].delay_ns, 5000000);
	assert_int_equal(c.dir[LINK_BA].delay_ns, 5000000);
}

static void test_active_argv(void **state)
{
	struct link_conf c = { 0 };
	char err[LINK_CONF_ERR_MAX], buf[512], *argv[32];
	int n;

	(void)state;
	assert_false(link_conf_active(&c));
	assert_int_equal(link_conf_argv(&c, argv, 32, buf, sizeof(buf)), 0);
	assert_true(link_conf_set(&c, "reorder", "0/1%", err, sizeof(err)));
	assert_true(link_conf_active(&c));
	assert_true(link_conf_set(&c, "delay", "10ms/30ms", err, sizeof(err)));
	assert_true(link_conf_set(&c, "loss-burst", "1%,25%", err, sizeof(err)));
	assert_true(link_conf_set(&c, "seed", "42", err, sizeof(err)));
	n = link_conf_argv(&c, argv, 32, buf, sizeof(buf));
	assert_int_equal(n, 8);
	assert_string_equal(argv[0], "--delay");
	assert_string_equal(argv[1], "10ms/30ms");
	assert_string_equal(argv[2], "--loss-burst");
	assert_string_equal(argv[3], "1%,25%");
	assert_string_equal(argv[4], "--reorder");
	assert_string_equal(argv[5], "0%/1%");
	assert_string_equal(argv[6], "--seed");
	assert_string_equal(argv[7], "42");
	/* the options read back to the same conditions */
	{
		struct link_conf d = { 0 };

		for (int i = 0; i < n; i += 2)
			assert_true(link_conf_set(&d, argv[i] + 2, argv[i + 1], err, sizeof(err)));
		assert_memory_equal(&c, &d, sizeof(c));
	}
	assert_int_equal(link_conf_argv(&c, argv, 7, buf, sizeof(buf)), -ENOSPC);
	assert_int_equal(link_conf_argv(&c, argv, 32, buf, 20), -ENOSPC);
	assert_int_equal(link_conf_get(&c, "nope", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(link_conf_get(&c, "delay", buf, 4), -ENOSPC);
	/* every key has a name in the table */
	for (unsigned k = 0; link_conf_keys[k]; k++)
		assert_int_equal(link_conf_get(&c, link_conf_keys[k], buf, sizeof(buf)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),	    cmocka_unit_test(test_limit_seed),
		cmocka_unit_test(test_bad),	    cmocka_unit_test(test_atomic),
		cmocka_unit_test(test_active_argv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
