// SPDX-License-Identifier: MIT
/* Sender's view + receiver's view -> struct load_result (client side). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuuse.h"
#include "load_merge.h"
#include "netcounters.h"
#include "pacer.h"
#include "rxstats.h"

static uint64_t bps(uint64_t bytes, uint64_t ns)
{
	return ns ? (uint64_t)((double)bytes * 8.0 * 1e9 / (double)ns) : 0;
}

static void tcp_info_get(const struct proto_stream_stats *s, struct tcp_info_summary *t)
{
	t->retransmits = s->tcp_retransmits;
	t->rtt_us = s->tcp_rtt_us;
	t->rttvar_us = s->tcp_rttvar_us;
	t->snd_mss = s->tcp_snd_mss;
	t->adv_mss = s->tcp_adv_mss;
	t->rcv_mss = s->tcp_rcv_mss;
	t->pmtu = s->tcp_pmtu;
	t->snd_cwnd = s->tcp_snd_cwnd;
}

static void limits_get(const struct proto_results *r, struct tcp_end_limits *l)
{
	const struct proto_tcp_limits *x = &r->tcp_limits;

	memset(l, 0, sizeof(*l));
	if (!r->has_tcp_limits)
		return;
	*l = (struct tcp_end_limits){ .known = true,
				      .chrono = x->flags & PROTO_TL_CHRONO,
				      .sysctl = x->flags & PROTO_TL_SYSCTL,
				      .streams = x->streams,
				      .window_s = (double)x->window_us / 1e6,
				      .busy_s = (double)x->busy_us / 1e6,
				      .rwnd_limited_s = (double)x->rwnd_limited_us / 1e6,
				      .sndbuf_limited_s = (double)x->sndbuf_limited_us / 1e6,
				      .bytes_sent = x->bytes_sent,
				      .bytes_retrans = x->bytes_retrans,
				      .delivery_bps = x->delivery_Bps * 8,
				      .app_limited_streams = x->app_limited_streams,
				      .min_rtt_us = x->min_rtt_us,
				      .rtt_median_us = x->rtt_median_us,
				      .snd_wnd = x->snd_wnd,
				      .sock_sndbuf = x->sock_sndbuf,
				      .sock_rcvbuf = x->sock_rcvbuf,
				      .tcp_rmem_max = x->tcp_rmem_max,
				      .tcp_wmem_max = x->tcp_wmem_max,
				      .rmem_max = x->rmem_max,
				      .wmem_max = x->wmem_max,
				      .thread_cpu = (double)x->thread_cpu_permille / 1000,
				      .rcv_space = x->rcv_space };
}

/* Where a TCP test's segments may have gone: each end's host counters and
 * the sender's qdiscs over the test. */
static void drops_get(const struct proto_results *snd, const struct proto_results *rcv,
		      struct tcp_drops *d)
{
	memset(d, 0, sizeof(*d));
	d->known = true;
	d->sender_link_tx = snd->host.link_tx_drops;
	d->receiver_link_rx = rcv->host.link_rx_drops;
	d->receiver_udp_drops = rcv->host.udp_rcvbuf_errors;
	d->backlog = snd->host.softnet_drops + rcv->host.softnet_drops;
	d->tunnel = (snd->has_local_drops ? snd->local.tunnel_drops : 0) +
		    (rcv->has_local_drops ? rcv->local.tunnel_drops : 0);
	if (!snd->has_local_drops || !(snd->local.flags & PROTO_LD_QDISC_READ))
		return;
	d->qdisc_read = true;
	d->qdisc_drops = snd->local.qdisc_drops;
	d->qdisc_held = snd->local.qdisc_held;
	snprintf(d->qdisc_kind, sizeof(d->qdisc_kind), "%s", snd->local.qdisc_kind);
	snprintf(d->qdisc_if, sizeof(d->qdisc_if), "%s", snd->local.qdisc_if);
}

static void merge_tcp(const struct proto_results *snd, const struct proto_results *rcv,
		      struct load_result *res)
{
	/* Goodput is what arrived, over the receiver's measured time. */
	uint64_t dur = rcv->duration_ns ? rcv->duration_ns : snd->duration_ns;

	for (unsigned i = 0; i < res->nstreams; i++) {
		struct load_stream_result *s = &res->streams[i];

		s->bytes = i < rcv->nstreams ? rcv->streams[i].bytes : 0;
		s->bps = bps(s->bytes, dur);
		s->sent_bytes = i < snd->nstreams ? snd->streams[i].bytes : 0;
		if (i < snd->nstreams)
			tcp_info_get(&snd->streams[i], &s->tcp_sender);
		if (i < rcv->nstreams)
			tcp_info_get(&rcv->streams[i], &s->tcp_receiver);
	}
	res->tcp.bytes = rcv->total.bytes;
	res->tcp.sent_bytes = snd->total.bytes;
	res->tcp.goodput_bps = bps(res->tcp.bytes, dur);
	tcp_info_get(&snd->total, &res->tcp.sender);
	tcp_info_get(&rcv->total, &res->tcp.receiver);
	limits_get(snd, &res->tcp.sender_limits);
	limits_get(rcv, &res->tcp.receiver_limits);
	drops_get(snd, rcv, &res->tcp.drops);
	res->duration_s = (double)dur / 1e9;
}

static void owd_get(const struct proto_stream_stats *s, bool valid, struct owd_summary *o)
{
	memset(o, 0, sizeof(*o));
	o->valid = valid && (s->flags & PROTO_SS_OWD_VALID);
	if (!o->valid)
		return;
	o->min_ns = s->owd_min_ns;
	o->p50_ns = s->owd_p50_ns;
	o->p99_ns = s->owd_p99_ns;
	o->max_ns = s->owd_max_ns;
	o->mean_ns = s->owd_mean_ns;
}

/* One host's clock: exact whatever the two ends' clocks say. */
static void rx_wait_get(const struct proto_results *rcv, struct owd_summary *o)
{
	memset(o, 0, sizeof(*o));
	o->valid = rcv->has_rx_wait && rcv->rx_wait.samples;
	if (!o->valid)
		return;
	o->min_ns = rcv->rx_wait.min_ns;
	o->p50_ns = rcv->rx_wait.p50_ns;
	o->p99_ns = rcv->rx_wait.p99_ns;
	o->max_ns = rcv->rx_wait.max_ns;
	o->mean_ns = rcv->rx_wait.mean_ns;
}

static void udp_one(const struct proto_stream_stats *snd, const struct proto_stream_stats *rcv,
		    uint64_t target, uint32_t len, uint64_t dur, bool owd_valid,
		    struct udp_result *u)
{
	u->len = len;
	u->target_bps = target;
	u->sent = snd->sent;
	u->received = rcv->received;
	/* received counts each sequence once, so sent = received + lost holds */
	u->lost = u->sent > u->received ? u->sent - u->received : 0;
	u->duplicates = rcv->duplicates;
	u->reordered = rcv->reordered;
	u->malformed = rcv->malformed;
	u->achieved_bps = bps(u->sent * len, dur);
	u->received_bps = bps(u->received * len, dur);
	u->sent_pps = dur ? (uint64_t)((double)u->sent * 1e9 / (double)dur) : 0;
	u->received_pps = dur ? (uint64_t)((double)u->received * 1e9 / (double)dur) : 0;
	u->jitter_ms = (double)rcv->jitter_ns / 1e6;
	owd_get(rcv, owd_valid, &u->owd);
	u->generator_limited = pacer_generator_limited(target, u->achieved_bps);
}

/* What a queued datagram costs in a receive buffer beyond its payload: the
 * skb's truesize (struct sk_buff, skb_shared_info, headers, alignment) */
#define RCVBUF_PER_DGRAM_OVERHEAD 768u

/* SO_RCVBUF (as the kernel reports it: twice what -w sets) that would have
 * held the datagrams that overflowed, on top of what the socket had. A
 * buffer that must hold more than a second of the offered rate does not
 * absorb a burst: the receiver fell behind the rate throughout (0). */
static uint32_t rcvbuf_need(uint64_t ovfl, uint64_t pps, uint32_t len, uint32_t have)
{
	uint64_t per = (uint64_t)len + RCVBUF_PER_DGRAM_OVERHEAD, need;

	if (!ovfl || ovfl > pps)
		return 0;
	need = (uint64_t)have + ovfl * per;
	return need > UINT32_MAX ? UINT32_MAX : (uint32_t)need;
}

/* The receive socket's datagrams: the receiver's booking, and, when the end
 * marker was dropped with the last datagrams, those the sender says are
 * missing beyond the receiver's count, up to what the packets the socket
 * dropped after its last read can hold (sockloss.h). */
static uint64_t socket_dgrams(const struct proto_results *rcv, uint64_t lost)
{
	const struct proto_sock_drops *sd = &rcv->sock_drops;
	uint64_t tail, most;

	if (!rcv->has_sock_drops)
		return rcv->total.rxq_ovfl;
	tail = lost > rcv->total.lost ? lost - rcv->total.lost : 0;
	most = (uint64_t)sd->tail_skbs * (sd->flags & PROTO_SD_GRO ? 64u : 1u);
	return sd->dgrams + (tail < most ? tail : most);
}

static void loss_attribution(const struct proto_results *snd, const struct proto_results *rcv,
			     struct udp_result *u)
{
	struct loss_inputs in = {
		.lost = u->lost,
		.sender_sndbuf = snd->host.udp_sndbuf_errors,
		/* failed sends were never counted as sent: they explain no loss */
		.sender_send_errors = snd->total.send_errors,
		.sender_link_tx = snd->host.link_tx_drops,
		.receiver_rcvbuf = rcv->host.udp_rcvbuf_errors,
		.receiver_inerrors = rcv->host.udp_in_errors,
		/* one machine's count: the client's own (the far end's is not
		 * on the wire; in a lab both ends are that machine) */
		.backlog = snd->host.softnet_drops + rcv->host.softnet_drops,
		/* the same figure; an older receiver sends only the field,
		 * where it scaled packets by their mean size */
		.receiver_rxq_ovfl = socket_dgrams(rcv, u->lost),
		.receiver_link_rx = rcv->host.link_rx_drops,
		.has_local = snd->has_local_drops,
		.qdisc_read = snd->local.flags & PROTO_LD_QDISC_READ,
		.qdisc_drops = snd->local.qdisc_drops,
		.refused_dgrams = snd->local.refused_dgrams,
		.hidden_dgrams = snd->local.hidden_dgrams,
		.sndbuf_unseen = snd->local.sndbuf_unseen,
		.qdisc_units = snd->local.qdisc_units,
		.other_units = snd->local.other_units,
		.tunnel_drops = snd->local.tunnel_drops + rcv->local.tunnel_drops,
	};
	struct loss_attrib *l = &u->loss_at;

	netcounters_attribute(&in, l);
	snprintf(l->qdisc_kind, sizeof(l->qdisc_kind), "%s", snd->local.qdisc_kind);
	snprintf(l->qdisc_if, sizeof(l->qdisc_if), "%s", snd->local.qdisc_if);
	l->sender_txqlen = snd->local.txqlen;
	l->backlog_max = snd->host.backlog_max ? snd->host.backlog_max : rcv->host.backlog_max;
	l->qdisc_packets = snd->local.qdisc_drops;
	l->refused_dgrams = snd->local.refused_dgrams;
	l->hidden_dgrams = snd->local.hidden_dgrams;
	l->socket_packets_known = rcv->has_sock_drops;
	l->socket_packets = rcv->sock_drops.skbs;
	if (rcv->has_sock_owner) {
		snprintf(l->other_owner, sizeof(l->other_owner), "%s", rcv->sock_owner.comm);
		l->other_pid = rcv->sock_owner.pid;
		l->other_port = rcv->sock_owner.port;
		l->other_family = rcv->sock_owner.family;
		l->other_drops = rcv->sock_owner.drops;
	}
	l->rcvbuf_bytes = rcv->rcvbuf_bytes;
	l->rcvbuf_need_bytes =
		rcvbuf_need(l->receiver_socket, u->sent_pps, u->len, l->rcvbuf_bytes);
}

/* The receiver's own rate, first to last arrival (the receiver's results
 * carry that window as their duration; 0 from a receiver that reports
 * none): beside the received rate over the sender's window, which udp_one()
 * took, it says whether the path queued what it did not forward. */
static void arrival_rate(uint64_t window_ns, uint32_t len, struct udp_result *u)
{
	u->arrival_bps = rxstats_window_bps(u->received, len, window_ns);
}

/* The receiver's window beyond the sender's (load_result.h): both count
 * first to last datagram of the test, so what the receiver's is longer by
 * is the last one-way delay beyond the first. */
static void queue_growth(uint64_t rx_window_ns, uint64_t tx_window_ns, struct udp_result *u)
{
	u->queue_growth_ms = u->arrival_bps && rx_window_ns > tx_window_ns
				     ? (double)(rx_window_ns - tx_window_ns) / 1e6
				     : 0;
}

static void merge_udp(const struct proto_results *snd, const struct proto_results *rcv,
		      bool owd_valid, struct load_result *res)
{
	const struct load_spec *sp = &res->spec;
	uint64_t dur = snd->duration_ns, per = sp->rate_bps / (sp->streams ? sp->streams : 1);
	static const struct proto_stream_stats none;

	/* No sender's figures (the server died in a reverse test): the
	 * receiving threads' wall time is the time really measured. */
	if (!dur)
		dur = rcv->cpu_wall_ns ? rcv->cpu_wall_ns : sp->duration_ns;
	for (unsigned i = 0; i < res->nstreams; i++) {
		struct load_stream_result *s = &res->streams[i];

		udp_one(i < snd->nstreams ? &snd->streams[i] : &none,
			i < rcv->nstreams ? &rcv->streams[i] : &none, per, sp->len, dur, owd_valid,
			&s->udp);
		arrival_rate(rcv->duration_ns, sp->len, &s->udp);
		s->bytes = s->udp.received * sp->len;
		s->bps = s->udp.received_bps;
	}
	udp_one(&snd->total, &rcv->total, sp->rate_bps, sp->len, dur, owd_valid, &res->udp);
	rx_wait_get(rcv, &res->udp.rx_wait);
	arrival_rate(rcv->duration_ns, sp->len, &res->udp);
	queue_growth(rcv->duration_ns, dur, &res->udp);
	loss_attribution(snd, rcv, &res->udp);
	res->udp_gso_used = snd->flags & PROTO_SS_GSO;
	res->udp_gro_used = rcv->flags & PROTO_SS_GRO;
	res->rcvbuf_bytes = rcv->rcvbuf_bytes;
	res->duration_s = (double)dur / 1e9;
}

static void cpu_get(const struct proto_results *r, struct cpu_use *c)
{
	c->user_s = (double)r->cpu_user_ns / 1e9;
	c->sys_s = (double)r->cpu_sys_ns / 1e9;
	c->wall_s = (double)r->cpu_wall_ns / 1e9;
}

int load_merge(const struct proto_results *snd, const struct proto_results *rcv, bool owd_valid,
	       struct load_result *res)
{
	uint64_t sent_bits, recv_bits;

	res->nstreams = res->spec.streams;
	free(res->streams);
	res->streams = calloc(res->nstreams ? res->nstreams : 1, sizeof(*res->streams));
	if (!res->streams)
		return -ENOMEM;
	if (res->spec.proto == LOAD_UDP) {
		merge_udp(snd, rcv, owd_valid, res);
		sent_bits = res->udp.sent * res->spec.len * 8;
		recv_bits = res->udp.received * res->spec.len * 8;
	} else {
		merge_tcp(snd, rcv, res);
		sent_bits = snd->total.bytes * 8;
		recv_bits = res->tcp.bytes * 8;
	}
	res->sender_duration_s = (double)snd->duration_ns / 1e9;
	res->receiver_duration_s = (double)rcv->duration_ns / 1e9;
	cpu_get(snd, &res->cpu_sender);
	cpu_get(rcv, &res->cpu_receiver);
	res->sender_cpu_s_per_gbit = cpuuse_s_per_gbit(&res->cpu_sender, sent_bits);
	res->receiver_cpu_s_per_gbit = cpuuse_s_per_gbit(&res->cpu_receiver, recv_bits);
	return 0;
}
