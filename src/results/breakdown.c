// SPDX-License-Identifier: MIT
/* An overlay's cost broken down (contract in breakdown.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown.h"
#include "layer.h"
#include "run_limit.h"

/* A TCP segment's header: 20 bytes and the 12 of the timestamp option
 * Linux sends by default (tcpi_snd_mss counts the payload only). */
#define TCP_HDR_WITH_TS 32

/* What one side's trials of a figure sum to. */
struct side {
	unsigned n;
	double bits, dur;
	double host_s, snd_s, rcv_s, ovl_s; /* CPU seconds */
};

static void side_add(struct side *s, const struct results_trial *t, double bps)
{
	s->n++;
	s->bits += bps * t->duration_s;
	s->dur += t->duration_s;
	s->host_s += t->host_cpu_s;
	s->snd_s += t->cpu_sender.user_s + t->cpu_sender.sys_s;
	s->rcv_s += t->cpu_receiver.user_s + t->cpu_receiver.sys_s;
	s->ovl_s += t->overlay_cpu_s;
}

static void tcp_side(const struct results_run *run, unsigned p, unsigned streams, struct side *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];

		if (t->kind == RESULTS_TRIAL_TCP && t->path == p && t->streams == streams &&
		    !t->status && t->duration_s > 0)
			side_add(s, t, (double)t->tcp.goodput_bps);
	}
}

/* The knee trials at path p's NDR (the median repetition's target): what
 * carried it. */
static void ndr_side(const struct results_run *run, const struct results_knee_point *k,
		     struct side *s)
{
	uint64_t target = k->ndr_target_bps.n ? (uint64_t)k->ndr_target_bps.median : 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < run->ntrials && target; i++) {
		const struct results_trial *t = &run->trials[i];

		if (t->kind == RESULTS_TRIAL_KNEE && t->path == k->path && t->len == k->len &&
		    t->target_bps == target && !t->status && t->duration_s > 0)
			side_add(s, t, t->udp.received_bps ? (double)t->udp.received_bps : 0);
	}
}

/* The bytes the overlay adds to each packet on the underlay's wire, and
 * how that is known: measured by the built-in overlay's daemon (its outer
 * datagrams against the test's), else the interfaces' MTUs. -1: unknown. */
static double encap_of(const struct results_run *run, const struct results_summary *sum, unsigned p,
		       unsigned base, const char **how)
{
	int fam = results_path_family(&run->paths[p]);

	for (size_t i = 0; i < sum->nsweep; i++) {
		const struct results_sweep_point *s = &sum->sweep[i];

		if (s->path == p && s->outer_line_per_datagram.n) {
			*how = "measured by the overlay's daemon";
			return s->outer_line_per_datagram.median -
			       (double)layer_bytes(LAYER_LINE, fam, s->len);
		}
	}
	if (run->paths[base].mtu && run->paths[p].mtu && run->paths[base].mtu > run->paths[p].mtu) {
		*how = "the interfaces' MTUs";
		return (double)(run->paths[base].mtu - run->paths[p].mtu);
	}
	*how = "unknown";
	return -1;
}

/* Payload over line bytes of one packet carrying payload bytes in an IP
 * packet of ip bytes, encap more on the wire. */
static double efficiency(double payload, double ip, double encap)
{
	double line = ip + (encap > 0 ? encap : 0) + LAYER_ETH_HDR + LAYER_ETH_FCS + LAYER_ETH_WIRE;

	return line > 0 ? payload / line : 0;
}

static struct breakdown_part *add_part(struct breakdown_row *r, const char *name, double factor,
				       bool sub)
{
	struct breakdown_part *p;

	if (r->nparts >= BREAKDOWN_MAX_PARTS)
		return NULL;
	p = &r->part[r->nparts++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->factor = sub ? NAN : factor;
	p->sub = sub;
	return p;
}

/* Each top-level part's points: its share of ln(ratio), times the shortfall. */
static void points_of(struct breakdown_row *r)
{
	double l = log(r->ratio), short_pts = (r->ratio - 1) * 100;

	for (unsigned i = 0; i < r->nparts; i++)
		if (!r->part[i].sub)
			r->part[i].points =
				fabs(l) > 1e-12 ? short_pts * log(r->part[i].factor) / l : 0;
}

/* The CPU per wire bit split by whose it was, as sub-parts of the part at
 * index at: each one's change of CPU per wire bit, of the whole change. */
static void cpu_split(struct breakdown_row *r, unsigned at, const struct side *o, double eff_o,
		      const struct side *u, double eff_u)
{
	const char *const who[] = { "sender", "receiver", "overlay daemons",
				    "rest of the machine" };
	double co[4], cu[4], d = 0, whole;

	/* seconds per wire Gbit */
	co[0] = o->snd_s, co[1] = o->rcv_s, co[2] = o->ovl_s;
	cu[0] = u->snd_s, cu[1] = u->rcv_s, cu[2] = u->ovl_s;
	co[3] = o->host_s - co[0] - co[1] - co[2];
	cu[3] = u->host_s - cu[0] - cu[1] - cu[2];
	for (unsigned i = 0; i < 4; i++) {
		co[i] = co[i] * 1e9 / (o->bits / eff_o);
		cu[i] = cu[i] * 1e9 / (u->bits / eff_u);
		d += co[i] - cu[i];
	}
	whole = r->part[at].points;
	for (unsigned i = 0; i < 4; i++) {
		unsigned to = at + 1 + i;
		struct breakdown_part *p = add_part(r, who[i], NAN, true);

		if (!p)
			return;
		p->points = fabs(d) > 1e-12 ? whole * (co[i] - cu[i]) / d : 0;
		snprintf(p->detail, sizeof(p->detail), "%.3g s per wire Gbit against %.3g", co[i],
			 cu[i]);
		/* right below the part it splits */
		if (to < r->nparts - 1) {
			struct breakdown_part q = *p;

			memmove(&r->part[to + 1], &r->part[to],
				(r->nparts - 1 - to) * sizeof(r->part[0]));
			r->part[to] = q;
		}
	}
}

static bool is_cpu_limit(const char *limit)
{
	return strstr(limit, "CPU") != NULL;
}

/* The parts beyond the bytes: wire is the ratio of what the two put on the
 * wire. With both sides' CPU known and a CPU limit, that is CPU per wire
 * bit times the CPU each got to use (and the repetitions' spread between
 * the medians and the sums); otherwise one part named by the limit. */
static void beyond_bytes(struct breakdown_row *r, double wire, const struct side *o, double eff_o,
			 const struct side *u, double eff_u, const char *what)
{
	struct breakdown_part *p;

	if (is_cpu_limit(r->limit) && o->host_s > 0 && u->host_s > 0 && o->bits > 0 &&
	    u->bits > 0 && o->dur > 0 && u->dur > 0) {
		double c_o = o->host_s * eff_o / o->bits, c_u = u->host_s * eff_u / u->bits;
		double used_o = o->host_s / o->dur, used_u = u->host_s / u->dur;
		double f_cpu = c_u / c_o, f_used = used_o / used_u, rest = wire / (f_cpu * f_used);
		unsigned at = r->nparts;

		p = add_part(r, "CPU per wire bit", f_cpu, false);
		snprintf(p->detail, sizeof(p->detail),
			 "the machine's %.3g s per wire Gbit against %.3g", c_o * 1e9, c_u * 1e9);
		p = add_part(r, "CPU the run got", f_used, false);
		snprintf(p->detail, sizeof(p->detail), "%.2f cores busy against %.2f", used_o,
			 used_u);
		if (fabs(log(rest)) > 1e-3) {
			p = add_part(r, "repetitions", rest, false);
			snprintf(p->detail, sizeof(p->detail),
				 "the medians against the sums of %u and %u %s", o->n, u->n, what);
		}
		points_of(r);
		cpu_split(r, at, o, eff_o, u, eff_u);
		return;
	}
	p = add_part(r, r->limit[0] ? r->limit : "unknown", wire, false);
	snprintf(p->detail, sizeof(p->detail),
		 "what the overlay put on the wire against the "
		 "underlay, the rest of the ratio");
	points_of(r);
}

static void tcp_row(const struct results_run *run, const struct results_summary *sum,
		    const struct results_tcp_point *o, const struct results_tcp_point *u,
		    struct breakdown_row *r)
{
	struct results_tcp_limit l;
	struct side so, su;
	const char *how;
	double encap = encap_of(run, sum, o->path, u->path, &how), eff_o, eff_u, f_bytes;
	int fo = results_path_family(&run->paths[o->path]),
	    fu = results_path_family(&run->paths[u->path]);
	struct breakdown_part *p;

	r->kind = BREAKDOWN_TCP;
	r->key = o->streams;
	r->ratio = o->goodput_bps.median / u->goodput_bps.median;
	if (results_tcp_limit_line(run, o->path, o->streams, &l))
		snprintf(r->limit, sizeof(r->limit), "%s", tcp_limit_name(l.v.limit));
	if (!o->snd_mss || !u->snd_mss) {
		snprintf(r->note, sizeof(r->note), "no breakdown: the MSS was not recorded");
		return;
	}
	eff_o = efficiency(o->snd_mss,
			   o->snd_mss + TCP_HDR_WITH_TS +
				   (fo == AF_INET6 ? LAYER_IPV6_HDR : LAYER_IPV4_HDR),
			   encap);
	eff_u = efficiency(u->snd_mss,
			   u->snd_mss + TCP_HDR_WITH_TS +
				   (fu == AF_INET6 ? LAYER_IPV6_HDR : LAYER_IPV4_HDR),
			   0);
	f_bytes = eff_o / eff_u;
	p = add_part(r, "bytes on the wire", f_bytes, false);
	snprintf(p->detail, sizeof(p->detail),
		 "MSS %u against %u, %.0f B of encapsulation a packet on the wire (%s): %.1f %% of "
		 "the line "
		 "is payload against %.1f %%",
		 o->snd_mss, u->snd_mss, encap > 0 ? encap : 0, how, eff_o * 100, eff_u * 100);
	tcp_side(run, o->path, o->streams, &so);
	tcp_side(run, u->path, u->streams, &su);
	beyond_bytes(r, r->ratio / f_bytes, &so, eff_o, &su, eff_u, "trials");
	/* one part named by a window: its round trip is the evidence */
	if (r->nparts == 2 && o->rtt_us.n && u->rtt_us.n &&
	    (l.v.limit == TCP_LIMIT_RWND || l.v.limit == TCP_LIMIT_SNDBUF ||
	     l.v.limit == TCP_LIMIT_CWND))
		snprintf(r->part[1].detail, sizeof(r->part[1].detail),
			 "a window over the round trip, %.3g ms against %.3g ms: the window, not "
			 "the path's rate, sets both",
			 o->rtt_us.median / 1e3, u->rtt_us.median / 1e3);
	r->ok = true;
}

/* The NDR the ratio is of: a soft knee's fit where that is its headline
 * (enum results_head), else the found figure. */
static double head_bps(const struct results_knee_point *k)
{
	return k->ndr_head == RESULTS_HEAD_FIT ? k->ndr_head_bps.median : k->ndr_bps.median;
}

static void ndr_row(const struct results_run *run, const struct results_summary *sum,
		    const struct results_knee_point *o, const struct results_knee_point *u,
		    struct breakdown_row *r)
{
	struct ndr_limit_verdict v;
	struct side so, su;
	const char *how;
	double encap = encap_of(run, sum, o->path, u->path, &how), eff_o, eff_u, f_bytes;
	int fo = results_path_family(&run->paths[o->path]),
	    fu = results_path_family(&run->paths[u->path]);
	struct breakdown_part *p;

	r->kind = BREAKDOWN_NDR;
	r->key = o->len;
	r->ratio = o->ndr_bps.n && u->ndr_bps.n ? head_bps(o) / head_bps(u) : NAN;
	if (results_ndr_limit(run, sum, o->path, o->len, &v))
		snprintf(r->limit, sizeof(r->limit), "%s", ndr_limit_name(v.limit));
	if (o->ndr_head == RESULTS_HEAD_CHANGED || u->ndr_head == RESULTS_HEAD_CHANGED) {
		r->ratio = NAN;
		snprintf(r->note, sizeof(r->note),
			 "no breakdown: %s knee moved between repetitions (no single figure)",
			 o->ndr_head == RESULTS_HEAD_CHANGED ? "the overlay's" : "the underlay's");
		return;
	}
	if (!o->ndr_bps.n || !u->ndr_bps.n || o->ndr_bps.median <= 0 || u->ndr_bps.median <= 0) {
		snprintf(r->note, sizeof(r->note), "no breakdown: %s found no NDR",
			 o->ndr_bps.n ? "the underlay" : "the overlay");
		return;
	}
	if (u->ndr_lower_bound || o->ndr_lower_bound) {
		snprintf(r->note, sizeof(r->note),
			 "no breakdown: %s NDR is only a lower bound (%s), so the ratio is not a "
			 "cost",
			 u->ndr_lower_bound ? "the underlay's" : "the overlay's",
			 u->ndr_lower_bound ? u->ndr_outcome : o->ndr_outcome);
		return;
	}
	eff_o = efficiency(o->len, (double)layer_bytes(LAYER_IP, fo, o->len), encap);
	eff_u = efficiency(u->len, (double)layer_bytes(LAYER_IP, fu, u->len), 0);
	f_bytes = eff_o / eff_u;
	p = add_part(r, "bytes on the wire", f_bytes, false);
	snprintf(p->detail, sizeof(p->detail),
		 "%.0f B of encapsulation a datagram on the wire (%s): %.1f %% of the line is "
		 "payload against "
		 "%.1f %%",
		 encap > 0 ? encap : 0, how, eff_o * 100, eff_u * 100);
	ndr_side(run, o, &so);
	ndr_side(run, u, &su);
	beyond_bytes(r, r->ratio / f_bytes, &so, eff_o, &su, eff_u, "trials at the NDR");
	r->ok = true;
}

static struct breakdown_row *next_row(struct breakdown *b, size_t *cap)
{
	if (b->n == *cap) {
		size_t n = *cap ? *cap * 2 : 8;
		struct breakdown_row *v = realloc(b->rows, n * sizeof(*v));

		if (!v)
			return NULL;
		b->rows = v;
		*cap = n;
	}
	memset(&b->rows[b->n], 0, sizeof(b->rows[0]));
	return &b->rows[b->n++];
}

int breakdown_of(const struct results_run *run, const struct results_summary *sum,
		 struct breakdown *out)
{
	int base = results_underlay(run);
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	if (base < 0)
		return 0;
	for (size_t i = 0; i < sum->ntcp; i++) {
		const struct results_tcp_point *o = &sum->tcp[i], *u;
		struct breakdown_row *r;

		if (o->path == (unsigned)base || !o->goodput_bps.n)
			continue;
		u = results_find_tcp(sum, (unsigned)base, o->streams);
		if (!u || !u->goodput_bps.n || u->goodput_bps.median <= 0 ||
		    o->goodput_bps.median <= 0)
			continue;
		if (!(r = next_row(out, &cap)))
			goto nomem;
		r->path = o->path;
		r->base_path = (unsigned)base;
		tcp_row(run, sum, o, u, r);
	}
	for (size_t i = 0; i < sum->nknee; i++) {
		const struct results_knee_point *o = &sum->knee[i], *u;
		struct breakdown_row *r;

		if (o->path == (unsigned)base)
			continue;
		if (!(u = results_find_knee(sum, (unsigned)base, o->len)))
			continue;
		if (!(r = next_row(out, &cap)))
			goto nomem;
		r->path = o->path;
		r->base_path = (unsigned)base;
		ndr_row(run, sum, o, u, r);
	}
	return 0;
nomem:
	breakdown_free(out);
	return -ENOMEM;
}

void breakdown_free(struct breakdown *b)
{
	free(b->rows);
	b->rows = NULL;
	b->n = 0;
}

double breakdown_points(const struct breakdown_row *r)
{
	double s = 0;

	for (unsigned i = 0; i < r->nparts; i++)
		if (!r->part[i].sub)
			s += r->part[i].points;
	return s;
}
