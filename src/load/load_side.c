// SPDX-License-Identifier: MIT
/* One end's own results of a test, as exchanged in RESULTS. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>

#include "clock.h"
#include "load_side.h"
#include "load_tunnel.h"
#include "log.h"
#include "sockopt.h"

static void tunnel_begin(struct load_side *side)
{
	unsigned ndev = 0;

	side->have_tunnel = load_tunnel_read(&side->traffic_before, &ndev) == 0 && ndev > 0;
}

static uint64_t delta(uint64_t before, uint64_t after)
{
	return after > before ? after - before : 0;
}

/* The daemons' counters once their queues are through: a datagram the test
 * wrote last may still wait in the TUN queue when the streams end, and one
 * it received in the daemon's underlay socket, its drop not counted yet
 * (a daemon that a busy machine left waiting). Read again while a daemon
 * has a socket with a datagram unread or its counters moved since the last
 * read, TUNNEL_SETTLE_NS apart, at most TUNNEL_SETTLE_TRIES times. */
#define TUNNEL_SETTLE_NS    (20 * NSEC_PER_MSEC)
#define TUNNEL_SETTLE_TRIES 50
static bool tunnel_moved(const struct load_tunnel_traffic *a, const struct load_tunnel_traffic *b)
{
	return a->tx_datagrams != b->tx_datagrams || a->rx_datagrams != b->rx_datagrams ||
	       a->drops != b->drops;
}

/* First thing when the streams have ended, before the host's counters
 * are read. */
static void tunnel_settle(struct load_side *side)
{
	struct load_tunnel_traffic prev, *t = &side->traffic_after;
	unsigned ndev = 0;
	int rc;

	side->have_tunnel_after = false;
	if (!side->have_tunnel)
		return;
	rc = load_tunnel_read(t, &ndev);
	for (int i = 0; rc == 0 && ndev && i < TUNNEL_SETTLE_TRIES; i++) {
		prev = *t;
		clock_sleep_until_ns(clock_now_ns() + TUNNEL_SETTLE_NS);
		rc = load_tunnel_read(t, &ndev);
		if (!tunnel_moved(&prev, t) && !t->rx_waiting)
			break;
	}
	side->have_tunnel_after = rc == 0 && ndev;
}

/* The built-in overlay daemons' drops over the test, at either end, and
 * the outer datagrams this end's daemons sent (sender) or received. */
static void tunnel_end(struct load_side *side, bool udp_sender, struct proto_results *out)
{
	const struct load_tunnel_traffic *t = &side->traffic_after;
	const struct load_tunnel_traffic *b = &side->traffic_before;

	if (!side->have_tunnel_after)
		return;
	out->has_local_drops = true;
	out->local.flags |= PROTO_LD_TUNNEL_READ;
	out->local.tunnel_drops = delta(b->drops, t->drops);
	side->outer = (struct udp_outer){
		.ip_version = t->ip_version,
		.received = !udp_sender,
		.datagrams = udp_sender ? delta(b->tx_datagrams, t->tx_datagrams)
					: delta(b->rx_datagrams, t->rx_datagrams),
		.bytes = udp_sender ? delta(b->tx_bytes, t->tx_bytes)
				    : delta(b->rx_bytes, t->rx_bytes),
	};
}

void load_side_begin(struct load_side *side, int family)
{
	memset(side, 0, sizeof(*side));
	side->family = family;
	netcounters_init(&side->before);
	side->have_before = netcounters_read(&side->before) == 0;
	if (!side->have_before)
		log_warn("host counters unreadable: loss will not be localised");
	side->have_qdisc_before = qdiscstats_read(&side->qdisc_before) == 0;
	side->have_socks_before = udpsock_read(&side->socks_before) == 0;
	tunnel_begin(side);
}

/* Receiver: the other socket of this host whose drops rose most over the
 * test (a VPN daemon's, say), and who holds it; not the test's own. */
static void sock_owner(const struct load_side *side, const struct udp_stream *st, unsigned n,
		       struct proto_results *out)
{
	struct udpsock_table *after = malloc(sizeof(*after));
	uint64_t skip[PROTO_MAX_STREAMS];
	unsigned nskip = 0;
	struct udpsock_owner o;

	memset(&out->sock_owner, 0, sizeof(out->sock_owner));
	out->has_sock_owner = false;
	if (!after || !side->have_socks_before || udpsock_read(after) < 0)
		goto out;
	for (unsigned i = 0; i < n && nskip < PROTO_MAX_STREAMS; i++) {
		struct stat sb;

		if (st[i].fd >= 0 && fstat(st[i].fd, &sb) == 0)
			skip[nskip++] = (uint64_t)sb.st_ino;
	}
	if (!udpsock_top_riser(&side->socks_before, after, skip, nskip, &o))
		goto out;
	udpsock_owner_process("/proc", &o);
	out->sock_owner = (struct proto_sock_owner){ .pid = (uint32_t)o.pid,
						     .port = o.port,
						     .family = o.family,
						     .drops = o.drops,
						     .inode = o.inode };
	snprintf(out->sock_owner.comm, sizeof(out->sock_owner.comm), "%s", o.comm);
	/* the drops of every other socket, that one's among them */
	out->sock_owner.others = udpsock_rises(&side->socks_before, after, skip, nskip);
	out->has_sock_owner = true;
out:
	free(after);
}

/* Kernel drop counters count packets; with GSO/GRO a packet carries several
 * datagrams. Scale by the mean datagrams per packet this end saw (x1000
 * fixed point), so that every place is counted in datagrams. */
static uint64_t scale(uint64_t packets, uint64_t per_mille)
{
	return per_mille ? (packets * per_mille + 500) / 1000 : packets;
}

/* A message of n datagrams as a qdisc counts it when it drops it: one
 * packet, or n when the qdisc splits GSO packets above split_above bytes
 * (qdisc_pkt_len_init(): the payload plus every segment's UDP, IP and
 * Ethernet headers). */
static uint64_t units_of(unsigned n, uint32_t len, unsigned hdr, uint32_t split_above)
{
	uint64_t pkt_len = (uint64_t)n * (len + hdr);

	return n > 1 && split_above && pkt_len > split_above ? n : 1;
}

static void qdisc_units(const struct load_side *side, const struct udp_stream *st, unsigned n,
			uint32_t split_above, struct proto_local_drops *l)
{
	unsigned hdr = 8 + (side->family == AF_INET6 ? 40 : 20) + 14;

	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 1; k <= UDP_LOAD_MAX_SEGS; k++) {
			uint64_t u = units_of(k, st[i].len, hdr, split_above);

			l->qdisc_units += st[i].dropped_by_segs[k] * u;
			l->other_units += st[i].other_by_segs[k] * u;
		}
}

/* The sender's own drops: its qdiscs' counters and the messages its kernel
 * refused, and the SndbufErrors none of those explain (in datagrams). */
static void local_drops(struct load_side *side, const struct udp_stream *st, unsigned n,
			struct proto_results *out)
{
	struct proto_local_drops *l = &out->local;
	struct qdiscstats *after = malloc(sizeof(*after));
	struct qdiscstats_if top;
	uint64_t seen = 0;

	memset(l, 0, sizeof(*l));
	memset(&top, 0, sizeof(top));
	out->has_local_drops = true;
	for (unsigned i = 0; i < n; i++) {
		l->refused_msgs += st[i].refused_msgs;
		l->refused_dgrams += st[i].refused_dgrams;
		l->hidden_msgs += st[i].hidden_msgs;
		l->hidden_dgrams += st[i].hidden_dgrams;
		seen += st[i].send_errors;
	}
	if (after && side->have_qdisc_before && qdiscstats_read(after) == 0) {
		l->flags |= PROTO_LD_QDISC_READ;
		l->qdisc_drops = qdiscstats_delta(&side->qdisc_before, after, &top);
		l->txqlen = top.txqlen;
		snprintf(l->qdisc_kind, sizeof(l->qdisc_kind), "%s", top.kind);
		snprintf(l->qdisc_if, sizeof(l->qdisc_if), "%s", top.ifname);
	}
	free(after);
	if (n)
		qdisc_units(side, st, n, top.split_above, l);
	/* each failed or dropped send call counted once in SndbufErrors */
	seen += l->refused_msgs + l->hidden_msgs;
	l->sndbuf_unseen =
		scale(side->sndbuf_calls > seen ? side->sndbuf_calls - seen : 0, side->per_mille);
}

static void host_deltas(struct load_side *side, struct proto_results *out)
{
	struct netcounters *after = malloc(sizeof(*after)), *d = malloc(sizeof(*d));
	const struct netcounters_udp *u;
	uint64_t rcvbuf, inerr, own;

	if (!after || !d || !side->have_before)
		goto out;
	netcounters_init(after);
	if (netcounters_read(after) < 0)
		goto out;
	netcounters_delta(&side->before, after, d);
	u = side->family == AF_INET6 ? &d->udp6 : &d->udp;
	out->host.udp_sndbuf_errors = u->sndbuf_errors;
	side->sndbuf_calls = u->sndbuf_errors;
	out->host.udp_in_datagrams = u->in_datagrams;
	out->host.udp_out_datagrams = u->out_datagrams;
	out->host.udp_sndbuf_errors = scale(out->host.udp_sndbuf_errors, side->per_mille);
	/* Every UDP socket of this host, both families: another socket that
	 * drops (a VPN daemon's, whose outer packets may be of the other
	 * family) is a place of its own. Only the test's own socket drops
	 * come in the test's GRO units and are scaled to datagrams; the
	 * other sockets' and the interfaces' drops are counted as the kernel
	 * counts them (a lower bound when a daemon's socket uses GRO). */
	rcvbuf = d->udp.rcvbuf_errors + d->udp6.rcvbuf_errors;
	inerr = d->udp.in_errors + d->udp6.in_errors;
	own = side->own_drops_raw < rcvbuf ? side->own_drops_raw : rcvbuf;
	out->host.udp_rcvbuf_errors = rcvbuf - own + side->own_drops;
	out->host.udp_in_errors = (inerr > own ? inerr - own : 0) + side->own_drops;
	netcounters_link_drops(d, NULL, &out->host.link_rx_drops, &out->host.link_tx_drops);
	out->host.softnet_drops = d->softnet_dropped;
	out->host.backlog_max = after->netdev_max_backlog;
out:
	free(after);
	free(d);
}

static void add_cpu(struct proto_results *out, const struct cpu_use *c)
{
	out->cpu_user_ns += (uint64_t)(c->user_s * 1e9);
	out->cpu_sys_ns += (uint64_t)(c->sys_s * 1e9);
	if ((uint64_t)(c->wall_s * 1e9) > out->cpu_wall_ns)
		out->cpu_wall_ns = (uint64_t)(c->wall_s * 1e9);
}

static void tcp_info_put(struct proto_stream_stats *s, const struct tcp_info_summary *t)
{
	s->flags |= PROTO_SS_TCP_INFO;
	s->tcp_retransmits = t->retransmits;
	s->tcp_rtt_us = t->rtt_us;
	s->tcp_rttvar_us = t->rttvar_us;
	s->tcp_snd_mss = t->snd_mss;
	s->tcp_adv_mss = t->adv_mss;
	s->tcp_rcv_mss = t->rcv_mss;
	s->tcp_pmtu = t->pmtu;
	s->tcp_snd_cwnd = t->snd_cwnd;
}

/* Total over TCP streams: sums for counts, means for RTT, minimum for sizes. */
static void tcp_total(struct proto_results *out)
{
	struct proto_stream_stats *t = &out->total;
	uint64_t rtt = 0, rttvar = 0;

	memset(t, 0, sizeof(*t));
	t->flags = PROTO_SS_TCP_INFO;
	for (unsigned i = 0; i < out->nstreams; i++) {
		const struct proto_stream_stats *s = &out->streams[i];

		t->bytes += s->bytes;
		t->tcp_retransmits += s->tcp_retransmits;
		t->tcp_snd_cwnd += s->tcp_snd_cwnd;
		rtt += s->tcp_rtt_us;
		rttvar += s->tcp_rttvar_us;
#define MIN_NZ(f)                                                                                  \
	if (s->f && (!t->f || s->f < t->f))                                                        \
	t->f = s->f
		MIN_NZ(tcp_snd_mss);
		MIN_NZ(tcp_adv_mss);
		MIN_NZ(tcp_rcv_mss);
		MIN_NZ(tcp_pmtu);
#undef MIN_NZ
	}
	if (out->nstreams) {
		t->tcp_rtt_us = (uint32_t)(rtt / out->nstreams);
		t->tcp_rttvar_us = (uint32_t)(rttvar / out->nstreams);
	}
}

static uint32_t add_sat(uint32_t a, uint64_t b)
{
	return a + b > UINT32_MAX ? UINT32_MAX : (uint32_t)(a + b);
}

/* This end's TCP limits over the measured window, its buffers and its
 * host's buffer maxima (proto.h's tail: what a verdict is read from). */
static void tcp_limits(const struct tcp_stream *st, unsigned n, bool sender,
		       struct proto_results *out)
{
	struct proto_tcp_limits *l = &out->tcp_limits;
	struct tcp_buf_sysctls sys = { 0 };
	bool chrono = n > 0;
	double rtt_sum = 0;
	unsigned rtt_n = 0;
	uint32_t rtt;

	memset(l, 0, sizeof(*l));
	l->streams = n;
	if (sockopt_tcp_buf_sysctls("/proc/sys", &sys) == 0)
		l->flags |= PROTO_TL_SYSCTL;
	l->tcp_rmem_max = sys.tcp_rmem_max;
	l->tcp_wmem_max = sys.tcp_wmem_max;
	l->rmem_max = sys.rmem_max;
	l->wmem_max = sys.wmem_max;
	for (unsigned i = 0; i < n; i++) {
		const struct tcp_info_summary *t = &st[i].info;
		const struct cpu_use *c = &st[i].cpu;
		uint64_t w =
			sender ? st[i].end_ns - st[i].omit_end_ns
			       : (st[i].last_ns > st[i].first_ns ? st[i].last_ns - st[i].first_ns
								 : 0);
		double core = c->wall_s > 0 ? (c->user_s + c->sys_s) / c->wall_s : 0;
		uint32_t pm = core > 10 ? 10000 : (uint32_t)(core * 1000 + 0.5);

		l->window_us += w / 1000;
		l->sock_sndbuf = add_sat(l->sock_sndbuf, st[i].sndbuf);
		l->sock_rcvbuf = add_sat(l->sock_rcvbuf, st[i].rcvbuf);
		if (pm > l->thread_cpu_permille)
			l->thread_cpu_permille = pm;
		if (!sender) {
			if (t->rcv_space > l->rcv_space)
				l->rcv_space = t->rcv_space;
			continue;
		}
		chrono = chrono && t->chrono_known;
		/* a jiffy's rounding: the parts never exceed the whole */
		l->busy_us += t->busy_us;
		l->rwnd_limited_us +=
			t->rwnd_limited_us < t->busy_us ? t->rwnd_limited_us : t->busy_us;
		l->sndbuf_limited_us +=
			t->sndbuf_limited_us < t->busy_us ? t->sndbuf_limited_us : t->busy_us;
		l->bytes_sent += t->bytes_sent;
		l->bytes_retrans +=
			t->bytes_retrans < t->bytes_sent ? t->bytes_retrans : t->bytes_sent;
		l->delivery_Bps += t->delivery_Bps;
		l->app_limited_streams += t->delivery_app_limited;
		if (t->min_rtt_us && (!l->min_rtt_us || t->min_rtt_us < l->min_rtt_us))
			l->min_rtt_us = t->min_rtt_us;
		l->snd_wnd = add_sat(l->snd_wnd, t->snd_wnd);
		rtt = tcp_rtt_median_us(&st[i]);
		if (rtt) {
			rtt_sum += rtt;
			rtt_n++;
		}
	}
	if (sender && chrono)
		l->flags |= PROTO_TL_CHRONO;
	if (sender && rtt_n)
		l->rtt_median_us = (uint32_t)(rtt_sum / rtt_n + 0.5);
	out->has_tcp_limits = n > 0;
}

/* A TCP sender's root qdiscs over the test: their drops, and the one whose
 * shaper held packets back most (its queue grew: the bottleneck on this
 * host's way out), else the one that dropped most. */
static void tcp_qdiscs(struct load_side *side, struct proto_results *out)
{
	struct proto_local_drops *l = &out->local;
	struct qdiscstats *after = malloc(sizeof(*after));
	struct qdiscstats_if dropped, held;

	if (after && side->have_qdisc_before && qdiscstats_read(after) == 0) {
		const struct qdiscstats_if *top;

		out->has_local_drops = true;
		l->flags |= PROTO_LD_QDISC_READ;
		l->qdisc_drops = qdiscstats_delta(&side->qdisc_before, after, &dropped);
		l->qdisc_held = qdiscstats_held(&side->qdisc_before, after, &held);
		top = held.ifname[0] ? &held : &dropped;
		l->txqlen = top->txqlen;
		snprintf(l->qdisc_kind, sizeof(l->qdisc_kind), "%s", top->kind);
		snprintf(l->qdisc_if, sizeof(l->qdisc_if), "%s", top->ifname);
	}
	free(after);
}

void load_side_tcp(struct load_side *side, const struct tcp_stream *st, unsigned n, bool sender,
		   struct proto_results *out)
{
	uint64_t dur = 0;

	tunnel_settle(side);
	out->role = sender ? PROTO_ROLE_SENDER : PROTO_ROLE_RECEIVER;
	out->nstreams = (uint16_t)n;
	for (unsigned i = 0; i < n; i++) {
		struct proto_stream_stats *s = &out->streams[i];
		uint64_t d;

		memset(s, 0, sizeof(*s));
		s->stream_id = i;
		s->bytes = tcp_stream_bytes(&st[i]);
		tcp_info_put(s, &st[i].info);
		add_cpu(out, &st[i].cpu);
		d = sender ? st[i].end_ns - st[i].omit_end_ns
			   : (st[i].last_ns > st[i].first_ns ? st[i].last_ns - st[i].first_ns : 0);
		if (d > dur)
			dur = d;
	}
	out->duration_ns = dur;
	tcp_total(out);
	host_deltas(side, out);
	out->has_sock_owner = false;
	tcp_limits(st, n, sender, out);
	memset(&out->local, 0, sizeof(out->local));
	out->has_local_drops = false;
	if (sender)
		tcp_qdiscs(side, out);
	tunnel_end(side, sender, out);
}

static void udp_sender_stats(const struct udp_stream *st, struct proto_stream_stats *s)
{
	s->sent = atomic_load(&st->sent);
	s->bytes = s->sent * st->len;
	s->send_shortfall = st->shortfall;
	s->send_errors = st->send_errors;
	if (st->gso)
		s->flags |= PROTO_SS_GSO;
}

static void owd_put(struct proto_stream_stats *s, const struct rxstats *rx)
{
	struct owd_summary o;

	rxstats_owd(rx, &o);
	if (!o.valid || rx->owd_negative)
		return;
	s->flags |= PROTO_SS_OWD_VALID;
	s->owd_min_ns = o.min_ns;
	s->owd_p50_ns = o.p50_ns;
	s->owd_p99_ns = o.p99_ns;
	s->owd_max_ns = o.max_ns;
	s->owd_mean_ns = o.mean_ns;
}

static void udp_receiver_stats(const struct udp_stream *st, const struct rxstats *rx,
			       struct proto_stream_stats *s)
{
	s->received = rx->received;
	s->bytes = rx->bytes;
	s->lost = rxstats_lost(rx, st ? st->fin_count : 0);
	s->duplicates = rx->duplicates;
	s->reordered = rx->reordered;
	s->late = rx->late;
	s->malformed = rx->malformed;
	s->jitter_ns = (uint64_t)rx->jitter_ns;
	owd_put(s, rx);
	if (st) {
		/* the socket counts a dropped packet once, a GRO one of many
		 * datagrams too: the datagrams are those of the sequence gaps
		 * across which its count rose (sockloss.h) */
		s->rxq_ovfl = st->sockloss.dgrams < s->lost ? st->sockloss.dgrams : s->lost;
		if (st->sockloss.skbs)
			log_debug("stream %u: socket dropped %" PRIu64 " packets, %" PRIu64
				  " datagrams (%" PRIu64 " packets read held %" PRIu64 ")",
				  st->id, st->sockloss.skbs, s->rxq_ovfl, st->rx_skbs, st->rx_segs);
		if (st->gro)
			s->flags |= PROTO_SS_GRO;
	}
}

/* The wait of every stream's datagrams in its socket (summary of the
 * merged histogram); on the wire even when nothing was stamped (0 samples),
 * which says the receiver measured it. */
static void rx_wait_put(const struct rxstats *all, struct proto_results *out)
{
	struct owd_summary w;

	rxstats_wait(all, &w);
	out->has_rx_wait = true;
	out->rx_wait = (struct proto_rx_wait){ .samples = all->wait.count,
					       .min_ns = w.min_ns,
					       .p50_ns = w.p50_ns,
					       .p99_ns = w.p99_ns,
					       .max_ns = w.max_ns,
					       .mean_ns = w.mean_ns };
}

void load_side_udp(struct load_side *side, const struct udp_stream *st, unsigned n, bool sender,
		   struct proto_results *out)
{
	struct rxstats *all = sender ? NULL : malloc(sizeof(*all));
	uint64_t pkts = 0, dgrams = 0;

	tunnel_settle(side);
	out->role = sender ? PROTO_ROLE_SENDER : PROTO_ROLE_RECEIVER;
	out->nstreams = (uint16_t)n;
	memset(&out->total, 0, sizeof(out->total));
	memset(&out->rx_wait, 0, sizeof(out->rx_wait));
	out->has_rx_wait = false;
	memset(&out->sock_drops, 0, sizeof(out->sock_drops));
	out->has_sock_drops = false;
	side->own_drops_raw = side->own_drops = 0;
	if (all)
		rxstats_init(all);
	for (unsigned i = 0; i < n; i++) {
		struct proto_stream_stats *s = &out->streams[i];

		memset(s, 0, sizeof(*s));
		s->stream_id = i;
		if (sender) {
			udp_sender_stats(&st[i], s);
			if (st[i].send_elapsed_ns > out->duration_ns)
				out->duration_ns = st[i].send_elapsed_ns;
			out->total.sent += s->sent;
			out->total.bytes += s->bytes;
			out->total.send_shortfall += s->send_shortfall;
			out->total.send_errors += s->send_errors;
		} else if (st[i].rx) {
			udp_receiver_stats(&st[i], st[i].rx, s);
			out->total.rxq_ovfl += s->rxq_ovfl;
			side->own_drops_raw += st[i].sockloss.skbs;
			out->sock_drops.tail_skbs += st[i].sockloss.end_rise;
			if (st[i].gro)
				out->sock_drops.flags |= PROTO_SD_GRO;
			side->own_drops += s->rxq_ovfl;
			out->total.lost += s->lost;
			if (all)
				rxstats_merge(all, st[i].rx);
			out->rcvbuf_bytes = sockopt_rcvbuf(st[i].fd);
		}
		out->flags |= s->flags & (PROTO_SS_GSO | PROTO_SS_GRO);
		add_cpu(out, &st[i].cpu);
		pkts += sender ? st[i].send_msgs : st[i].rx_skbs;
		dgrams += sender ? s->sent : st[i].rx_segs;
	}
	if (out->flags & (PROTO_SS_GSO | PROTO_SS_GRO) && pkts)
		side->per_mille = dgrams * 1000 / pkts;
	if (all) {
		uint64_t ovfl = out->total.rxq_ovfl, lost = out->total.lost;

		udp_receiver_stats(NULL, all, &out->total);
		rx_wait_put(all, out);
		/* the receiver's time: first to last datagram of any stream */
		out->duration_ns = rxstats_window_ns(all);
		out->total.rxq_ovfl = ovfl;
		out->total.lost = lost;
		out->has_sock_drops = true;
		out->sock_drops.dgrams = ovfl;
		out->sock_drops.skbs = side->own_drops_raw;
		out->total.flags |= out->flags;
		free(all);
	}
	host_deltas(side, out);
	if (sender) {
		memset(&out->sock_owner, 0, sizeof(out->sock_owner));
		out->has_sock_owner = false;
	} else {
		sock_owner(side, st, n, out);
	}
	memset(&out->tcp_limits, 0, sizeof(out->tcp_limits));
	out->has_tcp_limits = false;
	memset(&out->local, 0, sizeof(out->local));
	out->has_local_drops = false;
	if (sender)
		local_drops(side, st, n, out);
	tunnel_end(side, sender, out);
}
