// SPDX-License-Identifier: MIT
/*
 * A scenario's MTU checks, the MTU step of `ovlperf run`: from its [mtu]
 * and [path.*] sections to one probe spec per path and the overlay/underlay
 * roles (pure), then every path probed (in the calling thread's namespace:
 * the client's), the overlays related to their underlays, judged, and the
 * verdicts recorded in the run model (results_add_mtu), so every report
 * printer of the run shows them.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"
#include "log.h"
#include "mtu.h"
#include "results.h"
#include "scenario.h"

void mtu_spec_from_scenario(const struct scenario *scn, unsigned i, const char *far_addr,
			    struct mtu_probe_spec *spec)
{
	const struct scenario_path *sp = &scn->paths[i];
	const struct scenario_mtu *m = &scn->mtu;

	mtu_probe_spec_defaults(spec);
	snprintf(spec->name, sizeof(spec->name), "%s", sp->name);
	snprintf(spec->host, sizeof(spec->host), "%s", far_addr ? far_addr : "");
	spec->family = sp->family;
	if (sp->port)
		spec->port = sp->port;
	else if (!scn->is_lab && sp->host < scn->nhosts)
		spec->port = scn->hosts[sp->host].port;
	if (!scn->is_lab && sp->host < scn->nhosts)
		snprintf(spec->psk_file, sizeof(spec->psk_file), "%s",
			 scn->hosts[sp->host].psk_file);
	if (m->base)
		spec->base = m->base;
	spec->max = m->max;
	if (m->probes)
		spec->probes = m->probes;
	if (m->timeout_ns)
		spec->timeout_ns = m->timeout_ns;
	spec->tcp_mss = m->mss;
	spec->fragments = m->fragments;
	spec->expect_mtu = sp->expect_mtu;
	spec->expect_mss = sp->expect_mss;
}

/* The underlay an overlay path rides on: an underlay path on the same link
 * (lab) or host (remote), preferring the outer packets' family. */
static int find_underlay(const struct scenario *scn, unsigned i, int family)
{
	const struct scenario_path *o = &scn->paths[i];
	int any = -1;

	for (unsigned k = 0; k < scn->npaths; k++) {
		const struct scenario_path *u = &scn->paths[k];
		bool same = scn->is_lab ? u->link == o->link : u->host == o->host;

		if (u->type != SCN_PATH_UNDERLAY || !same)
			continue;
		if (u->family == family)
			return (int)k;
		if (any < 0)
			any = (int)k;
	}
	return any;
}

void mtu_roles_from_scenario(const struct scenario *scn, struct mtu_report *rep)
{
	for (unsigned i = 0; i < scn->npaths && i < MTU_MAX_PATHS; i++) {
		const struct scenario_path *sp = &scn->paths[i];
		struct mtu_path_role *r = &rep->roles[i];

		*r = (struct mtu_path_role){ .kind = MTU_PATH_UNDERLAY,
					     .underlay = -1,
					     .underlay_family = AF_INET };
		if (sp->type == SCN_PATH_BUILTIN) {
			r->kind = MTU_PATH_BUILTIN;
			r->underlay_family = sp->underlay_family ? sp->underlay_family : AF_INET;
			r->underlay = find_underlay(scn, i, r->underlay_family);
			r->overlay_mtu = sp->mtu;
		} else if (sp->type == SCN_PATH_EXTERNAL) {
			r->kind = MTU_PATH_EXTERNAL;
			r->underlay = find_underlay(scn, i, sp->family);
		}
	}
}

int mtu_report_find_path(const struct mtu_report *rep, const char *name)
{
	for (unsigned i = 0; i < rep->npaths; i++)
		if (!strcmp(rep->paths[i].spec.name, name))
			return (int)i;
	return -1;
}

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

int mtu_scenario_run(const struct scenario *scn, const char *const far_addr[],
		     struct results_run *run, struct mtu_report **out)
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
