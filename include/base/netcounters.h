/* SPDX-License-Identifier: MIT */
/*
 * Host counters that say where UDP datagrams were dropped, read from the
 * network namespace of the CALLING THREAD (/proc/thread-self/net/..., so a
 * thread that entered a lab host with setns() reads that host's):
 *   /proc/net/snmp   Udp: InDatagrams NoPorts InErrors OutDatagrams
 *                         RcvbufErrors SndbufErrors InCsumErrors
 *                    Ip:  ReasmReqds ReasmOKs ReasmFails FragOKs FragFails
 *                         FragCreates
 *   /proc/net/snmp6  Udp6* and Ip6Reasm* / Ip6Frag* (same fields)
 *   /proc/net/dev    per interface rx/tx packets, errs, drop, fifo ...
 *                    (the kernel prints rx_dropped + rx_missed_errors as
 *                    "drop" and rx_fifo_errors as "fifo")
 * The parsers take text buffers, so tests and fuzzers feed them samples.
 *
 * Linux counts a receive-buffer drop in both RcvbufErrors and InErrors, and
 * a socket's SO_RXQ_OVFL (sk_drops) counts that socket's share of them.
 */
#ifndef OVLPERF_NETCOUNTERS_H
#define OVLPERF_NETCOUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

#define NETCOUNTERS_MAX_LINKS 64

/* Where lost datagrams were lost, place by place along the path, in
 * datagrams (deltas of counters over the test; the counts sum to lost). */
struct loss_attrib {
	uint64_t sender_sndbuf;	    /* the sender's socket buffer: Udp SndbufErrors
				     * the sender did not see refused (not the qdisc) */
	uint64_t sender_link;	    /* the sender's interfaces: tx drops */
	uint64_t receiver_rcvbuf;   /* other sockets of the receiving host: Udp
				     * RcvbufErrors beyond the test socket's own */
	uint64_t receiver_socket;   /* the test's own receive socket: the gaps
				     * across which its SO_RXQ_OVFL rose */
	uint64_t receiver_inerrors; /* Udp InErrors that are not RcvbufErrors */
	uint64_t receiver_link;	    /* the receiver's interfaces: rx drops */
	uint64_t backlog;	    /* a CPU's backlog (softnet_stat dropped) on the
				     * client's machine, either role */
	uint64_t network;	    /* the rest: lost on the path */
	uint64_t sender_qdisc;	    /* the sender's qdisc (a shaper, a full queue):
				     * root qdisc drops and sends refused ENOBUFS */
	uint64_t tunnel;	    /* the built-in overlay's daemons, either end
				     * (ovlperf tunnel show: drop.*) */
	/* the sender's own account behind sender_qdisc: what its qdiscs'
	 * counters said (packets: a GSO message dropped whole is one), and
	 * the datagrams in messages refused (ENOBUFS) or skipped by a short
	 * sendmmsg() */
	uint64_t qdisc_packets, refused_dgrams, hidden_dgrams;
	uint64_t qdisc_datagrams; /* the datagrams those say the qdisc dropped
				   * (sender_qdisc before the cap at lost) */
	/* what the fixes need (loss_place_fix() in loss_place.h) */
	char network_where[96]; /* the lab's emulated link the path crosses,
				 * where the lab knows it ("" elsewhere) */
	char qdisc_kind[16];	/* root qdisc with the most drops ("tbf") */
	char qdisc_if[16];	/* on this interface of the sender */
	uint32_t sender_txqlen; /* that interface's txqueuelen */
	uint32_t backlog_max;	/* net.core.netdev_max_backlog where the backlog
				 * dropped (0: not read) */
	/* the receiver's account behind receiver_socket: the test sockets'
	 * drop counters (packets: a GRO one of many datagrams counts once) */
	bool socket_packets_known; /* false: an older receiver did not say */
	uint64_t socket_packets;
	/* the receiving host's other socket that dropped most (udpsock.h):
	 * its process, local port and family, and its drops (packets); port
	 * 0: unknown (an older receiver, or none rose) */
	char other_owner[16];
	uint32_t other_pid;
	uint16_t other_port;
	uint8_t other_family;
	uint64_t other_drops;
	uint32_t rcvbuf_bytes;	    /* the test socket's effective SO_RCVBUF */
	uint32_t rcvbuf_need_bytes; /* SO_RCVBUF that would have held the overflow
				     * (0: none overflowed, or the receiver fell
				     * behind throughout: no buffer helps) */
};

struct netcounters_udp {
	bool valid; /* the table was present */
	uint64_t in_datagrams, no_ports, in_errors, out_datagrams;
	uint64_t rcvbuf_errors, sndbuf_errors, in_csum_errors;
};

struct netcounters_ip {
	bool valid;
	uint64_t reasm_reqds, reasm_oks, reasm_fails;
	uint64_t frag_oks, frag_fails, frag_creates;
	uint64_t out_no_routes, in_discards, out_discards;
};

struct netcounters_link {
	char name[IFNAMSIZ];
	uint64_t rx_bytes, rx_packets, rx_errs, rx_drop, rx_fifo, rx_frame;
	uint64_t tx_bytes, tx_packets, tx_errs, tx_drop, tx_fifo, tx_colls, tx_carrier;
};

struct netcounters {
	struct netcounters_udp udp, udp6;
	struct netcounters_ip ip, ip6;
	unsigned nlinks;
	bool links_truncated; /* more than NETCOUNTERS_MAX_LINKS interfaces */
	struct netcounters_link links[NETCOUNTERS_MAX_LINKS];
	/* /proc/net/softnet_stat's second column summed over the CPUs: the
	 * packets a CPU's backlog (net.core.netdev_max_backlog) was too full
	 * to take (enqueue_to_backlog()); the machine's, whatever the
	 * namespace: a veth, a TUN's writes and RPS queue there */
	bool softnet_valid;
	uint64_t softnet_dropped;
	uint32_t netdev_max_backlog; /* its length (0: not read) */
};

void netcounters_init(struct netcounters *nc);

/* Parsers of the /proc text formats. Each fills only its own part of nc,
 * ignores unknown fields and lines, and returns 0, or -EINVAL when the text
 * is not that format at all (e.g. an Udp: header without its value line).
 * A value that does not fit 64 bits is -ERANGE. */
int netcounters_parse_snmp(const char *text, size_t len, struct netcounters *nc);
int netcounters_parse_snmp6(const char *text, size_t len, struct netcounters *nc);
int netcounters_parse_dev(const char *text, size_t len, struct netcounters *nc);
/* /proc/net/softnet_stat: a line of hex columns per CPU, the second the
 * backlog's drops. */
int netcounters_parse_softnet(const char *text, size_t len, struct netcounters *nc);

/* Reads all three files of the calling thread's namespace. snmp6 is
 * optional (no IPv6: udp6/ip6 stay invalid). 0 or -errno. */
int netcounters_read(struct netcounters *nc);

/* after - before, field by field (a counter that went backwards gives 0);
 * links are matched by name, links absent from before count from 0. */
void netcounters_delta(const struct netcounters *before, const struct netcounters *after,
		       struct netcounters *delta);

/* Sum of drops of the named interface, or of all but "lo" when ifname is
 * NULL. rx: rx_drop + rx_fifo; tx: tx_drop + tx_fifo. */
void netcounters_link_drops(const struct netcounters *nc, const char *ifname, uint64_t *rx,
			    uint64_t *tx);

/* The raw inputs of attribution, all deltas over the test. */
struct loss_inputs {
	uint64_t lost;		     /* datagrams the receiver found missing */
	uint64_t sender_sndbuf;	     /* SndbufErrors (Udp or Udp6) on the sender */
	uint64_t sender_send_errors; /* sends that failed visibly (EAGAIN/ENOBUFS) and
				      * were not counted as sent: the kernel counts
				      * them in SndbufErrors too, so they explain no
				      * loss. netcounters_loss_inputs() leaves it 0;
				      * the sender sets it. */
	uint64_t sender_link_tx;     /* tx drops of the sender's interfaces */
	uint64_t receiver_rcvbuf;    /* RcvbufErrors on the receiver */
	uint64_t receiver_inerrors;  /* InErrors on the receiver (includes RcvbufErrors) */
	uint64_t receiver_rxq_ovfl;  /* the test sockets' own drops, datagrams
				      * (SO_RXQ_OVFL counts packets: the
				      * receiver books the gaps, sockloss.h) */
	uint64_t receiver_link_rx;   /* rx drops of the receiver's interfaces */
	uint64_t backlog;	     /* softnet_stat drops (netcounters.softnet_dropped) */
	/* The sender's own account (proto_local_drops; has_local false: an
	 * older peer, sender_sndbuf minus sender_send_errors is used instead) */
	bool has_local;
	bool qdisc_read;	 /* qdisc_drops was read */
	uint64_t qdisc_drops;	 /* root qdisc drops, packets */
	uint64_t refused_dgrams; /* in messages refused with ENOBUFS */
	uint64_t hidden_dgrams;	 /* in messages a short sendmmsg() skipped */
	uint64_t sndbuf_unseen;	 /* SndbufErrors beyond both, datagrams */
	uint64_t qdisc_units;	 /* the qdisc's count for those messages */
	uint64_t other_units;	 /* ... and for drops that lose no test
				  * datagram (warm-up, FIN markers) */
	uint64_t tunnel_drops;	 /* the built-in overlay daemons' own drops,
				  * both ends (packets) */
};

/* Fills inputs from two deltas (either may be NULL: that side unknown);
 * family selects Udp or Udp6; ifnames as for netcounters_link_drops(). */
void netcounters_loss_inputs(const struct netcounters *sender_delta, const char *sender_if,
			     const struct netcounters *receiver_delta, const char *receiver_if,
			     int family, uint64_t rxq_ovfl, uint64_t lost, struct loss_inputs *in);

/*
 * Explains in->lost place by place, never more than was lost in total and
 * never more than a counter says: first the test sockets' own overflow
 * (exact), then along the path: the sender's qdisc, its socket buffer, its
 * interfaces' tx drops, the receiver's interfaces' rx drops, RcvbufErrors
 * beyond the test sockets' own (other sockets), InErrors beyond both. The
 * remainder is "network". The built-in overlay daemons' own drops come
 * after the sender's interfaces. Host-wide counters may include other traffic;
 * the cap keeps the sum equal to lost.
 *
 * The qdisc counts packets: a GSO message it drops whole is one, one it
 * splits first (tbf above its bucket) counts each datagram it drops, and
 * returns success when any got through. The sender knows the datagrams of
 * every message refused with ENOBUFS and what the qdisc counted for it
 * (qdisc_units), so the qdisc's datagrams are the refused ones plus what
 * its counter holds beyond them: the datagrams of split messages dropped
 * in part, each counted once. Messages a short sendmmsg() skipped failed
 * with an unknown error: the qdisc's when it dropped anything, else the
 * socket buffer's (EAGAIN).
 */
void netcounters_attribute(const struct loss_inputs *in, struct loss_attrib *out);

#endif
