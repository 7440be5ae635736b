// SPDX-License-Identifier: MIT
/* The fastest data AEAD on this host, measured once at start (aead_host.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aead_host.h"

#define MSG_LEN	   1440 /* a full-size inner packet on a 1500-byte underlay */
#define ROUND_MSGS 32	/* one round: 32 seals and 32 opens, about 10-40 us */
#define ROUNDS	   8	/* the best round counts: the host is shared */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Gbit/s of the best round of seal+open with (c, impl), or 0 if it fails. */
static double measure_one(enum aead_cipher c, enum aead_impl impl)
{
	struct aead_key *k = sodium_malloc(sizeof(*k));
	uint8_t key[WIRE_KEY_LEN], ad[WIRE_DATA_HEADER_LEN] = { WIRE_TYPE_DATA };
	uint8_t *buf = malloc(MSG_LEN + WIRE_TAG_LEN);
	double best = 0;
	int bad = 0;

	if (!k || !buf)
		goto out;
	randombytes_buf(key, sizeof(key));
	memset(buf, 0x5a, MSG_LEN + WIRE_TAG_LEN);
	if (aead_key_init(k, c, impl, key) < 0)
		goto out;
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_s(), dt;

		for (uint64_t n = 0; n < ROUND_MSGS; n++) {
			aead_seal(k, n, ad, sizeof(ad), buf, MSG_LEN, buf + MSG_LEN);
			bad |= aead_open(k, n, ad, sizeof(ad), buf, MSG_LEN, buf + MSG_LEN);
		}
		dt = now_s() - t0;
		if (dt > 0 && 2.0 * ROUND_MSGS * MSG_LEN * 8 / dt / 1e9 > best)
			best = 2.0 * ROUND_MSGS * MSG_LEN * 8 / dt / 1e9;
	}
	if (bad)
		best = 0; /* an implementation that does not open its own seal is not used */
out:
	if (k)
		aead_key_wipe(k);
	sodium_free(k);
	free(buf);
	sodium_memzero(key, sizeof(key));
	return best;
}

int aead_host_measure(struct aead_host *h)
{
	memset(h, 0, sizeof(*h));
	for (int c = 1; c <= AEAD_CIPHERS; c++)
		for (int i = 1; i <= AEAD_IMPLS; i++)
			if (aead_impl_available((enum aead_cipher)c, (enum aead_impl)i))
				h->gbps[c][i] = measure_one((enum aead_cipher)c, (enum aead_impl)i);
	aead_host_rank(h);
	return h->order.n ? 0 : -ENOMEM;
}

void aead_host_rank(struct aead_host *h)
{
	static const enum aead_cipher tie_order[] = { AEAD_CHACHA20POLY1305, AEAD_AES256GCM };
	double best[AEAD_CIPHERS + 1] = { 0 };

	memset(&h->order, 0, sizeof(h->order));
	for (int c = 1; c <= AEAD_CIPHERS; c++) {
		h->impl[c] = AEAD_IMPL_NONE;
		for (int i = 1; i <= AEAD_IMPLS; i++)
			if (h->gbps[c][i] > best[c]) {
				best[c] = h->gbps[c][i];
				h->impl[c] = (enum aead_impl)i;
			}
	}
	/* Insertion by speed; equal speeds keep tie_order. */
	for (size_t t = 0; t < sizeof(tie_order) / sizeof(tie_order[0]); t++) {
		enum aead_cipher c = tie_order[t];
		unsigned at = h->order.n;

		if (best[c] <= 0)
			continue;
		while (at > 0 && best[h->order.c[at - 1]] < best[c]) {
			h->order.c[at] = h->order.c[at - 1];
			at--;
		}
		h->order.c[at] = c;
		h->order.n++;
	}
}

int aead_host_offer(const struct aead_host *h, const struct cipher_list *cfg,
		    struct cipher_list *out)
{
	memset(out, 0, sizeof(*out));
	if (!cfg->n) {
		*out = h->order;
		return out->n ? 0 : -ENOTSUP;
	}
	for (unsigned i = 0; i < cfg->n; i++)
		if (h->impl[cfg->c[i]] != AEAD_IMPL_NONE)
			out->c[out->n++] = cfg->c[i];
	return out->n ? 0 : -ENOTSUP;
}
