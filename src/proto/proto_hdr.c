// SPDX-License-Identifier: MIT
/*
 * The 12-byte header of every control message (layout in proto.h): written
 * by the encoders (proto_int.h's begin()), checked by the framing reader
 * and proto_parse() before a body is handed to any decoder.
 */
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"
#include "proto.h"

_Static_assert(PROTO_HDR_LEN == 12, "header layout");
_Static_assert(PROTO_MAX_MSG == PROTO_HDR_LEN + PROTO_MAX_BODY, "max message");

void proto_put_hdr(uint8_t buf[static PROTO_HDR_LEN], uint16_t type, uint32_t body_len)
{
	put_be32(buf, PROTO_MAGIC);
	put_be16(buf + 4, PROTO_VERSION);
	put_be16(buf + 6, type);
	put_be32(buf + 8, body_len);
}

int proto_decode_hdr(const uint8_t *buf, size_t len, struct proto_hdr *hdr)
{
	if (len < PROTO_HDR_LEN)
		return PROTO_E_TRUNCATED;
	if (get_be32(buf) != PROTO_MAGIC)
		return PROTO_E_MAGIC;
	hdr->version = get_be16(buf + 4);
	hdr->type = get_be16(buf + 6);
	hdr->len = get_be32(buf + 8);
	if (hdr->version != PROTO_VERSION)
		return PROTO_E_VERSION;
	if (hdr->len > PROTO_MAX_BODY)
		return PROTO_E_TOOBIG;
	if (hdr->type == 0 || hdr->type > PROTO_TYPE_MAX)
		return PROTO_E_TYPE;
	return 0;
}

int proto_parse(const uint8_t *buf, size_t len, struct proto_msg *msg)
{
	struct proto_hdr h;
	int ret = proto_decode_hdr(buf, len, &h);

	if (ret < 0)
		return ret;
	if (len - PROTO_HDR_LEN < h.len)
		return PROTO_E_TRUNCATED;
	if (len - PROTO_HDR_LEN > h.len)
		return PROTO_E_LENGTH;
	msg->type = h.type;
	msg->body = buf + PROTO_HDR_LEN;
	msg->len = h.len;
	return 0;
}
