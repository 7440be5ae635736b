// SPDX-License-Identifier: MIT
/* libFuzzer: a stream of decrypted packets (2-byte length, then the packet)
 * through the receive coalescer, as receive.c drives it (UDP coalescing on
 * when the first byte is odd); and the same bytes
 * as the control messages of a UDP_GRO receive, whose segment size then
 * splits a buffer of the input's length (the pieces must tile it exactly). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gro.h"

static uint8_t buf[GSO_VNET_HDR_LEN + GSO_MAX_PACKET];
static uint8_t pkt[2048];

static void flush(struct gro *g, size_t *total)
{
	const uint8_t *out;
	size_t n = gro_flush(g, &out);

	if (n && (n < GSO_VNET_HDR_LEN + 21 || n > sizeof(buf) || out != buf))
		__builtin_trap();
	*total += n ? n - GSO_VNET_HDR_LEN : 0;
}

static void udp_split(const uint8_t *data, size_t size)
{
	int gs = gro_udp_gso_size(data, size);
	size_t n, off, total = 0;

	if (gs < 0 && gs != -22 /* EINVAL */)
		__builtin_trap();
	if (gs < 0)
		return;
	if (gs > 65535)
		__builtin_trap();
	n = gro_udp_count(size, (size_t)gs);
	for (size_t i = 0; i < n; i++) {
		size_t l = gro_udp_segment(size, (size_t)gs, i, &off);

		if (off != total || (gs && l > (size_t)gs) || (l == 0 && size))
			__builtin_trap();
		total += l;
	}
	if (total != size || gro_udp_segment(size, (size_t)gs, n, &off) != 0)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gro g;
	size_t in = 0, out = 0;

	udp_split(data, size);

	/* the first byte's low bit: UDP coalescing on or off */
	gro_init(&g, buf, size && (data[0] & 1));
	while (size >= 2) {
		size_t len = (size_t)(data[0] | data[1] << 8) % sizeof(pkt);

		data += 2;
		size -= 2;
		if (len > size)
			len = size;
		memcpy(pkt, data, len);
		data += len;
		size -= len;
		if (gro_append(&g, pkt, len)) {
			in += len; /* its headers are not repeated: out stays below in */
			continue;
		}
		flush(&g, &out);
		if (gro_start(&g, pkt, len))
			in += len;
	}
	flush(&g, &out);
	if (out > in)
		__builtin_trap();
	return 0;
}
