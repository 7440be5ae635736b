/* SPDX-License-Identifier: MIT */
/*
 * The data cipher both ends run: the initiator offers its list (in its order
 * of preference), the responder takes the first offered cipher it also has
 * (wire.h, CIPHER NEGOTIATION, for the bytes and why a downgrade needs the
 * keys). Pure functions on bytes and lists, so tests and the fuzzer drive
 * them without a handshake.
 */
#ifndef OVLPERF_TUNNEL_NEGOTIATE_H
#define OVLPERF_TUNNEL_NEGOTIATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aead.h"
#include "wire.h"

/* Known ciphers, no repeats, in order of preference; n = 0: none (or "auto"). */
struct cipher_list {
	uint8_t n;
	enum aead_cipher c[WIRE_OFFER_LEN];
};

/*
 * "auto" (n = 0) or a comma list of cipher names ("aes256gcm, chacha20poly1305").
 * false for an unknown name, "auto" in a list, a repeat, or more than
 * WIRE_OFFER_LEN names; *bad (may be NULL) then points at the offending name.
 */
bool negotiate_list_parse(const char *s, struct cipher_list *out, const char **bad);
/* "aes256gcm,chacha20poly1305" into buf (cap bytes; truncated, always terminated). */
void negotiate_list_format(const struct cipher_list *l, char *buf, size_t cap);
bool negotiate_list_has(const struct cipher_list *l, enum aead_cipher c);

/* The offer bytes of l (zero-filled after its last cipher). */
void negotiate_offer_put(const struct cipher_list *l, uint8_t out[static WIRE_OFFER_LEN]);
/*
 * Whether offer is well formed: a known first id (the prologue names it),
 * then ids up to the first zero and only zeros after it. Unknown ids after
 * the first are allowed (a newer peer's) and never picked. An all-zero
 * offer is "no offer", not an offer: false.
 */
bool negotiate_offer_valid(const uint8_t offer[static WIRE_OFFER_LEN]);
/* The first cipher of a valid offer that ours has, or AEAD_AUTO if none. */
enum aead_cipher negotiate_pick(const uint8_t offer[static WIRE_OFFER_LEN],
				const struct cipher_list *ours);
/* Whether choice (a response's byte) is a known cipher the offer made. */
bool negotiate_choice_valid(const uint8_t offer[static WIRE_OFFER_LEN], uint8_t choice);

#endif
