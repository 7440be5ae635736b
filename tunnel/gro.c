// SPDX-License-Identifier: MIT
#include <errno.h>
#include <netinet/udp.h>
#include <linux/virtio_net.h>
#include <string.h>
#include <sys/socket.h>

#include "bytes.h"
#include "gro.h"

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_PSH 0x08
#define TCP_ACK 0x10
#define TCP_URG 0x20
#define TCP_ECE 0x40
#define TCP_CWR 0x80

void gro_init(struct gro *g, uint8_t *buf, bool udp)
{
	memset(g, 0, sizeof(*g));
	g->buf = buf;
	g->udp = udp;
}

struct seg {
	bool v6;
	uint8_t proto;
	size_t ip_hl, l4_hl, hdr, payload;
	const uint8_t *l4;
};

static bool parse_udp(size_t len, struct seg *s)
{
	s->l4_hl = 8;
	s->hdr = s->ip_hl + 8;
	if (s->hdr > len || get_be16(s->l4 + 4) != len - s->ip_hl)
		return false; /* the UDP length must agree with the IP length */
	s->payload = len - s->hdr;
	return s->payload > 0;
}

static bool parse(const struct gro *g, const uint8_t *p, size_t len, struct seg *s)
{
	size_t total;

	if (len < 1)
		return false;
	s->v6 = p[0] >> 4 == 6;
	if (p[0] == 0x45) {				    /* IPv4 without options */
		if (len < 20 || (get_be16(p + 6) & 0x3fff)) /* MF or offset */
			return false;
		s->proto = p[9];
		total = get_be16(p + 2);
		s->ip_hl = 20;
	} else if (s->v6) {
		if (len < 40)
			return false;
		s->proto = p[6]; /* no extension headers */
		total = 40 + (size_t)get_be16(p + 4);
		s->ip_hl = 40;
	} else {
		return false;
	}
	if (total != len || (s->proto != GRO_TCP && !(s->proto == GRO_UDP && g->udp)))
		return false;
	s->l4 = p + s->ip_hl;
	if (s->proto == GRO_UDP)
		return parse_udp(len, s);
	if (len < s->ip_hl + 20)
		return false;
	s->l4_hl = (size_t)(s->l4[12] >> 4) * 4;
	s->hdr = s->ip_hl + s->l4_hl;
	if (s->l4_hl < 20 || s->hdr > len)
		return false;
	s->payload = len - s->hdr;
	/* Data with ACK, maybe PSH: nothing else coalesces. */
	return s->payload > 0 && (s->l4[13] & ~(TCP_PSH)) == TCP_ACK;
}

bool gro_start(struct gro *g, const uint8_t *pkt, size_t len)
{
	struct seg s;

	if (!parse(g, pkt, len, &s))
		return false;
	memcpy(g->buf + GSO_VNET_HDR_LEN, pkt, len);
	g->len = len;
	g->ip_hl = s.ip_hl;
	g->hdr = s.hdr;
	g->v6 = s.v6;
	g->proto = s.proto;
	g->gso_size = (uint16_t)s.payload;
	g->segs = 1;
	g->next_seq = s.proto == GRO_TCP ? get_be32(s.l4 + 4) + (uint32_t)s.payload : 0;
	g->closed = s.proto == GRO_TCP && (s.l4[13] & TCP_PSH);
	return true;
}

/* Same flow and same headers but for the fields a segment may change. */
static bool same_flow(const struct gro *g, const uint8_t *p, const struct seg *s)
{
	const uint8_t *h = g->buf + GSO_VNET_HDR_LEN;
	const uint8_t *ht = h + g->ip_hl;

	if (s->v6 != g->v6 || s->proto != g->proto || s->hdr != g->hdr)
		return false;
	if (!s->v6) {
		/* version/IHL, TOS; TTL, protocol; addresses. Not length, ID, checksum. */
		if (h[0] != p[0] || h[1] != p[1] || h[8] != p[8] || memcmp(h + 12, p + 12, 8) ||
		    (h[6] & 0x40) != (p[6] & 0x40))
			return false;
	} else if (memcmp(h, p, 4) || h[7] != p[7] || memcmp(h + 8, p + 8, 32)) {
		return false; /* version, class, flow label; hop limit; addresses */
	}
	if (s->proto == GRO_UDP)
		return !memcmp(ht, s->l4, 4); /* ports */
	/* ports; ack; data offset and flags (PSH aside); window; urgent; options */
	return !memcmp(ht, s->l4, 4) && !memcmp(ht + 8, s->l4 + 8, 5) &&
	       (ht[13] & ~TCP_PSH) == (s->l4[13] & ~TCP_PSH) && !memcmp(ht + 14, s->l4 + 14, 2) &&
	       !memcmp(ht + 18, s->l4 + 18, 2) &&
	       !memcmp(ht + 20, s->l4 + 20, g->hdr - g->ip_hl - 20);
}

bool gro_append(struct gro *g, const uint8_t *pkt, size_t len)
{
	struct seg s;

	if (!g->len || g->closed || !parse(g, pkt, len, &s) || !same_flow(g, pkt, &s))
		return false;
	if (s.payload > g->gso_size || g->len + s.payload > GSO_MAX_PACKET ||
	    g->segs >= (s.proto == GRO_UDP ? GRO_UDP_MAX_SEGS : GSO_MAX_SEGS) ||
	    (s.proto == GRO_TCP && get_be32(s.l4 + 4) != g->next_seq))
		return false;
	memcpy(g->buf + GSO_VNET_HDR_LEN + g->len, pkt + s.hdr, s.payload);
	g->len += s.payload;
	g->segs++;
	if (s.payload < g->gso_size)
		g->closed = true;
	if (s.proto == GRO_UDP)
		return true;
	g->next_seq += (uint32_t)s.payload;
	if (s.l4[13] & TCP_PSH) {
		/* PSH on the last segment: the super-packet carries it. */
		g->buf[GSO_VNET_HDR_LEN + g->ip_hl + 13] |= TCP_PSH;
		g->closed = true;
	}
	return true;
}

size_t gro_flush(struct gro *g, const uint8_t **out)
{
	uint8_t *vh = g->buf, *p = g->buf + GSO_VNET_HDR_LEN, *l4;
	size_t len = g->len, l4_len;
	uint8_t pseudo[40];
	uint32_t sum;

	if (!len)
		return 0;
	*out = vh;
	g->len = 0;
	if (g->segs == 1) {
		gso_hdr_put_plain(vh, true);
		return GSO_VNET_HDR_LEN + len;
	}
	l4 = p + g->ip_hl;
	l4_len = len - g->ip_hl;
	if (!g->v6) {
		put_be16(p + 2, (uint16_t)len);
		put_be16(p + 10, 0);
		put_be16(p + 10, (uint16_t)~gso_csum_fold(gso_csum_add(p, 20, 0)));
		memcpy(pseudo, p + 12, 8);
		pseudo[8] = 0;
		pseudo[9] = g->proto;
		put_be16(pseudo + 10, (uint16_t)l4_len);
		sum = gso_csum_add(pseudo, 12, 0);
	} else {
		put_be16(p + 4, (uint16_t)l4_len);
		memcpy(pseudo, p + 8, 32);
		put_be32(pseudo + 32, (uint32_t)l4_len);
		memset(pseudo + 36, 0, 3);
		pseudo[39] = g->proto;
		sum = gso_csum_add(pseudo, 40, 0);
	}
	if (g->proto == GRO_UDP)
		put_be16(l4 + 4, (uint16_t)l4_len); /* the kernel's segmentation reads it */
	/* Partial checksum, as a stack hands to a NIC: the pseudo-header sum. */
	put_be16(l4 + (g->proto == GRO_UDP ? 6 : 16), gso_csum_fold(sum));
	memset(vh, 0, GSO_VNET_HDR_LEN);
	vh[0] = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh[1] = g->proto == GRO_UDP ? VIRTIO_NET_HDR_GSO_UDP_L4
		: g->v6		    ? VIRTIO_NET_HDR_GSO_TCPV6
				    : VIRTIO_NET_HDR_GSO_TCPV4;
	vh[2] = (uint8_t)g->hdr;
	vh[3] = (uint8_t)(g->hdr >> 8);
	vh[4] = (uint8_t)g->gso_size;
	vh[5] = (uint8_t)(g->gso_size >> 8);
	vh[6] = (uint8_t)g->ip_hl;
	vh[7] = 0;
	vh[8] = g->proto == GRO_UDP ? 6 : 16;
	vh[9] = 0;
	return GSO_VNET_HDR_LEN + len;
}

int gro_udp_gso_size(const void *control, size_t len)
{
	const uint8_t *c = control;
	size_t off = 0;

	/* The CMSG_* macros trust cmsg_len; walk by hand with bounds checks. */
	while (len - off >= sizeof(struct cmsghdr)) {
		struct cmsghdr h;
		size_t data, clen;

		memcpy(&h, c + off, sizeof(h));
		clen = h.cmsg_len;
		if (clen < CMSG_LEN(0) || clen > len - off)
			return h.cmsg_level == SOL_UDP && h.cmsg_type == UDP_GRO ? -EINVAL : 0;
		data = clen - CMSG_LEN(0);
		if (h.cmsg_level == SOL_UDP && h.cmsg_type == UDP_GRO) {
			int v;
			uint16_t v16;

			if (data >= sizeof(v)) {
				memcpy(&v, c + off + CMSG_LEN(0), sizeof(v));
			} else if (data >= sizeof(v16)) {
				memcpy(&v16, c + off + CMSG_LEN(0), sizeof(v16));
				v = v16;
			} else {
				return -EINVAL;
			}
			return v > 0 && v <= 65535 ? v : -EINVAL;
		}
		clen = CMSG_ALIGN(clen);
		if (clen > len - off)
			break;
		off += clen;
	}
	return 0;
}

size_t gro_udp_count(size_t len, size_t gso_size)
{
	if (!gso_size || gso_size >= len)
		return 1;
	return (len + gso_size - 1) / gso_size;
}

size_t gro_udp_segment(size_t len, size_t gso_size, size_t i, size_t *off)
{
	size_t o;

	if (i >= gro_udp_count(len, gso_size))
		return 0;
	if (!gso_size || gso_size >= len) {
		*off = 0;
		return len;
	}
	o = i * gso_size;
	*off = o;
	return len - o < gso_size ? len - o : gso_size;
}
