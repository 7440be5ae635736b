// SPDX-License-Identifier: MIT
/* The client's host facts over a test (load_facts.h). */
#include <net/if.h>
#include <stdio.h>

#include "hostfacts.h"
#include "load_facts.h"
#include "sockopt.h"
#include "tcp_load.h"
#include "udp_load.h"

struct hostfacts_probe *load_facts_prepare(const struct load_hooks *h, int fd)
{
	struct hostfacts_where w = { .baseline_cores = -1 };
	uint32_t by[HOSTFACTS_MAX_PROCS];
	char dev[IF_NAMESIZE] = "";

	sockopt_local_ifname(fd, dev, sizeof(dev));
	w.path_if = dev;
	w.far_addr = h ? h->far_addr : NULL;
	if (h && h->idle)
		w.baseline_cores = hostfacts_idle_start(h->idle);
	else
		w.baseline_cores = hostfacts_idle_sample(NULL, LOAD_FACTS_IDLE_NS);
	if (h && h->npids) {
		w.npids = h->npids < HOSTFACTS_MAX_PROCS ? h->npids : HOSTFACTS_MAX_PROCS;
		for (unsigned i = 0; i < w.npids; i++)
			by[i] = HOSTFACTS_BY_PROCESS;
		w.pids = h->pids;
		w.pids_by = by;
	}
	return hostfacts_prepare(&w);
}

void load_facts_start(struct hostfacts_probe *p)
{
	hostfacts_start(p);
}

void load_facts_end(const struct load_hooks *h, struct hostfacts_probe *p, struct hostfacts *out)
{
	hostfacts_end(p, out);
	if (h && h->idle)
		hostfacts_idle_stop(h->idle);
}

void load_facts_streams(struct hostfacts *f, const struct load_streams *ls)
{
	for (unsigned i = 0; f->known && i < ls->n; i++) {
		const struct cpu_use *c = ls->udp ? &ls->us[i].cpu : &ls->tcp[i].cpu;
		double share = c->wall_s > 0 ? (c->user_s + c->sys_s) / c->wall_s : 0;

		if (share <= f->test.busiest_cores)
			continue;
		f->test.busiest_cores = share;
		f->test.busiest_tid = 0;
		/* at most LOAD_MAX_STREAMS: the bound keeps the name in its 16 bytes */
		snprintf(f->test.busiest, sizeof(f->test.busiest), "stream %u",
			 i < LOAD_MAX_STREAMS ? i + 1 : LOAD_MAX_STREAMS);
	}
}
