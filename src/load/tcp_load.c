// SPDX-License-Identifier: MIT
/* TCP data streams: one thread per stream, blocking I/O with a short timeout
 * so that the stop flag and the end time are noticed within ~100 ms. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "sockopt.h"
#include "tcp_load.h"

#define POLL_MS 100
/* A sender's blocking write wakes at least this often to read the round
 * trip (a window of a few segments blocks it for tens of ms at a time) */
#define RTT_EVERY_MS 10
/* ... and reads it no more often than this */
#define RTT_MIN_GAP_NS 1000000ULL
/* A receiver whose sender never closes gives up this long after its end time. */
#define RECV_GRACE_NS (5 * NSEC_PER_SEC)

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static void cpu_begin(struct rusage *ru)
{
	getrusage(RUSAGE_THREAD, ru);
}

static void cpu_end(const struct rusage *r0, uint64_t t0, struct cpu_use *cpu)
{
	struct rusage r1;

	getrusage(RUSAGE_THREAD, &r1);
	cpu->user_s = tv_s(&r1.ru_utime) - tv_s(&r0->ru_utime);
	cpu->sys_s = tv_s(&r1.ru_stime) - tv_s(&r0->ru_stime);
	cpu->wall_s = (double)(clock_now_ns() - t0) / 1e9;
}

static bool stopped(const struct tcp_stream *st)
{
	return st->stop && atomic_load_explicit(st->stop, memory_order_relaxed);
}

/* Blocking I/O (one syscall per buffer, as fast as it gets) that still wakes
 * every POLL_MS (a sender every RTT_EVERY_MS) to look at the stop flag and
 * the clock. */
static void set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = POLL_MS * 1000 };
	struct timeval snd = { .tv_sec = 0, .tv_usec = RTT_EVERY_MS * 1000 };

	sockopt_nonblock(fd, false);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &snd, sizeof(snd));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* The smoothed round trip (RFC 6298 SRTT, tcpi_rtt) over the measured
 * window as its bytes saw it: each reading counts the bytes sent since the
 * one before, for the median. Not one reading at the end: after a loss a
 * window of a segment or two waits on the receiver's delayed ACK (tens of
 * ms), a hole filled after a retransmission timeout echoes an old
 * timestamp (RFC 7323 4.3), and one such sample lifts SRTT by an eighth of
 * it for a few round trips. Nor by time: SRTT stands still, lifted,
 * through a timeout's backoff, which sends nothing. A bottleneck's queue
 * delays most of the bytes, which the median keeps. */
static unsigned rtt_bucket(uint32_t us)
{
	unsigned b = us > 1 ? (unsigned)(16 * log2((double)us)) : 0;

	return b < TCP_RTT_BUCKETS ? b : TCP_RTT_BUCKETS - 1;
}

static void rtt_note(struct tcp_stream *st, uint64_t now)
{
	struct tcp_info_summary ti;

	/* tcpi_bytes_sent: 4.19 and later, as the chronographs */
	if (sockopt_tcp_info(st->fd, &ti) < 0 || !ti.rtt_us || !ti.chrono_known)
		return;
	if (st->rtt_at_ns && ti.bytes_sent > st->rtt_sent)
		st->rtt_bytes[rtt_bucket(ti.rtt_us)] += ti.bytes_sent - st->rtt_sent;
	st->rtt_at_ns = now;
	st->rtt_sent = ti.bytes_sent;
}

uint32_t tcp_rtt_median_us(const struct tcp_stream *st)
{
	uint64_t all = 0, sum = 0;

	for (unsigned b = 0; b < TCP_RTT_BUCKETS; b++)
		all += st->rtt_bytes[b];
	for (unsigned b = 0; all && b < TCP_RTT_BUCKETS; b++) {
		sum += st->rtt_bytes[b];
		if (2 * sum >= all)
			return (uint32_t)(exp2((b + 0.5) / 16) + 0.5);
	}
	return 0;
}

/* The sender's counters where the measured window begins: the warm-up's
 * retransmits and chronographs are not the test's. */
static void mark_start(struct tcp_stream *st)
{
	if (sockopt_tcp_info(st->fd, &st->info_at_omit) == 0)
		st->retrans_at_omit = st->info_at_omit.retransmits;
}

static void note_omit(struct tcp_stream *st, uint64_t now, uint64_t bytes, bool *passed)
{
	if (!*passed && now >= st->omit_end_ns) {
		*passed = true;
		st->bytes_at_omit = bytes;
		mark_start(st);
	}
}

static uint64_t since(uint64_t start, uint64_t end)
{
	return end > start ? end - start : 0;
}

/* TCP_INFO at the end, its counters over the measured window. */
static void note_end(struct tcp_stream *st)
{
	struct tcp_info_summary *t = &st->info;
	const struct tcp_info_summary *o = &st->info_at_omit;

	sockopt_tcp_info(st->fd, t);
	t->retransmits = (uint32_t)since(st->retrans_at_omit, t->retransmits);
	if (st->sender) {
		t->busy_us = since(o->busy_us, t->busy_us);
		t->rwnd_limited_us = since(o->rwnd_limited_us, t->rwnd_limited_us);
		t->sndbuf_limited_us = since(o->sndbuf_limited_us, t->sndbuf_limited_us);
		t->bytes_sent = since(o->bytes_sent, t->bytes_sent);
		t->bytes_retrans = since(o->bytes_retrans, t->bytes_retrans);
	}
	st->sndbuf = sockopt_sndbuf(st->fd);
	st->rcvbuf = sockopt_rcvbuf(st->fd);
}

static int send_loop(struct tcp_stream *st, uint8_t *buf)
{
	uint64_t total = 0, now = clock_now_ns();
	bool omit_passed = st->omit_end_ns <= st->start_ns;
	int rc = 0;

	if (omit_passed)
		mark_start(st);
	while (!stopped(st) && (now = clock_now_ns()) < st->end_ns) {
		ssize_t n;

		note_omit(st, now, total, &omit_passed);
		if (omit_passed && (!st->rtt_at_ns || now >= st->rtt_at_ns + RTT_MIN_GAP_NS))
			rtt_note(st, now);
		if (st->rate_bps) {
			/* absolute schedule: the write of byte `total` is due at ... */
			uint64_t due = st->start_ns + total * 8 * NSEC_PER_SEC / st->rate_bps;
			if (due > now) {
				clock_sleep_until_ns(due < st->end_ns ? due : st->end_ns);
				continue;
			}
		}
		n = send(st->fd, buf, st->len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		total += (uint64_t)n;
		atomic_store_explicit(&st->bytes, total, memory_order_relaxed);
	}
	now = clock_now_ns();
	note_omit(st, now, total, &omit_passed);
	if (!omit_passed)
		st->bytes_at_omit = total;
	else
		rtt_note(st, now); /* the last bytes' */
	/* Stopped or failed early: the sender's duration is what it really sent
	 * for (it is the test's duration when the receiver's figures are lost). */
	if (now < st->end_ns)
		st->end_ns = now;
	return rc;
}

static int recv_loop(struct tcp_stream *st, uint8_t *buf)
{
	uint64_t total = 0, now;
	bool omit_passed = st->omit_end_ns <= st->start_ns;

	if (omit_passed)
		st->first_ns = st->omit_end_ns;
	while (!stopped(st)) {
		ssize_t n = recv(st->fd, buf, st->len, 0);

		now = clock_now_ns();
		if (n == 0) {
			st->eof = true;
			break;
		}
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				return -errno;
			if (now > st->end_ns + RECV_GRACE_NS)
				return -ETIMEDOUT;
			continue;
		}
		if (!omit_passed && now >= st->omit_end_ns) {
			int queued = 0;

			/* The window starts now: what this read returned and what
			 * still waits in the socket arrived before it. A reader
			 * late at the window's start (a busy machine) would
			 * otherwise count its backlog as the window's and report
			 * more than the path carried (SIOCINQ: unread bytes). */
			if (ioctl(st->fd, SIOCINQ, &queued) < 0 || queued < 0)
				queued = 0;
			omit_passed = true;
			st->bytes_at_omit = total + (uint64_t)n + (uint64_t)queued;
			st->first_ns = now;
		}
		total += (uint64_t)n;
		st->last_ns = now;
		atomic_store_explicit(&st->bytes, total, memory_order_relaxed);
	}
	if (!omit_passed) {
		st->bytes_at_omit = total;
		st->first_ns = st->last_ns;
	}
	return 0;
}

static void *stream_main(void *arg)
{
	struct tcp_stream *st = arg;
	uint64_t t0 = clock_now_ns();
	struct rusage r0;
	uint8_t *buf;

	cpu_begin(&r0);
	set_timeouts(st->fd);
	buf = malloc(st->len);
	if (!buf) {
		st->err = -ENOMEM;
		atomic_store(&st->finished, true);
		return NULL;
	}
	/* Non-random but non-zero payload: compressing links must not flatter us. */
	for (uint32_t i = 0; i < st->len; i++)
		buf[i] = (uint8_t)(i * 2654435761u >> 24);
	if (st->sender)
		clock_sleep_until_ns(st->start_ns); /* all streams together */
	st->err = st->sender ? send_loop(st, buf) : recv_loop(st, buf);
	/* TCP_INFO before the close: the sender's view includes every retransmit. */
	note_end(st);
	if (st->sender)
		shutdown(st->fd, SHUT_WR);
	free(buf);
	cpu_end(&r0, t0, &st->cpu);
	atomic_store(&st->finished, true);
	return NULL;
}

int tcp_stream_start(struct tcp_stream *st)
{
	int rc;

	if (!st->len)
		st->len = LOAD_TCP_DEFAULT_LEN;
	atomic_init(&st->bytes, 0);
	atomic_init(&st->finished, false);
	memset(&st->info_at_omit, 0, sizeof(st->info_at_omit));
	st->retrans_at_omit = 0;
	memset(st->rtt_bytes, 0, sizeof(st->rtt_bytes));
	st->rtt_at_ns = st->rtt_sent = 0;
	st->err = 0;
	rc = pthread_create(&st->thread, NULL, stream_main, st);
	if (rc)
		return -rc;
	st->running = true;
	return 0;
}

void tcp_stream_join(struct tcp_stream *st)
{
	if (!st->running)
		return;
	pthread_join(st->thread, NULL);
	st->running = false;
}

uint64_t tcp_stream_bytes(const struct tcp_stream *st)
{
	uint64_t b = atomic_load_explicit(&st->bytes, memory_order_relaxed);

	return b >= st->bytes_at_omit ? b - st->bytes_at_omit : 0;
}

void tcp_streams_sample(const struct tcp_stream *st, unsigned n, bool sender,
			struct proto_interval *cum)
{
	memset(cum, 0, sizeof(*cum));
	for (unsigned i = 0; i < n; i++) {
		struct tcp_info_summary ti = { 0 };

		cum->bytes += tcp_stream_bytes(&st[i]);
		if (sender && st[i].running && sockopt_tcp_info(st[i].fd, &ti) == 0 &&
		    ti.retransmits >= st[i].retrans_at_omit)
			cum->retransmits += ti.retransmits - st[i].retrans_at_omit;
	}
}
