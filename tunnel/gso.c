// SPDX-License-Identifier: MIT
#include <errno.h>
#include <linux/virtio_net.h>
#include <string.h>

#include "bytes.h"
#include "gso.h"

#define TCP_FIN	  0x01
#define TCP_PSH	  0x08
#define TCP_CWR	  0x80
#define PROTO_TCP 6
#define PROTO_UDP 17

void gso_hdr_parse(const uint8_t b[static GSO_VNET_HDR_LEN], struct gso_hdr *h)
{
	h->flags = b[0];
	h->gso_type = b[1];
	h->hdr_len = (uint16_t)(b[2] | b[3] << 8);
	h->gso_size = (uint16_t)(b[4] | b[5] << 8);
	h->csum_start = (uint16_t)(b[6] | b[7] << 8);
	h->csum_offset = (uint16_t)(b[8] | b[9] << 8);
}

void gso_hdr_put_plain(uint8_t b[static GSO_VNET_HDR_LEN], bool data_valid)
{
	memset(b, 0, GSO_VNET_HDR_LEN);
	if (data_valid)
		b[0] = VIRTIO_NET_HDR_F_DATA_VALID;
}

/* a + b with the carry out added back in (ones'-complement addition). */
static inline uint64_t add_eac(uint64_t a, uint64_t b)
{
	uint64_t s;

	return __builtin_add_overflow(a, b, &s) ? s + 1 : s;
}

/* RFC 1071: the ones'-complement sum does not depend on byte order or on how
 * the bytes are grouped into words, so sum native 64-bit words into two
 * 128-bit accumulators (an add and an add-with-carry each; two chains so the
 * carries do not serialise), fold the carries back in once, and swap once at
 * the end (RFC 1071 2(B), 2(C)). 32 bytes per round: twice as fast as 32-bit
 * words on the TX path, where every segment of a TSO super-packet gets a
 * full TCP checksum. */
uint32_t gso_csum_add(const uint8_t *buf, size_t len, uint32_t sum)
{
	unsigned __int128 a0 = 0, a1 = 0;
	uint64_t w0, w1, w2, w3, acc;
	size_t i = 0;
	uint16_t folded;

	for (; i + 32 <= len; i += 32) {
		memcpy(&w0, buf + i, 8);
		memcpy(&w1, buf + i + 8, 8);
		memcpy(&w2, buf + i + 16, 8);
		memcpy(&w3, buf + i + 24, 8);
		a0 += w0;
		a1 += w1;
		a0 += w2;
		a1 += w3;
	}
	for (; i + 8 <= len; i += 8) {
		memcpy(&w0, buf + i, 8);
		a0 += w0;
	}
	a0 += a1; /* below 2^77 for any length up to 64 KiB */
	acc = add_eac((uint64_t)a0, (uint64_t)(a0 >> 64));
	if (i + 4 <= len) {
		uint32_t w;

		memcpy(&w, buf + i, 4);
		acc = add_eac(acc, w);
		i += 4;
	}
	if (i + 2 <= len) {
		uint16_t h;

		memcpy(&h, buf + i, 2);
		acc = add_eac(acc, h);
		i += 2;
	}
	if (i < len) {
		uint8_t last[2] = { buf[i], 0 };
		uint16_t h;

		memcpy(&h, last, 2);
		acc = add_eac(acc, h);
	}
	acc = (acc & 0xffffffff) + (acc >> 32);
	acc = (acc & 0xffffffff) + (acc >> 32);
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	folded = (uint16_t)acc;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	folded = (uint16_t)(folded << 8 | folded >> 8);
#endif
	return sum + folded;
}

uint16_t gso_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* Completes a partial checksum: the field holds the pseudo-header sum. */
static int finish_csum(const struct gso_hdr *h, uint8_t *buf, size_t len)
{
	size_t at = (size_t)h->csum_start + h->csum_offset;
	uint16_t c;

	if (h->csum_start >= len || at + 2 > len)
		return -EINVAL;
	c = (uint16_t)~gso_csum_fold(gso_csum_add(buf + h->csum_start, len - h->csum_start, 0));
	put_be16(buf + at, c ? c : 0xffff); /* UDP: 0 means "no checksum" */
	return 0;
}

/* Where a super-packet's headers end: IP, then TCP or an 8-byte UDP. */
struct l4_layout {
	bool v6;
	uint8_t proto; /* PROTO_TCP or PROTO_UDP */
	size_t ip_hl, l4_hl, hdr;
};

/* The IP header of a super-packet carrying proto: IPv4 (a UDP one without
 * fragments) or IPv6 without extension headers (not offloaded). */
static int parse_ip(const uint8_t *pkt, size_t len, uint8_t proto, struct l4_layout *t)
{
	if (len < 1)
		return -EINVAL;
	t->proto = proto;
	t->v6 = pkt[0] >> 4 == 6;
	if (pkt[0] >> 4 == 4) {
		if (len < 20 || pkt[9] != proto)
			return -EINVAL;
		if (proto == PROTO_UDP && (get_be16(pkt + 6) & 0x3fff))
			return -EINVAL;
		t->ip_hl = (size_t)(pkt[0] & 0x0f) * 4;
		if (t->ip_hl < 20)
			return -EINVAL;
	} else if (t->v6) {
		if (len < 40 || pkt[6] != proto)
			return -EINVAL;
		t->ip_hl = 40;
	} else {
		return -EINVAL;
	}
	return 0;
}

static int parse_tcp(const uint8_t *pkt, size_t len, struct l4_layout *t)
{
	if (parse_ip(pkt, len, PROTO_TCP, t) < 0 || len < t->ip_hl + 20)
		return -EINVAL;
	t->l4_hl = (size_t)(pkt[t->ip_hl + 12] >> 4) * 4;
	t->hdr = t->ip_hl + t->l4_hl;
	return t->l4_hl >= 20 && t->hdr <= len ? 0 : -EINVAL;
}

/* A UDP super-packet (USO): the IP header, then an 8-byte UDP header. */
static int parse_udp(const uint8_t *pkt, size_t len, struct l4_layout *t)
{
	if (parse_ip(pkt, len, PROTO_UDP, t) < 0)
		return -EINVAL;
	t->l4_hl = 8;
	t->hdr = t->ip_hl + 8;
	return t->hdr <= len ? 0 : -EINVAL;
}

/* Segment i's IP header for an l4_len-byte transport payload: IPv4 total
 * length, ID + i and header checksum, or the IPv6 payload length. Returns the
 * partial sum of the transport checksum's pseudo-header. */
static uint32_t fix_ip(const struct l4_layout *t, uint8_t *b, size_t l4_len, size_t i, uint16_t id,
		       uint8_t proto)
{
	uint8_t pseudo[40];

	if (!t->v6) {
		put_be16(b + 2, (uint16_t)(t->ip_hl + l4_len));
		put_be16(b + 4, (uint16_t)(id + i));
		put_be16(b + 10, 0);
		put_be16(b + 10, (uint16_t)~gso_csum_fold(gso_csum_add(b, t->ip_hl, 0)));
		memcpy(pseudo, b + 12, 8);
		pseudo[8] = 0;
		pseudo[9] = proto;
		put_be16(pseudo + 10, (uint16_t)l4_len);
		return gso_csum_add(pseudo, 12, 0);
	}
	put_be16(b + 4, (uint16_t)l4_len);
	memcpy(pseudo, b + 8, 32);
	put_be32(pseudo + 32, (uint32_t)l4_len);
	memset(pseudo + 36, 0, 3);
	pseudo[39] = proto;
	return gso_csum_add(pseudo, 40, 0);
}

/* Segment i of n of a TCP super-packet: IP header as above, sequence number,
 * FIN and PSH on the last segment only, CWR on the first, full checksum. */
static void fix_tcp_segment(const struct l4_layout *t, uint8_t *b, size_t chunk, size_t i, size_t n,
			    uint32_t seq, uint16_t id, uint16_t mss)
{
	uint8_t *tcp = b + t->ip_hl;
	size_t tcp_len = t->l4_hl + chunk;
	uint32_t sum = fix_ip(t, b, tcp_len, i, id, PROTO_TCP);

	put_be32(tcp + 4, seq + (uint32_t)(i * mss));
	if (i + 1 < n)
		tcp[13] &= (uint8_t) ~(TCP_FIN | TCP_PSH);
	if (i > 0)
		tcp[13] &= (uint8_t)~TCP_CWR;
	put_be16(tcp + 16, 0);
	put_be16(tcp + 16, (uint16_t)~gso_csum_fold(gso_csum_add(tcp, tcp_len, sum)));
}

/* Segment i of a UDP super-packet: IP length (and IPv4 ID + i, header
 * checksum), UDP length and a full UDP checksum (0 sent as 0xffff). */
static void fix_udp_segment(const struct l4_layout *t, uint8_t *b, size_t chunk, size_t i,
			    uint16_t id)
{
	uint8_t *udp = b + t->ip_hl;
	size_t udp_len = 8 + chunk;
	uint32_t sum = fix_ip(t, b, udp_len, i, id, PROTO_UDP);
	uint16_t c;

	put_be16(udp + 4, (uint16_t)udp_len);
	put_be16(udp + 6, 0);
	c = (uint16_t)~gso_csum_fold(gso_csum_add(udp, udp_len, sum));
	put_be16(udp + 6, c ? c : 0xffff);
}

/* Cuts the super-packet pkt, whose headers t describes, into segments of
 * h->gso_size payload bytes each (the last one shorter), every one with
 * its own copy of the headers, fixed for its place. */
static int segment(const struct gso_hdr *h, const uint8_t *pkt, size_t len,
		   const struct l4_layout *t, uint8_t *const *bufs, size_t cap, size_t nbufs,
		   size_t *lens)
{
	size_t payload = len - t->hdr;
	size_t n = payload ? (payload + h->gso_size - 1) / h->gso_size : 1;
	uint32_t seq;
	uint16_t id;

	if (n > nbufs || t->hdr + (payload < h->gso_size ? payload : h->gso_size) > cap)
		return -ENOSPC;
	seq = t->proto == PROTO_TCP ? get_be32(pkt + t->ip_hl + 4) : 0;
	id = t->v6 ? 0 : get_be16(pkt + 4);
	for (size_t i = 0; i < n; i++) {
		size_t off = i * h->gso_size;
		size_t chunk = payload - off < h->gso_size ? payload - off : h->gso_size;

		memcpy(bufs[i], pkt, t->hdr);
		memcpy(bufs[i] + t->hdr, pkt + t->hdr + off, chunk);
		if (t->proto == PROTO_TCP)
			fix_tcp_segment(t, bufs[i], chunk, i, n, seq, id, h->gso_size);
		else
			fix_udp_segment(t, bufs[i], chunk, i, id);
		lens[i] = t->hdr + chunk;
	}
	return (int)n;
}

int gso_split(const struct gso_hdr *h, const uint8_t *pkt, size_t len, uint8_t *const *bufs,
	      size_t cap, size_t nbufs, size_t *lens)
{
	uint8_t type = h->gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
	struct l4_layout t;
	int r;

	if (len == 0)
		return -EINVAL;
	if (nbufs < 1)
		return -ENOSPC;
	if (type == VIRTIO_NET_HDR_GSO_NONE) {
		if (len > cap)
			return -ENOSPC;
		memcpy(bufs[0], pkt, len);
		lens[0] = len;
		if ((h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
		    (r = finish_csum(h, bufs[0], len)) < 0)
			return r;
		return 1;
	}
	if (type == VIRTIO_NET_HDR_GSO_UDP_L4) {
		if (parse_udp(pkt, len, &t) < 0 || h->gso_size == 0)
			return -EINVAL;
		return segment(h, pkt, len, &t, bufs, cap, nbufs, lens);
	}
	if (type != VIRTIO_NET_HDR_GSO_TCPV4 && type != VIRTIO_NET_HDR_GSO_TCPV6)
		return -EINVAL;
	if (parse_tcp(pkt, len, &t) < 0 || t.v6 != (type == VIRTIO_NET_HDR_GSO_TCPV6) ||
	    h->gso_size == 0)
		return -EINVAL;
	return segment(h, pkt, len, &t, bufs, cap, nbufs, lens);
}
