// SPDX-License-Identifier: MIT
/*
 * Data AEAD: both ciphers seal and open in place, agree with libsodium's
 * combined one-shot API (an independent code path), and refuse a wrong
 * counter, associated data, ciphertext or tag. Cipher names and "auto".
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "aead.h"
#include "bytes.h"
#include "test_seed.h"

static void roundtrip(enum aead_cipher c)
{
	struct aead_key *k = sodium_malloc(sizeof(*k));
	uint8_t key[32], ad[16], buf[1500], orig[1500], tag[16], ref[1500 + 16], nonce[12] = { 0 };
	unsigned long long reflen;
	const size_t lens[] = { 0, 1, 15, 16, 17, 1420, 1500 };

	test_rand_buf(key, sizeof(key));
	test_rand_buf(ad, sizeof(ad));
	assert_int_equal(aead_key_init(k, c, key), 0);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t len = lens[i];
		uint64_t counter = 0x0102030405060708ULL + i;

		test_rand_buf(orig, len);
		memcpy(buf, orig, len);
		aead_seal(k, counter, ad, sizeof(ad), buf, len, tag);
		/* Same result as the one-shot API with the 4-zero-byte + LE64 nonce. */
		put_le64(nonce + 4, counter);
		if (c == AEAD_AES256GCM)
			crypto_aead_aes256gcm_encrypt(ref, &reflen, orig, len, ad, sizeof(ad), NULL,
						      nonce, key);
		else
			crypto_aead_chacha20poly1305_ietf_encrypt(ref, &reflen, orig, len, ad,
								  sizeof(ad), NULL, nonce, key);
		assert_int_equal(reflen, len + 16);
		assert_memory_equal(ref, buf, len);
		assert_memory_equal(ref + len, tag, 16);
		/* Tampering anywhere fails. */
		assert_int_equal(aead_open(k, counter + 1, ad, sizeof(ad), buf, len, tag),
				 -EBADMSG);
		memcpy(buf, ref, len);
		ad[3] ^= 0x10;
		assert_int_equal(aead_open(k, counter, ad, sizeof(ad), buf, len, tag), -EBADMSG);
		ad[3] ^= 0x10;
		memcpy(buf, ref, len);
		tag[15] ^= 0x80;
		assert_int_equal(aead_open(k, counter, ad, sizeof(ad), buf, len, tag), -EBADMSG);
		tag[15] ^= 0x80;
		if (len) {
			memcpy(buf, ref, len);
			buf[len / 2] ^= 1;
			assert_int_equal(aead_open(k, counter, ad, sizeof(ad), buf, len, tag),
					 -EBADMSG);
		}
		memcpy(buf, ref, len);
		assert_int_equal(aead_open(k, counter, ad, sizeof(ad), buf, len, tag), 0);
		assert_memory_equal(buf, orig, len);
	}
	aead_key_wipe(k);
	sodium_free(k);
}

static void test_chacha(void **state)
{
	(void)state;
	roundtrip(AEAD_CHACHA20POLY1305);
}

static void test_aes(void **state)
{
	struct aead_key k;
	uint8_t key[32] = { 0 };

	(void)state;
	if (!aead_aes_available()) {
		assert_int_equal(aead_key_init(&k, AEAD_AES256GCM, key), -ENOTSUP);
		skip();
	}
	roundtrip(AEAD_AES256GCM);
}

static void test_names(void **state)
{
	static const struct {
		const char *name;
		bool ok;
		enum aead_cipher c;
	} cases[] = {
		{ "auto", true, AEAD_AUTO },
		{ "aes256gcm", true, AEAD_AES256GCM },
		{ "aes-256-gcm", true, AEAD_AES256GCM },
		{ "chacha20poly1305", true, AEAD_CHACHA20POLY1305 },
		{ "chacha20-poly1305", true, AEAD_CHACHA20POLY1305 },
		{ "AES256GCM", false, 0 },
		{ "", false, 0 },
		{ "aes128gcm", false, 0 },
	};
	enum aead_cipher c, r;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(aead_cipher_parse(cases[i].name, &c), cases[i].ok);
		if (cases[i].ok)
			assert_int_equal(c, cases[i].c);
	}
	assert_string_equal(aead_cipher_name(AEAD_AES256GCM), "aes256gcm");
	assert_string_equal(aead_cipher_name(AEAD_CHACHA20POLY1305), "chacha20poly1305");
	assert_int_equal(aead_cipher_resolve(AEAD_AUTO, &r), 0);
	assert_int_equal(r, aead_aes_available() ? AEAD_AES256GCM : AEAD_CHACHA20POLY1305);
	assert_int_equal(aead_cipher_resolve(AEAD_CHACHA20POLY1305, &r), 0);
	assert_int_equal(r, AEAD_CHACHA20POLY1305);
	assert_int_equal(aead_cipher_resolve((enum aead_cipher)7, &r), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chacha),
		cmocka_unit_test(test_aes),
		cmocka_unit_test(test_names),
	};

	if (sodium_init() < 0)
		return 1;
	test_seed_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
