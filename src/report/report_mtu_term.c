// SPDX-License-Identifier: MIT
/* Terminal printer of `ovlperf mtu`: a table of paths, the TCP MSS per path,
 * the tunnel relations, then the verdicts with their fixes. */
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "mtu.h"

static const char *yesno(bool b)
{
	return b ? "yes" : "no";
}

/* Width of the path-name column: the longest name, at least "path". */
static int name_width(const struct mtu_report *rep)
{
	size_t w = 8;

	for (unsigned i = 0; i < rep->npaths; i++)
		if (strlen(rep->paths[i].spec.name) > w)
			w = strlen(rep->paths[i].spec.name);
	return (int)w;
}

static void print_paths(FILE *f, const struct mtu_report *rep)
{
	int w = name_width(rep);

	fprintf(f, "%-*s %-4s %-38s %-8s %6s %8s %7s %5s %9s %7s %6s\n", w, "path", "ip",
		"local -> remote", "iface", "if MTU", "path MTU", "no-frag", "ICMP", "blackhole",
		"probes", "rounds");
	for (unsigned i = 0; i < rep->npaths; i++) {
		const struct mtu_path_result *p = &rep->paths[i];
		const struct mtu_search_result *s = &p->search;
		char ends[96];

		snprintf(ends, sizeof(ends), "%s -> %s", p->local_addr[0] ? p->local_addr : "?",
			 p->remote_addr[0] ? p->remote_addr : p->spec.host);
		if (p->status) {
			fprintf(f, "%-*s %-4s %-38s error: %s\n", w, p->spec.name, "-", ends,
				p->error);
			continue;
		}
		fprintf(f, "%-*s %-4s %-38s %-8s %6u %8u %7u %5s %9s %3u/%-3u %6u\n", w,
			p->spec.name, p->family == AF_INET6 ? "v6" : "v4", ends,
			p->ifname[0] ? p->ifname : "?", p->if_mtu, s->pmtu,
			mtu_path_unfragmented(p), s->icmp_seen ? "yes" : "no", yesno(s->blackhole),
			s->probes_delivered + p->nofrag.probes_delivered,
			s->probes_sent + p->nofrag.probes_sent, s->rounds + p->nofrag.rounds);
	}
}

static void print_tcp(FILE *f, const struct mtu_report *rep)
{
	bool header = false;

	for (unsigned i = 0; i < rep->npaths; i++) {
		const struct mtu_path_result *p = &rep->paths[i];
		const struct mtu_tcp_result *t = &p->tcp;
		struct mtu_mss m;

		if (p->status || !t->run)
			continue;
		if (!header)
			fprintf(f,
				"\nTCP MSS: the option value (what a clamp sets) and the payload "
				"per segment (option - TCP options)\n");
		header = true;
		mtu_tcp_mss(t, &m);
		fprintf(f, "%-*s MSS %u, payload %u%s; SYN sent %u, arrived ", name_width(rep),
			p->spec.name, m.option, m.payload, t->timestamps ? " (timestamps)" : "",
			m.syn_sent);
		if (m.syn_arrived)
			fprintf(f, "%u", m.syn_arrived);
		else
			fprintf(f, "?");
		fprintf(f, "; payload after the transfer %u (server %u); path allows MSS %u%s\n",
			t->client.snd_mss, t->server.snd_mss,
			mtu_expected_adv_mss(mtu_path_unfragmented(p), p->family),
			t->completed ? "" : ", STALLED");
	}
}

static void print_tunnels(FILE *f, const struct mtu_report *rep)
{
	bool header = false;

	for (unsigned i = 0; i < rep->npaths; i++) {
		const struct mtu_tunnel *t = &rep->tunnels[i];

		if (!t->valid)
			continue;
		if (!header)
			fprintf(f, "\nTunnels\n");
		header = true;
		fprintf(f, "%-12s over %-12s underlay %u, overlay %u (interface %u), overhead %d",
			rep->paths[t->overlay].spec.name, rep->paths[t->underlay].spec.name,
			t->underlay_pmtu, t->overlay_pmtu, t->overlay_if_mtu, t->overhead_inferred);
		if (t->overhead_expected)
			fprintf(f, " (expected %u, inner MTU %u)", t->overhead_expected,
				t->inner_expected);
		fprintf(f, "\n");
	}
}

void mtu_report_print_term(FILE *f, const struct mtu_report *rep)
{
	print_paths(f, rep);
	print_tcp(f, rep);
	print_tunnels(f, rep);
	fprintf(f, "\nVerdicts\n");
	for (unsigned i = 0; i < rep->nverdicts; i++) {
		const struct mtu_verdict *v = &rep->verdicts[i];

		fprintf(f, "%-4s  %-*s %-9s %s\n", mtu_level_name(v->level), name_width(rep),
			v->path, v->check, v->reason);
		if (v->fix[0])
			fprintf(f, "%-4s  %-*s %-9s fix: %s\n", "", name_width(rep), "", "",
				v->fix);
	}
	fprintf(f, "\nOverall: %s\n", mtu_level_name(mtu_report_worst(rep)));
}
