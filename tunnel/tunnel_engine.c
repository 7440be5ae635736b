// SPDX-License-Identifier: MIT
/*
 * The protocol engine: device and peer state, keypair life cycle. Sealing,
 * staging, initiations and timers are tunnel_engine_tx.c; the receive dispatcher is
 * tunnel_engine_rx.c.
 * Threading rules are in tunnel_engine.h; lock order is peer->lock, then the index
 * table's lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "bytes.h"
#include "clock.h"
#include "tunnel_engine_impl.h"
#include "log.h"

static const char *const drop_names[ENGINE_DROP__COUNT] = {
	[ENGINE_DROP_NONE] = "none",
	[ENGINE_DROP_MALFORMED] = "malformed",
	[ENGINE_DROP_MAC1] = "bad_mac1",
	[ENGINE_DROP_UNDER_LOAD] = "under_load",
	[ENGINE_DROP_RATELIMIT] = "ratelimit",
	[ENGINE_DROP_UNKNOWN_PEER] = "unknown_peer",
	[ENGINE_DROP_HANDSHAKE] = "handshake_failed",
	[ENGINE_DROP_TIMESTAMP] = "stale_timestamp",
	[ENGINE_DROP_UNKNOWN_INDEX] = "unknown_index",
	[ENGINE_DROP_STATE] = "no_pending_handshake",
	[ENGINE_DROP_DECRYPT] = "decrypt",
	[ENGINE_DROP_REPLAY] = "replay",
	[ENGINE_DROP_KEY_EXPIRED] = "key_expired",
	[ENGINE_DROP_BAD_INNER] = "bad_inner_packet",
	[ENGINE_DROP_NO_SESSION] = "no_session",
	[ENGINE_DROP_TOO_BIG] = "too_big",
	[ENGINE_DROP_COOKIE] = "bad_cookie",
	[ENGINE_DROP_NO_SLOT] = "no_slot",
	[ENGINE_DROP_NO_CIPHER] = "no_cipher",
};

const char *engine_drop_name(enum engine_drop d)
{
	return (unsigned)d < ENGINE_DROP__COUNT ? drop_names[d] : "?";
}

void engine_count_drop(struct engine *e, enum engine_drop d)
{
	if ((unsigned)d < ENGINE_DROP__COUNT)
		atomic_fetch_add_explicit(&e->drops[d], 1, memory_order_relaxed);
}

void engine_rng(struct engine *e, void *buf, size_t len)
{
	if (e->rng)
		e->rng(e->rng_ctx, buf, len);
	else
		randombytes_buf(buf, len);
}

void engine_rng_cb(void *ctx, void *buf, size_t len)
{
	engine_rng(ctx, buf, len);
}

void engine_result_reset(struct engine_result *res)
{
	res->op = ENGINE_DONE;
	res->drop = ENGINE_DROP_NONE;
	res->peer = NULL;
	res->ctrl_to_source = false;
	res->flush = false;
	res->ctrl_len = 0;
}

/* ---- device ---- */

static size_t pub_slot(const struct engine *e, const uint8_t pub[static WIRE_KEY_LEN])
{
	uint8_t h[crypto_shorthash_BYTES];
	uint64_t v;

	crypto_shorthash(h, pub, WIRE_KEY_LEN, e->hash_key);
	memcpy(&v, h, sizeof(v));
	return (size_t)v & e->by_pub_mask;
}

struct engine_peer *engine_peer_by_pub(struct engine *e, const uint8_t pub[static WIRE_KEY_LEN])
{
	size_t i = pub_slot(e, pub);

	while (e->by_pub[i]) {
		if (sodium_memcmp(e->by_pub[i]->remote.pub, pub, WIRE_KEY_LEN) == 0)
			return e->by_pub[i];
		i = (i + 1) & e->by_pub_mask;
	}
	return NULL;
}

/* The memory of an engine whose parts are not (or no longer) initialised;
 * sodium_free() wipes the key material. NULL parts are fine. */
static void engine_free_mem(struct engine *e)
{
	sodium_free(e->local);
	sodium_free(e->cookie);
	free(e->rl);
	free(e->by_pub);
	free(e->peers);
	free(e);
}

static int engine_alloc(const struct engine_config *cfg, struct engine **out)
{
	struct engine *e = calloc(1, sizeof(*e));
	size_t slots = 16;

	if (!e)
		return -ENOMEM;
	e->mtu = cfg->mtu;
	e->max_peers = cfg->max_peers ? cfg->max_peers : 64;
	e->rng = cfg->rng;
	e->rng_ctx = cfg->rng_ctx;
	e->tai64n = cfg->tai64n;
	randombytes_buf(e->hash_key, sizeof(e->hash_key));
	while (slots < 2 * e->max_peers)
		slots <<= 1;
	e->by_pub_mask = slots - 1;
	e->by_pub = calloc(slots, sizeof(*e->by_pub));
	e->peers = calloc(e->max_peers, sizeof(*e->peers));
	e->local = sodium_malloc(sizeof(*e->local));
	e->cookie = sodium_malloc(sizeof(*e->cookie));
	e->rl = malloc(sizeof(*e->rl));
	if (!e->by_pub || !e->peers || !e->local || !e->cookie || !e->rl) {
		engine_free_mem(e);
		return -ENOMEM;
	}
	*out = e;
	return 0;
}

/* Without a measurement: libsodium, AES-256-GCM first where the CPU runs it. */
static void host_libsodium(struct aead_host *h)
{
	memset(h, 0, sizeof(*h));
	h->gbps[AEAD_CHACHA20POLY1305][AEAD_IMPL_LIBSODIUM] = 1;
	if (aead_aes_available())
		h->gbps[AEAD_AES256GCM][AEAD_IMPL_LIBSODIUM] = 2;
	aead_host_rank(h);
}

int engine_new(const struct engine_config *cfg, struct engine **out)
{
	struct engine *e;
	struct cipher_list offer;
	int rc;

	*out = NULL;
	if (!cfg->private_key || cfg->mtu < 68 || cfg->mtu > WIRE_MAX_PLAINTEXT)
		return -EINVAL;
	rc = engine_alloc(cfg, &e);
	if (rc < 0)
		return rc;
	if (cfg->host)
		e->host = *cfg->host;
	else
		host_libsodium(&e->host);
	rc = aead_host_offer(&e->host, &cfg->ciphers, &offer);
	if (rc == 0)
		rc = noise_local_init(e->local, cfg->private_key, &offer);
	if (rc < 0)
		goto free_mem;
	rc = cookie_checker_init(e->cookie, e->local->pub);
	if (rc < 0)
		goto free_mem;
	rc = ratelimit_init(e->rl);
	if (rc < 0)
		goto destroy_cookie;
	rc = index_table_init(&e->idx, e->max_peers * (ENGINE_KEYPAIRS + 1));
	if (rc < 0)
		goto destroy_ratelimit;
	*out = e;
	return 0;

destroy_ratelimit:
	ratelimit_destroy(e->rl);
destroy_cookie:
	cookie_checker_destroy(e->cookie);
free_mem:
	engine_free_mem(e);
	return rc;
}

static void peer_free(struct engine_peer *p)
{
	pthread_mutex_destroy(&p->lock);
	if (p->staged) {
		sodium_memzero(p->staged, (size_t)p->e->mtu * ENGINE_STAGED_MAX);
		free(p->staged);
	}
	/* The keys' OpenSSL contexts are outside p: free them before the wipe. */
	for (int i = 0; i < ENGINE_KEYPAIRS; i++) {
		aead_key_wipe(&p->kp[i].send);
		aead_key_wipe(&p->kp[i].recv);
	}
	sodium_free(p); /* wipes keys, handshake, psk */
}

/* The ladder of engine_new() in full, after the peers. */
void engine_free(struct engine *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->npeers; i++)
		peer_free(e->peers[i]);
	index_table_destroy(&e->idx);
	ratelimit_destroy(e->rl);
	cookie_checker_destroy(e->cookie);
	engine_free_mem(e);
}

enum aead_cipher engine_cipher(const struct engine *e)
{
	return e->local->ciphers.c[0];
}

const struct cipher_list *engine_offer(const struct engine *e)
{
	return &e->local->ciphers;
}

const struct aead_host *engine_host(const struct engine *e)
{
	return &e->host;
}

void engine_public_key(const struct engine *e, uint8_t pub[static WIRE_KEY_LEN])
{
	memcpy(pub, e->local->pub, WIRE_KEY_LEN);
}

void engine_force_load(struct engine *e, bool on)
{
	cookie_force_load(e->cookie, on);
}

void engine_stats(struct engine *e, uint64_t now, struct engine_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (int i = 0; i < ENGINE_DROP__COUNT; i++)
		st->drops[i] = atomic_load_explicit(&e->drops[i], memory_order_relaxed);
	st->cookies_sent = atomic_load_explicit(&e->cookies_sent, memory_order_relaxed);
	st->under_load = cookie_under_load(e->cookie, now);
}

/* ---- peers ---- */

int engine_peer_add(struct engine *e, const struct engine_peer_config *pc, struct engine_peer **out)
{
	struct engine_peer *p;
	size_t i;
	int rc;

	*out = NULL;
	if (!pc->public_key || sodium_memcmp(pc->public_key, e->local->pub, WIRE_KEY_LEN) == 0)
		return -EINVAL;
	if (engine_peer_by_pub(e, pc->public_key))
		return -EEXIST;
	if (e->npeers >= e->max_peers)
		return -ENOSPC;
	p = sodium_malloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p, 0, sizeof(*p));
	p->e = e;
	p->user = pc->user;
	rc = noise_remote_init(&p->remote, e->local, pc->public_key, pc->psk);
	if (rc < 0) {
		sodium_free(p);
		return rc;
	}
	p->staged = malloc((size_t)e->mtu * ENGINE_STAGED_MAX);
	if (!p->staged) {
		sodium_free(p);
		return -ENOMEM;
	}
	rc = pthread_mutex_init(&p->lock, NULL);
	if (rc) {
		free(p->staged);
		sodium_free(p);
		return -rc;
	}
	cookie_maker_init(&p->cookie, pc->public_key);
	timers_init(&p->timers, (uint64_t)pc->persistent_keepalive_s * NSEC_PER_SEC);
	for (i = 0; i < ENGINE_KEYPAIRS; i++) {
		p->kp[i].peer = p;
		atomic_flag_clear(&p->kp[i].replay_busy);
		atomic_store(&p->kp[i].state, KP_FREE);
	}
	i = pub_slot(e, pc->public_key);
	while (e->by_pub[i])
		i = (i + 1) & e->by_pub_mask;
	e->by_pub[i] = p;
	e->peers[e->npeers++] = p;
	*out = p;
	return 0;
}

void *engine_peer_user(const struct engine_peer *p)
{
	return p->user;
}

/* ---- keypairs ---- */

static void keypair_wipe(struct keypair *kp)
{
	aead_key_wipe(&kp->send);
	aead_key_wipe(&kp->recv);
	replay_init(&kp->replay);
	atomic_store(&kp->send_counter, 0);
	kp->created = 0;
	kp->local_index = kp->remote_index = 0;
	atomic_store_explicit(&kp->state, KP_FREE, memory_order_release);
}

/* Whoever moves RELEASED -> WIPING wipes: the releaser or the last holder. */
static void keypair_try_wipe(struct keypair *kp)
{
	int expect = KP_RELEASED;

	if (atomic_load(&kp->refs) == 0 &&
	    atomic_compare_exchange_strong(&kp->state, &expect, KP_WIPING))
		keypair_wipe(kp);
}

struct keypair *keypair_get(struct keypair *kp)
{
	atomic_fetch_add(&kp->refs, 1);
	return kp;
}

void keypair_put(struct keypair *kp)
{
	if (atomic_fetch_sub(&kp->refs, 1) == 1)
		keypair_try_wipe(kp);
}

/* Peer lock held. */
static void keypair_release(struct engine_peer *p, struct keypair *kp)
{
	if (!kp)
		return;
	index_table_wrlock(&p->e->idx);
	index_table_remove(&p->e->idx, kp->local_index);
	atomic_store(&kp->state, KP_RELEASED);
	index_table_unlock(&p->e->idx);
	keypair_try_wipe(kp);
}

static struct keypair *keypair_alloc(struct engine_peer *p)
{
	for (int i = 0; i < ENGINE_KEYPAIRS; i++)
		if (atomic_load_explicit(&p->kp[i].state, memory_order_acquire) == KP_FREE &&
		    atomic_load(&p->kp[i].refs) == 0)
			return &p->kp[i];
	return NULL;
}

bool keypair_usable(struct keypair *kp, uint64_t now)
{
	return kp && atomic_load_explicit(&kp->confirmed, memory_order_acquire) &&
	       timers_keypair_valid(kp->created, now, atomic_load(&kp->send_counter));
}

/* Peer lock held: drop the pending handshake and its index. */
void peer_handshake_clear(struct engine_peer *p)
{
	if (p->hs.state != NOISE_HS_ZEROED) {
		index_table_wrlock(&p->e->idx);
		index_table_remove(&p->e->idx, p->hs.local_index);
		index_table_unlock(&p->e->idx);
	}
	sodium_memzero(&p->hs, sizeof(p->hs));
}

int peer_begin_session(struct engine_peer *p, struct noise_handshake *hs, uint64_t now)
{
	struct engine *e = p->e;
	struct noise_keys keys;
	struct keypair *kp = keypair_alloc(p);
	uint32_t index = hs->local_index;
	int rc;

	if (!kp) {
		peer_handshake_clear(p);
		return -ENOSPC;
	}
	rc = noise_derive_keys(hs, &keys);
	if (rc == 0)
		rc = aead_key_init(&kp->send, keys.cipher, e->host.impl[keys.cipher], keys.send);
	if (rc == 0)
		rc = aead_key_init(&kp->recv, keys.cipher, e->host.impl[keys.cipher], keys.recv);
	if (rc < 0) {
		sodium_memzero(&keys, sizeof(keys));
		keypair_wipe(kp);
		index_table_wrlock(&e->idx);
		index_table_remove(&e->idx, index);
		index_table_unlock(&e->idx);
		return rc;
	}
	replay_init(&kp->replay);
	atomic_store(&kp->send_counter, 0);
	kp->created = now;
	kp->local_index = keys.local_index;
	kp->remote_index = keys.remote_index;
	kp->initiator = keys.initiator;
	kp->negotiated = keys.negotiated;
	atomic_store(&kp->confirmed, keys.initiator);
	atomic_store(&kp->lastminute, false);
	sodium_memzero(&keys, sizeof(keys));
	atomic_store_explicit(&kp->state, KP_LIVE, memory_order_release);
	index_table_wrlock(&e->idx);
	rc = index_table_replace(&e->idx, kp->local_index, INDEX_KEYPAIR, kp);
	index_table_unlock(&e->idx);
	if (rc < 0) {
		atomic_store(&kp->state, KP_RELEASED);
		keypair_try_wipe(kp);
		return rc;
	}

	if (kp->initiator) {
		if (p->next) {
			keypair_release(p, p->previous);
			p->previous = p->next;
			p->next = NULL;
			keypair_release(p, p->current);
		} else {
			keypair_release(p, p->previous);
			p->previous = p->current;
		}
		p->current = kp;
		timers_on_handshake_complete(&p->timers);
	} else {
		keypair_release(p, p->next);
		p->next = kp;
		keypair_release(p, p->previous);
		p->previous = NULL;
	}
	timers_on_session_derived(&p->timers, now);
	atomic_fetch_add(&p->handshakes, 1);
	atomic_store(&p->last_handshake_realtime, clock_realtime_ns());
	return 0;
}

void peer_confirm_next(struct engine_peer *p, struct keypair *kp)
{
	if (p->next != kp)
		return;
	keypair_release(p, p->previous);
	p->previous = p->current;
	p->current = kp;
	p->next = NULL;
	timers_on_handshake_complete(&p->timers);
}

void peer_zero_keys(struct engine_peer *p)
{
	keypair_release(p, p->current);
	keypair_release(p, p->previous);
	keypair_release(p, p->next);
	p->current = p->previous = p->next = NULL;
	peer_handshake_clear(p);
}

void engine_peer_stats(struct engine_peer *p, uint64_t now, struct engine_peer_stats *st)
{
	st->rx_packets = atomic_load(&p->rx_packets);
	st->rx_bytes = atomic_load(&p->rx_bytes);
	st->tx_packets = atomic_load(&p->tx_packets);
	st->tx_bytes = atomic_load(&p->tx_bytes);
	st->handshakes = atomic_load(&p->handshakes);
	st->last_handshake_realtime_ns = atomic_load(&p->last_handshake_realtime);
	pthread_mutex_lock(&p->lock);
	st->has_session = keypair_usable(p->current, now);
	st->cipher = p->current ? p->current->send.cipher : AEAD_AUTO;
	st->impl = p->current ? p->current->send.impl : AEAD_IMPL_NONE;
	st->negotiated = p->current && p->current->negotiated;
	pthread_mutex_unlock(&p->lock);
}
