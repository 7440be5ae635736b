/* SPDX-License-Identifier: MIT */
/*
 * What one test measured: struct load_result and the structs it holds
 * (the sums, each stream, each interval, the client's own samples, each
 * end's scheduling). The engine (load.h) fills them and never formats;
 * printers render them (report_load.h, in src/report/), the run model keeps
 * them (results.h).
 *
 * Fields may be added; none is renamed or removed without bumping
 * LOAD_JSON_SCHEMA (the JSON contract is documented in docs/json.md).
 */
#ifndef OVLPERF_LOAD_RESULT_H
#define OVLPERF_LOAD_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the base structs a result carries: struct cpu_use, struct loss_attrib,
 * struct tcp_info_summary */
#include "cpuuse.h"
#include "hostfacts.h"
#include "netcounters.h"
#include "sockopt.h"
/* a result carries the spec it ran */
#include "load_spec.h"

#define LOAD_JSON_SCHEMA 1

struct owd_summary {
	bool valid; /* false when no datagram arrived */
	uint64_t min_ns, p50_ns, p99_ns, max_ns, mean_ns;
	uint64_t error_ns; /* 0: exact (the ends share a clock); else each
			    * value is an upper bound, at most this much
			    * above the true delay (owd_clock.h) */
};

/* How one end's test threads were really scheduled: read back from the
 * threads (sched(7)), not what was asked for, so that a process started under
 * chrt shows as such. */
#define LOAD_SCHED_FIFO_PRIO 1 /* --realtime: the lowest real-time priority */
enum load_sched_policy {
	LOAD_SCHED_UNKNOWN = 0, /* the peer did not say (older ovlperf, no RESULTS) */
	LOAD_SCHED_OTHER,	/* SCHED_OTHER (or BATCH/IDLE): time-shared */
	LOAD_SCHED_FIFO,
	LOAD_SCHED_RR,
};
struct load_sched {
	enum load_sched_policy policy;
	uint8_t prio; /* FIFO/RR: 1..99 */
};

/* "other", "fifo:1", "rr:5" or "unknown": the name every printer uses. */
const char *load_sched_name(const struct load_sched *s, char *buf, size_t n);
/* The name back ("other", "fifo:N", "rr:N" with N 1..99); false otherwise. */
bool load_sched_parse(const char *name, struct load_sched *s);

/* Over the built-in overlay: the outer (encrypted) datagrams its daemon at
 * the client's end put on the underlay (the client sending) or took from
 * it (the client receiving) during the test, as the daemon counts them
 * (ovlperf tunnel show: counter.udp_tx_datagrams/bytes, udp_rx_*). It
 * carried the test's datagrams and everything else the tunnel did then
 * (the control connection, keepalives, handshakes): measured, not
 * computed. ip_version 0: no daemon answered (not over the built-in
 * overlay). */
struct udp_outer {
	unsigned ip_version; /* the underlay's: 4 or 6 */
	bool received;	     /* received (the client received), else sent */
	uint64_t datagrams;
	uint64_t bytes; /* UDP payload of the outer datagrams */
};

struct udp_result {
	uint64_t sent, received, lost, duplicates, reordered, malformed;
	uint64_t target_bps;   /* what was asked for */
	uint64_t achieved_bps; /* offered rate really sent (payload bits / s) */
	/* Sent and received rates share one window, the sender's (its phase,
	 * start to end): the receiver's is the same window shifted by each
	 * datagram's one-way delay, so received_bps = achieved_bps * received /
	 * sent, and a trial that lost nothing shows equal rates (RFC 2544's
	 * and CSIT's forwarding rate: what arrived of a trial's load, over
	 * the trial's time). */
	uint64_t received_bps;
	uint64_t sent_pps, received_pps;
	/* The receiver's own window, first to last arrival (payload bits / s;
	 * 0: unknown, fewer than two arrived): a path that queued what it
	 * could not forward delivers over a longer window than it was sent
	 * in, and this rate falls short of achieved_bps though nothing was
	 * lost (the knee search counts that shortfall, knee_trial_loss()). */
	uint64_t arrival_bps;
	/* How much the queue on the path grew through the test: the
	 * receiver's window beyond the sender's, i.e. how much later the last
	 * datagram arrived than the first, against when they were sent (ms;
	 * 0: it did not grow, or no window is known). A lossless trial whose
	 * queue grew passed on loss alone: its load is above what the path
	 * sustains (the knee search's queue tolerance, knee.h). */
	double queue_growth_ms;
	double jitter_ms; /* RFC 3550 interarrival jitter */
	struct owd_summary owd;
	/* The share of owd spent in the receiving sockets (all streams): the
	 * kernel's arrival stamp to the read, on the receiver's one clock
	 * (error_ns 0). Valid when the receiver measured it (an ovlperf
	 * 0.x server without PROTO_CAP_RX_WAIT does not). */
	struct owd_summary rx_wait;
	bool generator_limited; /* the sender fell short of target_bps by > 1% */
	struct loss_attrib loss_at;
	uint32_t len;
	uint32_t path_mtu;  /* the client's path MTU for the test (the lower of
			     * before and after: ICMP may lower it); 0 unknown */
	uint32_t fragments; /* IP fragments per datagram at path_mtu (1: none) */
	bool dont_fragment; /* DF was set: fragments is then always 1 */
	/* Why a sender fell short (known when the client sent): datagrams
	 * (slots) the pacer gave up because the thread woke late or was
	 * preempted (a busy host), because its previous send call was busy in
	 * the kernel's send path (local qdisc, softirq work on that CPU), or
	 * slept there (blocked by the local queue / send buffer); and send
	 * calls the local queue refused (EAGAIN/ENOBUFS). */
	bool sender_diag;
	uint64_t skipped_late_wakeup, skipped_slow_send, skipped_blocked_send, send_refused;
	struct udp_outer outer;
};

/* What limited one end's TCP streams over the measured window, summed
 * over its streams: the sender's chronographs and bytes, each end's socket
 * buffers and its host's buffer maxima, the busiest stream thread's CPU.
 * What results/tcp_limit.h reads a verdict from. */
struct tcp_end_limits {
	bool known;  /* this end reported them (an older peer does not) */
	bool chrono; /* sender: its kernel keeps the chronographs */
	bool sysctl; /* the buffer maxima were read */
	unsigned streams;
	double window_s;				 /* the measured window times the streams */
	double busy_s, rwnd_limited_s, sndbuf_limited_s; /* sender */
	uint64_t bytes_sent, bytes_retrans;		 /* sender */
	uint64_t delivery_bps;		   /* sender: the last delivery-rate samples */
	unsigned app_limited_streams;	   /* ... taken while the application held it */
	uint32_t min_rtt_us;		   /* sender */
	uint32_t rtt_median_us;		   /* sender: its median round trip over the window
					    * (by the bytes sent); 0 unknown (a peer's) */
	uint32_t snd_wnd;		   /* sender: the peer's windows at the end, bytes */
	uint32_t sock_sndbuf, sock_rcvbuf; /* at the end, bytes */
	uint32_t tcp_rmem_max, tcp_wmem_max, rmem_max, wmem_max; /* the host's */
	double thread_cpu;  /* the busiest stream thread, share of a core */
	uint32_t rcv_space; /* receiver: autotuned receive space, bytes */
};

/* What either end's counters saw dropped or held over a TCP test, in
 * packets as the kernel counts them (every interface, socket and qdisc of
 * that end's network namespace, not only the test's): where the test's
 * segments went, for the verdict. */
struct tcp_drops {
	bool known;			   /* both ends' host counters came */
	uint64_t sender_link_tx;	   /* the sender's interfaces' tx drops (a TUN's
					    * full queue: its reader did not keep up) */
	uint64_t receiver_link_rx;	   /* the receiver's interfaces' rx drops */
	uint64_t receiver_udp_drops;	   /* the receiver's UDP sockets' receive buffer
					    * drops (an overlay's or VPN's socket) */
	uint64_t tunnel;		   /* the built-in overlay's daemons' own drops, both
					    * ends (ovlperf tunnel show: drop.*) */
	uint64_t backlog;		   /* a CPU's backlog (softnet_stat dropped), this client's
					    * machine */
	bool qdisc_read;		   /* the sender's root qdiscs were read */
	uint64_t qdisc_drops;		   /* their drops */
	uint64_t qdisc_held;		   /* their overlimits: a shaper held packets
					    * back (its queue grew); the client's own
					    * only (0 from a server that sent) */
	char qdisc_kind[16], qdisc_if[16]; /* the one that held (else dropped) most */
};

struct tcp_result {
	uint64_t bytes;	     /* received after omit */
	uint64_t sent_bytes; /* written by the sender after omit */
	uint64_t goodput_bps;
	struct tcp_info_summary sender;	  /* from the sending end's TCP_INFO */
	struct tcp_info_summary receiver; /* from the receiving end */
	struct tcp_end_limits sender_limits, receiver_limits;
	struct tcp_drops drops;
};

struct load_stream_result {
	uint64_t bytes; /* received (TCP: by the receiving end) */
	uint64_t bps;
	uint64_t sent_bytes;				  /* TCP: written by the sending end */
	struct udp_result udp;				  /* UDP only */
	struct tcp_info_summary tcp_sender, tcp_receiver; /* TCP only */
};

struct load_interval {
	double start_s, end_s;
	uint64_t bytes;
	uint64_t bps;
	uint64_t lost;	      /* UDP */
	uint32_t retransmits; /* TCP */
};

/* One stream over one interval as the client itself saw it: what its
 * sender wrote or its receiver read (iperf3's interval reports are these;
 * load_interval is the receiving end's sum). */
struct load_stream_interval {
	int socket; /* the client's descriptor of the stream */
	uint64_t bytes, packets;
	uint64_t lost;	      /* UDP receiver */
	double jitter_ms;     /* UDP receiver: RFC 3550 jitter at the interval's end */
	uint32_t retransmits; /* TCP sender */
	bool tcp_info;	      /* TCP sender: TCP_INFO read at the interval's end */
	uint32_t snd_cwnd_bytes, snd_wnd, rtt_us, rttvar_us, pmtu;
	bool snd_wnd_known; /* the kernel reports snd_wnd (5.4 and later) */
};

/* The client's end of a stream's data connection. */
struct load_conn {
	int socket; /* its descriptor (iperf3 names streams by it) */
	uint16_t local_port, remote_port;
};

struct load_local_interval {
	double start_s, end_s;		      /* from the start of the measurement (after omit) */
	bool omitted;			      /* within the warm-up (-O) */
	struct load_stream_interval *streams; /* nstreams entries */
};

struct load_result {
	struct load_spec spec;
	double duration_s;			       /* measured, excluding omit */
	double sender_duration_s, receiver_duration_s; /* each end's measured time */
	struct udp_result udp;			       /* sum over streams (proto == LOAD_UDP) */
	struct tcp_result tcp;			       /* sum over streams (proto == LOAD_TCP) */
	struct cpu_use cpu_sender, cpu_receiver;
	double sender_cpu_s_per_gbit, receiver_cpu_s_per_gbit;
	unsigned nstreams;
	struct load_stream_result *streams; /* nstreams entries */
	unsigned nintervals;
	struct load_interval *intervals;
	char local_addr[64], remote_addr[64]; /* the data path's addresses */
	char error[256];		      /* set when load_run fails */
	bool interrupted;		      /* stopped early by a signal; partial figures */
	bool peer_missing;		      /* the test ran but the server's RESULTS never came
					       * (it died, the connection broke): the far end's
					       * figures are unknown, not zero, and the printers
					       * show them as unknown */
	bool owd_shared_clock;		      /* both ends share CLOCK_MONOTONIC (same kernel):
					       * one-way delay is exact; otherwise it is an
					       * upper bound (udp.owd.error_ns) */
	bool udp_gso_used, udp_gro_used;      /* what the sockets really got */
	uint32_t rcvbuf_bytes;		      /* effective SO_RCVBUF of the receiving sockets */
	char server_version[48];
	struct load_sched sched_client, sched_server; /* each end's test threads */
	/* the client's own view, for iperf3-shaped output */
	unsigned nconns; /* data connections made (spec.streams once all are) */
	struct load_conn *conns;
	unsigned nlocal;		   /* entries in local (intervals the client sampled) */
	struct load_local_interval *local; /* each with nstreams stream entries */
	int64_t started_unix;		   /* wall clock when the test started (0: it did not) */
	char cookie[33];		   /* the test's cookie in hex ("" before TEST_ACCEPT) */
	uint32_t tcp_mss, sndbuf_bytes, rcvbuf_local_bytes; /* the first data socket's */
	char cc_local[16], cc_peer[16]; /* TCP congestion control of each end ("" unknown) */
	/* Each end's host facts over the test (hostfacts.h): the client's
	 * read here, the server's from its HOST_FACTS (known false: an older
	 * server, or none asked for) */
	struct hostfacts facts_client, facts_server;
};

/* Frees the arrays load_run() allocated in res (streams, intervals, conns,
 * the client's samples) and sets their counts to 0; the rest of res stays. */
void load_result_free(struct load_result *res);

#endif
