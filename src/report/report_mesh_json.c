// SPDX-License-Identifier: MIT
/* matrix.json: the mesh as one document (libcjson), schema "ovlperf-matrix"
 * with schema_version MESH_SCHEMA; its fields are in docs/mesh.md. */
#include <errno.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "json_out.h"
#include "report_mesh.h"

static cJSON *value_json(const struct mesh_value *x, enum mesh_figure fig)
{
	cJSON *o = cJSON_CreateObject();

	if (fig == MESH_MTU) {
		cJSON_AddStringToObject(o, "verdict",
					results_verdict_name((enum results_verdict)x->v));
		cJSON_AddStringToObject(o, "check", x->check);
		if (x->detail)
			cJSON_AddNumberToObject(o, "value", x->detail);
		else
			cJSON_AddNullToObject(o, "value");
		return o;
	}
	cJSON_AddNumberToObject(o, "value", x->v);
	cJSON_AddStringToObject(o, "bound", x->fit ? "fit" : overhead_figure_bound_name(x->bound));
	if (fig == MESH_TCP_GOODPUT || fig == MESH_UDP_NDR)
		cJSON_AddStringToObject(o, "limit", x->limit);
	return o;
}

static cJSON *pair_json(const struct mesh *m, const struct mesh_pair *p)
{
	cJSON *o = cJSON_CreateObject(), *paths = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "client", m->hosts[p->client]);
	cJSON_AddStringToObject(o, "server", m->hosts[p->server]);
	cJSON_AddStringToObject(o, "status", mesh_status_name(p->status));
	cJSON_AddStringToObject(o, "reason", p->reason);
	cJSON_AddStringToObject(o, "dir", p->dir);
	cJSON_AddNumberToObject(o, "duration_s", p->duration_s);
	for (unsigned path = 0; p->status == MESH_OK && path < m->npaths; path++) {
		cJSON *figs = cJSON_AddObjectToObject(paths, m->paths[path].name);

		for (int fig = 0; figs && fig < MESH_FIGURE_COUNT; fig++)
			if (p->fig[path][fig].present)
				cJSON_AddItemToObject(figs, mesh_figure_name(fig),
						      value_json(&p->fig[path][fig], fig));
	}
	cJSON_AddItemToObject(o, "paths", paths);
	return o;
}

static void add_verdicts(cJSON *root, const struct mesh *m, const struct mesh_verdicts *v)
{
	if (v->has_slowest) {
		const struct mesh_pair *p = &m->pairs[v->slowest];
		cJSON *o = cJSON_AddObjectToObject(root, "slowest_pair");

		cJSON_AddStringToObject(o, "client", m->hosts[p->client]);
		cJSON_AddStringToObject(o, "server", m->hosts[p->server]);
		cJSON_AddStringToObject(o, "path", m->paths[v->slowest_path].name);
		cJSON_AddStringToObject(o, "figure", mesh_figure_name(v->slowest_fig));
		cJSON_AddNumberToObject(o, "value", p->fig[v->slowest_path][v->slowest_fig].v);
	} else {
		cJSON_AddNullToObject(root, "slowest_pair");
	}
	if (v->has_costliest) {
		const struct mesh_pair *w = &m->pairs[v->costliest_worst];
		cJSON *o = cJSON_AddObjectToObject(root, "most_expensive_overlay");

		cJSON_AddStringToObject(o, "path", m->paths[v->costliest_path].name);
		cJSON_AddStringToObject(o, "figure", mesh_figure_name(v->costliest_fig));
		cJSON_AddNumberToObject(o, "median_cost_pct", v->costliest_median_pct);
		cJSON_AddNumberToObject(o, "pairs", v->costliest_n);
		cJSON_AddNumberToObject(o, "worst_cost_pct", v->costliest_worst_pct);
		cJSON_AddStringToObject(o, "worst_client", m->hosts[w->client]);
		cJSON_AddStringToObject(o, "worst_server", m->hosts[w->server]);
	} else {
		cJSON_AddNullToObject(root, "most_expensive_overlay");
	}
}

static cJSON *mesh_json(const struct mesh *m, const struct mesh_verdicts *v)
{
	cJSON *root = cJSON_CreateObject(), *a;

	cJSON_AddStringToObject(root, "schema", "ovlperf-matrix");
	cJSON_AddNumberToObject(root, "schema_version", MESH_SCHEMA);
	a = cJSON_AddArrayToObject(root, "hosts");
	for (unsigned i = 0; a && i < m->nhosts; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(m->hosts[i]));
	a = cJSON_AddArrayToObject(root, "paths");
	for (unsigned i = 0; a && i < m->npaths; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", m->paths[i].name);
		cJSON_AddStringToObject(o, "kind", results_path_kind_name(m->paths[i].kind));
		cJSON_AddItemToArray(a, o);
	}
	cJSON_AddNumberToObject(root, "tcp_streams", m->tcp_streams);
	cJSON_AddNumberToObject(root, "udp_len", m->udp_len);
	a = cJSON_AddObjectToObject(root, "counts");
	for (int s = MESH_OK; a && s <= MESH_UNREACHABLE; s++)
		cJSON_AddNumberToObject(a, mesh_status_name(s), mesh_count(m, s));
	add_verdicts(root, m, v);
	a = cJSON_AddArrayToObject(root, "pairs");
	for (size_t i = 0; a && i < m->npairs; i++)
		cJSON_AddItemToArray(a, pair_json(m, &m->pairs[i]));
	return root;
}

int report_mesh_json(FILE *f, const struct mesh *m, const struct mesh_verdicts *v)
{
	return json_out_print(f, mesh_json(m, v));
}
