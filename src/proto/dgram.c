// SPDX-License-Identifier: MIT
/*
 * The header of every UDP test datagram (layouts in proto.h), full or
 * short: written once per buffer, restamped per send, parsed by the
 * receiver, and a short one's truncated fields widened again.
 */
#include <errno.h>

#include "bytes.h"
#include "proto.h"

#define ALL_FLAGS (DGRAM_F_OMIT | DGRAM_F_FIN)

static void put_be48(uint8_t *p, uint64_t v)
{
	put_be16(p, (uint16_t)(v >> 32));
	put_be32(p + 2, (uint32_t)v);
}

static uint64_t get_be48(const uint8_t *p)
{
	return (uint64_t)get_be16(p) << 32 | get_be32(p + 2);
}

int dgram_put(uint8_t *buf, size_t len, const struct dgram_hdr *h)
{
	if (len < DGRAM_SHORT_HDR_LEN)
		return -EINVAL;
	if (len < DGRAM_HDR_LEN) {
		put_be16(buf, DGRAM_SHORT_MAGIC);
		buf[2] = (uint8_t)h->flags;
		buf[3] = (uint8_t)h->stream;
		put_be16(buf + 14, (uint16_t)(h->test_id & DGRAM_SHORT_ID_MASK));
		dgram_restamp(buf, len, h->seq, h->send_ns);
		return 0;
	}
	put_be32(buf, DGRAM_MAGIC);
	put_be16(buf + 4, h->stream);
	put_be16(buf + 6, h->flags);
	put_be64(buf + 8, h->seq);
	put_be64(buf + 16, h->send_ns);
	put_be32(buf + 24, h->test_id);
	put_be32(buf + 28, 0);
	return 0;
}

void dgram_restamp(uint8_t *buf, size_t len, uint64_t seq, uint64_t send_ns)
{
	if (len < DGRAM_HDR_LEN) {
		put_be32(buf + 4, (uint32_t)seq);
		put_be48(buf + 8, send_ns);
		return;
	}
	put_be64(buf + 8, seq);
	put_be64(buf + 16, send_ns);
}

static bool parse_short(const uint8_t *buf, size_t len, struct dgram_hdr *h)
{
	if (len < DGRAM_SHORT_HDR_LEN || len >= DGRAM_HDR_LEN || buf[2] & ~ALL_FLAGS)
		return false;
	h->flags = buf[2];
	h->stream = buf[3];
	h->seq = get_be32(buf + 4);
	h->send_ns = get_be48(buf + 8);
	h->test_id = get_be16(buf + 14);
	h->narrow = true;
	return true;
}

bool dgram_parse(const uint8_t *buf, size_t len, struct dgram_hdr *h)
{
	if (len >= 2 && get_be16(buf) == DGRAM_SHORT_MAGIC)
		return parse_short(buf, len, h);
	if (len < LOAD_UDP_MIN_LEN || get_be32(buf) != DGRAM_MAGIC)
		return false;
	h->stream = get_be16(buf + 4);
	h->flags = get_be16(buf + 6);
	if (h->flags & ~(uint16_t)ALL_FLAGS)
		return false;
	h->seq = get_be64(buf + 8);
	h->send_ns = get_be64(buf + 16);
	h->test_id = get_be32(buf + 24);
	h->narrow = false;
	return true;
}

uint64_t dgram_extend(uint64_t ref, uint64_t low, unsigned bits)
{
	uint64_t span = 1ULL << bits, half = span >> 1, mask = span - 1;
	uint64_t v = (ref & ~mask) | (low & mask);

	/* serial-number arithmetic (RFC 1982): the candidate within half a
	 * span of ref, one span up or down from the same epoch */
	if (v > ref && v - ref > half && v >= span)
		return v - span;
	if (v < ref && ref - v > half && v <= UINT64_MAX - span)
		return v + span;
	return v;
}

/* Widening a widened header again changes nothing: the nearest value with
 * the same low bits is itself. */
void dgram_widen(struct dgram_hdr *h, uint64_t seq_ref, uint64_t now_ns)
{
	if (!h->narrow)
		return;
	h->seq = dgram_extend(seq_ref, h->seq, DGRAM_SHORT_SEQ_BITS);
	h->send_ns = dgram_extend(now_ns, h->send_ns, DGRAM_SHORT_TS_BITS);
}

bool dgram_is_of(const struct dgram_hdr *h, uint32_t test_id, uint16_t stream)
{
	uint32_t mask = h->narrow ? DGRAM_SHORT_ID_MASK : UINT32_MAX;

	return (h->test_id & mask) == (test_id & mask) && h->stream == stream;
}
