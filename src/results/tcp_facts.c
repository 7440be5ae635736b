// SPDX-License-Identifier: MIT
/* A TCP verdict's evidence from both ends' host facts (contract in
 * tcp_limit.h): each end's overlay/VPN processes and their quota, softirq,
 * the TUN and socket that dropped and who reads them, the softnet backlog. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tcp_limit.h"

/* The overlay/VPN process of either end whose busiest thread used most. */
static void busiest(const struct hostfacts *const f[2], const char *const name[2],
		    struct tcp_limit_ctx *c)
{
	for (unsigned e = 0; e < 2; e++)
		for (unsigned i = 0; f[e]->known && i < f[e]->nprocs; i++) {
			const struct hostfacts_proc *p = &f[e]->procs[i];

			if (!p->busiest[0] || p->busiest_cores <= c->overlay_cpu)
				continue;
			c->overlay_cpu = p->busiest_cores;
			c->overlay_thread = p->busiest;
			c->overlay_process = p->comm;
			c->overlay_host = name[e];
		}
}

/* The process of either end held longest at its cgroup's CPU quota. */
static void quota(const struct hostfacts *const f[2], const char *const name[2],
		  struct tcp_limit_ctx *c)
{
	for (unsigned e = 0; e < 2; e++)
		for (unsigned i = 0; f[e]->known && i < f[e]->nprocs; i++) {
			const struct hostfacts_proc *p = &f[e]->procs[i];
			double s = p->cgroup.throttled_ns / 1e9;

			if (!p->cgroup.found || p->cgroup.quota_cores <= 0 ||
			    s <= c->overlay_throttled_s)
				continue;
			c->overlay_quota_cores = p->cgroup.quota_cores;
			c->overlay_quota_used = p->cores;
			c->overlay_throttled_s = s;
			c->overlay_throttled_share = p->cgroup.nr_periods
							     ? (double)p->cgroup.nr_throttled /
								       (double)p->cgroup.nr_periods
							     : 0;
			c->overlay_quota_host = name[e];
			c->overlay_quota_process = p->comm;
			c->overlay_quota_thread = p->busiest[0] ? p->busiest : NULL;
			c->overlay_quota_thread_cpu = p->busiest_cores;
		}
}

/* Between real hosts the lab's machine figure is unknown: the busier
 * end's whole machine (its busy cores over the test, of how many it has)
 * stands for it. No thread at a core with every core of a host busy is
 * that host's CPU, not the network's rate: its test, its overlay's or
 * VPN's threads and the kernel's packet work share its cores; the share is
 * the machine's busy cores less other work's at rest (its baseline). */
static void machine(const struct hostfacts *const f[2], const char *const name[2],
		    struct tcp_limit_ctx *c)
{
	for (unsigned e = 0; e < 2; e++) {
		double share;

		if (!f[e]->known || !f[e]->ncpu || !(f[e]->machine_cores > 0))
			continue;
		/* less other work's baseline: cores another process keeps busy
		 * (a build beside the test) say nothing of what the test needed */
		share = (f[e]->machine_cores - fmax(f[e]->baseline_cores, 0)) / f[e]->ncpu;
		if (c->host_cpus && share <= c->host_busy)
			continue;
		c->host_busy = share > 1 ? 1 : share;
		c->host_cpus = f[e]->ncpu;
		c->machine_host = name[e];
		c->machine_baseline = f[e]->baseline_cores;
	}
}

static const struct hostfacts_proc *holder_of(const struct hostfacts *f, const char *tun,
					      uint16_t port)
{
	for (unsigned i = 0; i < f->nprocs; i++)
		if ((tun && !strcmp(f->procs[i].tun, tun)) ||
		    (port && f->procs[i].udp_port == port))
			return &f->procs[i];
	return NULL;
}

/* The reader named in a drop: its CPU, and its quota where it was held. */
static void reader(const struct hostfacts_proc *p, struct tcp_limit_drop *d)
{
	if (!p)
		return;
	d->process = p->comm;
	d->process_cpu = p->busiest_cores;
	d->thread = p->busiest[0] ? p->busiest : NULL;
	if (p->cgroup.found && p->cgroup.quota_cores > 0 && p->cgroup.throttled_ns)
		d->quota_cores = p->cgroup.quota_cores;
}

/* The place of the most drops over the test: the sender's TUN (tx: its
 * reader did not take them), the receiver's UDP socket that dropped (its
 * owner did not read them), either end's softnet backlog. */
static void drops(const struct hostfacts *snd, const struct hostfacts *rcv,
		  struct tcp_facts_words *w, struct tcp_limit_drop *d)
{
	uint64_t most = 0;

	memset(d, 0, sizeof(*d));
	for (unsigned i = 0; snd->known && i < snd->nlinks; i++) {
		const struct hostfacts_link *l = &snd->links[i];

		if (!l->tun || l->tx_drops <= most)
			continue;
		most = l->tx_drops;
		snprintf(w->place, sizeof(w->place), "the sending host's TUN %s (tx drops)",
			 l->name);
		memset(d, 0, sizeof(*d));
		reader(holder_of(snd, l->name, 0), d);
	}
	if (rcv->known && rcv->nsocks && rcv->socks[0].drops > most) {
		const struct hostfacts_sock *s = &rcv->socks[0];

		most = s->drops;
		snprintf(w->place, sizeof(w->place),
			 "the receiving host's UDP port %u of %s (receive buffer drops)", s->port,
			 s->comm[0] ? s->comm : "a process not found");
		memset(d, 0, sizeof(*d));
		reader(holder_of(rcv, NULL, s->port), d);
	}
	for (unsigned e = 0; e < 2; e++) {
		const struct hostfacts *f = e ? rcv : snd;

		if (f->known && f->softnet_known && f->softnet_dropped > most) {
			most = f->softnet_dropped;
			snprintf(w->place, sizeof(w->place),
				 "the %s host's backlog (softnet_stat dropped)",
				 e ? "receiving" : "sending");
			memset(d, 0, sizeof(*d));
			d->fix = "a longer backlog (net.core.netdev_max_backlog) or the receive "
				 "work over more CPUs (RPS) on that host";
		}
	}
	if (!most)
		return;
	d->kind = TCP_DROP_HOST;
	d->count = most;
	d->place = w->place;
	/* a TUN's or a socket's: its reader's CPU or quota, tcp_limit.c's */
}

void tcp_limit_from_facts(const struct hostfacts *snd, const struct hostfacts *rcv,
			  const char *snd_name, const char *rcv_name, uint32_t retransmits,
			  struct tcp_facts_words *w, struct tcp_limit_ctx *c)
{
	const struct hostfacts *const f[2] = { snd, rcv };
	const char *const name[2] = { snd_name, rcv_name };
	struct tcp_limit_drop d;

	if (!snd->known || !rcv->known) {
		const struct hostfacts *u = !rcv->known ? rcv : snd;

		snprintf(w->cpu_unknown, sizeof(w->cpu_unknown), "%s's CPU: %s",
			 !rcv->known ? rcv_name : snd_name, u->unknown[0] ? u->unknown : "?");
		c->cpu_unknown = w->cpu_unknown;
	} else {
		c->cpu_unknown = NULL;
	}
	if (!c->overlay_thread)
		busiest(f, name, c);
	if (c->overlay_quota_cores <= 0)
		quota(f, name, c);
	machine(f, name, c);
	if ((!c->congestion || !c->congestion[0]) && snd->known && snd->sysctl_known)
		c->congestion = snd->cc;
	for (unsigned e = 0; e < 2; e++)
		if (f[e]->known && f[e]->softirq_busiest >= 0 &&
		    (unsigned)f[e]->softirq_busiest < f[e]->ncpu &&
		    f[e]->softirq[f[e]->softirq_busiest] > c->softirq_share) {
			c->softirq_cpu = (unsigned)f[e]->softirq_busiest;
			c->softirq_share = f[e]->softirq[f[e]->softirq_busiest];
		}
	/* a host's place that dropped a tenth of the segments resent or more */
	drops(snd, rcv, w, &d);
	if (d.kind != TCP_DROP_NONE && d.count * 10 >= retransmits &&
	    (c->trial_drop.kind != TCP_DROP_HOST || d.process))
		c->trial_drop = d;
}
