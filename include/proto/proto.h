/* SPDX-License-Identifier: MIT */
/*
 * Wire formats of the measurement engine: the control protocol between
 * `ovlperf client` and `ovlperf server` (TCP) and the header every UDP test
 * datagram carries. Nothing else in the tree knows an offset into these.
 *
 * Control protocol, version PROTO_VERSION
 * ---------------------------------------
 * Every message is a 12-byte header followed by a body, all big-endian:
 *
 *   0      4        6      8            12
 *   +------+--------+------+------------+-------------------------+
 *   | magic| version| type | body length| body (length bytes)     |
 *   | OVLC |  u16   | u16  |    u32     |                         |
 *   +------+--------+------+------------+-------------------------+
 *
 * A message whose length exceeds PROTO_MAX_BODY is refused before anything is
 * allocated. Each type has a fixed body size, or a fixed part plus a counted
 * array whose count must match the length exactly; decoders check the length
 * against the type before reading a field. Text fields are at most
 * PROTO_TEXT_MAX bytes, decoded NUL-terminated with non-printable bytes
 * replaced by '?', so they can be logged safely.
 *
 * A session (c: client, s: server):
 *   c->s HELLO             protocol version, capabilities, software version
 *   s->c HELLO             the server's; PROTO_CAP_AUTH_REQUIRED when it wants a PSK
 *   s->c AUTH_CHALLENGE    (only with a PSK) 32-byte server nonce
 *   c->s AUTH_RESPONSE     client nonce + crypto_auth proof (see auth.h)
 *   s->c AUTH_OK           the server's proof over the same nonces (mutual)
 *   c->s TEST_REQUEST      what to run (TCP/UDP/MTU, streams, duration, rate ...)
 *   s->c TEST_ACCEPT       test id, cookie, data ports, the server's limits
 *     or TEST_REJECT       reason code + text; the connection stays usable
 *   (data connections/datagrams carry the test id; see proto_data_hello;
 *    with PROTO_CAP_DATA_ACK on both sides the server echoes each TCP data
 *    greeting once registered, and the client waits for every echo)
 *   c->s START             the measurement begins
 *   s->c / c->s INTERVAL   optional per-interval figures from the receiving end
 *   c->s STOP              the sender is done (or the client was interrupted)
 *   s->c HOST_FACTS        (with PROTO_CAP_HOST_FACTS on both sides) the
 *                          server's host facts over the test, before its RESULTS
 *   both RESULTS           each end's own counters (sender and receiver views)
 *   either ERROR           code + text; the sender of ERROR closes afterwards
 *   MTU_PROBE_REQUEST / MTU_PROBE_REPLY carry an opaque body (mtu_wire.h).
 *   OVERLAY_* bring up and take down the built-in overlay (proto_overlay.h).
 * A message of an unknown type is a protocol error (PROTO_E_TYPE).
 *
 * One port
 * --------
 * The server owns one port number, TCP and UDP (LOAD_DEFAULT_PORT unless
 * --port), and everything of every test comes there; TEST_ACCEPT announces
 * that port for every stream (nports 1), so a client that predates this
 * works unchanged. A firewall in front of the server needs TCP and UDP to
 * that port only. What arrives is told apart by its first 4 bytes
 * (data_registry.h; the accept loop never waits for a peer: a connection
 * stays pending, at most PENDING_MAX of them, until its bytes are in):
 *
 *   TCP  "OVLC"  a control session (this protocol) in a thread of its own
 *        "OVLS"  a data connection: its proto_data_hello (28 bytes) is read,
 *                looked up by test id in the server-wide registry of tests
 *                waiting for streams, its cookie compared in constant time,
 *                its source host compared with the control connection's;
 *                then handed to that test (with PROTO_CAP_DATA_ACK the test
 *                echoes the greeting)
 *        "OVMP"  the MTU check's connection: a probe header (mtu_wire.h)
 *                whose token names the MTU session (PROTO_CAP_ONE_PORT)
 *        other   an ERROR (bad magic) and closed; nothing within the idle
 *                timeout, or a greeting begun and not finished within the
 *                message timeout: an ERROR (timeout) and closed; all counted
 *   UDP  "OVLS"  a stream's greeting, checked as above; the server opens a
 *                socket bound to the address and port it was sent to and
 *                connected to the address and port it came from (as a NAT
 *                rewrote them), echoes from there and hands it to the test:
 *                that peer's datagrams reach it, the client's NAT or
 *                stateful firewall passes its replies (-R)
 *        "OVMP"  an MTU probe, counted for the session its token names
 *        other   ignored (a stream's last datagrams after its socket closed)
 * Connections not yet classified count towards --max-sessions.
 *
 * UDP test datagram
 * -----------------
 *   0      4       6       8        16         24       28      32
 *   +------+-------+-------+--------+----------+--------+-------+---------+
 *   | magic|stream | flags |  seq   | send_ts  | test id| rsvd  | padding |
 *   | OVLD | u16   | u16   |  u64   |  u64 ns  |  u32   |  u32  |  ...    |
 *   +------+-------+-------+--------+----------+--------+-------+---------+
 * seq starts at 0 on every stream and increases by one per datagram.
 * send_ts is the sender's CLOCK_MONOTONIC in ns: exact one-way delay when both
 * ends share a kernel (the lab's namespaces). Across hosts the client shifts
 * the stamps it writes or reads by the clock offset estimated from the
 * greeting's echo (owd_clock.h); the server never shifts.
 *
 * Short datagram header (payloads of 16..31 bytes)
 * ------------------------------------------------
 * RFC 2544's smallest frame, 64 bytes with FCS, leaves an IPv4/UDP datagram
 * 18 bytes of payload (64 - 14 - 4 - 20 - 8), less than the header above.
 * A datagram shorter than DGRAM_HDR_LEN carries this one instead, with the
 * low bits of seq, send_ts and test id:
 *   0      2       3        4          8              14         16
 *   +------+-------+--------+----------+--------------+----------+---------+
 *   | magic| flags | stream | seq low  | send_ts low  | test id  | padding |
 *   | "ov" |  u8   |   u8   |   u32    |   u48 ns     | low u16  |  ...    |
 *   +------+-------+--------+----------+--------------+----------+---------+
 * The receiver widens seq to the value nearest the highest it has seen and
 * send_ts to the value nearest its own clock (shifted into the sender's),
 * as RTP widens its 16-bit sequence (RFC 3550 A.1): exact while reordering
 * stays within 2^31 datagrams and one-way delay within 2^47 ns (39 hours).
 * The length decides the form (a datagram of DGRAM_HDR_LEN or more always
 * has the full header), so a receiver accepts both; a sender uses the short
 * one only after the server offered PROTO_CAP_DGRAM_SHORT and the request
 * said PROTO_REQ_DGRAM_SHORT, so older peers never see it. End-of-stream
 * markers keep the full header: the sender's count there is never widened.
 */
#ifndef OVLPERF_PROTO_H
#define OVLPERF_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "load_spec.h"

#define PROTO_MAGIC	   0x4f564c43u /* "OVLC" */
#define PROTO_VERSION	   1
#define PROTO_HDR_LEN	   12
#define PROTO_MAX_BODY	   (64u * 1024u)
#define PROTO_MAX_MSG	   (PROTO_HDR_LEN + PROTO_MAX_BODY)
#define PROTO_TEXT_MAX	   256
#define PROTO_NONCE_LEN	   32
#define PROTO_MAC_LEN	   32
#define PROTO_COOKIE_LEN   16
#define PROTO_SOFTWARE_LEN 32
#define PROTO_MAX_STREAMS  LOAD_MAX_STREAMS

/* Documented negative codes; everything else negative is -errno. */
enum proto_err {
	PROTO_E_TRUNCATED = -1001,   /* body shorter than its type needs */
	PROTO_E_LENGTH = -1002,	     /* body length wrong for its type or count */
	PROTO_E_TOOBIG = -1003,	     /* length field above PROTO_MAX_BODY */
	PROTO_E_MAGIC = -1004,	     /* not an ovlperf control stream */
	PROTO_E_VERSION = -1005,     /* peer speaks another protocol version */
	PROTO_E_TYPE = -1006,	     /* unknown message type */
	PROTO_E_VALUE = -1007,	     /* a field out of its documented range */
	PROTO_E_EOF = -1008,	     /* peer closed between messages */
	PROTO_E_EOF_PARTIAL = -1009, /* peer closed in the middle of a message */
	PROTO_E_STALLED = -1010,     /* a message started but did not complete in time */
	PROTO_E_NOSPACE = -1011,     /* encode buffer too small */
};

enum proto_type {
	PROTO_HELLO = 1,
	PROTO_AUTH_CHALLENGE = 2,
	PROTO_AUTH_RESPONSE = 3,
	PROTO_AUTH_OK = 4,
	PROTO_TEST_REQUEST = 5,
	PROTO_TEST_ACCEPT = 6,
	PROTO_TEST_REJECT = 7,
	PROTO_START = 8,
	PROTO_INTERVAL = 9,
	PROTO_STOP = 10,
	PROTO_RESULTS = 11,
	PROTO_ERROR = 12,
	PROTO_MTU_PROBE_REQUEST = 13,
	PROTO_MTU_PROBE_REPLY = 14,
	PROTO_OVERLAY_REQUEST = 15, /* the built-in overlay: proto_overlay.h */
	PROTO_OVERLAY_ACCEPT = 16,
	PROTO_OVERLAY_READY = 17,
	PROTO_OVERLAY_DOWN = 18,
	PROTO_HOST_FACTS = 19, /* s->c: the server's host facts (below) */
	PROTO_TYPE_MAX = 19,
};

/* ---- header and framing ------------------------------------------------ */

struct proto_hdr {
	uint16_t version;
	uint16_t type;
	uint32_t len; /* body length */
};

/* Checks magic, version, type and len <= PROTO_MAX_BODY of a 12-byte header.
 * Returns 0 or PROTO_E_TRUNCATED/MAGIC/VERSION/TYPE/TOOBIG. */
int proto_decode_hdr(const uint8_t *buf, size_t len, struct proto_hdr *hdr);
/* Writes a header for a body of body_len bytes. */
void proto_put_hdr(uint8_t buf[static PROTO_HDR_LEN], uint16_t type, uint32_t body_len);

/* One complete message, as handed out by the reader or proto_parse(). */
struct proto_msg {
	uint16_t type;
	const uint8_t *body; /* valid until the next call on the reader */
	uint32_t len;
};

/* Parses one complete message (header + body, nothing more). 0 or negative. */
int proto_parse(const uint8_t *buf, size_t len, struct proto_msg *msg);

/*
 * Incremental reader for a non-blocking stream socket, one per connection.
 * It reads at most up to the end of the current message, so several clients
 * can be served from one poll loop; a message that started but did not
 * complete within a deadline is reported by proto_reader_stalled().
 */
struct proto_reader {
	uint8_t *buf;	   /* PROTO_MAX_MSG bytes, allocated by init */
	size_t have;	   /* bytes of the current message so far */
	size_t want;	   /* header + body length once the header is in */
	uint64_t start_ns; /* when the first byte of the current message came */
	bool ready;	   /* a complete message is in buf (consumed by next call) */
};

int proto_reader_init(struct proto_reader *r);
void proto_reader_free(struct proto_reader *r);
/* Feeds bytes (the pure core, used by the fd reader and by the fuzzer).
 * Consumes at most one message's worth: *used says how much of data was
 * taken. Returns 1 with *msg filled when a message completed, 0 when more is
 * needed, or a negative PROTO_E_* on a bad header (the stream is then unusable). */
int proto_reader_push(struct proto_reader *r, const uint8_t *data, size_t len, size_t *used,
		      uint64_t now_ns, struct proto_msg *msg);
/* Reads from fd (non-blocking or not). Returns 1 with *msg filled, 0 when
 * the socket has no more data now (EAGAIN), PROTO_E_EOF on a clean close
 * between messages, PROTO_E_EOF_PARTIAL inside one, PROTO_E_* on a bad header
 * or -errno. *msg->body is valid until the next call. */
int proto_reader_read(struct proto_reader *r, int fd, uint64_t now_ns, struct proto_msg *msg);
/* True when a message is partly read and began more than timeout_ns ago. */
bool proto_reader_stalled(const struct proto_reader *r, uint64_t now_ns, uint64_t timeout_ns);
/* True when a message is partly read. */
bool proto_reader_partial(const struct proto_reader *r);

/* Writes all of buf to fd, waiting with poll() on a non-blocking fd for at
 * most timeout_ms in total. 0, -ETIMEDOUT or -errno. Retries on EINTR only
 * while interrupt_requested() is false. */
int proto_write_all(int fd, const uint8_t *buf, size_t len, int timeout_ms);

/* ---- messages ---------------------------------------------------------- */

#define PROTO_CAP_AUTH_REQUIRED (1u << 0) /* server: a PSK is required */
#define PROTO_CAP_TCP		(1u << 1)
#define PROTO_CAP_UDP		(1u << 2)
#define PROTO_CAP_MTU		(1u << 3)
#define PROTO_CAP_REVERSE	(1u << 4)
#define PROTO_CAP_UDP_GSO	(1u << 5)
#define PROTO_CAP_UDP_GRO	(1u << 6)
/* Both ends: the server echoes a TCP data connection's greeting once it has
 * registered that connection, and the client sends START only when every
 * echo is back (without it a greeting the network delays arrives after START). */
#define PROTO_CAP_DATA_ACK (1u << 7)
/* Client: RESULTS may end with the sender's local drops (struct
 * proto_local_drops); a server sends them only to a client that says so. */
#define PROTO_CAP_LOCAL_DROPS (1u << 8)
/* Server: MTU probes and the MSS check's connection may come to its own
 * port (mtu_wire.h, MTU_WIRE_F_ONE_PORT); data streams always do. */
#define PROTO_CAP_ONE_PORT (1u << 9)
/* Server: it brings up the built-in overlay for an authenticated client
 * (`ovlperf server --overlay`; proto_overlay.h). */
#define PROTO_CAP_OVERLAY (1u << 10)
/* Server: it sends and receives the short datagram header (payloads of
 * LOAD_UDP_SHORT_MIN_LEN..LOAD_UDP_MIN_LEN - 1 bytes, see below). */
#define PROTO_CAP_DGRAM_SHORT (1u << 11)
/* Client: RESULTS may end with the receiver's socket wait (struct
 * proto_rx_wait, after the local drops); a server sends it only to a client
 * that says so. */
#define PROTO_CAP_RX_WAIT (1u << 13)
/* Client: RESULTS may end with the receiver's own socket drops in datagrams
 * (struct proto_sock_drops, after the socket wait); a server sends them only
 * to a client that says so. */
#define PROTO_CAP_SOCK_DROPS (1u << 14)
/* Client: RESULTS may end with the other socket of the receiving host
 * whose drops rose most over the test, and its process (struct
 * proto_sock_owner, after the socket drops). */
#define PROTO_CAP_SOCK_OWNER (1u << 15)
/* Client: RESULTS of a TCP test may end with this end's TCP limits
 * (struct proto_tcp_limits, after the socket owner). */
#define PROTO_CAP_TCP_LIMITS (1u << 16)
/* Both ends: the client wants the server's host facts; the server sends
 * HOST_FACTS before each test's RESULTS (a server without it: the far
 * host's facts are unknown). */
#define PROTO_CAP_HOST_FACTS (1u << 17)

#define PROTO_HELLO_LEN 40
struct proto_hello {
	uint16_t version;		       /* PROTO_VERSION of the sender */
	uint32_t caps;			       /* PROTO_CAP_* */
	char software[PROTO_SOFTWARE_LEN + 1]; /* "ovlperf 0.1.0" */
};

#define PROTO_AUTH_CHALLENGE_LEN PROTO_NONCE_LEN
struct proto_auth_challenge {
	uint8_t server_nonce[PROTO_NONCE_LEN];
};

#define PROTO_AUTH_RESPONSE_LEN (PROTO_NONCE_LEN + PROTO_MAC_LEN)
struct proto_auth_response {
	uint8_t client_nonce[PROTO_NONCE_LEN];
	uint8_t mac[PROTO_MAC_LEN];
};

#define PROTO_AUTH_OK_LEN PROTO_MAC_LEN
struct proto_auth_ok {
	uint8_t mac[PROTO_MAC_LEN]; /* server's proof (auth_server_proof) */
};

enum proto_kind { PROTO_KIND_TCP = 1, PROTO_KIND_UDP = 2, PROTO_KIND_MTU = 3 };

#define PROTO_REQ_REVERSE   (1u << 0)
#define PROTO_REQ_UDP_GSO   (1u << 1)
#define PROTO_REQ_UDP_GRO   (1u << 2)
#define PROTO_REQ_IPV6	    (1u << 3) /* data path over IPv6 */
#define PROTO_REQ_DONT_FRAG (1u << 4) /* UDP: DF on every datagram */
/* UDP: datagrams below LOAD_UDP_MIN_LEN with the short header; set exactly
 * when len is below it (with PROTO_CAP_DGRAM_SHORT from the server) */
#define PROTO_REQ_DGRAM_SHORT (1u << 5)

/* Both: TEST_REQUEST may name the TCP congestion control of the test's
 * connections and TEST_ACCEPT says the one the server's end uses, each in
 * a PROTO_CC_NAME_LEN extension after the message's own fields; sent only
 * to a peer that says so (the extension changes the length). */
#define PROTO_CAP_CONGESTION (1u << 12)
/* A congestion control name, NUL-padded (the kernel's TCP_CA_NAME_MAX). */
#define PROTO_CC_NAME_LEN 16

#define PROTO_TEST_REQUEST_LEN 56
struct proto_test_request {
	uint8_t kind;	    /* enum proto_kind */
	uint8_t dscp;	    /* 0..63 */
	uint16_t flags;	    /* PROTO_REQ_* */
	uint16_t streams;   /* 1..PROTO_MAX_STREAMS */
	uint16_t data_port; /* unused: data comes to the server's port (send 0) */
	uint32_t len;	    /* UDP payload / TCP write size; 0 or LOAD_UDP_SHORT_MIN_LEN.. */
	uint32_t mss;	    /* TCP_MAXSEG; 0: kernel's */
	uint32_t sock_buf;  /* SO_SNDBUF/SO_RCVBUF; 0: engine default */
	uint64_t duration_ns;
	uint64_t omit_ns;
	uint64_t interval_ns;
	uint64_t rate_bps; /* total across streams; 0: unlimited (TCP) */
	/* with PROTO_CAP_CONGESTION: the extension is on the wire (decoded:
	 * it was there) and congestion names the algorithm ("" : the server's
	 * default) */
	bool has_cc;
	char congestion[PROTO_CC_NAME_LEN];
};

/* Fills a request from a load spec (kind TCP/UDP) and back. from_spec
 * returns PROTO_E_VALUE if the spec does not fit the wire ranges. */
int proto_test_request_from_spec(const struct load_spec *spec, struct proto_test_request *req);
void proto_test_request_to_spec(const struct proto_test_request *req, struct load_spec *spec);

#define PROTO_TEST_ACCEPT_FIXED_LEN 40
struct proto_test_accept {
	uint32_t test_id;
	uint8_t cookie[PROTO_COOKIE_LEN]; /* random; data connections present it */
	uint64_t max_duration_ns;	  /* the server's limits, for the client to show */
	uint64_t max_rate_bps;
	uint16_t max_streams;
	uint16_t nports; /* 1 (all streams share a port) or streams */
	uint16_t ports[PROTO_MAX_STREAMS];
	/* with PROTO_CAP_CONGESTION: the extension follows the ports, naming
	 * the congestion control of the server's end ("" : unknown) */
	bool has_cc;
	char congestion[PROTO_CC_NAME_LEN];
};

/* TEST_REJECT and ERROR share a layout: u16 code, u16 text length, text. */
enum proto_reason {
	PROTO_R_UNSPEC = 0,
	PROTO_R_BUSY = 1, /* too many tests at once */
	PROTO_R_LIMIT_DURATION = 2,
	PROTO_R_LIMIT_RATE = 3,
	PROTO_R_LIMIT_STREAMS = 4,
	PROTO_R_UNSUPPORTED = 5,  /* kind/flag the server cannot do */
	PROTO_R_AUTH = 6,	  /* authentication failed or missing */
	PROTO_R_BAD_MESSAGE = 7,  /* malformed or unexpected message */
	PROTO_R_TIMEOUT = 8,	  /* a message stalled past its deadline */
	PROTO_R_INTERNAL = 9,	  /* server-side failure (socket, memory) */
	PROTO_R_INTERRUPTED = 10, /* the peer was stopped by a signal */
	PROTO_R_VERSION = 11,	  /* protocol version mismatch */
};
#define PROTO_TEXT_FIXED_LEN 4
struct proto_text {
	uint16_t code; /* enum proto_reason */
	char text[PROTO_TEXT_MAX + 1];
};
const char *proto_reason_str(uint16_t code);

#define PROTO_START_LEN 8
struct proto_start {
	uint32_t test_id;
	uint32_t reserved;
};

#define PROTO_STOP_LEN 16
enum proto_stop_reason { PROTO_STOP_DONE = 0, PROTO_STOP_INTERRUPTED = 1, PROTO_STOP_ERROR = 2 };
struct proto_stop {
	uint32_t test_id;
	uint16_t reason; /* enum proto_stop_reason */
	uint64_t elapsed_ns;
};

#define PROTO_INTERVAL_LEN 56
struct proto_interval {
	uint32_t test_id;
	uint32_t index;
	uint64_t start_ns, end_ns; /* relative to START */
	uint64_t bytes;
	uint64_t packets;
	uint64_t lost;	      /* UDP */
	uint32_t retransmits; /* TCP */
	uint32_t reserved;
};

/* Each end's own counters for one stream (or, as proto_results.total, all).
 * Sender fields are zero in a receiver's record and vice versa. */
#define PROTO_STREAM_STATS_LEN 176
struct proto_stream_stats {
	uint32_t stream_id;
	uint32_t flags; /* PROTO_SS_* */
	uint64_t bytes;
	/* UDP sender */
	uint64_t sent, send_shortfall, send_errors;
	/* UDP receiver */
	uint64_t received, lost, duplicates, reordered, late, malformed;
	uint64_t jitter_ns;
	uint64_t owd_min_ns, owd_p50_ns, owd_p99_ns, owd_max_ns, owd_mean_ns;
	uint64_t rxq_ovfl; /* SO_RXQ_OVFL on this stream's socket */
	/* TCP (TCP_INFO of this end) */
	uint32_t tcp_retransmits, tcp_rtt_us, tcp_rttvar_us, tcp_snd_mss, tcp_adv_mss;
	uint32_t tcp_rcv_mss, tcp_pmtu, tcp_snd_cwnd;
};
#define PROTO_SS_OWD_VALID (1u << 0)
#define PROTO_SS_TCP_INFO  (1u << 1)
#define PROTO_SS_GSO	   (1u << 2) /* the socket really used UDP GSO */
#define PROTO_SS_GRO	   (1u << 3)

/* Host-wide counter deltas over the test at this end (netcounters.h). */
struct proto_host_counters {
	uint64_t udp_sndbuf_errors, udp_rcvbuf_errors, udp_in_errors;
	uint64_t udp_in_datagrams, udp_out_datagrams;
	uint64_t link_rx_drops, link_tx_drops;
	/* this end's own, not on the wire (0 from the far end): the machine's
	 * softnet backlog drops and net.core.netdev_max_backlog */
	uint64_t softnet_drops;
	uint32_t backlog_max;
};

/* proto_results.flags: sched_prio is set (an older peer sends 0 there
 * without this flag: its scheduling is unknown); with a priority, the policy
 * is SCHED_FIFO unless PROTO_RES_SCHED_RR. Clear of the PROTO_SS_ bits the
 * same word carries. */
#define PROTO_RES_SCHED	   (1u << 16)
#define PROTO_RES_SCHED_RR (1u << 17)

/* The sending end's own drops (with PROTO_CAP_LOCAL_DROPS, after the
 * streams): its root qdiscs' drop counters over the test (qdiscstats.h)
 * and the send calls its kernel refused with ENOBUFS (IP_RECVERR set),
 * shown (the call's error) or hidden (a later message of a sendmmsg() that
 * stopped short: its error is not returned), with the datagrams they held. */
#define PROTO_LOCAL_DROPS_LEN 112
struct proto_local_drops {
	uint32_t flags; /* PROTO_LD_* */
	uint32_t txqlen;
	uint64_t qdisc_drops; /* packets, as the qdiscs count them */
	uint64_t refused_msgs, refused_dgrams;
	uint64_t hidden_msgs, hidden_dgrams;
	uint64_t sndbuf_unseen; /* SndbufErrors beyond the calls the sender saw
				 * fail or counted dropped, in datagrams */
	uint64_t qdisc_units;	/* what the qdisc counted for the refused and
				 * hidden messages (a GSO one: 1, or its
				 * datagrams when the qdisc split it) */
	uint64_t other_units;	/* ... for messages outside the measured phase
				 * (warm-up, FIN markers): no loss */
	uint64_t tunnel_drops;	/* the built-in overlay daemons' drop.* counters
				 * at this end (either role), packets */
	char qdisc_kind[16];	/* NUL-terminated */
	char qdisc_if[16];
	/* a TCP sender's qdiscs' overlimits (a shaper held packets back):
	 * this end's own, not on the wire (0 from the far end) */
	uint64_t qdisc_held;
};
#define PROTO_LD_QDISC_READ  (1u << 0) /* the qdisc counters were read */
#define PROTO_LD_TUNNEL_READ (1u << 1) /* a built-in overlay daemon answered */

/* How long the receiving end's datagrams waited in its sockets, all streams:
 * from the kernel's arrival stamp (SO_TIMESTAMPNS) to the read. One host's
 * clock, so exact; a share of the one-way delay that is the receiving
 * application's, not the path's. */
#define PROTO_RX_WAIT_LEN 56
struct proto_rx_wait {
	uint32_t flags; /* none defined: 0 */
	uint32_t reserved;
	uint64_t samples; /* datagrams with a stamp; 0: none */
	uint64_t min_ns, p50_ns, p99_ns, max_ns, mean_ns;
};

/* What the receiving end's test sockets dropped, all streams: the kernel's
 * count (SO_RXQ_OVFL, in skbs: a GRO skb of many datagrams counts once) and
 * the datagrams of the sequence gaps across which that count rose. The
 * three tails' lengths (112, 56, 24) add up differently in every mix, so
 * the total length says which are there. */
#define PROTO_SOCK_DROPS_LEN 24
struct proto_sock_drops {
	uint32_t flags;	    /* PROTO_SD_* */
	uint32_t tail_skbs; /* dropped after the last datagram read, with the
			     * end marker: the datagrams they held are the
			     * sender's count beyond the receiver's lost */
	uint64_t dgrams;    /* datagrams the test sockets dropped (<= lost) */
	uint64_t skbs;	    /* the sockets' drop counters */
};

#define PROTO_SD_GRO (1u << 0) /* UDP GRO on the sockets: 64 datagrams a packet */

/* The receiving host's other socket that dropped most over the test: its
 * rise of the kernel's drop counter (packets), its local port and family,
 * and the process holding it (pid 0, comm "": not found). 48 bytes: every
 * mix of the optional tails and stream count still has a length of its
 * own (no two mixes differ by a multiple of PROTO_STREAM_STATS_LEN). */
#define PROTO_SOCK_OWNER_LEN  48
#define PROTO_SOCK_OWNER_COMM 16
struct proto_sock_owner {
	uint32_t pid;
	uint16_t port;
	uint8_t family; /* 4 or 6 */
	uint8_t flags;	/* 0 */
	uint64_t drops;
	char comm[PROTO_SOCK_OWNER_COMM]; /* NUL-terminated */
	uint64_t others;		  /* drops of every other socket together */
	uint64_t inode;			  /* the socket's ("socket:[inode]" in /proc/PID/fd) */
};

/* What limited one end's TCP streams over the measured window (tcp(7)
 * TCP_INFO, summed over the streams), their socket buffers, this host's
 * TCP buffer maxima and the busiest stream thread's CPU: what a verdict
 * on the test's limit is read from (results/tcp_limit.h). 108 bytes, a
 * length no mix of the other tails makes. */
#define PROTO_TCP_LIMITS_LEN 108
struct proto_tcp_limits {
	uint32_t flags;	    /* PROTO_TL_* */
	uint32_t streams;   /* how many streams the sums are over */
	uint64_t window_us; /* the measured window, summed over the streams */
	/* sender: the chronographs (busy includes both stalls), bytes */
	uint64_t busy_us, rwnd_limited_us, sndbuf_limited_us;
	uint64_t bytes_sent, bytes_retrans;
	uint64_t delivery_Bps;		   /* sender: the streams' last delivery rates */
	uint32_t app_limited_streams;	   /* sender: ... taken app-limited */
	uint32_t min_rtt_us;		   /* sender: the least stream's */
	uint32_t snd_wnd;		   /* sender: the peer's windows at the end */
	uint32_t sock_sndbuf, sock_rcvbuf; /* SO_SNDBUF/SO_RCVBUF at the end */
	uint32_t tcp_rmem_max, tcp_wmem_max, rmem_max, wmem_max; /* this host's */
	uint32_t thread_cpu_permille; /* the busiest stream thread, of a core */
	uint32_t rcv_space;	      /* receiver: the largest stream's */
	/* Not on the wire (PROTO_TCP_LIMITS_LEN leaves it out): this host's
	 * own sender's median round trip over the measured window (by bytes),
	 * the streams' medians averaged; 0 from a peer */
	uint32_t rtt_median_us;
};
#define PROTO_TL_CHRONO (1u << 0) /* the kernel keeps the chronographs */
#define PROTO_TL_SYSCTL (1u << 1) /* the buffer maxima were read */

enum proto_role { PROTO_ROLE_SENDER = 1, PROTO_ROLE_RECEIVER = 2 };

#define PROTO_RESULTS_FIXED_LEN (48 + 56 + PROTO_STREAM_STATS_LEN)
struct proto_results {
	uint32_t test_id;
	uint8_t role;	    /* enum proto_role */
	uint8_t sched_prio; /* with PROTO_RES_SCHED: 0 SCHED_OTHER, else the
			     * real-time priority of this end's test threads */
	uint16_t nstreams;  /* entries in streams[] (0..PROTO_MAX_STREAMS) */
	uint64_t duration_ns;
	uint64_t cpu_user_ns, cpu_sys_ns, cpu_wall_ns;
	uint32_t rcvbuf_bytes; /* effective SO_RCVBUF (receiver) */
	uint32_t flags;	       /* PROTO_SS_GSO/GRO for the whole test, PROTO_RES_* */
	struct proto_host_counters host;
	struct proto_stream_stats total; /* merged over streams (percentiles too) */
	struct proto_stream_stats streams[PROTO_MAX_STREAMS];
	bool has_local_drops; /* local is on the wire (PROTO_CAP_LOCAL_DROPS) */
	struct proto_local_drops local;
	bool has_rx_wait; /* rx_wait is on the wire (PROTO_CAP_RX_WAIT) */
	struct proto_rx_wait rx_wait;
	bool has_sock_drops; /* sock_drops is on the wire (PROTO_CAP_SOCK_DROPS) */
	struct proto_sock_drops sock_drops;
	bool has_sock_owner; /* sock_owner is on the wire (PROTO_CAP_SOCK_OWNER) */
	struct proto_sock_owner sock_owner;
	bool has_tcp_limits; /* tcp_limits is on the wire (PROTO_CAP_TCP_LIMITS) */
	struct proto_tcp_limits tcp_limits;
};

/* HOST_FACTS: the server's struct hostfacts over the test (hostfacts.h),
 * a fixed part, then the test's process and nprocs processes (each
 * PROTO_FACTS_PROC_LEN), nlinks interfaces (PROTO_FACTS_LINK_LEN), nsocks
 * sockets (PROTO_FACTS_SOCK_LEN) and ncpu softirq shares (u32, parts per
 * million); the length must be exactly that. Its own version field
 * (PROTO_FACTS_VERSION) lets a later server add a tail an older client
 * skips. Shares and cores travel as u32 parts per million of a core. */
#define PROTO_FACTS_VERSION    1
#define PROTO_FACTS_FIXED_LEN  104
#define PROTO_FACTS_PROC_LEN   232
#define PROTO_FACTS_LINK_LEN   40
#define PROTO_FACTS_SOCK_LEN   32
#define PROTO_FACTS_F_SYSCTL   (1u << 0) /* the TCP settings were read */
#define PROTO_FACTS_F_SOFTNET  (1u << 1) /* softnet_stat was read */
#define PROTO_FACTS_F_BASELINE (1u << 2) /* baseline_cores is measured */
#define PROTO_FACTS_F_MOVED    (1u << 3) /* rest_moved */

/* MTU_PROBE_* bodies are opaque here: 0..PROTO_MAX_BODY bytes, in mtu_wire.h. */

struct hostfacts;

/*
 * Encoders write header + body into buf and return the message length, or
 * PROTO_E_NOSPACE when cap is too small (PROTO_MAX_MSG always suffices), or
 * PROTO_E_VALUE when a field is out of range (e.g. nstreams too large).
 * Decoders take a message body (struct proto_msg's body/len), check the
 * length against the type first, and return 0 or PROTO_E_LENGTH/VALUE.
 */
ssize_t proto_encode_hello(uint8_t *buf, size_t cap, const struct proto_hello *m);
int proto_decode_hello(const uint8_t *body, size_t len, struct proto_hello *m);
ssize_t proto_encode_auth_challenge(uint8_t *buf, size_t cap, const struct proto_auth_challenge *m);
int proto_decode_auth_challenge(const uint8_t *body, size_t len, struct proto_auth_challenge *m);
ssize_t proto_encode_auth_response(uint8_t *buf, size_t cap, const struct proto_auth_response *m);
int proto_decode_auth_response(const uint8_t *body, size_t len, struct proto_auth_response *m);
ssize_t proto_encode_auth_ok(uint8_t *buf, size_t cap, const struct proto_auth_ok *m);
int proto_decode_auth_ok(const uint8_t *body, size_t len, struct proto_auth_ok *m);
ssize_t proto_encode_test_request(uint8_t *buf, size_t cap, const struct proto_test_request *m);
int proto_decode_test_request(const uint8_t *body, size_t len, struct proto_test_request *m);
ssize_t proto_encode_test_accept(uint8_t *buf, size_t cap, const struct proto_test_accept *m);
int proto_decode_test_accept(const uint8_t *body, size_t len, struct proto_test_accept *m);
/* type is PROTO_TEST_REJECT or PROTO_ERROR; text longer than PROTO_TEXT_MAX is cut. */
ssize_t proto_encode_text(uint8_t *buf, size_t cap, uint16_t type, uint16_t code, const char *text);
int proto_decode_text(const uint8_t *body, size_t len, struct proto_text *m);
ssize_t proto_encode_start(uint8_t *buf, size_t cap, const struct proto_start *m);
int proto_decode_start(const uint8_t *body, size_t len, struct proto_start *m);
ssize_t proto_encode_stop(uint8_t *buf, size_t cap, const struct proto_stop *m);
int proto_decode_stop(const uint8_t *body, size_t len, struct proto_stop *m);
ssize_t proto_encode_interval(uint8_t *buf, size_t cap, const struct proto_interval *m);
int proto_decode_interval(const uint8_t *body, size_t len, struct proto_interval *m);
/* struct proto_results is ~26 KiB: keep it off small stacks. */
ssize_t proto_encode_results(uint8_t *buf, size_t cap, const struct proto_results *m);
int proto_decode_results(const uint8_t *body, size_t len, struct proto_results *m);
/* HOST_FACTS (f->known must be set; the counts are capped at hostfacts.h's
 * maxima on the way out and refused above them on the way in). */
ssize_t proto_encode_host_facts(uint8_t *buf, size_t cap, const struct hostfacts *f);
int proto_decode_host_facts(const uint8_t *body, size_t len, struct hostfacts *f);
/* type is PROTO_MTU_PROBE_REQUEST or _REPLY; body copied verbatim. */
ssize_t proto_encode_opaque(uint8_t *buf, size_t cap, uint16_t type, const uint8_t *body,
			    size_t len);

/* Message type name for logs ("TEST_REQUEST"), "unknown" otherwise. */
const char *proto_type_name(uint16_t type);
/* Message for a PROTO_E_* code or a -errno. */
const char *proto_strerror(int err);

/* ---- UDP test datagram ------------------------------------------------- */

#define DGRAM_MAGIC   0x4f564c44u /* "OVLD" */
#define DGRAM_HDR_LEN 32
_Static_assert(DGRAM_HDR_LEN <= LOAD_UDP_MIN_LEN, "datagram header must fit the minimum length");
#define DGRAM_SHORT_MAGIC    0x6f76u /* "ov" */
#define DGRAM_SHORT_HDR_LEN  16
#define DGRAM_SHORT_SEQ_BITS 32
#define DGRAM_SHORT_TS_BITS  48
#define DGRAM_SHORT_ID_MASK  0xffffu /* the test id bits it carries */
_Static_assert(DGRAM_SHORT_HDR_LEN == LOAD_UDP_SHORT_MIN_LEN, "the short header is the minimum");
_Static_assert(LOAD_MAX_STREAMS <= 256, "a stream number fits the short header's byte");

#define DGRAM_F_OMIT (1u << 0) /* sent during the warm-up (omit) period */
#define DGRAM_F_FIN  (1u << 1) /* end-of-stream marker; seq = datagrams sent */

struct dgram_hdr {
	uint16_t stream;
	uint16_t flags; /* DGRAM_F_* */
	uint64_t seq;
	uint64_t send_ns;
	uint32_t test_id;
	bool narrow; /* parsed from a short header: test_id is its low bits,
		      * seq and send_ns too until dgram_widen() */
};

/* Writes the header into the first bytes of buf: the full one when len >=
 * DGRAM_HDR_LEN, else the short one (the rest is left as is). Returns 0 or
 * -EINVAL when len is below DGRAM_SHORT_HDR_LEN. */
int dgram_put(uint8_t *buf, size_t len, const struct dgram_hdr *h);
/* Updates only seq and send_ns of a header dgram_put wrote into a datagram
 * of len bytes: the sender's hot path. */
void dgram_restamp(uint8_t *buf, size_t len, uint64_t seq, uint64_t send_ns);
/* false when the length does not match the header its magic names (the
 * full one: LOAD_UDP_MIN_LEN or more; the short one: 16..31 bytes) or
 * reserved flags are set: the caller counts it as malformed and trusts
 * nothing in it. */
bool dgram_parse(const uint8_t *buf, size_t len, struct dgram_hdr *h);
/* The value nearest ref whose low bits (1..63) are low, never below 0. */
uint64_t dgram_extend(uint64_t ref, uint64_t low, unsigned bits);
/* A short header's fields made whole: seq nearest seq_ref (the highest
 * sequence the receiver has seen), send_ns nearest now_ns (the receiver's
 * clock in the sender's terms). A full header is left as it is. */
void dgram_widen(struct dgram_hdr *h, uint64_t seq_ref, uint64_t now_ns);
/* The header belongs to this test and stream (a short one: by the bits it
 * carries). */
bool dgram_is_of(const struct dgram_hdr *h, uint32_t test_id, uint16_t stream);

/* ---- data connection greeting ------------------------------------------ */

/* First bytes of every TCP data connection (and of a UDP stream's first
 * "connect" datagram): which test and stream it belongs to. */
#define PROTO_DATA_HELLO_LEN 28
struct proto_data_hello {
	uint32_t test_id;
	uint16_t stream;
	uint16_t reserved;
	uint8_t cookie[PROTO_COOKIE_LEN];
};
/* Returns PROTO_DATA_HELLO_LEN or PROTO_E_NOSPACE. */
ssize_t proto_encode_data_hello(uint8_t *buf, size_t cap, const struct proto_data_hello *m);
/* 0 or PROTO_E_LENGTH/MAGIC (the first 4 bytes are the magic "OVLS"). */
int proto_decode_data_hello(const uint8_t *buf, size_t len, struct proto_data_hello *m);
#define PROTO_DATA_MAGIC 0x4f564c53u /* "OVLS" */

#endif
