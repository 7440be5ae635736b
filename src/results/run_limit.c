// SPDX-License-Identifier: MIT
/* What limited each figure of a run (contract in run_limit.h). */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "layer.h"
#include "loss_place.h"
#include "run_limit.h"

/* Why a host's CPU on path p was not read for trial t (NULL: it all was).
 * In a lab every host is this machine, read whole; between hosts the far
 * one reports its test threads, not the overlay's or a VPN's process. */
static const char *cpu_unknown(const struct results_run *run, const struct results_trial *t,
			       unsigned p)
{
	bool overlay = p < run->npaths && run->paths[p].kind != RESULTS_PATH_UNDERLAY;
	bool daemon_read = t->overlay_thread[0] || t->overlay_quota_process[0];

	if (!overlay || (run->nlinks && daemon_read))
		return NULL;
	if (run->nlinks)
		return "the overlay's daemon CPU was not read (an external overlay with no "
		       "process = key)";
	return "the far host's CPU not reported: its server sends no host facts, and the "
	       "overlay's or VPN's process there was not read";
}

/* Adds l's places to by and all; the place of the most so far in *best,
 * the attribution that made it so in *at. Returns what l counted. */
static uint64_t add_places(const struct loss_attrib *l, uint64_t by[LOSS_PLACE_COUNT],
			   uint64_t *all, int *best, const struct loss_attrib **at)
{
	uint64_t sum = 0;

	for (int pl = 0; pl < LOSS_PLACE_COUNT; pl++) {
		uint64_t c = loss_place_count(l, (enum loss_place)pl);

		by[pl] += c;
		sum += c;
		if (c && (*best < 0 || by[pl] > by[*best])) {
			*best = pl;
			*at = l;
		}
	}
	*all += sum;
	return sum;
}

/* The place path p's UDP knee trials lost most at, summed over its knees
 * (each at the first rate above its NDR that lost, or, where that trial's
 * loss was too small to count at any place, its repetition's trials at
 * that rate and above: a knee whose NDR stands on the exceed ratio), as
 * the TCP verdict's evidence of where that path drops. */
static void udp_drop(const struct results_run *run, unsigned p, const struct tcp_limit_ctx *ctx,
		     char *fix, size_t fixlen, struct tcp_limit_drop *d)
{
	uint64_t by[LOSS_PLACE_COUNT] = { 0 }, all = 0;
	const struct loss_attrib *at = NULL;
	bool overlay = p < run->npaths && run->paths[p].kind != RESULTS_PATH_UNDERLAY;
	int best = -1;

	for (size_t i = 0; i < run->nknees; i++) {
		const struct results_knee *k = &run->knees[i];

		if (k->path != p || !k->loss_at_bps)
			continue;
		if (add_places(&k->loss_at, by, &all, &best, &at))
			continue;
		for (size_t j = 0; j < run->ntrials; j++) {
			const struct results_trial *t = &run->trials[j];

			if (t->kind == RESULTS_TRIAL_KNEE && t->path == p && t->rep == k->rep &&
			    t->len == k->len && t->target_bps >= k->loss_at_bps && !t->status)
				add_places(&t->udp.loss_at, by, &all, &best, &at);
		}
	}
	memset(d, 0, sizeof(*d));
	if (best < 0)
		return;
	d->kind = best == LOSS_PLACE_NETWORK
			  ? (loss_place_network_seen(at) ? TCP_DROP_NETWORK : TCP_DROP_UNACCOUNTED)
		  : best == LOSS_PLACE_SENDER_QDISC ? TCP_DROP_SHAPER
						    : TCP_DROP_HOST;
	d->place = loss_place_name_at(at, (enum loss_place)best);
	d->share = (double)by[best] / (double)all;
	/* the overlay's daemon reads the sender's TUN and owns the other
	 * socket that overflows at the receiver: the busiest one the lab or
	 * either end's host facts read (ctx, filled from both) */
	if (overlay && (best == LOSS_PLACE_SENDER_IF || best == LOSS_PLACE_TUNNEL ||
			best == LOSS_PLACE_RECEIVER_OTHER)) {
		d->process = ctx->overlay_process	  ? ctx->overlay_process
			     : ctx->overlay_quota_process ? ctx->overlay_quota_process
							  : NULL;
		d->process_cpu = ctx->overlay_thread ? ctx->overlay_cpu : 0;
		d->thread = ctx->overlay_thread;
		d->quota_cores = ctx->overlay_throttled_s > 0 ? ctx->overlay_quota_cores : 0;
	}
	loss_place_fix_on(fix, fixlen, at, (enum loss_place)best, overlay, d->process,
			  d->process_cpu);
	d->fix = fix;
}

/* A lab link's rate as TCP payload on the trial's path: the slowest
 * link's tbf counts frames (docs/shaped.md), of which a full segment
 * carries its MSS; over an overlay its packet grows by the MTUs'
 * difference. 0: no link rate, or no MSS recorded. */
static uint64_t lab_path_bps(const struct results_run *run, const struct results_trial *t)
{
	uint64_t rate = 0;
	uint32_t mss = t->tcp.sender.snd_mss;
	int fam = t->path < run->npaths ? results_path_family(&run->paths[t->path]) : 0,
	    base = results_underlay(run);
	double frame;

	for (unsigned i = 0; i < run->nlinks; i++)
		if (run->links[i].rate_bps && (!rate || run->links[i].rate_bps < rate))
			rate = run->links[i].rate_bps;
	if (!rate || !mss || t->path >= run->npaths)
		return 0;
	/* IP, TCP with timestamps, the Ethernet header a tbf counts */
	frame = mss + (fam == AF_INET6 ? 40 : 20) + 32 + 14;
	if (run->paths[t->path].kind != RESULTS_PATH_UNDERLAY && base >= 0 &&
	    run->paths[base].mtu > run->paths[t->path].mtu && run->paths[t->path].mtu)
		frame += run->paths[base].mtu - run->paths[t->path].mtu;
	return (uint64_t)((double)rate * mss / frame);
}

/* The most TCP goodput the run's underlay reached at t's stream count,
 * for an overlay's trial t; 0 for the underlay's own, or none. */
static uint64_t underlay_bps(const struct results_run *run, const struct results_trial *t)
{
	int base = results_underlay(run);
	uint64_t most = 0;

	if (base < 0 || t->path == (unsigned)base)
		return 0;
	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *u = &run->trials[i];

		if (u->kind == RESULTS_TRIAL_TCP && u->path == (unsigned)base && !u->status &&
		    u->streams == t->streams && u->tcp.goodput_bps > most)
			most = u->tcp.goodput_bps;
	}
	return most;
}

void results_trial_tcp_limit(const struct results_run *run, const struct results_trial *t,
			     struct tcp_limit_verdict *v)
{
	char host[24], qhost[24], fix[384], place[96];
	struct tcp_facts_words w;
	bool overlay = t->path < run->npaths && run->paths[t->path].kind != RESULTS_PATH_UNDERLAY;
	unsigned ncpu = run->host.ncpu;
	struct tcp_limit_ctx c = {
		.rate_bps = t->target_bps,
		.path_bps = lab_path_bps(run, t),
		.underlay_bps = underlay_bps(run, t),
		.machine_cpus = t->host_cpu_s > 0 ? ncpu : 0,
		.machine_busy =
			ncpu && t->duration_s > 0 ? t->host_cpu_s / t->duration_s / ncpu : 0,
		.snd_host = "the sending host",
		.rcv_host = "the receiving host",
		.overlay_cpu = t->overlay_thread[0] ? t->overlay_thread_cpu : 0,
		.overlay_thread = t->overlay_thread[0] ? t->overlay_thread : NULL,
		.overlay_host = host,
		.overlay_quota_cores = t->overlay_quota_cores,
		.overlay_quota_used = t->overlay_quota_used,
		.overlay_throttled_s = t->overlay_throttled_s,
		.overlay_throttled_share = t->overlay_throttled_share,
		.overlay_quota_host = qhost,
		.overlay_process = t->overlay_process[0] ? t->overlay_process : NULL,
		.overlay_quota_process =
			t->overlay_quota_process[0] ? t->overlay_quota_process : NULL,
		.overlay_quota_thread = t->overlay_quota_thread[0] ? t->overlay_quota_thread : NULL,
		.overlay_quota_thread_cpu = t->overlay_quota_thread_cpu,
		.duration_s = t->duration_s,
		.cpu_unknown = cpu_unknown(run, t, t->path),
		.congestion = t->congestion,
	};

	snprintf(host, sizeof(host), "lab host %u", t->overlay_thread_host);
	snprintf(qhost, sizeof(qhost), "lab host %u", t->overlay_quota_host);
	/* the CPU busiest in softirq (the machine's, every lab host's) */
	for (unsigned i = 0; i < t->softirq_ncpu; i++)
		if (t->softirq[i] > c.softirq_share) {
			c.softirq_share = t->softirq[i];
			c.softirq_cpu = i;
		}
	tcp_limit_drop_of(&t->tcp, overlay,
			  t->overlay_process[0]		? t->overlay_process
			  : t->overlay_quota_process[0] ? t->overlay_quota_process
							: NULL,
			  place, sizeof(place), &c.trial_drop);
	/* the lab's read of the daemon, for a drop its own counters placed;
	 * one the host facts place below carries its reader's own CPU */
	if (c.trial_drop.process) {
		c.trial_drop.process_cpu = t->overlay_thread[0] ? t->overlay_thread_cpu : 0;
		c.trial_drop.thread = t->overlay_thread[0] ? t->overlay_thread : NULL;
		c.trial_drop.quota_cores = t->overlay_throttled_s > 0 ? t->overlay_quota_cores : 0;
	}
	/* both ends' host facts where this build's client read its own */
	if (t->facts_client.known)
		tcp_limit_from_facts(t->reverse ? &t->facts_server : &t->facts_client,
				     t->reverse ? &t->facts_client : &t->facts_server,
				     t->reverse ? "the server's host" : "the client's host",
				     t->reverse ? "the client's host" : "the server's host",
				     t->tcp.sender.retransmits, &w, &c);
	udp_drop(run, t->path, &c, fix, sizeof(fix), &c.udp_drop);
	tcp_limit_judge(&t->tcp, &c, v);
}

bool results_tcp_limit_line(const struct results_run *run, unsigned p, unsigned n,
			    struct results_tcp_limit *l)
{
	struct tcp_limit_verdict first[TCP_LIMIT_HOST_CPU + 1], v;
	unsigned count[TCP_LIMIT_HOST_CPU + 1] = { 0 }, order[TCP_LIMIT_HOST_CPU + 1], nk = 0;

	memset(l, 0, sizeof(*l));
	l->path = p;
	l->streams = n;
	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];

		if (t->kind != RESULTS_TRIAL_TCP || t->path != p || t->streams != n || t->status)
			continue;
		results_trial_tcp_limit(run, t, &v);
		/* a trial judged but undecided counts as "unknown", with why */
		if ((v.limit == TCP_LIMIT_UNKNOWN && !v.undecided) ||
		    (unsigned)v.limit > TCP_LIMIT_HOST_CPU)
			continue;
		l->n++;
		if (!count[v.limit]++) {
			first[v.limit] = v;
			order[nk++] = v.limit;
		}
	}
	for (unsigned k = 0; k < nk; k++)
		if (count[order[k]] > l->agree) {
			l->agree = count[order[k]];
			l->v = first[order[k]];
		}
	return l->n > 0;
}

static const char *const ndr_names[] = {
	[NDR_LIMIT_UNKNOWN] = "unknown",	 [NDR_LIMIT_GENERATOR] = "generator",
	[NDR_LIMIT_MAX_RATE] = "max rate",	 [NDR_LIMIT_NETWORK_RATE] = "network rate",
	[NDR_LIMIT_NETWORK] = "network",	 [NDR_LIMIT_OVERLAY_CPU] = "overlay CPU",
	[NDR_LIMIT_OVERLAY] = "overlay",	 [NDR_LIMIT_HOST_CPU] = "machine CPU",
	[NDR_LIMIT_SENDER] = "sender",		 [NDR_LIMIT_RECEIVER] = "receiver",
	[NDR_LIMIT_UNACCOUNTED] = "unaccounted",
};

const char *ndr_limit_name(enum ndr_limit l)
{
	return (unsigned)l < sizeof(ndr_names) / sizeof(ndr_names[0]) ? ndr_names[l] : "unknown";
}

/* Of path p's knee trials at len offered bps, the one that lost most. */
static const struct results_trial *failing_trial(const struct results_run *run, unsigned p,
						 uint32_t len, uint64_t bps)
{
	const struct results_trial *best = NULL;

	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];

		if (t->kind != RESULTS_TRIAL_KNEE || t->path != p || t->len != len ||
		    t->target_bps != bps || t->status)
			continue;
		if (!best || t->udp.lost > best->udp.lost)
			best = t;
	}
	return best;
}

/* A search that ended on a lower bound: the sender's limit, or the search's. */
static void lower_bound(const struct results_knee_point *kp, struct ndr_limit_verdict *v)
{
	char a[32];

	results_fmt_bps(a, sizeof(a), (double)v->ndr_bps);
	if (!strcmp(kp->ndr_outcome, "generator-limit")) {
		v->limit = NDR_LIMIT_GENERATOR;
		snprintf(v->evidence, sizeof(v->evidence),
			 "nothing was lost up to %s, and above it the sender fell short of the "
			 "rate asked (twice at one rate, whatever shorter trials reached): the "
			 "NDR is at least that, a limit of the sender, not of the path",
			 a);
		snprintf(v->fix, sizeof(v->fix),
			 "more sending streams ([udp] streams), larger datagrams, or a sender "
			 "that does not share its cores with the receiver and the overlay (two "
			 "hosts)");
	} else if (!strcmp(kp->ndr_outcome, "above-max")) {
		v->limit = NDR_LIMIT_MAX_RATE;
		snprintf(v->evidence, sizeof(v->evidence),
			 "nothing was lost at the search's maximum rate (%s): the NDR is at "
			 "least that",
			 a);
		snprintf(v->fix, sizeof(v->fix), "a higher [knee] max_rate");
	} else {
		snprintf(v->evidence, sizeof(v->evidence),
			 "the search ended %s at %s: no rate above it was seen to lose",
			 kp->ndr_outcome[0] ? kp->ndr_outcome : "early", a);
	}
}

/* The limit a loss place names (the CPU checks come first, in the caller). */
static enum ndr_limit place_limit(const struct results_run *run, unsigned p, int place)
{
	bool overlay = p < run->npaths && run->paths[p].kind != RESULTS_PATH_UNDERLAY;

	switch (place) {
	case LOSS_PLACE_SENDER_QDISC:
		return NDR_LIMIT_NETWORK_RATE;
	case LOSS_PLACE_NETWORK:
		return NDR_LIMIT_NETWORK;
	case LOSS_PLACE_TUNNEL:
		return NDR_LIMIT_OVERLAY;
	case LOSS_PLACE_SENDER_IF:
		/* over an overlay the sender's interface that drops is its TUN,
		 * full when its daemon does not read it as fast */
		return overlay ? NDR_LIMIT_OVERLAY : NDR_LIMIT_SENDER;
	case LOSS_PLACE_SENDER_SOCKET:
		return NDR_LIMIT_SENDER;
	case LOSS_PLACE_RECEIVER_OTHER:
		/* over an overlay the other socket that overflowed is its daemon's */
		return overlay ? NDR_LIMIT_OVERLAY : NDR_LIMIT_RECEIVER;
	case LOSS_PLACE_BACKLOG:
	case LOSS_PLACE_RECEIVER_IF:
	case LOSS_PLACE_RECEIVER_UDP:
	case LOSS_PLACE_RECEIVER_SOCKET:
		return NDR_LIMIT_RECEIVER;
	default:
		return NDR_LIMIT_UNKNOWN;
	}
}

/* The evidence of a knee that lost above its NDR: the rate, the place and
 * the CPU of the trial that lost. */
static void lost_evidence(const struct ndr_limit_verdict *v, const struct loss_attrib *at,
			  size_t lost, char *buf, size_t len)
{
	char a[32], b[32];
	int n;

	/* a search whose every load lost found no NDR: no "NDR (0 bit/s)" */
	if (v->ndr_bps && v->fail_loss_pct <= 0 && v->fail_queued_ms > 0)
		/* the search's first bad load lost nothing in its trials: its
		 * queue grew, and would have overflowed in a longer one */
		n = snprintf(buf, len,
			     "above the NDR (%s) the first rate to fail, %s, lost nothing in its "
			     "trial but its queue grew %.3g ms through it",
			     results_fmt_bps(a, sizeof(a), (double)v->ndr_bps),
			     results_fmt_bps(b, sizeof(b), (double)v->fail_bps), v->fail_queued_ms);
	else if (v->ndr_bps)
		n = snprintf(buf, len,
			     "above the NDR (%s) the first rate to lose, %s, lost %.3g %%",
			     results_fmt_bps(a, sizeof(a), (double)v->ndr_bps),
			     results_fmt_bps(b, sizeof(b), (double)v->fail_bps), v->fail_loss_pct);
	else if (v->fit_bps)
		/* a soft knee: no search's trial at a load is the figure, the
		 * fit of all of them is (results_knee_head.c) */
		n = snprintf(buf, len,
			     "no load tried was lossless: the lowest, %s, lost %.3g %%; a soft "
			     "knee, whose NDR is the fit of every trial, ~%s",
			     results_fmt_bps(b, sizeof(b), (double)v->fail_bps), v->fail_loss_pct,
			     results_fmt_bps(a, sizeof(a), (double)v->fit_bps));
	else
		n = snprintf(
			buf, len,
			"no load tried was lossless: the lowest, %s, lost %.3g %%, so there is "
			"no NDR",
			results_fmt_bps(b, sizeof(b), (double)v->fail_bps), v->fail_loss_pct);
	if (n > 0 && (size_t)n < len && v->place >= 0 && lost)
		n += snprintf(
			buf + n, len - (size_t)n, "; of what every trial %s lost, %.0f %% %s%s",
			v->ndr_bps ? "above the NDR" : "of the search", v->place_share * 100,
			/* "96 % unaccounted: not counted by ..." */
			v->place == LOSS_PLACE_NETWORK && !loss_place_network_seen(at) ? "" : "at ",
			loss_place_name_at(at, (enum loss_place)v->place));
	if (n > 0 && (size_t)n < len && v->overlay_thread[0])
		n += snprintf(
			buf + n, len - (size_t)n,
			"; the overlay's busiest thread, %s%s%s%s on %s, at %.0f %% of a core",
			v->overlay_thread, v->overlay_process[0] ? " (process " : "",
			v->overlay_process, v->overlay_process[0] ? ")" : "", v->overlay_where,
			v->overlay_cpu * 100);
	if (n > 0 && (size_t)n < len && v->throttled_s > 0)
		n += snprintf(buf + n, len - (size_t)n, "; its daemon held at its quota %.2f s",
			      v->throttled_s);
	if (n > 0 && (size_t)n < len && v->machine_busy > 0)
		snprintf(buf + n, len - (size_t)n, "; the machine's cores %.0f %% busy",
			 v->machine_busy * 100);
}

/* The bytes a lab link's tbf counts for one datagram of len on path p:
 * the frame without its FCS (docs/shaped.md); over an overlay its outer
 * datagram, measured by the built-in overlay's daemon, else the inner
 * packet plus the MTUs' difference. 0: unknown. */
static double shaper_bytes(const struct results_run *run, const struct results_summary *sum,
			   unsigned p, uint32_t len)
{
	int fam = results_path_family(&run->paths[p]), base = results_underlay(run);
	double frame = (double)layer_bytes(LAYER_IP, fam, len) + LAYER_ETH_HDR;

	if (run->paths[p].kind == RESULTS_PATH_UNDERLAY)
		return frame;
	for (size_t i = 0; i < sum->nsweep; i++)
		if (sum->sweep[i].path == p && sum->sweep[i].len == len &&
		    sum->sweep[i].outer_line_per_datagram.n)
			return sum->sweep[i].outer_line_per_datagram.median - LAYER_ETH_FCS -
			       LAYER_ETH_WIRE;
	if (base >= 0 && run->paths[base].mtu > run->paths[p].mtu && run->paths[p].mtu)
		return frame + (run->paths[base].mtu - run->paths[p].mtu);
	return 0;
}

/* A lab link shaped at a rate whose payload share the NDR reached (95 %
 * of it, or more: a trial short enough for the shaper's queue to hold its
 * excess passes a little above it): the network's rate. */
static bool at_link_rate(const struct results_run *run, const struct results_summary *sum,
			 unsigned p, uint32_t len, struct ndr_limit_verdict *v)
{
	uint64_t rate = 0;
	double bytes = shaper_bytes(run, sum, p, len), carries;
	char a[32], b[32], c[32];

	for (unsigned i = 0; i < run->nlinks; i++)
		if (run->links[i].rate_bps && (!rate || run->links[i].rate_bps < rate))
			rate = run->links[i].rate_bps;
	if (!rate || bytes <= 0 || !v->ndr_bps)
		return false;
	carries = (double)rate * len / bytes;
	if ((double)v->ndr_bps < 0.95 * carries)
		return false;
	v->limit = NDR_LIMIT_NETWORK_RATE;
	snprintf(v->evidence, sizeof(v->evidence),
		 "the NDR (%s) is %.0f %% of what the lab link's %s shaper carries of %u-byte "
		 "datagrams on this path (%s of payload: %.0f bytes counted a datagram)",
		 results_fmt_bps(a, sizeof(a), (double)v->ndr_bps), 100.0 * v->ndr_bps / carries,
		 results_fmt_bps(b, sizeof(b), (double)rate), len,
		 results_fmt_bps(c, sizeof(c), carries), bytes);
	snprintf(v->fix, sizeof(v->fix),
		 "none on the hosts: this is the link's rate ([lab] rate); a faster link moves it");
	return true;
}

/* The overlay's CPU in the trial that lost: the lab's reading of its
 * daemons, else both ends' host facts (the busiest overlay/VPN thread and
 * a process held at its quota); a quota binds when the kernel held its
 * process there a tenth of the trial or more. */
static void ndr_cpu(const struct results_trial *t, struct ndr_limit_verdict *v)
{
	struct tcp_limit_ctx c = { 0 };
	struct tcp_facts_words w;

	if (t->overlay_thread[0]) {
		c.overlay_cpu = t->overlay_thread_cpu;
		c.overlay_thread = t->overlay_thread;
		c.overlay_process = t->overlay_process;
		snprintf(v->overlay_where, sizeof(v->overlay_where), "lab host %u",
			 t->overlay_thread_host);
	}
	if (t->overlay_quota_cores > 0) {
		c.overlay_quota_cores = t->overlay_quota_cores;
		c.overlay_throttled_s = t->overlay_throttled_s;
		c.overlay_throttled_share = t->overlay_throttled_share;
		snprintf(v->quota_where, sizeof(v->quota_where), "lab host %u",
			 t->overlay_quota_host);
	}
	if (t->facts_client.known) {
		tcp_limit_from_facts(&t->facts_client, &t->facts_server, "the client's host",
				     "the server's host", 0, &w, &c);
		if (!v->overlay_where[0] && c.overlay_host)
			snprintf(v->overlay_where, sizeof(v->overlay_where), "%s", c.overlay_host);
		if (!v->quota_where[0] && c.overlay_quota_host)
			snprintf(v->quota_where, sizeof(v->quota_where), "%s",
				 c.overlay_quota_host);
	}
	if (c.overlay_thread) {
		v->overlay_cpu = c.overlay_cpu;
		snprintf(v->overlay_thread, sizeof(v->overlay_thread), "%s", c.overlay_thread);
		snprintf(v->overlay_process, sizeof(v->overlay_process), "%s",
			 c.overlay_process ? c.overlay_process : "");
	}
	if (c.overlay_quota_cores > 0 && c.overlay_throttled_s > 0 &&
	    (c.overlay_throttled_s >= 0.1 * t->duration_s ||
	     c.overlay_throttled_share >= TCP_LIMIT_QUOTA_PERIODS)) {
		v->throttled_s = c.overlay_throttled_s;
		v->quota_cores = c.overlay_quota_cores;
	}
}

/* Of path p's knee trials at len, the fastest one asked whose client read
 * its host's facts (NULL: none did). */
static const struct results_trial *fastest_with_facts(const struct results_run *run, unsigned p,
						      uint32_t len)
{
	const struct results_trial *best = NULL;

	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];

		if (t->kind != RESULTS_TRIAL_KNEE || t->path != p || t->len != len || t->status ||
		    !t->facts_client.known)
			continue;
		if (!best || t->target_bps > best->target_bps)
			best = t;
	}
	return best;
}

/* A sender's limit beside an overlay whose process the host facts read:
 * on the sender's host it takes the same cores, so its busiest thread is
 * said with the bound ("; the overlay's busiest thread meanwhile, nebula
 * (process nebula) on the client's host, at 45 % of a core"). */
static void lower_bound_cpu(const struct results_run *run, unsigned p, uint32_t len,
			    struct ndr_limit_verdict *v)
{
	const struct results_trial *t = fastest_with_facts(run, p, len);
	size_t n = strlen(v->evidence);

	if (!t || run->paths[p].kind == RESULTS_PATH_UNDERLAY)
		return;
	ndr_cpu(t, v);
	if (v->overlay_thread[0] && n + 1 < sizeof(v->evidence))
		snprintf(v->evidence + n, sizeof(v->evidence) - n,
			 "; the overlay's busiest thread meanwhile, %s%s%s%s on %s, at %.0f %% "
			 "of a core (at %s asked)",
			 v->overlay_thread, v->overlay_process[0] ? " (process " : "",
			 v->overlay_process, v->overlay_process[0] ? ")" : "", v->overlay_where,
			 v->overlay_cpu * 100,
			 results_fmt_bps((char[32]){ 0 }, 32, (double)t->target_bps));
}

bool results_ndr_limit(const struct results_run *run, const struct results_summary *sum, unsigned p,
		       uint32_t len, struct ndr_limit_verdict *v)
{
	const struct results_knee_point *kp = results_find_knee(sum, p, len);
	const struct results_trial *t;
	uint64_t lost = 0, most = 0;
	unsigned ncpu = run->host.ncpu;

	memset(v, 0, sizeof(*v));
	v->place = -1;
	if (!kp)
		return false;
	v->ndr_bps = kp->ndr_bps.n ? (uint64_t)kp->ndr_bps.median : 0;
	if (kp->ndr_lower_bound) {
		lower_bound(kp, v);
		if (!strcmp(kp->ndr_outcome, "generator-limit"))
			lower_bound_cpu(run, p, len, v);
		return true;
	}
	v->fail_bps = kp->loss_at_bps;
	if (kp->ndr_head == RESULTS_HEAD_FIT && kp->ndr_head_bps.n)
		v->fit_bps = (uint64_t)kp->ndr_head_bps.median;
	if (at_link_rate(run, sum, p, len, v))
		return true;
	t = v->fail_bps ? failing_trial(run, p, len, v->fail_bps) : NULL;
	if (!t) {
		snprintf(v->evidence, sizeof(v->evidence),
			 "no trial that lost above the NDR was recorded");
		return true;
	}
	v->fail_loss_pct = 100.0 - results_delivered_pct(&t->udp);
	v->fail_queued_ms = t->udp.queue_growth_ms;
	for (int i = 0; i < LOSS_PLACE_COUNT; i++) {
		uint64_t c = loss_place_count(&kp->loss_at, (enum loss_place)i);

		lost += c;
		if (c > most) {
			most = c;
			v->place = i;
		}
	}
	v->place_share = lost ? (double)most / (double)lost : 0;
	ndr_cpu(t, v);
	if (ncpu && t->duration_s > 0 && t->host_cpu_s > 0)
		v->machine_busy = t->host_cpu_s / t->duration_s / ncpu;
	lost_evidence(v, &kp->loss_at, lost, v->evidence, sizeof(v->evidence));

	if (v->overlay_cpu >= TCP_LIMIT_CPU_BOUND || v->throttled_s > 0) {
		v->limit = NDR_LIMIT_OVERLAY_CPU;
		if (v->throttled_s > 0)
			snprintf(v->fix, sizeof(v->fix),
				 "a larger CPU quota for the overlay's daemon on %s (its cgroup's "
				 "cpu.cfs_quota_us or cpu.max: %.2f cores now)",
				 v->quota_where, v->quota_cores);
		else
			snprintf(v->fix, sizeof(v->fix),
				 "more CPU for the overlay's %s on %s: a faster core, a cheaper "
				 "cipher, or an overlay that spreads its work over more threads",
				 v->overlay_thread, v->overlay_where);
		return true;
	}
	v->limit = place_limit(run, p, v->place);
	if (v->limit == NDR_LIMIT_NETWORK && !loss_place_network_seen(&kp->loss_at))
		v->limit = NDR_LIMIT_UNACCOUNTED;
	if (v->machine_busy >= TCP_LIMIT_MACHINE_BOUND && v->limit != NDR_LIMIT_NETWORK_RATE &&
	    v->limit != NDR_LIMIT_NETWORK) {
		v->limit = NDR_LIMIT_HOST_CPU;
		snprintf(v->fix, sizeof(v->fix),
			 "more cores: the lab's hosts share this machine's %u, and the sender, "
			 "the receiver and the overlay took them all",
			 ncpu);
		return true;
	}
	if (v->place >= 0)
		loss_place_fix_on(v->fix, sizeof(v->fix), &kp->loss_at, (enum loss_place)v->place,
				  run->paths[p].kind != RESULTS_PATH_UNDERLAY,
				  v->overlay_process[0] ? v->overlay_process : NULL,
				  v->overlay_process[0] ? v->overlay_cpu : 0);
	return true;
}
