// SPDX-License-Identifier: MIT
/* libFuzzer: a TUN read (virtio_net_hdr + packet) through gso_split(). */
#include <stddef.h>
#include <stdint.h>

#include "gso.h"

#define SEG_CAP 1500

static uint8_t mem[GSO_MAX_SEGS][SEG_CAP];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *bufs[GSO_MAX_SEGS];
	size_t lens[GSO_MAX_SEGS];
	struct gso_hdr h;
	int n;

	if (size < GSO_VNET_HDR_LEN || size > GSO_VNET_HDR_LEN + GSO_MAX_PACKET)
		return 0;
	for (size_t i = 0; i < GSO_MAX_SEGS; i++)
		bufs[i] = mem[i];
	gso_hdr_parse(data, &h);
	n = gso_split(&h, data + GSO_VNET_HDR_LEN, size - GSO_VNET_HDR_LEN, bufs, SEG_CAP,
		      GSO_MAX_SEGS, lens);
	if (n > GSO_MAX_SEGS)
		__builtin_trap();
	for (int i = 0; i < n; i++)
		if (lens[i] > SEG_CAP || lens[i] == 0)
			__builtin_trap();
	return 0;
}
