/* SPDX-License-Identifier: MIT */
/*
 * One host's facts with every field set (a VPN found by its TUN in a
 * throttled cgroup, drops, softirq, the TCP settings), for the tests of
 * their wire and JSON forms.
 */
#ifndef OVLPERF_HOSTFACTS_FIXTURE_H
#define OVLPERF_HOSTFACTS_FIXTURE_H

#include <stdio.h>

#include "hostfacts.h"

static inline void sample(struct hostfacts *f)
{
	struct hostfacts_proc *p;

	hostfacts_unknown(f, NULL);
	f->known = true;
	f->window_s = 10.000123;
	f->test.pid = 4242;
	snprintf(f->test.comm, sizeof(f->test.comm), "ovlperf");
	f->test.cores = 0.987654;
	f->nprocs = 2;
	p = &f->procs[1];
	p->pid = 77;
	p->found_by = HOSTFACTS_BY_TUN | HOSTFACTS_BY_PROCESS;
	snprintf(p->comm, sizeof(p->comm), "wireguard-go");
	snprintf(p->tun, sizeof(p->tun), "fawg0");
	p->udp_port = 51820;
	p->cores = 1.5;
	snprintf(p->busiest, sizeof(p->busiest), "wireguard-go");
	p->busiest_tid = 80;
	p->busiest_cores = 0.999;
	p->cgroup.found = true;
	p->cgroup.version = 1;
	p->cgroup.quota_cores = 0.15;
	p->cgroup.throttled_ns = 2401000000ULL;
	p->cgroup.nr_periods = 100;
	p->cgroup.nr_throttled = 34;
	snprintf(p->cgroup.path, sizeof(p->cgroup.path), "/fa-quota");
	f->procs[0].pid = 5;
	f->machine_cores = 1.75;
	f->baseline_cores = 0.25;
	f->rest_moved = true;
	f->ncpu = 2;
	f->softirq[0] = 0.01;
	f->softirq[1] = 0.97;
	f->softirq_busiest = 1;
	f->softnet_known = true;
	f->softnet_dropped = 12;
	f->softnet_squeezed = 1ULL << 40;
	f->nlinks = 1;
	snprintf(f->links[0].name, sizeof(f->links[0].name), "fawg0");
	f->links[0].tun = true;
	f->links[0].txqlen = 500;
	f->links[0].tx_drops = 9876;
	f->nsocks = 1;
	f->socks[0].pid = 77;
	snprintf(f->socks[0].comm, sizeof(f->socks[0].comm), "wireguard-go");
	f->socks[0].port = 51820;
	f->socks[0].family = 6;
	f->socks[0].drops = 3;
	f->sysctl_known = true;
	snprintf(f->cc, sizeof(f->cc), "bbr");
	f->tcp_rmem[0] = 4096;
	f->tcp_rmem[1] = 131072;
	f->tcp_rmem[2] = 6291456;
	f->tcp_wmem[2] = 4194304;
	f->rmem_max = 212992;
	f->wmem_max = 212992;
}

#endif
