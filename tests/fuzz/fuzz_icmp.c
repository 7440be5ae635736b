// SPDX-License-Identifier: MIT
/*
 * The overlay's too-big path on arbitrary inner packets (what a TUN device
 * hands the tunnel is whatever the local stack or a local user wrote): the
 * predicate, the builder with and without an explicit source, and the reply
 * parser. Any reply built must stay within the RFC size limits, quote only
 * bytes of the input and parse back with the MTU it was built with.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "icmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t src4[4] = { 198, 19, 0, 1 };
	static const uint8_t src6[16] = { 0x20, 0x01, 0, 2, 0, 0, 0, 0xff, [15] = 1 };
	uint8_t out[ICMP_REPLY_MAX];
	uint32_t mtu, got;
	ssize_t n;

	if (size < 2)
		return 0;
	/* the first two bytes choose the MTU; the rest is the inner packet */
	mtu = (uint32_t)data[0] << 6 | data[1];
	data += 2;
	size -= 2;
	(void)icmp_needs_too_big(data, size, mtu);
	(void)icmp_parse_too_big(data, size, &got);
	for (int explicit_src = 0; explicit_src < 2; explicit_src++) {
		const uint8_t *src = NULL;
		size_t src_len = 0;

		if (explicit_src && size && (data[0] >> 4) == 6) {
			src = src6;
			src_len = 16;
		} else if (explicit_src) {
			src = src4;
			src_len = 4;
		}
		n = icmp_build_too_big(data, size, mtu, src, src_len, out, sizeof(out));
		if (n <= 0)
			continue;
		if ((out[0] >> 4) == 4 && n > ICMP_V4_REPLY_MAX)
			abort();
		if (n > ICMP_V6_REPLY_MAX)
			abort();
		if (!icmp_parse_too_big(out, (size_t)n, &got))
			abort();
		if ((out[0] >> 4) == 6 ? got < ICMP_V6_MIN_MTU : got < ICMP_V4_MIN_MTU)
			abort();
	}
	return 0;
}
