// SPDX-License-Identifier: MIT
/*
 * ICMPv4 "fragmentation needed" and ICMPv6 "packet too big" replies for inner
 * packets that do not fit the tunnel (see icmp.h for how the data path uses
 * them). Every field is read through bytes.h after the length is checked.
 */
#include <errno.h>
#include <string.h>

#include "bytes.h"
#include "icmp.h"

#define IPPROTO_ICMP_	1
#define IPPROTO_ICMPV6_ 58
#define V4_DF		0x4000
#define V4_MF		0x2000
#define V4_OFFSET_MASK	0x1fff
#define REPLY_TTL	64
/* Precedence "internetwork control" (CS6), as routers mark ICMP errors. */
#define REPLY_TOS 0xc0

struct inner {
	int version; /* 4 or 6 */
	size_t len;  /* packet length from its header (trailing bytes ignored) */
	size_t hlen; /* IPv4 header length */
};

static bool parse_inner(const uint8_t *pkt, size_t len, struct inner *in)
{
	if (!pkt || len < 1)
		return false;
	in->version = pkt[0] >> 4;
	if (in->version == 4) {
		if (len < ICMP_IPV4_HDR_MIN)
			return false;
		in->hlen = (size_t)(pkt[0] & 0x0f) * 4;
		in->len = get_be16(pkt + 2);
		return in->hlen >= ICMP_IPV4_HDR_MIN && in->hlen <= in->len && in->len <= len;
	}
	if (in->version == 6) {
		if (len < ICMP_IPV6_HDR_LEN)
			return false;
		in->hlen = ICMP_IPV6_HDR_LEN;
		/* A zero payload length with more bytes is a jumbogram: not ours. */
		in->len = ICMP_IPV6_HDR_LEN + (size_t)get_be16(pkt + 4);
		if (get_be16(pkt + 4) == 0 && len > ICMP_IPV6_HDR_LEN)
			return false;
		return in->len <= len;
	}
	return false;
}

static uint32_t effective_mtu(int version, uint32_t mtu)
{
	if (version == 6)
		return mtu < ICMP_V6_MIN_MTU ? ICMP_V6_MIN_MTU : mtu;
	if (mtu < ICMP_V4_MIN_MTU)
		return ICMP_V4_MIN_MTU;
	return mtu > 0xffff ? 0xffff : mtu;
}

bool icmp_needs_too_big(const uint8_t *pkt, size_t len, uint32_t mtu)
{
	struct inner in;

	if (!parse_inner(pkt, len, &in))
		return false;
	if (in.version == 4 && !(get_be16(pkt + 6) & V4_DF))
		return false;
	return in.len > effective_mtu(in.version, mtu);
}

static uint32_t sum16(const uint8_t *buf, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += get_be16(buf + i);
	if (len & 1)
		sum += (uint32_t)buf[len - 1] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint16_t icmp_checksum(const uint8_t *buf, size_t len, uint32_t sum)
{
	/* Sum in chunks so a long buffer cannot overflow the 32-bit accumulator. */
	while (len > 65536) {
		sum = sum16(buf, 65536, sum);
		sum = (sum & 0xffff) + (sum >> 16);
		buf += 65536;
		len -= 65536;
	}
	return fold(sum16(buf, len, sum));
}

/* RFC 1812 4.3.2.7: no error about an error, a non-first fragment, a packet
 * to a broadcast or multicast address, or from an address that is not a
 * single host. */
static bool v4_reply_allowed(const uint8_t *pkt, const struct inner *in)
{
	uint8_t s0 = pkt[12], d0 = pkt[16];

	if (get_be16(pkt + 6) & V4_OFFSET_MASK)
		return false;
	if (s0 == 0 || s0 == 127 || s0 >= 224)
		return false;
	if ((d0 >= 224 && d0 < 240) || get_be32(pkt + 16) == 0xffffffffu)
		return false;
	if (pkt[9] == IPPROTO_ICMP_) {
		uint8_t type;

		if (in->len < in->hlen + 1)
			return false;
		type = pkt[in->hlen];
		if (type == 3 || type == 4 || type == 5 || type == 11 || type == 12)
			return false;
	}
	return true;
}

static bool is_v6_ext(uint8_t nh)
{
	return nh == 0 || nh == 43 || nh == 60 || nh == 44 || nh == 51;
}

/* RFC 4443 2.4(e): no error about an ICMPv6 error message; a too-big reply
 * is allowed even to a multicast destination, never from an unspecified,
 * loopback or multicast source. Returns 1 allowed, 0 not, -EINVAL malformed. */
static int v6_reply_allowed(const uint8_t *pkt, const struct inner *in)
{
	static const uint8_t loopback[16] = { [15] = 1 };
	static const uint8_t unspec[16];
	uint8_t nh = pkt[6];
	size_t off = ICMP_IPV6_HDR_LEN;

	if (pkt[8] == 0xff || !memcmp(pkt + 8, unspec, 16) || !memcmp(pkt + 8, loopback, 16))
		return 0;
	while (is_v6_ext(nh)) {
		size_t elen;

		if (off + 8 > in->len)
			return -EINVAL;
		if (nh == 44) {
			/* A later fragment carries no upper-layer header. */
			if (get_be16(pkt + off + 2) & 0xfff8)
				return 1;
			elen = 8;
		} else if (nh == 51) {
			elen = ((size_t)pkt[off + 1] + 2) * 4;
		} else {
			elen = ((size_t)pkt[off + 1] + 1) * 8;
		}
		nh = pkt[off];
		off += elen;
	}
	if (nh == IPPROTO_ICMPV6_) {
		if (off + 1 > in->len)
			return -EINVAL;
		if (pkt[off] < 128)
			return 0;
	}
	return 1;
}

static size_t build_v4(const uint8_t *pkt, const struct inner *in, uint32_t mtu, const uint8_t *src,
		       uint8_t *out)
{
	size_t quote = in->len;
	size_t total;
	uint8_t *icmp;

	if (quote > ICMP_V4_REPLY_MAX - ICMP_IPV4_HDR_MIN - ICMP_HDR_LEN)
		quote = ICMP_V4_REPLY_MAX - ICMP_IPV4_HDR_MIN - ICMP_HDR_LEN;
	total = ICMP_IPV4_HDR_MIN + ICMP_HDR_LEN + quote;

	memset(out, 0, ICMP_IPV4_HDR_MIN + ICMP_HDR_LEN);
	out[0] = 0x45;
	out[1] = REPLY_TOS;
	put_be16(out + 2, (uint16_t)total);
	/* An atomic datagram (DF set): RFC 6864 lets its ID be zero. */
	put_be16(out + 6, V4_DF);
	out[8] = REPLY_TTL;
	out[9] = IPPROTO_ICMP_;
	memcpy(out + 12, src, 4);
	memcpy(out + 16, pkt + 12, 4);
	put_be16(out + 10, icmp_checksum(out, ICMP_IPV4_HDR_MIN, 0));

	icmp = out + ICMP_IPV4_HDR_MIN;
	icmp[0] = ICMP_V4_TYPE_UNREACH;
	icmp[1] = ICMP_V4_CODE_FRAG_NEEDED;
	put_be16(icmp + 6, (uint16_t)effective_mtu(4, mtu));
	memcpy(icmp + ICMP_HDR_LEN, pkt, quote);
	put_be16(icmp + 2, icmp_checksum(icmp, ICMP_HDR_LEN + quote, 0));
	return total;
}

static uint32_t v6_pseudo_sum(const uint8_t *src, const uint8_t *dst, uint32_t ulen)
{
	uint8_t tail[8] = { 0 };

	put_be32(tail, ulen);
	tail[7] = IPPROTO_ICMPV6_;
	return sum16(tail, sizeof(tail), sum16(dst, 16, sum16(src, 16, 0)));
}

static size_t build_v6(const uint8_t *pkt, const struct inner *in, uint32_t mtu, const uint8_t *src,
		       uint8_t *out)
{
	size_t quote = in->len;
	size_t plen;
	uint8_t *icmp;

	if (quote > ICMP_V6_REPLY_MAX - ICMP_IPV6_HDR_LEN - ICMP_HDR_LEN)
		quote = ICMP_V6_REPLY_MAX - ICMP_IPV6_HDR_LEN - ICMP_HDR_LEN;
	plen = ICMP_HDR_LEN + quote;

	memset(out, 0, ICMP_IPV6_HDR_LEN + ICMP_HDR_LEN);
	out[0] = 0x60;
	put_be16(out + 4, (uint16_t)plen);
	out[6] = IPPROTO_ICMPV6_;
	out[7] = REPLY_TTL;
	memcpy(out + 8, src, 16);
	memcpy(out + 24, pkt + 8, 16);

	icmp = out + ICMP_IPV6_HDR_LEN;
	icmp[0] = ICMP_V6_TYPE_TOO_BIG;
	put_be32(icmp + 4, effective_mtu(6, mtu));
	memcpy(icmp + ICMP_HDR_LEN, pkt, quote);
	put_be16(icmp + 2,
		 icmp_checksum(icmp, plen, v6_pseudo_sum(out + 8, out + 24, (uint32_t)plen)));
	return ICMP_IPV6_HDR_LEN + plen;
}

ssize_t icmp_build_too_big(const uint8_t *pkt, size_t len, uint32_t mtu, const uint8_t *src,
			   size_t src_len, uint8_t *out, size_t out_cap)
{
	struct inner in;
	int allowed;

	if (!out || !parse_inner(pkt, len, &in))
		return -EINVAL;
	if (in.version == 4) {
		if (src && src_len != 4)
			return -EINVAL;
		if (!v4_reply_allowed(pkt, &in))
			return 0;
		if (!src)
			src = pkt + 16;
		if (out_cap < ICMP_V4_REPLY_MAX &&
		    out_cap < ICMP_IPV4_HDR_MIN + ICMP_HDR_LEN + in.len)
			return -ENOSPC;
		return (ssize_t)build_v4(pkt, &in, mtu, src, out);
	}
	if (src && src_len != 16)
		return -EINVAL;
	allowed = v6_reply_allowed(pkt, &in);
	if (allowed <= 0)
		return allowed;
	if (!src) {
		if (pkt[24] == 0xff)
			return 0;
		src = pkt + 24;
	}
	if (out_cap < ICMP_V6_REPLY_MAX && out_cap < ICMP_IPV6_HDR_LEN + ICMP_HDR_LEN + in.len)
		return -ENOSPC;
	return (ssize_t)build_v6(pkt, &in, mtu, src, out);
}

static bool parse_v4_reply(const uint8_t *pkt, size_t len, uint32_t *mtu)
{
	size_t hlen = (size_t)(pkt[0] & 0x0f) * 4;
	size_t tot = get_be16(pkt + 2);
	const uint8_t *icmp;

	if (hlen < ICMP_IPV4_HDR_MIN || tot > len || tot < hlen + ICMP_HDR_LEN)
		return false;
	if (pkt[9] != IPPROTO_ICMP_ || icmp_checksum(pkt, hlen, 0) != 0)
		return false;
	icmp = pkt + hlen;
	if (icmp[0] != ICMP_V4_TYPE_UNREACH || icmp[1] != ICMP_V4_CODE_FRAG_NEEDED)
		return false;
	if (icmp_checksum(icmp, tot - hlen, 0) != 0)
		return false;
	*mtu = get_be16(icmp + 6);
	return true;
}

static bool parse_v6_reply(const uint8_t *pkt, size_t len, uint32_t *mtu)
{
	size_t plen = get_be16(pkt + 4);
	const uint8_t *icmp = pkt + ICMP_IPV6_HDR_LEN;

	if (len < ICMP_IPV6_HDR_LEN + ICMP_HDR_LEN || plen < ICMP_HDR_LEN ||
	    ICMP_IPV6_HDR_LEN + plen > len)
		return false;
	if (pkt[6] != IPPROTO_ICMPV6_ || icmp[0] != ICMP_V6_TYPE_TOO_BIG || icmp[1] != 0)
		return false;
	if (icmp_checksum(icmp, plen, v6_pseudo_sum(pkt + 8, pkt + 24, (uint32_t)plen)) != 0)
		return false;
	*mtu = get_be32(icmp + 4);
	return true;
}

bool icmp_parse_too_big(const uint8_t *pkt, size_t len, uint32_t *mtu)
{
	if (!pkt || !mtu || len < ICMP_IPV4_HDR_MIN + ICMP_HDR_LEN)
		return false;
	if ((pkt[0] >> 4) == 4)
		return parse_v4_reply(pkt, len, mtu);
	if ((pkt[0] >> 4) == 6)
		return parse_v6_reply(pkt, len, mtu);
	return false;
}
