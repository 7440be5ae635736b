// SPDX-License-Identifier: MIT
/*
 * The header of every UDP test datagram (layout in proto.h): written once
 * per buffer, restamped per send, parsed by the receiver.
 */
#include <errno.h>

#include "bytes.h"
#include "proto.h"

/* ---- UDP test datagram -------------------------------------------------- */

int dgram_put(uint8_t *buf, size_t len, const struct dgram_hdr *h)
{
	if (len < DGRAM_HDR_LEN)
		return -EINVAL;
	put_be32(buf, DGRAM_MAGIC);
	put_be16(buf + 4, h->stream);
	put_be16(buf + 6, h->flags);
	put_be64(buf + 8, h->seq);
	put_be64(buf + 16, h->send_ns);
	put_be32(buf + 24, h->test_id);
	put_be32(buf + 28, 0);
	return 0;
}

void dgram_restamp(uint8_t buf[static DGRAM_HDR_LEN], uint64_t seq, uint64_t send_ns)
{
	put_be64(buf + 8, seq);
	put_be64(buf + 16, send_ns);
}

bool dgram_parse(const uint8_t *buf, size_t len, struct dgram_hdr *h)
{
	if (len < LOAD_UDP_MIN_LEN || get_be32(buf) != DGRAM_MAGIC)
		return false;
	h->stream = get_be16(buf + 4);
	h->flags = get_be16(buf + 6);
	if (h->flags & ~(uint16_t)(DGRAM_F_OMIT | DGRAM_F_FIN))
		return false;
	h->seq = get_be64(buf + 8);
	h->send_ns = get_be64(buf + 16);
	h->test_id = get_be32(buf + 24);
	return true;
}
