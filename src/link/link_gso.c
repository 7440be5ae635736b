// SPDX-License-Identifier: MIT
#define _GNU_SOURCE /* recvmmsg(), sendmmsg(), struct mmsghdr */
/*
 * A GSO/TSO super-packet that a host's stack hands its veth is one frame of
 * up to 64 KiB standing for several wire packets. The link applies loss,
 * rate and reorder to wire packets, so it cuts the frame into them as a NIC
 * would (TCP: sequence numbers, FIN/PSH on the last segment, CWR on the
 * first, IPv4 identification +1 each; UDP GSO: datagrams of gso_size) and
 * leaves each segment's TCP or UDP checksum partial, as the stack left the
 * super-packet's: the field holds the pseudo-header sum and the virtio_net
 * header says where the sum starts (VIRTIO_NET_HDR_F_NEEDS_CSUM), so the
 * receiving veth treats it as the host's own packets (CHECKSUM_PARTIAL).
 * The IPv4 header checksum is computed in full. Pure: no allocation.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "bytes.h"
#include "link_int.h"

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define TCP_FIN	       0x01
#define TCP_PSH	       0x08
#define TCP_CWR	       0x80
#define IPPROTO_TCP_   6
#define IPPROTO_UDP_   17

/* Where a super-packet's headers end and how it is cut. */
struct cut {
	size_t l3, l4, hdr; /* offsets: IP header, TCP/UDP header, payload */
	unsigned gso_size, nseg;
	bool v6, tcp;
};

static uint32_t sum16(const uint8_t *p, size_t len, uint32_t sum)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += get_be16(p + i);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static int parse(const struct virtio_net_hdr *h, const uint8_t *f, size_t len, struct cut *c)
{
	unsigned type = h->gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
	uint16_t proto;

	if (len < LINK_ETH_HLEN + 40 || !(h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return -EINVAL;
	proto = get_be16(f + 12);
	c->l3 = LINK_ETH_HLEN;
	c->v6 = proto == ETHERTYPE_IPV6;
	if (proto != ETHERTYPE_IPV4 && proto != ETHERTYPE_IPV6)
		return -EINVAL; /* VLAN-tagged or other: not cut */
	if (!c->v6 && ((f[c->l3] >> 4) != 4 || (f[c->l3] & 15) < 5))
		return -EINVAL;
	if (c->v6 && (f[c->l3] >> 4) != 6)
		return -EINVAL;
	c->l4 = le16toh(h->csum_start);
	c->tcp = type == VIRTIO_NET_HDR_GSO_TCPV4 || type == VIRTIO_NET_HDR_GSO_TCPV6;
	if (!c->tcp && type != VIRTIO_NET_HDR_GSO_UDP_L4)
		return -EINVAL;
	if (type == VIRTIO_NET_HDR_GSO_TCPV4 && c->v6)
		return -EINVAL;
	if (c->l4 < c->l3 + (c->v6 ? 40 : (size_t)(f[c->l3] & 15) * 4) || c->l4 + 20 > len)
		return -EINVAL;
	c->hdr = c->l4 + (c->tcp ? (size_t)(f[c->l4 + 12] >> 4) * 4 : 8);
	c->gso_size = le16toh(h->gso_size);
	if ((c->tcp && c->hdr < c->l4 + 20) || c->hdr >= len || !c->gso_size)
		return -EINVAL;
	c->nseg = (unsigned)((len - c->hdr + c->gso_size - 1) / c->gso_size);
	return 0;
}

int link_gso_count(const struct virtio_net_hdr *h, const uint8_t *frame, size_t len)
{
	struct cut c;

	if ((h->gso_type & ~VIRTIO_NET_HDR_GSO_ECN) == VIRTIO_NET_HDR_GSO_NONE)
		return 1;
	if (parse(h, frame, len, &c))
		return -EINVAL;
	return (int)c.nseg;
}

/* The pseudo-header sum (RFC 793 3.1, RFC 768, RFC 8200 8.1) for l4len bytes. */
static uint16_t pseudo(const struct cut *c, const uint8_t *s, size_t l4len)
{
	uint32_t sum = c->tcp ? IPPROTO_TCP_ : IPPROTO_UDP_;

	if (c->v6)
		sum = sum16(s + c->l3 + 8, 32, sum);
	else
		sum = sum16(s + c->l3 + 12, 8, sum);
	sum += (uint32_t)(l4len >> 16) + (uint32_t)(l4len & 0xffff);
	return fold(sum);
}

static void fix_headers(const struct cut *c, uint8_t *s, size_t seglen, unsigned i)
{
	size_t l4len = seglen - c->l4;

	if (c->v6) {
		put_be16(s + c->l3 + 4, (uint16_t)(seglen - c->l3 - 40));
	} else {
		size_t ihl = (size_t)(s[c->l3] & 15) * 4;

		put_be16(s + c->l3 + 2, (uint16_t)(seglen - c->l3));
		put_be16(s + c->l3 + 4, (uint16_t)(get_be16(s + c->l3 + 4) + i));
		put_be16(s + c->l3 + 10, 0);
		put_be16(s + c->l3 + 10, (uint16_t)~fold(sum16(s + c->l3, ihl, 0)));
	}
	if (c->tcp) {
		put_be32(s + c->l4 + 4, get_be32(s + c->l4 + 4) + i * c->gso_size);
		if (i + 1 < c->nseg)
			s[c->l4 + 13] &= (uint8_t) ~(TCP_FIN | TCP_PSH);
		if (i)
			s[c->l4 + 13] &= (uint8_t)~TCP_CWR;
		put_be16(s + c->l4 + 16, pseudo(c, s, l4len));
	} else {
		put_be16(s + c->l4 + 4, (uint16_t)l4len);
		put_be16(s + c->l4 + 6, pseudo(c, s, l4len));
	}
}

int link_gso_segment(const struct virtio_net_hdr *h, const uint8_t *frame, size_t len, unsigned i,
		     uint8_t *out, size_t cap, struct virtio_net_hdr *oh)
{
	size_t off, plen;
	struct cut c;

	if ((h->gso_type & ~VIRTIO_NET_HDR_GSO_ECN) == VIRTIO_NET_HDR_GSO_NONE) {
		if (i || len > cap)
			return i ? -EINVAL : -ENOSPC;
		memcpy(out, frame, len);
		*oh = *h;
		return (int)len;
	}
	if (parse(h, frame, len, &c) || i >= c.nseg)
		return -EINVAL;
	off = c.hdr + (size_t)i * c.gso_size;
	plen = len - off < c.gso_size ? len - off : c.gso_size;
	if (c.hdr + plen > cap)
		return -ENOSPC;
	memcpy(out, frame, c.hdr);
	memcpy(out + c.hdr, frame + off, plen);
	fix_headers(&c, out, c.hdr + plen, i);
	memset(oh, 0, sizeof(*oh));
	oh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	oh->gso_type = VIRTIO_NET_HDR_GSO_NONE;
	oh->csum_start = htole16((uint16_t)c.l4);
	oh->csum_offset = htole16(c.tcp ? 16 : 6);
	return (int)(c.hdr + plen);
}
