// SPDX-License-Identifier: MIT
/*
 * Keys: base64 round trip and malformed text, generation and public keys
 * (RFC 7748 vector), key files (mode 0600 or stricter, content exactly one
 * key, the file named in the refusal), writing with O_EXCL, hidden display.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sodium.h>

#include "key.h"
#include "test_seed.h"

static char dir[] = "/tmp/ovl-test-key-XXXXXX";

static void test_base64(void **state)
{
	static const struct {
		const char *text;
		bool ok;
	} cases[] = {
		{ "YJt1SOdT1OyPlP0W1/2XKpwJ8Kxb3xd0yNSAKOwRmWQ=", true },
		{ "  YJt1SOdT1OyPlP0W1/2XKpwJ8Kxb3xd0yNSAKOwRmWQ=\n", true },
		{ "YJt1SOdT1OyPlP0W1/2XKpwJ8Kxb3xd0yNSAKOwRmWQ", false },   /* no padding */
		{ "YJt1SOdT1OyPlP0W1/2XKpwJ8Kxb3xd0yNSAKOwRmWQ==", false }, /* too long */
		{ "YJt1SOdT1OyPlP0W1_2XKpwJ8Kxb3xd0yNSAKOwRmWQ=", false },  /* url alphabet */
		{ "YJt1SOdT1OyPlP0W1/2XKpwJ8Kxb3xd0yNSAKOwRmW==", false },  /* 31 bytes */
		{ "YJt1SOdT1OyPlP0W1/2X KpwJ8Kxb3xd0yNSAKOwRmWQ=", false }, /* inner space */
		{ "", false },
	};
	uint8_t k[KEY_LEN], k2[KEY_LEN];
	char b64[KEY_B64_LEN + 1];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (key_from_base64(k, cases[i].text) != cases[i].ok)
			fail_msg("case %zu \"%s\"", i, cases[i].text);
	for (int i = 0; i < 100; i++) {
		test_rand_buf(k, sizeof(k));
		key_to_base64(b64, k);
		assert_int_equal(strlen(b64), KEY_B64_LEN);
		assert_true(key_from_base64(k2, b64));
		assert_memory_equal(k, k2, KEY_LEN);
	}
}

static void test_generate_public(void **state)
{
	/* RFC 7748 6.1: Alice's keys. */
	uint8_t priv[KEY_LEN], pub[KEY_LEN], want[KEY_LEN];
	size_t n;

	(void)state;
	sodium_hex2bin(priv, 32, "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a",
		       64, NULL, &n, NULL);
	sodium_hex2bin(want, 32, "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a",
		       64, NULL, &n, NULL);
	assert_int_equal(key_public(pub, priv), 0);
	assert_memory_equal(pub, want, 32);
	for (int i = 0; i < 50; i++) {
		key_generate(priv);
		assert_int_equal(priv[0] & 7, 0);
		assert_int_equal(priv[31] & 0xc0, 0x40);
	}
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static void test_key_file(void **state)
{
	static const struct {
		const char *text;
		mode_t mode;
		int rc;
	} cases[] = {
		{ "YJt1SOdT1OyPlP0W1/2XKpwJ8Kxb3xd0yNSAKOwRmWQ=\n", 0600, 0 },
		{ "YJt1SOdT1OyPlP0W1/2XKpwJ8Kxb3xd0yNSAKOwRmWQ=", 0400, 0 },
		{ "YJt1SOdT1OyPlP0W1/2XKpwJ8Kxb3xd0yNSAKOwRmWQ=\n", 0644, -EPERM },
		{ "YJt1SOdT1OyPlP0W1/2XKpwJ8Kxb3xd0yNSAKOwRmWQ=\n", 0640, -EPERM },
		{ "YJt1SOdT1OyPlP0W1/2XKpwJ8Kxb3xd0yNSAKOwRmWQ=\n", 0604, -EPERM },
		{ "YJt1SOdT1OyPlP0W1/2XKpwJ8Kxb3xd0yNSAKOwRmWQ=\n", 0601, -EPERM },
		{ "not a key\n", 0600, -EINVAL },
		{ "YJt1SOdT1OyPlP0W1/2XKpwJ8Kxb3xd0yNSAKOwRmWQ=\nYJt1SOdT1OyPlP0W1/"
		  "2XKpwJ8Kxb3xd0yNSAKOwRmWQ=\n",
		  0600, -EINVAL },
		{ "", 0600, -EINVAL },
	};
	char path[128], b64[KEY_B64_LEN + 1];
	uint8_t *key;

	(void)state;
	snprintf(path, sizeof(path), "%s/k", dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_file(path, cases[i].text, cases[i].mode);
		key = (uint8_t *)1;
		if (key_read_file(path, &key) != cases[i].rc)
			fail_msg("case %zu", i);
		if (cases[i].rc == 0) {
			key_to_base64(b64, key);
			assert_memory_equal(b64, cases[i].text, KEY_B64_LEN);
			key_free(key);
		} else {
			assert_null(key);
		}
	}
	assert_int_equal(key_read_file("/nonexistent/ovl.key", &key), -ENOENT);
	assert_int_equal(key_read_file(dir, &key), -EINVAL); /* a directory */
	unlink(path);
}

static void test_write_and_display(void **state)
{
	char path[128], buf[KEY_B64_LEN + 1];
	uint8_t k[KEY_LEN], *back;
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/w", dir);
	unlink(path);
	key_generate(k);
	assert_int_equal(key_write_file(path, k), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(key_write_file(path, k), -EEXIST);
	assert_int_equal(key_read_file(path, &back), 0);
	assert_memory_equal(back, k, KEY_LEN);
	key_free(back);
	assert_string_equal(key_display(buf, k, false), "(hidden)");
	key_to_base64(buf, k);
	{
		char shown[KEY_B64_LEN + 1];

		assert_string_equal(key_display(shown, k, true), buf);
	}
	unlink(path);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_generate_public),
		cmocka_unit_test(test_key_file),
		cmocka_unit_test(test_write_and_display),
	};

	if (sodium_init() < 0)
		return 1;
	test_seed_init();
	return cmocka_run_group_tests(tests, setup, teardown);
}
