// SPDX-License-Identifier: MIT
/*
 * libFuzzer: the data cipher's negotiation. The input picks both ends'
 * cipher lists and may rewrite the initiation's offer and the response's
 * choice on the way (a man in the middle without the keys). Whatever it
 * does: a handshake that completes has both ends on one cipher that both
 * lists hold; untouched, it completes exactly when the lists meet, on the
 * first of the initiator's the responder has. Also cipher-list text:
 * a parsed list formats and parses back to itself.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <sodium.h>

#include "negotiate.h"
#include "noise.h"

static const char *const lists[] = { "aes256gcm", "chacha20poly1305", "aes256gcm,chacha20poly1305",
				     "chacha20poly1305,aes256gcm" };

struct end {
	struct noise_local l;
	struct noise_remote r;
	struct noise_handshake hs;
};

static void text_roundtrip(const uint8_t *data, size_t size)
{
	char s[64], back[64];
	struct cipher_list a, b;

	if (size >= sizeof(s))
		size = sizeof(s) - 1;
	memcpy(s, data, size);
	s[size] = '\0';
	if (!negotiate_list_parse(s, &a, NULL))
		return;
	if (a.n > WIRE_OFFER_LEN)
		__builtin_trap();
	if (!a.n)
		return; /* auto */
	negotiate_list_format(&a, back, sizeof(back));
	if (!negotiate_list_parse(back, &b, NULL) || memcmp(&a, &b, sizeof(a)))
		__builtin_trap();
}

static enum aead_cipher expected(const struct cipher_list *i, const struct cipher_list *r)
{
	for (unsigned k = 0; k < i->n; k++)
		if (negotiate_list_has(r, i->c[k]))
			return i->c[k];
	return AEAD_AUTO;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct end *ini, *res;
	uint8_t si[32] = { 1 }, sr[32] = { 2 }, e[32] = { 3 }, ts[12] = { 4 }, spub[32];
	uint8_t init[WIRE_INITIATION_LEN], resp[WIRE_RESPONSE_LEN];
	struct cipher_list li, lr;
	struct noise_keys ki, kr;
	bool tampered;

	if (sodium_init() < 0)
		return 0;
	if (size < 7) {
		text_roundtrip(data, size);
		return 0;
	}
	text_roundtrip(data + 7, size - 7);
	if (!ini) {
		ini = sodium_malloc(sizeof(*ini));
		res = sodium_malloc(sizeof(*res));
	}
	if (!negotiate_list_parse(lists[data[0] % 4], &li, NULL) ||
	    !negotiate_list_parse(lists[data[1] % 4], &lr, NULL) ||
	    noise_local_init(&ini->l, si, &li) || noise_local_init(&res->l, sr, &lr) ||
	    noise_remote_init(&ini->r, &ini->l, res->l.pub, NULL) ||
	    noise_remote_init(&res->r, &res->l, ini->l.pub, NULL))
		__builtin_trap();
	ini->l.no_offer = data[5] & 4;
	if (noise_create_initiation(&ini->l, &ini->r, &ini->hs, 7, e, ts, init))
		__builtin_trap();
	tampered = data[5] & 3;
	if (data[5] & 1)
		memcpy(init + WIRE_OFFER_OFF, data + 2, WIRE_OFFER_LEN);
	if (noise_consume_initiation(&res->l, init, &res->hs, spub) ||
	    noise_finish_initiation(&res->r, init, &res->hs, ts))
		goto failed;
	e[0] = 5;
	if (noise_create_response(&res->l, &res->r, &res->hs, 9, e, resp))
		goto failed;
	if (data[5] & 2)
		resp[WIRE_OFFER_OFF] = data[6];
	if (noise_consume_response(&ini->l, &ini->r, &ini->hs, resp))
		goto failed;
	if (noise_derive_keys(&ini->hs, &ki) || noise_derive_keys(&res->hs, &kr))
		__builtin_trap();
	/* Completed: one cipher, in both lists, and (untouched) the expected one. */
	if (ki.cipher != kr.cipher || !negotiate_list_has(&li, ki.cipher) ||
	    !negotiate_list_has(&lr, ki.cipher) || memcmp(ki.send, kr.recv, 32))
		__builtin_trap();
	if (!tampered && !ini->l.no_offer && ki.cipher != expected(&li, &lr))
		__builtin_trap();
	return 0;
failed:
	/* Untouched, with an offer, it fails only when the lists do not meet. */
	if (!tampered && !ini->l.no_offer && expected(&li, &lr) != AEAD_AUTO)
		__builtin_trap();
	return 0;
}
