// SPDX-License-Identifier: MIT
/* The client's host facts over a test (load_facts.h). */
#include <net/if.h>

#include "hostfacts.h"
#include "load_facts.h"
#include "sockopt.h"

double load_facts_baseline(const struct load_hooks *h, int fd, char dev[static IF_NAMESIZE])
{
	sockopt_local_ifname(fd, dev, IF_NAMESIZE);
	if (h && h->idle)
		return hostfacts_idle_start(h->idle);
	return hostfacts_idle_sample(NULL, LOAD_FACTS_IDLE_NS);
}

struct hostfacts_probe *load_facts_begin(const struct load_hooks *h, const char *dev,
					 double baseline)
{
	struct hostfacts_where w = { .baseline_cores = baseline, .path_if = dev };
	uint32_t by[HOSTFACTS_MAX_PROCS];

	if (h && h->npids) {
		w.npids = h->npids < HOSTFACTS_MAX_PROCS ? h->npids : HOSTFACTS_MAX_PROCS;
		for (unsigned i = 0; i < w.npids; i++)
			by[i] = HOSTFACTS_BY_PROCESS;
		w.pids = h->pids;
		w.pids_by = by;
	}
	return hostfacts_begin(&w);
}

void load_facts_end(const struct load_hooks *h, struct hostfacts_probe *p, struct hostfacts *out)
{
	hostfacts_end(p, out);
	if (h && h->idle)
		hostfacts_idle_stop(h->idle);
}
