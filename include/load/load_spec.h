/* SPDX-License-Identifier: MIT */
/*
 * The request of one test: struct load_spec says what a TCP or UDP load
 * between a client and an `ovlperf server` is to be (protocol, streams,
 * duration, rate, sizes, socket options), with the limits a request is held
 * to. Built by `ovlperf client`, `ovlperf sweep` and the suite (from a
 * scenario), run by load_run() (load.h); a result carries the spec it ran
 * (load_result.h).
 */
#ifndef OVLPERF_LOAD_SPEC_H
#define OVLPERF_LOAD_SPEC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h> /* the family's AF_* */

#define LOAD_DEFAULT_PORT 5211
#define LOAD_MAX_STREAMS  128
/* UDP payload carries at least the sequence header (see proto.h): the full
 * one from LOAD_UDP_MIN_LEN bytes, the short one below that, down to
 * LOAD_UDP_SHORT_MIN_LEN (an RFC 2544 64-byte IPv4 frame: 18 bytes). */
#define LOAD_UDP_MIN_LEN       32
#define LOAD_UDP_SHORT_MIN_LEN 16
#define LOAD_UDP_MAX_LEN       65507
#define LOAD_UDP_DEFAULT_LEN   1400
#define LOAD_TCP_DEFAULT_LEN   (128 * 1024)

enum load_proto { LOAD_TCP = 1, LOAD_UDP = 2 };

struct load_spec {
	enum load_proto proto;
	char host[256];	  /* server name or address (the control connection) */
	uint16_t port;	  /* control port; 0: LOAD_DEFAULT_PORT */
	int family;	  /* AF_UNSPEC, AF_INET or AF_INET6 */
	unsigned streams; /* 1..LOAD_MAX_STREAMS */
	uint64_t duration_ns;
	uint64_t interval_ns; /* 0: no interval reports */
	uint64_t omit_ns;     /* warm-up excluded from the result (like iperf3 -O) */
	uint64_t rate_bps;    /* total target across streams; 0: as fast as the
			       * sender can (`ovlperf client -u` asks 1 Mbit/s
			       * without -b, as iperf3 does) */
	uint32_t len;	      /* UDP datagram payload / TCP write size; 0: default */
	bool reverse;	      /* server sends, client receives */
	uint32_t mss;	      /* TCP_MAXSEG to set; 0: kernel's */
	bool udp_gso;	      /* send with UDP_SEGMENT where the kernel has it */
	bool udp_gro;	      /* receive with UDP_GRO */
	bool dont_fragment;   /* UDP: DF on every datagram; one above the path MTU
			       * is an error, never fragments (iperf3 --dont-fragment) */
	uint32_t sock_buf;    /* TCP: SO_SNDBUF/SO_RCVBUF of both ends (0: autotuning);
			       * UDP: the receiver's SO_RCVBUF (0: engine default, large) */
	char psk_file[256];   /* "" : no authentication */
	uint8_t dscp;
	char bind_addr[64];	     /* local address for the client's sockets; "" : any */
	uint16_t cport;		     /* source port of stream 0, the next ones follow
				      * (iperf3 --cport); 0: any. Not the control's */
	uint32_t msg_timeout_ms;     /* control-message deadline; 0: 10 s */
	uint32_t connect_timeout_ms; /* connecting the control connection; 0:
				      * msg_timeout_ms */
	char congestion[16];	     /* TCP congestion control of both ends' test
				      * connections (tcp(7) TCP_CONGESTION); "" :
				      * each end's default */
	bool realtime;		     /* opt-in: as root, this end's UDP threads run SCHED_FIFO.
				      * Off by default: a real-time receiver or sender starves
				      * a userspace overlay daemon on the same host (the usual
				      * case at a VPN's far end) and measures that instead */
	bool fit_judged;	     /* UDP: the caller judged the size against the path
				      * (the suite, once per path): no warning per test */
};

/* Fill a spec with iperf3-like defaults: TCP, 1 stream, 10 s, port 5211. */
void load_spec_defaults(struct load_spec *spec);

/* IP fragments a datagram of len payload bytes makes at path MTU mtu with
 * hdr bytes of IP + UDP header (28 IPv4, 48 IPv6); 1 when it fits. */
unsigned udp_fragments(uint32_t len, uint32_t mtu, unsigned hdr);

#endif
