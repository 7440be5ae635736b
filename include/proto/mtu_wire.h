/* SPDX-License-Identifier: MIT */
/*
 * Wire formats of `ovlperf mtu`: the bodies of the control messages
 * PROTO_MTU_PROBE_REQUEST (client -> server) and PROTO_MTU_PROBE_REPLY
 * (server -> client), which proto.h leaves opaque, and the UDP probe datagram.
 * Every body starts with a 4-byte op header (op u8, version u8, reserved u16)
 * followed by the op's fixed part; the whole length is checked against the op
 * before any field is read. Every field is big-endian, through bytes.h.
 *
 * A session, after TEST_REQUEST (kind MTU) / TEST_ACCEPT:
 *   c->s OPEN        version, flags, family, token
 *   s->c READY       UDP probe port, TCP port (MSS check), server interface MTU
 *                    (with MTU_WIRE_F_ONE_PORT: the server's port, for both)
 *   c->s QUERY       "round r: I sent n probes"    (repeated; UDP probes in between)
 *   s->c REPORT      which probes of round r arrived, reassembled count, counters
 *   c->s TCP_QUERY   after a transfer on the TCP port
 *   s->c TCP_REPORT  the server end's TCP_INFO
 *   c->s DONE        the server's mtu_serve() returns
 */
#ifndef OVLPERF_MTU_WIRE_H
#define OVLPERF_MTU_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MTU_WIRE_VERSION 1
#define MTU_WIRE_MAGIC	 0x4f564d50u /* "OVMP" */
/* Probes of one round: one bit each in the report's mask. */
#define MTU_WIRE_MAX_ROUND 32

#define MTU_WIRE_OP_LEN 4
enum mtu_wire_op {
	MTU_OP_OPEN = 1,
	MTU_OP_READY = 2,
	MTU_OP_QUERY = 3,
	MTU_OP_REPORT = 4,
	MTU_OP_TCP_QUERY = 5,
	MTU_OP_TCP_REPORT = 6,
	MTU_OP_DONE = 7,
};

/* Writes the op header; returns MTU_WIRE_OP_LEN. */
size_t mtu_wire_put_op(uint8_t out[static MTU_WIRE_OP_LEN], enum mtu_wire_op op);
/* Reads the op of a body (any version other than MTU_WIRE_VERSION is refused);
 * the op's own decoder then checks the rest. */
bool mtu_wire_get_op(const uint8_t *buf, size_t len, enum mtu_wire_op *op);

#define MTU_WIRE_F_TCP 0x01 /* the client wants the TCP MSS check */
/* The client greets the MSS check's connection with a probe header (its
 * token) and may send everything to the server's own port: a server that
 * can answers READY with that port for both (proto.h: the demux). */
#define MTU_WIRE_F_ONE_PORT 0x02

/* OPEN (after the op header): version u8, flags u8, family u8 (4|6), reserved u8, token u64. */
#define MTU_WIRE_REQUEST_LEN 12
struct mtu_wire_request {
	uint8_t version, flags, family;
	uint64_t token; /* random; every probe carries it */
};

/* READY, server -> client: udp_port u16, tcp_port u16 (0: none),
 * if_mtu u32 (MTU of the server's interface for the control address; 0: unknown). */
#define MTU_WIRE_READY_LEN 8
struct mtu_wire_ready {
	uint16_t udp_port, tcp_port;
	uint32_t if_mtu;
};

/* UDP probe: magic u32, token u64, round u32, index u16, reserved u16,
 * size u32 (the IP packet size the client sent), then padding. */
#define MTU_WIRE_PROBE_HDR_LEN 24
/* The smallest IP packet a probe can be: IPv4 + UDP headers + probe header. */
#define MTU_WIRE_PROBE_MIN_IP (20 + 8 + MTU_WIRE_PROBE_HDR_LEN)
struct mtu_wire_probe {
	uint64_t token;
	uint32_t round;
	uint16_t index;
	uint32_t size;
};

/* QUERY, client -> server: round u32, sent u16, wait_ms u16 (how
 * long the server waits for probes of the round that are still missing). */
#define MTU_WIRE_QUERY_LEN   8
#define MTU_WIRE_MAX_WAIT_MS 5000
struct mtu_wire_query {
	uint32_t round;
	uint16_t sent, wait_ms;
};

/* REPORT, server -> client: round u32, received u16, reassembled
 * u16, mask u32 (bit i: probe i arrived), reasm_reqds u64 and frag_creates
 * u64 (the server host's IP counters for the probes' family, absolute). */
#define MTU_WIRE_REPORT_LEN 32
struct mtu_wire_report {
	uint32_t round;
	uint16_t received, reassembled;
	uint32_t mask;
	uint64_t reasm_reqds, frag_creates;
};

/* TCP_QUERY and DONE have nothing after the op header. TCP_REPORT, server ->
 * client: snd_mss, adv_mss, rcv_mss, pmtu (u32 each, 0 when no connection
 * was accepted), bytes u64 (received on the connection so far), syn_mss u32
 * (the MSS option of the client's SYN as it arrived; 0: unknown). A report
 * of MTU_WIRE_TCP_REPORT_V1_LEN (without syn_mss) is still read. */
#define MTU_WIRE_TCP_REPORT_LEN	   28
#define MTU_WIRE_TCP_REPORT_V1_LEN 24
/* The TCP check's transfer: the client sends MTU_WIRE_TCP_CLIENT_BYTES, the
 * server MTU_WIRE_TCP_SERVER_BYTES, so both ends' MSS and PMTU are exercised. */
#define MTU_WIRE_TCP_CLIENT_BYTES (1024u * 1024u)
#define MTU_WIRE_TCP_SERVER_BYTES (512u * 1024u)
struct mtu_wire_tcp_report {
	uint32_t snd_mss, adv_mss, rcv_mss, pmtu;
	uint64_t bytes;
	uint32_t syn_mss;
};

/* Bodies below are the part after the op header; callers write the op
 * header first (mtu_wire_put_op) and pass buf + MTU_WIRE_OP_LEN. */
void mtu_wire_put_request(uint8_t out[static MTU_WIRE_REQUEST_LEN],
			  const struct mtu_wire_request *r);
bool mtu_wire_get_request(const uint8_t *buf, size_t len, struct mtu_wire_request *r);
void mtu_wire_put_ready(uint8_t out[static MTU_WIRE_READY_LEN], const struct mtu_wire_ready *r);
bool mtu_wire_get_ready(const uint8_t *buf, size_t len, struct mtu_wire_ready *r);
void mtu_wire_put_probe(uint8_t out[static MTU_WIRE_PROBE_HDR_LEN], const struct mtu_wire_probe *p);
bool mtu_wire_get_probe(const uint8_t *buf, size_t len, struct mtu_wire_probe *p);
void mtu_wire_put_query(uint8_t out[static MTU_WIRE_QUERY_LEN], const struct mtu_wire_query *q);
bool mtu_wire_get_query(const uint8_t *buf, size_t len, struct mtu_wire_query *q);
void mtu_wire_put_report(uint8_t out[static MTU_WIRE_REPORT_LEN], const struct mtu_wire_report *r);
bool mtu_wire_get_report(const uint8_t *buf, size_t len, struct mtu_wire_report *r);
void mtu_wire_put_tcp_report(uint8_t out[static MTU_WIRE_TCP_REPORT_LEN],
			     const struct mtu_wire_tcp_report *r);
bool mtu_wire_get_tcp_report(const uint8_t *buf, size_t len, struct mtu_wire_tcp_report *r);

#endif
