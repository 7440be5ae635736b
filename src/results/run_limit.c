// SPDX-License-Identifier: MIT
/* What limited each figure of a run (contract in run_limit.h). */
#include <stdio.h>
#include <string.h>

#include "layer.h"
#include "loss_place.h"
#include "run_limit.h"

void results_trial_tcp_limit(const struct results_run *run, const struct results_trial *t,
			     struct tcp_limit_verdict *v)
{
	char host[24], qhost[24];
	unsigned ncpu = run->host.ncpu;
	struct tcp_limit_ctx c = {
		.rate_bps = t->target_bps,
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
		.overlay_quota_host = qhost,
		.overlay_process = t->overlay_process[0] ? t->overlay_process : NULL,
		.overlay_quota_process =
			t->overlay_quota_process[0] ? t->overlay_quota_process : NULL,
		.overlay_quota_thread = t->overlay_quota_thread[0] ? t->overlay_quota_thread : NULL,
		.overlay_quota_thread_cpu = t->overlay_quota_thread_cpu,
		.duration_s = t->duration_s,
	};

	snprintf(host, sizeof(host), "lab host %u", t->overlay_thread_host);
	snprintf(qhost, sizeof(qhost), "lab host %u", t->overlay_quota_host);
	/* the CPU busiest in softirq (the machine's, every lab host's) */
	for (unsigned i = 0; i < t->softirq_ncpu; i++)
		if (t->softirq[i] > c.softirq_share) {
			c.softirq_share = t->softirq[i];
			c.softirq_cpu = i;
		}
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
		if (v.limit == TCP_LIMIT_UNKNOWN || (unsigned)v.limit > TCP_LIMIT_HOST_CPU)
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
	[NDR_LIMIT_UNKNOWN] = "unknown",   [NDR_LIMIT_GENERATOR] = "generator",
	[NDR_LIMIT_MAX_RATE] = "max rate", [NDR_LIMIT_NETWORK_RATE] = "network rate",
	[NDR_LIMIT_NETWORK] = "network",   [NDR_LIMIT_OVERLAY_CPU] = "overlay CPU",
	[NDR_LIMIT_OVERLAY] = "overlay",   [NDR_LIMIT_HOST_CPU] = "machine CPU",
	[NDR_LIMIT_SENDER] = "sender",	   [NDR_LIMIT_RECEIVER] = "receiver",
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
	case LOSS_PLACE_SENDER_SOCKET:
	case LOSS_PLACE_SENDER_IF:
		return NDR_LIMIT_SENDER;
	case LOSS_PLACE_RECEIVER_OTHER:
		/* over an overlay the other socket that overflowed is its daemon's */
		return overlay ? NDR_LIMIT_OVERLAY : NDR_LIMIT_RECEIVER;
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
static void lost_evidence(const struct ndr_limit_verdict *v, size_t lost, char *buf, size_t len)
{
	char a[32], b[32];
	int n;

	n = snprintf(buf, len, "above the NDR (%s) the first rate to lose, %s, lost %.3g %%",
		     results_fmt_bps(a, sizeof(a), (double)v->ndr_bps),
		     results_fmt_bps(b, sizeof(b), (double)v->fail_bps), v->fail_loss_pct);
	if (n > 0 && (size_t)n < len && v->place >= 0 && lost)
		n += snprintf(buf + n, len - (size_t)n,
			      "; of what every trial above the NDR lost, %.0f %% at %s",
			      v->place_share * 100, loss_place_name((enum loss_place)v->place));
	if (n > 0 && (size_t)n < len && v->overlay_thread[0])
		n += snprintf(buf + n, len - (size_t)n,
			      "; the overlay's busiest thread, %s%s%s%s on lab host %u, at %.0f %% "
			      "of a core",
			      v->overlay_thread, v->overlay_process[0] ? " (process " : "",
			      v->overlay_process, v->overlay_process[0] ? ")" : "", v->overlay_host,
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
		return true;
	}
	v->fail_bps = kp->loss_at_bps;
	if (at_link_rate(run, sum, p, len, v))
		return true;
	t = v->fail_bps ? failing_trial(run, p, len, v->fail_bps) : NULL;
	if (!t) {
		snprintf(v->evidence, sizeof(v->evidence),
			 "no trial that lost above the NDR was recorded");
		return true;
	}
	v->fail_loss_pct = 100.0 - results_delivered_pct(&t->udp);
	for (int i = 0; i < LOSS_PLACE_COUNT; i++) {
		uint64_t c = loss_place_count(&kp->loss_at, (enum loss_place)i);

		lost += c;
		if (c > most) {
			most = c;
			v->place = i;
		}
	}
	v->place_share = lost ? (double)most / (double)lost : 0;
	if (t->overlay_thread[0]) {
		v->overlay_cpu = t->overlay_thread_cpu;
		v->overlay_host = t->overlay_thread_host;
		snprintf(v->overlay_thread, sizeof(v->overlay_thread), "%s", t->overlay_thread);
		snprintf(v->overlay_process, sizeof(v->overlay_process), "%s", t->overlay_process);
	}
	/* held at its quota a tenth of the trial: the quota is the limit */
	if (t->overlay_quota_cores > 0 && t->overlay_throttled_s >= 0.1 * t->duration_s)
		v->throttled_s = t->overlay_throttled_s;
	if (ncpu && t->duration_s > 0 && t->host_cpu_s > 0)
		v->machine_busy = t->host_cpu_s / t->duration_s / ncpu;
	lost_evidence(v, lost, v->evidence, sizeof(v->evidence));

	if (v->overlay_cpu >= TCP_LIMIT_CPU_BOUND || v->throttled_s > 0) {
		v->limit = NDR_LIMIT_OVERLAY_CPU;
		if (v->throttled_s > 0)
			snprintf(v->fix, sizeof(v->fix),
				 "a larger CPU quota for the overlay's daemon on lab host %u (its "
				 "cgroup's cpu.cfs_quota_us or cpu.max: %.2f cores now)",
				 t->overlay_quota_host, t->overlay_quota_cores);
		else
			snprintf(v->fix, sizeof(v->fix),
				 "more CPU for the overlay's %s on lab host %u: a faster core, a "
				 "cheaper cipher, or an overlay that spreads its work over more "
				 "threads",
				 v->overlay_thread, v->overlay_host);
		return true;
	}
	v->limit = place_limit(run, p, v->place);
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
		loss_place_fix(v->fix, sizeof(v->fix), &kp->loss_at, (enum loss_place)v->place);
	return true;
}
