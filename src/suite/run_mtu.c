// SPDX-License-Identifier: MIT
/*
 * The MTU and MSS checks of a run (mtu.h's mtu_suite_run): each
 * path probed from the client's namespace against the far end's server,
 * overlays judged against their underlay, and every verdict recorded in the
 * run model so that the terminal summary, report.md and run.json carry
 * them. Also the UDP sizes that cannot fit a path, judged before any trial.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "interrupt.h"
#include "mtu.h"
#include "run_int.h"

void run_mtu_checks(struct run *r)
{
	const char *far[SCN_MAX_PATHS];
	size_t first = r->res->nmtu;
	int rc;

	for (unsigned i = 0; i < r->npaths; i++)
		far[i] = r->paths[i].addr;
	/* Probes every path from this thread (the client's namespace) and adds
	 * the verdicts to the run model; a path that cannot be probed is a
	 * FAIL verdict of its own, not the end of the run. */
	rc = mtu_suite_run(r->scn, far, r->res, NULL);
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
			run_warn(r,
				 "path %s: %u-byte UDP payloads make %u-byte IPv%c packets, above "
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
