// SPDX-License-Identifier: MIT
/* mac1/mac2, cookie replies and load detection (see cookie.h). */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <sodium.h>

#include "bytes.h"
#include "cookie.h"

_Static_assert(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES == WIRE_COOKIE_NONCE_LEN, "nonce");
_Static_assert(crypto_generichash_BYTES_MIN <= WIRE_MAC_LEN, "mac length");
_Static_assert(crypto_generichash_KEYBYTES_MIN <= WIRE_COOKIE_LEN, "cookie as key");

void cookie_derive_key(uint8_t out[static WIRE_KEY_LEN], const char *label,
		       const uint8_t pub[static WIRE_KEY_LEN])
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, WIRE_KEY_LEN);
	crypto_generichash_update(&st, (const uint8_t *)label, strlen(label));
	crypto_generichash_update(&st, pub, WIRE_KEY_LEN);
	crypto_generichash_final(&st, out, WIRE_KEY_LEN);
}

static void mac(uint8_t out[static WIRE_MAC_LEN], const uint8_t *key, size_t keylen,
		const uint8_t *in, size_t inlen)
{
	crypto_generichash(out, WIRE_MAC_LEN, in, inlen, key, keylen);
}

/* Source address and port, as bytes the cookie covers. */
static size_t source_bytes(const struct sockaddr *src, socklen_t srclen, uint8_t out[18])
{
	if (src && src->sa_family == AF_INET && srclen >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)src;

		memcpy(out, &s4->sin_addr, 4);
		memcpy(out + 4, &s4->sin_port, 2);
		return 6;
	}
	if (src && src->sa_family == AF_INET6 && srclen >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)src;

		memcpy(out, &s6->sin6_addr, 16);
		memcpy(out + 16, &s6->sin6_port, 2);
		return 18;
	}
	return 0;
}

int cookie_checker_init(struct cookie_checker *c, const uint8_t our_pub[static WIRE_KEY_LEN])
{
	memset(c, 0, sizeof(*c));
	cookie_derive_key(c->mac1_key, WIRE_LABEL_MAC1, our_pub);
	cookie_derive_key(c->reply_key, WIRE_LABEL_COOKIE, our_pub);
	atomic_init(&c->load_window_start, 0);
	atomic_init(&c->load_count, 0);
	atomic_init(&c->under_load_until, 0);
	atomic_init(&c->forced_load, false);
	return -pthread_mutex_init(&c->lock, NULL);
}

void cookie_checker_destroy(struct cookie_checker *c)
{
	pthread_mutex_destroy(&c->lock);
	sodium_memzero(c->secret, sizeof(c->secret));
	sodium_memzero(c->mac1_key, sizeof(c->mac1_key));
	sodium_memzero(c->reply_key, sizeof(c->reply_key));
}

void cookie_maker_init(struct cookie_maker *m, const uint8_t peer_pub[static WIRE_KEY_LEN])
{
	memset(m, 0, sizeof(*m));
	cookie_derive_key(m->mac1_key, WIRE_LABEL_MAC1, peer_pub);
	cookie_derive_key(m->reply_key, WIRE_LABEL_COOKIE, peer_pub);
}

/* The cookie for src under the current secret (renewed when too old). */
static void make_cookie(struct cookie_checker *c, uint8_t out[static WIRE_COOKIE_LEN],
			const struct sockaddr *src, socklen_t srclen, uint64_t now)
{
	uint8_t addr[18];
	size_t alen = source_bytes(src, srclen, addr);

	pthread_mutex_lock(&c->lock);
	if (c->secret_birth == 0 ||
	    (now > c->secret_birth && now - c->secret_birth >= COOKIE_SECRET_MAX_AGE_NS)) {
		randombytes_buf(c->secret, sizeof(c->secret));
		c->secret_birth = now ? now : 1;
	}
	mac(out, c->secret, sizeof(c->secret), addr, alen);
	pthread_mutex_unlock(&c->lock);
}

enum cookie_verdict cookie_validate(struct cookie_checker *c, const uint8_t *msg, size_t len,
				    const struct sockaddr *src, socklen_t srclen, bool check_mac2,
				    uint64_t now)
{
	uint8_t want[WIRE_MAC_LEN], cookie[WIRE_COOKIE_LEN];
	size_t off1, off2;
	enum cookie_verdict v = COOKIE_BAD_MAC1;

	if (len < 2 * WIRE_MAC_LEN + 4)
		return COOKIE_BAD_MAC1;
	off1 = len - 2 * WIRE_MAC_LEN;
	off2 = len - WIRE_MAC_LEN;
	mac(want, c->mac1_key, sizeof(c->mac1_key), msg, off1);
	if (sodium_memcmp(want, msg + off1, WIRE_MAC_LEN) != 0)
		goto out;
	v = COOKIE_MAC1_OK;
	if (!check_mac2)
		goto out;
	make_cookie(c, cookie, src, srclen, now);
	mac(want, cookie, sizeof(cookie), msg, off2);
	if (sodium_memcmp(want, msg + off2, WIRE_MAC_LEN) == 0)
		v = COOKIE_MAC2_OK;
out:
	sodium_memzero(cookie, sizeof(cookie));
	return v;
}

int cookie_create_reply(struct cookie_checker *c, const uint8_t *msg, size_t len, uint32_t receiver,
			const struct sockaddr *src, socklen_t srclen, uint64_t now,
			uint8_t out[static WIRE_COOKIE_REPLY_LEN])
{
	uint8_t cookie[WIRE_COOKIE_LEN];

	if (len < 2 * WIRE_MAC_LEN + 4)
		return -EINVAL;
	memset(out, 0, WIRE_COOKIE_REPLY_LEN);
	out[0] = WIRE_TYPE_COOKIE;
	put_le32(out + WIRE_COOKIE_OFF_RECEIVER, receiver);
	randombytes_buf(out + WIRE_COOKIE_OFF_NONCE, WIRE_COOKIE_NONCE_LEN);
	make_cookie(c, cookie, src, srclen, now);
	crypto_aead_xchacha20poly1305_ietf_encrypt(out + WIRE_COOKIE_OFF_COOKIE, NULL, cookie,
						   sizeof(cookie), msg + len - 2 * WIRE_MAC_LEN,
						   WIRE_MAC_LEN, NULL, out + WIRE_COOKIE_OFF_NONCE,
						   c->reply_key);
	sodium_memzero(cookie, sizeof(cookie));
	return 0;
}

void cookie_add_macs(struct cookie_maker *m, uint8_t *msg, size_t len, uint64_t now)
{
	size_t off1 = len - 2 * WIRE_MAC_LEN, off2 = len - WIRE_MAC_LEN;

	mac(msg + off1, m->mac1_key, sizeof(m->mac1_key), msg, off1);
	memcpy(m->last_mac1, msg + off1, WIRE_MAC_LEN);
	m->have_last_mac1 = true;
	if (m->cookie_birth && now >= m->cookie_birth &&
	    now - m->cookie_birth < COOKIE_SECRET_MAX_AGE_NS - COOKIE_SECRET_LATENCY_NS)
		mac(msg + off2, m->cookie, sizeof(m->cookie), msg, off2);
	else
		memset(msg + off2, 0, WIRE_MAC_LEN);
}

int cookie_consume_reply(struct cookie_maker *m, const uint8_t msg[static WIRE_COOKIE_REPLY_LEN],
			 uint64_t now)
{
	uint8_t cookie[WIRE_COOKIE_LEN];
	int rc = -EBADMSG;

	if (!m->have_last_mac1)
		return -EBADMSG;
	if (crypto_aead_xchacha20poly1305_ietf_decrypt(
		    cookie, NULL, NULL, msg + WIRE_COOKIE_OFF_COOKIE,
		    WIRE_COOKIE_LEN + WIRE_TAG_LEN, m->last_mac1, WIRE_MAC_LEN,
		    msg + WIRE_COOKIE_OFF_NONCE, m->reply_key) == 0) {
		memcpy(m->cookie, cookie, sizeof(cookie));
		m->cookie_birth = now ? now : 1;
		m->have_last_mac1 = false;
		rc = 0;
	}
	sodium_memzero(cookie, sizeof(cookie));
	return rc;
}

void cookie_note_handshake(struct cookie_checker *c, uint64_t now)
{
	uint64_t start = atomic_load_explicit(&c->load_window_start, memory_order_relaxed);
	uint32_t n;

	if (now > start && now - start >= NSEC_PER_SEC) {
		atomic_store_explicit(&c->load_window_start, now, memory_order_relaxed);
		atomic_store_explicit(&c->load_count, 0, memory_order_relaxed);
	}
	n = atomic_fetch_add_explicit(&c->load_count, 1, memory_order_relaxed) + 1;
	if (n > COOKIE_LOAD_THRESHOLD_PER_SEC)
		atomic_store_explicit(&c->under_load_until, now + COOKIE_LOAD_HOLD_NS,
				      memory_order_relaxed);
}

bool cookie_under_load(struct cookie_checker *c, uint64_t now)
{
	return atomic_load_explicit(&c->forced_load, memory_order_relaxed) ||
	       now < atomic_load_explicit(&c->under_load_until, memory_order_relaxed);
}

void cookie_force_load(struct cookie_checker *c, bool on)
{
	atomic_store_explicit(&c->forced_load, on, memory_order_relaxed);
}
