// SPDX-License-Identifier: MIT
/*
 * The engine's sending side: sealing batches in place, staging packets until
 * a session exists, handshake initiations, keepalives and the timers that
 * drive them. Threading rules are in tunnel_engine.h.
 */
#include <string.h>

#include <sodium.h>

#include "bytes.h"
#include "clock.h"
#include "tunnel_engine_impl.h"

/* ---- sending ---- */

uint32_t engine_peer_pad_mtu(const struct engine_peer *p)
{
	uint32_t m = atomic_load_explicit(&p->pad_mtu, memory_order_relaxed);

	return m && m < p->e->mtu ? m : p->e->mtu;
}

void engine_peer_set_pad_mtu(struct engine_peer *p, uint32_t mtu)
{
	atomic_store_explicit(&p->pad_mtu, mtu, memory_order_relaxed);
}

/* Seals the plaintext at buf + 16 (len bytes) in place; returns the datagram length. */
static size_t seal(struct keypair *kp, uint8_t *buf, size_t len, uint64_t counter, uint32_t mtu)
{
	size_t padded = wire_padded_len(len, mtu);
	uint8_t *plain = buf + WIRE_DATA_HEADER_LEN;

	memset(plain + len, 0, padded - len);
	buf[0] = WIRE_TYPE_DATA;
	buf[1] = buf[2] = buf[3] = 0;
	put_le32(buf + WIRE_DATA_OFF_RECEIVER, kp->remote_index);
	put_le64(buf + WIRE_DATA_OFF_COUNTER, counter);
	aead_seal(&kp->send, counter, buf, WIRE_DATA_HEADER_LEN, plain, padded, plain + padded);
	return WIRE_DATA_HEADER_LEN + padded + WIRE_TAG_LEN;
}

static bool fits(const struct engine_pkt *pkt, uint32_t mtu)
{
	return pkt->len <= mtu &&
	       pkt->cap >= WIRE_DATA_HEADER_LEN + wire_padded_len(pkt->len, mtu) + WIRE_TAG_LEN;
}

static void note_sent(struct engine_peer *p, uint64_t now, bool data)
{
	atomic_store_explicit(&p->ev_tx_any, now, memory_order_relaxed);
	if (data)
		atomic_store_explicit(&p->ev_tx_data, now, memory_order_relaxed);
}

/* Peer lock held: a keepalive with the current keypair into res->ctrl. */
static bool seal_keepalive(struct engine_peer *p, uint64_t now, struct engine_result *res)
{
	struct keypair *kp = p->current;
	uint64_t counter;

	if (!keypair_usable(kp, now))
		return false;
	counter = atomic_fetch_add(&kp->send_counter, 1);
	if (counter >= REJECT_AFTER_MESSAGES)
		return false;
	res->ctrl_len = seal(kp, res->ctrl, 0, counter, engine_peer_pad_mtu(p));
	res->ctrl_to_source = false;
	note_sent(p, now, false);
	return true;
}

void peer_send_initiation(struct engine_peer *p, uint64_t now, struct engine_result *res,
			  bool retry)
{
	struct engine *e = p->e;
	uint8_t e_priv[WIRE_KEY_LEN], ts[WIRE_TAI64N_LEN];
	uint32_t index, r;
	int rc;

	if (!timers_initiation_allowed(atomic_load(&p->last_initiation_sent), now))
		return;
	peer_handshake_clear(p);
	index_table_wrlock(&e->idx);
	rc = index_table_insert(&e->idx, INDEX_HANDSHAKE, p, engine_rng_cb, e, &index);
	index_table_unlock(&e->idx);
	if (rc < 0) {
		engine_count_drop(e, ENGINE_DROP_NO_SLOT);
		return;
	}
	engine_rng(e, e_priv, sizeof(e_priv));
	if (e->tai64n)
		e->tai64n(e->rng_ctx, ts);
	else
		tai64n_now(ts);
	rc = noise_create_initiation(e->local, &p->remote, &p->hs, index, e_priv, ts, res->ctrl);
	sodium_memzero(e_priv, sizeof(e_priv));
	if (rc < 0) {
		index_table_wrlock(&e->idx);
		index_table_remove(&e->idx, index);
		index_table_unlock(&e->idx);
		return;
	}
	cookie_add_macs(&p->cookie, res->ctrl, WIRE_INITIATION_LEN, now);
	res->ctrl_len = WIRE_INITIATION_LEN;
	res->ctrl_to_source = false;
	atomic_store(&p->last_initiation_sent, now ? now : 1);
	if (!retry)
		p->timers.handshake_attempts = 0;
	engine_rng(e, &r, sizeof(r));
	timers_on_handshake_initiated(&p->timers, now, timers_jitter(r));
	note_sent(p, now, false);
}

void peer_after_handshake(struct engine_peer *p, uint64_t now, struct engine_result *res)
{
	if (p->staged_count)
		res->flush = true;
	else
		seal_keepalive(p, now, res);
}

/* Peer lock held: copies a plaintext into the staging ring (oldest dropped when full). */
static void stage(struct engine_peer *p, const struct engine_pkt *pkt)
{
	unsigned slot;

	if (p->staged_count == ENGINE_STAGED_MAX) {
		p->staged_head = (p->staged_head + 1) % ENGINE_STAGED_MAX;
		p->staged_count--;
		engine_count_drop(p->e, ENGINE_DROP_NO_SESSION);
	}
	slot = (p->staged_head + p->staged_count) % ENGINE_STAGED_MAX;
	memcpy(p->staged + (size_t)slot * p->e->mtu, pkt->buf + WIRE_DATA_HEADER_LEN, pkt->len);
	p->staged_len[slot] = pkt->len;
	p->staged_count++;
}

static void staged_clear(struct engine_peer *p)
{
	if (p->staged_count)
		engine_count_drop(p->e, ENGINE_DROP_NO_SESSION);
	p->staged_head = p->staged_count = 0;
}

size_t engine_encapsulate(struct engine_peer *p, struct engine_pkt *pkts, size_t n, uint64_t now,
			  struct engine_result *res)
{
	struct engine *e = p->e;
	struct keypair *kp;
	uint64_t base, bytes = 0;
	size_t i, j = 0, good = 0;
	uint32_t pad = engine_peer_pad_mtu(p);
	bool rekey;

	engine_result_reset(res);
	for (i = 0; i < n; i++)
		good += fits(&pkts[i], e->mtu);
	pthread_mutex_lock(&p->lock);
	kp = p->current;
	if (keypair_usable(kp, now)) {
		keypair_get(kp);
		/* Packets staged before this session and not yet flushed: ask for it. */
		res->flush = p->staged_count > 0;
	} else {
		kp = NULL;
		for (i = 0; i < n; i++)
			if (fits(&pkts[i], e->mtu))
				stage(p, &pkts[i]);
		if (p->hs.state != NOISE_HS_CREATED_INITIATION)
			peer_send_initiation(p, now, res, false);
	}
	pthread_mutex_unlock(&p->lock);
	if (good < n) {
		res->drop = ENGINE_DROP_TOO_BIG;
		for (i = good; i < n; i++)
			engine_count_drop(e, ENGINE_DROP_TOO_BIG);
	}
	if (!kp) {
		res->op = res->ctrl_len ? ENGINE_DONE : ENGINE_DROP;
		if (!res->ctrl_len && res->drop == ENGINE_DROP_NONE)
			res->drop = ENGINE_DROP_NO_SESSION;
		return 0;
	}

	base = atomic_fetch_add(&kp->send_counter, good);
	for (i = 0; i < n; i++) {
		if (!fits(&pkts[i], e->mtu))
			continue;
		if (base >= REJECT_AFTER_MESSAGES) {
			engine_count_drop(e, ENGINE_DROP_KEY_EXPIRED);
			continue;
		}
		bytes += pkts[i].len;
		pkts[i].len = seal(kp, pkts[i].buf, pkts[i].len, base++, pad);
		if (j != i) {
			struct engine_pkt t = pkts[j];

			pkts[j] = pkts[i];
			pkts[i] = t;
		}
		j++;
	}
	rekey = timers_want_rekey_on_send(kp->initiator, kp->created, now, base) &&
		timers_initiation_allowed(atomic_load(&p->last_initiation_sent), now);
	keypair_put(kp);
	if (j) {
		atomic_fetch_add_explicit(&p->tx_packets, j, memory_order_relaxed);
		atomic_fetch_add_explicit(&p->tx_bytes, bytes, memory_order_relaxed);
		note_sent(p, now, true);
		res->op = ENGINE_TO_NETWORK;
	} else {
		res->op = ENGINE_DROP;
	}
	if (rekey) {
		pthread_mutex_lock(&p->lock);
		if (p->hs.state != NOISE_HS_CREATED_INITIATION)
			peer_send_initiation(p, now, res, false);
		pthread_mutex_unlock(&p->lock);
	}
	return j;
}

bool engine_flush(struct engine_peer *p, struct engine_pkt *pkt, uint64_t now)
{
	struct keypair *kp;
	uint64_t counter;
	size_t len;
	unsigned slot;

	pthread_mutex_lock(&p->lock);
	kp = p->current;
	if (!p->staged_count || !keypair_usable(kp, now)) {
		pthread_mutex_unlock(&p->lock);
		return false;
	}
	slot = p->staged_head;
	len = p->staged_len[slot];
	if (pkt->cap < WIRE_DATA_HEADER_LEN + wire_padded_len(len, p->e->mtu) + WIRE_TAG_LEN) {
		pthread_mutex_unlock(&p->lock);
		return false;
	}
	memcpy(pkt->buf + WIRE_DATA_HEADER_LEN, p->staged + (size_t)slot * p->e->mtu, len);
	p->staged_head = (p->staged_head + 1) % ENGINE_STAGED_MAX;
	p->staged_count--;
	keypair_get(kp);
	pthread_mutex_unlock(&p->lock);

	counter = atomic_fetch_add(&kp->send_counter, 1);
	if (counter >= REJECT_AFTER_MESSAGES) {
		keypair_put(kp);
		engine_count_drop(p->e, ENGINE_DROP_KEY_EXPIRED);
		return false;
	}
	pkt->len = seal(kp, pkt->buf, len, counter, engine_peer_pad_mtu(p));
	keypair_put(kp);
	atomic_fetch_add_explicit(&p->tx_packets, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->tx_bytes, len, memory_order_relaxed);
	note_sent(p, now, true);
	return true;
}

void engine_initiate(struct engine_peer *p, uint64_t now, struct engine_result *res)
{
	engine_result_reset(res);
	pthread_mutex_lock(&p->lock);
	if (p->hs.state != NOISE_HS_CREATED_INITIATION)
		peer_send_initiation(p, now, res, false);
	pthread_mutex_unlock(&p->lock);
}

/* ---- timers ---- */

enum ev_kind { EV_TX_DATA, EV_TX_ANY, EV_RX_DATA, EV_RX_ANY };

/* Peer lock held: feeds the data paths' latest events to the timers, oldest first. */
static void fold_events(struct engine_peer *p, uint64_t jitter)
{
	struct {
		uint64_t t;
		enum ev_kind k;
	} ev[4], tmp;
	uint64_t *seen[4] = { &p->seen_tx_data, &p->seen_tx_any, &p->seen_rx_data,
			      &p->seen_rx_any };
	_Atomic uint64_t *src[4] = { &p->ev_tx_data, &p->ev_tx_any, &p->ev_rx_data, &p->ev_rx_any };
	int n = 0;

	for (int k = 0; k < 4; k++) {
		uint64_t t = atomic_load_explicit(src[k], memory_order_relaxed);

		if (t != *seen[k]) {
			*seen[k] = t;
			ev[n].t = t;
			ev[n++].k = (enum ev_kind)k;
		}
	}
	for (int a = 1; a < n; a++)
		for (int b = a; b > 0 && ev[b - 1].t > ev[b].t; b--) {
			tmp = ev[b];
			ev[b] = ev[b - 1];
			ev[b - 1] = tmp;
		}
	for (int a = 0; a < n; a++) {
		switch (ev[a].k) {
		case EV_TX_DATA:
			timers_on_data_sent(&p->timers, ev[a].t, jitter);
			break;
		case EV_TX_ANY:
			timers_on_any_authenticated_sent(&p->timers, ev[a].t);
			timers_on_any_authenticated_traversal(&p->timers, ev[a].t);
			break;
		case EV_RX_DATA:
			timers_on_data_received(&p->timers, ev[a].t);
			break;
		case EV_RX_ANY:
			timers_on_any_authenticated_received(&p->timers, ev[a].t);
			timers_on_any_authenticated_traversal(&p->timers, ev[a].t);
			break;
		}
	}
}

void engine_update_timers(struct engine_peer *p, uint64_t now, struct engine_result *res)
{
	uint32_t r;
	uint64_t jitter;
	unsigned act;

	engine_result_reset(res);
	engine_rng(p->e, &r, sizeof(r));
	jitter = timers_jitter(r);
	pthread_mutex_lock(&p->lock);
	fold_events(p, jitter);
	act = timers_tick(&p->timers, now, jitter);
	if (act & TIMERS_ZERO_KEYS) {
		peer_zero_keys(p);
		staged_clear(p);
	}
	if (act & TIMERS_GIVE_UP) {
		staged_clear(p);
		peer_handshake_clear(p);
	}
	if (act & (TIMERS_SEND_INITIATION | TIMERS_RETRY_INITIATION))
		peer_send_initiation(p, now, res, !(act & TIMERS_SEND_INITIATION));
	if (act & TIMERS_SEND_KEEPALIVE) {
		if (res->ctrl_len)
			p->timers.keepalive_at = now; /* one datagram per call: next tick */
		else if (!seal_keepalive(p, now, res) && p->hs.state != NOISE_HS_CREATED_INITIATION)
			peer_send_initiation(p, now, res,
					     false); /* no session: make one (as WireGuard) */
	}
	pthread_mutex_unlock(&p->lock);
}
