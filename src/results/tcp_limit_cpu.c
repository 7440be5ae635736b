// SPDX-License-Identifier: MIT
/* A TCP verdict's CPU causes (contract in tcp_limit_int.h): a thread at a
 * full core at either end, the overlay's daemon at its core or its cgroup's
 * quota, a CPU busy in softirq, or every core of a host busy with no
 * thread at one (the lab's machine, or a real host by its host facts). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results.h"
#include "tcp_limit.h"
#include "tcp_limit_int.h"

void tcp_limit_cpu(const char *host, const char *who, double share, bool sender,
		   struct tcp_limit_verdict *v)
{
	snprintf(v->evidence, sizeof(v->evidence),
		 "the busiest %s thread on %s used %.0f %% of a core (queue empty %.0f %%, "
		 "receive window %.0f %%, congestion window %.0f %% of the time)",
		 who, host, share * 100, v->app * 100, v->rwnd * 100, v->cwnd * 100);
	snprintf(v->fix, sizeof(v->fix),
		 sender ? "more streams (-P) to spread the writing over cores, a faster CPU, or "
			  "the offloads that cut the cost per byte (TSO/GSO on %s)"
			: "more streams (-P) to spread the reading over cores, a faster CPU, or "
			  "the offloads that cut the cost per byte (GRO on %s)",
		 host);
}

/* " (wireguard-go, its busiest thread wireguard-go at 19 % of a core)" */
static const char *quota_who(char *buf, size_t len, const struct tcp_limit_ctx *c)
{
	buf[0] = '\0';
	if (c->overlay_quota_process && c->overlay_quota_thread)
		snprintf(buf, len, " (%s, its busiest thread %s at %.0f %% of a core)",
			 c->overlay_quota_process, c->overlay_quota_thread,
			 c->overlay_quota_thread_cpu * 100);
	else if (c->overlay_quota_process)
		snprintf(buf, len, " (%s)", c->overlay_quota_process);
	return buf;
}

/* The overlay's daemon held at its quota or a core: the path's CPU. */
bool tcp_limit_overlay_bound(const struct tcp_limit_ctx *c, struct tcp_limit_verdict *v)
{
	char who[96];

	/* a daemon held at its cgroup's CPU quota (the kernel throttled it,
	 * and it used 90 % of the quota, was throttled a tenth of the test or
	 * in half the quota's periods: a machine busy with more than the lab
	 * starves it below its quota too, and a daemon that reaches its quota
	 * late in a period is held only for the rest of it) holds the path as
	 * a full core does */
	if (c->overlay_quota_cores > 0 && c->overlay_throttled_s > 0 &&
	    (c->overlay_quota_used >= 0.9 * c->overlay_quota_cores ||
	     (c->duration_s > 0 && c->overlay_throttled_s >= 0.1 * c->duration_s) ||
	     c->overlay_throttled_share >= TCP_LIMIT_QUOTA_PERIODS)) {
		v->limit = TCP_LIMIT_OVERLAY_CPU;
		snprintf(v->evidence, sizeof(v->evidence),
			 "the overlay's daemon on %s was held at its cgroup's CPU quota%s: %.2f of "
			 "its %.2f cores used, throttled %.0f ms by the kernel (cpu.stat); %s "
			 "%.2f ms above its least (its queue)",
			 c->overlay_quota_host ? c->overlay_quota_host : "a host",
			 quota_who(who, sizeof(who), c), c->overlay_quota_used,
			 c->overlay_quota_cores, c->overlay_throttled_s * 1e3,
			 tcp_limit_rtt_read(v), v->queue_ms);
		snprintf(v->fix, sizeof(v->fix),
			 "a larger CPU quota for the daemon's cgroup on %s (cpu.cfs_quota_us, or "
			 "cpu.max on cgroup v2): its TCP cannot go faster than the quota lets it",
			 c->overlay_quota_host ? c->overlay_quota_host : "that host");
		return true;
	}
	/* an overlay daemon's thread at a full core holds every packet of the
	 * path, whatever the ends' own threads do */
	if (c->overlay_cpu >= TCP_LIMIT_CPU_BOUND) {
		v->limit = TCP_LIMIT_OVERLAY_CPU;
		snprintf(v->evidence, sizeof(v->evidence),
			 "the overlay's thread %s on %s used %.0f %% of a core%s%s (%s %.2f ms "
			 "above its least: its queue; the ends' busiest threads at %.0f and %.0f "
			 "%%)",
			 c->overlay_thread[0] ? c->overlay_thread : "?",
			 c->overlay_host ? c->overlay_host : "a host", c->overlay_cpu * 100,
			 c->overlay_process ? ", in process " : "",
			 c->overlay_process ? c->overlay_process : "", tcp_limit_rtt_read(v),
			 v->queue_ms, v->sender_cpu * 100, v->receiver_cpu * 100);
		snprintf(v->fix, sizeof(v->fix),
			 "more CPU for the overlay's daemon on %s (more workers on more cores, a "
			 "faster CPU or cipher); its TCP cannot go faster than that thread",
			 c->overlay_host ? c->overlay_host : "that host");
		return true;
	}
	return false;
}

/* One CPU at a full core in softirq: the kernel's packet work (the
 * stack's receive and transmit, NAPI polls, a veth's or a tunnel's
 * forwarding) on that CPU is the limit, whoever's packets they are. */
static bool softirq_bound(const struct tcp_limit_ctx *c, struct tcp_limit_verdict *v)
{
	if (c->softirq_share < TCP_LIMIT_CPU_BOUND)
		return false;
	v->limit = TCP_LIMIT_HOST_CPU;
	snprintf(v->evidence, sizeof(v->evidence),
		 "CPU %u spent %.0f %% of its time in softirq, the kernel's packet work "
		 "(/proc/stat); the busiest threads: sending %.0f %%, receiving %.0f %% of a core",
		 c->softirq_cpu, c->softirq_share * 100, v->sender_cpu * 100,
		 v->receiver_cpu * 100);
	snprintf(v->fix, sizeof(v->fix),
		 "spread the kernel's packet work over more CPUs (more NIC queues: ethtool -L; "
		 "RPS: /sys/class/net/DEV/queues/rx-N/rps_cpus; irqbalance) or a faster CPU: "
		 "CPU %u's packet work cannot go faster",
		 c->softirq_cpu);
	return true;
}

/* Every core of one real host busy (its host facts), no thread at one:
 * that host's CPU, shared by the test, the overlay's or VPN's threads and
 * the kernel's packet work; other work's share said where it was read. */
void tcp_limit_host_busy(const struct tcp_limit_ctx *c, struct tcp_limit_verdict *v)
{
	char other[96] = "", ov[48] = "";

	v->limit = TCP_LIMIT_HOST_CPU;
	if (c->overlay_thread)
		snprintf(ov, sizeof(ov), ", the overlay's %s %.0f %%", c->overlay_thread,
			 c->overlay_cpu * 100);
	if (c->machine_baseline >= 0.05)
		snprintf(other, sizeof(other), ", other work's %.2g cores at rest aside",
			 c->machine_baseline);
	snprintf(v->evidence, sizeof(v->evidence),
		 "%s's %u cores were %.0f %% busy with the test%s, no thread at a core: "
		 "sending %.0f %%, receiving %.0f %%%s",
		 c->machine_host, c->host_cpus, c->host_busy * 100, other, v->sender_cpu * 100,
		 v->receiver_cpu * 100, ov);
	snprintf(v->fix, sizeof(v->fix),
		 "more cores for %s, or less other work there: its test, overlay and packet "
		 "work shared every core; the network was not shown to be the limit",
		 c->machine_host);
}

bool tcp_limit_cpu_bound(const struct tcp_limit_ctx *c, const char *snd_host, const char *rcv_host,
			 struct tcp_limit_verdict *v)
{
	if (tcp_limit_overlay_bound(c, v))
		return true;
	if (v->sender_cpu >= TCP_LIMIT_CPU_BOUND) {
		v->limit = TCP_LIMIT_SENDER_CPU;
		tcp_limit_cpu(snd_host, "sending", v->sender_cpu, true, v);
		return true;
	}
	if (v->receiver_cpu >= TCP_LIMIT_CPU_BOUND) {
		v->limit = TCP_LIMIT_RECEIVER_CPU;
		tcp_limit_cpu(rcv_host, "receiving", v->receiver_cpu, false, v);
		return true;
	}
	if (softirq_bound(c, v))
		return true;
	/* no one thread at a core, but every core busy: the lab's hosts, the
	 * overlay's daemons and the kernel's packet work share one machine */
	if (c->machine_cpus && c->machine_busy >= TCP_LIMIT_MACHINE_BOUND) {
		char ov[48] = "";

		v->limit = TCP_LIMIT_HOST_CPU;
		if (c->overlay_thread)
			snprintf(ov, sizeof(ov), ", the overlay's %s %.0f %%", c->overlay_thread,
				 c->overlay_cpu * 100);
		snprintf(v->evidence, sizeof(v->evidence),
			 "the machine's %u cores were %.0f %% busy, its busiest threads (of a "
			 "core): sending %.0f %%, receiving %.0f %%%s",
			 c->machine_cpus, c->machine_busy * 100, v->sender_cpu * 100,
			 v->receiver_cpu * 100, ov);
		snprintf(v->fix, sizeof(v->fix),
			 "more cores: the hosts of a lab share this machine's, so its figures are "
			 "the machine's limit, not the path's; real hosts measure the path");
		return true;
	}
	return false;
}
