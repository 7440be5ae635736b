/* SPDX-License-Identifier: MIT */
/*
 * The data streams of one test at one end, whichever end: starts the TCP or
 * UDP stream threads on connected sockets, samples them for interval
 * reports, says when its part is over, stops them and produces this end's
 * RESULTS (load_side.h). The client and the server drive it the same way.
 */
#ifndef OVLPERF_LOAD_STREAMS_H
#define OVLPERF_LOAD_STREAMS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "load_result.h"
#include "load_spec.h"
#include "load_side.h"
#include "proto.h"
#include "tcp_load.h"
#include "udp_load.h"

/* After the sender finished, a UDP receiver waits for every stream's FIN,
 * or for this long without datagrams, and at most LOAD_STREAMS_DRAIN_MAX_NS. */
#define LOAD_STREAMS_QUIET_NS	  (300 * NSEC_PER_MSEC)
#define LOAD_STREAMS_DRAIN_MAX_NS (5 * NSEC_PER_SEC)
#define LOAD_STREAMS_FIN_QUIET_NS (20 * NSEC_PER_MSEC)
/* The measurement begins this long after load_streams_start(). */
#define LOAD_STREAMS_START_DELAY_NS	 (5 * NSEC_PER_MSEC)
#define LOAD_STREAMS_START_PER_STREAM_NS (200 * NSEC_PER_USEC)

struct load_streams {
	bool udp, sender;
	unsigned n;
	struct tcp_stream *tcp;
	struct udp_stream *us;
	atomic_bool stop;
	uint64_t start_ns, omit_end_ns, end_ns;
	struct load_side side;
	/* interval reports */
	uint64_t interval_ns, next_tick_ns;
	uint32_t index;
	struct proto_interval prev;
};

/* Takes ownership of fds[0..spec->streams). Starts the threads with the
 * measurement beginning now. clock_shift_ns: what UDP streams add to the
 * timestamps that cross hosts (owd_clock_shift(); 0 on the server, which
 * keeps its own clock). 0 or a negative errno (the fds are closed). */
int load_streams_start(struct load_streams *ls, const struct load_spec *spec, int *fds, bool sender,
		       uint32_t test_id, int64_t clock_shift_ns);
/* When the next interval report is due (UINT64_MAX: none). */
uint64_t load_streams_next_tick(const struct load_streams *ls);
/* The interval that just ended (call at or after next_tick); advances it. */
void load_streams_interval(struct load_streams *ls, uint64_t now, struct proto_interval *iv);
/* Sender: all threads finished (end time reached, or stopped). */
bool load_streams_sender_done(const struct load_streams *ls);
/* Receiver: done given that the sender finished at sender_done_ns (this
 * host's clock; 0 = not known yet). */
bool load_streams_receiver_done(const struct load_streams *ls, uint64_t now,
				uint64_t sender_done_ns);
/* Sets the stop flag and joins every thread. */
void load_streams_stop(struct load_streams *ls);
/* This end's figures (after load_streams_stop). */
void load_streams_results(struct load_streams *ls, struct proto_results *out);
/* The lowest path MTU the streams' sockets had at their end (0 unknown). */
uint32_t load_streams_path_mtu(const struct load_streams *ls);
/* UDP: the built-in overlay's outer datagrams this end sent (sender) or
 * received over the test (after load_streams_results; ip_version 0: no
 * daemon here). */
void load_streams_outer(const struct load_streams *ls, struct udp_outer *out);
/* A UDP sender's skipped slots by cause and its refused sends (sums over
 * streams; zeros on a receiving end). */
void load_streams_sender_diag(const struct load_streams *ls, uint64_t *late_wakeup,
			      uint64_t *slow_send, uint64_t *blocked_send, uint64_t *refused);
/* First error of a stream thread, 0 if none. */
int load_streams_error(const struct load_streams *ls);
void load_streams_free(struct load_streams *ls);

#endif
