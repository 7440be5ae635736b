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

#include "bytes.h"
#include "gro.h"
#include "gso.h"

#define PAYLOAD 5000
#define MSS 1388

static uint8_t super[GSO_MAX_PACKET], seg[8][2048], grobuf[GSO_VNET_HDR_LEN + GSO_MAX_PACKET];

static size_t build(bool v6, uint8_t flags)
{
	size_t ip = v6 ? 40 : 20, len = ip + 32 + PAYLOAD;
	uint8_t *t = super + ip;

	memset(super, 0, ip + 32);
	if (v6) {
		super[0] = 0x60;
		put_be16(super + 4, 32 + PAYLOAD);
		super[6] = 6;
		super[7] = 64;
		super[8] = 0x20, super[23] = 1, super[24] = 0x20, super[39] = 2;
	} else {
		super[0] = 0x45;
		put_be16(super + 2, (uint16_t)len);
		put_be16(super + 4, 100);
		super[6] = 0x40;
		super[8] = 64;
		super[9] = 6;
		put_be32(super + 12, 0xC6130002);
		put_be32(super + 16, 0xC6130001);
	}
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
	gro_init(&g, grobuf);
	assert_true(gro_can_start(seg[0], lens[0]));
	gro_start(&g, seg[0], lens[0]);
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
		assert_int_equal(gso_split(&h, super, hdr + PAYLOAD, bufs, sizeof(seg[0]), 8, lens2), 4);
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
	gro_init(&g, grobuf);
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
	assert_false(gro_can_start(seg[0], lens[0]));
	split(false, 0x11, lens);
	assert_false(gro_can_start(seg[3], lens[3]));
	assert_false(gro_can_start(seg[0], 52)); /* length field disagrees */
	split(false, 0x10, lens);
	seg[0][9] = 17;
	assert_false(gro_can_start(seg[0], lens[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip4),
		cmocka_unit_test(test_round_trip6),
		cmocka_unit_test(test_not_merged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
