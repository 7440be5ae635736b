// SPDX-License-Identifier: MIT
/*
 * PSK challenge-response (see auth.h). The key never leaves sodium_malloc
 * memory; the file's bytes are read into guarded memory too and wiped.
 */
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth.h"
#include "bytes.h"

#define KEY_FILE_MAX 256 /* base64 or hex of 32 bytes plus whitespace */

struct auth_key {
	uint8_t k[AUTH_KEY_LEN];
};

_Static_assert(AUTH_KEY_LEN == crypto_auth_KEYBYTES, "PSK is a crypto_auth key");
_Static_assert(AUTH_MAC_LEN == crypto_auth_BYTES, "proof is a crypto_auth tag");

static const char label_client[] = "ovlperf-client-v1";
static const char label_server[] = "ovlperf-server-v1";

int auth_init(void)
{
	return sodium_init() < 0 ? -EIO : 0;
}

int auth_key_from_bytes(const uint8_t *bytes, size_t len, struct auth_key **key)
{
	struct auth_key *k;

	*key = NULL;
	if (len != AUTH_KEY_LEN)
		return -EINVAL;
	if (auth_init() < 0)
		return -EIO;
	k = sodium_malloc(sizeof(*k));
	if (!k)
		return -ENOMEM;
	memcpy(k->k, bytes, AUTH_KEY_LEN);
	sodium_mprotect_readonly(k);
	*key = k;
	return 0;
}

void auth_key_free(struct auth_key *key)
{
	if (key)
		sodium_free(key); /* wipes before unmapping */
}

/* Decodes 32 bytes from base64 or hex text (trailing whitespace allowed). */
static bool decode_key(const char *text, size_t len, uint8_t out[static AUTH_KEY_LEN])
{
	size_t bin_len = 0;
	const char *end = NULL;

	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' ' ||
			   text[len - 1] == '\t'))
		len--;
	if (len == 2 * AUTH_KEY_LEN) {
		if (sodium_hex2bin(out, AUTH_KEY_LEN, text, len, NULL, &bin_len, &end) == 0 &&
		    bin_len == AUTH_KEY_LEN && end == text + len)
			return true;
	}
	if (len == sodium_base64_ENCODED_LEN(AUTH_KEY_LEN, sodium_base64_VARIANT_ORIGINAL) - 1) {
		if (sodium_base642bin(out, AUTH_KEY_LEN, text, len, NULL, &bin_len, &end,
				      sodium_base64_VARIANT_ORIGINAL) == 0 &&
		    bin_len == AUTH_KEY_LEN && end == text + len)
			return true;
	}
	sodium_memzero(out, AUTH_KEY_LEN);
	return false;
}

static int check_file(int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "PSK file %s: %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "PSK file %s is not a regular file", path);
		return -EINVAL;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(err, errlen,
			 "PSK file %s is accessible by group or others (mode %04o); "
			 "run: chmod 600 %s",
			 path, (unsigned)(st.st_mode & 07777), path);
		return -EACCES;
	}
	return 0;
}

static int read_key_file(int fd, const char *path, char *buf, size_t cap, size_t *len, char *err,
			 size_t errlen)
{
	ssize_t n;

	*len = 0;
	for (;;) {
		n = read(fd, buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "PSK file %s: %s", path, strerror(errno));
			return -errno;
		}
		if (n == 0)
			return 0;
		*len += (size_t)n;
		if (*len == cap) {
			snprintf(err, errlen, "PSK file %s is too long for a 32-byte key", path);
			return -EINVAL;
		}
	}
}

int auth_key_load(const char *path, struct auth_key **key, char *err, size_t errlen)
{
	uint8_t *raw = NULL;
	char *text = NULL;
	size_t len = 0;
	int fd, ret;

	*key = NULL;
	if (auth_init() < 0) {
		snprintf(err, errlen, "libsodium failed to initialise");
		return -EIO;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "PSK file %s: %s", path, strerror(errno));
		return ret;
	}
	text = sodium_malloc(KEY_FILE_MAX);
	raw = sodium_malloc(AUTH_KEY_LEN);
	if (!text || !raw) {
		snprintf(err, errlen, "PSK file %s: out of memory", path);
		ret = -ENOMEM;
		goto out;
	}
	ret = check_file(fd, path, err, errlen);
	if (ret < 0)
		goto out;
	ret = read_key_file(fd, path, text, KEY_FILE_MAX, &len, err, errlen);
	if (ret < 0)
		goto out;
	if (!decode_key(text, len, raw)) {
		snprintf(err, errlen,
			 "PSK file %s does not hold a 32-byte key as base64 (44 characters) "
			 "or hex (64 digits)",
			 path);
		ret = -EINVAL;
		goto out;
	}
	ret = auth_key_from_bytes(raw, AUTH_KEY_LEN, key);
	if (ret < 0)
		snprintf(err, errlen, "PSK file %s: %s", path, strerror(-ret));
out:
	sodium_free(text);
	sodium_free(raw);
	close(fd);
	return ret;
}

void auth_nonce(uint8_t nonce[static AUTH_NONCE_LEN])
{
	(void)auth_init(); /* randombytes works without it, but seed it once */
	randombytes_buf(nonce, AUTH_NONCE_LEN);
}

void auth_proof(const struct auth_key *key, enum auth_role role,
		const uint8_t server_nonce[static AUTH_NONCE_LEN],
		const uint8_t client_nonce[static AUTH_NONCE_LEN], uint16_t version,
		uint8_t mac[static AUTH_MAC_LEN])
{
	crypto_auth_hmacsha512256_state st;
	const char *label = role == AUTH_SERVER ? label_server : label_client;
	uint8_t v[2];

	put_be16(v, version);
	/* crypto_auth() is HMAC-SHA-512-256; streamed so nothing is copied. */
	crypto_auth_hmacsha512256_init(&st, key->k, AUTH_KEY_LEN);
	crypto_auth_hmacsha512256_update(&st, (const uint8_t *)label, strlen(label));
	crypto_auth_hmacsha512256_update(&st, server_nonce, AUTH_NONCE_LEN);
	crypto_auth_hmacsha512256_update(&st, client_nonce, AUTH_NONCE_LEN);
	crypto_auth_hmacsha512256_update(&st, v, sizeof(v));
	crypto_auth_hmacsha512256_final(&st, mac);
	sodium_memzero(&st, sizeof(st));
}

int auth_verify(const struct auth_key *key, enum auth_role role,
		const uint8_t server_nonce[static AUTH_NONCE_LEN],
		const uint8_t client_nonce[static AUTH_NONCE_LEN], uint16_t version,
		const uint8_t mac[static AUTH_MAC_LEN])
{
	uint8_t want[AUTH_MAC_LEN];
	int ok;

	auth_proof(key, role, server_nonce, client_nonce, version, want);
	ok = sodium_memcmp(want, mac, AUTH_MAC_LEN) == 0;
	sodium_memzero(want, sizeof(want));
	return ok ? 0 : -EACCES;
}
