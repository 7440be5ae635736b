// SPDX-License-Identifier: MIT
/*
 * The MTU and MSS checks of a run (issue 5, mtu.h): each path probed from
 * the client's namespace against the far end's server, overlays judged
 * against their underlay, and every verdict recorded in the run model so
 * that the terminal summary, report.md and run.json carry them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "interrupt.h"
#include "log.h"
#include "mtu.h"
#include "run.h"

static void record(struct run *r, const struct mtu_report *rep)
{
	for (unsigned k = 0; k < rep->nverdicts; k++) {
		const struct mtu_verdict *v = &rep->verdicts[k];
		int p = mtu_report_find_path(rep, v->path);
		struct results_mtu_check *m;

		if (p < 0)
			continue;
		m = results_add_mtu(r->res);
		if (!m)
			return;
		m->path = (unsigned)p;
		snprintf(m->check, sizeof(m->check), "%s", v->check);
		m->verdict = v->level == MTU_FAIL   ? RESULTS_FAIL
			     : v->level == MTU_WARN ? RESULTS_WARN
						    : RESULTS_OK;
		m->value = v->value;
		snprintf(m->reason, sizeof(m->reason), "%s", v->reason);
		snprintf(m->fix, sizeof(m->fix), "%s", v->fix);
	}
}

void run_mtu_checks(struct run *r)
{
	struct mtu_report *rep = calloc(1, sizeof(*rep));

	if (!rep) {
		run_stop(r, -ENOMEM, "out of memory");
		return;
	}
	rep->npaths = r->npaths < MTU_MAX_PATHS ? r->npaths : MTU_MAX_PATHS;
	for (unsigned i = 0; i < rep->npaths && !r->stop; i++) {
		struct mtu_probe_spec spec;
		int rc;

		mtu_spec_from_scenario(r->scn, i, r->paths[i].addr, &spec);
		spec.port = r->paths[i].port;
		if (r->opt->progress)
			fprintf(stderr, "%sMTU and MSS checks: path %s%s",
				isatty(STDERR_FILENO) ? "\r\033[K" : "", r->paths[i].sp->name,
				isatty(STDERR_FILENO) ? "" : "\n");
		rc = mtu_probe_path(&spec, &rep->paths[i]);
		if (interrupt_requested()) {
			run_stop(r, -EINTR, "interrupted by signal %d", interrupt_signal());
			break;
		}
		/* A failed probe is a verdict of its own, not the end of the run. */
		if (rc)
			log_warn("path %s: MTU probe: %s", r->paths[i].sp->name,
				 rep->paths[i].error[0] ? rep->paths[i].error : strerror(-rc));
		run_paths_check(r);
	}
	if (!r->stop) {
		mtu_roles_from_scenario(r->scn, rep);
		mtu_verdicts(rep);
		record(r, rep);
		run_save(r);
	}
	free(rep);
}

/* UDP datagrams that cannot fit a path: payload + IP and UDP headers above
 * the MTU the run knows for it (lab paths). They are refused (EMSGSIZE) or
 * fragmented, and a "loss knee" measured with them means nothing: say so
 * before the first trial, in the log and as a verdict in the report. */
void run_size_checks(struct run *r)
{
	const struct scenario *scn = r->scn;
	unsigned nsizes = scn->udp.nsizes ? scn->udp.nsizes : 1;

	if (!scn->knee.enabled && !scn->sweep.enabled && !scn->udp.enabled)
		return;
	for (unsigned p = 0; p < r->npaths; p++) {
		uint32_t mtu = r->res->paths[p].mtu;
		unsigned hdr = r->paths[p].sp->family == AF_INET6 ? 48 : 28;

		for (unsigned i = 0; i < nsizes && mtu; i++) {
			uint32_t len = scn->udp.nsizes ? scn->udp.sizes[i] : SCN_DEFAULT_UDP_LEN;
			struct results_mtu_check *m;

			if (len + hdr <= mtu)
				continue;
			log_warn("path %s: %u-byte UDP payloads make %u-byte IPv%c packets, above "
				 "its MTU %u: they will be refused or fragmented",
				 r->paths[p].sp->name, len, len + hdr, hdr == 48 ? '6' : '4', mtu);
			m = results_add_mtu(r->res);
			if (!m)
				return;
			m->path = p;
			snprintf(m->check, sizeof(m->check), "udp-size");
			m->verdict = RESULTS_FAIL;
			m->value = len + hdr;
			snprintf(m->reason, sizeof(m->reason),
				 "%u-byte UDP payloads are %u-byte packets, above the path MTU %u",
				 len, len + hdr, mtu);
			snprintf(m->fix, sizeof(m->fix),
				 "use UDP sizes up to %u on this path, or raise its MTU to %u",
				 mtu - hdr, len + hdr);
		}
	}
}
