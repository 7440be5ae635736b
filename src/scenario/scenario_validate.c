// SPDX-License-Identifier: MIT
/*
 * After the last line of a scenario file: what needs the whole file.
 * Required keys, references between sections (a path's link or host),
 * contradictions (a lab and real hosts, omit longer than the duration),
 * and the defaults that depend on other sections.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "addr.h"
#include "overlay.h"
#include "scenario_int.h"

/* One loss model per direction (netem has one at a time). */
static void one_loss_model(struct parser *p, struct section *sec, const struct scenario_link *l)
{
	for (unsigned d = 0; d < LINK_DIRS; d++)
		if (l->cond.dir[d].loss_ppm && l->cond.dir[d].ge_p_ppm) {
			scn_error_at(p, scn_line_of(sec, "loss_burst"), sec, "loss_burst",
				     "with loss: one or the other (one loss model per direction)");
			return;
		}
}

static void validate_lab(struct parser *p)
{
	struct scenario *s = p->scn;
	struct scenario_lab *lab = &s->lab;
	struct section *ls = scn_first_of(p, K_LAB);
	unsigned nlinks = scn_count_kind(p, K_LINK), j = 0;

	if (ls)
		lab->line = ls->line;
	if (nlinks) {
		static const char *const link0[] = { "mtu",	   "rate",	 "drop_pct",
						     "block_icmp", "rate_layer", "delay",
						     "jitter",	   "loss",	 "loss_burst",
						     "reorder" };

		for (size_t k = 0; ls && k < sizeof(link0) / sizeof(link0[0]); k++)
			if (scn_given(ls, link0[k]))
				scn_error_at(p, scn_line_of(ls, link0[k]), ls, link0[k],
					     "link settings go in the [link.*] sections when there "
					     "are any");
		for (unsigned i = 0; i < p->nsecs; i++) {
			struct section *sec = &p->secs[i];
			struct scenario_link *l = &lab->links[sec->index];

			if (sec->kind != K_LINK)
				continue;
			/* section_object() wrote the keys there already: keep them */
			snprintf(l->name, sizeof(l->name), "%s", sec->name + 5);
			l->line = sec->line;
			scn_require(p, sec, "a", " (host index of one end)");
			scn_require(p, sec, "b", " (host index of the other end)");
			j++;
		}
		lab->nlinks = j;
	} else {
		/* like `ovlperf lab up --hosts N`: a chain 0-1, 1-2, ... whose
		 * links all carry [lab]'s link settings */
		struct scenario_link l0 = lab->links[0];

		lab->nlinks = lab->hosts - 1;
		for (unsigned i = 0; i < lab->nlinks; i++) {
			lab->links[i] = l0;
			lab->links[i].a = i;
			lab->links[i].b = i + 1;
		}
	}
	for (unsigned i = 0; i < p->nsecs; i++) {
		struct section *sec = &p->secs[i];
		struct scenario_link *l;

		if (sec->kind != K_LINK)
			continue;
		l = &lab->links[sec->index];
		if (scn_given(sec, "a") && l->a >= lab->hosts)
			scn_error_at(p, scn_line_of(sec, "a"), sec, "a",
				     "host %u does not exist (hosts = %u)", l->a, lab->hosts);
		if (scn_given(sec, "b") && l->b >= lab->hosts)
			scn_error_at(p, scn_line_of(sec, "b"), sec, "b",
				     "host %u does not exist (hosts = %u)", l->b, lab->hosts);
		if (scn_given(sec, "a") && scn_given(sec, "b") && l->a == l->b)
			scn_error_at(p, scn_line_of(sec, "b"), sec, "b",
				     "a link joins two different hosts");
		if (scn_given(sec, "rate_layer") && !l->rate_bps)
			scn_error_at(p, scn_line_of(sec, "rate_layer"), sec, "rate_layer",
				     "counts the rate of a shaped link: give rate too");
		one_loss_model(p, sec, l);
	}
	if (ls && !nlinks)
		one_loss_model(p, ls, &lab->links[0]);
	if (ls && !nlinks && scn_given(ls, "rate_layer") && !lab->links[0].rate_bps)
		scn_error_at(p, scn_line_of(ls, "rate_layer"), ls, "rate_layer",
			     "counts the rate of a shaped link: give rate too");
	if (lab->client >= lab->hosts)
		scn_error_at(p, scn_line_of(ls, "client"), ls, "client",
			     "host %u does not exist (hosts = %u)", lab->client, lab->hosts);
	else if (lab->server >= lab->hosts)
		scn_error_at(p, scn_line_of(ls, "server"), ls, "server",
			     "host %u does not exist (hosts = %u)", lab->server, lab->hosts);
	else if (lab->client == lab->server)
		scn_error_at(p, scn_line_of(ls, "server"), ls, "server",
			     "the server must not be the client");
	if (lab->cpus_hosts && lab->cpus_hosts != lab->hosts)
		scn_error_at(p, scn_line_of(ls, "cpus"), ls, "cpus",
			     "%u CPU lists for %u hosts: one per host, in host order, "
			     "separated by | (\"0|1\")",
			     lab->cpus_hosts, lab->hosts);
}

static bool touches(const struct scenario_link *l, unsigned host)
{
	return l->a == host || l->b == host;
}

/* Index of the link named (or numbered) ref; when ref is empty, of the first
 * link joining client and server, else of the first link of the server (the
 * lab routes between hosts); -1 if none. */
static int find_link(const struct scenario_lab *lab, const char *ref)
{
	uint64_t idx;

	for (unsigned i = 0; i < lab->nlinks; i++) {
		const struct scenario_link *l = &lab->links[i];

		if (ref[0] ? !strcmp(l->name, ref)
			   : touches(l, lab->client) && touches(l, lab->server))
			return (int)i;
	}
	if (ref[0])
		return scenario_parse_uint(ref, 0, lab->nlinks - 1, &idx) ? (int)idx : -1;
	for (unsigned i = 0; i < lab->nlinks; i++)
		if (touches(&lab->links[i], lab->server))
			return (int)i;
	return -1;
}

static int numeric_family(const char *addr)
{
	unsigned char b[16];

	if (inet_pton(AF_INET, addr, b) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, addr, b) == 1)
		return AF_INET6;
	return AF_UNSPEC;
}

/* An address key as addr_split() reads it ("2001:2::2", "[2001:2::2]:5211",
 * "host:5211"): the bare name or literal stays in addr, a port it carries
 * goes to *port, where a port key saying otherwise is an error. */
static void split_address(struct parser *p, struct section *sec, char *addr, size_t len,
			  uint16_t *port)
{
	char host[SCN_TEXT_MAX], q[64];
	unsigned line = scn_line_of(sec, "address");
	uint16_t ap = 0;
	int rc;

	if (!addr[0])
		return;
	rc = addr_split(addr, host, sizeof(host), &ap);
	if (rc == -ERANGE) {
		scn_error_at(p, line, sec, "address", "'%s': the port must be 1..65535",
			     scn_quote(addr, q));
		return;
	}
	if (rc) {
		scn_error_at(p, line, sec, "address",
			     "'%s' is not an address: NAME, IPv4, IPv6, or with a port NAME:PORT, "
			     "IPv4:PORT, [IPv6]:PORT",
			     scn_quote(addr, q));
		return;
	}
	if (ap && scn_given(sec, "port") && *port != ap)
		scn_error_at(p, line, sec, "address", "says port %u, but port = %u", ap, *port);
	if (ap)
		*port = ap;
	snprintf(addr, len, "%s", host);
}

/* A process name as the kernel keeps it (comm, argv[0]'s base name: no
 * '/'), or a pid file's absolute path. */
static void validate_process(struct parser *p, struct section *sec, const char *v)
{
	char q[64];

	if (v[0] != '/' && strchr(v, '/'))
		scn_error_at(p, scn_line_of(sec, "process"), sec, "process",
			     "'%s' is neither a process name (its comm or argv[0]'s base name, "
			     "no '/') nor a pid file's absolute path (/run/vpn.pid)",
			     scn_quote(v, q));
	else if (v[strlen(v) - 1] == '/')
		scn_error_at(p, scn_line_of(sec, "process"), sec, "process",
			     "'%s' is a directory, not a pid file", scn_quote(v, q));
}

static void validate_path_keys(struct parser *p, struct section *sec, struct scenario_path *ps)
{
	static const char *const builtin_only[] = { "mtu", "cipher", "underlay_family",
						    "overlay_subnets" };
	static const char *const external_only[] = { "setup", "teardown", "process" };
	int fam;

	split_address(p, sec, ps->address, sizeof(ps->address), &ps->port);
	fam = numeric_family(ps->address);

	for (int k = 0; k < 4; k++)
		if (ps->type != SCN_PATH_BUILTIN && scn_given(sec, builtin_only[k]))
			scn_error_at(p, scn_line_of(sec, builtin_only[k]), sec, builtin_only[k],
				     "only for builtin paths (this one is %s)",
				     scenario_path_type_name(ps->type));
	for (int k = 0; k < 3; k++)
		if (ps->type != SCN_PATH_EXTERNAL && scn_given(sec, external_only[k]))
			scn_error_at(p, scn_line_of(sec, external_only[k]), sec, external_only[k],
				     "only for external paths (this one is %s)",
				     scenario_path_type_name(ps->type));
	if (ps->type == SCN_PATH_EXTERNAL)
		scn_require(p, sec, "address", " (the far end's overlay address)");
	if (ps->process[0])
		validate_process(p, sec, ps->process);
	if (!scn_given(sec, "family") && fam != AF_UNSPEC)
		ps->family = fam;
	else if (fam != AF_UNSPEC && fam != ps->family)
		scn_error_at(p, scn_line_of(sec, "address"), sec, "address",
			     "is IPv%c but family = %c", fam == AF_INET ? '4' : '6',
			     ps->family == AF_INET ? '4' : '6');
}

/* The built-in overlay between two hosts: the server brings up its end
 * (`ovlperf server --overlay`) and assigns the addresses. */
static void validate_remote_builtin(struct parser *p, struct section *sec, struct scenario_path *ps)
{
	struct proto_overlay_nets nets;
	char why[200];

	/* the underlay is the control connection's: the host address's family */
	if (!scn_given(sec, "underlay_family"))
		ps->underlay_family = AF_UNSPEC;
	if (scn_given(sec, "address"))
		scn_error_at(p, scn_line_of(sec, "address"), sec, "address",
			     "not for a builtin path: the overlay's addresses come from "
			     "overlay_subnets or the server's defaults");
	if (ps->overlay_subnets[0] &&
	    !overlay_net_parse(ps->overlay_subnets, &nets, why, sizeof(why)))
		scn_error_at(p, scn_line_of(sec, "overlay_subnets"), sec, "overlay_subnets", "%s",
			     why);
}

static void validate_paths(struct parser *p)
{
	struct scenario *s = p->scn;

	s->npaths = scn_count_kind(p, K_PATH);
	if (!s->npaths && !p->line_errors)
		scn_error_at(p, 0, NULL, NULL,
			     "no [path.NAME] section: name at least one path to measure "
			     "(e.g. [path.native] type = underlay)");
	for (unsigned i = 0; i < p->nsecs; i++) {
		struct section *sec = &p->secs[i];
		struct scenario_path *ps = &s->paths[sec->index];
		char q[64];

		if (sec->kind != K_PATH)
			continue;
		snprintf(ps->name, sizeof(ps->name), "%s", sec->name + 5);
		ps->line = sec->line;
		if (!scn_given(sec, "type")) {
			scn_require(p, sec, "type", " (underlay, builtin or external)");
			continue;
		}
		validate_path_keys(p, sec, ps);
		if (s->is_lab) {
			int l = find_link(&s->lab, sec->ref);

			if (scn_given(sec, "host"))
				scn_error_at(p, scn_line_of(sec, "host"), sec, "host",
					     "only for scenarios with [host.*] sections");
			else if (l < 0 && scn_given(sec, "link"))
				scn_error_at(p, scn_line_of(sec, "link"), sec, "link",
					     "no [link.%s] section", sec->ref);
			else if (l < 0 && p->lab_ok)
				scn_error_at(p, sec->line, sec, NULL,
					     "no link reaches server host %u (client host %u)",
					     s->lab.server, s->lab.client);
			else
				ps->link = (unsigned)l;
			if (scn_given(sec, "overlay_subnets"))
				scn_error_at(p, scn_line_of(sec, "overlay_subnets"), sec,
					     "overlay_subnets",
					     "only between [host.*] hosts (the lab's overlay uses "
					     "198.19.0.0/24 and 2001:2:0:ff::/64)");
			if (ps->address[0] && !scenario_addr_is_benchmark(ps->address))
				scn_error_at(p, scn_line_of(sec, "address"), sec, "address",
					     "'%s' is not in 198.18.0.0/15 or 2001:2::/48: a lab "
					     "scenario sends nowhere else",
					     scn_quote(ps->address, q));
			continue;
		}
		if (ps->type == SCN_PATH_BUILTIN)
			validate_remote_builtin(p, sec, ps);
		if (scn_given(sec, "link"))
			scn_error_at(p, scn_line_of(sec, "link"), sec, "link",
				     "only for lab scenarios");
		if (sec->ref[0] && scn_given(sec, "host")) {
			struct section *hs = NULL;
			char hname[SCN_NAME_MAX + 8];

			snprintf(hname, sizeof(hname), "host.%s", sec->ref);
			hs = scn_find_section(p, hname);
			if (!hs || hs->kind != K_HOST)
				scn_error_at(p, scn_line_of(sec, "host"), sec, "host",
					     "no [host.%s] section", sec->ref);
			else
				ps->host = hs->index;
		} else if (s->nhosts > 1) {
			scn_error_at(p, sec->line, sec, NULL,
				     "name its host (host = NAME): the scenario has %u hosts",
				     s->nhosts);
		}
		/* The family follows the address the loads go to unless stated:
		 * a path without its own address goes to its host's. */
		if (!scn_given(sec, "family") && !ps->address[0] && ps->host < s->nhosts &&
		    numeric_family(s->hosts[ps->host].address) != AF_UNSPEC)
			ps->family = numeric_family(s->hosts[ps->host].address);
	}
}

static void validate_durations(struct parser *p, struct section *sec, const char *key, uint64_t *ns,
			       uint64_t dflt)
{
	if (sec && scn_given(sec, key)) {
		if (!*ns)
			scn_error_at(p, scn_line_of(sec, key), sec, key, "must be above 0");
	} else {
		*ns = dflt;
	}
}

static bool enabled_by_section(struct section *sec, bool *enabled)
{
	if (sec && !scn_given(sec, "enabled"))
		*enabled = true;
	return sec && *enabled;
}

static void validate_sweep(struct parser *p, struct section *sec)
{
	struct scenario_sweep *sw = &p->scn->sweep;
	scn_require(p, sec, "from", " (lowest offered rate, e.g. 100M)");
	scn_require(p, sec, "to", " (highest offered rate)");
	scn_require(p, sec, "step", "");
	if (!scn_given(sec, "from") || !scn_given(sec, "to") || !scn_given(sec, "step"))
		return;
	if (sw->from_bps > sw->to_bps) {
		scn_error_at(p, scn_line_of(sec, "to"), sec, "to", "is below from");
		return;
	}
	if ((sw->to_bps - sw->from_bps) / sw->step_bps + 1 > SCN_SWEEP_MAX_POINTS)
		scn_error_at(p, scn_line_of(sec, "step"), sec, "step",
			     "makes more than %d trials from 'from' to 'to'", SCN_SWEEP_MAX_POINTS);
}

static void validate_knee(struct parser *p, struct section *sec)
{
	struct scenario_knee *k = &p->scn->knee;

	scn_require(p, sec, "max_rate", " (the first trial's offered rate, e.g. 1G)");
	if (scn_given(sec, "min_rate") && scn_given(sec, "max_rate") &&
	    k->min_rate_bps >= k->max_rate_bps)
		scn_error_at(p, scn_line_of(sec, "min_rate"), sec, "min_rate",
			     "must be below max_rate");
	if (k->loss_goal >= 1)
		scn_error_at(p, scn_line_of(sec, "loss_goal"), sec, "loss_goal",
			     "must be below 100%%");
	if (k->width_goal <= 0 || k->width_goal >= 0.5)
		scn_error_at(p, scn_line_of(sec, "width_goal"), sec, "width_goal",
			     "must be above 0 and below 50%%");
	if (!k->short_ns)
		scn_error_at(p, scn_line_of(sec, "short"), sec, "short", "must be above 0");
	else if (k->final_ns < k->short_ns)
		scn_error_at(p, scn_line_of(sec, "final"), sec, "final",
			     "must not be shorter than short (%.3g s)", (double)k->short_ns / 1e9);
	if (k->exceed_ratio >= 1)
		scn_error_at(p, scn_line_of(sec, "exceed_ratio"), sec, "exceed_ratio",
			     "must be below 100%%");
	if (k->duration_sum_ns && k->duration_sum_ns < k->final_ns)
		scn_error_at(p, scn_line_of(sec, "duration_sum"), sec, "duration_sum",
			     "must not be shorter than final (%.3g s)", (double)k->final_ns / 1e9);
	if (k->max_time_ns && k->short_ns && k->max_time_ns < k->short_ns)
		scn_error_at(p, scn_line_of(sec, "max_time"), sec, "max_time",
			     "must not be shorter than short (%.3g s)", (double)k->short_ns / 1e9);
}

/* The delay trials run at [udp] rate, or at fractions of the slowest path's
 * NDR: half of it hides the queue a path builds near its knee, so 90 % is
 * measured beside it unless the scenario says otherwise. */
static void validate_delay_loads(struct parser *p, struct section *us)
{
	struct scenario_udp *u = &p->scn->udp;

	if (us && scn_given(us, "delay_loads") && scn_given(us, "rate"))
		scn_error_at(p, scn_line_of(us, "delay_loads"), us, "delay_loads",
			     "and rate exclude each other: rate is the one load of the delay "
			     "trials");
	if (!u->ndelay_loads) {
		u->delay_loads_pct[0] = 50;
		u->delay_loads_pct[1] = 90;
		u->ndelay_loads = 2;
	}
}

static void validate_loads(struct parser *p)
{
	struct scenario *s = p->scn;
	struct section *ss = scn_first_of(p, K_SCENARIO), *ts = scn_first_of(p, K_TCP);
	struct section *us = scn_first_of(p, K_UDP), *ws = scn_first_of(p, K_SWEEP);
	struct section *ks = scn_first_of(p, K_KNEE), *ms = scn_first_of(p, K_MTU);
	bool sweep = enabled_by_section(ws, &s->sweep.enabled);
	bool knee = enabled_by_section(ks, &s->knee.enabled);

	validate_durations(p, ss, "duration", &s->duration_ns, SCN_DEFAULT_DURATION_NS);
	if (ss && scn_given(ss, "omit") && s->omit_ns >= s->duration_ns)
		scn_error_at(p, scn_line_of(ss, "omit"), ss, "omit",
			     "must be shorter than the duration");
	enabled_by_section(ts, &s->tcp.enabled);
	if (ts)
		s->tcp.line = ts->line;
	validate_durations(p, ts, "duration", &s->tcp.duration_ns, s->duration_ns);
	if (!s->tcp.nstreams) {
		s->tcp.nstreams = 1;
		s->tcp.streams[0] = 1;
	}
	if (us && scn_given(us, "enabled") && !s->udp.enabled && (sweep || knee))
		scn_error_at(p, scn_line_of(us, "enabled"), us, "enabled",
			     "is no, but [%s] sweeps UDP", sweep ? "sweep" : "knee");
	if (!enabled_by_section(us, &s->udp.enabled) && (sweep || knee))
		s->udp.enabled = true;
	if (us)
		s->udp.line = us->line;
	validate_durations(p, us, "duration", &s->udp.duration_ns, s->duration_ns);
	if (!s->udp.nsizes) {
		s->udp.nsizes = 1;
		s->udp.sizes[0] = SCN_DEFAULT_UDP_LEN;
	}
	validate_delay_loads(p, us);
	if (ws)
		s->sweep.line = ws->line;
	validate_durations(p, ws, "duration", &s->sweep.duration_ns, s->udp.duration_ns);
	if (sweep)
		validate_sweep(p, ws);
	if (ks)
		s->knee.line = ks->line;
	if (knee)
		validate_knee(p, ks);
	if (ms)
		s->mtu.line = ms->line;
	if (enabled_by_section(ms, &s->mtu.enabled) && s->mtu.max && s->mtu.max < s->mtu.base)
		scn_error_at(p, scn_line_of(ms, "max"), ms, "max", "is below base (%u)",
			     s->mtu.base);
	if (!s->tcp.enabled && !s->udp.enabled && !s->mtu.enabled && !p->line_errors)
		scn_error_at(
			p, ss ? ss->line : 0, ss, NULL,
			"nothing to measure: add a [tcp], [udp], [sweep], [knee] or [mtu] section");
}

void scn_validate(struct parser *p)
{
	struct scenario *s = p->scn;
	struct section *hs = scn_first_of(p, K_HOST), *ls = scn_first_of(p, K_LAB);
	struct section *lks = scn_first_of(p, K_LINK);

	if (!s->name[0]) {
		const char *base = strrchr(s->file, '/');
		size_t n = 0;

		for (base = base ? base + 1 : s->file; *base && n < SCN_NAME_MAX - 1; base++) {
			if (!strcmp(base, ".ini"))
				break;
			s->name[n++] = isalnum((unsigned char)*base) || *base == '-' ? *base : '_';
		}
		s->name[n] = '\0';
	}
	p->line_errors = p->nerr;
	s->nhosts = scn_count_kind(p, K_HOST);
	if (hs && (ls || lks)) {
		struct section *lab = ls ? ls : lks;

		scn_error_at(p, hs->line, hs, NULL,
			     "a scenario runs either in a lab ([lab], [link.*]) or on real hosts "
			     "([host.*]), not both ([%s] at line %u)",
			     lab->name, lab->line);
		return;
	}
	s->is_lab = !hs;
	if (s->is_lab) {
		unsigned before = p->nerr;

		validate_lab(p);
		p->lab_ok = p->nerr == before;
	} else {
		for (unsigned i = 0; i < p->nsecs; i++) {
			struct section *sec = &p->secs[i];

			if (sec->kind != K_HOST)
				continue;
			struct scenario_host *h = &s->hosts[sec->index];

			snprintf(h->name, SCN_NAME_MAX, "%s", sec->name + 5);
			h->line = sec->line;
			scn_require(p, sec, "address", " (the server's name or address)");
			split_address(p, sec, h->address, sizeof(h->address), &h->port);
		}
	}
	validate_paths(p);
	validate_loads(p);
	scn_validate_layers(p);
}
