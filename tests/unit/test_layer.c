// SPDX-License-Identifier: MIT
/*
 * layer.h: sizes and rates between UDP payload, IP packet, Ethernet frame
 * and line, checked against the figures RFC 2544 studies use (64-byte frames
 * at 100 Mbit/s are 148,809 frames/s; 1518-byte frames at 1 Gbit/s 81,274).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "layer.h"

#define V4 AF_INET
#define V6 AF_INET6

/* One datagram's bytes at each layer. */
static const struct {
	int family;
	uint32_t payload;
	uint64_t ip, frame, line;
} sizes[] = {
	{ V4, 18, 46, 64, 84 },		    /* RFC 2544's smallest frame */
	{ V4, 0, 28, 64, 84 },		    /* padded to the minimum */
	{ V4, 1, 29, 64, 84 },		    /* padded */
	{ V4, 19, 47, 65, 85 },		    /* just above the minimum */
	{ V4, 32, 60, 78, 98 },		    /* ovlperf's smallest datagram */
	{ V4, 72, 100, 118, 138 },	    /* IP 100 */
	{ V4, 1472, 1500, 1518, 1538 },	    /* the largest untagged frame */
	{ V4, 8972, 9000, 9018, 9038 },	    /* jumbo */
	{ V6, 0, 48, 66, 86 },		    /* IPv6 never pads */
	{ V6, 32, 80, 98, 118 },	    /* ovlperf's smallest over IPv6 */
	{ V6, 1452, 1500, 1518, 1538 },	    /* the largest untagged frame */
	{ V6, 65507, 65555, 65573, 65593 }, /* the largest payload ovlperf sends */
};

static void test_bytes(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int f = sizes[i].family;
		uint32_t p = sizes[i].payload;

		assert_int_equal(layer_bytes(LAYER_PAYLOAD, f, p), p);
		assert_int_equal(layer_bytes(LAYER_IP, f, p), sizes[i].ip);
		assert_int_equal(layer_bytes(LAYER_FRAME, f, p), sizes[i].frame);
		assert_int_equal(layer_bytes(LAYER_LINE, f, p), sizes[i].line);
	}
}

/* A size at a layer back to its payload; payload UINT32_MAX: refused. */
#define NO UINT32_MAX
static const struct {
	enum layer l;
	int family;
	uint64_t size;
	uint32_t payload;
} inverse[] = {
	{ LAYER_PAYLOAD, V4, 1400, 1400 },
	{ LAYER_IP, V4, 46, 18 },
	{ LAYER_IP, V4, 28, 0 },
	{ LAYER_IP, V4, 27, NO }, /* below IPv4 + UDP headers */
	{ LAYER_IP, V6, 48, 0 },
	{ LAYER_IP, V6, 47, NO }, /* below IPv6 + UDP headers */
	{ LAYER_IP, V6, 1500, 1452 },
	{ LAYER_FRAME, V4, 64, 18 }, /* a padded frame: its largest payload */
	{ LAYER_FRAME, V4, 63, NO }, /* below the Ethernet minimum */
	{ LAYER_FRAME, V4, 60, NO }, /* a frame without its FCS is no frame */
	{ LAYER_FRAME, V4, 65, 19 },
	{ LAYER_FRAME, V4, 128, 82 },
	{ LAYER_FRAME, V4, 1518, 1472 },
	{ LAYER_FRAME, V4, 9018, 8972 },
	{ LAYER_FRAME, V6, 64, NO }, /* IPv6 + UDP alone make 66 */
	{ LAYER_FRAME, V6, 66, 0 },
	{ LAYER_FRAME, V6, 1518, 1452 },
	{ LAYER_LINE, V4, 84, 18 },
	{ LAYER_LINE, V4, 83, NO },
	{ LAYER_LINE, V4, 1538, 1472 },
};

static void test_payload_len(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(inverse) / sizeof(inverse[0]); i++) {
		uint32_t p = 77;
		char why[160] = "";
		int rc = layer_payload_len(inverse[i].l, inverse[i].family, inverse[i].size, 0,
					   65507, &p, why, sizeof(why));

		if (inverse[i].payload == NO) {
			assert_int_equal(rc, -EINVAL);
			assert_int_equal(p, 77);
			assert_non_null(strstr(why, "at least"));
			continue;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(p, inverse[i].payload);
		/* and back: the size, or the padded minimum it came from */
		assert_int_equal(layer_bytes(inverse[i].l, inverse[i].family, p), inverse[i].size);
	}
}

/* With the 16-byte short header a 64-byte IPv4 frame (18 bytes of payload)
 * is in reach, a smaller one is not; over IPv6 no 64-byte frame is, and the
 * error says what the smallest is (RFC 5180 5.1.1). */
static void test_payload_range(void **state)
{
	char why[300] = "";
	uint32_t p = 0;

	(void)state;
	assert_int_equal(layer_payload_len(LAYER_FRAME, V4, 64, 16, 65507, &p, why, sizeof(why)),
			 0);
	assert_int_equal(p, 18);
	assert_int_equal(layer_bytes(LAYER_FRAME, V4, 18), 64);
	assert_int_equal(layer_bytes(LAYER_FRAME, V4, 16), 64); /* padded */
	assert_int_equal(layer_payload_len(LAYER_FRAME, V4, 63, 16, 65507, &p, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "at least 64 bytes at the frame layer, not 63"));
	assert_int_equal(layer_payload_len(LAYER_FRAME, V4, 64, 32, 65507, &p, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "78..65553 bytes at the frame layer"));
	assert_int_equal(layer_payload_len(LAYER_FRAME, V6, 64, 16, 65507, &p, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "at least 66 bytes at the frame layer, not 64"));
	assert_non_null(strstr(why, "no 64-byte IPv6 test frame"));
	assert_non_null(strstr(why, "the headers are 66 bytes; the smallest is 82)"));
	assert_int_equal(layer_payload_len(LAYER_FRAME, V6, 81, 16, 65507, &p, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "82..65573 bytes at the frame layer"));
	assert_int_equal(layer_payload_len(LAYER_LINE, V6, 84, 16, 65507, &p, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "the smallest is 102)"));
	assert_int_equal(layer_payload_len(LAYER_FRAME, V6, 82, 16, 65507, &p, why, sizeof(why)),
			 0);
	assert_int_equal(p, 16);
	why[0] = '\0';
	assert_int_equal(layer_payload_len(LAYER_IP, V6, 63, 16, 65507, &p, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "64..65555 bytes at the ip layer"));
	assert_null(strstr(why, "RFC 5180")); /* only frames have the RFC's sizes */
}

/* Rates: datagrams/s rounded down (what fits), and the payload rate. */
static const struct {
	enum layer l;
	int family;
	uint32_t payload;
	uint64_t bps, pps;
} rates[] = {
	{ LAYER_LINE, V4, 18, 100000000, 148809 },     /* 148809.52: 64-byte frames */
	{ LAYER_LINE, V4, 18, 1000000000, 1488095 },   /* 1488095.24 */
	{ LAYER_LINE, V4, 18, 10000000000, 14880952 }, /* 14880952.38 at 10 GbE */
	{ LAYER_LINE, V4, 1472, 1000000000, 81274 },   /* 81274.38: 1518-byte frames */
	{ LAYER_LINE, V6, 1452, 1000000000, 81274 },   /* the same frames over IPv6 */
	{ LAYER_LINE, V4, 32, 1000000000, 1275510 },   /* 78-byte frames: 98 on the line */
	{ LAYER_LINE, V4, 32, 900000000, 1147959 },
	{ LAYER_LINE, V4, 82, 1000000000, 844594 },   /* 128-byte frames */
	{ LAYER_FRAME, V4, 18, 100000000, 195312 },   /* 195312.5: no preamble or gap */
	{ LAYER_IP, V4, 18, 100000000, 271739 },      /* 271739.13: IP 46 */
	{ LAYER_IP, V6, 18, 100000000, 189393 },      /* 189393.94: IP 66 */
	{ LAYER_PAYLOAD, V4, 18, 100000000, 694444 }, /* 694444.44 */
	{ LAYER_PAYLOAD, V4, 1000, 0, 0 },	      /* no rate: none */
	{ LAYER_LINE, V4, 1472, 12304, 1 },	      /* exactly one frame a second */
};

static void test_rate(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		uint64_t pps = 7, bps = 7;
		char why[160];

		assert_int_equal(layer_rate(rates[i].l, rates[i].family, rates[i].payload,
					    rates[i].bps, &pps, &bps, why, sizeof(why)),
				 0);
		assert_int_equal(pps, rates[i].pps);
		assert_int_equal(bps, rates[i].pps * 8 * rates[i].payload);
	}
}

static void test_rate_too_low(void **state)
{
	uint64_t pps = 7, bps = 7;
	char why[160] = "";

	(void)state;
	assert_int_equal(layer_rate(LAYER_LINE, V4, 1472, 12303, &pps, &bps, why, sizeof(why)),
			 -ERANGE);
	assert_int_equal(pps, 7);
	assert_non_null(strstr(why, "less than one datagram a second"));
}

static void test_bps(void **state)
{
	double bps[LAYER_COUNT];

	(void)state;
	layer_bps(V4, 18, 148809, bps);
	assert_float_equal(bps[LAYER_PAYLOAD], 148809.0 * 144, 1e-6);
	assert_float_equal(bps[LAYER_IP], 148809.0 * 368, 1e-6);
	assert_float_equal(bps[LAYER_FRAME], 148809.0 * 512, 1e-6);
	assert_float_equal(bps[LAYER_LINE], 148809.0 * 672, 1e-6); /* 99,999,648 bit/s */
	layer_bps(V6, 1452, 1000, bps);
	assert_float_equal(bps[LAYER_IP], 12000000.0, 1e-6);
	assert_float_equal(bps[LAYER_LINE], 12304000.0, 1e-6);
}

static void test_names(void **state)
{
	enum layer l = LAYER_COUNT;

	(void)state;
	for (unsigned i = 0; i < LAYER_COUNT; i++) {
		assert_true(layer_parse(layer_name((enum layer)i), &l));
		assert_int_equal(l, i);
	}
	l = LAYER_IP;
	assert_false(layer_parse("Frame", &l));
	assert_false(layer_parse("", &l));
	assert_false(layer_parse("l2", &l));
	assert_false(layer_parse(NULL, &l));
	assert_int_equal(l, LAYER_IP);
}

/* Counts of datagrams of many sizes (an overlay's outer packets): the
 * headers once per datagram, no padding. */
static void test_bytes_of(void **state)
{
	(void)state;
	/* 10 outer datagrams of 80 bytes of UDP payload over IPv4: IP 108 */
	assert_int_equal(layer_bytes_of(LAYER_PAYLOAD, V4, 10, 800), 800);
	assert_int_equal(layer_bytes_of(LAYER_IP, V4, 10, 800), 1080);
	assert_int_equal(layer_bytes_of(LAYER_FRAME, V4, 10, 800), 1260);
	assert_int_equal(layer_bytes_of(LAYER_LINE, V4, 10, 800), 1460);
	assert_int_equal(layer_bytes_of(LAYER_LINE, V6, 10, 800), 1660);
	assert_int_equal(layer_bytes_of(LAYER_LINE, V4, 0, 0), 0);
	/* one datagram: the same as layer_bytes() above the minimum frame */
	assert_int_equal(layer_bytes_of(LAYER_LINE, V4, 1, 1400),
			 layer_bytes(LAYER_LINE, V4, 1400));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes),	 cmocka_unit_test(test_payload_len),
		cmocka_unit_test(test_bytes_of), cmocka_unit_test(test_payload_range),
		cmocka_unit_test(test_rate),	 cmocka_unit_test(test_rate_too_low),
		cmocka_unit_test(test_bps),	 cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
