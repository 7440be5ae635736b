// SPDX-License-Identifier: MIT
/*
 * link_gso.c: a TSO super-packet (IPv4 and IPv6) and a UDP GSO one become
 * the wire packets they stand for: lengths, sequence numbers, IPv4
 * identification and header checksum, FIN/PSH only on the last segment, CWR
 * only on the first, the payload in order, and a partial checksum that,
 * completed as a NIC would, is the segment's correct TCP or UDP checksum.
 */
#define _GNU_SOURCE /* link_int.h: struct mmsghdr */
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bytes.h"
#include "link_int.h"

#define PAYLOAD 4000
#define MSS	1448

static uint32_t sum16(const uint8_t *p, size_t len, uint32_t s)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		s += get_be16(p + i);
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* An Ethernet frame: IPv4 or IPv6, then TCP (flags) or UDP, PAYLOAD bytes. */
static size_t build(uint8_t *f, bool v6, bool tcp, uint8_t flags, struct virtio_net_hdr *h)
{
	size_t l3 = 14, l4 = l3 + (v6 ? 40 : 20), hl = tcp ? 20 : 8, len = l4 + hl + PAYLOAD;

	memset(f, 0, len);
	put_be16(f + 12, v6 ? 0x86dd : 0x0800);
	if (v6) {
		f[l3] = 0x60;
		put_be16(f + l3 + 4, (uint16_t)(len - l4));
		f[l3 + 6] = tcp ? 6 : 17;
		f[l3 + 7] = 64;
		f[l3 + 8] = 0x20;
		f[l3 + 23] = 1;
		f[l3 + 24] = 0x20;
		f[l3 + 39] = 2;
	} else {
		f[l3] = 0x45;
		put_be16(f + l3 + 2, (uint16_t)(len - l3));
		put_be16(f + l3 + 4, 0x1234);
		f[l3 + 8] = 64;
		f[l3 + 9] = tcp ? 6 : 17;
		memcpy(f + l3 + 12, (uint8_t[]){ 198, 18, 77, 1, 198, 18, 77, 2 }, 8);
	}
	put_be16(f + l4, 5000);
	put_be16(f + l4 + 2, 5201);
	if (tcp) {
		put_be32(f + l4 + 4, 1000000);
		f[l4 + 12] = 5 << 4;
		f[l4 + 13] = flags;
	}
	for (size_t i = 0; i < PAYLOAD; i++)
		f[l4 + hl + i] = (uint8_t)(i * 7);
	memset(h, 0, sizeof(*h));
	h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	h->gso_type = tcp ? (v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4)
			  : VIRTIO_NET_HDR_GSO_UDP_L4;
	h->gso_size = htole16(MSS);
	h->csum_start = htole16((uint16_t)l4);
	h->csum_offset = htole16(tcp ? 16 : 6);
	return len;
}

/* The checksum a NIC writes, then the receiver's check of it. */
static void check_csum(uint8_t *s, size_t len, const struct virtio_net_hdr *oh, bool v6, bool tcp)
{
	size_t l4 = le16toh(oh->csum_start), at = l4 + le16toh(oh->csum_offset);
	uint32_t pseudo = (tcp ? 6 : 17) + (uint32_t)(len - l4);
	uint16_t c = (uint16_t)~fold(sum16(s + l4, len - l4, 0));

	assert_int_equal(oh->flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(oh->gso_type, VIRTIO_NET_HDR_GSO_NONE);
	put_be16(s + at, c);
	pseudo = v6 ? sum16(s + 14 + 8, 32, pseudo) : sum16(s + 14 + 12, 8, pseudo);
	assert_int_equal(fold(sum16(s + l4, len - l4, pseudo)), 0xffff);
	if (!v6)
		assert_int_equal(fold(sum16(s + 14, 20, 0)), 0xffff);
}

static void run(bool v6, bool tcp)
{
	static uint8_t f[LINK_SUPER_MAX], seg[2048];
	struct virtio_net_hdr h, oh;
	size_t len = build(f, v6, tcp, 0x80 | 0x08 | 0x01 | 0x10, &h); /* CWR PSH FIN ACK */
	size_t l4 = 14 + (v6 ? 40 : 20), hl = tcp ? 20 : 8, off = 0;
	int n = link_gso_count(&h, f, len);

	assert_int_equal(n, (PAYLOAD + MSS - 1) / MSS);
	for (int i = 0; i < n; i++) {
		size_t plen = PAYLOAD - off < MSS ? PAYLOAD - off : MSS;
		int sl = link_gso_segment(&h, f, len, (unsigned)i, seg, sizeof(seg), &oh);

		assert_int_equal(sl, (int)(l4 + hl + plen));
		assert_memory_equal(seg + l4 + hl, f + l4 + hl + off, plen);
		if (v6) {
			assert_int_equal(get_be16(seg + 14 + 4), sl - 14 - 40);
		} else {
			assert_int_equal(get_be16(seg + 14 + 2), sl - 14);
			assert_int_equal(get_be16(seg + 14 + 4), 0x1234 + i);
		}
		if (tcp) {
			uint8_t fl = seg[l4 + 13];

			assert_int_equal(get_be32(seg + l4 + 4), 1000000 + off);
			assert_int_equal(!!(fl & 0x01), i == n - 1);
			assert_int_equal(!!(fl & 0x08), i == n - 1);
			assert_int_equal(!!(fl & 0x80), i == 0);
			assert_true(fl & 0x10);
		} else {
			assert_int_equal(get_be16(seg + l4 + 4), sl - l4);
		}
		check_csum(seg, (size_t)sl, &oh, v6, tcp);
		off += plen;
	}
	assert_int_equal(off, PAYLOAD);
	assert_int_equal(link_gso_segment(&h, f, len, (unsigned)n, seg, sizeof(seg), &oh), -EINVAL);
	assert_int_equal(link_gso_segment(&h, f, len, 0, seg, 100, &oh), -ENOSPC);
}

static void test_tcp4(void **state)
{
	(void)state;
	run(false, true);
}

static void test_tcp6(void **state)
{
	(void)state;
	run(true, true);
}

static void test_udp4(void **state)
{
	(void)state;
	run(false, false);
}

static void test_plain_and_bad(void **state)
{
	static uint8_t f[LINK_SUPER_MAX], out[2048];
	struct virtio_net_hdr h, oh;
	size_t len = build(f, false, true, 0x10, &h);

	(void)state;
	/* a frame without GSO passes as it is, its header too */
	h.gso_type = VIRTIO_NET_HDR_GSO_NONE;
	assert_int_equal(link_gso_count(&h, f, 200), 1);
	assert_int_equal(link_gso_segment(&h, f, 200, 0, out, sizeof(out), &oh), 200);
	assert_memory_equal(out, f, 200);
	assert_memory_equal(&oh, &h, sizeof(h));
	/* refused: UFO, a checksum start inside the IP header, no NEEDS_CSUM, VLAN */
	build(f, false, true, 0x10, &h);
	h.gso_type = VIRTIO_NET_HDR_GSO_UDP;
	assert_int_equal(link_gso_count(&h, f, len), -EINVAL);
	build(f, false, true, 0x10, &h);
	h.csum_start = htole16(20);
	assert_int_equal(link_gso_count(&h, f, len), -EINVAL);
	build(f, false, true, 0x10, &h);
	h.flags = 0;
	assert_int_equal(link_gso_count(&h, f, len), -EINVAL);
	build(f, false, true, 0x10, &h);
	put_be16(f + 12, 0x8100);
	assert_int_equal(link_gso_count(&h, f, len), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp4),
		cmocka_unit_test(test_tcp6),
		cmocka_unit_test(test_udp4),
		cmocka_unit_test(test_plain_and_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
