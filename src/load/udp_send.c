// SPDX-License-Identifier: MIT
/* UDP data streams: the paced batched sender, and each stream's thread
 * (started, joined); the receiver is udp_recv.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "clock.h"
#include "cpuuse.h"
#include "log.h"
#include "proto.h"
#include "sockopt.h"
#include "udp_load.h"

/* Lateness the pacer forgives before it skips slots (see pacer.h): at
 * least 1 ms (a wake-up on a busy host), and up to 8 slots at low rates,
 * where one slot is already more than a millisecond; never above 10 ms.
 * What is forgiven goes out at once, so the catch-up is at most that. */
#define SEND_TOLERANCE_MIN_NS (1 * NSEC_PER_MSEC)
#define SEND_TOLERANCE_MAX_NS (10 * NSEC_PER_MSEC)
#define SEND_TOLERANCE_SLOTS  8
/* At high rates, datagrams due within this window go out in one batch, so a
 * batch is never a longer burst than this. */
#define BURST_WINDOW_NS (100 * NSEC_PER_USEC)
/* Sleep (rather than spin) when the next send is further away than this;
 * wake this much early and spin the rest, absorbing the wake-up latency. */
#define SLEEP_MIN_NS  (30 * NSEC_PER_USEC)
#define WAKE_EARLY_NS (10 * NSEC_PER_USEC)
#define GSO_MAX_BYTES 65000u
#define GSO_MAX_SEGS  UDP_LOAD_MAX_SEGS
#define FIN_COPIES    3
#define POLL_MS	      10 /* a stopped receiver notices within this */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = POLL_MS * 1000 };

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* ---- sender ---------------------------------------------------------- */

/* Without IP_RECVERR, udp_send_skb() turns a qdisc's drop (ENOBUFS) into
 * success and counts it only in the host-wide SndbufErrors; with it the
 * sender learns each dropped message and how many datagrams it held. */
static void set_recverr(int fd)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	int one = 1;

	if (getsockname(fd, (struct sockaddr *)&ss, &l) == 0 && ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof(one));
	setsockopt(fd, IPPROTO_IP, IP_RECVERR, &one, sizeof(one));
}

struct sender {
	struct udp_stream *st;
	uint8_t *buf; /* UDP_LOAD_BATCH datagrams back to back */
	struct mmsghdr msgs[UDP_LOAD_BATCH];
	struct iovec iov[UDP_LOAD_BATCH];
	uint32_t segs_per_msg; /* 1 without GSO */
	bool measuring;	       /* the measured phase (not warm-up) */
};

/* Message m of the batch, which carried segs datagrams, was dropped by
 * this host's queue after the kernel took it: the datagrams are gone as
 * if dropped a moment later, so they count as sent (and lost there); the
 * load stays what the pacer offers. */
static uint32_t dropped_locally(struct udp_stream *st, const struct sender *s, uint32_t m,
				bool hidden)
{
	uint32_t segs = (uint32_t)(s->iov[m].iov_len / st->len);

	st->send_msgs++;
	if (!s->measuring) {
		st->other_by_segs[segs]++;
		return segs;
	}
	st->dropped_by_segs[segs]++;
	if (hidden) {
		st->hidden_msgs++;
		st->hidden_dgrams += segs;
	} else {
		st->refused_msgs++;
		st->refused_dgrams += segs;
	}
	return segs;
}

/* Sends datagrams first..n-1 already stamped in s->buf; returns how many
 * went out (or were dropped by this host's queue, see dropped_locally()). */
static uint32_t send_batch_from(struct sender *s, uint32_t n, uint32_t first)
{
	struct udp_stream *st = s->st;
	uint32_t per = s->segs_per_msg, nmsg, done = 0;
	bool retried = false;

	if (first >= n)
		return 0;
	n -= first;
	nmsg = (n + per - 1) / per;
	for (uint32_t m = 0; m < nmsg; m++) {
		uint32_t segs = n - m * per < per ? n - m * per : per;

		s->iov[m].iov_base = s->buf + ((size_t)first + (size_t)m * per) * st->len;
		s->iov[m].iov_len = (size_t)segs * st->len;
		memset(&s->msgs[m].msg_hdr, 0, sizeof(s->msgs[m].msg_hdr));
		s->msgs[m].msg_hdr.msg_iov = &s->iov[m];
		s->msgs[m].msg_hdr.msg_iovlen = 1;
	}
	for (uint32_t m = 0; m < nmsg;) {
		int r = sendmmsg(st->fd, s->msgs + m, nmsg - m, 0);

		if (r < 0) {
			if (errno == EMSGSIZE && per == 1 && !st->dont_fragment && !retried) {
				/* An ICMP "too big" for an earlier datagram, reported
				 * on this call: the kernel fragments at the new path
				 * MTU from now on. Not the stream's end. */
				st->pmtu_errors++;
				retried = true;
				continue;
			}
			if ((errno == EINVAL || errno == EMSGSIZE) && per > 1) {
				/* GSO refused (a segment above the MTU, which the
				 * kernel would have to fragment): go on without. */
				log_info("stream %u: UDP GSO refused, sending without it", st->id);
				st->gso = false;
				s->segs_per_msg = 1;
				setsockopt(st->fd, IPPROTO_UDP, UDP_SEGMENT, &(int){ 0 },
					   sizeof(int));
				/* the rest of this batch at once, one datagram each */
				return done + send_batch_from(s, first + n, first + done);
			}
			if (errno == ENOBUFS) {
				/* IP_RECVERR: the qdisc dropped it (NET_XMIT_DROP) */
				st->send_refused++;
				done += dropped_locally(st, s, m++, false);
				continue;
			}
			st->send_errors++;
			if (errno == EAGAIN)
				st->send_refused++;
			if (errno != EAGAIN && errno != EINTR && errno != ENOBUFS &&
			    errno != ECONNREFUSED)
				st->err = -errno;
			return done;
		}
		for (int k = 0; k < r; k++)
			done += (uint32_t)(s->iov[m + k].iov_len / st->len);
		m += (uint32_t)r;
		st->send_msgs += (uint64_t)r;
		/* sendmmsg() stopped short: message m failed, and Linux returns
		 * an error only when no message went, so its error is lost.
		 * Sending it again would send it twice when the qdisc already
		 * took it (ENOBUFS, the cause under load): it counts as dropped
		 * here, and attribution looks for it in the qdisc's counter. */
		if (m < nmsg)
			done += dropped_locally(st, s, m++, true);
	}
	return done;
}

static uint32_t send_batch(struct sender *s, uint32_t n)
{
	return send_batch_from(s, n, 0);
}

/* Waits until `due` (CLOCK_MONOTONIC): sleeps for long gaps, spins short ones. */
static void wait_until(const struct udp_stream *st, uint64_t due)
{
	uint64_t now = clock_now_ns();

	if (due > now + SLEEP_MIN_NS)
		clock_sleep_until_ns(due - WAKE_EARLY_NS);
	while (clock_now_ns() < due && !udp_stream_stopped(st))
		cpu_relax();
}

static uint64_t tolerance(const struct udp_stream *st)
{
	uint64_t slot, t;

	if (!st->rate_bps)
		return SEND_TOLERANCE_MIN_NS;
	slot = (uint64_t)st->len * 8 * NSEC_PER_SEC / st->rate_bps;
	t = slot > SEND_TOLERANCE_MAX_NS / SEND_TOLERANCE_SLOTS ? SEND_TOLERANCE_MAX_NS
								: slot * SEND_TOLERANCE_SLOTS;
	return t < SEND_TOLERANCE_MIN_NS ? SEND_TOLERANCE_MIN_NS : t;
}

/* How the last send call went: its wall time, and whether the thread was
 * switched out during it, voluntarily (it slept: the socket's send buffer
 * or the local queue was full) or not (preempted by another task). */
struct send_call {
	uint64_t ns;
	bool slept, preempted;
};

static void thread_switches(long *vol, long *invol)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) == 0) {
		*vol = ru.ru_nvcsw;
		*invol = ru.ru_nivcsw;
	}
}

/* Slots given up: the schedule was `late` behind when the thread got to
 * send. When most of that went into the previous send call, that call held
 * the sender: asleep on the local queue (blocked_send), or busy in the
 * kernel's send path (slow_send: qdisc, softirq work on this CPU); when it
 * was preempted there, or the time went elsewhere, this host did not run
 * the thread on time (late_wakeup). */
static void blame_skip(struct udp_stream *st, uint64_t slots, uint64_t late,
		       const struct send_call *c)
{
	if (c->ns * 2 < late || c->preempted)
		st->skipped_late_wakeup += slots;
	else if (c->slept)
		st->skipped_blocked_send += slots;
	else
		st->skipped_slow_send += slots;
}

/* One phase of the schedule: [from, to) with the given flags. Returns the
 * number of datagrams sent. */
static uint64_t send_phase(struct sender *s, uint64_t from, uint64_t to, uint16_t flags,
			   uint64_t *shortfall)
{
	struct udp_stream *st = s->st;
	struct dgram_hdr h = { .stream = st->id, .flags = flags, .test_id = st->test_id };
	uint64_t burst = 1, seq = 0, next;
	struct send_call call = { 0 };
	struct pacer p;

	s->measuring = !(flags & DGRAM_F_OMIT);
	/* a schedule starts when this thread is ready: thread start-up must
	 * not count as a stall of the first slots */
	if (clock_now_ns() > from)
		from = clock_now_ns();
	if (to <= from || pacer_init(&p, from, to - from, st->rate_bps, st->len, tolerance(st)) < 0)
		return 0;
	/* Slots per burst: enough that bursts are at least BURST_WINDOW_NS
	 * apart, so the thread sleeps between them instead of spinning (a
	 * spinning SCHED_FIFO thread would run into RT throttling). */
	if (st->rate_bps) {
		uint64_t bits = (uint64_t)st->len * 8 * NSEC_PER_SEC;

		burst = (BURST_WINDOW_NS * st->rate_bps + bits - 1) / bits;
	}
	burst = burst < 1 ? 1 : burst > UDP_LOAD_BATCH ? UDP_LOAD_BATCH : burst;
	for (uint32_t i = 0; i < UDP_LOAD_BATCH; i++)
		dgram_put(s->buf + (size_t)i * st->len, st->len, &h);
	while (!udp_stream_stopped(st) && !pacer_done(&p)) {
		uint64_t now = clock_now_ns(), due = pacer_deadline(&p, p.next_slot + burst - 1);
		uint32_t n;

		if (due > now && due < to) {
			wait_until(st, due);
			continue;
		}
		{
			uint64_t skipped = p.skipped, slot_due = pacer_deadline(&p, p.next_slot);

			n = pacer_next(&p, now, UDP_LOAD_BATCH, &next);
			if (p.skipped > skipped && !(flags & DGRAM_F_OMIT)) {
				blame_skip(st, p.skipped - skipped,
					   now > slot_due ? now - slot_due : 0, &call);
				call = (struct send_call){ 0 };
			}
		}
		if (!n) {
			if (next == UINT64_MAX)
				break;
			wait_until(st, next);
			continue;
		}
		now = clock_now_ns();
		for (uint32_t i = 0; i < n; i++)
			dgram_restamp(s->buf + (size_t)i * st->len, st->len, seq + i,
				      now + (uint64_t)st->clock_shift_ns);
		{
			long v0 = 0, i0 = 0, v1 = 0, i1 = 0;

			thread_switches(&v0, &i0);
			n = send_batch(s, n);
			thread_switches(&v1, &i1);
			call = (struct send_call){ .ns = clock_now_ns() - now,
						   .slept = v1 > v0,
						   .preempted = i1 > i0 };
		}
		pacer_consume(&p, n);
		seq += n;
		if (!(flags & DGRAM_F_OMIT))
			atomic_store_explicit(&st->sent, seq, memory_order_relaxed);
		if (st->err)
			break;
	}
	/* the rate is over the whole phase (or up to an early stop), not up to
	 * the last datagram, so that few datagrams do not inflate it */
	if (!(flags & DGRAM_F_OMIT))
		st->send_elapsed_ns =
			(pacer_done(&p) || clock_now_ns() >= to ? to : clock_now_ns()) - from;
	*shortfall = pacer_shortfall(&p, clock_now_ns() < to ? clock_now_ns() : to);
	log_debug("stream %u%s: sent %" PRIu64 ", skipped %" PRIu64 " in %" PRIu64
		  " stalls (%" PRIu64 " late wake-up, %" PRIu64 " slow send, %" PRIu64
		  " blocked send), max late %" PRIu64 " us, send errors %" PRIu64 " (%" PRIu64
		  " refused), err %d%s",
		  st->id, flags & DGRAM_F_OMIT ? " (omit)" : "", seq, p.skipped, p.stalls,
		  st->skipped_late_wakeup, st->skipped_slow_send, st->skipped_blocked_send,
		  p.max_late_ns / 1000, st->send_errors, st->send_refused, st->err,
		  st->sched_policy == SCHED_FIFO ? ", SCHED_FIFO" : "");
	return seq;
}

/* The opt-in SCHED_FIFO (load_spec.h), then what the thread really runs with: it
 * may have inherited a real-time policy from the process (chrt). */
static void thread_sched(struct udp_stream *st, bool may_fifo)
{
	struct sched_param sp = { .sched_priority = LOAD_SCHED_FIFO_PRIO };
	int policy = SCHED_OTHER;

	if (may_fifo && st->realtime && pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
		log_debug("stream %u: SCHED_FIFO refused (not root?): SCHED_OTHER", st->id);
	if (pthread_getschedparam(pthread_self(), &policy, &sp) == 0) {
		st->sched_policy = policy;
		st->sched_prio = sp.sched_priority;
	}
}

static void send_fin(struct sender *s, uint64_t count)
{
	struct udp_stream *st = s->st;
	struct dgram_hdr h = { .stream = st->id,
			       .flags = DGRAM_F_FIN,
			       .seq = count,
			       .send_ns = clock_now_ns() + (uint64_t)st->clock_shift_ns,
			       .test_id = st->test_id };
	uint8_t fin[LOAD_UDP_MIN_LEN] = { 0 };

	dgram_put(fin, sizeof(fin), &h);
	/* the marker is longer than a short datagram: with the socket's
	 * segment size it would leave in two pieces */
	if (st->gso && st->len < sizeof(fin))
		sockopt_udp_gso(st->fd, 0);
	for (int i = 0; i < FIN_COPIES; i++) {
		if (send(st->fd, fin, sizeof(fin), 0) < 0) {
			st->send_errors++;
			if (errno == ENOBUFS) /* the qdisc counted it */
				st->other_by_segs[1]++;
		}
		clock_sleep_until_ns(clock_now_ns() + 200 * NSEC_PER_USEC);
	}
}

static void run_sender(struct udp_stream *st)
{
	struct sender *s = calloc(1, sizeof(*s));
	uint64_t omit_short = 0;

	if (!s || !(s->buf = calloc(UDP_LOAD_BATCH, st->len))) {
		st->err = -ENOMEM;
		free(s);
		return;
	}
	s->st = st;
	s->segs_per_msg = 1;
	/* wake-ups within ~a microsecond of the deadline, not the default 50 us */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (st->gso) {
		uint32_t per = GSO_MAX_BYTES / st->len;

		per = per > GSO_MAX_SEGS ? GSO_MAX_SEGS : per;
		if (per >= 2 && sockopt_udp_gso(st->fd, (uint16_t)st->len))
			s->segs_per_msg = per;
		else
			st->gso = false;
	}
	clock_sleep_until_ns(st->start_ns);
	if (st->omit_end_ns > st->start_ns)
		send_phase(s, st->start_ns, st->omit_end_ns, DGRAM_F_OMIT, &omit_short);
	send_phase(s, st->omit_end_ns, st->end_ns, 0, &st->shortfall);
	st->done_sending = true;
	send_fin(s, atomic_load(&st->sent));
	free(s->buf);
	free(s);
}

/* ---- path MTU ------------------------------------------------------- */

unsigned udp_fragments(uint32_t len, uint32_t mtu, unsigned hdr)
{
	/* each fragment but the last carries a multiple of 8 bytes of the
	 * UDP datagram (header included); IPv6 adds an 8-byte fragment header */
	unsigned ip = hdr == 48 ? 40 + 8 : 20;
	uint64_t per;

	if (!mtu || (uint64_t)len + hdr <= mtu || mtu <= ip + 8)
		return 1;
	per = (mtu - ip) & ~7u;
	return (unsigned)(((uint64_t)len + 8 + per - 1) / per);
}

void udp_fit_error(char *buf, size_t n, uint32_t len, uint32_t mtu, unsigned hdr, const char *dev)
{
	snprintf(buf, n,
		 "datagram of %u B does not fit the path MTU %u%s%s (%u-byte IPv%c packets); "
		 "use -l %u or less, or leave out --dont-fragment to measure it fragmented",
		 len, mtu, dev && dev[0] ? " via " : "", dev ? dev : "", len + hdr,
		 hdr == 48 ? '6' : '4', mtu > hdr ? mtu - hdr : 0);
}

/* ---- thread ---------------------------------------------------------- */

static void *stream_main(void *arg)
{
	struct udp_stream *st = arg;
	struct cpuuse_snap a, b;

	cpuuse_snapshot(CPUUSE_THREAD, &a);
	/* Opt-in: a paced sender preempted by an ordinary task for a time
	 * slice (ms) skips slots; SCHED_FIFO avoids that on a host where no
	 * userspace overlay needs the CPU (a paced sender sleeps between
	 * bursts, an unpaced one never would). It keeps an ordinary task from
	 * holding the receiver off the CPU at multi-Gbit/s, but also holds off
	 * a userspace overlay daemon on this host, which then loses what it
	 * cannot read. */
	thread_sched(st, !st->sender || st->rate_bps != 0);
	if (st->sender)
		run_sender(st);
	else
		udp_recv_run(st);
	cpuuse_snapshot(CPUUSE_THREAD, &b);
	cpuuse_delta(&a, &b, &st->cpu);
	st->path_mtu = sockopt_path_mtu(st->fd);
	atomic_store(&st->finished, true);
	return NULL;
}

int udp_stream_start(struct udp_stream *st, uint32_t sock_buf)
{
	int rc;

	atomic_init(&st->sent, 0);
	atomic_init(&st->rx_bytes, 0);
	atomic_init(&st->rx_packets, 0);
	atomic_init(&st->rx_lost, 0);
	atomic_init(&st->rx_jitter_ns, 0);
	atomic_init(&st->last_rx_ns, 0);
	atomic_init(&st->fin_seen, false);
	atomic_init(&st->finished, false);
	st->err = 0;
	sockopt_nonblock(st->fd, false);
	set_timeouts(st->fd);
	/* sock_buf is the receiver's buffer (what decides UDP loss); a sender
	 * always gets the engine default, so that -w never starves it */
	sockopt_set_bufs(st->fd, st->sender ? 0 : sock_buf, st->sender, !st->sender);
	if (st->sender)
		set_recverr(st->fd);
	if (st->sender && sockopt_dont_fragment(st->fd, st->dont_fragment) < 0 && st->dont_fragment)
		return -EOPNOTSUPP;
	if (!st->sender) {
		st->rx = malloc(sizeof(*st->rx));
		if (!st->rx)
			return -ENOMEM;
		rxstats_init(st->rx);
		sockopt_rxq_ovfl(st->fd);
		sockopt_rx_timestamps(st->fd);
		if (st->gro && !sockopt_udp_gro(st->fd))
			st->gro = false;
		sockloss_init(&st->sockloss, st->rxq_ovfl_start, st->gro);
	}
	rc = pthread_create(&st->thread, NULL, stream_main, st);
	if (rc)
		return -rc;
	st->running = true;
	return 0;
}

void udp_stream_join(struct udp_stream *st)
{
	if (!st->running)
		return;
	pthread_join(st->thread, NULL);
	st->running = false;
}

void udp_stream_free(struct udp_stream *st)
{
	free(st->rx);
	st->rx = NULL;
}

void udp_streams_sample(const struct udp_stream *st, unsigned n, bool sender,
			struct proto_interval *cum)
{
	memset(cum, 0, sizeof(*cum));
	for (unsigned i = 0; i < n; i++) {
		if (sender) {
			uint64_t sent = atomic_load_explicit(&st[i].sent, memory_order_relaxed);

			cum->packets += sent;
			cum->bytes += sent * st[i].len;
		} else {
			cum->packets +=
				atomic_load_explicit(&st[i].rx_packets, memory_order_relaxed);
			cum->bytes += atomic_load_explicit(&st[i].rx_bytes, memory_order_relaxed);
			cum->lost += atomic_load_explicit(&st[i].rx_lost, memory_order_relaxed);
		}
	}
}
