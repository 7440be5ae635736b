// SPDX-License-Identifier: MIT
/*
 * The receive dispatcher: one underlay datagram in, one decision out.
 *
 * Order of checks (cheapest and unauthenticated first):
 *   1. type and exact length (wire_msg_type) before reading any field;
 *   2. handshake messages: mac1 for our public key, else silent drop; under
 *      load, mac2 (else a cookie reply) and the per-source rate limit;
 *   3. initiation: decrypt the static key, find the peer, verify the
 *      timestamp (newer than the last one) and the per-peer rate limit;
 *      response, cookie and data: find the receiver index in the table;
 *   4. data: replay pre-check, tag, then the replay window update.
 */
#include <string.h>

#include <sodium.h>

#include "bytes.h"
#include "tunnel_engine_impl.h"

static enum engine_op drop(struct engine *e, struct engine_result *res, enum engine_drop why)
{
	res->op = ENGINE_DROP;
	res->drop = why;
	engine_count_drop(e, why);
	return ENGINE_DROP;
}

/*
 * mac1, and under load mac2 and the source's rate. ENGINE_DONE to go on,
 * else the drop (with a cookie reply in res->ctrl when mac2 was missing).
 */
static enum engine_op gate(struct engine *e, const uint8_t *msg, size_t len, uint32_t sender,
			   const struct sockaddr *src, socklen_t srclen, uint64_t now,
			   struct engine_result *res)
{
	enum cookie_verdict v;
	bool under;

	cookie_note_handshake(e->cookie, now);
	under = cookie_under_load(e->cookie, now);
	v = cookie_validate(e->cookie, msg, len, src, srclen, under, now);
	if (v == COOKIE_BAD_MAC1)
		return drop(e, res, ENGINE_DROP_MAC1);
	if (!under)
		return ENGINE_DONE;
	if (v != COOKIE_MAC2_OK) {
		if (cookie_create_reply(e->cookie, msg, len, sender, src, srclen, now, res->ctrl) ==
		    0) {
			res->ctrl_len = WIRE_COOKIE_REPLY_LEN;
			res->ctrl_to_source = true;
			atomic_fetch_add_explicit(&e->cookies_sent, 1, memory_order_relaxed);
		}
		return drop(e, res, ENGINE_DROP_UNDER_LOAD);
	}
	if (!ratelimit_allow(e->rl, src, srclen, now))
		return drop(e, res, ENGINE_DROP_RATELIMIT);
	return ENGINE_DONE;
}

/*
 * Crossed initiations: both ends initiated at about the same moment. If each
 * answered the other, both would hold only unconfirmed responder sessions,
 * neither could send, and their retries (REKEY_TIMEOUT later, at about the
 * same moment again) could cross once more. One end must win: the one whose
 * public key sorts higher keeps its own fresh initiation and ignores theirs;
 * the other answers it. Only an initiation of ours younger than half of
 * REKEY_TIMEOUT counts, so an end whose own initiations never get through
 * still accepts the peer's for most of every retry period.
 */
static bool keep_own_initiation(const struct engine *e, const struct engine_peer *p, uint64_t now)
{
	uint64_t sent = atomic_load_explicit(&p->last_initiation_sent, memory_order_relaxed);

	return p->hs.state == NOISE_HS_CREATED_INITIATION && now - sent < REKEY_TIMEOUT_NS / 2 &&
	       memcmp(e->local->pub, p->remote.pub, WIRE_KEY_LEN) > 0;
}

static enum engine_op rx_initiation(struct engine *e, const uint8_t *msg,
				    const struct sockaddr *src, socklen_t srclen, uint64_t now,
				    struct engine_result *res)
{
	struct noise_handshake hs;
	uint8_t spub[WIRE_KEY_LEN], ts[WIRE_TAI64N_LEN], e_priv[WIRE_KEY_LEN];
	struct engine_peer *p;
	enum engine_drop why = ENGINE_DROP_NONE;
	uint32_t index;

	if (gate(e, msg, WIRE_INITIATION_LEN, get_le32(msg + WIRE_INIT_OFF_SENDER), src, srclen,
		 now, res) != ENGINE_DONE)
		return ENGINE_DROP;
	if (noise_consume_initiation(e->local, msg, &hs, spub) < 0) {
		sodium_memzero(&hs, sizeof(hs));
		return drop(e, res, ENGINE_DROP_HANDSHAKE);
	}
	p = engine_peer_by_pub(e, spub);
	if (!p) {
		sodium_memzero(&hs, sizeof(hs));
		return drop(e, res, ENGINE_DROP_UNKNOWN_PEER);
	}
	pthread_mutex_lock(&p->lock);
	if (noise_finish_initiation(&p->remote, msg, &hs, ts) < 0) {
		why = ENGINE_DROP_HANDSHAKE;
		goto out;
	}
	/* Authenticated, but nothing in its offer runs here: say so in the counters. */
	if (hs.offer[0] && negotiate_pick(hs.offer, &e->local->ciphers) == AEAD_AUTO) {
		why = ENGINE_DROP_NO_CIPHER;
		goto out;
	}
	if (!tai64n_after(ts, p->latest_timestamp)) {
		why = ENGINE_DROP_TIMESTAMP;
		goto out;
	}
	if (!ratelimit_peer_allow(&p->rl, now)) {
		why = ENGINE_DROP_RATELIMIT;
		goto out;
	}
	if (keep_own_initiation(e, p, now)) {
		/* not a drop: the peer will answer ours; its timestamp is not
		 * recorded, so a retry of this initiation stays acceptable */
		res->ctrl_len = 0;
		goto out;
	}
	memcpy(p->latest_timestamp, ts, sizeof(ts));
	/* One handshake per peer: an initiation from them replaces ours (as WireGuard). */
	peer_handshake_clear(p);
	index_table_wrlock(&e->idx);
	if (index_table_insert(&e->idx, INDEX_HANDSHAKE, p, engine_rng_cb, e, &index) < 0)
		why = ENGINE_DROP_NO_SLOT;
	index_table_unlock(&e->idx);
	if (why)
		goto out;
	p->hs = hs;
	engine_rng(e, e_priv, sizeof(e_priv));
	if (noise_create_response(e->local, &p->remote, &p->hs, index, e_priv, res->ctrl) < 0) {
		peer_handshake_clear(p);
		why = ENGINE_DROP_HANDSHAKE;
		goto out;
	}
	cookie_add_macs(&p->cookie, res->ctrl, WIRE_RESPONSE_LEN, now);
	if (peer_begin_session(p, &p->hs, now) < 0) {
		why = ENGINE_DROP_NO_SLOT;
		goto out;
	}
	res->ctrl_len = WIRE_RESPONSE_LEN;
	res->ctrl_to_source = false;
	res->peer = p;
	atomic_store_explicit(&p->ev_rx_any, now, memory_order_relaxed);
	atomic_store_explicit(&p->ev_tx_any, now, memory_order_relaxed);
out:
	pthread_mutex_unlock(&p->lock);
	sodium_memzero(&hs, sizeof(hs));
	sodium_memzero(e_priv, sizeof(e_priv));
	sodium_memzero(ts, sizeof(ts));
	if (why) {
		res->ctrl_len = 0;
		return drop(e, res, why);
	}
	return ENGINE_DONE;
}

/* The peer behind a receiver index of the given kinds, or NULL. */
static struct engine_peer *peer_by_index(struct engine *e, uint32_t index, bool keypairs)
{
	const struct index_entry *ent;
	struct engine_peer *p = NULL;

	index_table_rdlock(&e->idx);
	ent = index_table_find(&e->idx, index);
	if (ent && ent->kind == INDEX_HANDSHAKE)
		p = ent->ptr;
	else if (ent && ent->kind == INDEX_KEYPAIR && keypairs)
		p = ((struct keypair *)ent->ptr)->peer;
	index_table_unlock(&e->idx);
	return p;
}

static enum engine_op rx_response(struct engine *e, const uint8_t *msg, const struct sockaddr *src,
				  socklen_t srclen, uint64_t now, struct engine_result *res)
{
	uint32_t index = get_le32(msg + WIRE_RESP_OFF_RECEIVER);
	struct engine_peer *p;
	enum engine_drop why = ENGINE_DROP_NONE;

	if (gate(e, msg, WIRE_RESPONSE_LEN, get_le32(msg + WIRE_RESP_OFF_SENDER), src, srclen, now,
		 res) != ENGINE_DONE)
		return ENGINE_DROP;
	p = peer_by_index(e, index, false);
	if (!p)
		return drop(e, res, ENGINE_DROP_UNKNOWN_INDEX);
	pthread_mutex_lock(&p->lock);
	if (p->hs.state != NOISE_HS_CREATED_INITIATION || p->hs.local_index != index)
		why = ENGINE_DROP_STATE;
	else if (noise_consume_response(e->local, &p->remote, &p->hs, msg) < 0)
		why = ENGINE_DROP_HANDSHAKE;
	else if (peer_begin_session(p, &p->hs, now) < 0)
		why = ENGINE_DROP_NO_SLOT;
	if (!why) {
		res->peer = p;
		atomic_store_explicit(&p->ev_rx_any, now, memory_order_relaxed);
		peer_after_handshake(p, now, res);
	}
	pthread_mutex_unlock(&p->lock);
	return why ? drop(e, res, why) : ENGINE_DONE;
}

static enum engine_op rx_cookie(struct engine *e, const uint8_t *msg, uint64_t now,
				struct engine_result *res)
{
	struct engine_peer *p = peer_by_index(e, get_le32(msg + WIRE_COOKIE_OFF_RECEIVER), true);
	int rc;

	if (!p)
		return drop(e, res, ENGINE_DROP_UNKNOWN_INDEX);
	pthread_mutex_lock(&p->lock);
	rc = cookie_consume_reply(&p->cookie, msg, now);
	pthread_mutex_unlock(&p->lock);
	/* Not authenticated by the peer's key: no res->peer, no endpoint update. */
	return rc < 0 ? drop(e, res, ENGINE_DROP_COOKIE) : ENGINE_DONE;
}

static void spin_lock(atomic_flag *f)
{
	while (atomic_flag_test_and_set_explicit(f, memory_order_acquire))
		;
}

static void spin_unlock(atomic_flag *f)
{
	atomic_flag_clear_explicit(f, memory_order_release);
}

/* Length of the IPv4/IPv6 packet at plain (padding after it), or 0 if it is not one. */
static size_t inner_len(const uint8_t *plain, size_t len)
{
	size_t tot;

	if (len >= 20 && plain[0] >> 4 == 4) {
		tot = get_be16(plain + 2);
		return tot >= 20 && tot <= len ? tot : 0;
	}
	if (len >= 40 && plain[0] >> 4 == 6) {
		tot = (size_t)get_be16(plain + 4) + 40;
		return tot <= len ? tot : 0;
	}
	return 0;
}

/* After an authenticated data message on kp: confirm a new session, renew an old one. */
static void after_auth(struct engine_peer *p, struct keypair *kp, uint64_t now,
		       struct engine_result *res)
{
	bool no = false;

	if (!atomic_load_explicit(&kp->confirmed, memory_order_acquire) &&
	    atomic_compare_exchange_strong(&kp->confirmed, &no, true)) {
		pthread_mutex_lock(&p->lock);
		peer_confirm_next(p, kp);
		if (p->staged_count)
			res->flush = true;
		pthread_mutex_unlock(&p->lock);
	}
	/* Pre-check without the lock; the timers' own flag is checked under it. */
	if (kp->initiator && timers_age(now, kp->created) > REKEY_ON_RECV_AGE_NS &&
	    !atomic_exchange(&kp->lastminute, true)) {
		pthread_mutex_lock(&p->lock);
		if (p->current == kp && !p->timers.sent_lastminute_handshake &&
		    p->hs.state != NOISE_HS_CREATED_INITIATION) {
			p->timers.sent_lastminute_handshake = true;
			peer_send_initiation(p, now, res, false);
		}
		pthread_mutex_unlock(&p->lock);
	}
}

static enum engine_op rx_data(struct engine *e, struct engine_pkt *pkt, uint64_t now,
			      struct engine_result *res)
{
	uint8_t *buf = pkt->buf, *plain = buf + WIRE_DATA_HEADER_LEN;
	uint32_t index = get_le32(buf + WIRE_DATA_OFF_RECEIVER);
	uint64_t counter = get_le64(buf + WIRE_DATA_OFF_COUNTER);
	size_t ctlen = pkt->len - WIRE_DATA_MIN_LEN, len;
	const struct index_entry *ent;
	struct keypair *kp = NULL;
	struct engine_peer *p;
	enum engine_drop why = ENGINE_DROP_NONE;
	bool ok;

	index_table_rdlock(&e->idx);
	ent = index_table_find(&e->idx, index);
	if (ent && ent->kind == INDEX_KEYPAIR) {
		kp = ent->ptr;
		if (atomic_load_explicit(&kp->state, memory_order_acquire) == KP_LIVE)
			atomic_fetch_add(&kp->refs, 1);
		else
			kp = NULL;
	}
	index_table_unlock(&e->idx);
	if (!kp)
		return drop(e, res, ENGINE_DROP_UNKNOWN_INDEX);
	p = kp->peer;
	if (timers_age(now, kp->created) >= REJECT_AFTER_TIME_NS) {
		why = ENGINE_DROP_KEY_EXPIRED;
		goto out;
	}
	spin_lock(&kp->replay_busy);
	ok = replay_check(&kp->replay, counter, REJECT_AFTER_MESSAGES);
	spin_unlock(&kp->replay_busy);
	if (!ok) {
		why = ENGINE_DROP_REPLAY;
		goto out;
	}
	if (aead_open(&kp->recv, counter, buf, WIRE_DATA_HEADER_LEN, plain, ctlen, plain + ctlen) <
	    0) {
		why = ENGINE_DROP_DECRYPT;
		goto out;
	}
	spin_lock(&kp->replay_busy);
	ok = replay_update(&kp->replay, counter, REJECT_AFTER_MESSAGES);
	spin_unlock(&kp->replay_busy);
	if (!ok) {
		why = ENGINE_DROP_REPLAY;
		goto out;
	}

	/* Authenticated from here on. */
	res->peer = p;
	atomic_store_explicit(&p->ev_rx_any, now, memory_order_relaxed);
	after_auth(p, kp, now, res);
	if (ctlen == 0)
		goto out; /* keepalive */
	len = inner_len(plain, ctlen);
	if (!len) {
		why = ENGINE_DROP_BAD_INNER;
		goto out;
	}
	pkt->len = len;
	atomic_store_explicit(&p->ev_rx_data, now, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->rx_packets, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->rx_bytes, len, memory_order_relaxed);
	res->op = ENGINE_TO_TUNNEL;
out:
	keypair_put(kp);
	return why ? drop(e, res, why) : res->op;
}

enum engine_op engine_receive(struct engine *e, struct engine_pkt *pkt, const struct sockaddr *src,
			      socklen_t srclen, uint64_t now, struct engine_result *res)
{
	engine_result_reset(res);
	switch (wire_msg_type(pkt->buf, pkt->len)) {
	case WIRE_TYPE_INITIATION:
		return rx_initiation(e, pkt->buf, src, srclen, now, res);
	case WIRE_TYPE_RESPONSE:
		return rx_response(e, pkt->buf, src, srclen, now, res);
	case WIRE_TYPE_COOKIE:
		return rx_cookie(e, pkt->buf, now, res);
	case WIRE_TYPE_DATA:
		return rx_data(e, pkt, now, res);
	}
	return drop(e, res, ENGINE_DROP_MALFORMED);
}
