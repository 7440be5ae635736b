// SPDX-License-Identifier: MIT
/*
 * What a mesh report names: its slowest pair and its most expensive
 * overlay, and the names of figures and statuses shared by every printer.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"

/* The underlay path, else the first: the one the slowest pair is judged by. */
static unsigned base_path(const struct mesh *m)
{
	for (unsigned p = 0; p < m->npaths; p++)
		if (m->paths[p].kind == RESULTS_PATH_UNDERLAY)
			return p;
	return 0;
}

static bool any_value(const struct mesh *m, unsigned path, enum mesh_figure f)
{
	for (size_t i = 0; i < m->npairs; i++)
		if (m->pairs[i].status == MESH_OK && m->pairs[i].fig[path][f].present)
			return true;
	return false;
}

static void slowest(const struct mesh *m, struct mesh_verdicts *v)
{
	unsigned p = base_path(m);
	enum mesh_figure f = any_value(m, p, MESH_TCP_GOODPUT) ? MESH_TCP_GOODPUT : MESH_UDP_NDR;

	for (size_t i = 0; i < m->npairs; i++) {
		const struct mesh_value *x = &m->pairs[i].fig[p][f];

		if (m->pairs[i].status != MESH_OK || !x->present)
			continue;
		if (!v->has_slowest || x->v < m->pairs[v->slowest].fig[p][f].v) {
			v->has_slowest = true;
			v->slowest = i;
		}
	}
	v->slowest_path = p;
	v->slowest_fig = f;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Cost of an overlay in percent of the underlay's rate: 100 (1 - ratio),
 * as overhead_cost_pct() states it for rates. */
static void costliest_of(const struct mesh *m, unsigned p, struct mesh_verdicts *v, double *costs)
{
	enum mesh_figure f = any_value(m, p, MESH_TCP_RATIO) ? MESH_TCP_RATIO : MESH_NDR_RATIO;
	size_t n = 0, worst = 0;
	double median, worst_pct = -INFINITY;

	for (size_t i = 0; i < m->npairs; i++) {
		const struct mesh_value *x = &m->pairs[i].fig[p][f];

		if (m->pairs[i].status != MESH_OK || !x->present)
			continue;
		costs[n++] = 100.0 * (1.0 - x->v);
		if (costs[n - 1] > worst_pct) {
			worst_pct = costs[n - 1];
			worst = i;
		}
	}
	if (!n)
		return;
	qsort(costs, n, sizeof(costs[0]), dbl_cmp);
	median = n % 2 ? costs[n / 2] : (costs[n / 2 - 1] + costs[n / 2]) / 2;
	if (v->has_costliest && median <= v->costliest_median_pct)
		return;
	v->has_costliest = true;
	v->costliest_path = p;
	v->costliest_fig = f;
	v->costliest_median_pct = median;
	v->costliest_n = (unsigned)n;
	v->costliest_worst = worst;
	v->costliest_worst_pct = worst_pct;
}

void mesh_verdicts(const struct mesh *m, struct mesh_verdicts *v)
{
	double *costs = m->npairs ? malloc(m->npairs * sizeof(*costs)) : NULL;

	memset(v, 0, sizeof(*v));
	slowest(m, v);
	if (!costs)
		return;
	for (unsigned p = 0; p < m->npaths; p++)
		if (m->paths[p].kind != RESULTS_PATH_UNDERLAY)
			costliest_of(m, p, v, costs);
	free(costs);
}

static const struct {
	const char *name, *label, *unit;
} figures[MESH_FIGURE_COUNT] = {
	[MESH_TCP_GOODPUT] = { "tcp_goodput_bps", "TCP goodput", "bit/s" },
	[MESH_UDP_NDR] = { "udp_ndr_bps", "UDP NDR", "bit/s" },
	[MESH_TCP_RATIO] = { "tcp_goodput_ratio", "TCP goodput, overlay / underlay", "ratio" },
	[MESH_NDR_RATIO] = { "udp_ndr_ratio", "UDP NDR, overlay / underlay", "ratio" },
	[MESH_OWD_P50] = { "owd_p50_ms", "One-way delay p50", "ms" },
	[MESH_MTU] = { "mtu_verdict", "MTU/MSS verdict", "verdict" },
};

const char *mesh_figure_name(enum mesh_figure f)
{
	return (unsigned)f < MESH_FIGURE_COUNT ? figures[f].name : "?";
}

const char *mesh_figure_label(enum mesh_figure f)
{
	return (unsigned)f < MESH_FIGURE_COUNT ? figures[f].label : "?";
}

const char *mesh_figure_unit(enum mesh_figure f)
{
	return (unsigned)f < MESH_FIGURE_COUNT ? figures[f].unit : "?";
}

static const char *const statuses[] = { "ok", "incomplete", "failed", "unreachable" };

const char *mesh_status_name(enum mesh_status s)
{
	return (unsigned)s < 4 ? statuses[s] : "?";
}

int mesh_status_parse(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, statuses[i]))
			return i;
	return -1;
}
