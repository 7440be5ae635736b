// SPDX-License-Identifier: MIT
/*
 * The MSS option of a saved SYN (IPv4 and IPv6 headers, then TCP): found
 * behind NOPs and other options, and every malformed or short packet
 * refused before a byte past its end is read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tcp_syn.h"

/* An IPv4 (20 bytes) or IPv6 (40 bytes) header for TCP, then a TCP header
 * of 20 bytes plus opts (padded by the caller to a multiple of 4). */
static size_t build(uint8_t *pkt, int v, const uint8_t *opts, size_t olen)
{
	size_t ip = v == 4 ? 20 : 40;

	memset(pkt, 0, 128);
	if (v == 4) {
		pkt[0] = 0x45;
		pkt[9] = 6;
	} else {
		pkt[0] = 0x60;
		pkt[6] = 6;
	}
	pkt[ip + 12] = (uint8_t)(((20 + olen) / 4) << 4);
	pkt[ip + 13] = 0x02; /* SYN */
	memcpy(pkt + ip + 20, opts, olen);
	return ip + 20 + olen;
}

static void test_found(void **state)
{
	static const struct {
		uint8_t opts[20];
		size_t len;
		uint32_t mss;
	} cases[] = {
		/* Linux's SYN: MSS, SACK-permitted, timestamps, NOP, window scale */
		{ { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7 }, 20, 1460 },
		{ { 2, 4, 0x05, 0x44, 0 }, 4, 1348 },
		{ { 1, 1, 1, 1, 2, 4, 0x05, 0x43 }, 8, 1347 },
		{ { 4, 2, 1, 1, 2, 4, 0x23, 0x01 }, 8, 8961 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (int v = 4; v <= 6; v += 2) {
			uint8_t pkt[128];
			uint32_t mss = 0;
			size_t n = build(pkt, v, cases[i].opts, cases[i].len);

			assert_true(tcp_syn_mss(pkt, n, &mss));
			assert_int_equal(mss, cases[i].mss);
		}
}

static void test_refused(void **state)
{
	static const struct {
		uint8_t opts[12];
		size_t len;
	} cases[] = {
		{ { 0 }, 0 },			   /* no options */
		{ { 1, 1, 1, 0 }, 4 },		   /* NOPs, end */
		{ { 0, 2, 4, 5, 0xb4 }, 4 },	   /* end before the MSS */
		{ { 2, 3, 5, 0 }, 4 },		   /* MSS of the wrong length */
		{ { 2, 8, 5, 0xb4 }, 4 },	   /* length past the header */
		{ { 8, 0, 0, 0 }, 4 },		   /* length 0 would loop */
		{ { 1, 1, 1, 2 }, 4 },		   /* kind without its length */
		{ { 3, 3, 7, 1, 1, 2, 4, 5 }, 8 }, /* MSS cut at the header's end */
	};
	uint8_t pkt[128];
	uint32_t mss;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = build(pkt, 4, cases[i].opts, cases[i].len);
		assert_false(tcp_syn_mss(pkt, n, &mss));
	}
	/* Headers that do not hold together. */
	n = build(pkt, 4, (const uint8_t[]){ 2, 4, 5, 0xb4 }, 4);
	for (size_t cut = 0; cut < n; cut++)
		assert_false(tcp_syn_mss(pkt, cut, &mss));
	assert_true(tcp_syn_mss(pkt, n, &mss));
	pkt[9] = 17; /* UDP */
	assert_false(tcp_syn_mss(pkt, n, &mss));
	pkt[9] = 6;
	pkt[0] = 0x44; /* IHL 16 bytes */
	assert_false(tcp_syn_mss(pkt, n, &mss));
	pkt[0] = 0x55; /* version 5 */
	assert_false(tcp_syn_mss(pkt, n, &mss));
	pkt[0] = 0x45;
	pkt[20 + 12] = 0x40; /* data offset 16 bytes */
	assert_false(tcp_syn_mss(pkt, n, &mss));
	pkt[20 + 12] = 0xf0; /* data offset 60 bytes, past the packet */
	assert_false(tcp_syn_mss(pkt, n, &mss));
	n = build(pkt, 6, (const uint8_t[]){ 2, 4, 5, 0xb4 }, 4);
	pkt[6] = 0; /* a hop-by-hop header first: not followed */
	assert_false(tcp_syn_mss(pkt, n, &mss));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_found),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
