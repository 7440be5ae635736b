// SPDX-License-Identifier: MIT
/*
 * HOST_FACTS: the server's host facts over a test (proto.h has the
 * layout, hostfacts.h the struct).
 */
#include <math.h>
#include <string.h>

#include "hostfacts.h"
#include "proto_int.h"

_Static_assert(4 + 4 + 8 + 4 + 4 + 4 + 4 + 16 + HOSTFACTS_NAME + 32 + 8 == PROTO_FACTS_FIXED_LEN,
	       "HOST_FACTS fixed part");
_Static_assert(8 + 3 * HOSTFACTS_NAME + 4 + 4 + 8 + 8 + 24 +
			       sizeof(((struct hostfacts_cgroup *)0)->path) ==
		       PROTO_FACTS_PROC_LEN,
	       "HOST_FACTS process");
_Static_assert(HOSTFACTS_NAME + 4 + 4 + 16 == PROTO_FACTS_LINK_LEN, "HOST_FACTS link");
_Static_assert(4 + HOSTFACTS_NAME + 4 + 8 == PROTO_FACTS_SOCK_LEN, "HOST_FACTS socket");

#define PPM 1e6

static uint32_t to_ppm(double v)
{
	if (!(v > 0))
		return 0;
	return v * PPM >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)lround(v * PPM);
}

/* A fixed text field: up to n - 1 bytes, NUL-padded. */
static void wtext(struct wr *w, const char *s, size_t n)
{
	size_t k = strnlen(s, n - 1);

	wbytes(w, s, k);
	memset(w->p + w->off, 0, n - k);
	w->off += n - k;
}

static void rtext(struct rd *r, char *dst, size_t n)
{
	copy_text(dst, r->p + r->off, n - 1);
	r->off += n;
}

static void put_proc(struct wr *w, const struct hostfacts_proc *p)
{
	w32(w, (uint32_t)p->pid);
	w32(w, p->found_by);
	wtext(w, p->comm, HOSTFACTS_NAME);
	wtext(w, p->tun, HOSTFACTS_NAME);
	wtext(w, p->busiest, HOSTFACTS_NAME);
	w16(w, p->udp_port);
	w8(w, p->cgroup.found);
	w8(w, p->cgroup.version);
	w32(w, (uint32_t)p->busiest_tid);
	w32(w, to_ppm(p->cores));
	w32(w, to_ppm(p->busiest_cores));
	w32(w, to_ppm(p->cgroup.quota_cores));
	w32(w, 0);
	w64(w, p->cgroup.throttled_ns);
	w64(w, p->cgroup.nr_periods);
	w64(w, p->cgroup.nr_throttled);
	wtext(w, p->cgroup.path, sizeof(p->cgroup.path));
}

static void get_proc(struct rd *r, struct hostfacts_proc *p)
{
	p->pid = (int)r32(r);
	p->found_by = r32(r);
	rtext(r, p->comm, HOSTFACTS_NAME);
	rtext(r, p->tun, HOSTFACTS_NAME);
	rtext(r, p->busiest, HOSTFACTS_NAME);
	p->udp_port = r16(r);
	p->cgroup.found = r8(r) != 0;
	p->cgroup.version = r8(r);
	p->busiest_tid = (int)r32(r);
	p->cores = r32(r) / PPM;
	p->busiest_cores = r32(r) / PPM;
	p->cgroup.quota_cores = r32(r) / PPM;
	(void)r32(r);
	p->cgroup.throttled_ns = r64(r);
	p->cgroup.nr_periods = r64(r);
	p->cgroup.nr_throttled = r64(r);
	rtext(r, p->cgroup.path, sizeof(p->cgroup.path));
}

static void put_fixed(struct wr *w, const struct hostfacts *f, unsigned np, unsigned nl,
		      unsigned ns, unsigned nc)
{
	uint16_t flags = (f->sysctl_known ? PROTO_FACTS_F_SYSCTL : 0) |
			 (f->softnet_known ? PROTO_FACTS_F_SOFTNET : 0) |
			 (f->baseline_cores >= 0 ? PROTO_FACTS_F_BASELINE : 0) |
			 (f->rest_moved ? PROTO_FACTS_F_MOVED : 0);

	w16(w, PROTO_FACTS_VERSION);
	w16(w, flags);
	w8(w, (uint8_t)np);
	w8(w, (uint8_t)nl);
	w8(w, (uint8_t)ns);
	w8(w, (uint8_t)nc);
	w64(w, f->window_s > 0 ? (uint64_t)llround(f->window_s * 1e6) : 0);
	w32(w, to_ppm(f->machine_cores));
	w32(w, to_ppm(f->baseline_cores));
	w32(w, (uint32_t)f->softirq_busiest);
	w32(w, 0);
	w64(w, f->softnet_dropped);
	w64(w, f->softnet_squeezed);
	wtext(w, f->cc, HOSTFACTS_NAME);
	for (int i = 0; i < 3; i++)
		w32(w, f->tcp_rmem[i]);
	for (int i = 0; i < 3; i++)
		w32(w, f->tcp_wmem[i]);
	w32(w, f->rmem_max);
	w32(w, f->wmem_max);
	w64(w, 0);
}

static unsigned cap_at(unsigned n, unsigned max)
{
	return n < max ? n : max;
}

ssize_t proto_encode_host_facts(uint8_t *buf, size_t cap, const struct hostfacts *f)
{
	unsigned np = cap_at(f->nprocs, HOSTFACTS_MAX_PROCS),
		 nl = cap_at(f->nlinks, HOSTFACTS_MAX_LINKS);
	unsigned ns = cap_at(f->nsocks, HOSTFACTS_MAX_SOCKS),
		 nc = cap_at(f->ncpu, HOSTFACTS_MAX_CPUS);
	size_t len = PROTO_FACTS_FIXED_LEN + (1 + np) * PROTO_FACTS_PROC_LEN +
		     nl * PROTO_FACTS_LINK_LEN + ns * PROTO_FACTS_SOCK_LEN + nc * 4;
	struct wr w;
	ssize_t n = begin(buf, cap, PROTO_HOST_FACTS, len, &w);

	if (n < 0)
		return n;
	put_fixed(&w, f, np, nl, ns, nc);
	put_proc(&w, &f->test);
	for (unsigned i = 0; i < np; i++)
		put_proc(&w, &f->procs[i]);
	for (unsigned i = 0; i < nl; i++) {
		wtext(&w, f->links[i].name, HOSTFACTS_NAME);
		w8(&w, f->links[i].tun);
		w8(&w, 0);
		w16(&w, 0);
		w32(&w, f->links[i].txqlen);
		w64(&w, f->links[i].rx_drops);
		w64(&w, f->links[i].tx_drops);
	}
	for (unsigned i = 0; i < ns; i++) {
		w32(&w, f->socks[i].pid);
		wtext(&w, f->socks[i].comm, HOSTFACTS_NAME);
		w16(&w, f->socks[i].port);
		w8(&w, f->socks[i].family);
		w8(&w, 0);
		w64(&w, f->socks[i].drops);
	}
	for (unsigned i = 0; i < nc; i++)
		w32(&w, to_ppm(f->softirq[i]));
	return n;
}

static void get_fixed(struct rd *r, struct hostfacts *f, uint16_t flags)
{
	f->window_s = r64(r) / 1e6;
	f->machine_cores = r32(r) / PPM;
	f->baseline_cores = r32(r) / PPM;
	if (!(flags & PROTO_FACTS_F_BASELINE))
		f->baseline_cores = -1;
	f->softirq_busiest = (int32_t)r32(r);
	(void)r32(r);
	f->softnet_dropped = r64(r);
	f->softnet_squeezed = r64(r);
	rtext(r, f->cc, HOSTFACTS_NAME);
	for (int i = 0; i < 3; i++)
		f->tcp_rmem[i] = r32(r);
	for (int i = 0; i < 3; i++)
		f->tcp_wmem[i] = r32(r);
	f->rmem_max = r32(r);
	f->wmem_max = r32(r);
	(void)r64(r);
	f->sysctl_known = flags & PROTO_FACTS_F_SYSCTL;
	f->softnet_known = flags & PROTO_FACTS_F_SOFTNET;
	f->rest_moved = flags & PROTO_FACTS_F_MOVED;
}

int proto_decode_host_facts(const uint8_t *body, size_t len, struct hostfacts *f)
{
	struct rd r = { .p = body };
	unsigned np, nl, ns, nc;
	uint16_t version, flags;
	size_t want;

	hostfacts_unknown(f, "malformed HOST_FACTS");
	if (len < PROTO_FACTS_FIXED_LEN)
		return PROTO_E_LENGTH;
	version = r16(&r);
	flags = r16(&r);
	np = r8(&r);
	nl = r8(&r);
	ns = r8(&r);
	nc = r8(&r);
	if (!version || np > HOSTFACTS_MAX_PROCS || nl > HOSTFACTS_MAX_LINKS ||
	    ns > HOSTFACTS_MAX_SOCKS || nc > HOSTFACTS_MAX_CPUS)
		return PROTO_E_VALUE;
	want = PROTO_FACTS_FIXED_LEN + (1 + np) * PROTO_FACTS_PROC_LEN + nl * PROTO_FACTS_LINK_LEN +
	       ns * PROTO_FACTS_SOCK_LEN + nc * 4;
	/* a later version may add a tail this one skips */
	if (version == PROTO_FACTS_VERSION ? len != want : len < want)
		return PROTO_E_LENGTH;
	get_fixed(&r, f, flags);
	get_proc(&r, &f->test);
	for (unsigned i = 0; i < np; i++)
		get_proc(&r, &f->procs[i]);
	for (unsigned i = 0; i < nl; i++) {
		rtext(&r, f->links[i].name, HOSTFACTS_NAME);
		f->links[i].tun = r8(&r) != 0;
		r.off += 3;
		f->links[i].txqlen = r32(&r);
		f->links[i].rx_drops = r64(&r);
		f->links[i].tx_drops = r64(&r);
	}
	for (unsigned i = 0; i < ns; i++) {
		f->socks[i].pid = r32(&r);
		rtext(&r, f->socks[i].comm, HOSTFACTS_NAME);
		f->socks[i].port = r16(&r);
		f->socks[i].family = r8(&r);
		r.off += 1;
		f->socks[i].drops = r64(&r);
	}
	for (unsigned i = 0; i < nc; i++)
		f->softirq[i] = r32(&r) / PPM;
	if (f->softirq_busiest >= (int)nc || f->softirq_busiest < -1)
		f->softirq_busiest = -1;
	f->nprocs = np;
	f->nlinks = nl;
	f->nsocks = ns;
	f->ncpu = nc;
	f->known = true;
	f->unknown[0] = '\0';
	return 0;
}
