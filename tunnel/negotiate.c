// SPDX-License-Identifier: MIT
/* The data cipher's negotiation: lists, offers, the responder's pick (negotiate.h). */
#include <stdio.h>
#include <string.h>

#include "negotiate.h"

static bool known(unsigned id)
{
	return id == AEAD_AES256GCM || id == AEAD_CHACHA20POLY1305;
}

bool negotiate_list_has(const struct cipher_list *l, enum aead_cipher c)
{
	for (unsigned i = 0; i < l->n && i < WIRE_OFFER_LEN; i++)
		if (l->c[i] == c)
			return true;
	return false;
}

/* One name of a list: s[0..len) without surrounding blanks. */
static bool add_name(struct cipher_list *out, const char *s, size_t len)
{
	char name[32];
	enum aead_cipher c;

	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (!len || len >= sizeof(name))
		return false;
	memcpy(name, s, len);
	name[len] = '\0';
	if (!aead_cipher_parse(name, &c) || c == AEAD_AUTO || negotiate_list_has(out, c) ||
	    out->n >= WIRE_OFFER_LEN)
		return false;
	out->c[out->n++] = c;
	return true;
}

bool negotiate_list_parse(const char *s, struct cipher_list *out, const char **bad)
{
	const char *p = s;

	memset(out, 0, sizeof(*out));
	if (bad)
		*bad = s;
	if (!strcmp(s, "auto"))
		return true;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (bad)
			*bad = p;
		if (!add_name(out, p, len)) {
			memset(out, 0, sizeof(*out));
			return false;
		}
		if (!comma)
			return true;
		p = comma + 1;
	}
}

void negotiate_list_format(const struct cipher_list *l, char *buf, size_t cap)
{
	size_t used = 0;

	if (!cap)
		return;
	buf[0] = '\0';
	for (unsigned i = 0; i < l->n && i < WIRE_OFFER_LEN; i++) {
		int n = snprintf(buf + used, cap - used, "%s%s", i ? "," : "",
				 aead_cipher_name(l->c[i]));

		if (n < 0 || (size_t)n >= cap - used)
			return; /* truncated, still terminated */
		used += (size_t)n;
	}
}

void negotiate_offer_put(const struct cipher_list *l, uint8_t out[static WIRE_OFFER_LEN])
{
	memset(out, 0, WIRE_OFFER_LEN);
	for (unsigned i = 0; i < l->n && i < WIRE_OFFER_LEN; i++)
		out[i] = (uint8_t)l->c[i];
}

bool negotiate_offer_valid(const uint8_t offer[static WIRE_OFFER_LEN])
{
	bool ended = false;

	if (!known(offer[0]))
		return false;
	for (unsigned i = 1; i < WIRE_OFFER_LEN; i++) {
		if (!offer[i])
			ended = true;
		else if (ended)
			return false;
	}
	return true;
}

enum aead_cipher negotiate_pick(const uint8_t offer[static WIRE_OFFER_LEN],
				const struct cipher_list *ours)
{
	if (!negotiate_offer_valid(offer))
		return AEAD_AUTO;
	for (unsigned i = 0; i < WIRE_OFFER_LEN && offer[i]; i++)
		if (known(offer[i]) && negotiate_list_has(ours, (enum aead_cipher)offer[i]))
			return (enum aead_cipher)offer[i];
	return AEAD_AUTO;
}

bool negotiate_choice_valid(const uint8_t offer[static WIRE_OFFER_LEN], uint8_t choice)
{
	if (!known(choice) || !negotiate_offer_valid(offer))
		return false;
	for (unsigned i = 0; i < WIRE_OFFER_LEN && offer[i]; i++)
		if (offer[i] == choice)
			return true;
	return false;
}
