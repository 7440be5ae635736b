// SPDX-License-Identifier: MIT
/*
 * The overlay's too-big replies: sizes and quoting limits (576 / 1280),
 * every header field, checksums verified by an implementation written
 * independently here (64-bit accumulation over 32-bit words) plus two
 * known-answer replies computed outside this code base, the IPv6 pseudo-
 * header, the predicate's edges, and the cases where no reply is allowed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "icmp.h"

static const uint8_t v4_tun[4] = { 198, 19, 0, 1 };
static const uint8_t v4_a[4] = { 198, 19, 0, 1 }, v4_b[4] = { 198, 19, 0, 2 };
static const uint8_t v6_tun[16] = { 0x20, 0x01, 0, 2, 0, 0, 0, 0xff, [15] = 1 };
static const uint8_t v6_a[16] = { 0x20, 0x01, 0, 2, 0, 0, 0, 0xff, [15] = 1 };
static const uint8_t v6_b[16] = { 0x20, 0x01, 0, 2, 0, 0, 0, 0xff, [15] = 2 };

/* Independent one's-complement sum: 32-bit big-endian words into 64 bits. */
static uint16_t ref_csum(const uint8_t *p, size_t len, uint64_t sum)
{
	size_t i = 0;

	for (; i + 4 <= len; i += 4)
		sum += ((uint64_t)p[i] << 24) | ((uint64_t)p[i + 1] << 16) |
		       ((uint64_t)p[i + 2] << 8) | p[i + 3];
	for (; i < len; i++)
		sum += (uint64_t)p[i] << (i % 4 == 0 ? 24 : i % 4 == 1 ? 16 : i % 4 == 2 ? 8 : 0);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint64_t ref_pseudo6(const uint8_t *src, const uint8_t *dst, uint32_t ulen)
{
	uint64_t sum = 0;

	for (int i = 0; i < 16; i += 4) {
		sum += ((uint64_t)src[i] << 24) | ((uint64_t)src[i + 1] << 16) |
		       ((uint64_t)src[i + 2] << 8) | src[i + 3];
		sum += ((uint64_t)dst[i] << 24) | ((uint64_t)dst[i + 1] << 16) |
		       ((uint64_t)dst[i + 2] << 8) | dst[i + 3];
	}
	return sum + ulen + 58;
}

static size_t make_v4(uint8_t *p, size_t len, bool df, uint8_t proto, const uint8_t *src,
		      const uint8_t *dst)
{
	memset(p, 0, len);
	p[0] = 0x45;
	p[2] = (uint8_t)(len >> 8);
	p[3] = (uint8_t)len;
	p[6] = df ? 0x40 : 0;
	p[8] = 64;
	p[9] = proto;
	memcpy(p + 12, src, 4);
	memcpy(p + 16, dst, 4);
	for (size_t i = 20; i < len; i++)
		p[i] = (uint8_t)(i * 7);
	return len;
}

static size_t make_v6(uint8_t *p, size_t len, uint8_t nh, const uint8_t *src, const uint8_t *dst)
{
	memset(p, 0, len);
	p[0] = 0x60;
	p[4] = (uint8_t)((len - 40) >> 8);
	p[5] = (uint8_t)(len - 40);
	p[6] = nh;
	p[7] = 64;
	memcpy(p + 8, src, 16);
	memcpy(p + 24, dst, 16);
	for (size_t i = 40; i < len; i++)
		p[i] = (uint8_t)(i * 13);
	return len;
}

static void test_predicate(void **state)
{
	static uint8_t p[9100];

	(void)state;
	make_v4(p, 1500, true, 17, v4_a, v4_b);
	assert_true(icmp_needs_too_big(p, 1500, 1440));
	assert_false(icmp_needs_too_big(p, 1500, 1500));
	assert_true(icmp_needs_too_big(p, 1500, 1499));
	/* trailing bytes beyond the header's length do not count */
	assert_false(icmp_needs_too_big(p, 1600, 1500));
	make_v4(p, 1500, false, 17, v4_a, v4_b);
	assert_false(icmp_needs_too_big(p, 1500, 1440)); /* no DF: carried */
	make_v4(p, 100, true, 17, v4_a, v4_b);
	assert_true(icmp_needs_too_big(p, 100, 20)); /* mtu raised to 68 only */
	assert_false(icmp_needs_too_big(p, 100, 100));
	make_v6(p, 1500, 17, v6_a, v6_b);
	assert_true(icmp_needs_too_big(p, 1500, 1420));
	assert_false(icmp_needs_too_big(p, 1500, 1500));
	make_v6(p, 1280, 17, v6_a, v6_b);
	assert_false(icmp_needs_too_big(p, 1280, 1000)); /* IPv6 minimum MTU */
	make_v6(p, 1281, 17, v6_a, v6_b);
	assert_true(icmp_needs_too_big(p, 1281, 1000));
	make_v6(p, 9001, 17, v6_a, v6_b);
	assert_true(icmp_needs_too_big(p, 9001, 8941));
	/* malformed: short, bad IHL, length beyond the buffer, version 5 */
	assert_false(icmp_needs_too_big(p, 10, 100));
	assert_false(icmp_needs_too_big(NULL, 0, 100));
	make_v4(p, 1500, true, 17, v4_a, v4_b);
	p[0] = 0x44;
	assert_false(icmp_needs_too_big(p, 1500, 100));
	make_v4(p, 1500, true, 17, v4_a, v4_b);
	assert_false(icmp_needs_too_big(p, 1400, 100));
	p[0] = 0x55;
	assert_false(icmp_needs_too_big(p, 1500, 100));
}

static void check_v4_reply(const uint8_t *in, size_t in_len, const uint8_t *r, ssize_t n,
			   uint32_t mtu)
{
	size_t quote = in_len < 548 ? in_len : 548;

	assert_int_equal(n, 28 + quote);
	assert_true(n <= ICMP_V4_REPLY_MAX);
	assert_int_equal(r[0], 0x45);
	assert_int_equal((r[2] << 8) | r[3], n);
	assert_int_equal(r[8], 64);
	assert_int_equal(r[9], 1);
	assert_memory_equal(r + 12, v4_tun, 4);
	assert_memory_equal(r + 16, in + 12, 4); /* back to the sender */
	assert_int_equal(ref_csum(r, 20, 0), 0);
	assert_int_equal(r[20], 3);
	assert_int_equal(r[21], 4);
	assert_int_equal(r[24], 0);
	assert_int_equal(r[25], 0);
	assert_int_equal((r[26] << 8) | r[27], mtu);
	assert_int_equal(ref_csum(r + 20, (size_t)n - 20, 0), 0);
	assert_memory_equal(r + 28, in, quote);
}

static void test_v4_reply(void **state)
{
	static uint8_t p[9100], r[ICMP_REPLY_MAX];
	static const size_t sizes[] = { 100, 547, 548, 549, 1500, 9001 };
	uint32_t mtu = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ssize_t n;

		make_v4(p, sizes[i], true, 17, v4_a, v4_b);
		n = icmp_build_too_big(p, sizes[i], 1440, v4_tun, 4, r, sizeof(r));
		check_v4_reply(p, sizes[i], r, n, 1440);
		assert_true(icmp_parse_too_big(r, (size_t)n, &mtu));
		assert_int_equal(mtu, 1440);
		/* any flipped bit breaks a checksum */
		r[n - 1] ^= 0x01;
		assert_false(icmp_parse_too_big(r, (size_t)n, &mtu));
	}
	/* an ICMP echo request is answered (it is not an error) */
	make_v4(p, 1500, true, 1, v4_a, v4_b);
	p[20] = 8;
	check_v4_reply(p, 1500, r, icmp_build_too_big(p, 1500, 1400, v4_tun, 4, r, sizeof(r)),
		       1400);
}

static void check_v6_reply(const uint8_t *in, size_t in_len, const uint8_t *r, ssize_t n,
			   uint32_t mtu)
{
	size_t quote = in_len < 1232 ? in_len : 1232;
	uint32_t plen = (uint32_t)(8 + quote);

	assert_int_equal(n, 48 + quote);
	assert_true(n <= ICMP_V6_REPLY_MAX);
	assert_int_equal(r[0] >> 4, 6);
	assert_int_equal((r[4] << 8) | r[5], plen);
	assert_int_equal(r[6], 58);
	assert_memory_equal(r + 8, v6_tun, 16);
	assert_memory_equal(r + 24, in + 8, 16);
	assert_int_equal(r[40], 2);
	assert_int_equal(r[41], 0);
	assert_int_equal(((uint32_t)r[44] << 24) | ((uint32_t)r[45] << 16) | (r[46] << 8) | r[47],
			 mtu);
	assert_int_equal(ref_csum(r + 40, plen, ref_pseudo6(r + 8, r + 24, plen)), 0);
	assert_memory_equal(r + 48, in, quote);
}

static void test_v6_reply(void **state)
{
	static uint8_t p[9100], r[ICMP_REPLY_MAX];
	static const size_t sizes[] = { 100, 1231, 1232, 1233, 1500, 9001 };
	uint32_t mtu = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ssize_t n;

		make_v6(p, sizes[i], 17, v6_a, v6_b);
		n = icmp_build_too_big(p, sizes[i], 1420, v6_tun, 16, r, sizeof(r));
		check_v6_reply(p, sizes[i], r, n, 1420);
		assert_true(icmp_parse_too_big(r, (size_t)n, &mtu));
		assert_int_equal(mtu, 1420);
		r[9] ^= 0x80; /* the source is under the pseudo-header checksum */
		assert_false(icmp_parse_too_big(r, (size_t)n, &mtu));
	}
	/* below 1280 the reply says 1280 */
	make_v6(p, 1500, 17, v6_a, v6_b);
	check_v6_reply(p, 1500, r, icmp_build_too_big(p, 1500, 1000, v6_tun, 16, r, sizeof(r)),
		       1280);
	/* a multicast destination still gets a too-big (RFC 4443 2.4 e.2) */
	make_v6(p, 1500, 17, v6_a, (const uint8_t[16]){ 0xff, 0x02, [15] = 1 });
	assert_int_equal(icmp_build_too_big(p, 1500, 1420, v6_tun, 16, r, sizeof(r)), 1280);
	/* an echo request behind a hop-by-hop header is answered */
	make_v6(p, 1500, 0, v6_a, v6_b);
	p[40] = 58;
	p[41] = 0;
	p[48] = 128;
	assert_int_equal(icmp_build_too_big(p, 1500, 1420, v6_tun, 16, r, sizeof(r)), 1280);
}

/* Replies computed with an independent tool (Python, RFC 1071 over the
 * bytes below) for a 100-byte inner packet whose payload bytes are i * 7
 * (IPv4) and i * 13 (IPv6). */
static void test_known_answers(void **state)
{
	static uint8_t p[200], r[ICMP_REPLY_MAX];
	ssize_t n;

	(void)state;
	make_v4(p, 100, true, 17, v4_a, v4_b);
	n = icmp_build_too_big(p, 100, 1440, v4_tun, 4, r, sizeof(r));
	assert_int_equal(n, 128);
	assert_int_equal((r[10] << 8) | r[11], 0xad94);
	assert_int_equal((r[22] << 8) | r[23], 0x0907);
	make_v6(p, 100, 17, v6_a, v6_b);
	n = icmp_build_too_big(p, 100, 1420, v6_tun, 16, r, sizeof(r));
	assert_int_equal(n, 148);
	assert_int_equal((r[42] << 8) | r[43], 0xd590);
}

/* No source given: the reply comes from the inner packet's destination. */
static void test_default_source(void **state)
{
	static uint8_t p[1600], r[ICMP_REPLY_MAX];
	ssize_t n;

	(void)state;
	make_v4(p, 1500, true, 17, v4_a, v4_b);
	n = icmp_build_too_big(p, 1500, 1440, NULL, 0, r, sizeof(r));
	assert_int_equal(n, 576);
	assert_memory_equal(r + 12, v4_b, 4);
	assert_memory_equal(r + 16, v4_a, 4);
	assert_int_equal(ref_csum(r, 20, 0), 0);
	assert_int_equal(ref_csum(r + 20, 556, 0), 0);
	make_v6(p, 1500, 17, v6_a, v6_b);
	n = icmp_build_too_big(p, 1500, 1420, NULL, 0, r, sizeof(r));
	assert_int_equal(n, 1280);
	assert_memory_equal(r + 8, v6_b, 16);
	assert_memory_equal(r + 24, v6_a, 16);
	assert_int_equal(ref_csum(r + 40, 1240, ref_pseudo6(r + 8, r + 24, 1240)), 0);
	/* a multicast destination cannot be a source: no reply without one */
	make_v6(p, 1500, 17, v6_a, (const uint8_t[16]){ 0xff, 0x02, [15] = 1 });
	assert_int_equal(icmp_build_too_big(p, 1500, 1420, NULL, 0, r, sizeof(r)), 0);
}

static void test_no_reply(void **state)
{
	static uint8_t p[1600], r[ICMP_REPLY_MAX];

	(void)state;
	/* an ICMPv4 error (dest unreachable) */
	make_v4(p, 1500, true, 1, v4_a, v4_b);
	p[20] = 3;
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v4_tun, 4, r, sizeof(r)), 0);
	p[20] = 11;
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v4_tun, 4, r, sizeof(r)), 0);
	/* a non-first fragment */
	make_v4(p, 1500, true, 17, v4_a, v4_b);
	p[7] = 0x10;
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v4_tun, 4, r, sizeof(r)), 0);
	/* sources that are not one host, destinations that are many */
	make_v4(p, 1500, true, 17, (const uint8_t[4]){ 0, 0, 0, 0 }, v4_b);
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v4_tun, 4, r, sizeof(r)), 0);
	make_v4(p, 1500, true, 17, (const uint8_t[4]){ 224, 0, 0, 5 }, v4_b);
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v4_tun, 4, r, sizeof(r)), 0);
	make_v4(p, 1500, true, 17, (const uint8_t[4]){ 127, 0, 0, 1 }, v4_b);
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v4_tun, 4, r, sizeof(r)), 0);
	make_v4(p, 1500, true, 17, v4_a, (const uint8_t[4]){ 255, 255, 255, 255 });
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v4_tun, 4, r, sizeof(r)), 0);
	make_v4(p, 1500, true, 17, v4_a, (const uint8_t[4]){ 239, 1, 2, 3 });
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v4_tun, 4, r, sizeof(r)), 0);
	/* IPv6: an ICMPv6 error, directly and behind a destination-options header */
	make_v6(p, 1500, 58, v6_a, v6_b);
	p[40] = 1;
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v6_tun, 16, r, sizeof(r)), 0);
	make_v6(p, 1500, 60, v6_a, v6_b);
	p[40] = 58;
	p[41] = 0;
	p[48] = 2;
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v6_tun, 16, r, sizeof(r)), 0);
	make_v6(p, 1500, 17, (const uint8_t[16]){ 0 }, v6_b);
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v6_tun, 16, r, sizeof(r)), 0);
	make_v6(p, 1500, 17, (const uint8_t[16]){ 0xff, 0x02, [15] = 1 }, v6_b);
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v6_tun, 16, r, sizeof(r)), 0);
	make_v6(p, 1500, 17, (const uint8_t[16]){ [15] = 1 }, v6_b);
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v6_tun, 16, r, sizeof(r)), 0);
}

static void test_bad_arguments(void **state)
{
	static uint8_t p[1600], r[ICMP_REPLY_MAX];

	(void)state;
	make_v4(p, 1500, true, 17, v4_a, v4_b);
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v6_tun, 16, r, sizeof(r)), -EINVAL);
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v4_tun, 3, r, sizeof(r)), -EINVAL);
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v4_tun, 4, NULL, 0), -EINVAL);
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v4_tun, 4, r, 100), -ENOSPC);
	assert_int_equal(icmp_build_too_big(p, 19, 1400, v4_tun, 4, r, sizeof(r)), -EINVAL);
	make_v6(p, 1500, 17, v6_a, v6_b);
	assert_int_equal(icmp_build_too_big(p, 1500, 1400, v4_tun, 4, r, sizeof(r)), -EINVAL);
	/* extension headers running past the packet */
	make_v6(p, 48, 0, v6_a, v6_b);
	p[40] = 58;
	p[41] = 10;
	assert_int_equal(icmp_build_too_big(p, 48, 40, v6_tun, 16, r, sizeof(r)), -EINVAL);
	/* a small reply fits a small buffer */
	make_v4(p, 100, true, 17, v4_a, v4_b);
	assert_int_equal(icmp_build_too_big(p, 100, 80, v4_tun, 4, r, 128), 128);
	assert_false(icmp_parse_too_big(r, 27, (uint32_t[1]){ 0 }));
}

static void test_checksum_api(void **state)
{
	/* RFC 1071's example words 0001 f203 f4f5 f6f7 sum to ddf2; ~ = 220d */
	static const uint8_t rfc[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	static uint8_t big[70000];

	(void)state;
	assert_int_equal(icmp_checksum(rfc, sizeof(rfc), 0), 0x220d);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 31 + 7);
	assert_int_equal(icmp_checksum(big, sizeof(big), 0), ref_csum(big, sizeof(big), 0));
	assert_int_equal(icmp_checksum(big, 333, 0), ref_csum(big, 333, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_predicate),      cmocka_unit_test(test_v4_reply),
		cmocka_unit_test(test_v6_reply),       cmocka_unit_test(test_known_answers),
		cmocka_unit_test(test_default_source), cmocka_unit_test(test_no_reply),
		cmocka_unit_test(test_bad_arguments),  cmocka_unit_test(test_checksum_api),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
