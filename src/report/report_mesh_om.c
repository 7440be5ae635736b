// SPDX-License-Identifier: MIT
/*
 * The matrix as OpenMetrics text (`report --matrix --format openmetrics`),
 * for a textfile collector or a push gateway: one gauge family per figure,
 * one sample per pair and path, labelled client, server, path and kind, in
 * base units. Labels never carry a measured value or a state (Prometheus'
 * naming rules: a label set that changes makes a new series), so whether a
 * figure is only a bound and each pair's status are families of their own,
 * one sample per state (1 for the one that holds, 0 for the others), as
 * Prometheus writes an enum: a failed or unreachable pair shows as such
 * instead of only missing. The worst MTU/MSS verdict is a number (0 OK, 1
 * WARN, 2 FAIL). Checked by `promtool check metrics`.
 */
#include <errno.h>
#include <stdio.h>

#include "report_mesh.h"
#include "report_om.h"

struct fam {
	enum mesh_figure fig;
	const char *name, *unit, *help;
	double scale; /* from the figure's unit (mesh_figure_unit) to the base unit */
};

static const struct fam fams[] = {
	{ MESH_TCP_GOODPUT, "ovlperf_mesh_tcp_goodput_bytes_per_second", "bytes_per_second",
	  "TCP goodput at the most streams the runs measured", 1.0 / 8 },
	{ MESH_UDP_NDR, "ovlperf_mesh_udp_ndr_bytes_per_second", "bytes_per_second",
	  "UDP no-drop rate of payload at the largest datagram searched", 1.0 / 8 },
	{ MESH_TCP_RATIO, "ovlperf_mesh_tcp_goodput_overlay_ratio", "ratio",
	  "an overlay's TCP goodput over the underlay's of the same pair", 1 },
	{ MESH_NDR_RATIO, "ovlperf_mesh_udp_ndr_overlay_ratio", "ratio",
	  "an overlay's UDP no-drop rate over the underlay's of the same pair", 1 },
	{ MESH_OWD_P50, "ovlperf_mesh_owd_p50_seconds", "seconds",
	  "one-way delay p50 at the first common load", 1e-3 },
};

static void pair_labels(FILE *f, bool *first, const struct mesh *m, const struct mesh_pair *p)
{
	report_om_label(f, first, "client", m->hosts[p->client]);
	report_om_label(f, first, "server", m->hosts[p->server]);
}

static void family(FILE *f, const char *name, const char *unit, const char *help)
{
	report_om_family(f, "", name, unit, help);
}

static void figure_family(FILE *f, const struct mesh *m, const struct fam *fam)
{
	family(f, fam->name, fam->unit, fam->help);
	for (size_t i = 0; i < m->npairs; i++) {
		const struct mesh_pair *p = &m->pairs[i];

		for (unsigned path = 0; p->status == MESH_OK && path < m->npaths; path++) {
			const struct mesh_value *x = &p->fig[path][fam->fig];
			bool first = true;

			if (!x->present)
				continue;
			fputs(fam->name, f);
			pair_labels(f, &first, m, p);
			report_om_label(f, &first, "path", m->paths[path].name);
			report_om_label(f, &first, "kind",
					results_path_kind_name(m->paths[path].kind));
			fputc('}', f);
			report_om_value(f, x->v * fam->scale);
		}
	}
}

/* Whether each figure of figure_family() is only a bound: one sample per
 * state. */
static void bound_family(FILE *f, const struct mesh *m, const struct fam *fam)
{
	char name[96];

	snprintf(name, sizeof(name), "%s_bound", fam->name);
	fprintf(f,
		"# TYPE %s gauge\n# HELP %s How %s relates to the truth, one sample per state, "
		"1 for the one that holds: exact, at_most (an upper bound), at_least (a lower "
		"bound), unknown\n",
		name, name, fam->name);
	for (size_t i = 0; i < m->npairs; i++) {
		const struct mesh_pair *p = &m->pairs[i];

		for (unsigned path = 0; p->status == MESH_OK && path < m->npaths; path++) {
			const struct mesh_value *x = &p->fig[path][fam->fig];

			if (!x->present)
				continue;
			for (unsigned b = 0; b <= OVERHEAD_UNKNOWN; b++) {
				bool first = true;

				fputs(name, f);
				pair_labels(f, &first, m, p);
				report_om_label(f, &first, "path", m->paths[path].name);
				report_om_label(f, &first, "kind",
						results_path_kind_name(m->paths[path].kind));
				report_om_label(f, &first, "bound",
						overhead_bound_name((enum overhead_bound)b));
				fputc('}', f);
				report_om_value(f, (unsigned)x->bound == b ? 1 : 0);
			}
		}
	}
}

static void status_family(FILE *f, const struct mesh *m)
{
	family(f, "ovlperf_mesh_pair_complete", NULL,
	       "1 when the pair's run completed, 0 when it failed or a host was unreachable");
	for (size_t i = 0; i < m->npairs; i++) {
		const struct mesh_pair *p = &m->pairs[i];
		bool first = true;

		fputs("ovlperf_mesh_pair_complete", f);
		pair_labels(f, &first, m, p);
		fputc('}', f);
		report_om_value(f, p->status == MESH_OK ? 1 : 0);
	}
	family(f, "ovlperf_mesh_pair_status", NULL,
	       "The pair's status, one sample per state, 1 for the one that holds: ok, "
	       "incomplete, failed, unreachable");
	for (size_t i = 0; i < m->npairs; i++) {
		const struct mesh_pair *p = &m->pairs[i];

		for (unsigned st = MESH_OK; st <= MESH_UNREACHABLE; st++) {
			bool first = true;

			fputs("ovlperf_mesh_pair_status", f);
			pair_labels(f, &first, m, p);
			report_om_label(f, &first, "status",
					mesh_status_name((enum mesh_status)st));
			fputc('}', f);
			report_om_value(f, (unsigned)p->status == st ? 1 : 0);
		}
	}
}

static void mtu_family(FILE *f, const struct mesh *m)
{
	family(f, "ovlperf_mesh_mtu_verdict", NULL,
	       "The worst MTU/MSS verdict of a pair's path: 0 OK, 1 WARN, 2 FAIL");
	for (size_t i = 0; i < m->npairs; i++) {
		const struct mesh_pair *p = &m->pairs[i];

		for (unsigned path = 0; p->status == MESH_OK && path < m->npaths; path++) {
			const struct mesh_value *x = &p->fig[path][MESH_MTU];
			bool first = true;

			if (!x->present)
				continue;
			fputs("ovlperf_mesh_mtu_verdict", f);
			pair_labels(f, &first, m, p);
			report_om_label(f, &first, "path", m->paths[path].name);
			report_om_label(f, &first, "kind",
					results_path_kind_name(m->paths[path].kind));
			fputc('}', f);
			report_om_value(f, x->v);
		}
	}
}

int report_mesh_openmetrics(FILE *f, const struct mesh *m)
{
	status_family(f, m);
	for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++) {
		figure_family(f, m, &fams[i]);
		bound_family(f, m, &fams[i]);
	}
	mtu_family(f, m);
	fputs("# EOF\n", f);
	return ferror(f) ? -EIO : 0;
}
