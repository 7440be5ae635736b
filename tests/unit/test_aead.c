// SPDX-License-Identifier: MIT
/*
 * Data AEAD: both ciphers, with each implementation (libsodium, OpenSSL),
 * seal and open in place, match the known answers of RFC 8439 2.8.2
 * (ChaCha20-Poly1305) and of the GCM specification's test case 16
 * (AES-256-GCM), agree with libsodium's combined one-shot API (an
 * independent code path), and refuse a wrong counter, associated data,
 * ciphertext or tag. Cipher names.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
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

static void roundtrip(enum aead_cipher c, enum aead_impl impl)
{
	struct aead_key *k = sodium_malloc(sizeof(*k));
	uint8_t key[32], ad[16], buf[1500], orig[1500], tag[16], ref[1500 + 16], nonce[12] = { 0 };
	unsigned long long reflen;
	const size_t lens[] = { 0, 1, 15, 16, 17, 1420, 1500 };

	test_rand_buf(key, sizeof(key));
	test_rand_buf(ad, sizeof(ad));
	assert_int_equal(aead_key_init(k, c, impl, key), 0);
	assert_int_equal(k->impl, impl);
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
	roundtrip(AEAD_CHACHA20POLY1305, AEAD_IMPL_LIBSODIUM);
	roundtrip(AEAD_CHACHA20POLY1305, AEAD_IMPL_OPENSSL);
}

static void test_aes(void **state)
{
	struct aead_key k;
	uint8_t key[32] = { 0 };

	(void)state;
	roundtrip(AEAD_AES256GCM, AEAD_IMPL_OPENSSL);
	if (!aead_aes_available()) {
		assert_int_equal(aead_key_init(&k, AEAD_AES256GCM, AEAD_IMPL_LIBSODIUM, key),
				 -ENOTSUP);
		skip();
	}
	roundtrip(AEAD_AES256GCM, AEAD_IMPL_LIBSODIUM);
}

static size_t unhex(uint8_t *out, size_t cap, const char *hex)
{
	size_t n = 0;

	for (; hex[0] && hex[1]; hex += 2) {
		unsigned v;

		while (*hex == ' ')
			hex++;
		if (!hex[0] || sscanf(hex, "%2x", &v) != 1)
			break;
		assert_true(n < cap);
		out[n++] = (uint8_t)v;
	}
	return n;
}

struct kat {
	const char *name;
	enum aead_cipher cipher;
	const char *key, *nonce, *ad, *plain, *cipher_text, *tag;
};

static const struct kat kats[] = {
	/* RFC 8439 section 2.8.2: the AEAD_CHACHA20_POLY1305 example. */
	{ "rfc8439 2.8.2", AEAD_CHACHA20POLY1305,
	  "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
	  "070000004041424344454647", "50515253c0c1c2c3c4c5c6c7",
	  /* "Ladies and Gentlemen of the class of '99: If I could offer you only one
	   * tip for the future, sunscreen would be it." */
	  "4c616469657320616e642047656e746c656d656e206f662074686520636c6173"
	  "73206f66202739393a204966204920636f756c64206f6666657220796f75206f"
	  "6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73"
	  "637265656e20776f756c642062652069742e",
	  "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
	  "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
	  "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
	  "3ff4def08e4b7a9de576d26586cec64b6116",
	  "1ae10b594f09e26a7e902ecbd0600691" },
	/* McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", test case 16. */
	{ "gcm test case 16", AEAD_AES256GCM,
	  "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
	  "cafebabefacedbaddecaf888", "feedfacedeadbeeffeedfacedeadbeefabaddad2",
	  "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
	  "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
	  "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
	  "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
	  "76fc6ece0f4e1768cddf8853bb2d551b" },
};

static void check_kat(const struct kat *t, enum aead_impl impl)
{
	struct aead_key *k = sodium_malloc(sizeof(*k));
	uint8_t key[32], nonce[12], ad[32], plain[128], want[128], buf[128], tag[16], want_tag[16];
	size_t adlen = unhex(ad, sizeof(ad), t->ad), len = unhex(plain, sizeof(plain), t->plain);

	print_message("  %s, %s\n", t->name, aead_impl_name(impl));
	assert_int_equal(unhex(key, sizeof(key), t->key), 32);
	assert_int_equal(unhex(nonce, sizeof(nonce), t->nonce), 12);
	assert_int_equal(unhex(want, sizeof(want), t->cipher_text), len);
	assert_int_equal(unhex(want_tag, sizeof(want_tag), t->tag), 16);
	assert_int_equal(aead_key_init(k, t->cipher, impl, key), 0);
	memcpy(buf, plain, len);
	aead_seal_nonce(k, nonce, ad, adlen, buf, len, tag);
	assert_memory_equal(buf, want, len);
	assert_memory_equal(tag, want_tag, 16);
	assert_int_equal(aead_open_nonce(k, nonce, ad, adlen, buf, len, tag), 0);
	assert_memory_equal(buf, plain, len);
	aead_key_wipe(k);
	sodium_free(k);
}

static void test_known_answers(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(kats) / sizeof(kats[0]); i++)
		for (int impl = 1; impl <= AEAD_IMPLS; impl++)
			if (aead_impl_available(kats[i].cipher, (enum aead_impl)impl))
				check_kat(&kats[i], (enum aead_impl)impl);
}

/* An OpenSSL key used from several threads at once: each call its own context. */
struct share {
	struct aead_key *k;
	int bad;
};

static void *share_thread(void *arg)
{
	struct share *sh = arg;
	uint8_t ad[16] = { 4 }, buf[256], orig[256], tag[16];

	for (uint64_t n = 0; n < 2000; n++) {
		memset(orig, (int)(n & 0xff), sizeof(orig));
		memcpy(buf, orig, sizeof(buf));
		aead_seal(sh->k, n, ad, sizeof(ad), buf, sizeof(buf), tag);
		if (aead_open(sh->k, n, ad, sizeof(ad), buf, sizeof(buf), tag) != 0 ||
		    memcmp(buf, orig, sizeof(buf)))
			__atomic_add_fetch(&sh->bad, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_openssl_threads(void **state)
{
	struct share sh = { .k = sodium_malloc(sizeof(*sh.k)) };
	uint8_t key[32];
	pthread_t t[4];

	(void)state;
	test_rand_buf(key, sizeof(key));
	assert_int_equal(aead_key_init(sh.k, AEAD_AES256GCM, AEAD_IMPL_OPENSSL, key), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, share_thread, &sh), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(sh.bad, 0);
	aead_key_wipe(sh.k);
	/* Wiped: no contexts left, and a second wipe is harmless. */
	for (int i = 0; i < AEAD_OSSL_SLOTS; i++)
		assert_null(sh.k->u.ossl.ctx[i]);
	aead_key_wipe(sh.k);
	sodium_free(sh.k);
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
	enum aead_cipher c;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(aead_cipher_parse(cases[i].name, &c), cases[i].ok);
		if (cases[i].ok)
			assert_int_equal(c, cases[i].c);
	}
	assert_string_equal(aead_cipher_name(AEAD_AES256GCM), "aes256gcm");
	assert_string_equal(aead_cipher_name(AEAD_CHACHA20POLY1305), "chacha20poly1305");
	assert_string_equal(aead_impl_name(AEAD_IMPL_OPENSSL), "openssl");
	assert_string_equal(aead_impl_name(AEAD_IMPL_LIBSODIUM), "libsodium");
	assert_false(aead_impl_available((enum aead_cipher)7, AEAD_IMPL_OPENSSL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chacha),	      cmocka_unit_test(test_aes),
		cmocka_unit_test(test_known_answers), cmocka_unit_test(test_openssl_threads),
		cmocka_unit_test(test_names),
	};

	if (sodium_init() < 0)
		return 1;
	test_seed_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
