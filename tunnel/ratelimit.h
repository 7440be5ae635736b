/* SPDX-License-Identifier: MIT */
/*
 * Handshake rate limits, pure and allocation-free after init.
 *
 * Per peer: a responder consumes at most RATELIMIT_PEER_PER_SEC initiations
 * per second from one peer (WireGuard's INITIATIONS_PER_SECOND); an
 * initiation arriving sooner is dropped (replay of a fresh initiation cannot
 * flood the DH computations).
 *
 * Per source, used only under load: a token bucket per source address
 * (RATELIMIT_SOURCE_PER_SEC, burst RATELIMIT_SOURCE_BURST) in a fixed table of
 * buckets indexed by a keyed hash (SipHash, random key) of the address, so a
 * flood from one address cannot starve the others. Colliding addresses share
 * a bucket (fail safe: they are limited together). IPv6 sources are limited
 * per /64.
 *
 * Thread safety: a struct ratelimit is used by the receive thread(s) under
 * its own mutex (taken only for handshake messages under load).
 */
#ifndef OVLPERF_TUNNEL_RATELIMIT_H
#define OVLPERF_TUNNEL_RATELIMIT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define RATELIMIT_PEER_PER_SEC	 50
#define RATELIMIT_SOURCE_PER_SEC 20
#define RATELIMIT_SOURCE_BURST	 5
#define RATELIMIT_BUCKETS	 8192

/* Per peer: last initiation consumed. */
struct ratelimit_peer {
	uint64_t last_ns; /* 0 = never */
};

/* Whether a peer's initiation may be consumed at now; if so records it. */
bool ratelimit_peer_allow(struct ratelimit_peer *rl, uint64_t now);

struct ratelimit_bucket {
	uint64_t last_ns;
	uint64_t tokens; /* in units of 1/RATELIMIT_SOURCE_PER_SEC s, scaled ns */
};

struct ratelimit {
	pthread_mutex_t lock;
	uint8_t key[16];
	struct ratelimit_bucket buckets[RATELIMIT_BUCKETS];
};

/* 0 or -errno. */
int ratelimit_init(struct ratelimit *rl);
void ratelimit_destroy(struct ratelimit *rl);
/* Whether a handshake message from src may be processed at now (consumes a token). */
bool ratelimit_allow(struct ratelimit *rl, const struct sockaddr *src, socklen_t srclen,
		     uint64_t now);

#endif
