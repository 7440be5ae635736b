/* SPDX-License-Identifier: MIT */
/*
 * Engine internals shared by tunnel_engine.c (device, peers, keypairs, sending,
 * timers) and tunnel_engine_rx.c (the receive dispatcher). Not a contract for other
 * modules: use tunnel_engine.h.
 */
#ifndef OVLPERF_TUNNEL_ENGINE_IMPL_H
#define OVLPERF_TUNNEL_ENGINE_IMPL_H

#include <pthread.h>
#include <stdatomic.h>

#include "aead_host.h"
#include "cookie.h"
#include "tunnel_engine.h"
#include "index_table.h"
#include "noise.h"
#include "ratelimit.h"
#include "replay.h"
#include "timers.h"

/* Keypairs per peer: current, previous, next, plus ones a sender still holds. */
#define ENGINE_KEYPAIRS 8

enum kp_state {
	KP_FREE = 0, /* wiped, reusable */
	KP_LIVE,     /* current, previous or next; in the index table */
	KP_RELEASED, /* out of the table; wiped when the last reference goes */
	KP_WIPING,
};

struct keypair {
	struct aead_key send;
	struct aead_key recv;
	_Atomic uint64_t send_counter;
	struct replay replay;
	atomic_flag replay_busy;
	_Atomic uint32_t refs;
	_Atomic int state;	 /* enum kp_state */
	_Atomic bool confirmed;	 /* responder: the initiator used it */
	_Atomic bool lastminute; /* rekey-on-receive already asked */
	uint64_t created;
	uint32_t local_index;
	uint32_t remote_index;
	bool initiator;
	bool negotiated; /* the cipher came from an offer, not a peer without one */
	struct engine_peer *peer;
};

/* Whole peer lives in sodium_malloc memory (keys, handshake, psk). */
struct engine_peer {
	struct engine *e;
	pthread_mutex_t lock; /* everything below not atomic */
	struct noise_remote remote;
	struct noise_handshake hs;
	struct cookie_maker cookie;
	struct keypair kp[ENGINE_KEYPAIRS];
	struct keypair *current, *previous, *next;
	struct timers timers;
	struct ratelimit_peer rl;
	uint8_t latest_timestamp[WIRE_TAI64N_LEN];
	_Atomic uint64_t last_initiation_sent;
	/* Events from the data paths, folded into timers by engine_update_timers(). */
	_Atomic uint64_t ev_tx_data, ev_tx_any, ev_rx_data, ev_rx_any;
	uint64_t seen_tx_data, seen_tx_any, seen_rx_data, seen_rx_any;
	/* Staging: plaintexts waiting for a session (ring of slots of mtu bytes). */
	uint8_t *staged;
	size_t staged_len[ENGINE_STAGED_MAX];
	unsigned staged_head, staged_count;
	/* Stats. */
	_Atomic uint64_t rx_packets, rx_bytes, tx_packets, tx_bytes, handshakes;
	_Atomic uint64_t last_handshake_realtime;
	/* Padding never goes past this (0: the engine's mtu): the device's current
	 * MTU or the peer's path MTU less overhead, whichever is smaller. */
	_Atomic uint32_t pad_mtu;
	void *user;
};

struct engine {
	struct noise_local *local;     /* sodium_malloc */
	struct cookie_checker *cookie; /* sodium_malloc */
	struct ratelimit *rl;
	struct index_table idx;
	struct engine_peer **peers;
	size_t npeers, max_peers;
	struct engine_peer **by_pub; /* open addressing by SipHash of the key */
	size_t by_pub_mask;
	uint8_t hash_key[16];
	uint32_t mtu;
	struct aead_host host; /* implementation per cipher; measured or libsodium */
	void (*rng)(void *ctx, void *buf, size_t len);
	void *rng_ctx;
	void (*tai64n)(void *ctx, uint8_t out[WIRE_TAI64N_LEN]);
	_Atomic uint64_t drops[ENGINE_DROP__COUNT];
	_Atomic uint64_t cookies_sent;
};

/* tunnel_engine.c and tunnel_engine_tx.c, shared with each other and tunnel_engine_rx.c */
struct engine_peer *engine_peer_by_pub(struct engine *e, const uint8_t pub[static WIRE_KEY_LEN]);
struct keypair *keypair_get(struct keypair *kp);
void keypair_put(struct keypair *kp);
/* Current keypair confirmed, not expired by age or counter. */
bool keypair_usable(struct keypair *kp, uint64_t now);
/* Peer lock held: release every keypair and the pending handshake. */
void peer_zero_keys(struct engine_peer *p);
void engine_result_reset(struct engine_result *res);
/* Peer lock held: a new keypair from completed handshake hs. 0 or -errno. */
int peer_begin_session(struct engine_peer *p, struct noise_handshake *hs, uint64_t now);
/* Peer lock held: the responder's keypair kp was used by the initiator. */
void peer_confirm_next(struct engine_peer *p, struct keypair *kp);
/* Peer lock held: new initiation into res->ctrl (unless rate limited). */
void peer_send_initiation(struct engine_peer *p, uint64_t now, struct engine_result *res,
			  bool retry);
/* Peer lock held: a keepalive (or the first staged packet) into res->ctrl / flush. */
void peer_after_handshake(struct engine_peer *p, uint64_t now, struct engine_result *res);
/* Peer lock held: forget the pending handshake and its index. */
void peer_handshake_clear(struct engine_peer *p);
void engine_count_drop(struct engine *e, enum engine_drop d);
void engine_rng(struct engine *e, void *buf, size_t len);
/* engine_rng() as an index_table_insert() callback; ctx is the engine. */
void engine_rng_cb(void *ctx, void *buf, size_t len);

#endif
