// SPDX-License-Identifier: MIT
/* Sizes and rates between UDP payload, IP packet, Ethernet frame and line
 * (layer.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "layer.h"

static const char *const names[LAYER_COUNT] = { "payload", "ip", "frame", "line" };

const char *layer_name(enum layer l)
{
	return (unsigned)l < LAYER_COUNT ? names[l] : "?";
}

bool layer_parse(const char *s, enum layer *l)
{
	for (unsigned i = 0; s && i < LAYER_COUNT; i++) {
		if (strcmp(s, names[i]) == 0) {
			*l = (enum layer)i;
			return true;
		}
	}
	return false;
}

const char *layer_names(enum layer upto)
{
	return upto >= LAYER_LINE ? "payload, ip, frame or line" : "payload, ip or frame";
}

static unsigned headers(int family)
{
	return LAYER_UDP_HDR + (family == AF_INET6 ? LAYER_IPV6_HDR : LAYER_IPV4_HDR);
}

uint64_t layer_bytes(enum layer l, int family, uint32_t payload)
{
	uint64_t ip = (uint64_t)payload + headers(family);
	uint64_t frame = ip + LAYER_ETH_HDR + LAYER_ETH_FCS;

	if (frame < LAYER_ETH_MIN)
		frame = LAYER_ETH_MIN; /* 802.3 pads the data field */
	switch (l) {
	case LAYER_PAYLOAD:
		return payload;
	case LAYER_IP:
		return ip;
	case LAYER_FRAME:
		return frame;
	default:
		return frame + LAYER_ETH_WIRE;
	}
}

uint64_t layer_bytes_of(enum layer l, int family, uint64_t n, uint64_t payload_bytes)
{
	uint64_t b = payload_bytes;

	if (l >= LAYER_IP)
		b += n * headers(family);
	if (l >= LAYER_FRAME)
		b += n * (LAYER_ETH_HDR + LAYER_ETH_FCS);
	if (l >= LAYER_LINE)
		b += n * LAYER_ETH_WIRE;
	return b;
}

/* The payload before the range check; false with why when no UDP datagram
 * is size bytes at l. */
static bool raw_payload(enum layer l, int family, uint64_t size, uint64_t *payload, char *why,
			size_t whylen)
{
	uint64_t over = headers(family), min = over;

	if (l == LAYER_FRAME || l == LAYER_LINE) {
		over += LAYER_ETH_HDR + LAYER_ETH_FCS;
		min = over > LAYER_ETH_MIN ? over : LAYER_ETH_MIN;
	}
	if (l == LAYER_LINE) {
		over += LAYER_ETH_WIRE;
		min += LAYER_ETH_WIRE;
	}
	if (l == LAYER_PAYLOAD) {
		*payload = size;
		return true;
	}
	if (size < min) {
		snprintf(why, whylen,
			 "a UDP datagram over %s is at least %llu bytes at the %s layer, not %llu",
			 family == AF_INET6 ? "IPv6" : "IPv4", (unsigned long long)min,
			 layer_name(l), (unsigned long long)size);
		return false;
	}
	*payload = size - over; /* a padded minimum frame: its largest payload */
	return true;
}

/* RFC 5180 (5.1.1) carries RFC 2544's Ethernet frame sizes over to IPv6,
 * but a 64-byte frame has no room for IPv6, UDP and a tester's own header: say
 * what the smallest IPv6 frame is instead of only refusing (a size between
 * the two is refused with the range, which says it too). */
static void ipv6_note(enum layer l, int family, uint64_t size, uint32_t min_payload, char *why,
		      size_t whylen)
{
	uint64_t min = layer_bytes(l, family, min_payload);
	size_t n = strlen(why);

	if (family != AF_INET6 || (l != LAYER_FRAME && l != LAYER_LINE) || size >= min ||
	    n >= whylen)
		return;
	snprintf(why + n, whylen - n,
		 " (no 64-byte IPv6 test frame: the headers are 66 bytes; the smallest is %llu)",
		 (unsigned long long)min);
}

int layer_payload_len(enum layer l, int family, uint64_t size, uint32_t min_payload,
		      uint32_t max_payload, uint32_t *payload, char *why, size_t whylen)
{
	uint64_t p;

	if (!raw_payload(l, family, size, &p, why, whylen)) {
		ipv6_note(l, family, size, min_payload, why, whylen);
		return -EINVAL;
	}
	if (p < min_payload || p > max_payload) {
		snprintf(why, whylen,
			 "%llu bytes at the %s layer carry %llu bytes of UDP payload over %s; "
			 "ovlperf sends %u..%u (%llu..%llu bytes at the %s layer)",
			 (unsigned long long)size, layer_name(l), (unsigned long long)p,
			 family == AF_INET6 ? "IPv6" : "IPv4", min_payload, max_payload,
			 (unsigned long long)layer_bytes(l, family, min_payload),
			 (unsigned long long)layer_bytes(l, family, max_payload), layer_name(l));
		return -EINVAL;
	}
	*payload = (uint32_t)p;
	return 0;
}

int layer_rate(enum layer l, int family, uint32_t payload, uint64_t bps, uint64_t *pps,
	       uint64_t *payload_bps, char *why, size_t whylen)
{
	uint64_t bits = 8 * layer_bytes(l, family, payload);
	uint64_t n;

	if (payload == 0 || bits == 0) {
		snprintf(why, whylen, "no datagram size to convert the rate with");
		return -ERANGE;
	}
	n = bps / bits;
	if (bps > 0 && n == 0) {
		snprintf(why, whylen,
			 "%llu bit/s at the %s layer is less than one datagram a second "
			 "(%llu bits each)",
			 (unsigned long long)bps, layer_name(l), (unsigned long long)bits);
		return -ERANGE;
	}
	*pps = n;
	*payload_bps = n * 8 * payload;
	return 0;
}

void layer_bps(int family, uint32_t payload, double pps, double bps[static LAYER_COUNT])
{
	for (unsigned i = 0; i < LAYER_COUNT; i++)
		bps[i] = pps * 8.0 * (double)layer_bytes((enum layer)i, family, payload);
}
