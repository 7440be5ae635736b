// SPDX-License-Identifier: MIT
/*
 * Lab hosts: lab_up() builds namespaces, veth links, addresses, routes,
 * shaping and drop rules; lab_down() removes them. Every namespace is
 * recorded in the state file before anything is put in it, so that a lab
 * interrupted at any point (even by SIGKILL) can be removed by name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "interrupt.h"
#include "lab_int.h"
#include "log.h"
#include "netns.h"
#include "nl_route.h"

static struct lab *lab_alloc(void)
{
	struct lab *lab = calloc(1, sizeof(*lab));

	if (!lab)
		return NULL;
	for (unsigned h = 0; h < LAB_MAX_HOSTS; h++)
		lab->nsfd[h] = -1;
	for (unsigned l = 0; l < LAB_MAX_LINKS; l++)
		lab->lnsfd[l] = -1;
	lab->orig_fd = -1;
	return lab;
}

static void close_fds(struct lab *lab)
{
	for (unsigned h = 0; h < LAB_MAX_HOSTS; h++) {
		if (lab->nsfd[h] >= 0)
			close(lab->nsfd[h]);
		lab->nsfd[h] = -1;
	}
	for (unsigned l = 0; l < LAB_MAX_LINKS; l++) {
		if (lab->lnsfd[l] >= 0)
			close(lab->lnsfd[l]);
		lab->lnsfd[l] = -1;
	}
}

static void lab_free(struct lab *lab)
{
	close_fds(lab);
	if (lab->orig_fd >= 0)
		close(lab->orig_fd);
	free(lab);
}

static void set_ifnames(struct lab *lab)
{
	for (unsigned l = 0; l < LAB_MAX_LINKS; l++)
		snprintf(lab->ifname[l], sizeof(lab->ifname[l]), "ovp%u", l);
}

static void remove_ns(const char *name, uint64_t ino, int *rc)
{
	int r = netns_delete(name, ino);

	if (r && !*rc)
		*rc = r;
	if (r && r != -EPERM)
		log_err("removing namespace %s: %s", name, strerror(-r));
}

/* Removes the namespaces a state lists (newest first: the links' emulators,
 * then the hosts), then the state file. A namespace that is no longer ours
 * is left alone and makes this -EPERM. */
static int teardown(struct lab_state *st)
{
	int rc = 0, r;

	for (unsigned i = st->nlns; i-- > 0;)
		remove_ns(st->lns[i].name, st->lns[i].ino, &rc);
	for (unsigned i = st->nns; i-- > 0;)
		remove_ns(st->ns[i].name, st->ns[i].ino, &rc);
	if (rc && rc != -EPERM)
		return rc;
	r = lab_state_remove(st->spec.name);
	return rc ? rc : r;
}

static int make_host(struct lab *lab, unsigned h)
{
	struct lab_state *st = &lab->st;
	char name[LAB_NETNS_NAME_MAX];
	unsigned i;
	int rc;

	rc = lab_plan_netns_name(st->spec.name, h, name, sizeof(name));
	if (rc)
		return rc;
	rc = netns_claim(name);
	if (rc == -EEXIST) {
		log_err("namespace %s already exists and is not part of lab %s; not touching it",
			name, st->spec.name);
		return rc;
	}
	if (rc)
		return rc;
	/* Recorded before it exists, so that even a killed lab up can be undone. */
	i = st->nns++;
	snprintf(st->ns[i].name, sizeof(st->ns[i].name), "%s", name);
	st->ns[i].ino = 0;
	rc = lab_state_save(st);
	if (!rc)
		rc = netns_mount(name, &st->ns[i].ino);
	if (!rc)
		rc = lab_state_save(st);
	if (!rc) {
		lab->nsfd[h] = netns_open(name);
		rc = lab->nsfd[h] < 0 ? lab->nsfd[h] : 0;
	}
	if (rc)
		log_err("creating namespace %s: %s", name, strerror(-rc));
	return rc;
}

/* Runs fn in host h's namespace on the calling thread, then comes back. */
static int in_host(const struct lab *lab, unsigned h,
		   int (*fn)(const struct lab *, unsigned, void *), void *arg)
{
	int rc, back;

	rc = lab_enter(lab, h);
	if (rc)
		return rc;
	rc = fn(lab, h, arg);
	back = lab_leave(lab);
	if (back) {
		log_err("cannot return to the original namespace: %s", strerror(-back));
		return back;
	}
	return rc;
}

static int open_sock(const struct lab *lab, unsigned h, void *arg)
{
	struct nl_sock **sk = arg;
	int rc;

	(void)lab;
	rc = nlr_open(&sk[h]);
	if (!rc)
		rc = nlr_link_up(sk[h], "lo");
	return rc;
}

/* A host on two or more links forwards; set before its links exist, so that
 * they come up in router mode rather than switching later. */
static int host_forwarding(const struct lab *lab, unsigned h, void *arg)
{
	const struct lab_spec *spec = &lab->st.spec;
	unsigned nl = 0;
	int rc;

	(void)arg;
	for (unsigned l = 0; l < spec->nlinks; l++)
		nl += spec->links[l].a == h || spec->links[l].b == h;
	if (nl < 2)
		return 0;
	rc = netns_sysctl("/proc/sys/net/ipv4/ip_forward", "1");
	if (!rc)
		rc = netns_sysctl("/proc/sys/net/ipv6/conf/all/forwarding", "1");
	if (rc)
		log_err("enabling forwarding in host %u: %s", h, strerror(-rc));
	return rc;
}

/* One of a namespace's "min default max" TCP buffer sysctls with its
 * maximum replaced (the default lowered to it when above). */
static int tcp_mem_max(const char *path, uint32_t max)
{
	unsigned long v[3] = { 0 };
	char line[96];
	FILE *f = fopen(path, "re");
	int n = f && fgets(line, sizeof(line), f) ? sscanf(line, "%lu %lu %lu", &v[0], &v[1], &v[2])
						  : 0;

	if (f)
		fclose(f);
	if (n != 3)
		return -EIO;
	if (v[0] > max)
		v[0] = max;
	if (v[1] > max)
		v[1] = max;
	snprintf(line, sizeof(line), "%lu %lu %u", v[0], v[1], max);
	return netns_sysctl(path, line);
}

struct tcp_max_arg {
	const char *path;
	uint32_t max, was;
};

static int host_tcp_max(const struct lab *lab, unsigned h, void *arg)
{
	struct tcp_max_arg *a = arg;
	unsigned long v[3] = { 0 };
	char line[96];
	FILE *f = fopen(a->path, "re");
	int n = f && fgets(line, sizeof(line), f) ? sscanf(line, "%lu %lu %lu", &v[0], &v[1], &v[2])
						  : 0;

	(void)lab;
	(void)h;
	if (f)
		fclose(f);
	if (n != 3 || v[2] > UINT32_MAX)
		return -EIO;
	a->was = (uint32_t)v[2];
	return a->max ? tcp_mem_max(a->path, a->max) : 0;
}

int lab_host_tcp_max(const struct lab *lab, unsigned h, bool rmem, uint32_t max, uint32_t *was)
{
	struct tcp_max_arg a = { rmem ? "/proc/sys/net/ipv4/tcp_rmem"
				      : "/proc/sys/net/ipv4/tcp_wmem",
				 max, 0 };
	int rc = in_host(lab, h, host_tcp_max, &a);

	*was = a.was;
	return rc;
}

/* The TCP buffer maxima asked for every host ([lab] tcp_rmem_max,
 * tcp_wmem_max; `lab up --tcp-rmem-max`): the host's own, its namespace's. */
static int host_tcp_mem(const struct lab *lab, unsigned h, void *arg)
{
	const struct lab_spec *spec = &lab->st.spec;
	int rc = 0;

	(void)arg;
	if (spec->tcp_rmem_max)
		rc = tcp_mem_max("/proc/sys/net/ipv4/tcp_rmem", spec->tcp_rmem_max);
	if (!rc && spec->tcp_wmem_max)
		rc = tcp_mem_max("/proc/sys/net/ipv4/tcp_wmem", spec->tcp_wmem_max);
	if (rc)
		log_err("host %u: setting its TCP buffer maxima: %s", h, strerror(-rc));
	return rc;
}

/* Drop rules, and on lossy links no segmentation offloads, so that the
 * random drop hits single packets rather than 64 KB aggregates. */
static int host_loss(const struct lab *lab, unsigned h, void *arg)
{
	const struct lab_spec *spec = &lab->st.spec;
	int rc = 0;

	(void)arg;
	for (unsigned l = 0; l < spec->nlinks && !rc; l++)
		if ((spec->links[l].a == h || spec->links[l].b == h) && spec->links[l].drop_pct > 0)
			rc = lab_offload_off(lab->ifname[l]);
	if (!rc)
		rc = lab_nft_apply(spec, h);
	return rc;
}

static int link_end_setup(struct lab *lab, struct nl_sock *sk, unsigned l, unsigned end)
{
	const struct lab_link_spec *k = &lab->st.spec.links[l];
	const int fams[2] = { AF_INET, AF_INET6 };
	uint32_t mtu = k->mtu ? k->mtu : LAB_DEFAULT_MTU;
	bool netem = false;
	int rc = 0;

	for (unsigned f = 0; f < 2 && !rc; f++) {
		struct sockaddr_storage ss;
		unsigned plen;

		rc = lab_plan_addr(l, end, fams[f], &ss, &plen);
		if (!rc)
			rc = nlr_addr_add(sk, lab->ifname[l], &ss, plen);
	}
	if (!rc)
		rc = lab_link_netem(lab, sk, l, end, &netem);
	if (!rc && k->rate_bps) {
		uint32_t burst = lab_plan_tbf_burst(k->rate_bps, mtu);
		uint64_t limit = burst + k->rate_bps / 8 * LAB_TBF_LATENCY_US / 1000000;
		uint32_t overhead, mpu;

		lab_plan_tbf_overhead(k->rate_layer, &overhead, &mpu);
		rc = nlr_tbf_add(sk, lab->ifname[l], netem, k->rate_bps, burst,
				 limit > 0x7fffffff ? 0x7fffffff : (uint32_t)limit, overhead, mpu);
	}
	if (!rc)
		rc = nlr_link_up(sk, lab->ifname[l]);
	return rc;
}

static int make_link(struct lab *lab, struct nl_sock **sk, unsigned l)
{
	const struct lab_link_spec *k = &lab->st.spec.links[l];
	uint32_t mtu = k->mtu ? k->mtu : LAB_DEFAULT_MTU;
	int rc;

	/* Distinct interface indexes on the two ends: when a veth's index equals
	 * its peer's (both "2" in fresh namespaces), the kernel's linkwatch treats
	 * its carrier change as non-urgent and delays it up to a second, and IPv6
	 * on that end (link-local, multicast route, so neighbour discovery)
	 * stays down meanwhile. */
	rc = lab_link_veths(lab, sk, l, mtu);
	if (!rc)
		rc = link_end_setup(lab, sk[k->a], l, 0);
	if (!rc)
		rc = link_end_setup(lab, sk[k->b], l, 1);
	return rc;
}

static int add_routes(struct lab *lab, struct nl_sock **sk, unsigned h)
{
	const struct lab_spec *spec = &lab->st.spec;
	const int fams[2] = { AF_INET, AF_INET6 };

	for (unsigned l = 0; l < spec->nlinks; l++) {
		unsigned via_link, via_end;
		int rc = lab_plan_route(spec, h, l, &via_link, &via_end);

		if (rc == -EHOSTUNREACH || rc == 0)
			continue;
		if (rc < 0)
			return rc;
		for (unsigned f = 0; f < 2; f++) {
			struct sockaddr_storage dst, gw;
			unsigned plen;

			rc = lab_plan_addr(l, 0, fams[f], &dst, &plen);
			if (!rc)
				rc = lab_plan_addr(via_link, via_end, fams[f], &gw, NULL);
			if (!rc)
				rc = nlr_route_add(sk[h], &dst, plen, &gw);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Between steps: an interrupt unwinds everything. OVLPERF_LAB_STEP_DELAY_MS
 * slows the steps down so that tests can interrupt a lab half-built. */
static int check_interrupt(void)
{
	const char *delay = getenv("OVLPERF_LAB_STEP_DELAY_MS");

	if (delay && !interrupt_requested()) {
		long ms = strtol(delay, NULL, 10);
		struct timespec ts = { 0, 0 };

		if (ms > 0 && ms <= 10000) {
			ts.tv_sec = ms / 1000;
			ts.tv_nsec = (ms % 1000) * 1000000L;
			nanosleep(&ts, NULL);
		}
	}
	if (!interrupt_requested())
		return 0;
	log_warn("interrupted; removing what was made");
	return -EINTR;
}

static int build(struct lab *lab)
{
	const struct lab_spec *spec = &lab->st.spec;
	struct nl_sock *sk[LAB_MAX_HOSTS] = { NULL };
	int rc = 0;

	for (unsigned h = 0; h < spec->nhosts && !rc; h++) {
		rc = check_interrupt();
		if (!rc)
			rc = make_host(lab, h);
	}
	for (unsigned h = 0; h < spec->nhosts && !rc; h++)
		rc = in_host(lab, h, open_sock, sk);
	if (!rc)
		rc = lab_link_probe(lab, sk[0]);
	for (unsigned h = 0; h < spec->nhosts && !rc; h++)
		rc = in_host(lab, h, host_forwarding, NULL);
	for (unsigned h = 0; h < spec->nhosts && !rc; h++)
		rc = in_host(lab, h, host_tcp_mem, NULL);
	for (unsigned l = 0; l < spec->nlinks && !rc; l++) {
		rc = check_interrupt();
		if (!rc)
			rc = make_link(lab, sk, l);
	}
	for (unsigned l = 0; l < spec->nlinks && !rc; l++) {
		rc = nlr_wait_oper_up(sk[spec->links[l].a], lab->ifname[l], 3000);
		if (!rc)
			rc = nlr_wait_oper_up(sk[spec->links[l].b], lab->ifname[l], 3000);
	}
	for (unsigned h = 0; h < spec->nhosts && !rc; h++)
		rc = add_routes(lab, sk, h);
	for (unsigned h = 0; h < spec->nhosts && !rc; h++)
		rc = in_host(lab, h, host_loss, NULL);
	if (!rc)
		rc = check_interrupt();
	/* `lab up`'s emulators outlive it; a run's die with the run's lab */
	if (!rc)
		rc = lab_link_start(lab, lab->st.owner == LAB_OWNER_USER);
	for (unsigned h = 0; h < spec->nhosts; h++)
		nlr_close(sk[h]);
	return rc;
}

/* The emulators this process started: netns_delete() has signalled them;
 * collect them so that none stays a zombie. */
static void reap_links(struct lab *lab)
{
	for (unsigned l = 0; l < LAB_MAX_LINKS; l++)
		if (lab->link_pid[l] > 0)
			lab_reap(lab->link_pid[l], 2000);
}

int lab_up(const struct lab_spec *spec, struct lab **out)
{
	return lab_up_owned(spec, LAB_OWNER_USER, out);
}

int lab_up_owned(const struct lab_spec *spec, enum lab_owner owner, struct lab **out)
{
	char err[160];
	struct lab *lab;
	int rc;

	*out = NULL;
	if (lab_spec_check(spec, err, sizeof(err)) || lab_cpus_available(spec, err, sizeof(err))) {
		log_err("%s", err);
		return -EINVAL;
	}
	lab = lab_alloc();
	if (!lab)
		return -ENOMEM;
	lab->st.spec = *spec;
	lab->st.pid = getpid();
	lab->st.owner = owner;
	set_ifnames(lab);
	lab->orig_fd = netns_open(NULL);
	if (lab->orig_fd < 0) {
		rc = lab->orig_fd;
		goto fail;
	}
	rc = lab_state_create(&lab->st);
	if (rc == -EEXIST)
		log_err("lab %s exists; remove it first (ovlperf lab down %s) or use lab up "
			"--force",
			spec->name, spec->name);
	if (rc)
		goto fail;
	rc = build(lab);
	if (rc) {
		close_fds(lab);
		teardown(&lab->st);
		reap_links(lab);
		goto fail;
	}
	*out = lab;
	return 0;
fail:
	lab_free(lab);
	return rc;
}

int lab_down(struct lab *lab)
{
	int rc;

	if (!lab)
		return 0;
	/* A caller that forgot lab_leave() would keep a host's namespace alive
	 * (and sit in it); a thread already outside is unaffected. */
	if (lab->orig_fd >= 0)
		lab_leave(lab);
	/* Our descriptors would keep the namespaces alive after the unmount. */
	close_fds(lab);
	rc = teardown(&lab->st);
	reap_links(lab);
	lab_free(lab);
	return rc;
}

int lab_down_by_name(const char *name)
{
	struct lab_state st;
	int rc;

	if (!lab_name_valid(name))
		return -EINVAL;
	rc = lab_state_load(name, &st);
	if (rc)
		return rc;
	return teardown(&st);
}

int lab_open(const char *name, struct lab **out)
{
	struct lab *lab;
	int rc;

	*out = NULL;
	if (!lab_name_valid(name))
		return -EINVAL;
	lab = lab_alloc();
	if (!lab)
		return -ENOMEM;
	set_ifnames(lab);
	rc = lab_state_load(name, &lab->st);
	if (!rc && lab->st.nns != lab->st.spec.nhosts)
		rc = -ENOENT;
	for (unsigned h = 0; !rc && h < lab->st.nns; h++) {
		uint64_t ino;

		rc = netns_ino(lab->st.ns[h].name, &ino);
		if (!rc && ino != lab->st.ns[h].ino)
			rc = -ESTALE;
		if (!rc) {
			lab->nsfd[h] = netns_open(lab->st.ns[h].name);
			rc = lab->nsfd[h] < 0 ? lab->nsfd[h] : 0;
		}
	}
	if (!rc) {
		lab->orig_fd = netns_open(NULL);
		rc = lab->orig_fd < 0 ? lab->orig_fd : 0;
	}
	if (rc) {
		lab_free(lab);
		return rc;
	}
	*out = lab;
	return 0;
}

void lab_close(struct lab *lab)
{
	if (lab)
		lab_free(lab);
}

const struct lab_spec *lab_get_spec(const struct lab *lab)
{
	return &lab->st.spec;
}

int lab_enter(const struct lab *lab, unsigned host)
{
	if (host >= lab->st.spec.nhosts)
		return -EINVAL;
	return netns_enter_fd(lab->nsfd[host]);
}

int lab_leave(const struct lab *lab)
{
	return netns_enter_fd(lab->orig_fd);
}

int lab_netns_fd(const struct lab *lab, unsigned host)
{
	int fd;

	if (host >= lab->st.spec.nhosts)
		return -EINVAL;
	fd = fcntl(lab->nsfd[host], F_DUPFD_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

const char *lab_netns_name(const struct lab *lab, unsigned host)
{
	return host < lab->st.nns ? lab->st.ns[host].name : NULL;
}

static int link_end(const struct lab *lab, unsigned host, unsigned link)
{
	const struct lab_spec *spec = &lab->st.spec;

	if (link >= spec->nlinks || host >= spec->nhosts)
		return -EINVAL;
	if (spec->links[link].a == host)
		return 0;
	if (spec->links[link].b == host)
		return 1;
	return -EINVAL;
}

int lab_host_addr(const struct lab *lab, unsigned host, unsigned link, int family,
		  struct sockaddr_storage *ss)
{
	int end = link_end(lab, host, link);

	if (end < 0)
		return end;
	return lab_plan_addr(link, (unsigned)end, family, ss, NULL);
}

const char *lab_host_ifname(const struct lab *lab, unsigned host, unsigned link)
{
	return link_end(lab, host, link) < 0 ? NULL : lab->ifname[link];
}

static int list_ifs(const struct lab *lab, unsigned h, void *arg)
{
	struct nl_sock **sk = arg;

	(void)lab;
	(void)h;
	return nlr_open(sk);
}

int lab_host_interfaces(const struct lab *lab, unsigned host, struct lab_if_info *out, size_t max,
			size_t *n)
{
	struct nl_sock *sk = NULL;
	int rc;

	if (host >= lab->st.spec.nhosts)
		return -EINVAL;
	rc = in_host(lab, host, list_ifs, &sk);
	if (!rc)
		rc = nlr_interfaces(sk, out, max, n);
	nlr_close(sk);
	return rc;
}
