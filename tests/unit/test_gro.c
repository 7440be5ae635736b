// SPDX-License-Identifier: MIT
/* Receive coalescing: segments made by gso_split() come back together as the
 * original super-packet; what must not merge does not. */
#include <errno.h>
#include <linux/virtio_net.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <netinet/udp.h>
#include <sys/socket.h>

#include "bytes.h"
#include "gro.h"
#include "gso.h"

#define PAYLOAD 5000
#define MSS	1388

static uint8_t super[GSO_MAX_PACKET], seg[8][2048], grobuf[GSO_VNET_HDR_LEN + GSO_MAX_PACKET];

/* The IP header of super for proto and l4_len bytes after it: TTL 64, DF,
 * 198.19.0.2 -> 198.19.0.1 or 2001:2::1 -> 2001:2::2. Zeroes the 8 bytes
 * after it (the start of the transport header). */
static void ip_put(bool v6, uint8_t proto, size_t l4_len)
{
	size_t ip = v6 ? 40 : 20;

	memset(super, 0, ip + 8);
	if (v6) {
		super[0] = 0x60;
		put_be16(super + 4, (uint16_t)l4_len);
		super[6] = proto;
		super[7] = 64;
		super[8] = 0x20, super[23] = 1, super[24] = 0x20, super[39] = 2;
	} else {
		super[0] = 0x45;
		put_be16(super + 2, (uint16_t)(ip + l4_len));
		put_be16(super + 4, 100);
		super[6] = 0x40;
		super[8] = 64;
		super[9] = proto;
		put_be32(super + 12, 0xC6130002);
		put_be32(super + 16, 0xC6130001);
	}
}

static size_t build(bool v6, uint8_t flags)
{
	size_t ip = v6 ? 40 : 20, len = ip + 32 + PAYLOAD;
	uint8_t *t = super + ip;

	ip_put(v6, 6, 32 + PAYLOAD);
	memset(t, 0, 32);
	put_be16(t, 5001);
	put_be16(t + 2, 40000);
	put_be32(t + 4, 123456);
	put_be32(t + 8, 999);
	t[12] = 8 << 4;
	t[13] = flags;
	put_be16(t + 14, 1000);
	t[20] = 1, t[21] = 1, t[22] = 8, t[23] = 10, t[24] = 0xaa;
	for (size_t i = 0; i < PAYLOAD; i++)
		super[ip + 32 + i] = (uint8_t)(i * 13 + 1);
	return len;
}

static int split(bool v6, uint8_t flags, size_t *lens)
{
	uint8_t *bufs[8];
	size_t len = build(v6, flags);
	struct gso_hdr h = { .gso_type = v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4,
			     .gso_size = MSS };

	for (int i = 0; i < 8; i++)
		bufs[i] = seg[i];
	return gso_split(&h, super, len, bufs, sizeof(seg[0]), 8, lens);
}

static void round_trip(bool v6)
{
	size_t lens[8], ip = v6 ? 40 : 20, hdr = ip + 32;
	int n = split(v6, 0x18 /* ACK PSH */, lens);
	struct gro g;
	const uint8_t *out;
	size_t w;

	assert_int_equal(n, 4);
	gro_init(&g, grobuf, false);
	assert_true(gro_start(&g, seg[0], lens[0]));
	for (int i = 1; i < n; i++)
		assert_true(gro_append(&g, seg[i], lens[i]));
	w = gro_flush(&g, &out);
	assert_int_equal(w, GSO_VNET_HDR_LEN + hdr + PAYLOAD);
	assert_int_equal(out[0], VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(out[1], v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(out[2] | out[3] << 8, hdr);
	assert_int_equal(out[4] | out[5] << 8, MSS);
	assert_int_equal(out[6] | out[7] << 8, ip);
	assert_int_equal(out[8], 16);
	out += GSO_VNET_HDR_LEN;
	assert_memory_equal(out + hdr, super + hdr, PAYLOAD);
	assert_int_equal(get_be32(out + ip + 4), 123456);
	assert_int_equal(out[ip + 13], 0x18); /* PSH from the last segment */
	if (v6) {
		assert_int_equal(get_be16(out + 4), 32 + PAYLOAD);
	} else {
		assert_int_equal(get_be16(out + 2), hdr + PAYLOAD);
		assert_int_equal(gso_csum_fold(gso_csum_add(out, 20, 0)), 0xffff);
	}
	/* Splitting the result again gives the same segments back. */
	{
		struct gso_hdr h;
		uint8_t *bufs[8];
		size_t lens2[8];

		gso_hdr_parse(out - GSO_VNET_HDR_LEN, &h);
		for (int i = 0; i < 8; i++)
			bufs[i] = seg[i];
		memcpy(super, out, hdr + PAYLOAD);
		assert_int_equal(
			gso_split(&h, super, hdr + PAYLOAD, bufs, sizeof(seg[0]), 8, lens2), 4);
		assert_memory_equal(lens2, lens, sizeof(size_t) * 4);
	}
	assert_int_equal(gro_flush(&g, &out), 0);
}

static void test_round_trip4(void **state)
{
	(void)state;
	round_trip(false);
}

static void test_round_trip6(void **state)
{
	(void)state;
	round_trip(true);
}

static void test_not_merged(void **state)
{
	size_t lens[8];
	struct gro g;
	const uint8_t *out;

	(void)state;
	gro_init(&g, grobuf, false);
	assert_int_equal(split(false, 0x10, lens), 4);
	/* a gap in the sequence */
	gro_start(&g, seg[0], lens[0]);
	assert_false(gro_append(&g, seg[2], lens[2]));
	/* another flow: other port */
	put_be16(seg[1] + 20, 5002);
	assert_false(gro_append(&g, seg[1], lens[1]));
	put_be16(seg[1] + 20, 5001);
	/* another ACK number */
	put_be32(seg[1] + 28, 1000);
	assert_false(gro_append(&g, seg[1], lens[1]));
	put_be32(seg[1] + 28, 999);
	/* different options (timestamp) */
	seg[1][20 + 24] ^= 1;
	assert_false(gro_append(&g, seg[1], lens[1]));
	seg[1][20 + 24] ^= 1;
	assert_true(gro_append(&g, seg[1], lens[1]));
	assert_int_equal(gro_flush(&g, &out), GSO_VNET_HDR_LEN + 52 + 2 * MSS);
	/* a short segment closes the super-packet */
	gro_start(&g, seg[3], lens[3]);
	assert_false(gro_append(&g, seg[0], lens[0]));
	/* one segment only: written plain, checksum trusted */
	assert_int_equal(gro_flush(&g, &out), GSO_VNET_HDR_LEN + lens[3]);
	assert_int_equal(out[0], VIRTIO_NET_HDR_F_DATA_VALID);
	assert_int_equal(out[1], VIRTIO_NET_HDR_GSO_NONE);
	/* SYN, FIN, pure ACK and non-TCP never start one */
	split(false, 0x12, lens);
	assert_false(gro_start(&g, seg[0], lens[0]));
	split(false, 0x11, lens);
	assert_false(gro_start(&g, seg[3], lens[3]));
	assert_false(gro_start(&g, seg[0], 52)); /* length field disagrees */
	split(false, 0x10, lens);
	seg[0][9] = 17;
	assert_false(gro_start(&g, seg[0], lens[0]));
}

/* A UDP super-packet of `payload` bytes, as a socket with UDP_SEGMENT hands
 * it to the TUN (ports 5001 -> 40000, TTL 64, DF), split into datagrams of
 * gso bytes; returns how many. */
static int split_udp(bool v6, size_t payload, uint16_t gso, uint8_t (*out)[2048], size_t nout,
		     size_t *lens)
{
	size_t ip = v6 ? 40 : 20, len = ip + 8 + payload;
	uint8_t *u = super + ip, *bufs[80];
	struct gso_hdr h = { .gso_type = VIRTIO_NET_HDR_GSO_UDP_L4, .gso_size = gso };

	ip_put(v6, 17, 8 + payload);
	put_be16(u, 5001);
	put_be16(u + 2, 40000);
	put_be16(u + 4, (uint16_t)(8 + payload));
	for (size_t i = 0; i < payload; i++)
		super[ip + 8 + i] = (uint8_t)(i * 7 + 3);
	assert_true(nout <= 80);
	for (size_t i = 0; i < nout; i++)
		bufs[i] = out[i];
	return gso_split(&h, super, len, bufs, sizeof(out[0]), nout, lens);
}

static uint16_t csum16_add(uint16_t a, uint16_t b)
{
	uint32_t s = (uint32_t)a + b;

	return (uint16_t)(s + (s >> 16));
}

/* The UDP checksum a datagram of l4_len bytes at l4 should carry. */
static uint16_t udp_csum(bool v6, const uint8_t *ip, const uint8_t *l4, size_t l4_len)
{
	static uint8_t tmp[GSO_MAX_PACKET];
	uint8_t pseudo[40] = { 0 };
	uint32_t sum;
	uint16_t c;

	if (v6) {
		memcpy(pseudo, ip + 8, 32);
		put_be32(pseudo + 32, (uint32_t)l4_len);
		pseudo[39] = 17;
		sum = gso_csum_add(pseudo, 40, 0);
	} else {
		memcpy(pseudo, ip + 12, 8);
		pseudo[9] = 17;
		put_be16(pseudo + 10, (uint16_t)l4_len);
		sum = gso_csum_add(pseudo, 12, 0);
	}
	memcpy(tmp, l4, l4_len);
	put_be16(tmp + 6, 0);
	c = (uint16_t)~gso_csum_fold(gso_csum_add(tmp, l4_len, sum));
	return c ? c : 0xffff;
}

static uint8_t udp_seg[80][2048];

/* Coalesced datagrams come out as one GSO_UDP_L4 super-packet whose partial
 * checksum the kernel's segmentation (__udp_gso_segment: swap the length in
 * the partial sum, then complete it over each datagram) turns into the
 * datagrams' own checksums. */
static void udp_round_trip(bool v6)
{
	size_t lens[80], ip = v6 ? 40 : 20, hdr = ip + 8, payload = 5000;
	int n = split_udp(v6, payload, 1372, udp_seg, 80, lens);
	struct gro g;
	const uint8_t *out;
	const uint8_t *u;
	size_t w, l4_len = 8 + payload;

	assert_int_equal(n, 4);
	for (int i = 0; i < n; i++) /* the sender's datagrams are right */
		assert_int_equal(get_be16(udp_seg[i] + ip + 6),
				 udp_csum(v6, udp_seg[i], udp_seg[i] + ip, lens[i] - ip));
	gro_init(&g, grobuf, true);
	assert_true(gro_start(&g, udp_seg[0], lens[0]));
	for (int i = 1; i < n; i++)
		assert_true(gro_append(&g, udp_seg[i], lens[i]));
	w = gro_flush(&g, &out);
	assert_int_equal(w, GSO_VNET_HDR_LEN + hdr + payload);
	assert_int_equal(out[0], VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(out[1], VIRTIO_NET_HDR_GSO_UDP_L4);
	assert_int_equal(out[2] | out[3] << 8, hdr);
	assert_int_equal(out[4] | out[5] << 8, 1372);
	assert_int_equal(out[6] | out[7] << 8, ip);
	assert_int_equal(out[8], 6);
	out += GSO_VNET_HDR_LEN;
	u = out + ip;
	assert_memory_equal(out + hdr, super + hdr, payload);
	assert_int_equal(get_be16(u + 4), l4_len);
	if (v6) {
		assert_int_equal(get_be16(out + 4), l4_len);
	} else {
		assert_int_equal(get_be16(out + 2), hdr + payload);
		assert_int_equal(gso_csum_fold(gso_csum_add(out, 20, 0)), 0xffff);
	}
	/* Completed as a NIC would (sum from the UDP header on): the checksum
	 * of the super-packet as one datagram. */
	assert_int_equal((uint16_t)~gso_csum_fold(gso_csum_add(u, l4_len, 0)),
			 udp_csum(v6, out, u, l4_len));
	/* Segmented as the kernel does: each datagram's checksum as sent. */
	for (int i = 0; i < n; i++) {
		uint8_t d[2048];
		size_t dl = lens[i] - ip;
		uint16_t part = csum16_add(csum16_add(get_be16(u + 6), (uint16_t)~get_be16(u + 4)),
					   (uint16_t)dl);

		memcpy(d, u, 8);
		put_be16(d + 4, (uint16_t)dl);
		put_be16(d + 6, part);
		memcpy(d + 8, u + 8 + (size_t)i * 1372, dl - 8);
		assert_int_equal((uint16_t)~gso_csum_fold(gso_csum_add(d, dl, 0)),
				 get_be16(udp_seg[i] + ip + 6));
	}
	assert_int_equal(gro_flush(&g, &out), 0);
}

static void test_udp_round_trip4(void **state)
{
	(void)state;
	udp_round_trip(false);
}

static void test_udp_round_trip6(void **state)
{
	(void)state;
	udp_round_trip(true);
}

/* What must not coalesce into a UDP super-packet does not. */
static void test_udp_not_merged(void **state)
{
	size_t lens[80], n;
	struct gro g;
	const uint8_t *out;

	(void)state;
	assert_int_equal(split_udp(false, 4 * 1372, 1372, udp_seg, 80, lens), 4);
	/* off: UDP never starts one, and a TCP super-packet takes no UDP */
	gro_init(&g, grobuf, false);
	assert_false(gro_start(&g, udp_seg[0], lens[0]));
	gro_init(&g, grobuf, true);
	gro_start(&g, udp_seg[0], lens[0]);
	/* another flow: other port, TTL, TOS or DF; a UDP length that
	 * disagrees with the IP length */
	put_be16(udp_seg[1] + 20, 5002);
	assert_false(gro_append(&g, udp_seg[1], lens[1]));
	put_be16(udp_seg[1] + 20, 5001);
	udp_seg[1][8] = 63;
	assert_false(gro_append(&g, udp_seg[1], lens[1]));
	udp_seg[1][8] = 64;
	udp_seg[1][1] = 0x02; /* ECN bits */
	assert_false(gro_append(&g, udp_seg[1], lens[1]));
	udp_seg[1][1] = 0;
	udp_seg[1][6] = 0;
	assert_false(gro_append(&g, udp_seg[1], lens[1]));
	udp_seg[1][6] = 0x40;
	put_be16(udp_seg[1] + 24, 1000);
	assert_false(gro_append(&g, udp_seg[1], lens[1]));
	assert_false(gro_start(&g, udp_seg[1], lens[1]));
	put_be16(udp_seg[1] + 24, 8 + 1372);
	assert_true(gro_append(&g, udp_seg[1], lens[1]));
	/* a TCP segment never joins a UDP super-packet */
	split(false, 0x10, lens + 10);
	assert_false(gro_append(&g, seg[1], lens[11]));
	assert_int_equal(gro_flush(&g, &out), GSO_VNET_HDR_LEN + 28 + 2 * 1372);
	/* a longer datagram than the first does not join; a shorter one closes */
	assert_int_equal(split_udp(false, 1000 + 1372, 1000, udp_seg, 80, lens), 3);
	gro_start(&g, udp_seg[0], lens[0]); /* 1000 */
	assert_int_equal(split_udp(false, 1372, 1372, udp_seg + 1, 79, lens + 1), 1);
	assert_false(gro_append(&g, udp_seg[1], lens[1]));
	assert_int_equal(split_udp(false, 500, 500, udp_seg + 1, 79, lens + 1), 1);
	assert_true(gro_append(&g, udp_seg[1], lens[1]));
	assert_false(gro_append(&g, udp_seg[1], lens[1])); /* closed */
	assert_int_equal(gro_flush(&g, &out), GSO_VNET_HDR_LEN + 28 + 1500);
	/* one datagram alone: written plain, checksum trusted */
	gro_start(&g, udp_seg[0], lens[0]);
	assert_int_equal(gro_flush(&g, &out), GSO_VNET_HDR_LEN + lens[0]);
	assert_int_equal(out[0], VIRTIO_NET_HDR_F_DATA_VALID);
	assert_int_equal(out[1], VIRTIO_NET_HDR_GSO_NONE);
	/* at most GRO_UDP_MAX_SEGS datagrams, in the order they came */
	n = (size_t)split_udp(true, 70 * 100, 100, udp_seg, 80, lens);
	assert_int_equal(n, 70);
	gro_start(&g, udp_seg[0], lens[0]);
	for (size_t i = 1; i < n; i++)
		assert_int_equal(gro_append(&g, udp_seg[i], lens[i]), i < GRO_UDP_MAX_SEGS);
	assert_int_equal(gro_flush(&g, &out), GSO_VNET_HDR_LEN + 48 + GRO_UDP_MAX_SEGS * 100);
	assert_memory_equal(out + GSO_VNET_HDR_LEN + 48, super + 48, GRO_UDP_MAX_SEGS * 100);
	/* an IPv4 fragment never starts one */
	assert_int_equal(split_udp(false, 1372, 1372, udp_seg, 80, lens), 1);
	udp_seg[0][6] |= 0x20;
	assert_false(gro_start(&g, udp_seg[0], lens[0]));
}

/* A control buffer holding one message (level, type, data of dlen bytes)
 * whose cmsg_len claims clen (0: the right one). */
static size_t put_cmsg(uint8_t *buf, size_t cap, int level, int type, const void *data, size_t dlen,
		       size_t clen)
{
	struct cmsghdr h = { .cmsg_len = clen ? clen : CMSG_LEN(dlen),
			     .cmsg_level = level,
			     .cmsg_type = type };

	assert_true(CMSG_SPACE(dlen) <= cap);
	memset(buf, 0, CMSG_SPACE(dlen));
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + CMSG_LEN(0), data, dlen);
	return CMSG_SPACE(dlen);
}

static void test_udp_gso_size(void **state)
{
	uint8_t c[128];
	int v = 1372, zero = 0, big = 70000, ts = 1;
	uint16_t v16 = 1372;
	size_t n, m;

	(void)state;
	assert_int_equal(gro_udp_gso_size(NULL, 0), 0);
	n = put_cmsg(c, sizeof(c), SOL_UDP, UDP_GRO, &v, sizeof(v), 0);
	assert_int_equal(gro_udp_gso_size(c, n), 1372);
	n = put_cmsg(c, sizeof(c), SOL_UDP, UDP_GRO, &v16, sizeof(v16), 0);
	assert_int_equal(gro_udp_gso_size(c, n), 1372); /* a 16-bit value */
	/* gso_size 0 or past 64 KiB: malformed. */
	n = put_cmsg(c, sizeof(c), SOL_UDP, UDP_GRO, &zero, sizeof(zero), 0);
	assert_int_equal(gro_udp_gso_size(c, n), -EINVAL);
	n = put_cmsg(c, sizeof(c), SOL_UDP, UDP_GRO, &big, sizeof(big), 0);
	assert_int_equal(gro_udp_gso_size(c, n), -EINVAL);
	/* Truncated: one byte of data; cmsg_len past the buffer; buffer cut. */
	n = put_cmsg(c, sizeof(c), SOL_UDP, UDP_GRO, &v, 1, 0);
	assert_int_equal(gro_udp_gso_size(c, n), -EINVAL);
	n = put_cmsg(c, sizeof(c), SOL_UDP, UDP_GRO, &v, sizeof(v), 1000);
	assert_int_equal(gro_udp_gso_size(c, n), -EINVAL);
	n = put_cmsg(c, sizeof(c), SOL_UDP, UDP_GRO, &v, sizeof(v), 0);
	assert_int_equal(gro_udp_gso_size(c, CMSG_LEN(0) + 1), -EINVAL);
	assert_int_equal(gro_udp_gso_size(c, sizeof(struct cmsghdr) - 1), 0); /* no header */
	/* Another message only; another first, then UDP_GRO. */
	n = put_cmsg(c, sizeof(c), SOL_SOCKET, SO_TIMESTAMP, &ts, sizeof(ts), 0);
	assert_int_equal(gro_udp_gso_size(c, n), 0);
	m = put_cmsg(c + n, sizeof(c) - n, SOL_UDP, UDP_GRO, &v, sizeof(v), 0);
	assert_int_equal(gro_udp_gso_size(c, n + m), 1372);
	/* A message whose cmsg_len is below a header: stop, nothing found. */
	n = put_cmsg(c, sizeof(c), SOL_SOCKET, SO_TIMESTAMP, &ts, sizeof(ts), 4);
	assert_int_equal(gro_udp_gso_size(c, n), 0);
}

static void test_udp_split(void **state)
{
	size_t off = 99, total = 0, n;

	(void)state;
	/* gso_size 0 (no UDP_GRO message): the whole buffer is one datagram. */
	assert_int_equal(gro_udp_count(1500, 0), 1);
	assert_int_equal(gro_udp_segment(1500, 0, 0, &off), 1500);
	assert_int_equal(off, 0);
	assert_int_equal(gro_udp_segment(1500, 0, 1, &off), 0);
	/* gso_size at or above the length: one datagram. */
	assert_int_equal(gro_udp_count(1372, 1372), 1);
	assert_int_equal(gro_udp_count(100, 1372), 1);
	assert_int_equal(gro_udp_segment(100, 1372, 0, &off), 100);
	/* Exact multiple: equal segments. */
	assert_int_equal(gro_udp_count(3 * 1372, 1372), 3);
	assert_int_equal(gro_udp_segment(3 * 1372, 1372, 2, &off), 1372);
	assert_int_equal(off, 2 * 1372);
	assert_int_equal(gro_udp_segment(3 * 1372, 1372, 3, &off), 0);
	/* The last one short, down to a single byte. */
	assert_int_equal(gro_udp_count(2 * 1372 + 1, 1372), 3);
	assert_int_equal(gro_udp_segment(2 * 1372 + 1, 1372, 2, &off), 1);
	assert_int_equal(off, 2 * 1372);
	/* 64 KiB of 1372-byte datagrams: the pieces add up, in order, no gap. */
	n = gro_udp_count(65507, 1372);
	assert_int_equal(n, 48);
	for (size_t i = 0; i < n; i++) {
		size_t l = gro_udp_segment(65507, 1372, i, &off);

		assert_int_equal(off, total);
		assert_true(l > 0 && l <= 1372);
		total += l;
	}
	assert_int_equal(total, 65507);
	/* An empty buffer is still one (empty) datagram for the engine to drop. */
	assert_int_equal(gro_udp_count(0, 1372), 1);
	assert_int_equal(gro_udp_segment(0, 1372, 0, &off), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip4),	cmocka_unit_test(test_round_trip6),
		cmocka_unit_test(test_not_merged),	cmocka_unit_test(test_udp_gso_size),
		cmocka_unit_test(test_udp_split),	cmocka_unit_test(test_udp_round_trip4),
		cmocka_unit_test(test_udp_round_trip6), cmocka_unit_test(test_udp_not_merged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
