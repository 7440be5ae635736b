// SPDX-License-Identifier: MIT
/*
 * PSK challenge-response: known-answer proofs (computed independently with
 * Python's hmac: HMAC-SHA-512 truncated to 32 bytes, which is crypto_auth),
 * mutual success, every kind of failure (wrong key, tampered proof, reflected
 * role, other version, swapped nonces), and key files (base64, hex, bad
 * permissions, bad content, missing, not a file).
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

#include "auth.h"

static uint8_t key_bytes[AUTH_KEY_LEN], sn[AUTH_NONCE_LEN], cn[AUTH_NONCE_LEN];

static void hex2bin(const char *hex, uint8_t *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		assert_int_equal(sscanf(hex + 2 * i, "%2hhx", &out[i]), 1);
}

static int setup(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < AUTH_KEY_LEN; i++) {
		key_bytes[i] = (uint8_t)i;
		sn[i] = (uint8_t)(0x40 + i);
		cn[i] = (uint8_t)(0x80 + i);
	}
	return auth_init();
}

static void test_known_answer(void **state)
{
	struct auth_key *k;
	uint8_t mac[AUTH_MAC_LEN], want[AUTH_MAC_LEN];

	(void)state;
	assert_int_equal(auth_key_from_bytes(key_bytes, sizeof(key_bytes), &k), 0);
	auth_proof(k, AUTH_CLIENT, sn, cn, 1, mac);
	hex2bin("746d589ec42dd42dd29aa78dba74d164380206defcec161a7764cfdf764b961e", want, 32);
	assert_memory_equal(mac, want, AUTH_MAC_LEN);
	auth_proof(k, AUTH_SERVER, sn, cn, 1, mac);
	hex2bin("56361f5653be3c18bffa6972f272dd40ca3a207ead34697afd9cbcb8b7dbeda3", want, 32);
	assert_memory_equal(mac, want, AUTH_MAC_LEN);
	auth_key_free(k);
}

static void test_mutual_success_and_failures(void **state)
{
	struct auth_key *k, *other;
	uint8_t mac[AUTH_MAC_LEN], smac[AUTH_MAC_LEN], wrong[AUTH_KEY_LEN];
	size_t i;

	(void)state;
	assert_int_equal(auth_key_from_bytes(key_bytes, sizeof(key_bytes), &k), 0);
	memcpy(wrong, key_bytes, sizeof(wrong));
	wrong[31] ^= 1;
	assert_int_equal(auth_key_from_bytes(wrong, sizeof(wrong), &other), 0);

	/* client proves, server checks; server proves back, client checks */
	auth_proof(k, AUTH_CLIENT, sn, cn, 1, mac);
	assert_int_equal(auth_verify(k, AUTH_CLIENT, sn, cn, 1, mac), 0);
	auth_proof(k, AUTH_SERVER, sn, cn, 1, smac);
	assert_int_equal(auth_verify(k, AUTH_SERVER, sn, cn, 1, smac), 0);
	assert_memory_not_equal(mac, smac, AUTH_MAC_LEN);

	/* a client with the wrong key; a server with the wrong key */
	assert_int_equal(auth_verify(other, AUTH_CLIENT, sn, cn, 1, mac), -EACCES);
	assert_int_equal(auth_verify(other, AUTH_SERVER, sn, cn, 1, smac), -EACCES);
	/* reflection: the server's proof is no client proof and vice versa */
	assert_int_equal(auth_verify(k, AUTH_CLIENT, sn, cn, 1, smac), -EACCES);
	assert_int_equal(auth_verify(k, AUTH_SERVER, sn, cn, 1, mac), -EACCES);
	/* bound to the version and to both nonces, in order */
	assert_int_equal(auth_verify(k, AUTH_CLIENT, sn, cn, 2, mac), -EACCES);
	assert_int_equal(auth_verify(k, AUTH_CLIENT, cn, sn, 1, mac), -EACCES);
	/* every bit of the proof matters */
	for (i = 0; i < AUTH_MAC_LEN * 8; i++) {
		mac[i / 8] ^= (uint8_t)(1u << (i % 8));
		assert_int_equal(auth_verify(k, AUTH_CLIENT, sn, cn, 1, mac), -EACCES);
		mac[i / 8] ^= (uint8_t)(1u << (i % 8));
	}
	assert_int_equal(auth_verify(k, AUTH_CLIENT, sn, cn, 1, mac), 0);
	auth_key_free(k);
	auth_key_free(other);
	auth_key_free(NULL);
}

static void test_nonce_and_key_len(void **state)
{
	uint8_t a[AUTH_NONCE_LEN], b[AUTH_NONCE_LEN];
	struct auth_key *k = (void *)1;

	(void)state;
	auth_nonce(a);
	auth_nonce(b);
	assert_memory_not_equal(a, b, AUTH_NONCE_LEN);
	assert_int_equal(auth_key_from_bytes(key_bytes, 31, &k), -EINVAL);
	assert_null(k);
}

/* Writes content to a fresh file with mode and loads it. */
static int load(const char *content, size_t len, mode_t mode, char *err, size_t errlen, char *path,
		size_t pathlen)
{
	struct auth_key *k = NULL;
	int fd, ret;

	snprintf(path, pathlen, "/tmp/ovlperf-test-psk-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
	err[0] = '\0';
	ret = auth_key_load(path, &k, err, errlen);
	if (ret == 0) {
		uint8_t mac[AUTH_MAC_LEN], want[AUTH_MAC_LEN];

		assert_non_null(k);
		/* the loaded key is the one in the file */
		auth_proof(k, AUTH_CLIENT, sn, cn, 1, mac);
		hex2bin("746d589ec42dd42dd29aa78dba74d164380206defcec161a7764cfdf764b961e", want,
			32);
		assert_memory_equal(mac, want, AUTH_MAC_LEN);
		auth_key_free(k);
	} else {
		assert_null(k);
	}
	unlink(path);
	return ret;
}

static void test_key_files(void **state)
{
	static const struct {
		const char *text;
		mode_t mode;
		int ret;
	} cases[] = {
		{ "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n", 0600, 0 },
		{ "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", 0400, 0 },
		{ "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\r\n", 0600, 0 },
		{ "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F\n", 0600, 0 },
		{ "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n", 0644, -EACCES },
		{ "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n", 0640, -EACCES },
		{ "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n", 0602, -EACCES },
		{ "", 0600, -EINVAL },
		{ "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8\n", 0600, -EINVAL }, /* 43 */
		{ "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh!=\n", 0600, -EINVAL },
		{ "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e\n", 0600,
		  -EINVAL },
		{ "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1g\n", 0600,
		  -EINVAL },
		{ " AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n", 0600, -EINVAL },
		{ "correct horse battery staple\n", 0600, -EINVAL },
	};
	char err[512], path[64], big[1024];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("case %zu\n", i);
		assert_int_equal(load(cases[i].text, strlen(cases[i].text), cases[i].mode, err,
				      sizeof(err), path, sizeof(path)),
				 cases[i].ret);
		if (cases[i].ret) {
			/* the error names the file */
			assert_non_null(strstr(err, path));
		}
		if (cases[i].ret == -EACCES)
			assert_non_null(strstr(err, "chmod 600"));
	}
	memset(big, 'A', sizeof(big));
	assert_int_equal(load(big, sizeof(big), 0600, err, sizeof(err), path, sizeof(path)),
			 -EINVAL);
	assert_non_null(strstr(err, "too long"));

	assert_int_equal(
		auth_key_load("/nonexistent/psk", &(struct auth_key *){ NULL }, err, sizeof(err)),
		-ENOENT);
	assert_non_null(strstr(err, "/nonexistent/psk"));
	assert_int_equal(auth_key_load("/tmp", &(struct auth_key *){ NULL }, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_answer),
		cmocka_unit_test(test_mutual_success_and_failures),
		cmocka_unit_test(test_nonce_and_key_len),
		cmocka_unit_test(test_key_files),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
