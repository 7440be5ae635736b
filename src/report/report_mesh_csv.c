// SPDX-License-Identifier: MIT
/* matrix.csv: one row per pair, path and figure (RFC 4180), for
 * spreadsheets. A pair that did not complete has one row with its status
 * and reason and no figures. Every text cell is quoted (report_csv.c).
 * limit: what limited a TCP goodput or UDP NDR figure ("" elsewhere). */
#include <errno.h>
#include <stdio.h>

#include "report_csv.h"
#include "report_mesh.h"

static void row_start(FILE *f, const struct mesh *m, const struct mesh_pair *p)
{
	report_csv_quoted(f, m->hosts[p->client]);
	fputc(',', f);
	report_csv_quoted(f, m->hosts[p->server]);
	fprintf(f, ",%s,", mesh_status_name(p->status));
}

static void pair_rows(FILE *f, const struct mesh *m, const struct mesh_pair *p)
{
	for (unsigned path = 0; path < m->npaths; path++) {
		for (int fig = 0; fig < MESH_FIGURE_COUNT; fig++) {
			const struct mesh_value *x = &p->fig[path][fig];

			if (!x->present)
				continue;
			row_start(f, m, p);
			report_csv_quoted(f, m->paths[path].name);
			fprintf(f, ",%s,%.10g,%s,%s,%u,\"\",", mesh_figure_name(fig), x->v,
				fig == MESH_MTU ? "exact"
				: x->fit	? "fit"
						: overhead_bound_name(x->bound),
				fig == MESH_MTU ? results_verdict_name((enum results_verdict)x->v)
						: mesh_figure_unit(fig),
				x->detail);
			report_csv_quoted(f, x->limit);
			fputc('\n', f);
		}
	}
}

int report_mesh_csv(FILE *f, const struct mesh *m)
{
	fprintf(f, "client,server,status,path,figure,value,bound,unit,detail,reason,limit\n");
	for (size_t i = 0; i < m->npairs; i++) {
		const struct mesh_pair *p = &m->pairs[i];

		if (p->status == MESH_OK) {
			pair_rows(f, m, p);
			continue;
		}
		row_start(f, m, p);
		fprintf(f, "\"\",\"\",,,,,");
		report_csv_quoted(f, p->reason);
		fputs(",\"\"\n", f);
	}
	return ferror(f) ? -EIO : 0;
}
