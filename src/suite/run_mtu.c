// SPDX-License-Identifier: MIT
/*
 * The MTU and MSS checks of a run (mtu.h's mtu_scenario_run): each
 * path probed from the client's namespace against the far end's server,
 * overlays judged against their underlay, and every verdict recorded in the
 * run model so that the terminal summary, report.md and run.json carry
 * them. Also the UDP sizes that cannot fit a path, judged before any trial.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "interrupt.h"
#include "layer.h"
#include "log.h"
#include "mtu.h"
#include "run_int.h"

/* The largest packet each path carried unfragmented in the [mtu] checks. */
static void pmtu_from_checks(struct run *r, const struct mtu_report *rep)
{
	for (unsigned i = 0; rep && i < rep->npaths && i < r->npaths; i++) {
		const struct mtu_path_result *p = &rep->paths[i];
		uint32_t fits = p->status ? 0 : mtu_path_unfragmented(p);

		if (!fits)
			continue;
		r->res->paths[i].pmtu = fits;
		snprintf(r->res->paths[i].pmtu_source, sizeof(r->res->paths[i].pmtu_source),
			 "mtu-check");
	}
}

void run_mtu_checks(struct run *r)
{
	const char *far[SCN_MAX_PATHS];
	size_t first = r->res->nmtu;
	struct mtu_report *rep = NULL;
	int rc;

	for (unsigned i = 0; i < r->npaths; i++)
		far[i] = r->paths[i].addr;
	/* Probes every path from this thread (the client's namespace) and adds
	 * the verdicts to the run model; a path that cannot be probed is a
	 * FAIL verdict of its own, not the end of the run. */
	rc = mtu_scenario_run(r->scn, far, r->res, &rep);
	pmtu_from_checks(r, rep);
	free(rep);
	if (rc == -EINTR || interrupt_requested()) {
		run_stop(r, -EINTR, "interrupted by signal %d", interrupt_signal());
		return;
	}
	if (rc < 0) {
		run_stop(r, rc, "MTU checks: %s", strerror(-rc));
		return;
	}
	run_event(r, &(struct run_progress){ .kind = RUN_PROGRESS_MTU_DONE,
					     .phase = RUN_PHASE_MTU,
					     .mtu = r->res->mtu + first,
					     .nmtu = r->res->nmtu - first });
	run_paths_check(r);
	run_save(r);
}

/* IP and UDP header bytes of the path's datagrams. */
static unsigned udp_hdr(const struct run *r, unsigned p)
{
	int family = r->paths[p].sp->family;

	if (family == AF_UNSPEC)
		family = strchr(r->paths[p].addr, ':') ? AF_INET6 : AF_INET;
	return (unsigned)layer_bytes(LAYER_IP, family, 0);
}

/* A quick probe of a path nothing else measured: DF probes confirmed by the
 * far end's server, a second search if the packets carrying them were
 * fragmented. 0 when it found nothing. */
static uint32_t quick_probe(struct run *r, unsigned p)
{
	struct mtu_path_result *res = calloc(1, sizeof(*res));
	struct mtu_probe_spec spec;
	uint32_t fits = 0;

	/* Simulated paths (the unit tests' runner) have no far end to probe:
	 * their addresses may be anywhere, and nothing may be sent there. */
	if (r->opt->runner || !res) {
		free(res);
		return 0;
	}
	mtu_spec_from_scenario(r->scn, p, r->paths[p].addr, &spec);
	spec.port = r->paths[p].port;
	spec.cport = r->paths[p].cport;
	spec.tcp_mss = false;
	spec.fragments = true;
	spec.expect_mtu = spec.expect_mss = 0;
	if (mtu_probe_path(&spec, res) == 0)
		fits = mtu_path_unfragmented(res);
	else
		log_info("path %s: no quick path MTU probe: %s", r->paths[p].sp->name, res->error);
	free(res);
	return fits;
}

/* The path MTU each path's UDP sizes are judged by, in order of trust: the
 * run's own [mtu] checks, the scenario's expect_mtu, a quick probe now, the
 * near end's interface MTU. */
static void path_pmtu(struct run *r, unsigned p)
{
	struct results_path *rp = &r->res->paths[p];
	const char *src = NULL;

	if (rp->pmtu)
		return;
	if (r->paths[p].sp->expect_mtu) {
		rp->pmtu = r->paths[p].sp->expect_mtu;
		src = "expect_mtu";
	} else if ((rp->pmtu = quick_probe(r, p)) != 0) {
		src = "probe";
	} else if (rp->mtu) {
		rp->pmtu = rp->mtu;
		src = "interface";
	}
	if (src)
		snprintf(rp->pmtu_source, sizeof(rp->pmtu_source), "%s", src);
}

/* [udp] sizes = fit: the largest payload every path carries unfragmented,
 * so that every path gets the same load. */
static void choose_fit(struct run *r)
{
	uint32_t fit = 0;

	for (unsigned p = 0; p < r->npaths; p++) {
		uint32_t pmtu = r->res->paths[p].pmtu, hdr = udp_hdr(r, p);

		if (pmtu > hdr + LOAD_UDP_MIN_LEN && (!fit || pmtu - hdr < fit))
			fit = pmtu - hdr;
	}
	if (!fit) {
		fit = SCN_DEFAULT_UDP_LEN;
		run_warn(r, "sizes = fit: no path MTU is known on any path; %u-byte datagrams",
			 fit);
	}
	r->res->udp_fit_len = fit;
}

uint32_t run_udp_size(const struct run *r, unsigned i)
{
	const struct scenario *scn = r->scn;
	uint32_t len = scn->udp.nsizes ? scn->udp.sizes[i] : SCN_DEFAULT_UDP_LEN;

	return len == SCN_UDP_SIZE_FIT ? r->res->udp_fit_len : len;
}

/* UDP datagrams that cannot cross a path unfragmented: payload + IP and UDP
 * headers above the path MTU the run knows for it. They are measured, and
 * marked: one warning per path (not one per trial), a WARN verdict per size
 * naming the fragments per datagram, and every trial's fragments in
 * run.json. */
void run_size_checks(struct run *r)
{
	const struct scenario *scn = r->scn;
	unsigned nsizes = scn->udp.nsizes ? scn->udp.nsizes : 1;

	if (!scn->knee.enabled && !scn->sweep.enabled && !scn->udp.enabled)
		return;
	for (unsigned p = 0; p < r->npaths && !interrupt_requested(); p++)
		path_pmtu(r, p);
	if (scn->udp.nsizes && scn->udp.sizes[0] == SCN_UDP_SIZE_FIT)
		choose_fit(r);
	for (unsigned p = 0; p < r->npaths; p++) {
		const struct results_path *rp = &r->res->paths[p];
		unsigned hdr = udp_hdr(r, p), nbad = 0;
		char sizes[160] = "";
		size_t used = 0;

		for (unsigned i = 0; i < nsizes && rp->pmtu; i++) {
			uint32_t len = run_udp_size(r, i),
				 frags = udp_fragments(len, rp->pmtu, hdr);
			struct results_mtu_check *m;
			int n;

			if (len + hdr <= rp->pmtu)
				continue;
			n = snprintf(sizes + used, sizeof(sizes) - used, "%s%u (%u fragments)",
				     nbad++ ? ", " : "", len, frags);
			if (n > 0 && (size_t)n < sizeof(sizes) - used)
				used += (size_t)n;
			m = results_add_mtu(r->res);
			if (!m)
				return;
			m->path = p;
			snprintf(m->check, sizeof(m->check), "udp-size");
			m->verdict = RESULTS_WARN;
			m->value = frags;
			snprintf(m->reason, sizeof(m->reason),
				 "fragmented: %u-byte UDP payloads are %u-byte packets, above the "
				 "path MTU %u (%s): measured as %u IP fragments per datagram",
				 len, len + hdr, rp->pmtu, rp->pmtu_source, frags);
			snprintf(m->fix, sizeof(m->fix),
				 "use UDP sizes up to %u on this path (or sizes = fit), or raise "
				 "its "
				 "MTU to %u",
				 rp->pmtu - hdr, len + hdr);
		}
		if (nbad)
			run_warn(r,
				 "path %s: UDP sizes %s are above its path MTU %u (%s): measured "
				 "fragmented, and marked so in every output",
				 r->paths[p].sp->name, sizes, rp->pmtu, rp->pmtu_source);
	}
}
