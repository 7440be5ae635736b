/* SPDX-License-Identifier: MIT */
/*
 * Which data AEAD is fastest on this host: a short measurement at start
 * (a few ms: seal and open of 1440-byte messages, the best of a few rounds,
 * each cipher with each implementation that runs here), kept for the life
 * of the process. The implementation per cipher is ours alone to choose (the
 * bytes are the same); the order of the ciphers becomes our offer when the
 * configuration says "auto" (negotiate.h).
 */
#ifndef OVLPERF_TUNNEL_AEAD_HOST_H
#define OVLPERF_TUNNEL_AEAD_HOST_H

#include <stdbool.h>

#include "aead.h"
#include "negotiate.h"

struct aead_host {
	/* Gbit/s of plaintext, seal and open each counted, on one core; 0: not here. */
	double gbps[AEAD_CIPHERS + 1][AEAD_IMPLS + 1];
	enum aead_impl impl[AEAD_CIPHERS + 1]; /* the fastest per cipher */
	struct cipher_list order;	       /* ciphers, fastest first */
};

/* Measures every (cipher, implementation) here, then aead_host_rank(). 0 or -ENOMEM. */
int aead_host_measure(struct aead_host *h);
/*
 * From h->gbps alone: the fastest implementation per cipher (a tie keeps
 * libsodium) and the ciphers in order of their best speed (a tie keeps
 * ChaCha20-Poly1305 first, WireGuard's). Pure, for tests.
 */
void aead_host_rank(struct aead_host *h);
/*
 * The offer: cfg if it names ciphers (those that run here, its order), else
 * h->order. -ENOTSUP if none of cfg's runs here.
 */
int aead_host_offer(const struct aead_host *h, const struct cipher_list *cfg,
		    struct cipher_list *out);

#endif
