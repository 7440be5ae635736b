// SPDX-License-Identifier: MIT
/* What the first bytes on the server's one port are (data_registry.h). */
#include <string.h>

#include "addr.h"
#include "bytes.h"
#include "data_registry.h"
#include "mtu_wire.h"

enum data_demux data_demux_classify(const uint8_t *buf, size_t len, size_t *need)
{
	static const struct {
		uint32_t magic;
		enum data_demux what;
		size_t len;
	} known[] = {
		{ PROTO_MAGIC, DATA_DEMUX_CONTROL, 4 },
		{ PROTO_DATA_MAGIC, DATA_DEMUX_DATA, PROTO_DATA_HELLO_LEN },
		{ MTU_WIRE_MAGIC, DATA_DEMUX_MTU, MTU_WIRE_PROBE_HDR_LEN },
	};
	bool prefix = false;

	*need = 0;
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		uint8_t m[4];

		put_be32(m, known[k].magic);
		if (len >= 4 && memcmp(buf, m, 4) == 0) {
			*need = known[k].what == DATA_DEMUX_CONTROL ? 0 : known[k].len;
			return known[k].what;
		}
		/* garbage as soon as a byte rules every magic out */
		if (len < 4 && memcmp(buf, m, len) == 0)
			prefix = true;
	}
	if (!prefix)
		return DATA_DEMUX_GARBAGE;
	*need = 4;
	return DATA_DEMUX_MORE;
}

bool data_demux_claim(enum data_demux what, bool udp, const uint8_t *buf, size_t len,
		      const struct sockaddr_storage *from, struct data_claim *c)
{
	memset(c, 0, sizeof(*c));
	c->from = *from;
	addr_unmap(&c->from);
	if (what == DATA_DEMUX_DATA) {
		struct proto_data_hello h;

		if (proto_decode_data_hello(buf, len, &h) < 0)
			return false;
		c->kind = udp ? DATA_REG_UDP : DATA_REG_TCP;
		c->test_id = h.test_id;
		c->stream = h.stream;
		memcpy(c->secret, h.cookie, sizeof(c->secret));
		return true;
	}
	if (what == DATA_DEMUX_MTU) {
		struct mtu_wire_probe p;

		if (!mtu_wire_get_probe(buf, len, &p))
			return false;
		c->kind = DATA_REG_MTU;
		put_be64(c->secret, p.token);
		return true;
	}
	return false;
}
