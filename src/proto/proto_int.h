/* SPDX-License-Identifier: MIT */
/*
 * Private to the control-protocol codecs (src/proto/proto*.c): a sequential
 * writer and reader over buffers whose size the caller already checked, and
 * the start of every encoded message (its header written by proto_hdr.c).
 * The wire format is in include/proto/proto.h.
 */
#ifndef OVLPERF_PROTO_INT_H
#define OVLPERF_PROTO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "bytes.h"
#include "proto.h"

/* Sequential writer over a buffer whose size the caller already checked. */
struct wr {
	uint8_t *p;
	size_t off;
};

static inline void w8(struct wr *w, uint8_t v)
{
	w->p[w->off++] = v;
}

static inline void w16(struct wr *w, uint16_t v)
{
	put_be16(w->p + w->off, v);
	w->off += 2;
}

static inline void w32(struct wr *w, uint32_t v)
{
	put_be32(w->p + w->off, v);
	w->off += 4;
}

static inline void w64(struct wr *w, uint64_t v)
{
	put_be64(w->p + w->off, v);
	w->off += 8;
}

static inline void wbytes(struct wr *w, const void *b, size_t n)
{
	if (n) /* memcpy from NULL is undefined even for 0 bytes */
		memcpy(w->p + w->off, b, n);
	w->off += n;
}

/* Sequential reader over a body whose length the decoder already checked. */
struct rd {
	const uint8_t *p;
	size_t off;
};

static inline uint8_t r8(struct rd *r)
{
	return r->p[r->off++];
}

static inline uint16_t r16(struct rd *r)
{
	uint16_t v = get_be16(r->p + r->off);

	r->off += 2;
	return v;
}

static inline uint32_t r32(struct rd *r)
{
	uint32_t v = get_be32(r->p + r->off);

	r->off += 4;
	return v;
}

static inline uint64_t r64(struct rd *r)
{
	uint64_t v = get_be64(r->p + r->off);

	r->off += 8;
	return v;
}

static inline void rbytes(struct rd *r, void *b, size_t n)
{
	memcpy(b, r->p + r->off, n);
	r->off += n;
}

/* Copies wire text into a NUL-terminated string, replacing bytes that are
 * not printable ASCII, so a peer's text can be logged as is. A NUL ends it. */
static inline void copy_text(char *dst, const uint8_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && src[i]; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? (char)src[i] : '?';
	dst[i] = '\0';
}

/* Starts a message of body_len bytes: checks room, writes the header. */
static inline ssize_t begin(uint8_t *buf, size_t cap, uint16_t type, size_t body_len, struct wr *w)
{
	if (body_len > PROTO_MAX_BODY)
		return PROTO_E_VALUE;
	if (cap < PROTO_HDR_LEN + body_len)
		return PROTO_E_NOSPACE;
	proto_put_hdr(buf, type, (uint32_t)body_len);
	w->p = buf;
	w->off = PROTO_HDR_LEN;
	return (ssize_t)(PROTO_HDR_LEN + body_len);
}

static inline int fixed_len(size_t len, size_t want)
{
	return len == want ? 0 : PROTO_E_LENGTH;
}

#endif
