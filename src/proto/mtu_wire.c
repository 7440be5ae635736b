// SPDX-License-Identifier: MIT
/* Encoding and checked decoding of the bodies in mtu_wire.h. */
#include "mtu_wire.h"

#include "bytes.h"

size_t mtu_wire_put_op(uint8_t out[static MTU_WIRE_OP_LEN], enum mtu_wire_op op)
{
	out[0] = (uint8_t)op;
	out[1] = MTU_WIRE_VERSION;
	put_be16(out + 2, 0);
	return MTU_WIRE_OP_LEN;
}

bool mtu_wire_get_op(const uint8_t *buf, size_t len, enum mtu_wire_op *op)
{
	if (!buf || len < MTU_WIRE_OP_LEN || buf[1] != MTU_WIRE_VERSION)
		return false;
	if (buf[0] < MTU_OP_OPEN || buf[0] > MTU_OP_DONE)
		return false;
	*op = (enum mtu_wire_op)buf[0];
	return true;
}

void mtu_wire_put_request(uint8_t out[static MTU_WIRE_REQUEST_LEN],
			  const struct mtu_wire_request *r)
{
	out[0] = r->version;
	out[1] = r->flags;
	out[2] = r->family;
	out[3] = 0;
	put_be64(out + 4, r->token);
}

bool mtu_wire_get_request(const uint8_t *buf, size_t len, struct mtu_wire_request *r)
{
	if (!buf || len != MTU_WIRE_REQUEST_LEN)
		return false;
	r->version = buf[0];
	r->flags = buf[1];
	r->family = buf[2];
	r->token = get_be64(buf + 4);
	return r->version == MTU_WIRE_VERSION && (r->family == 4 || r->family == 6) &&
	       !(r->flags & ~(MTU_WIRE_F_TCP | MTU_WIRE_F_ONE_PORT)) && buf[3] == 0;
}

void mtu_wire_put_ready(uint8_t out[static MTU_WIRE_READY_LEN], const struct mtu_wire_ready *r)
{
	put_be16(out, r->udp_port);
	put_be16(out + 2, r->tcp_port);
	put_be32(out + 4, r->if_mtu);
}

bool mtu_wire_get_ready(const uint8_t *buf, size_t len, struct mtu_wire_ready *r)
{
	if (!buf || len != MTU_WIRE_READY_LEN)
		return false;
	r->udp_port = get_be16(buf);
	r->tcp_port = get_be16(buf + 2);
	r->if_mtu = get_be32(buf + 4);
	return r->udp_port != 0;
}

void mtu_wire_put_probe(uint8_t out[static MTU_WIRE_PROBE_HDR_LEN], const struct mtu_wire_probe *p)
{
	put_be32(out, MTU_WIRE_MAGIC);
	put_be64(out + 4, p->token);
	put_be32(out + 12, p->round);
	put_be16(out + 16, p->index);
	put_be16(out + 18, 0);
	put_be32(out + 20, p->size);
}

bool mtu_wire_get_probe(const uint8_t *buf, size_t len, struct mtu_wire_probe *p)
{
	if (!buf || len < MTU_WIRE_PROBE_HDR_LEN || get_be32(buf) != MTU_WIRE_MAGIC)
		return false;
	p->token = get_be64(buf + 4);
	p->round = get_be32(buf + 12);
	p->index = get_be16(buf + 16);
	p->size = get_be32(buf + 20);
	return p->index < MTU_WIRE_MAX_ROUND;
}

void mtu_wire_put_query(uint8_t out[static MTU_WIRE_QUERY_LEN], const struct mtu_wire_query *q)
{
	put_be32(out, q->round);
	put_be16(out + 4, q->sent);
	put_be16(out + 6, q->wait_ms);
}

bool mtu_wire_get_query(const uint8_t *buf, size_t len, struct mtu_wire_query *q)
{
	if (!buf || len != MTU_WIRE_QUERY_LEN)
		return false;
	q->round = get_be32(buf);
	q->sent = get_be16(buf + 4);
	q->wait_ms = get_be16(buf + 6);
	return q->sent <= MTU_WIRE_MAX_ROUND && q->wait_ms <= MTU_WIRE_MAX_WAIT_MS;
}

void mtu_wire_put_report(uint8_t out[static MTU_WIRE_REPORT_LEN], const struct mtu_wire_report *r)
{
	put_be32(out, r->round);
	put_be16(out + 4, r->received);
	put_be16(out + 6, r->reassembled);
	put_be32(out + 8, r->mask);
	put_be64(out + 12, r->reasm_reqds);
	put_be64(out + 20, r->frag_creates);
	put_be32(out + 28, 0);
}

bool mtu_wire_get_report(const uint8_t *buf, size_t len, struct mtu_wire_report *r)
{
	if (!buf || len != MTU_WIRE_REPORT_LEN)
		return false;
	r->round = get_be32(buf);
	r->received = get_be16(buf + 4);
	r->reassembled = get_be16(buf + 6);
	r->mask = get_be32(buf + 8);
	r->reasm_reqds = get_be64(buf + 12);
	r->frag_creates = get_be64(buf + 20);
	return r->received <= MTU_WIRE_MAX_ROUND && r->reassembled <= r->received;
}

void mtu_wire_put_tcp_report(uint8_t out[static MTU_WIRE_TCP_REPORT_LEN],
			     const struct mtu_wire_tcp_report *r)
{
	put_be32(out, r->snd_mss);
	put_be32(out + 4, r->adv_mss);
	put_be32(out + 8, r->rcv_mss);
	put_be32(out + 12, r->pmtu);
	put_be64(out + 16, r->bytes);
	put_be32(out + 24, r->syn_mss);
}

bool mtu_wire_get_tcp_report(const uint8_t *buf, size_t len, struct mtu_wire_tcp_report *r)
{
	if (!buf || (len != MTU_WIRE_TCP_REPORT_LEN && len != MTU_WIRE_TCP_REPORT_V1_LEN))
		return false;
	r->snd_mss = get_be32(buf);
	r->adv_mss = get_be32(buf + 4);
	r->rcv_mss = get_be32(buf + 8);
	r->pmtu = get_be32(buf + 12);
	r->bytes = get_be64(buf + 16);
	r->syn_mss = len == MTU_WIRE_TCP_REPORT_LEN ? get_be32(buf + 24) : 0;
	return true;
}
