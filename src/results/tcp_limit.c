// SPDX-License-Identifier: MIT
/* What limited a TCP test: the sender's chronographs first, then CPU,
 * round trip and retransmits decide among the congestion window's causes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results.h"
#include "tcp_limit.h"
#include "tcp_limit_int.h"

static const char *const names[] = {
	[TCP_LIMIT_UNKNOWN] = "unknown",	   [TCP_LIMIT_APPLICATION] = "application",
	[TCP_LIMIT_RWND] = "receive window",	   [TCP_LIMIT_SNDBUF] = "send buffer",
	[TCP_LIMIT_NETWORK_RATE] = "network rate", [TCP_LIMIT_LOSS] = "loss",
	[TCP_LIMIT_CWND] = "congestion window",	   [TCP_LIMIT_SENDER_CPU] = "sender CPU",
	[TCP_LIMIT_RECEIVER_CPU] = "receiver CPU", [TCP_LIMIT_OVERLAY_CPU] = "overlay CPU",
	[TCP_LIMIT_HOST_CPU] = "machine CPU",
};

const char *tcp_limit_name(enum tcp_limit l)
{
	return (unsigned)l < sizeof(names) / sizeof(names[0]) ? names[l] : "unknown";
}

/* A buffer size a sysctl takes: rounded up to a whole MiB (4 MiB at least). */
static uint64_t sysctl_value(double bytes)
{
	uint64_t mib = (uint64_t)ceil(bytes / 1048576.0);

	return (mib < 4 ? 4 : mib) * 1048576ULL;
}

/* A queue: the round trip at least 1 ms and a quarter above its least. */
static bool queued(const struct tcp_limit_verdict *v, double min_rtt_ms)
{
	return v->queue_ms >= 1.0 && v->queue_ms >= 0.25 * min_rtt_ms;
}

static void shares(const struct tcp_end_limits *s, struct tcp_limit_verdict *v)
{
	double w = s->window_s, busy = s->busy_s;

	if (busy > w)
		busy = w; /* a jiffy's rounding */
	v->app = (w - busy) / w;
	v->rwnd = s->rwnd_limited_s / w;
	v->sndbuf = s->sndbuf_limited_s / w;
	v->cwnd = (busy - s->rwnd_limited_s - s->sndbuf_limited_s) / w;
	if (v->cwnd < 0)
		v->cwnd = 0;
}

/* The rate a fix aims at: the path's where it is known and above the rate
 * measured, else four times the rate measured. */
static double target_bps(const struct tcp_result *t, uint64_t path_bps)
{
	double got = (double)t->goodput_bps;

	return path_bps && (double)path_bps > got * 1.1 ? (double)path_bps : 4 * got;
}

/* The fix as the test's own -w: SO_RCVBUF and SO_SNDBUF are capped at
 * net.core.rmem_max and wmem_max (socket(7)), so a -w above the host's
 * maximum would be cut to it without a word: the value within it. */
static void sock_buf_within(struct tcp_limit_verdict *v, uint32_t max)
{
	v->sock_buf_max = max;
	v->sock_buf_value = max && v->fix_value > max ? max : v->fix_value;
}

static void rwnd(const struct tcp_result *t, const struct tcp_limit_ctx *c, const char *rcv_host,
		 struct tcp_limit_verdict *v)
{
	const struct tcp_end_limits *s = &t->sender_limits, *d = &t->receiver_limits;
	double rtt_s = v->rtt_ms / 1e3, ratio = 0.5, target = target_bps(t, c->path_bps);
	unsigned n = s->streams ? s->streams : 1;
	char a[32], b[32], tgt[32];

	v->fix_bps = target;
	v->allowed_window_B = s->snd_wnd;
	v->allowed_bps = rtt_s > 0 ? v->allowed_window_B * 8 / rtt_s : 0;
	/* the share of its receive buffer the kernel advertised as window */
	if (s->snd_wnd && d->sock_rcvbuf)
		ratio = fmin(1.0, fmax(0.25, (double)s->snd_wnd / d->sock_rcvbuf));
	snprintf(v->evidence, sizeof(v->evidence),
		 "%.0f B%s in flight against the %.0f B window %s advertised (stalled by it "
		 "%.0f %% of the time), which at a %.2f ms round trip allows %s (measured %s); "
		 "its socket buffer reached %.0f B of the net.ipv4.tcp_rmem maximum %u B",
		 v->needed_window_B / n, n > 1 ? " a stream" : "", v->allowed_window_B / n,
		 rcv_host, v->rwnd * 100, v->rtt_ms, results_fmt_bps(a, sizeof(a), v->allowed_bps),
		 results_fmt_bps(b, sizeof(b), (double)t->goodput_bps), (double)d->sock_rcvbuf / n,
		 d->tcp_rmem_max);
	if (c->sock_buf) {
		v->sock_buf_fix = true;
		v->fix_value = (uint64_t)(target * rtt_s / 8 / n / ratio);
		snprintf(v->fix, sizeof(v->fix),
			 "a larger -w: the test set SO_RCVBUF itself (%u B asked), which turns "
			 "autotuning off; %.0f B a stream carry %s at this round trip",
			 c->sock_buf, target * rtt_s / 8 / n / ratio,
			 results_fmt_bps(tgt, sizeof(tgt), target));
		return;
	}
	v->fix_value = sysctl_value(target * rtt_s / 8 / n / ratio);
	sock_buf_within(v, d->rmem_max);
	snprintf(v->fix, sizeof(v->fix),
		 "raise net.ipv4.tcp_rmem's maximum (its third value) on %s from %u to %llu B: "
		 "a window for %s at this round trip (%.0f B a stream needed, at the %.0f %% "
		 "of its buffer the kernel advertises); net.core.rmem_max only binds -w",
		 rcv_host, d->tcp_rmem_max,
		 (unsigned long long)sysctl_value(target * rtt_s / 8 / n / ratio),
		 results_fmt_bps(tgt, sizeof(tgt), target), target * rtt_s / 8 / n, ratio * 100);
}

static void sndbuf(const struct tcp_result *t, const struct tcp_limit_ctx *c, const char *snd_host,
		   struct tcp_limit_verdict *v)
{
	const struct tcp_end_limits *s = &t->sender_limits;
	double rtt_s = v->rtt_ms / 1e3, target = target_bps(t, c->path_bps), ratio = 0.5;
	unsigned n = s->streams ? s->streams : 1;
	char a[32], b[32], tgt[32];

	/* the send buffer holds what is in flight, what waits, and their
	 * overhead: the share in flight is what this test measured */
	if (s->sock_sndbuf && v->needed_window_B > 0)
		ratio = fmin(1.0, fmax(0.1, v->needed_window_B / s->sock_sndbuf));
	v->fix_bps = target;
	v->allowed_window_B = s->sock_sndbuf * ratio;
	v->allowed_bps = rtt_s > 0 ? v->allowed_window_B * 8 / rtt_s : 0;
	snprintf(v->evidence, sizeof(v->evidence),
		 "less in flight than the windows allowed (%.0f B%s; the peer's %.0f B, the "
		 "congestion window's %.0f B), stalled by the send buffer %.0f %% of the time: "
		 "%s's socket buffer reached %.0f B%s (net.ipv4.tcp_wmem maximum %u B), which at "
		 "a %.2f ms round trip carries %s (measured %s)",
		 v->needed_window_B / n, n > 1 ? " a stream" : "", (double)s->snd_wnd / n,
		 v->cwnd_B / n, v->sndbuf * 100, snd_host, (double)s->sock_sndbuf / n,
		 n > 1 ? " a stream" : "", s->tcp_wmem_max, v->rtt_ms,
		 results_fmt_bps(a, sizeof(a), v->allowed_bps),
		 results_fmt_bps(b, sizeof(b), (double)t->goodput_bps));
	if (c->sock_buf) {
		v->sock_buf_fix = true;
		v->fix_value = (uint64_t)(target * rtt_s / 8 / n / ratio);
		snprintf(v->fix, sizeof(v->fix),
			 "a larger -w: the test set SO_SNDBUF itself (%u B asked); %.0f B a stream "
			 "carry %s at this round trip",
			 c->sock_buf, target * rtt_s / 8 / n / ratio,
			 results_fmt_bps(tgt, sizeof(tgt), target));
		return;
	}
	v->fix_value = sysctl_value(target * rtt_s / 8 / n / ratio);
	sock_buf_within(v, s->wmem_max);
	snprintf(v->fix, sizeof(v->fix),
		 "raise net.ipv4.tcp_wmem's maximum (its third value) on %s from %u to %llu B: "
		 "%s in flight at this round trip (%.0f B a stream, at the %.0f %% of its buffer "
		 "this test had in flight)",
		 snd_host, s->tcp_wmem_max,
		 (unsigned long long)sysctl_value(target * rtt_s / 8 / n / ratio),
		 results_fmt_bps(tgt, sizeof(tgt), target), target * rtt_s / 8 / n, ratio * 100);
}

/* The place a test's segments were dropped at: this test's own counters
 * first, then the same path's UDP trials. NULL: neither saw one. */
static const struct tcp_limit_drop *drop_seen(const struct tcp_limit_ctx *c)
{
	if (c->trial_drop.kind != TCP_DROP_NONE)
		return &c->trial_drop;
	if (c->udp_drop.kind != TCP_DROP_NONE)
		return &c->udp_drop;
	return NULL;
}

/* "; dropped at the sender's interface (a TUN) (91 % of the drops in this
 * path's UDP trials), whose reader wireguard-go's busiest thread used 99 %
 * of a core" */
static void drop_words(char *buf, size_t len, const struct tcp_limit_ctx *c,
		       const struct tcp_limit_drop *d)
{
	/* a shaper that only held packets back dropped none: it queued them */
	bool held = d->kind == TCP_DROP_SHAPER && !d->count;
	int n = snprintf(buf, len, "; %s at %s (", held ? "queued, not dropped," : "dropped",
			 d->place ? d->place : "?");

	if (n > 0 && (size_t)n < len && d->count)
		n += snprintf(buf + n, len - (size_t)n, "%llu packets, ",
			      (unsigned long long)d->count);
	if (n > 0 && (size_t)n < len && d->share > 0)
		n += snprintf(buf + n, len - (size_t)n, "%.0f %% of the drops ", d->share * 100);
	if (n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "%s)",
			      d == &c->trial_drop ? "counted over this test"
						  : "in this path's UDP trials");
	if (n <= 0 || (size_t)n >= len || !d->process)
		return;
	if (d->quota_cores > 0)
		snprintf(buf + n, len - (size_t)n,
			 ", whose reader %s was held at its cgroup's quota of %.2f cores",
			 d->process, d->quota_cores);
	else if (d->process_cpu > 0)
		snprintf(buf + n, len - (size_t)n,
			 ", whose reader %s's busiest thread%s%s used %.0f %% of a core%s",
			 d->process, d->thread ? " " : "", d->thread ? d->thread : "",
			 d->process_cpu * 100,
			 d->process_cpu >= TCP_LIMIT_CPU_BOUND ? ": it did not keep up" : "");
	else
		snprintf(buf + n, len - (size_t)n, ", whose reader is %s (its CPU not read)",
			 d->process);
}

/* Appends to a verdict's sentence, cut at its end. */
static void append(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf);

	if (n + 1 < len)
		snprintf(buf + n, len - n, "%s", s);
}

/* Against random loss on a link, a congestion control that tolerates it,
 * unless it is the one in force (BBR does not read loss as congestion). */
static void congestion_fix(char *buf, size_t len, const struct tcp_limit_ctx *c)
{
	char s[160];

	if (tcp_limit_is_bbr(c))
		return;
	if (c->congestion && c->congestion[0])
		snprintf(s, sizeof(s),
			 "; against random loss on a link, a congestion control that tolerates "
			 "it: -C bbr (%s now)",
			 c->congestion);
	else
		snprintf(s, sizeof(s),
			 "; against random loss on a link, a congestion control that tolerates "
			 "it: -C bbr (unless it runs already: the sender's was not reported)");
	append(buf, len, s);
}

/* A thread at a full core, or the machine's cores busy together. */
static bool cpu_full(const struct tcp_limit_verdict *v, const struct tcp_limit_ctx *c)
{
	return v->sender_cpu >= TCP_LIMIT_CPU_BOUND || v->receiver_cpu >= TCP_LIMIT_CPU_BOUND ||
	       c->overlay_cpu >= TCP_LIMIT_CPU_BOUND ||
	       (c->machine_cpus && c->machine_busy >= TCP_LIMIT_MACHINE_BOUND);
}

/* The network's rate: its evidence opens with bbr where BBR's own rate
 * is the evidence (NULL: the bottleneck's queue is). */
static void network_rate(const struct tcp_result *t, const struct tcp_limit_ctx *c, const char *bbr,
			 struct tcp_limit_verdict *v)
{
	double min_ms = t->sender_limits.min_rtt_us / 1e3;
	char a[32], more[224];

	v->limit = TCP_LIMIT_NETWORK_RATE;
	if (bbr)
		snprintf(v->evidence, sizeof(v->evidence), "%s", bbr);
	else
		snprintf(v->evidence, sizeof(v->evidence),
			 "within the congestion window %.0f %% of the time, %s %.2f ms above "
			 "its least %.3f ms (a bottleneck's queue), %.3f %% of the bytes resent",
			 v->cwnd * 100, tcp_limit_rtt_read(v), v->queue_ms, min_ms,
			 v->retrans_ratio * 100);
	/* with a host's CPU unread, only a shaper's drops or the link's rate
	 * reached stand for the network: say which CPU was not read */
	if (c->cpu_unknown)
		snprintf(more, sizeof(more),
			 "; not every host's CPU was read, but the network's "
			 "queue was seen");
	else if (cpu_full(v, c)) {
		char m[40] = "";

		if (c->machine_cpus)
			snprintf(m, sizeof(m), "; the machine's cores %.0f %% busy",
				 c->machine_busy * 100);
		snprintf(more, sizeof(more),
			 "; a CPU was full too (threads of a core: sending %.0f %%, receiving %.0f "
			 "%%, the overlay's %.0f %%%s), but the flow reached the link's rate",
			 v->sender_cpu * 100, v->receiver_cpu * 100, c->overlay_cpu * 100, m);
	} else
		snprintf(more, sizeof(more),
			 "; no host's thread at a core (sending %.0f %%, receiving %.0f %%, the "
			 "overlay's %.0f %%)",
			 v->sender_cpu * 100, v->receiver_cpu * 100, c->overlay_cpu * 100);
	append(v->evidence, sizeof(v->evidence), more);
	if (c->trial_drop.kind == TCP_DROP_SHAPER) {
		drop_words(more, sizeof(more), c, &c->trial_drop);
		append(v->evidence, sizeof(v->evidence), more);
	}
	if (c->path_bps) {
		snprintf(more, sizeof(more), "; the path's rate is %s",
			 results_fmt_bps(a, sizeof(a), (double)c->path_bps));
		append(v->evidence, sizeof(v->evidence), more);
	}
	snprintf(v->fix, sizeof(v->fix),
		 "none on the hosts: this is the path's rate (a faster path or shaper "
		 "moves it)");
}

/* A queue, but a host's CPU on the path was not read: a process at a full
 * core queues as a bottleneck does, so neither is named. */
static void undecided(const struct tcp_result *t, const struct tcp_limit_ctx *c, const char *bbr,
		      struct tcp_limit_verdict *v)
{
	v->limit = TCP_LIMIT_UNKNOWN;
	v->undecided = true;
	if (bbr)
		snprintf(v->evidence, sizeof(v->evidence),
			 "%s; that bottleneck is the network's or a process's at a full core, "
			 "which is unknown: %s",
			 bbr, c->cpu_unknown);
	else
		snprintf(v->evidence, sizeof(v->evidence),
			 "within the congestion window %.0f %% of the time, %s %.2f ms above its "
			 "least %.3f ms, %.3f %% of the bytes resent: a queue, at a bottleneck of "
			 "the network or before a process at a full core; which is unknown: %s",
			 v->cwnd * 100, tcp_limit_rtt_read(v), v->queue_ms,
			 t->sender_limits.min_rtt_us / 1e3, v->retrans_ratio * 100, c->cpu_unknown);
	snprintf(v->fix, sizeof(v->fix),
		 "none named before the cause is known: the CPU of the overlay's or VPN's "
		 "process on each host (a server that reports its host's facts, or process = "
		 "in the scenario) tells them apart");
}

/* What stops the drops at a host's place: its own fix where the caller
 * knows one, else the CPU of the process that should have taken them. */
static void drop_fix(char *buf, size_t len, const struct tcp_limit_drop *d)
{
	if (d->fix)
		snprintf(buf, len, "%s", d->fix);
	else if (d->process && d->quota_cores > 0)
		snprintf(buf, len,
			 "a larger CPU quota for %s's cgroup (%.2f cores now: cpu.cfs_quota_us, or "
			 "cpu.max on cgroup v2): it could not take what %s held",
			 d->process, d->quota_cores, d->place ? d->place : "its queue");
	else if (d->process && d->process_cpu > 0 && d->process_cpu < TCP_LIMIT_READER_BUSY)
		/* its busiest thread far from a core: not its CPU as a whole,
		 * but how soon it ran while other threads shared its cores */
		snprintf(buf, len,
			 "a core of its own for %s, or a longer queue in front of it: its busiest "
			 "thread used %.0f %% of a core, so it did not lack CPU as a whole, but it "
			 "did not run soon enough to take what %s held before more came",
			 d->process, d->process_cpu * 100, d->place ? d->place : "its queue");
	else if (d->process)
		snprintf(buf, len,
			 "more CPU for %s (a core of its own, more threads): it did not take what "
			 "%s held as fast as it came",
			 d->process, d->place ? d->place : "its queue");
	else
		snprintf(buf, len,
			 "the host's place that dropped them (%s), not the network: its queue's "
			 "reader or length",
			 d->place ? d->place : "?");
}

static void loss(const struct tcp_result *t, const struct tcp_limit_ctx *c,
		 struct tcp_limit_verdict *v)
{
	const struct tcp_limit_drop *d = drop_seen(c);
	char more[224];

	v->limit = TCP_LIMIT_LOSS;
	snprintf(v->evidence, sizeof(v->evidence),
		 "within the congestion window %.0f %% of the time, %.3f %% of the bytes "
		 "resent (%u segments), %s %.2f ms above its least %.3f ms",
		 v->cwnd * 100, v->retrans_ratio * 100, t->sender.retransmits,
		 tcp_limit_rtt_read(v), v->queue_ms, t->sender_limits.min_rtt_us / 1e3);
	if (d && d->kind != TCP_DROP_NETWORK && d->kind != TCP_DROP_UNACCOUNTED) {
		drop_words(more, sizeof(more), c, d);
		append(v->evidence, sizeof(v->evidence), more);
		drop_fix(v->fix, sizeof(v->fix), d);
		return;
	}
	if (d && d->kind == TCP_DROP_UNACCOUNTED) {
		append(v->evidence, sizeof(v->evidence),
		       "; this path's UDP trials lost them where no counter ovlperf reads on "
		       "either host saw it (unaccounted), and nothing says the path between them "
		       "loses");
		snprintf(v->fix, sizeof(v->fix), "%s",
			 d->fix ? d->fix : "find where first: no counter on either host saw them");
		/* no link is known to lose: no congestion control against it */
		return;
	} else if (d) {
		append(v->evidence, sizeof(v->evidence),
		       d == &c->trial_drop
			       ? "; no host's counter rose over this test: lost between the hosts"
			       : "; this path's UDP trials lost them between the hosts, past every "
				 "counter the hosts keep");
		snprintf(v->fix, sizeof(v->fix), "%s",
			 d->fix ? d->fix : "the path between the hosts (its links, middleboxes)");
	} else {
		append(v->evidence, sizeof(v->evidence),
		       t->drops.known ? ": where is unknown (no host's counter read over this test "
					"dropped a tenth of the segments resent, and no UDP trial "
					"on this path lost any)"
				      : ": where is unknown (no drop counter read over this test, "
					"no UDP trial on this path lost any)");
		snprintf(v->fix, sizeof(v->fix),
			 "find where: a UDP test on this path names the place (the link, a "
			 "socket, a host's backlog)");
	}
	congestion_fix(v->fix, sizeof(v->fix), c);
}

/* A host's CPU verdict on a BBR flow: its own evidence after a short
 * word that BBR's loss was not the limit. */
static void lead_with_bbr(const struct tcp_result *t, struct tcp_limit_verdict *v)
{
	char lead[sizeof(v->evidence)], a[32];

	snprintf(lead, sizeof(lead),
		 "BBR, not slowed by the %.1f %% of the bytes resent (a loss-based control: "
		 "about %s); ",
		 v->retrans_ratio * 100,
		 results_fmt_bps(a, sizeof(a), tcp_limit_loss_bound_bps(t, v->retrans_ratio)));
	append(lead, sizeof(lead), v->evidence);
	memcpy(v->evidence, lead, sizeof(v->evidence));
}

/* The known link rate reached (the lab's shaper, a [link] rate, as the
 * payload's share of it: 90 % of it or more): the network's, whatever
 * the CPU; a machine that fills its cores beside a flow at its link's
 * rate did not hold that flow back. */
static bool link_rate_reached(const struct tcp_result *t, const struct tcp_limit_ctx *c)
{
	return c->path_bps && (double)t->goodput_bps >= 0.9 * (double)c->path_bps;
}

/* An overlay's flow far below what the underlay carried over the same
 * network, with a queue and no thread at a core: the queue was at a host,
 * in the overlay's hand-offs (its TUN, its sockets, its threads waking
 * each other), not on the network. */
static void overlay_hosts(const struct tcp_result *t, const struct tcp_limit_ctx *c,
			  struct tcp_limit_verdict *v)
{
	char a[32], m[96] = "";

	if (c->host_cpus)
		snprintf(m, sizeof(m), "; %s's %u cores %.0f %% busy with the test",
			 c->machine_host, c->host_cpus, c->host_busy * 100);
	else if (c->machine_cpus)
		snprintf(m, sizeof(m), "; the machine's %u cores %.0f %% busy", c->machine_cpus,
			 c->machine_busy * 100);
	v->limit = TCP_LIMIT_HOST_CPU;
	snprintf(v->evidence, sizeof(v->evidence),
		 "the underlay carried %s over the same network, %.1f times this flow: not "
		 "the network's rate; %s %.2f ms above its least (a queue at a host), %.3f "
		 "%% of the bytes resent, no thread at a core (sending %.0f %%, receiving "
		 "%.0f %%, the overlay's %.0f %%)%s",
		 results_fmt_bps(a, sizeof(a), (double)c->underlay_bps),
		 (double)c->underlay_bps / (double)t->goodput_bps, tcp_limit_rtt_read(v),
		 v->queue_ms, v->retrans_ratio * 100, v->sender_cpu * 100, v->receiver_cpu * 100,
		 c->overlay_cpu * 100, m);
	snprintf(v->fix, sizeof(v->fix),
		 "CPU for the overlay's processes on the hosts: more cores, its threads on "
		 "cores of their own (a profile of them, perf record -g, says where their time "
		 "goes); not the network");
}

/* The bottleneck a queue (or BBR's rate, bbr its words; else NULL) shows:
 * the overlay's hosts when the underlay carried far more over the same
 * network, a host busy in every core, unknown while a host's CPU on the
 * path is unread, else the network's rate. */
static void bottleneck(const struct tcp_result *t, const struct tcp_limit_ctx *c, const char *bbr,
		       struct tcp_limit_verdict *v)
{
	if (c->underlay_bps && t->goodput_bps &&
	    (double)t->goodput_bps * TCP_LIMIT_UNDERLAY_ROOM < (double)c->underlay_bps)
		overlay_hosts(t, c, v);
	else if (c->host_cpus && c->host_busy >= TCP_LIMIT_MACHINE_BOUND)
		tcp_limit_host_busy(c, v);
	else if (c->cpu_unknown && c->trial_drop.kind != TCP_DROP_SHAPER)
		undecided(t, c, bbr, v);
	else
		network_rate(t, c, bbr, v);
	if (bbr && v->limit == TCP_LIMIT_HOST_CPU)
		lead_with_bbr(t, v);
}

static void window_causes(const struct tcp_result *t, const struct tcp_limit_ctx *c,
			  struct tcp_limit_verdict *v)
{
	const struct tcp_end_limits *s = &t->sender_limits;
	const struct tcp_limit_drop *d = drop_seen(c);
	double min_ms = s->min_rtt_us / 1e3;
	bool host_drop = d && d->kind == TCP_DROP_HOST && v->retrans_ratio >= 1e-4;

	/* a known link rate reached is the network's, whatever else; so is a
	 * shaper (or a full interface queue) seen holding or dropping this
	 * test's packets where no host's place dropped them */
	if (link_rate_reached(t, c) || (c->trial_drop.kind == TCP_DROP_SHAPER && !host_drop)) {
		network_rate(t, c, NULL, v);
		return;
	}
	/* BBR far above what a loss-based control carries at this loss ran at
	 * the bottleneck rate it measured: the loss cost bytes, not rate, and
	 * the bottleneck is decided as a queue's is (BBR keeps little queue,
	 * so its round trip at the test's end says nothing either way) */
	if (!host_drop && tcp_limit_bbr_unslowed(t, c, v)) {
		char bbr[sizeof(v->evidence)];

		tcp_limit_bbr_words(bbr, sizeof(bbr), t, c, v);
		bottleneck(t, c, bbr, v);
		return;
	}
	/* a bottleneck's tail-drop queue drops what congestion control probes
	 * with, far below 1 % of the bytes at any window worth queueing for;
	 * a round trip a little above its least (a loaded link emulator, the
	 * delayed ACKs a window of a few segments waits for) does not outweigh
	 * that much resent, a queue of half the round trip or more (5 ms at
	 * least) does: a bottleneck that drops early (an AQM such as the
	 * built-in overlay's CoDel). But segments a host was seen to drop are
	 * that host's, queue or not. */
	if (!host_drop && queued(v, min_ms) &&
	    (v->retrans_ratio < 0.01 || v->queue_ms >= fmax(5.0, 0.5 * min_ms))) {
		bottleneck(t, c, NULL, v);
		return;
	}
	if (v->retrans_ratio >= 1e-4) {
		loss(t, c, v);
		return;
	}
	v->limit = TCP_LIMIT_CWND;
	snprintf(v->evidence, sizeof(v->evidence),
		 "within the congestion window %.0f %% of the time, with no loss (%.3f %% resent) "
		 "and no queue (%s %.2f ms above its least)",
		 v->cwnd * 100, v->retrans_ratio * 100, tcp_limit_rtt_read(v), v->queue_ms);
	snprintf(v->fix, sizeof(v->fix),
		 "a longer test (-t, or -O to leave slow start out): the window was still "
		 "growing");
}

/* The queue: the sender's round trip above its least, its median over
 * the measured window where the sender read it so. Not one reading at the
 * end: a flow held by random loss to a window of a few segments waits on
 * the receiver's delayed ACK now and then (RFC 1122 4.2.3.2: up to 500
 * ms; Linux's 40 ms at the least), and each such sample lifts the smoothed
 * round trip by an eighth of it (RFC 6298 2.3) for a few round trips: a
 * reading 5 ms above its least beside a 2 ms path, 2 % of the time, a
 * queue's figure with no queue. A bottleneck's queue holds the round trip
 * up most of the time, and the median keeps it. */
static void queue_of(const struct tcp_result *t, struct tcp_limit_verdict *v)
{
	const struct tcp_end_limits *s = &t->sender_limits;
	uint32_t rtt = s->rtt_median_us ? s->rtt_median_us : t->sender.rtt_us;

	v->queue_median = s->rtt_median_us != 0;
	v->queue_ms = s->min_rtt_us && rtt > s->min_rtt_us ? (rtt - s->min_rtt_us) / 1e3 : 0;
}

/* In flight against a window: the window binds when 80 % of it is used. */
#define WINDOW_USED 0.8

static void application(const struct tcp_result *t, const struct tcp_limit_ctx *c,
			struct tcp_limit_verdict *v)
{
	char a[32], b[32];

	v->limit = TCP_LIMIT_APPLICATION;
	if (c->rate_bps) {
		snprintf(v->evidence, sizeof(v->evidence),
			 "the test asked for %s (-b) and got %s (the write queue empty %.0f %% of "
			 "the time)",
			 results_fmt_bps(a, sizeof(a), (double)c->rate_bps),
			 results_fmt_bps(b, sizeof(b), (double)t->goodput_bps), v->app * 100);
		snprintf(v->fix, sizeof(v->fix), "none: it ran at the rate asked");
		return;
	}
	snprintf(v->evidence, sizeof(v->evidence),
		 "the write queue was empty %.0f %% of the time, its busiest thread at %.0f %% "
		 "of a core: the sending application wrote no faster",
		 v->app * 100, v->sender_cpu * 100);
	snprintf(v->fix, sizeof(v->fix),
		 "the application's writes (larger ones: -l), not the network");
}

void tcp_limit_judge(const struct tcp_result *t, const struct tcp_limit_ctx *c,
		     struct tcp_limit_verdict *v)
{
	const struct tcp_end_limits *s = &t->sender_limits, *d = &t->receiver_limits;
	const char *snd_host = c->snd_host  ? c->snd_host
			       : c->reverse ? "the far host"
					    : "this host";
	const char *rcv_host = c->rcv_host  ? c->rcv_host
			       : c->reverse ? "this host"
					    : "the far host";
	double inflight;

	memset(v, 0, sizeof(*v));
	if (!s->known || !s->chrono || s->window_s <= 0) {
		snprintf(v->evidence, sizeof(v->evidence), "%s",
			 !s->known    ? "the sending end did not report its limits"
			 : !s->chrono ? "the sender's kernel keeps no chronographs (4.19+)"
				      : "no measured time");
		return;
	}
	shares(s, v);
	v->retrans_ratio = s->bytes_sent ? (double)s->bytes_retrans / (double)s->bytes_sent : 0;
	v->rtt_ms = t->sender.rtt_us / 1e3;
	queue_of(t, v);
	inflight = v->needed_window_B = (double)t->goodput_bps * v->rtt_ms / 1e3 / 8;
	v->cwnd_B = (double)t->sender.snd_cwnd * t->sender.snd_mss;
	v->rwnd_B = s->snd_wnd;
	v->sender_cpu = s->thread_cpu;
	v->receiver_cpu = d->known ? d->thread_cpu : 0;

	/* the write queue mostly empty, or the rate asked reached (a paced
	 * writer keeps the queue from emptying at a round trip shorter than
	 * its writes' spacing): nothing more to send, whatever the windows */
	if (c->rate_bps && (double)t->goodput_bps >= 0.95 * (double)c->rate_bps) {
		application(t, c, v);
		return;
	}
	if (v->app >= 0.5) {
		if (v->sender_cpu >= TCP_LIMIT_CPU_BOUND) {
			v->limit = TCP_LIMIT_SENDER_CPU;
			tcp_limit_cpu(snd_host, "sending", v->sender_cpu, true, v);
			return;
		}
		application(t, c, v);
		return;
	}
	/* the peer's window nearly full, and no larger than the congestion
	 * window (a reader too slow closes it too); but the segments a loss
	 * left out of order fill the receiver's buffer and shrink its window
	 * for a while: with 1 % resent or more, the window binds only if it
	 * stalled the sender longer than the congestion window held it */
	if (v->rwnd_B > 0 && inflight >= WINDOW_USED * v->rwnd_B &&
	    (v->rwnd >= v->cwnd || (v->rwnd_B <= v->cwnd_B && v->retrans_ratio < 0.01))) {
		if (v->receiver_cpu >= TCP_LIMIT_CPU_BOUND) {
			v->limit = TCP_LIMIT_RECEIVER_CPU;
			tcp_limit_cpu(rcv_host, "receiving", v->receiver_cpu, false, v);
			return;
		}
		v->limit = TCP_LIMIT_RWND;
		rwnd(t, c, rcv_host, v);
		return;
	}
	if (v->cwnd_B > 0 && inflight >= WINDOW_USED * v->cwnd_B) {
		if (link_rate_reached(t, c) || !tcp_limit_cpu_bound(c, snd_host, rcv_host, v))
			window_causes(t, c, v);
		return;
	}
	/* less in flight than either window allowed, and stalls on the send
	 * buffer counted (autotuning at its maximum alone is no proof: after
	 * losses it holds what waits for the holes' repair, so with 1 % resent
	 * or more the stalls must outweigh the congestion window's time) */
	if (v->sndbuf >= 0.05 && (v->retrans_ratio < 0.01 || v->sndbuf >= v->cwnd)) {
		/* a throttled daemon on the sending host backs its queue up into
		 * the send buffer: the daemon is the limit, not the buffer */
		if (tcp_limit_overlay_bound(c, v))
			return;
		v->limit = TCP_LIMIT_SNDBUF;
		sndbuf(t, c, snd_host, v);
		return;
	}
	if (link_rate_reached(t, c) || !tcp_limit_cpu_bound(c, snd_host, rcv_host, v))
		window_causes(t, c, v);
}

void tcp_limit_drop_of(const struct tcp_result *t, bool overlay, const char *process, char *place,
		       size_t len, struct tcp_limit_drop *d)
{
	const struct tcp_drops *x = &t->drops;
	const uint64_t n[] = { x->sender_link_tx, x->receiver_link_rx, x->receiver_udp_drops,
			       x->tunnel, x->backlog };
	const char *const where[] = {
		overlay ? "the sending host's interfaces (its TUN among them: tx drops)"
			: "the sending host's interfaces (tx drops)",
		"the receiving host's interfaces (rx drops)",
		overlay ? "the receiving host's UDP sockets (the overlay's: receive buffer drops)"
			: "the receiving host's UDP sockets (receive buffer drops)",
		"the built-in overlay's daemons (their own drops: ovlperf tunnel show)",
		"a CPU's backlog (softnet_stat dropped; net.core.netdev_max_backlog)",
	};
	unsigned best = 0;

	memset(d, 0, sizeof(*d));
	if (!x->known)
		return;
	for (unsigned i = 1; i < sizeof(n) / sizeof(n[0]); i++)
		if (n[i] > n[best])
			best = i;
	/* a host's counters count every packet of that host: a tenth of the
	 * segments resent is the test's, not a stray drop of other traffic */
	if (n[best] && n[best] * 10 >= t->sender.retransmits) {
		d->kind = TCP_DROP_HOST;
		d->count = n[best];
		snprintf(place, len, "%s", where[best]);
		d->place = place;
		/* the TUN's reader and the socket's owner: the overlay's daemon */
		if (overlay && (best == 0 || best == 2))
			d->process = process;
		if (overlay && !process && best == 0)
			d->fix =
				"the process reading the overlay's TUN on the sending host (not "
				"read "
				"here) did not take packets as fast as they came: more CPU for it, "
				"not a longer queue";
		if (overlay && !process && best == 2)
			d->fix = "the overlay's or VPN's process owning that socket on the "
				 "receiving "
				 "host (not read here: ss -uapm there names it) did not read it as "
				 "fast as packets came: its CPU or its receive buffer, not the "
				 "network";
		if (best == 4)
			d->fix = "a longer backlog on the host whose CPU dropped them (sysctl "
				 "net.core.netdev_max_backlog), or its receive work spread over "
				 "more "
				 "CPUs (RPS: /sys/class/net/DEV/queues/rx-N/rps_cpus)";
		if (best == 3)
			d->fix = "more CPU for the overlay's daemon that dropped them (a core of "
				 "its "
				 "own, its cgroup's quota): ovlperf tunnel show on each host names "
				 "the "
				 "counter (under_load, no_slot: it could not keep up; decrypt, "
				 "replay: "
				 "the path corrupts or reorders)";
		return;
	}
	if (x->qdisc_read && (x->qdisc_held || x->qdisc_drops) && x->qdisc_if[0]) {
		d->kind = TCP_DROP_SHAPER;
		d->count = x->qdisc_drops;
		snprintf(place, len,
			 "the sending host's qdisc %s on %s, which held packets back %llu times",
			 x->qdisc_kind, x->qdisc_if, (unsigned long long)x->qdisc_held);
		d->place = place;
	}
}

void tcp_limit_of(const struct load_result *r, uint64_t path_bps, struct tcp_limit_verdict *v)
{
	char why[160], place[96];
	struct tcp_facts_words w;
	/* ovlperf client reads its test's threads at both ends, and no
	 * overlay's or VPN's process on either: a queue may be one at a core */
	struct tcp_limit_ctx c = { .reverse = r->spec.reverse,
				   .rate_bps = r->spec.rate_bps,
				   .sock_buf = r->spec.sock_buf,
				   .path_bps = path_bps,
				   .cpu_unknown = why,
				   .congestion = r->spec.reverse ? r->cc_peer : r->cc_local };

	snprintf(why, sizeof(why),
		 "the far host's CPU not reported: server %s; nor an overlay's or VPN's "
		 "process on this host read",
		 r->server_version[0] ? r->server_version : "of an unknown version");

	if (r->spec.proto != LOAD_TCP) {
		memset(v, 0, sizeof(*v));
		snprintf(v->evidence, sizeof(v->evidence), "not a TCP test");
		return;
	}
	tcp_limit_drop_of(&r->tcp, false, NULL, place, sizeof(place), &c.trial_drop);
	/* this build's client reads its host's facts: both ends' decide */
	if (r->facts_client.known)
		tcp_limit_from_facts(r->spec.reverse ? &r->facts_server : &r->facts_client,
				     r->spec.reverse ? &r->facts_client : &r->facts_server,
				     r->spec.reverse ? "the far host" : "this host",
				     r->spec.reverse ? "this host" : "the far host",
				     r->tcp.sender.retransmits, &w, &c);
	tcp_limit_judge(&r->tcp, &c, v);
}
