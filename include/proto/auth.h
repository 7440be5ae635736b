/* SPDX-License-Identifier: MIT */
/*
 * Pre-shared-key challenge-response for the control connection, both ways:
 *   server -> client  server_nonce (32 random bytes)
 *   client -> server  client_nonce, client proof
 *   server -> client  server proof
 * proof = crypto_auth(key, label || server_nonce || client_nonce || version_be16)
 * with label "ovlperf-client-v1" or "ovlperf-server-v1", so that neither side
 * can be made to answer its own challenge (reflection). Proofs are compared
 * with sodium_memcmp; the key lives in sodium_malloc memory and is wiped.
 *
 * The PSK file holds 32 bytes as base64 (44 characters, like `wg genkey`) or
 * as 64 hex digits, optionally followed by whitespace; generate one with
 *     head -c 32 /dev/urandom | base64 > psk && chmod 600 psk
 * It must be a regular file not readable or writable by group or others.
 */
#ifndef OVLPERF_AUTH_H
#define OVLPERF_AUTH_H

#include <stddef.h>
#include <stdint.h>

/* The PSK file format as `--help` of server, client and run explains it. */
#define AUTH_PSK_FILE_HELP                                                                         \
	"PSK file: 32 random bytes as base64 (44 characters, like 'wg genkey') or as\n"            \
	"64 hex digits, optionally followed by whitespace (a newline); a regular file\n"           \
	"that group and others can neither read nor write (chmod 600). Both ends use\n"            \
	"the same key. Make one with\n"                                                            \
	"    head -c 32 /dev/urandom | base64 > psk && chmod 600 psk\n"

#define AUTH_KEY_LEN   32
#define AUTH_NONCE_LEN 32
#define AUTH_MAC_LEN   32

struct auth_key; /* opaque, in sodium_malloc memory */

/* Calls sodium_init() once; 0 or -EIO. Every function below calls it. */
int auth_init(void);

/* Loads a PSK file. On failure returns -errno (-EACCES for bad permissions,
 * -EINVAL for a bad format) and leaves a sentence naming the file in err. */
int auth_key_load(const char *path, struct auth_key **key, char *err, size_t errlen);
/* From raw bytes (len must be AUTH_KEY_LEN); 0, -EINVAL or -ENOMEM. */
int auth_key_from_bytes(const uint8_t *bytes, size_t len, struct auth_key **key);
/* Wipes and frees; NULL is fine. */
void auth_key_free(struct auth_key *key);

/* Fills a nonce from the system CSPRNG. */
void auth_nonce(uint8_t nonce[static AUTH_NONCE_LEN]);

enum auth_role { AUTH_CLIENT = 1, AUTH_SERVER = 2 };

/* The proof of role over the two nonces and the protocol version. */
void auth_proof(const struct auth_key *key, enum auth_role role,
		const uint8_t server_nonce[static AUTH_NONCE_LEN],
		const uint8_t client_nonce[static AUTH_NONCE_LEN], uint16_t version,
		uint8_t mac[static AUTH_MAC_LEN]);
/* 0 when mac is role's proof, -EACCES otherwise (constant time). */
__attribute__((warn_unused_result)) int
auth_verify(const struct auth_key *key, enum auth_role role,
	    const uint8_t server_nonce[static AUTH_NONCE_LEN],
	    const uint8_t client_nonce[static AUTH_NONCE_LEN], uint16_t version,
	    const uint8_t mac[static AUTH_MAC_LEN]);

#endif
