// SPDX-License-Identifier: MIT
/*
 * One host's facts over a test (hostfacts.h): two reads of its counters,
 * at the window's start and end, and the processes found at the start.
 * Everything is read, nothing changed, as an unprivileged server may.
 */
#include <errno.h>
#include <math.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "hostfacts.h"
#include "log.h"
#include "netcounters.h"
#include "procfind.h"
#include "softnet.h"
#include "udpsock.h"

#define PROC_ROOT   "/proc"
#define CGROUP_ROOT "/sys/fs/cgroup"
#define PROC_SYS    "/proc/sys"
/* `ip netns exec` mounts a sysfs of the namespace over /sys, without the
 * cgroup mounts: the first process's root still has them (readable by a
 * root server, and a server without root sees /sys/fs/cgroup itself) */
#define CGROUP_ROOT_INIT "/proc/1/root/sys/fs/cgroup"

struct probe_proc {
	int pid; /* 0: gone */
	uint32_t found_by;
	char comm[HOSTFACTS_NAME], tun[HOSTFACTS_NAME];
	uint16_t udp_port;
	struct cpuuse_threads first, last;
	struct cpuuse_cgroup cg_first, cg_last;
	bool cpu_ok;		      /* cpu_first and cpu_last were read */
	uint64_t cpu_first, cpu_last; /* the process's, ended threads' included */
};

struct probe_snap {
	bool busy_ok, si_ok, sn_ok, nc_ok, us_ok;
	uint64_t busy_ns, wall_ns;
	struct cpuuse_softirq si;
	struct softnet sn;
	struct netcounters nc;
	struct udpsock_table us;
};

struct hostfacts_probe {
	const char *proc_root, *cg_root, *proc_sys;
	char path_if[IFNAMSIZ];
	double baseline_cores;
	bool started; /* the window's first read was taken */
	struct probe_proc test;
	unsigned nprocs;
	struct probe_proc procs[HOSTFACTS_MAX_PROCS];
	struct probe_snap a, b;
};

void hostfacts_unknown(struct hostfacts *f, const char *why)
{
	memset(f, 0, sizeof(*f));
	f->baseline_cores = -1;
	f->softirq_busiest = -1;
	snprintf(f->unknown, sizeof(f->unknown), "%s", why ? why : "");
}

static void proc_read(const struct hostfacts_probe *p, struct probe_proc *pp, bool first)
{
	if (!pp->pid)
		return;
	if (cpuuse_threads_read(p->proc_root, pp->pid, first ? &pp->first : &pp->last)) {
		pp->pid = 0;
		return;
	}
	pp->cpu_ok = cpuuse_process_cpu(p->proc_root, pp->pid,
					first ? &pp->cpu_first : &pp->cpu_last) == 0 &&
		     (first || pp->cpu_ok);
	if (cpuuse_cgroup_read(p->proc_root, p->cg_root, pp->pid,
			       first ? &pp->cg_first : &pp->cg_last) == -ENOENT &&
	    !strcmp(p->cg_root, CGROUP_ROOT))
		cpuuse_cgroup_read(p->proc_root, CGROUP_ROOT_INIT, pp->pid,
				   first ? &pp->cg_first : &pp->cg_last);
}

static void snap(struct hostfacts_probe *p, struct probe_snap *s, bool first)
{
	s->wall_ns = clock_now_ns();
	s->busy_ok = cpuuse_machine_busy(p->proc_root, &s->busy_ns) == 0;
	s->si_ok = cpuuse_softirq_read(p->proc_root, &s->si) == 0;
	s->sn_ok = softnet_read(p->proc_root, &s->sn) == 0;
	s->nc_ok = netcounters_read(&s->nc) == 0;
	s->us_ok = udpsock_read(&s->us) == 0;
	proc_read(p, &p->test, first);
	for (unsigned i = 0; i < p->nprocs; i++)
		proc_read(p, &p->procs[i], first);
}

/* Whether process pid is in the calling thread's network namespace (a
 * TUN of the same name in another namespace is another host's). */
static bool same_netns(const char *proc_root, int pid)
{
	uint64_t dev, ino;
	char self[256];
	struct stat st;

	if (procfind_netns(proc_root, pid, &dev, &ino))
		return false;
	snprintf(self, sizeof(self), "%s/thread-self/ns/net", proc_root);
	if (stat(self, &st) < 0)
		return true; /* a tree without namespaces (a test's fixture) */
	return dev == (uint64_t)st.st_dev && ino == (uint64_t)st.st_ino;
}

/* A process's name: its comm, or for one run through /proc/self/exe (the
 * built-in overlay's daemons: comm "exe") its program's file name. */
static void name_of(const char *proc_root, int pid, char name[static HOSTFACTS_NAME])
{
	char path[300], target[256], *base;
	ssize_t n;

	procfind_comm(proc_root, pid, name, HOSTFACTS_NAME);
	if (strcmp(name, "exe"))
		return;
	snprintf(path, sizeof(path), "%s/%d/exe", proc_root, pid);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(name, HOSTFACTS_NAME, "%.*s", HOSTFACTS_NAME - 1, base ? base + 1 : target);
}

static struct probe_proc *add_proc(struct hostfacts_probe *p, int pid, uint32_t by)
{
	struct probe_proc *pp;

	for (unsigned i = 0; i < p->nprocs; i++)
		if (p->procs[i].pid == pid) {
			p->procs[i].found_by |= by;
			return &p->procs[i];
		}
	if (pid <= 0 || p->nprocs >= HOSTFACTS_MAX_PROCS)
		return NULL;
	pp = &p->procs[p->nprocs++];
	pp->pid = pid;
	pp->found_by = by;
	name_of(p->proc_root, pid, pp->comm);
	return pp;
}

/* The local port of the first of pid's sockets in the UDP tables. */
static uint16_t udp_port_of(const struct hostfacts_probe *p, int pid)
{
	uint64_t ino[64];
	int n = procfind_sockets(p->proc_root, pid, ino, sizeof(ino) / sizeof(ino[0]));

	if (!p->a.us_ok)
		return 0;
	for (int k = 0; k < n; k++)
		for (unsigned i = 0; i < p->a.us.n; i++)
			if (p->a.us.e[i].inode == ino[k] && p->a.us.e[i].port)
				return p->a.us.e[i].port;
	return 0;
}

static void find_tun_holders(struct hostfacts_probe *p)
{
	int pids[HOSTFACTS_MAX_PROCS];
	int n;

	if (!p->path_if[0])
		return;
	n = procfind_tun(p->proc_root, p->path_if, pids, HOSTFACTS_MAX_PROCS);
	log_debug("%s: %d process(es) hold a TUN of that name", p->path_if, n);
	for (int i = 0; i < n; i++) {
		struct probe_proc *pp;

		if (!same_netns(p->proc_root, pids[i])) {
			log_debug("%s: pid %d holds one in another network namespace", p->path_if,
				  pids[i]);
			continue;
		}
		pp = add_proc(p, pids[i], HOSTFACTS_BY_TUN);
		if (pp)
			snprintf(pp->tun, sizeof(pp->tun), "%s", p->path_if);
	}
}

/* Whether pid was found holding the path's TUN. */
static bool holds_tun(const struct hostfacts_probe *p, int pid)
{
	for (unsigned i = 0; i < p->nprocs; i++)
		if (p->procs[i].pid == pid && (p->procs[i].found_by & HOSTFACTS_BY_TUN))
			return true;
	return false;
}

/* The processes holding a UDP socket connected to the far host's
 * underlay address (a VPN whose socket is connected to its peer). Where
 * the path's TUN has a holder (tun_found), a socket says only how that
 * holder was found too: another process's socket to the same host is
 * another overlay's (the built-in overlay's daemon, left up beside a
 * Nebula whose own socket is not connected), not this path's VPN. */
static void find_udp_owners(struct hostfacts_probe *p, const char *far, bool tun_found)
{
	uint8_t addr[16];
	uint8_t family = 0;

	if (!far || !far[0] || !p->a.us_ok)
		return;
	if (inet_pton(AF_INET, far, addr) == 1)
		family = 4;
	else if (inet_pton(AF_INET6, far, addr) == 1)
		family = 6;
	for (unsigned i = 0; family && i < p->a.us.n; i++) {
		struct udpsock_owner o = { .inode = p->a.us.e[i].inode };
		struct probe_proc *pp;

		if (!udpsock_connected_to(&p->a.us.e[i], family, addr) ||
		    !udpsock_owner_process(p->proc_root, &o) || o.pid == p->test.pid ||
		    (tun_found && !holds_tun(p, o.pid)))
			continue;
		pp = add_proc(p, o.pid, HOSTFACTS_BY_UDP);
		if (pp)
			pp->udp_port = p->a.us.e[i].port;
	}
}

struct hostfacts_probe *hostfacts_prepare(const struct hostfacts_where *w)
{
	struct hostfacts_probe *p = calloc(1, sizeof(*p));
	bool tun_found;

	if (!p)
		return NULL;
	p->proc_root = w->proc_root ? w->proc_root : PROC_ROOT;
	p->cg_root = w->cg_root ? w->cg_root : CGROUP_ROOT;
	p->proc_sys = w->proc_sys ? w->proc_sys : PROC_SYS;
	snprintf(p->path_if, sizeof(p->path_if), "%s", w->path_if ? w->path_if : "");
	p->baseline_cores = w->baseline_cores;
	p->test.pid = w->test_pid > 0 ? w->test_pid : getpid();
	procfind_comm(p->proc_root, p->test.pid, p->test.comm, sizeof(p->test.comm));
	/* the UDP tables first: a holder's port is looked up in them */
	p->a.us_ok = udpsock_read(&p->a.us) == 0;
	find_tun_holders(p);
	tun_found = p->nprocs > 0;
	for (unsigned i = 0; i < w->npids; i++)
		add_proc(p, w->pids[i], w->pids_by ? w->pids_by[i] : HOSTFACTS_BY_PROCESS);
	for (unsigned i = 0; i < p->nprocs; i++)
		p->procs[i].udp_port = udp_port_of(p, p->procs[i].pid);
	find_udp_owners(p, w->far_addr, tun_found);
	return p;
}

void hostfacts_start(struct hostfacts_probe *p)
{
	if (!p)
		return;
	snap(p, &p->a, true);
	p->started = true;
}

struct hostfacts_probe *hostfacts_begin(const struct hostfacts_where *w)
{
	struct hostfacts_probe *p = hostfacts_prepare(w);

	hostfacts_start(p);
	return p;
}

static void cgroup_of(const struct probe_proc *pp, struct hostfacts_cgroup *c)
{
	const struct cpuuse_cgroup *a = &pp->cg_first, *b = &pp->cg_last;

	memset(c, 0, sizeof(*c));
	/* a process moved to another cgroup between the reads: two
	 * counters, no difference to take */
	if (!a->found || !b->found || strcmp(a->path, b->path))
		return;
	c->found = true;
	c->version = b->version;
	c->quota_cores = b->quota_cores;
	c->throttled_ns = b->throttled_ns > a->throttled_ns ? b->throttled_ns - a->throttled_ns : 0;
	c->nr_periods = b->nr_periods > a->nr_periods ? b->nr_periods - a->nr_periods : 0;
	c->nr_throttled = b->nr_throttled > a->nr_throttled ? b->nr_throttled - a->nr_throttled : 0;
	snprintf(c->path, sizeof(c->path), "%s", b->path);
}

static void proc_fill(const struct probe_proc *pp, struct hostfacts_proc *out)
{
	double share;
	int k;

	memset(out, 0, sizeof(*out));
	out->pid = pp->pid;
	out->found_by = pp->found_by;
	snprintf(out->comm, sizeof(out->comm), "%s", pp->comm);
	snprintf(out->tun, sizeof(out->tun), "%s", pp->tun);
	out->udp_port = pp->udp_port;
	if (!pp->pid)
		return;
	/* the process's own count keeps the time of threads that ended
	 * within the window (a test's stream threads end before its last
	 * read); the threads' list does not */
	out->cores = cpuuse_threads_cores(&pp->first, &pp->last);
	if (pp->cpu_ok && pp->last.wall_ns > pp->first.wall_ns && pp->cpu_last > pp->cpu_first)
		out->cores = (double)(pp->cpu_last - pp->cpu_first) /
			     (double)(pp->last.wall_ns - pp->first.wall_ns);
	k = cpuuse_threads_busiest(&pp->first, &pp->last, &share);
	if (k >= 0) {
		snprintf(out->busiest, sizeof(out->busiest), "%s", pp->last.t[k].name);
		out->busiest_tid = pp->last.t[k].tid;
		out->busiest_cores = share;
	}
	cgroup_of(pp, &out->cgroup);
}

static uint32_t txqlen_of(const char *ifname)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	uint32_t q = 0;

	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFTXQLEN, &ifr) == 0 && ifr.ifr_qlen > 0)
		q = (uint32_t)ifr.ifr_qlen;
	close(fd);
	return q;
}

/* The path's interface first (even without drops), then those that
 * dropped. */
static void links_fill(const struct hostfacts_probe *p, struct hostfacts *f)
{
	struct netcounters *d = malloc(sizeof(*d));

	if (!d)
		return;
	netcounters_delta(&p->a.nc, &p->b.nc, d);
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < d->nlinks && f->nlinks < HOSTFACTS_MAX_LINKS; i++) {
			const struct netcounters_link *l = &d->links[i];
			struct hostfacts_link *o;
			bool path = p->path_if[0] && !strcmp(l->name, p->path_if);
			uint64_t rx = l->rx_drop + l->rx_fifo, tx = l->tx_drop + l->tx_fifo;

			if (pass == 0 ? !path : (path || !strcmp(l->name, "lo") || !(rx + tx)))
				continue;
			o = &f->links[f->nlinks++];
			snprintf(o->name, sizeof(o->name), "%s", l->name);
			o->rx_drops = rx;
			o->tx_drops = tx;
			o->txqlen = txqlen_of(l->name);
			for (unsigned k = 0; k < p->nprocs; k++)
				if (!strcmp(p->procs[k].tun, l->name))
					o->tun = true;
		}
	free(d);
}

/* The UDP sockets whose drops rose most, with their owners. */
static void socks_fill(const struct hostfacts_probe *p, struct hostfacts *f)
{
	uint64_t skip[HOSTFACTS_MAX_SOCKS];

	while (f->nsocks < HOSTFACTS_MAX_SOCKS) {
		struct udpsock_owner o;
		struct hostfacts_sock *s;

		if (!udpsock_top_riser(&p->a.us, &p->b.us, skip, f->nsocks, &o))
			break;
		skip[f->nsocks] = o.inode;
		udpsock_owner_process(p->proc_root, &o);
		s = &f->socks[f->nsocks++];
		s->pid = o.pid > 0 ? (uint32_t)o.pid : 0;
		snprintf(s->comm, sizeof(s->comm), "%s", o.comm);
		s->port = o.port;
		s->family = o.family;
		s->drops = o.drops;
	}
}

static double softirq_cores(const struct cpuuse_softirq *a, const struct cpuuse_softirq *b,
			    double window_s)
{
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t ticks = 0;

	if (hz <= 0 || window_s <= 0)
		return 0;
	for (unsigned i = 0; i < b->ncpu && i < a->ncpu; i++)
		if (b->softirq[i] > a->softirq[i])
			ticks += b->softirq[i] - a->softirq[i];
	return (double)ticks / (double)hz / window_s;
}

/* The machine less its baseline against the test's own share: its
 * processes and the kernel's packet work (softirq) over the window. */
static void machine_fill(const struct hostfacts_probe *p, struct hostfacts *f)
{
	double own = f->test.cores, rest;

	f->baseline_cores = p->baseline_cores;
	if (!p->a.busy_ok || !p->b.busy_ok || f->window_s <= 0)
		return;
	f->machine_cores = (double)(p->b.busy_ns > p->a.busy_ns ? p->b.busy_ns - p->a.busy_ns : 0) /
			   1e9 / f->window_s;
	for (unsigned i = 0; i < f->nprocs; i++)
		own += f->procs[i].cores;
	if (p->a.si_ok && p->b.si_ok)
		own += softirq_cores(&p->a.si, &p->b.si, f->window_s);
	rest = f->machine_cores - own - f->baseline_cores;
	f->rest_moved = f->baseline_cores >= 0 && fabs(rest) > own &&
			fabs(rest) > HOSTFACTS_MOVED_MIN_CORES;
}

void hostfacts_end(struct hostfacts_probe *p, struct hostfacts *f)
{
	if (!p || !p->started) {
		hostfacts_unknown(f, "not read (the test did not start, or no memory)");
		free(p);
		return;
	}
	hostfacts_unknown(f, NULL);
	snap(p, &p->b, false);
	f->known = true;
	f->window_s = (double)(p->b.wall_ns - p->a.wall_ns) / 1e9;
	proc_fill(&p->test, &f->test);
	for (unsigned i = 0; i < p->nprocs; i++)
		proc_fill(&p->procs[i], &f->procs[f->nprocs++]);
	if (p->a.si_ok && p->b.si_ok)
		f->ncpu = cpuuse_softirq_shares(&p->a.si, &p->b.si, f->softirq, HOSTFACTS_MAX_CPUS,
						&f->softirq_busiest);
	f->softnet_known = p->a.sn_ok && p->b.sn_ok;
	if (f->softnet_known) {
		f->softnet_dropped =
			p->b.sn.dropped > p->a.sn.dropped ? p->b.sn.dropped - p->a.sn.dropped : 0;
		f->softnet_squeezed = p->b.sn.squeezed > p->a.sn.squeezed
					      ? p->b.sn.squeezed - p->a.sn.squeezed
					      : 0;
	}
	if (p->a.nc_ok && p->b.nc_ok)
		links_fill(p, f);
	if (p->a.us_ok && p->b.us_ok)
		socks_fill(p, f);
	machine_fill(p, f);
	hostfacts_read_sysctls(p->proc_sys, f);
	free(p);
}

double hostfacts_net_cores(const struct hostfacts *f)
{
	double net;

	if (!f->known || f->baseline_cores < 0 || f->rest_moved)
		return -1;
	net = f->machine_cores - f->baseline_cores;
	return net > 0 ? net : -1;
}

/* "a b c" (tcp_rmem) or "a" into v[0..n-1]; the count read. */
static int sysctl_u32s(const char *proc_sys, const char *name, uint32_t *v, int n)
{
	char path[256], line[128];
	unsigned long x[3];
	FILE *f;
	int k;

	snprintf(path, sizeof(path), "%s/%s", proc_sys, name);
	f = fopen(path, "re");
	if (!f)
		return 0;
	k = fgets(line, sizeof(line), f) ? sscanf(line, "%lu %lu %lu", &x[0], &x[1], &x[2]) : 0;
	fclose(f);
	for (int i = 0; i < k && i < n; i++)
		v[i] = x[i] > UINT32_MAX ? UINT32_MAX : (uint32_t)x[i];
	return k < 0 ? 0 : k;
}

void hostfacts_read_sysctls(const char *proc_sys, struct hostfacts *f)
{
	char path[256];
	FILE *fp;

	f->sysctl_known = sysctl_u32s(proc_sys, "net/ipv4/tcp_rmem", f->tcp_rmem, 3) == 3;
	sysctl_u32s(proc_sys, "net/ipv4/tcp_wmem", f->tcp_wmem, 3);
	sysctl_u32s(proc_sys, "net/core/rmem_max", &f->rmem_max, 1);
	sysctl_u32s(proc_sys, "net/core/wmem_max", &f->wmem_max, 1);
	f->cc[0] = '\0';
	snprintf(path, sizeof(path), "%s/net/ipv4/tcp_congestion_control", proc_sys);
	fp = fopen(path, "re");
	if (!fp)
		return;
	if (fgets(f->cc, sizeof(f->cc), fp))
		f->cc[strcspn(f->cc, " \n")] = '\0';
	fclose(fp);
}

void hostfacts_idle_init(struct hostfacts_idle *i, const char *proc_root)
{
	memset(i, 0, sizeof(*i));
	pthread_mutex_init(&i->lock, NULL);
	i->proc_root = proc_root ? proc_root : PROC_ROOT;
	i->cores = -1;
	i->marked = cpuuse_machine_busy(i->proc_root, &i->mark_busy_ns) == 0;
	i->mark_wall_ns = clock_now_ns();
}

void hostfacts_idle_destroy(struct hostfacts_idle *i)
{
	pthread_mutex_destroy(&i->lock);
}

double hostfacts_idle_start(struct hostfacts_idle *i)
{
	uint64_t busy, now = clock_now_ns();
	double cores;

	pthread_mutex_lock(&i->lock);
	if (!i->running++ && i->marked && now - i->mark_wall_ns >= HOSTFACTS_IDLE_MIN_NS &&
	    cpuuse_machine_busy(i->proc_root, &busy) == 0 && busy >= i->mark_busy_ns)
		i->cores = (double)(busy - i->mark_busy_ns) / (double)(now - i->mark_wall_ns);
	i->marked = false;
	cores = i->cores;
	pthread_mutex_unlock(&i->lock);
	return cores;
}

void hostfacts_idle_stop(struct hostfacts_idle *i)
{
	pthread_mutex_lock(&i->lock);
	if (i->running && !--i->running) {
		i->marked = cpuuse_machine_busy(i->proc_root, &i->mark_busy_ns) == 0;
		i->mark_wall_ns = clock_now_ns();
	}
	pthread_mutex_unlock(&i->lock);
}

double hostfacts_idle_sample(const char *proc_root, uint64_t ns)
{
	const char *root = proc_root ? proc_root : PROC_ROOT;
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };
	uint64_t a, b, t0, t1;

	if (cpuuse_machine_busy(root, &a))
		return -1;
	t0 = clock_now_ns();
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	t1 = clock_now_ns();
	if (cpuuse_machine_busy(root, &b) || t1 <= t0 || b < a)
		return -1;
	return (double)(b - a) / (double)(t1 - t0);
}
