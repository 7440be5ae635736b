/* SPDX-License-Identifier: MIT */
/*
 * The datagrams a receive socket dropped, booked from what its reader sees.
 *
 * Linux stamps each skb it queues on a UDP socket with the socket's drop
 * count so far (sk_drops, read back with SO_RXQ_OVFL on every recvmsg), and
 * counts a dropped skb once, whatever it holds (net/ipv4/udp.c
 * __udp_enqueue_schedule_skb; RcvbufErrors likewise, once per skb in
 * __udp_queue_rcv_skb). With UDP_GRO on the socket an skb is up to
 * UDP_GRO_CNT_MAX (64) consecutive datagrams of one flow, so the counters
 * are in skbs, not datagrams. Without it the kernel splits a GRO skb before
 * queueing (udp_rcv_segment), and one skb is one datagram.
 *
 * Between two queued skbs the socket dropped exactly the rise of their
 * stamps. The datagrams missing between them (the gap in the stream's
 * sequence numbers before the later one) are the socket's when the stamp
 * rose, up to the most those skbs can hold, and were lost elsewhere when it
 * did not. A rise with no gap dropped datagrams outside the measured stream
 * (warm-up, end markers). The end of the test closes the last interval with
 * the count read then (SO_MEMINFO) and the datagrams missing after the last
 * one received.
 */
#ifndef OVLPERF_SOCKLOSS_H
#define OVLPERF_SOCKLOSS_H

#include <stdbool.h>
#include <stdint.h>

/* UDP GRO coalesces at most this many datagrams into one skb (the kernel's
 * UDP_GRO_CNT_MAX). */
#define SOCKLOSS_GRO_MAX_SEGS 64u
/* Packets read after which an unmatched rise or gap is given up. */
#define SOCKLOSS_CARRY 64u

struct sockloss {
	uint32_t last;		      /* the drop count of the last skb (or the start) */
	uint32_t per_skb;	      /* datagrams one skb holds at most */
	uint64_t skbs;		      /* skbs the socket dropped (the count's rises) */
	uint64_t dgrams;	      /* datagrams booked to the socket */
	uint64_t pend_gap, pend_rise; /* not matched yet */
	uint32_t quiet;		      /* packets read since either */
	uint32_t end_rise;	      /* the rise at the end with no gap seen: the
				       * stream's end marker was lost too, so only the
				       * sender knows what is missing after the last
				       * datagram read */
};

/* start: the socket's drop count when the test began; gro: UDP_GRO is on
 * the socket (an skb holds up to SOCKLOSS_GRO_MAX_SEGS datagrams). */
void sockloss_init(struct sockloss *s, uint32_t start, bool gro);

/* One queued skb read (or the end of the test): its drop stamp and the
 * datagrams of the stream that went missing before it since the last
 * one. */
void sockloss_step(struct sockloss *s, uint32_t drops, uint64_t gap);

/* The end of the test: the count read then and the datagrams missing after
 * the last one read (0 when the end marker, which tells them, was lost). */
void sockloss_end(struct sockloss *s, uint32_t drops, uint64_t gap);

#endif
