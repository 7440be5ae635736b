/* SPDX-License-Identifier: MIT */
/*
 * UDP data streams of one test, shared by the client and the server.
 *
 * Sender (udp_send.c, with each stream's thread): one thread per stream
 * sends datagrams at absolute deadlines from the pacer (pacer.h), batched
 * with sendmmsg() and, when the kernel has it, UDP GSO. A warm-up phase
 * (omit) sends datagrams flagged DGRAM_F_OMIT with their own sequence
 * space; the measured phase starts again at seq 0. After the last datagram
 * a few DGRAM_F_FIN markers carry the count sent.
 *
 * Receiver (udp_recv.c): one thread per stream reads with recvmmsg() (and
 * UDP GRO, split by the gso_size of the cmsg), feeds rxstats, and reads the
 * socket's SO_RXQ_OVFL drop counter. The owner stops it (the stop flag)
 * once the FIN was seen or a grace period passed.
 *
 * Counters read by the owner while the thread runs are atomics.
 */
#ifndef OVLPERF_UDP_LOAD_H
#define OVLPERF_UDP_LOAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cpuuse.h"
#include "pacer.h"
#include "proto.h"
#include "rxstats.h"
#include "sockloss.h"

/* Datagrams per sendmmsg()/recvmmsg() call. */
#define UDP_LOAD_BATCH 64
/* Datagrams per GSO message at most. */
#define UDP_LOAD_MAX_SEGS 64

struct udp_stream {
	/* set by the owner before udp_stream_start() */
	int fd; /* connected to the peer's stream socket */
	bool sender;
	uint16_t id; /* stream index, carried in every datagram */
	uint32_t test_id;
	uint32_t len;	    /* payload bytes per datagram */
	uint64_t rate_bps;  /* this stream's share of the target */
	bool gso, gro;	    /* asked for; cleared when the kernel refuses */
	bool dont_fragment; /* sender: DF set, EMSGSIZE ends the stream */
	bool realtime;	    /* opt-in SCHED_FIFO as root (load_spec.h: off by default,
			     * it would starve a userspace VPN on the host) */
	uint64_t start_ns, omit_end_ns, end_ns;
	const atomic_bool *stop;
	int64_t clock_shift_ns; /* added to the timestamps that cross hosts: a
				 * sender's stamps, a receiver's reading of them
				 * (owd_clock.h); 0 when the ends share a clock */

	/* sender results */
	atomic_uint_fast64_t sent; /* measured-phase datagrams so far */
	uint64_t shortfall;	   /* slots the pacer skipped (measured phase) */
	uint64_t send_errors;
	uint64_t send_msgs;	  /* packets handed to the kernel (a GSO one
				   * carries several datagrams) */
	uint64_t send_elapsed_ns; /* measured phase: start to last send */
	bool done_sending;
	int sched_policy, sched_prio; /* the thread's, read back (sched(7)) */
	/* slots the pacer gave up (measured phase), by what made it late: the
	 * thread woke late or was preempted (a busy host), the previous send
	 * call was busy in the kernel's send path on this CPU (the local qdisc,
	 * softirq work such as a shaper's dequeue and veth rx), or it slept
	 * there (the local queue / send buffer full) */
	uint64_t skipped_late_wakeup, skipped_slow_send, skipped_blocked_send;
	uint64_t send_refused; /* EAGAIN/ENOBUFS: the local queue refused */
	/* messages this host's queue dropped, and the datagrams in them: seen
	 * (ENOBUFS returned, IP_RECVERR) or hidden (a sendmmsg() that stopped
	 * short before them); both count as sent */
	uint64_t refused_msgs, refused_dgrams, hidden_msgs, hidden_dgrams;
	/* the same messages by datagrams each (a qdisc may count a GSO one as
	 * one packet or as its datagrams), in the measured phase and outside
	 * it (warm-up, FIN markers: their drops are no loss) */
	uint64_t dropped_by_segs[UDP_LOAD_MAX_SEGS + 1], other_by_segs[UDP_LOAD_MAX_SEGS + 1];
	uint64_t pmtu_errors; /* EMSGSIZE from an ICMP "too big" without DF
			       * (the kernel fragments from then on) */
	uint32_t path_mtu;    /* the socket's path MTU when the thread ended */

	/* receiver results */
	struct rxstats *rx;				    /* allocated by udp_stream_start() */
	atomic_uint_fast64_t rx_bytes, rx_packets, rx_lost; /* for intervals */
	atomic_uint_fast64_t rx_jitter_ns; /* RFC 3550 jitter so far, for intervals */
	atomic_bool fin_seen;
	atomic_uint_fast64_t last_rx_ns;
	uint64_t fin_count; /* seq of the FIN: datagrams sent */
	uint64_t omitted;   /* warm-up datagrams received (ignored) */
	uint64_t foreign;   /* parsed but not of this test/stream */
	uint32_t rxq_ovfl;  /* the socket's drop counter (last seen) */
	uint32_t rxq_ovfl_start;
	struct sockloss sockloss;  /* the socket's drops in datagrams */
	uint64_t rx_segs_sq;	   /* sum of the squares of datagrams per packet */
	uint64_t rx_skbs, rx_segs; /* packets read and the datagrams in them
				    * (several per packet with GRO) */
	/* the packet being accounted: how long it waited in the socket
	 * (SO_TIMESTAMPNS to the read), when the kernel stamped it */
	bool rx_stamped;
	uint64_t rx_wait_ns;

	struct cpu_use cpu;
	int err;
	atomic_bool finished; /* the thread has returned its figures */
	pthread_t thread;
	bool running;
};

/* The error for a datagram too big for the path with DF set: "datagram of
 * 2000 B does not fit the path MTU 1500 via ovp0 ...; use -l 1472 or less ...". */
void udp_fit_error(char *buf, size_t n, uint32_t len, uint32_t mtu, unsigned hdr, const char *dev);

/* Whether the owner told the stream to stop. */
static inline bool udp_stream_stopped(const struct udp_stream *st)
{
	return st->stop && atomic_load_explicit(st->stop, memory_order_relaxed);
}

/* The receiving stream thread's body (udp_recv.c): reads until stopped,
 * then drains what is queued and reads the socket's drop counter. */
void udp_recv_run(struct udp_stream *st);

/* Configures the socket for its role (buffers, GSO/GRO, SO_RXQ_OVFL) and
 * starts the thread. 0 or a negative errno. */
int udp_stream_start(struct udp_stream *st, uint32_t sock_buf);
void udp_stream_join(struct udp_stream *st);
void udp_stream_free(struct udp_stream *st);
/* One received packet (len bytes, datagrams of seg bytes each when GRO
 * coalesced it, seg 0: one datagram) into the stream's statistics; what
 * does not parse, or belongs to another test or stream, is counted and
 * dropped. The receiver thread's path, exposed for the fuzzer. */
void udp_stream_rx_packet(struct udp_stream *st, const uint8_t *p, size_t len, size_t seg,
			  uint64_t now);
/* Cumulative figures of the measured phase over n streams, for interval
 * reports (bytes, packets; lost for a receiver). */
void udp_streams_sample(const struct udp_stream *st, unsigned n, bool sender,
			struct proto_interval *cum);

#endif
