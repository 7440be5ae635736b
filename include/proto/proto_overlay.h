/* SPDX-License-Identifier: MIT */
/*
 * Control messages of the built-in overlay between two real hosts (types in
 * proto.h; the server says PROTO_CAP_OVERLAY in its HELLO). Only after the
 * PSK proof, on the session's control connection:
 *
 *   c->s OVERLAY_REQUEST  the client's fresh public key, the overlay subnets
 *                         it asks for (length 0: the server chooses), MTU,
 *                         cipher
 *   s->c OVERLAY_ACCEPT   the server's fresh public key, both ends' overlay
 *                         addresses, and a 1-stream UDP data test (id,
 *                         cookie, port) whose connected socket carries the
 *                         tunnel's datagrams through the server's port
 *     or TEST_REJECT      reason code + text (limits, address collisions)
 *   c->s OVERLAY_READY    the client's UDP socket is connected (the server
 *                         answered its greeting): the server's may be handed
 *                         to its daemon
 *   s->c OVERLAY_READY    the server's daemon runs on that socket
 *   either OVERLAY_DOWN   the overlay ends (the client is done, the server
 *                         stops, a daemon exited); the server then closes
 *
 * Bodies are fixed-size, big-endian; addresses in network byte order.
 */
#ifndef OVLPERF_PROTO_OVERLAY_H
#define OVLPERF_PROTO_OVERLAY_H

#include <stdint.h>
#include <sys/types.h>

#include "proto.h"

#define PROTO_OVERLAY_KEY_LEN 32

enum proto_overlay_cipher {
	PROTO_OVL_CIPHER_AUTO = 0,
	PROTO_OVL_CIPHER_AES256GCM = 1,
	PROTO_OVL_CIPHER_CHACHA20POLY1305 = 2,
};

/* An IPv4 subnet and an IPv6 subnet; a length of 0 leaves it to the server. */
struct proto_overlay_nets {
	uint8_t v4_len, v6_len; /* 8..30 and 64..126, or 0 */
	uint8_t v4[4], v6[16];	/* network addresses */
};

#define PROTO_OVERLAY_REQUEST_LEN 64
struct proto_overlay_request {
	uint32_t flags; /* none defined: 0 */
	uint16_t mtu;	/* 0: the daemon's default (underlay MTU minus overhead) */
	uint8_t cipher; /* enum proto_overlay_cipher */
	struct proto_overlay_nets nets;
	uint8_t client_key[PROTO_OVERLAY_KEY_LEN]; /* the client's public key */
};

#define PROTO_OVERLAY_ACCEPT_LEN 100
struct proto_overlay_accept {
	uint32_t test_id; /* the underlay socket's data test (data_conn.h) */
	uint16_t port;
	uint16_t mtu; /* what both daemons use; 0: each its default */
	uint8_t cookie[PROTO_COOKIE_LEN];
	uint8_t server_key[PROTO_OVERLAY_KEY_LEN];
	uint8_t v4_len, v6_len; /* the subnets' lengths (both set) */
	uint8_t server_v4[4], client_v4[4];
	uint8_t server_v6[16], client_v6[16];
};

#define PROTO_OVERLAY_READY_LEN 4
struct proto_overlay_ready {
	uint32_t reserved;
};

enum proto_overlay_down_reason {
	PROTO_OVL_DOWN_DONE = 0,     /* the client is done with it */
	PROTO_OVL_DOWN_SHUTDOWN = 1, /* the server stops (SIGTERM/SIGINT) */
	PROTO_OVL_DOWN_DAEMON = 2,   /* a tunnel daemon exited */
	PROTO_OVL_DOWN_REASON_MAX = 2,
};
#define PROTO_OVERLAY_DOWN_LEN 4
struct proto_overlay_down {
	uint16_t reason; /* enum proto_overlay_down_reason */
};

/* Encoders and decoders as in proto.h: decoders check the length first and
 * return 0 or PROTO_E_LENGTH/VALUE; encoders the message length or
 * PROTO_E_NOSPACE/VALUE. */
ssize_t proto_encode_overlay_request(uint8_t *buf, size_t cap,
				     const struct proto_overlay_request *m);
int proto_decode_overlay_request(const uint8_t *body, size_t len, struct proto_overlay_request *m);
ssize_t proto_encode_overlay_accept(uint8_t *buf, size_t cap, const struct proto_overlay_accept *m);
int proto_decode_overlay_accept(const uint8_t *body, size_t len, struct proto_overlay_accept *m);
ssize_t proto_encode_overlay_ready(uint8_t *buf, size_t cap, const struct proto_overlay_ready *m);
int proto_decode_overlay_ready(const uint8_t *body, size_t len, struct proto_overlay_ready *m);
ssize_t proto_encode_overlay_down(uint8_t *buf, size_t cap, const struct proto_overlay_down *m);
int proto_decode_overlay_down(const uint8_t *body, size_t len, struct proto_overlay_down *m);

#endif
