// SPDX-License-Identifier: MIT
/* TSO segmentation and checksum completion, checked independently:
 * every segment's checksums verify, fields follow the NIC rules, and the
 * payloads put back together give the original bytes. */
#include <errno.h>
#include <stdbool.h>
#include <linux/virtio_net.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bytes.h"
#include "gso.h"

#define PAYLOAD 4000
#define MSS	1388

static uint8_t pkt[GSO_MAX_PACKET];
static uint8_t seg_mem[8][2048];

/* Reference: RFC 1071 byte by byte, big-endian 16-bit words. */
static uint32_t ref_add(const uint8_t *buf, size_t len, uint32_t sum)
{
	for (size_t i = 0; i < len; i += 2)
		sum += (uint32_t)buf[i] << 8 | (i + 1 < len ? buf[i + 1] : 0);
	return sum;
}

static uint16_t ref_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* Ones'-complement sum over the given bytes, folded: 0xffff when a checksum
 * verifies. Computed with the reference, not with the code under test. */
static uint16_t verify(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	return ref_fold(ref_add(b, blen, ref_add(a, alen, 0)));
}

/* The word-wise sum agrees with the reference at every length up to 300
 * (each tail of 0..31 bytes after the 32-byte rounds, several times), at
 * longer ones, at every offset, and where every word carries (all ones, up to
 * the largest super-packet). */
static void test_csum_vs_reference(void **state)
{
	static uint8_t buf[GSO_MAX_PACKET + 8];

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 131 + (i >> 3) * 17 + 0xa5);
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; len < 2000; len += len < 300 ? 1 : 37)
			if (gso_csum_fold(gso_csum_add(buf + off, len, 0x1234)) !=
			    ref_fold(ref_add(buf + off, len, 0x1234)))
				fail_msg("offset %zu length %zu", off, len);
	assert_int_equal(gso_csum_fold(gso_csum_add(buf + 3, GSO_MAX_PACKET, 0)),
			 ref_fold(ref_add(buf + 3, GSO_MAX_PACKET, 0)));
	memset(buf, 0xff, sizeof(buf));
	for (size_t len = 0; len <= GSO_MAX_PACKET; len += len < 64 ? 1 : 4093)
		if (gso_csum_fold(gso_csum_add(buf, len, 0xffff)) !=
		    ref_fold(ref_add(buf, len, 0xffff)))
			fail_msg("all ones, length %zu", len);
	assert_int_equal(gso_csum_fold(gso_csum_add(buf, GSO_MAX_PACKET, 0)),
			 ref_fold(ref_add(buf, GSO_MAX_PACKET, 0)));
}

static size_t build_tcp(bool v6, uint8_t flags, size_t payload)
{
	size_t ip = v6 ? 40 : 20, tcp_hl = 32;
	uint8_t *t = pkt + ip;

	memset(pkt, 0, ip + tcp_hl);
	if (v6) {
		pkt[0] = 0x60;
		put_be16(pkt + 4, (uint16_t)(tcp_hl + payload));
		pkt[6] = 6;
		pkt[7] = 64;
		pkt[8] = 0x20, pkt[9] = 0x01, pkt[11] = 0x02, pkt[23] = 1;
		pkt[24] = 0x20, pkt[25] = 0x01, pkt[27] = 0x02, pkt[39] = 2;
	} else {
		pkt[0] = 0x45;
		put_be16(pkt + 2, (uint16_t)(ip + tcp_hl + payload));
		put_be16(pkt + 4, 0xfffe); /* wraps to 0 on the 3rd segment */
		pkt[6] = 0x40;
		pkt[8] = 64;
		pkt[9] = 6;
		put_be32(pkt + 12, 0xC6130001);
		put_be32(pkt + 16, 0xC6130002);
	}
	put_be16(t, 40000);
	put_be16(t + 2, 5001);
	put_be32(t + 4, 0xfffff000); /* sequence numbers wrap too */
	put_be32(t + 8, 77);
	t[12] = (uint8_t)(tcp_hl / 4) << 4;
	t[13] = flags;
	put_be16(t + 14, 512);
	t[20] = 1, t[21] = 1, t[22] = 8, t[23] = 10; /* NOP NOP timestamp */
	for (size_t i = 0; i < payload; i++)
		pkt[ip + tcp_hl + i] = (uint8_t)(i * 7 + 3);
	return ip + tcp_hl + payload;
}

static void check_segments(bool v6, uint8_t flags)
{
	size_t len = build_tcp(v6, flags, PAYLOAD), ip = v6 ? 40 : 20, hdr = ip + 32;
	uint8_t *bufs[8];
	size_t lens[8], off = 0;
	struct gso_hdr h = { .gso_type = v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4,
			     .hdr_len = (uint16_t)hdr,
			     .gso_size = MSS,
			     .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
			     .csum_start = (uint16_t)ip,
			     .csum_offset = 16 };
	int n;

	for (int i = 0; i < 8; i++)
		bufs[i] = seg_mem[i];
	n = gso_split(&h, pkt, len, bufs, sizeof(seg_mem[0]), 8, lens);
	assert_int_equal(n, 3);
	for (int i = 0; i < n; i++) {
		uint8_t *b = bufs[i], *t = b + ip, pseudo[40];
		size_t chunk = i < 2 ? MSS : PAYLOAD - 2 * MSS;
		size_t tcp_len = 32 + chunk;

		assert_int_equal(lens[i], hdr + chunk);
		if (v6) {
			assert_int_equal(get_be16(b + 4), tcp_len);
			memcpy(pseudo, b + 8, 32);
			put_be32(pseudo + 32, (uint32_t)tcp_len);
			memset(pseudo + 36, 0, 3);
			pseudo[39] = 6;
			assert_int_equal(verify(pseudo, 40, t, tcp_len), 0xffff);
		} else {
			assert_int_equal(get_be16(b + 2), ip + tcp_len);
			assert_int_equal(get_be16(b + 4), (uint16_t)(0xfffe + i));
			assert_int_equal(b[6], 0x40); /* DF kept */
			assert_int_equal(verify(b, 20, NULL, 0), 0xffff);
			memcpy(pseudo, b + 12, 8);
			pseudo[8] = 0;
			pseudo[9] = 6;
			put_be16(pseudo + 10, (uint16_t)tcp_len);
			assert_int_equal(verify(pseudo, 12, t, tcp_len), 0xffff);
		}
		assert_int_equal(get_be32(t + 4), (uint32_t)(0xfffff000u + (uint32_t)i * MSS));
		assert_int_equal(get_be32(t + 8), 77);
		assert_memory_equal(t + 20, pkt + ip + 20, 12); /* options copied */
		/* FIN and PSH only on the last segment, CWR only on the first. */
		assert_int_equal(!!(t[13] & 0x01), (flags & 0x01) && i == n - 1);
		assert_int_equal(!!(t[13] & 0x08), (flags & 0x08) && i == n - 1);
		assert_int_equal(!!(t[13] & 0x80), (flags & 0x80) && i == 0);
		assert_int_equal(t[13] & 0x10, flags & 0x10); /* ACK everywhere */
		assert_memory_equal(b + hdr, pkt + hdr + off, chunk);
		off += chunk;
	}
	assert_int_equal(off, PAYLOAD);
}

static void test_tcp4(void **state)
{
	(void)state;
	check_segments(false, 0x10 | 0x08 | 0x01 | 0x80); /* ACK PSH FIN CWR */
	check_segments(false, 0x10);
}

static void test_tcp6(void **state)
{
	(void)state;
	check_segments(true, 0x10 | 0x08 | 0x80);
	check_segments(true, 0x10 | 0x01);
}

/* Exactly one MSS of payload: one segment, flags untouched. */
static void test_single_segment(void **state)
{
	size_t len = build_tcp(false, 0x19, MSS);
	uint8_t *bufs[1] = { seg_mem[0] };
	size_t lens[1];
	struct gso_hdr h = { .gso_type = VIRTIO_NET_HDR_GSO_TCPV4, .gso_size = MSS };

	(void)state;
	assert_int_equal(gso_split(&h, pkt, len, bufs, sizeof(seg_mem[0]), 1, lens), 1);
	assert_int_equal(lens[0], len);
	assert_int_equal(seg_mem[0][20 + 13], 0x19);
}

/* No GSO, checksum left to the device: the field holds the pseudo-header sum. */
static void test_needs_csum_udp(void **state)
{
	uint8_t udp[8 + 101], pseudo[12], ipv4[20] = { 0x45 };
	uint8_t *bufs[1] = { seg_mem[0] };
	size_t lens[1], len = 20 + sizeof(udp);
	struct gso_hdr h = { .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
			     .csum_start = 20,
			     .csum_offset = 6 };

	(void)state;
	put_be32(ipv4 + 12, 0xC6130001);
	put_be32(ipv4 + 16, 0xC6130002);
	ipv4[9] = 17;
	memset(udp, 0, sizeof(udp));
	put_be16(udp + 4, sizeof(udp));
	for (size_t i = 8; i < sizeof(udp); i++)
		udp[i] = (uint8_t)i;
	memcpy(pseudo, ipv4 + 12, 8);
	pseudo[8] = 0;
	pseudo[9] = 17;
	put_be16(pseudo + 10, sizeof(udp));
	put_be16(udp + 6, gso_csum_fold(gso_csum_add(pseudo, 12, 0)));
	memcpy(pkt, ipv4, 20);
	memcpy(pkt + 20, udp, sizeof(udp));
	assert_int_equal(gso_split(&h, pkt, len, bufs, sizeof(seg_mem[0]), 1, lens), 1);
	assert_int_equal(lens[0], len);
	assert_int_not_equal(get_be16(seg_mem[0] + 26), 0);
	assert_int_equal(verify(pseudo, 12, seg_mem[0] + 20, sizeof(udp)), 0xffff);
}

#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5
#endif

/* A UDP super-packet (USO) of `payload` bytes. */
static size_t build_udp(bool v6, size_t payload)
{
	size_t ip = v6 ? 40 : 20;
	uint8_t *u = pkt + ip;

	memset(pkt, 0, ip + 8);
	if (v6) {
		pkt[0] = 0x60;
		put_be16(pkt + 4, (uint16_t)(8 + payload));
		pkt[6] = 17;
		pkt[7] = 64;
		pkt[8] = 0x20, pkt[9] = 0x01, pkt[11] = 0x02, pkt[23] = 1;
		pkt[24] = 0x20, pkt[25] = 0x01, pkt[27] = 0x02, pkt[39] = 2;
	} else {
		pkt[0] = 0x45;
		put_be16(pkt + 2, (uint16_t)(ip + 8 + payload));
		put_be16(pkt + 4, 0xfffe);
		pkt[6] = 0x40;
		pkt[8] = 64;
		pkt[9] = 17;
		put_be32(pkt + 12, 0xC6130001);
		put_be32(pkt + 16, 0xC6130002);
	}
	put_be16(u, 40000);
	put_be16(u + 2, 5201);
	put_be16(u + 4, (uint16_t)(8 + payload));
	for (size_t i = 0; i < payload; i++)
		pkt[ip + 8 + i] = (uint8_t)(i * 13 + 5);
	return ip + 8 + payload;
}

/* USO: gso_size-byte datagrams, the last shorter, each with its own IP and
 * UDP length, IPv4 ID + i and a UDP checksum that verifies. */
static void check_udp_segments(bool v6)
{
	const size_t seg = 1372, payload = 3 * 1372 + 100;
	size_t len = build_udp(v6, payload), ip = v6 ? 40 : 20, hdr = ip + 8, off = 0;
	uint8_t *bufs[8];
	size_t lens[8];
	struct gso_hdr h = { .gso_type = VIRTIO_NET_HDR_GSO_UDP_L4,
			     .hdr_len = (uint16_t)hdr,
			     .gso_size = (uint16_t)seg,
			     .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
			     .csum_start = (uint16_t)ip,
			     .csum_offset = 6 };
	int n;

	for (int i = 0; i < 8; i++)
		bufs[i] = seg_mem[i];
	n = gso_split(&h, pkt, len, bufs, sizeof(seg_mem[0]), 8, lens);
	assert_int_equal(n, 4);
	for (int i = 0; i < n; i++) {
		uint8_t *b = bufs[i], *u = b + ip, pseudo[40];
		size_t chunk = i < 3 ? seg : 100, udp_len = 8 + chunk;

		assert_int_equal(lens[i], hdr + chunk);
		assert_int_equal(get_be16(u + 4), udp_len);
		assert_int_equal(get_be16(u), 40000);
		assert_int_not_equal(get_be16(u + 6), 0);
		if (v6) {
			assert_int_equal(get_be16(b + 4), udp_len);
			memcpy(pseudo, b + 8, 32);
			put_be32(pseudo + 32, (uint32_t)udp_len);
			memset(pseudo + 36, 0, 3);
			pseudo[39] = 17;
			assert_int_equal(verify(pseudo, 40, u, udp_len), 0xffff);
		} else {
			assert_int_equal(get_be16(b + 2), ip + udp_len);
			assert_int_equal(get_be16(b + 4), (uint16_t)(0xfffe + i));
			assert_int_equal(verify(b, 20, NULL, 0), 0xffff);
			memcpy(pseudo, b + 12, 8);
			pseudo[8] = 0;
			pseudo[9] = 17;
			put_be16(pseudo + 10, (uint16_t)udp_len);
			assert_int_equal(verify(pseudo, 12, u, udp_len), 0xffff);
		}
		assert_memory_equal(b + hdr, pkt + hdr + off, chunk);
		off += chunk;
	}
	assert_int_equal(off, payload);
}

static void test_udp4(void **state)
{
	(void)state;
	check_udp_segments(false);
}

static void test_udp6(void **state)
{
	uint8_t *bufs[8];
	size_t lens[8], len;
	struct gso_hdr h = { .gso_type = VIRTIO_NET_HDR_GSO_UDP_L4, .gso_size = 1372 };

	(void)state;
	check_udp_segments(true);
	for (int i = 0; i < 8; i++)
		bufs[i] = seg_mem[i];
	/* Refused: gso_size 0, not UDP, an IPv4 fragment, too many segments. */
	len = build_udp(false, 4000);
	h.gso_size = 0;
	assert_int_equal(gso_split(&h, pkt, len, bufs, sizeof(seg_mem[0]), 8, lens), -EINVAL);
	h.gso_size = 1372;
	assert_int_equal(gso_split(&h, pkt, len, bufs, sizeof(seg_mem[0]), 2, lens), -ENOSPC);
	pkt[6] |= 0x20; /* MF */
	assert_int_equal(gso_split(&h, pkt, len, bufs, sizeof(seg_mem[0]), 8, lens), -EINVAL);
	len = build_udp(false, 4000);
	pkt[9] = 6;
	assert_int_equal(gso_split(&h, pkt, len, bufs, sizeof(seg_mem[0]), 8, lens), -EINVAL);
	assert_int_equal(gso_split(&h, pkt, 27, bufs, sizeof(seg_mem[0]), 8, lens), -EINVAL);
}

static void test_refused(void **state)
{
	uint8_t *bufs[8];
	size_t lens[8], len = build_tcp(false, 0x10, PAYLOAD);
	struct gso_hdr h = { .gso_type = VIRTIO_NET_HDR_GSO_TCPV4, .gso_size = MSS };
	struct gso_hdr udp = { .gso_type = VIRTIO_NET_HDR_GSO_UDP, .gso_size = MSS };
	struct gso_hdr zero = { .gso_type = VIRTIO_NET_HDR_GSO_TCPV4 };
	struct gso_hdr v6 = { .gso_type = VIRTIO_NET_HDR_GSO_TCPV6, .gso_size = MSS };
	struct gso_hdr bad_csum = { .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
				    .csum_start = 60,
				    .csum_offset = 16 };

	(void)state;
	for (int i = 0; i < 8; i++)
		bufs[i] = seg_mem[i];
	assert_int_equal(gso_split(&h, pkt, len, bufs, sizeof(seg_mem[0]), 2, lens), -ENOSPC);
	assert_int_equal(gso_split(&h, pkt, len, bufs, 1000, 8, lens), -ENOSPC);
	assert_int_equal(gso_split(&udp, pkt, len, bufs, sizeof(seg_mem[0]), 8, lens), -EINVAL);
	assert_int_equal(gso_split(&zero, pkt, len, bufs, sizeof(seg_mem[0]), 8, lens), -EINVAL);
	assert_int_equal(gso_split(&v6, pkt, len, bufs, sizeof(seg_mem[0]), 8, lens), -EINVAL);
	assert_int_equal(gso_split(&h, pkt, 40, bufs, sizeof(seg_mem[0]), 8, lens), -EINVAL);
	assert_int_equal(gso_split(&bad_csum, pkt, 60, bufs, sizeof(seg_mem[0]), 8, lens), -EINVAL);
	pkt[9] = 17; /* not TCP */
	assert_int_equal(gso_split(&h, pkt, len, bufs, sizeof(seg_mem[0]), 8, lens), -EINVAL);
	build_tcp(true, 0x10, PAYLOAD);
	pkt[6] = 0; /* IPv6 hop-by-hop extension header */
	assert_int_equal(gso_split(&v6, pkt, len + 20, bufs, sizeof(seg_mem[0]), 8, lens), -EINVAL);
}

static void test_vnet_hdr(void **state)
{
	uint8_t b[GSO_VNET_HDR_LEN] = { 1, 4, 0x48, 0, 0x6c, 0x05, 0x28, 0, 0x10, 0 };
	struct gso_hdr h;

	(void)state;
	gso_hdr_parse(b, &h);
	assert_int_equal(h.flags, 1);
	assert_int_equal(h.gso_type, VIRTIO_NET_HDR_GSO_TCPV6);
	assert_int_equal(h.hdr_len, 72);
	assert_int_equal(h.gso_size, 1388);
	assert_int_equal(h.csum_start, 40);
	assert_int_equal(h.csum_offset, 16);
	gso_hdr_put_plain(b, true);
	assert_int_equal(b[0], VIRTIO_NET_HDR_F_DATA_VALID);
	for (int i = 1; i < GSO_VNET_HDR_LEN; i++)
		assert_int_equal(b[i], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp4),
		cmocka_unit_test(test_tcp6),
		cmocka_unit_test(test_single_segment),
		cmocka_unit_test(test_needs_csum_udp),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_vnet_hdr),
		cmocka_unit_test(test_csum_vs_reference),
		cmocka_unit_test(test_udp4),
		cmocka_unit_test(test_udp6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
