/* SPDX-License-Identifier: MIT */
/*
 * 32-byte X25519 keys: base64 text (44 characters, standard alphabet, one
 * '=' of padding, as wg(8) prints them), generation, public-from-private,
 * and key files. Private keys and pre-shared keys live in sodium_malloc
 * memory (guard pages, mlocked, wiped on free) and print as "(hidden)".
 */
#ifndef OVLPERF_TUNNEL_KEY_H
#define OVLPERF_TUNNEL_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KEY_LEN	    32
#define KEY_B64_LEN 44 /* characters, without the terminating NUL */
#define KEY_HIDDEN  "(hidden)"

/* Decodes exactly one 44-character base64 key (surrounding whitespace allowed). */
bool key_from_base64(uint8_t key[static KEY_LEN], const char *b64)
	__attribute__((warn_unused_result));
void key_to_base64(char out[static KEY_B64_LEN + 1], const uint8_t key[static KEY_LEN]);

/* A new private key: 32 random bytes, clamped for X25519. */
void key_generate(uint8_t priv[static KEY_LEN]);
/* The public key of priv. 0, or -EINVAL for a key that gives the zero point. */
int key_public(uint8_t pub[static KEY_LEN], const uint8_t priv[static KEY_LEN])
	__attribute__((warn_unused_result));

/*
 * A fresh KEY_LEN-byte buffer in sodium_malloc memory (NULL if out of
 * memory); key_free() wipes and releases it (NULL is fine).
 */
uint8_t *key_alloc(void);
void key_free(uint8_t *key);

/*
 * Reads a base64 key file (a private or pre-shared key) into a key_alloc()
 * buffer. Refuses, naming the file, a file that is not a regular file or
 * whose mode grants any access to group or others (must be 0600 or
 * stricter), or whose content is not exactly one key (plus whitespace).
 * Returns 0 (*out set) or -errno (-EPERM for the mode, -EINVAL for content);
 * the reason is logged with the path, never with key bytes.
 */
int key_read_file(const char *path, uint8_t **out) __attribute__((warn_unused_result));

/*
 * Writes a key as base64 plus newline to a new file created with mode 0600
 * (O_EXCL: never overwrites). 0 or -errno.
 */
int key_write_file(const char *path, const uint8_t key[static KEY_LEN]);

/*
 * Text for displaying a key: KEY_HIDDEN unless show, else its base64 in buf.
 * Returns a pointer to a constant or to buf.
 */
const char *key_display(char buf[static KEY_B64_LEN + 1], const uint8_t key[static KEY_LEN],
			bool show);

#endif
