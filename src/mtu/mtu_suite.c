// SPDX-License-Identifier: MIT
/*
 * The MTU checks as one step of `ovlperf run`: probe every path of the
 * scenario (in the calling thread's namespace: the client's), relate the
 * overlays to their underlays, judge, and record the verdicts in the run
 * model (results_add_mtu), so every report printer of the run shows them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"
#include "log.h"
#include "mtu.h"
#include "results.h"
#include "scenario.h"

static int record(const struct mtu_report *rep, struct results_run *run)
{
	for (unsigned i = 0; i < rep->nverdicts; i++) {
		const struct mtu_verdict *v = &rep->verdicts[i];
		struct results_mtu_check *m = results_add_mtu(run);
		int path = mtu_report_find_path(rep, v->path);

		if (!m)
			return -ENOMEM;
		m->path = path < 0 ? 0 : (unsigned)path;
		snprintf(m->check, sizeof(m->check), "%s", v->check);
		m->verdict = v->level == MTU_FAIL   ? RESULTS_FAIL
			     : v->level == MTU_WARN ? RESULTS_WARN
						    : RESULTS_OK;
		m->value = v->value;
		snprintf(m->reason, sizeof(m->reason), "%s", v->reason);
		snprintf(m->fix, sizeof(m->fix), "%s", v->fix);
	}
	return 0;
}

int mtu_suite_run(const struct scenario *scn, const char *const far_addr[], struct results_run *run,
		  struct mtu_report **out)
{
	struct mtu_report *rep;
	int rc = 0;

	if (out)
		*out = NULL;
	if (!scn->mtu.enabled)
		return 0;
	rep = calloc(1, sizeof(*rep));
	if (!rep)
		return -ENOMEM;
	rep->npaths = scn->npaths < MTU_MAX_PATHS ? scn->npaths : MTU_MAX_PATHS;
	for (unsigned i = 0; i < rep->npaths; i++) {
		struct mtu_probe_spec spec;

		mtu_spec_from_scenario(scn, i, far_addr[i], &spec);
		if (interrupt_requested()) {
			rc = -EINTR;
			break;
		}
		if (mtu_probe_path(&spec, &rep->paths[i]) < 0)
			log_warn("MTU checks, path %s: %s", spec.name, rep->paths[i].error);
	}
	mtu_roles_from_scenario(scn, rep);
	mtu_verdicts(rep);
	if (run && rc == 0)
		rc = record(rep, run);
	if (rc == 0)
		rc = (int)mtu_report_worst(rep);
	if (out && rc >= 0)
		*out = rep;
	else
		free(rep);
	return rc;
}
