/* SPDX-License-Identifier: MIT */
/*
 * What limited a TCP test, read from the sender's kernel (TCP_INFO's
 * chronographs: busy, stalled by the receive window, stalled by the send
 * buffer), both ends' socket buffers and buffer maxima, the stream
 * threads' CPU and the round trip: one verdict with its evidence and the
 * fix, and the arithmetic a user can check (the window the rate needed at
 * the round trip against the window the buffers allowed).
 *
 * Pure: figures in, a verdict out. The printers render it.
 */
#ifndef OVLPERF_TCP_LIMIT_H
#define OVLPERF_TCP_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "load_result.h"
#include "loss_place.h"

enum tcp_limit {
	TCP_LIMIT_UNKNOWN,	/* no chronographs (an older kernel or peer) */
	TCP_LIMIT_APPLICATION,	/* the write queue was empty: -b, or the writer */
	TCP_LIMIT_RWND,		/* the receiver's window: its buffer maximum */
	TCP_LIMIT_SNDBUF,	/* the sender's buffer maximum */
	TCP_LIMIT_NETWORK_RATE, /* the congestion window at a bottleneck's queue */
	TCP_LIMIT_LOSS,		/* the congestion window after losses, no queue */
	TCP_LIMIT_CWND,		/* the congestion window, neither loss nor queue */
	TCP_LIMIT_SENDER_CPU,	/* a sending thread at a full core */
	TCP_LIMIT_RECEIVER_CPU, /* a receiving thread at a full core */
	TCP_LIMIT_OVERLAY_CPU,	/* an overlay daemon's thread at a full core */
	/* every core of the machine busy (a lab's hosts share it), or one CPU
	 * at a full core in softirq (the kernel's packet work) */
	TCP_LIMIT_HOST_CPU,
};

/* A thread at this share of a core or more is a CPU limit. */
#define TCP_LIMIT_CPU_BOUND 0.95
/* A daemon throttled at its cgroup's quota in this share of the quota's
 * periods or more was held by the quota more than by anything else, even
 * where a busy machine left it little of each period. */
#define TCP_LIMIT_QUOTA_PERIODS 0.5
/* A machine whose cores are this busy together is a CPU limit (its idle
 * rest the gaps between threads handing packets to each other). */
#define TCP_LIMIT_MACHINE_BOUND 0.9
/* An overlay's flow this many times below what the underlay carried over
 * the same network was not held back by the network (its encapsulation
 * adds 5-10 % on the wire): two plain namespaces, the built-in overlay's
 * 5.25 Gbit/s against the underlay's 17.6 read "network rate" from its
 * queue alone. */
#define TCP_LIMIT_UNDERLAY_ROOM 1.5
/* A drop's reader whose busiest thread used less than this share of a
 * core was not short of CPU as a whole: it ran too late, not too slowly
 * (wireguard-go between two namespaces at 16 % of a core, 13,026 drops at
 * its socket, read "more CPU for wireguard-go"). */
#define TCP_LIMIT_READER_BUSY LOSS_PLACE_READER_BUSY

struct tcp_limit_verdict {
	enum tcp_limit limit;
	/* judged, but the evidence cannot decide (TCP_LIMIT_UNKNOWN with what
	 * is unknown and why in evidence): a queue while a host's CPU on the
	 * path was not read */
	bool undecided;
	/* shares of the measured window (times the streams), 0..1; they add
	 * up to 1: the write queue empty, stalled by the receive window, by
	 * the send buffer, sending within the congestion window */
	double app, rwnd, sndbuf, cwnd;
	double retrans_ratio; /* bytes resent / bytes sent */
	double queue_ms;      /* the round trip above its least: a queue */
	/* queue_ms from the sender's median round trip over the measured
	 * window (else its one reading at the test's end: a peer's) */
	bool queue_median;
	double rtt_ms;			 /* smoothed, the streams' mean at the end */
	double needed_window_B;		 /* in flight: the rate measured times the round trip */
	double cwnd_B, rwnd_B;		 /* the congestion window and the peer's at the end */
	double allowed_window_B;	 /* what the binding buffer allowed (0: n/a) */
	double allowed_bps;		 /* allowed_window_B over the round trip */
	double sender_cpu, receiver_cpu; /* busiest stream threads, of a core */
	double fix_bps;			 /* the rate the fix's buffer value is sized for (0: none):
					  * the path's where known, else four times the rate */
	/* the value the fix names: a tcp_rmem/tcp_wmem maximum (bytes), or
	 * -w's bytes a stream where the test set it (sock_buf_fix); 0: none */
	uint64_t fix_value;
	bool sock_buf_fix;
	/* a buffer limit's fix as the test's own -w, for a host whose sysctls
	 * are not ovlperf's: fix_value within the net.core maximum that caps
	 * SO_RCVBUF (the receiver's rmem_max) or SO_SNDBUF (the sender's
	 * wmem_max), that maximum in sock_buf_max (0: not read); 0: none */
	uint64_t sock_buf_value;
	uint32_t sock_buf_max;
	char evidence[512]; /* two or three figures, one sentence (BBR's the longest) */
	char fix[384];	    /* what to change ("" when nothing) */
};

/* Where a test's packets were dropped, as one end's counters or the same
 * path's UDP trials saw it: the place, how many, and who should have taken
 * them there, with that process's CPU. */
enum tcp_drop_kind {
	TCP_DROP_NONE,	  /* nothing seen dropped (or not read) */
	TCP_DROP_HOST,	  /* a host's queue: a TUN, an interface, a socket, the backlog */
	TCP_DROP_SHAPER,  /* a shaper's or a full interface queue: the network's rate */
	TCP_DROP_NETWORK, /* between the hosts, past every counter they keep */
	/* past every counter the hosts keep, with no evidence of the network */
	TCP_DROP_UNACCOUNTED,
};
struct tcp_limit_drop {
	enum tcp_drop_kind kind;
	const char *place;   /* "the sender's interface (a TUN)", "the receiving host's backlog" */
	uint64_t count;	     /* packets dropped there (0: a share is known, not a count) */
	double share;	     /* of all the drops seen, 0..1 (0: unknown) */
	const char *process; /* the process that should have taken them (NULL: none known) */
	double process_cpu;  /* its busiest thread, of a core (0: not read) */
	const char *thread;  /* that thread's name (NULL: not read) */
	double quota_cores;  /* its cgroup's CPU quota (0: none or not read) */
	const char *fix;     /* what would stop it there (NULL: none known) */
};

/* What the verdict needs of the test beyond its figures. */
struct tcp_limit_ctx {
	bool reverse;	   /* the far end sent */
	uint64_t rate_bps; /* the rate asked (-b), 0: as fast as it can */
	uint32_t sock_buf; /* -w: the test set both ends' buffers, 0: autotuning */
	uint64_t path_bps; /* the path's rate where the caller knows it, else 0 */
	/* An overlay's test: the TCP goodput the same run's underlay reached
	 * over the network the overlay rides on (the most of its repetitions
	 * at this stream count); 0: none, or this test is the underlay's. A
	 * network that carried far more is not what held the overlay back. */
	uint64_t underlay_bps;
	/* the hosts' names in the sentences; NULL: "this host" and "the far
	 * host" by reverse */
	const char *snd_host, *rcv_host;
	/* the overlay's busiest daemon thread over the test, where the caller
	 * read it: its share of a core, its name and its host's (NULL: unknown) */
	double overlay_cpu;
	const char *overlay_thread, *overlay_host;
	const char *overlay_process; /* its process's name (comm), NULL: unknown */
	/* a daemon's cgroup quota (cores, 0: none), the cores its process
	 * used, the time it was held at the quota, the share of the quota's
	 * periods it was held in (0: not read), and its host's name */
	double overlay_quota_cores, overlay_quota_used, overlay_throttled_s;
	double overlay_throttled_share;
	const char *overlay_quota_host;
	/* that daemon's process name and its busiest thread's name and share
	 * of a core (NULL: unknown) */
	const char *overlay_quota_process, *overlay_quota_thread;
	double overlay_quota_thread_cpu;
	double duration_s; /* the measured window (0: unknown) */
	/* the whole machine's busy share over the test (all its cores, 0..1)
	 * and how many it has, where the caller knows (a lab run); 0: unknown */
	double machine_busy;
	unsigned machine_cpus;
	/* Between real hosts (either end's host facts, the busier end): the
	 * share of its cores the test kept busy (its busy cores less other
	 * work's at rest), how many it has, its name and other work's cores
	 * at rest (< 0: unknown); host_cpus 0: not read. Only a queue's
	 * reading uses it: a host whose every core the test filled queues as
	 * a bottleneck does, so the queue is not the network's proof. */
	double host_busy;
	unsigned host_cpus;
	const char *machine_host;
	double machine_baseline;
	/* the CPU with the largest share of its time in softirq over the
	 * test, and that share (0..1; 0: unknown) */
	unsigned softirq_cpu;
	double softirq_share;
	/* Why some host's CPU on the path was not read, where it was not
	 * ("the far host's CPU not reported: server 0.1.0"); NULL: every CPU
	 * the path crosses was read (a lab's machine, or both ends' facts). A
	 * queue alone is then no proof of the network's rate: a process at a
	 * full core queues as a bottleneck does. */
	const char *cpu_unknown;
	/* The sender's congestion control ("cubic", "bbr"; NULL or "": not
	 * reported): a fix never names the one in force. */
	const char *congestion;
	/* Where this test's segments were dropped, by the counters read over
	 * it (either end's TUN, interfaces, sockets, softnet backlog, qdiscs),
	 * and where the same path's UDP trials lost most (their loss places). */
	struct tcp_limit_drop trial_drop, udp_drop;
};

/* Where t's own counters say its segments went (t->drops): a host's
 * place that dropped a tenth of the segments resent or more (the
 * sender's interfaces, a TUN among them, the receiver's interfaces or UDP
 * sockets; over an overlay, overlay true, named as its TUN and socket,
 * whose reader is process, NULL: unknown), else the sender's qdisc that
 * held packets back or dropped them (a shaper's or a full queue: the
 * network's rate), else none. place (len bytes) holds the place's words. */
void tcp_limit_drop_of(const struct tcp_result *t, bool overlay, const char *process, char *place,
		       size_t len, struct tcp_limit_drop *d);

/* The words a context from host facts points into (the caller's). */
struct tcp_facts_words {
	char cpu_unknown[96];
	char place[96];
};

/* Fills c's evidence from the sending and receiving ends' host facts
 * (hostfacts.h; snd_name and rcv_name name them in the sentences): an end
 * that did not report leaves cpu_unknown saying which and why ("the far
 * host's CPU not reported: server ovlperf 0.1.0"), both reported clear it;
 * the busiest overlay/VPN thread and the process held longest at its
 * quota, either end's, where c has none; the sender's congestion control
 * where c has none; the CPU busiest in softirq; and the place of the most
 * drops (the sender's TUN and its reader, the receiver's UDP socket and its
 * owner, a softnet backlog) where it is a tenth of retransmits or more. */
void tcp_limit_from_facts(const struct hostfacts *snd, const struct hostfacts *rcv,
			  const char *snd_name, const char *rcv_name, uint32_t retransmits,
			  struct tcp_facts_words *w, struct tcp_limit_ctx *c);

/* The verdict on a TCP test's figures t (both ends' limits known, else
 * TCP_LIMIT_UNKNOWN with the reason in evidence). */
void tcp_limit_judge(const struct tcp_result *t, const struct tcp_limit_ctx *c,
		     struct tcp_limit_verdict *v);

/* The verdict on test r (a TCP one with both ends' limits known, else
 * TCP_LIMIT_UNKNOWN with the reason in evidence). path_bps, when not 0, is
 * the path's rate where the caller knows it (a lab link's shaper): a
 * congestion window reaching 90 % of it is the network's rate. */
void tcp_limit_of(const struct load_result *r, uint64_t path_bps, struct tcp_limit_verdict *v);

/* "receive window", "send buffer", ... (the JSON's and the reports' name). */
const char *tcp_limit_name(enum tcp_limit l);

#endif
