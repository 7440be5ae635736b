// SPDX-License-Identifier: MIT
/* Base64 keys, key generation, key files (0600 or stricter), hidden display. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "key.h"
#include "log.h"

/* Key file: one key plus whitespace; anything longer than this is not a key file. */
#define KEY_FILE_MAX 256

bool key_from_base64(uint8_t key[static KEY_LEN], const char *b64)
{
	const char *end;
	size_t bin_len = 0, n;
	uint8_t tmp[KEY_LEN + 4];
	bool ok = false;

	while (isspace((unsigned char)*b64))
		b64++;
	n = strlen(b64);
	while (n && isspace((unsigned char)b64[n - 1]))
		n--;
	if (n != KEY_B64_LEN || b64[KEY_B64_LEN - 1] != '=')
		return false;
	if (sodium_base642bin(tmp, sizeof(tmp), b64, n, NULL, &bin_len, &end,
			      sodium_base64_VARIANT_ORIGINAL) == 0 &&
	    bin_len == KEY_LEN && end == b64 + n) {
		memcpy(key, tmp, KEY_LEN);
		ok = true;
	}
	sodium_memzero(tmp, sizeof(tmp));
	return ok;
}

void key_to_base64(char out[static KEY_B64_LEN + 1], const uint8_t key[static KEY_LEN])
{
	sodium_bin2base64(out, KEY_B64_LEN + 1, key, KEY_LEN, sodium_base64_VARIANT_ORIGINAL);
}

void key_generate(uint8_t priv[static KEY_LEN])
{
	randombytes_buf(priv, KEY_LEN);
	priv[0] &= 248;
	priv[31] = (priv[31] & 127) | 64;
}

int key_public(uint8_t pub[static KEY_LEN], const uint8_t priv[static KEY_LEN])
{
	return crypto_scalarmult_base(pub, priv) == 0 ? 0 : -EINVAL;
}

uint8_t *key_alloc(void)
{
	uint8_t *k = sodium_malloc(KEY_LEN);

	if (k)
		sodium_memzero(k, KEY_LEN);
	return k;
}

void key_free(uint8_t *key)
{
	sodium_free(key); /* wipes; NULL is fine */
}

static int read_all(int fd, char *buf, size_t cap, size_t *len)
{
	ssize_t r;

	*len = 0;
	for (;;) {
		r = read(fd, buf + *len, cap - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return 0;
		*len += (size_t)r;
		if (*len == cap)
			return -EFBIG;
	}
}

int key_read_file(const char *path, uint8_t **out)
{
	struct stat st;
	char *text = NULL;
	uint8_t *key = NULL;
	size_t len = 0;
	int fd, rc;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		rc = -errno;
		log_err("%s: %s", path, strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		log_err("%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		log_err("%s: not a regular file", path);
		goto out;
	}
	if (st.st_mode & 077) {
		rc = -EPERM;
		log_err("%s: key file mode %04o gives access to group or others; "
			"chmod 600 it",
			path, (unsigned)(st.st_mode & 07777));
		goto out;
	}
	text = sodium_malloc(KEY_FILE_MAX + 1);
	key = key_alloc();
	if (!text || !key) {
		rc = -ENOMEM;
		goto out;
	}
	rc = read_all(fd, text, KEY_FILE_MAX, &len);
	if (rc < 0) {
		log_err("%s: %s", path, rc == -EFBIG ? "too long for a key file" : strerror(-rc));
		goto out;
	}
	text[len] = '\0';
	if (memchr(text, '\0', len) || !key_from_base64(key, text)) {
		rc = -EINVAL;
		log_err("%s: not a base64 %d-byte key", path, KEY_LEN);
		goto out;
	}
	*out = key;
	key = NULL;
	rc = 0;
out:
	if (text)
		sodium_free(text); /* wipes */
	key_free(key);
	close(fd);
	return rc;
}

int key_write_file(const char *path, const uint8_t key[static KEY_LEN])
{
	char b64[KEY_B64_LEN + 2];
	size_t off = 0;
	ssize_t w;
	int fd, rc = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		rc = -errno;
		log_err("%s: %s", path, strerror(errno));
		return rc;
	}
	key_to_base64(b64, key);
	b64[KEY_B64_LEN] = '\n';
	while (off < KEY_B64_LEN + 1) {
		w = write(fd, b64 + off, KEY_B64_LEN + 1 - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			rc = -errno;
			log_err("%s: %s", path, strerror(errno));
			break;
		}
		off += (size_t)w;
	}
	sodium_memzero(b64, sizeof(b64));
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc < 0)
		unlink(path);
	return rc;
}

const char *key_display(char buf[static KEY_B64_LEN + 1], const uint8_t key[static KEY_LEN],
			bool show)
{
	if (!show)
		return KEY_HIDDEN;
	key_to_base64(buf, key);
	return buf;
}
