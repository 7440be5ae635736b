/* SPDX-License-Identifier: MIT */
/*
 * Wire formats and protocol constants of the ovlperf tunnel, and nothing else.
 *
 * The protocol is WireGuard's (Noise_IKpsk2 handshake, cookie replies, data
 * messages) with BLAKE2b in place of BLAKE2s, so it is deliberately NOT
 * wire-compatible with WireGuard: the construction and identifier strings
 * differ and every hash is 64 bytes wide.
 *
 * All multi-byte integers are little-endian and are read and written with
 * get_le32()/put_le64() (bytes.h) at the offsets below, never through a cast.
 * A message is accepted only if its length matches its type (wire_msg_type())
 * before any other field is read.
 */
#ifndef OVLPERF_TUNNEL_WIRE_H
#define OVLPERF_TUNNEL_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* Noise protocol name: the initial chaining key and hash, zero-padded to 64 bytes. */
#define WIRE_CONSTRUCTION "Noise_IKpsk2_25519_ChaChaPoly_BLAKE2b"
/*
 * Prologue: this identifier followed by one space and a data cipher's name
 * ("aes256gcm" or "chacha20poly1305"): the first cipher of the initiator's
 * offer, or, from an end that sends no offer, the only cipher it has.
 */
#define WIRE_IDENTIFIER	  "ovlperf tunnel v1"
#define WIRE_LABEL_MAC1	  "mac1----"
#define WIRE_LABEL_COOKIE "cookie--"

/* Primitive sizes. */
#define WIRE_KEY_LEN	      32  /* X25519 keys, ChaCha20/AES-256 keys, psk */
#define WIRE_HASH_LEN	      64  /* BLAKE2b-512: Noise HASHLEN */
#define WIRE_HASH_BLOCK_LEN   128 /* BLAKE2b block: Noise BLOCKLEN, HMAC pad */
#define WIRE_TAG_LEN	      16  /* Poly1305 / GCM tag */
#define WIRE_TAI64N_LEN	      12
#define WIRE_MAC_LEN	      16 /* mac1, mac2 and cookie value */
#define WIRE_COOKIE_LEN	      16
#define WIRE_COOKIE_NONCE_LEN 24 /* XChaCha20-Poly1305 */

/*
 * Message types: first byte. In a data or cookie message the three following
 * bytes are reserved (zero).
 *
 * CIPHER NEGOTIATION rides in those three bytes of the handshake messages
 * (an end that predates it writes zeros there and ignores them):
 *  - initiation: the offer, the initiator's data ciphers in its order of
 *    preference, one id a byte, zero-terminated if shorter than 3; the
 *    prologue names the first. All zero: no offer (an older initiator).
 *  - response: byte 1 is the responder's choice, the first offered cipher it
 *    takes; bytes 2-3 zero. Zero: no choice (an older responder, which
 *    accepted the initiation, so it runs the prologue's cipher).
 * A responder that chose mixes offer(3) || choice(1) into the handshake hash
 * before its ephemeral key, and so does the initiator on reading the choice:
 * the response's empty AEAD (keyed by both DHs and the psk) then fails if
 * anyone changed a byte of either, so forcing a weaker choice needs the keys.
 */
#define WIRE_CIPHER_AES256GCM	     1
#define WIRE_CIPHER_CHACHA20POLY1305 2
#define WIRE_OFFER_OFF		     1
#define WIRE_OFFER_LEN		     3

enum wire_type {
	WIRE_TYPE_INITIATION = 1,
	WIRE_TYPE_RESPONSE = 2,
	WIRE_TYPE_COOKIE = 3,
	WIRE_TYPE_DATA = 4,
};

/*
 * Handshake initiation (148 bytes):
 *   type(1) offer(3) sender(4) ephemeral(32) static(32+16) timestamp(12+16)
 *   mac1(16) mac2(16)
 */
#define WIRE_INIT_OFF_SENDER	4
#define WIRE_INIT_OFF_EPHEMERAL 8
#define WIRE_INIT_OFF_STATIC	40
#define WIRE_INIT_OFF_TIMESTAMP 88
#define WIRE_INIT_OFF_MAC1	116
#define WIRE_INIT_OFF_MAC2	132
#define WIRE_INITIATION_LEN	148

/*
 * Handshake response (92 bytes):
 *   type(1) choice(1) reserved(2) sender(4) receiver(4) ephemeral(32) empty(0+16)
 *   mac1(16) mac2(16)
 */
#define WIRE_RESP_OFF_SENDER	4
#define WIRE_RESP_OFF_RECEIVER	8
#define WIRE_RESP_OFF_EPHEMERAL 12
#define WIRE_RESP_OFF_EMPTY	44
#define WIRE_RESP_OFF_MAC1	60
#define WIRE_RESP_OFF_MAC2	76
#define WIRE_RESPONSE_LEN	92

/*
 * Cookie reply (64 bytes):
 *   type(1) reserved(3) receiver(4) nonce(24) cookie(16+16)
 */
#define WIRE_COOKIE_OFF_RECEIVER 4
#define WIRE_COOKIE_OFF_NONCE	 8
#define WIRE_COOKIE_OFF_COOKIE	 32
#define WIRE_COOKIE_REPLY_LEN	 64

/*
 * Data message (32 bytes minimum; 32 is a keepalive):
 *   type(1) reserved(3) receiver(4) counter(8) ciphertext(n) tag(16)
 * The 16-byte header is the AEAD's associated data; the counter is the nonce
 * (12-byte nonce: 4 zero bytes then the counter, little-endian). n is the
 * plaintext padded with zeros to a multiple of WIRE_PADDING (never beyond
 * the tunnel MTU).
 */
#define WIRE_DATA_OFF_RECEIVER 4
#define WIRE_DATA_OFF_COUNTER  8
#define WIRE_DATA_HEADER_LEN   16
#define WIRE_DATA_MIN_LEN      (WIRE_DATA_HEADER_LEN + WIRE_TAG_LEN)
#define WIRE_PADDING	       16
/* Bytes a data message adds around its plaintext at most. */
#define WIRE_DATA_OVERHEAD (WIRE_DATA_HEADER_LEN + WIRE_PADDING - 1 + WIRE_TAG_LEN)
/* Underlay overhead per packet: IPv6 (40) + UDP (8) + header + tag = 80. */
#define WIRE_UNDERLAY_OVERHEAD_V4 (20 + 8 + WIRE_DATA_HEADER_LEN + WIRE_TAG_LEN)
#define WIRE_UNDERLAY_OVERHEAD_V6 (40 + 8 + WIRE_DATA_HEADER_LEN + WIRE_TAG_LEN)
/* Largest plaintext one data message carries (one IP packet). */
#define WIRE_MAX_PLAINTEXT 65535
/* Largest handshake-family message (for control buffers). */
#define WIRE_CTRL_MAX_LEN WIRE_INITIATION_LEN

_Static_assert(WIRE_INIT_OFF_STATIC == WIRE_INIT_OFF_EPHEMERAL + WIRE_KEY_LEN, "init layout");
_Static_assert(WIRE_INIT_OFF_TIMESTAMP == WIRE_INIT_OFF_STATIC + WIRE_KEY_LEN + WIRE_TAG_LEN,
	       "init layout");
_Static_assert(WIRE_INIT_OFF_MAC1 == WIRE_INIT_OFF_TIMESTAMP + WIRE_TAI64N_LEN + WIRE_TAG_LEN,
	       "init layout");
_Static_assert(WIRE_INIT_OFF_MAC2 == WIRE_INIT_OFF_MAC1 + WIRE_MAC_LEN, "init layout");
_Static_assert(WIRE_INITIATION_LEN == WIRE_INIT_OFF_MAC2 + WIRE_MAC_LEN, "init size");
_Static_assert(WIRE_RESP_OFF_EPHEMERAL == WIRE_RESP_OFF_RECEIVER + 4, "resp layout");
_Static_assert(WIRE_RESP_OFF_EMPTY == WIRE_RESP_OFF_EPHEMERAL + WIRE_KEY_LEN, "resp layout");
_Static_assert(WIRE_RESP_OFF_MAC1 == WIRE_RESP_OFF_EMPTY + WIRE_TAG_LEN, "resp layout");
_Static_assert(WIRE_RESP_OFF_MAC2 == WIRE_RESP_OFF_MAC1 + WIRE_MAC_LEN, "resp layout");
_Static_assert(WIRE_RESPONSE_LEN == WIRE_RESP_OFF_MAC2 + WIRE_MAC_LEN, "resp size");
_Static_assert(WIRE_COOKIE_OFF_COOKIE == WIRE_COOKIE_OFF_NONCE + WIRE_COOKIE_NONCE_LEN,
	       "cookie layout");
_Static_assert(WIRE_COOKIE_REPLY_LEN == WIRE_COOKIE_OFF_COOKIE + WIRE_COOKIE_LEN + WIRE_TAG_LEN,
	       "cookie size");
_Static_assert(WIRE_DATA_HEADER_LEN == WIRE_DATA_OFF_COUNTER + 8, "data header");
_Static_assert(WIRE_DATA_HEADER_LEN % WIRE_PADDING == 0, "plaintext stays 16-aligned");

/* Padded plaintext length: a multiple of WIRE_PADDING, at most max(len, mtu). */
static inline size_t wire_padded_len(size_t len, size_t mtu)
{
	size_t padded = (len + WIRE_PADDING - 1) & ~(size_t)(WIRE_PADDING - 1);

	if (padded > mtu)
		padded = len > mtu ? len : mtu;
	return padded;
}

/*
 * The type of a received underlay datagram, or 0 if its first byte is not a
 * known type or its length does not match that type (fixed size for handshake
 * messages, at least WIRE_DATA_MIN_LEN for data). Reads only buf[0].
 */
static inline enum wire_type wire_msg_type(const uint8_t *buf, size_t len)
{
	if (len == 0)
		return 0;
	switch (buf[0]) {
	case WIRE_TYPE_INITIATION:
		return len == WIRE_INITIATION_LEN ? WIRE_TYPE_INITIATION : 0;
	case WIRE_TYPE_RESPONSE:
		return len == WIRE_RESPONSE_LEN ? WIRE_TYPE_RESPONSE : 0;
	case WIRE_TYPE_COOKIE:
		return len == WIRE_COOKIE_REPLY_LEN ? WIRE_TYPE_COOKIE : 0;
	case WIRE_TYPE_DATA:
		return len >= WIRE_DATA_MIN_LEN ? WIRE_TYPE_DATA : 0;
	default:
		return 0;
	}
}

#endif
