/* SPDX-License-Identifier: MIT */
/*
 * The tunnel protocol engine: socket-free, allocation-free per packet (in the
 * spirit of BoringTun's Tunn). The device side (TUN, UDP sockets, threads,
 * allowed IPs, endpoints) feeds it buffers and does what the result says.
 *
 *   engine_encapsulate()   TUN -> UDP: seal a batch of plaintext IP packets
 *                          for one peer (the peer chosen by allowed IPs).
 *   engine_receive()       UDP -> TUN: the dispatcher for one underlay
 *                          datagram: type and length check, mac1 (silent drop),
 *                          cookie under load, peer lookup by static key for an
 *                          initiation, by receiver index for the rest.
 *   engine_update_timers() keepalives, handshake retries, rekey, key expiry.
 *   engine_flush()         staged packets once a session exists.
 *
 * BUFFERS. A struct engine_pkt is a window on caller memory:
 *
 *   buf                  buf+16                 buf+16+len   +pad   +16
 *   | header (headroom) | plaintext ...........| zero pad | tag |
 *
 * To send, put the plaintext at buf + ENGINE_HEADROOM, set len to its length
 * and cap to the bytes writable from buf (at least ENGINE_HEADROOM + len +
 * ENGINE_TAILROOM); the message is sealed in place and len becomes the
 * datagram length, starting at buf. To receive, put the datagram at buf,
 * len = its length; on ENGINE_TO_TUNNEL the plaintext IP packet is at
 * buf + ENGINE_HEADROOM, len = its IP total length (padding removed), and
 * the 16 bytes before it are free (room for a virtio_net_hdr, TUN offloads).
 * ENGINE_SLOT_SIZE(mtu) is a slot that always fits; batches are arrays of
 * slots (recvmmsg/sendmmsg iovecs point into them). For UDP GSO, slots of
 * one super-packet can be laid out back to back with a stride of
 * ENGINE_HEADROOM + wire_padded_len(mss_payload, mtu) + WIRE_TAG_LEN: all
 * equal-size segments then produce equal-size datagrams, contiguous.
 * On the way in (UDP GRO), each segment of a coalesced datagram is opened in
 * place like any datagram. The plaintexts stay where they were opened until
 * the batch ends, so the device may merge consecutive segments of a flow
 * into one super-packet (gro.h copies their payloads behind the first one's
 * headers; writev() over them in place would do without the copy).
 *
 * THREADS. One thread may call engine_encapsulate()/engine_flush() (TX) while
 * another calls engine_receive() (RX) and any thread engine_update_timers():
 *  - the sending counter is an atomic fetch-add per batch;
 *  - keypairs come from a fixed per-peer pool; the peer's mutex is held only
 *    to take a reference on the current keypair (once per encapsulate call,
 *    i.e. per batch), when a new session is first used or due for renewal,
 *    and for handshake messages and timers, never per received data packet;
 *    a keypair slot is reused only when unreferenced and out of the index
 *    table (RCU-like: RX holds a reference while it opens a packet);
 *  - data-path events reach the timers through per-peer atomic timestamps
 *    that engine_update_timers() folds in under the lock;
 *  - the receiver-index table is read under a read lock (RX, per datagram)
 *    and written under the write lock (handshakes only);
 *  - one keypair's replay window is updated under a per-keypair spin flag.
 * Several RX threads (SO_REUSEPORT, one per worker) and several TX threads are safe;
 * per-peer packet order is kept only within one thread.
 *
 * Secrets (private key, psk, handshake and session keys) live in
 * sodium_malloc memory and are wiped on free and on key expiry.
 */
#ifndef OVLPERF_TUNNEL_ENGINE_H
#define OVLPERF_TUNNEL_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "aead.h"
#include "aead_host.h"
#include "negotiate.h"
#include "wire.h"

#define ENGINE_HEADROOM WIRE_DATA_HEADER_LEN
#define ENGINE_TAILROOM (WIRE_PADDING - 1 + WIRE_TAG_LEN)
/* A buffer that fits any message for a tunnel MTU (also a handshake message). */
#define ENGINE_SLOT_SIZE(mtu)                                                                      \
	(((size_t)(mtu) + ENGINE_HEADROOM + ENGINE_TAILROOM + WIRE_CTRL_MAX_LEN + 63) & ~(size_t)63)
/* Plaintext packets kept per peer while its handshake completes. */
#define ENGINE_STAGED_MAX 32
/* engine_update_timers() should run at least this often per peer. */
#define ENGINE_TICK_NS (100 * 1000 * 1000ULL)

struct engine;
struct engine_peer;

struct engine_config {
	const uint8_t *private_key; /* KEY_LEN bytes; copied */
	struct cipher_list ciphers; /* offered and accepted; n = 0: host->order */
	/* Implementations and speeds (aead_host_measure(), copied); NULL: libsodium,
	 * AES-256-GCM first where the CPU has it (tests: no measurement). */
	const struct aead_host *host;
	uint32_t mtu;	    /* tunnel MTU: largest plaintext; padding stays within */
	uint32_t max_peers; /* sizes the tables; 0 = 64 */
	/* Tests only: deterministic randomness (ephemeral keys, indexes, jitter). */
	void (*rng)(void *ctx, void *buf, size_t len);
	void *rng_ctx;
	/* Tests only: the TAI64N put in initiations; NULL = tai64n_now(). */
	void (*tai64n)(void *ctx, uint8_t out[WIRE_TAI64N_LEN]);
};

struct engine_peer_config {
	const uint8_t *public_key;	 /* KEY_LEN bytes */
	const uint8_t *psk;		 /* KEY_LEN bytes or NULL */
	uint32_t persistent_keepalive_s; /* 0 = off */
	void *user;			 /* the device's peer, returned by engine_peer_user() */
};

enum engine_op {
	ENGINE_DONE = 0,   /* nothing for the data path (see ctrl_len) */
	ENGINE_TO_NETWORK, /* send the packet(s) to the peer's endpoint */
	ENGINE_TO_TUNNEL,  /* write the plaintext to the TUN device */
	ENGINE_DROP,	   /* drop; count by reason; say nothing to the sender */
};

enum engine_drop {
	ENGINE_DROP_NONE = 0,
	ENGINE_DROP_MALFORMED,	   /* unknown type or length not matching type */
	ENGINE_DROP_MAC1,	   /* not for us / forged: silent */
	ENGINE_DROP_UNDER_LOAD,	   /* no valid mac2 under load: cookie reply sent */
	ENGINE_DROP_RATELIMIT,	   /* per-source or per-peer handshake limit */
	ENGINE_DROP_UNKNOWN_PEER,  /* initiation from a static key we do not know */
	ENGINE_DROP_HANDSHAKE,	   /* handshake message failed to decrypt */
	ENGINE_DROP_TIMESTAMP,	   /* initiation replayed or not newer than the last */
	ENGINE_DROP_UNKNOWN_INDEX, /* receiver index matches no session / handshake */
	ENGINE_DROP_STATE,	   /* response or cookie for no pending handshake */
	ENGINE_DROP_DECRYPT,	   /* data tag does not verify */
	ENGINE_DROP_REPLAY,	   /* counter seen or too old */
	ENGINE_DROP_KEY_EXPIRED,   /* keypair past REJECT_AFTER_TIME / _MESSAGES */
	ENGINE_DROP_BAD_INNER,	   /* decrypted payload is not an IPv4/IPv6 packet */
	ENGINE_DROP_NO_SESSION,	   /* TX: no session and staging full */
	ENGINE_DROP_TOO_BIG,	   /* TX: plaintext over MTU or buffer too small */
	ENGINE_DROP_COOKIE,	   /* cookie reply does not decrypt */
	ENGINE_DROP_NO_SLOT,	   /* keypair pool or index table full */
	ENGINE_DROP_NO_CIPHER,	   /* initiation offers no cipher we have */
	ENGINE_DROP__COUNT
};

struct engine_pkt {
	uint8_t *buf;
	size_t len;
	size_t cap;
};

/*
 * What to do besides the data path. ctrl_len > 0 (whatever op is, including
 * ENGINE_DROP for a cookie reply): send ctrl (a handshake message, cookie
 * reply or keepalive) as one datagram to the peer's endpoint, or to the
 * source of the received datagram when ctrl_to_source.
 */
struct engine_result {
	enum engine_op op;
	enum engine_drop drop;
	/*
	 * The peer the packet proved to come from (it authenticated): the device
	 * checks the inner source against this peer's allowed IPs and updates the
	 * peer's endpoint to the datagram's source (roaming). NULL otherwise.
	 */
	struct engine_peer *peer;
	bool ctrl_to_source;
	bool flush; /* staged packets may go: loop engine_flush() */
	size_t ctrl_len;
	uint8_t ctrl[WIRE_CTRL_MAX_LEN];
};

struct engine_peer_stats {
	uint64_t rx_packets, rx_bytes;	     /* plaintext delivered */
	uint64_t tx_packets, tx_bytes;	     /* plaintext sealed */
	uint64_t handshakes;		     /* sessions derived */
	uint64_t last_handshake_realtime_ns; /* 0 = never */
	bool has_session;		     /* a current keypair is usable */
	/* The current keypair's (AEAD_AUTO: none yet): cipher, implementation,
	 * and whether it was negotiated or is a peer without negotiation's. */
	enum aead_cipher cipher;
	enum aead_impl impl;
	bool negotiated;
};

struct engine_stats {
	uint64_t drops[ENGINE_DROP__COUNT];
	uint64_t cookies_sent;
	bool under_load;
};

/* Needs sodium_init() done. 0, -EINVAL (bad key/config), -ENOTSUP (no listed cipher runs here),
 * -ENOMEM. */
int engine_new(const struct engine_config *cfg, struct engine **out)
	__attribute__((warn_unused_result));
/* Wipes every secret and frees every peer. No other call may be in flight. */
void engine_free(struct engine *e);
/* Our offer (preferred first); engine_cipher() is its first. */
enum aead_cipher engine_cipher(const struct engine *e);
const struct cipher_list *engine_offer(const struct engine *e);
const struct aead_host *engine_host(const struct engine *e);
void engine_public_key(const struct engine *e, uint8_t pub[static WIRE_KEY_LEN]);

/* Adds a peer (setup time, before traffic). 0, -EEXIST, -ENOSPC, -EINVAL, -ENOMEM. */
int engine_peer_add(struct engine *e, const struct engine_peer_config *pc, struct engine_peer **out)
	__attribute__((warn_unused_result));
void *engine_peer_user(const struct engine_peer *p);
/* Padding (to 16 bytes) of packets sealed for p stops at mtu, so that a
 * packet that fits a smaller MTU than the engine's (the device's MTU lowered
 * since start-up, or the peer's path MTU less overhead) still fits it once
 * padded. 0 restores the engine's MTU. Any thread, any time. */
void engine_peer_set_pad_mtu(struct engine_peer *p, uint32_t mtu);
/* Where padding stops for p now: min(engine mtu, the value set above). */
uint32_t engine_peer_pad_mtu(const struct engine_peer *p);

/*
 * TX: seals pkts[0..n) for p (see BUFFERS). Returns how many were sealed:
 * pkts[0..ret) are ready to send (res->op = ENGINE_TO_NETWORK when ret > 0).
 * With no usable session the packets are copied to the staging queue (the
 * oldest are dropped beyond ENGINE_STAGED_MAX) and, unless one is pending,
 * a handshake initiation is put in res->ctrl. A packet over the MTU or its
 * buffer is dropped (res->drop = ENGINE_DROP_TOO_BIG) and the rest are still
 * sealed: on return, pkts[0..ret) are exactly the sealed ones, in order.
 * res->flush: older staged packets are still waiting; send them first or
 * right after (engine_flush()) from this thread.
 */
size_t engine_encapsulate(struct engine_peer *p, struct engine_pkt *pkts, size_t n, uint64_t now,
			  struct engine_result *res);

/*
 * RX: the dispatcher for one underlay datagram from src (see BUFFERS).
 * Returns res->op:
 *  ENGINE_TO_TUNNEL  data for the TUN (res->peer set);
 *  ENGINE_DONE       consumed (handshake, cookie, keepalive); ctrl may hold
 *                    a response or cookie reply; res->flush after a
 *                    completed handshake;
 *  ENGINE_DROP       dropped, res->drop says why (counted in engine_stats()).
 * Never replies to an unauthenticated message except with a cookie reply
 * under load (which needs a valid mac1).
 */
enum engine_op engine_receive(struct engine *e, struct engine_pkt *pkt, const struct sockaddr *src,
			      socklen_t srclen, uint64_t now, struct engine_result *res);

/*
 * Timers for p at now: res->ctrl may hold an initiation or a keepalive
 * (send to p's endpoint). Call every ENGINE_TICK_NS for each peer.
 */
void engine_update_timers(struct engine_peer *p, uint64_t now, struct engine_result *res);

/*
 * Starts a handshake now unless one is in flight or was sent less than
 * REKEY_TIMEOUT ago (e.g. at start-up with a known endpoint): res->ctrl.
 */
void engine_initiate(struct engine_peer *p, uint64_t now, struct engine_result *res);

/*
 * After res->flush: seals the oldest staged packet into pkt (pkt->cap bytes
 * at pkt->buf, at least ENGINE_SLOT_SIZE(mtu)); true if one was written
 * (send it to p's endpoint), false when the queue is empty or there is no
 * session.
 */
bool engine_flush(struct engine_peer *p, struct engine_pkt *pkt, uint64_t now);

/* Counters, and the state at now (has_session, under_load). */
void engine_peer_stats(struct engine_peer *p, uint64_t now, struct engine_peer_stats *st);
void engine_stats(struct engine *e, uint64_t now, struct engine_stats *st);
const char *engine_drop_name(enum engine_drop d);
/* Forces "under load" (tests, or a device that sees its queue backing up). */
void engine_force_load(struct engine *e, bool on);

#endif
