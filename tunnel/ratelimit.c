// SPDX-License-Identifier: MIT
/* Handshake rate limits: per peer (fixed interval) and per source (token bucket). */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <sodium.h>

#include "clock.h"
#include "ratelimit.h"

#define PEER_INTERVAL_NS (NSEC_PER_SEC / RATELIMIT_PEER_PER_SEC)
#define PACKET_COST_NS	 (NSEC_PER_SEC / RATELIMIT_SOURCE_PER_SEC)
#define BUCKET_MAX_NS	 (PACKET_COST_NS * RATELIMIT_SOURCE_BURST)

_Static_assert((RATELIMIT_BUCKETS & (RATELIMIT_BUCKETS - 1)) == 0, "power of two");

bool ratelimit_peer_allow(struct ratelimit_peer *rl, uint64_t now)
{
	if (rl->last_ns && (now < rl->last_ns || now - rl->last_ns < PEER_INTERVAL_NS))
		return false;
	rl->last_ns = now ? now : 1;
	return true;
}

int ratelimit_init(struct ratelimit *rl)
{
	int rc;

	memset(rl, 0, sizeof(*rl));
	randombytes_buf(rl->key, sizeof(rl->key));
	rc = pthread_mutex_init(&rl->lock, NULL);
	return -rc;
}

void ratelimit_destroy(struct ratelimit *rl)
{
	pthread_mutex_destroy(&rl->lock);
	sodium_memzero(rl->key, sizeof(rl->key));
}

/* Address bytes that identify a source: IPv4 address or IPv6 /64, with the family. */
static size_t source_bytes(const struct sockaddr *src, socklen_t srclen, uint8_t out[9])
{
	if (src && src->sa_family == AF_INET && srclen >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)src;

		out[0] = 4;
		memcpy(out + 1, &s4->sin_addr, 4);
		return 5;
	}
	if (src && src->sa_family == AF_INET6 && srclen >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)src;

		out[0] = 6;
		memcpy(out + 1, &s6->sin6_addr, 8);
		return 9;
	}
	out[0] = 0;
	return 1;
}

bool ratelimit_allow(struct ratelimit *rl, const struct sockaddr *src, socklen_t srclen,
		     uint64_t now)
{
	uint8_t id[9], h[crypto_shorthash_BYTES];
	size_t idlen = source_bytes(src, srclen, id);
	struct ratelimit_bucket *b;
	uint64_t idx;
	bool ok;

	crypto_shorthash(h, id, idlen, rl->key);
	memcpy(&idx, h, sizeof(idx));
	b = &rl->buckets[idx & (RATELIMIT_BUCKETS - 1)];
	pthread_mutex_lock(&rl->lock);
	if (b->last_ns == 0) {
		b->tokens = BUCKET_MAX_NS;
	} else if (now > b->last_ns) {
		b->tokens += now - b->last_ns;
		if (b->tokens > BUCKET_MAX_NS)
			b->tokens = BUCKET_MAX_NS;
	}
	b->last_ns = now ? now : 1;
	ok = b->tokens >= PACKET_COST_NS;
	if (ok)
		b->tokens -= PACKET_COST_NS;
	pthread_mutex_unlock(&rl->lock);
	return ok;
}
