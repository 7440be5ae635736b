// SPDX-License-Identifier: MIT
/* UDP data streams: the batched receiver (recvmmsg(), UDP GRO split by the
 * cmsg's gso_size), its accounting into rxstats, the one-way delay from the
 * sender's stamps and the socket's drops. The sender is udp_send.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include "clock.h"
#include "proto.h"
#include "sockopt.h"
#include "udp_load.h"

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

#define RECV_GRO_BUF  65536u
#define RECV_GRO_MSGS 16
#define DRAIN_MAX_NS  (200 * NSEC_PER_MSEC) /* reading what is queued at the end */

struct receiver {
	struct udp_stream *st;
	/* CLOCK_MONOTONIC and CLOCK_REALTIME when the receiver began: the wait
	 * in the socket is a difference of REALTIME stamps (the kernel's clock
	 * for them), and REALTIME may run at another rate than MONOTONIC while
	 * it is being corrected (seen: 5000 ppm faster on a virtual machine, so
	 * a 578 ms wait read as 580.9 ms); the wait is scaled by the rates seen
	 * since then. */
	uint64_t mono0, real0;
	uint32_t msg_size, nmsg;
	uint8_t *buf;
	struct mmsghdr msgs[UDP_LOAD_BATCH];
	struct iovec iov[UDP_LOAD_BATCH];
	uint8_t ctrl[UDP_LOAD_BATCH][CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(uint32_t)) +
				     CMSG_SPACE(sizeof(struct timespec))];
};

static uint64_t sub0(uint64_t b, uint64_t a)
{
	return b > a ? b - a : 0;
}

/* Datagrams of the stream missing so far (below the highest seq seen). */
static uint64_t missing(const struct rxstats *rx)
{
	return sub0(rx->seq_span, rx->received);
}

static void account(struct udp_stream *st, const uint8_t *p, size_t len, uint64_t now)
{
	struct dgram_hdr h;

	if (!dgram_parse(p, len, &h)) {
		struct proto_data_hello dh;

		/* a repeated greeting of this stream is not malformed traffic */
		if (proto_decode_data_hello(p, len, &dh) == 0 && dh.test_id == st->test_id)
			return;
		rxstats_malformed(st->rx);
		return;
	}
	if (!dgram_is_of(&h, st->test_id, (uint16_t)st->id)) {
		st->foreign++;
		return;
	}
	/* a short header's seq and stamp, whole again (proto.h) */
	dgram_widen(&h, st->rx->any ? st->rx->highest : 0, now - (uint64_t)st->clock_shift_ns);
	if (h.flags & DGRAM_F_FIN) {
		st->fin_count = h.seq;
		atomic_store(&st->fin_seen, true);
	} else if (h.flags & DGRAM_F_OMIT) {
		st->omitted++;
	} else {
		/* the window counts the kernel's arrival, not the read */
		uint64_t at = st->rx_stamped && st->rx_wait_ns < now ? now - st->rx_wait_ns : now;

		rxstats_add(st->rx, h.seq, h.send_ns + (uint64_t)st->clock_shift_ns, now, at,
			    (uint32_t)len);
		if (st->rx_stamped)
			rxstats_wait_add(st->rx, st->rx_wait_ns);
	}
}

/* MONOTONIC and REALTIME at one moment: the read with the shortest gap
 * between two MONOTONIC reads around the REALTIME one, of a few (a
 * preemption between them would shift the rate measured from it) */
static void clock_pair(uint64_t *mono, uint64_t *real)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 8 && best > 20000; i++) {
		uint64_t m1 = clock_now_ns(), r = clock_realtime_ns(), m2 = clock_now_ns();

		if (m2 - m1 < best) {
			best = m2 - m1;
			*mono = m1 + (m2 - m1) / 2;
			*real = r;
		}
	}
}

/* A REALTIME interval in MONOTONIC nanoseconds (struct receiver): scaled by
 * how the two clocks advanced since the receiver began, once that is long
 * enough to tell (100 ms); a rate off by more than 1 % is a step, not a
 * correction, and is left alone. */
static uint64_t real_interval_mono(const struct receiver *r, uint64_t d, uint64_t now,
				   uint64_t real_now)
{
	double dm = (double)(now - r->mono0), dr = (double)real_now - (double)r->real0, k;

	if (dm < 1e8 || dr <= 0)
		return d;
	k = dm / dr;
	return k > 0.99 && k < 1.01 ? (uint64_t)((double)d * k) : d;
}

/* now: CLOCK_MONOTONIC, for the one-way delay; real_now: CLOCK_REALTIME,
 * the clock of the kernel's receive stamp, for the wait in the socket */
static void handle_msg(struct receiver *r, struct mmsghdr *m, uint64_t now, uint64_t real_now)
{
	struct udp_stream *st = r->st;
	const uint8_t *p = m->msg_hdr.msg_iov->iov_base;
	size_t len = m->msg_len, seg = len;
	uint64_t at;

	/* a clock step between the two stamps: no sample */
	st->rx_stamped = sockopt_rx_stamp(m->msg_hdr.msg_control, m->msg_hdr.msg_controllen, &at) &&
			 at && at <= real_now;
	st->rx_wait_ns = st->rx_stamped ? real_interval_mono(r, real_now - at, now, real_now) : 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m->msg_hdr); c; c = CMSG_NXTHDR(&m->msg_hdr, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
			memcpy(&st->rxq_ovfl, CMSG_DATA(c), sizeof(uint32_t));
		} else if (c->cmsg_level == IPPROTO_UDP && c->cmsg_type == UDP_GRO) {
			int gs;

			memcpy(&gs, CMSG_DATA(c), sizeof(gs));
			if (gs > 0)
				seg = (size_t)gs;
		}
	}
	if (m->msg_hdr.msg_flags & MSG_TRUNC) {
		rxstats_malformed(st->rx);
		return;
	}
	udp_stream_rx_packet(st, p, len, seg, now);
}

void udp_stream_rx_packet(struct udp_stream *st, const uint8_t *p, size_t len, size_t seg,
			  uint64_t now)
{
	if (!seg || seg > len)
		seg = len;
	if (!len)
		return;
	st->rx_skbs++;
	st->rx_segs += (len + seg - 1) / seg;
	st->rx_segs_sq += (uint64_t)((len + seg - 1) / seg) * ((len + seg - 1) / seg);
	for (size_t off = 0; off < len; off += seg) {
		uint64_t before = missing(st->rx);

		account(st, p + off, len - off < seg ? len - off : seg, now);
		/* the gap before the packet's first datagram is where the
		 * socket may have dropped packets (sockloss.h); gaps inside a
		 * GRO packet were lost before it was queued whole */
		if (off == 0)
			sockloss_step(&st->sockloss, st->rxq_ovfl, sub0(missing(st->rx), before));
	}
}

static void publish(struct udp_stream *st, uint64_t now)
{
	struct rxstats_snapshot snap;

	rxstats_snapshot(st->rx, &snap);
	atomic_store_explicit(&st->rx_bytes, snap.bytes, memory_order_relaxed);
	atomic_store_explicit(&st->rx_packets, snap.received, memory_order_relaxed);
	atomic_store_explicit(&st->rx_lost, snap.lost_so_far, memory_order_relaxed);
	atomic_store_explicit(&st->rx_jitter_ns, (uint64_t)snap.jitter_ns, memory_order_relaxed);
	atomic_store_explicit(&st->last_rx_ns, now, memory_order_relaxed);
}

static void setup_msgs(struct receiver *r)
{
	for (uint32_t i = 0; i < r->nmsg; i++) {
		r->iov[i].iov_base = r->buf + (size_t)i * r->msg_size;
		r->iov[i].iov_len = r->msg_size;
		memset(&r->msgs[i].msg_hdr, 0, sizeof(r->msgs[i].msg_hdr));
		r->msgs[i].msg_hdr.msg_iov = &r->iov[i];
		r->msgs[i].msg_hdr.msg_iovlen = 1;
		r->msgs[i].msg_hdr.msg_control = r->ctrl[i];
		r->msgs[i].msg_hdr.msg_controllen = sizeof(r->ctrl[i]);
	}
}

/* Reads what the socket already holds when the receiver is told to stop.
 * The end of a test is called from another thread (FINs seen, then quiet):
 * a receiver thread the scheduler held off falls behind its socket, and
 * the datagrams still queued there arrived before the end; left unread
 * they would count as lost, in "the network". Bounded, so that traffic that
 * keeps coming (another sender) cannot hold the test open. */
static void drain(struct receiver *r)
{
	uint64_t until = clock_now_ns() + DRAIN_MAX_NS;

	while (clock_now_ns() < until) {
		int n;

		setup_msgs(r);
		n = recvmmsg(r->st->fd, r->msgs, r->nmsg, MSG_DONTWAIT, NULL);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		uint64_t now = clock_now_ns(), real_now = clock_realtime_ns();

		for (int i = 0; i < n; i++)
			handle_msg(r, &r->msgs[i], now, real_now);
		publish(r->st, now);
	}
}

/* The socket's drop counter now. SO_RXQ_OVFL reports it only on a datagram
 * that was received, so drops after the last one (a buffer still full at
 * the end) would go unseen; SO_MEMINFO reads the same counter (sk_drops)
 * at any time. */
static void final_drops(struct udp_stream *st)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mi);

	if (getsockopt(st->fd, SOL_SOCKET, SO_MEMINFO, mi, &len) == 0 &&
	    len >= (SK_MEMINFO_DROPS + 1) * sizeof(uint32_t) && mi[SK_MEMINFO_DROPS] > st->rxq_ovfl)
		st->rxq_ovfl = mi[SK_MEMINFO_DROPS];
	/* the datagrams missing after the last one read */
	sockloss_end(&st->sockloss, st->rxq_ovfl,
		     sub0(rxstats_lost(st->rx, st->fin_count), missing(st->rx)));
}

void udp_recv_run(struct udp_stream *st)
{
	struct receiver *r = calloc(1, sizeof(*r));

	if (!r) {
		st->err = -ENOMEM;
		return;
	}
	r->st = st;
	clock_pair(&r->mono0, &r->real0);
	/* +1: see MSG_TRUNC; at least a full header: the end marker (and a
	 * late greeting echo) of a test of short datagrams has one */
	r->msg_size =
		st->gro ? RECV_GRO_BUF : (st->len > DGRAM_HDR_LEN ? st->len : DGRAM_HDR_LEN) + 1;
	r->nmsg = st->gro ? RECV_GRO_MSGS : UDP_LOAD_BATCH;
	r->buf = malloc((size_t)r->msg_size * r->nmsg);
	if (!r->buf) {
		st->err = -ENOMEM;
		free(r);
		return;
	}
	while (!udp_stream_stopped(st)) {
		int n;

		setup_msgs(r);
		n = recvmmsg(st->fd, r->msgs, r->nmsg, MSG_WAITFORONE, NULL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED)
				continue;
			st->err = -errno;
			break;
		}
		uint64_t now = clock_now_ns(), real_now = clock_realtime_ns();

		for (int i = 0; i < n; i++)
			handle_msg(r, &r->msgs[i], now, real_now);
		publish(st, now);
	}
	if (!st->err) {
		drain(r);
		final_drops(st);
	}
	free(r->buf);
	free(r);
}
