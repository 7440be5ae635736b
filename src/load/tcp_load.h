/* SPDX-License-Identifier: MIT */
/*
 * TCP data streams of one test, shared by the client and the server: a
 * sender thread writes large buffers until its end time, then shuts down its
 * write side; a receiver thread reads until end of stream. Counters are
 * atomics so the control thread can sample them for interval reports while the
 * streams run. Nothing here formats or talks the control protocol.
 */
#ifndef OVLPERF_TCP_LOAD_H
#define OVLPERF_TCP_LOAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cpuuse.h"
#include "sockopt.h"
#include "proto.h"

/* The round trip's buckets: 1/16 of an octave each (4.4 %), from 1 us
 * up to 2^24 us (16.8 s) */
#define TCP_RTT_BUCKETS (24 * 16)

struct tcp_stream {
	/* set by the owner before tcp_stream_start() */
	int fd;
	bool sender;
	uint32_t len;				/* write/read size */
	uint64_t rate_bps;			/* sender: 0 = as fast as possible */
	uint64_t start_ns, omit_end_ns, end_ns; /* this host's CLOCK_MONOTONIC */
	const atomic_bool *stop;		/* owner sets it to end the stream early */

	/* filled by the thread */
	atomic_uint_fast64_t bytes; /* moved so far (including omit) */
	uint64_t bytes_at_omit;
	uint32_t retrans_at_omit;	      /* sender: tcpi_total_retrans when omit ended */
	struct tcp_info_summary info_at_omit; /* sender: TCP_INFO there */
	uint64_t first_ns, last_ns;	      /* receiver: first byte after omit, end of stream */
	struct tcp_info_summary info;	      /* TCP_INFO at the end; its counters
					       * (retransmits, chronographs, bytes)
					       * over the measured window */
	uint32_t sndbuf, rcvbuf;	      /* SO_SNDBUF / SO_RCVBUF at the end */
	/* sender: tcpi_rtt over the measured window, the bytes sent since
	 * the reading before by the reading's bucket (tcp_rtt_median_us()) */
	uint64_t rtt_bytes[TCP_RTT_BUCKETS];
	uint64_t rtt_at_ns, rtt_sent; /* the last reading's time, bytes sent */
	struct cpu_use cpu;	      /* of this thread */
	int err;		      /* 0 or negative errno */
	bool eof;		      /* receiver: orderly end of stream seen */

	atomic_bool finished; /* the thread has returned its figures */
	pthread_t thread;
	bool running;
};

/* Starts the stream's thread. Returns 0 or a negative errno. */
int tcp_stream_start(struct tcp_stream *st);
/* Joins the thread (the owner sets *stop first to end it early). */
void tcp_stream_join(struct tcp_stream *st);
/* Bytes counted for the result (after omit). */
uint64_t tcp_stream_bytes(const struct tcp_stream *st);
/* The sender's median round trip over the measured window, by the bytes
 * sent (us, to its bucket's 4.4 %); 0: not read. */
uint32_t tcp_rtt_median_us(const struct tcp_stream *st);
/* Cumulative figures over n streams for interval reports: bytes after omit;
 * a sender adds its sockets' total retransmits. */
void tcp_streams_sample(const struct tcp_stream *st, unsigned n, bool sender,
			struct proto_interval *cum);

#endif
