// SPDX-License-Identifier: MIT
/*
 * The mesh model (mesh.h): pairs of hosts, each with the figures its run
 * measured, derived through results_aggregate() and overhead_compute() so a
 * cell equals what `ovlperf report PAIRDIR` prints for that pair.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "run_limit.h"

void mesh_init(struct mesh *m)
{
	memset(m, 0, sizeof(*m));
}

void mesh_free(struct mesh *m)
{
	free(m->pairs);
	memset(m, 0, sizeof(*m));
}

int mesh_host(struct mesh *m, const char *name)
{
	size_t len = strlen(name);

	if (!len || len >= MESH_HOST_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < m->nhosts; i++)
		if (!strcmp(m->hosts[i], name))
			return (int)i;
	if (m->nhosts == MESH_MAX_HOSTS)
		return -ENOSPC;
	memcpy(m->hosts[m->nhosts], name, len + 1);
	return (int)m->nhosts++;
}

static int path_index(struct mesh *m, const struct results_path *p)
{
	for (unsigned i = 0; i < m->npaths; i++)
		if (!strcmp(m->paths[i].name, p->name))
			return (int)i;
	if (m->npaths == MESH_MAX_PATHS)
		return -ENOSPC;
	snprintf(m->paths[m->npaths].name, sizeof(m->paths[0].name), "%s", p->name);
	m->paths[m->npaths].kind = p->kind;
	return (int)m->npaths++;
}

/* TCP goodput at the most streams the run measured on path. */
static const struct results_tcp_point *tcp_at_most_streams(const struct results_summary *s,
							   unsigned path)
{
	const struct results_tcp_point *best = NULL;

	for (size_t i = 0; i < s->ntcp; i++)
		if (s->tcp[i].path == path && s->tcp[i].goodput_bps.n &&
		    (!best || s->tcp[i].streams > best->streams))
			best = &s->tcp[i];
	return best;
}

static const struct results_knee_point *knee_at_largest(const struct results_summary *s,
							unsigned path)
{
	const struct results_knee_point *best = NULL;

	for (size_t i = 0; i < s->nknee; i++)
		if (s->knee[i].path == path && (!best || s->knee[i].len > best->len))
			best = &s->knee[i];
	return best;
}

static void set_value(struct mesh_value *v, double x, enum overhead_bound b)
{
	if (!isfinite(x))
		return;
	v->present = true;
	v->v = x;
	v->bound = b;
}

static void fill_ratio(struct mesh_value *v, const struct overhead *ov, unsigned path,
		       enum overhead_metric metric, unsigned key)
{
	const struct overhead_row *r = overhead_find(ov, path, metric, key);

	if (r)
		set_value(v, r->ratio, overhead_ratio_bound(r));
	if (r)
		v->fit = r->value_fit || r->base_fit;
}

static void fill_mtu(struct mesh_value *v, const struct results_run *run, unsigned path)
{
	const struct results_mtu_check *worst = NULL;

	for (size_t i = 0; i < run->nmtu; i++)
		if (run->mtu[i].path == path && (!worst || run->mtu[i].verdict > worst->verdict))
			worst = &run->mtu[i];
	if (!worst)
		return;
	set_value(v, worst->verdict, OVERHEAD_EXACT);
	v->detail = worst->value;
	snprintf(v->check, sizeof(v->check), "%s", worst->check);
}

/* The first common delay load of path: the lightest one, which the
 * scenario's delay_loads list first. */
static void fill_owd(struct mesh_value *v, const struct results_summary *s, unsigned path)
{
	for (size_t i = 0; i < s->ndelay; i++) {
		if (s->delay[i].path != path || !s->delay[i].p50_ms.n)
			continue;
		/* One clock on both ends gives exact delays; two give upper
		 * bounds (results.h, owd_error_ms). */
		set_value(v, s->delay[i].p50_ms.median,
			  s->owd_error_ms > 0 ? OVERHEAD_AT_MOST : OVERHEAD_EXACT);
		return;
	}
}

static void fill_path(struct mesh *m, struct mesh_value *fig, const struct results_run *run,
		      const struct results_summary *s, const struct overhead *ov, unsigned p)
{
	const struct results_tcp_point *t = tcp_at_most_streams(s, p);
	const struct results_knee_point *k = knee_at_largest(s, p);

	struct results_tcp_limit tl;
	struct ndr_limit_verdict nl;

	if (t) {
		set_value(&fig[MESH_TCP_GOODPUT], t->goodput_bps.median, OVERHEAD_EXACT);
		if (results_tcp_limit_line(run, p, t->streams, &tl))
			snprintf(fig[MESH_TCP_GOODPUT].limit, sizeof(fig[0].limit), "%s",
				 tcp_limit_name(tl.v.limit));
		fill_ratio(&fig[MESH_TCP_RATIO], ov, p, OVERHEAD_TCP_GOODPUT, t->streams);
		if (!m->tcp_streams)
			m->tcp_streams = t->streams;
	}
	if (k) {
		const struct results_stat *st;
		enum overhead_bound b;

		if (overhead_knee_figure(k, false, &st, &b))
			set_value(&fig[MESH_UDP_NDR], st->median, b);
		fig[MESH_UDP_NDR].fit = k->ndr_head == RESULTS_HEAD_FIT;
		if (fig[MESH_UDP_NDR].present && results_ndr_limit(run, s, p, k->len, &nl))
			snprintf(fig[MESH_UDP_NDR].limit, sizeof(fig[0].limit), "%s",
				 ndr_limit_name(nl.limit));
		fill_ratio(&fig[MESH_NDR_RATIO], ov, p, OVERHEAD_UDP_NDR, k->len);
		if (!m->udp_len)
			m->udp_len = k->len;
	}
	fill_owd(&fig[MESH_OWD_P50], s, p);
	fill_mtu(&fig[MESH_MTU], run, p);
}

static int fill_pair(struct mesh *m, struct mesh_pair *pair, const struct results_run *run)
{
	struct results_summary sum;
	struct overhead ov;
	int err;

	memset(&ov, 0, sizeof(ov));
	err = results_aggregate(run, &sum);
	if (err)
		return err;
	err = overhead_compute(run, &sum, &ov);
	for (unsigned p = 0; !err && p < run->npaths; p++) {
		int mp = path_index(m, &run->paths[p]);

		if (mp < 0)
			err = mp;
		else
			fill_path(m, pair->fig[mp], run, &sum, &ov, p);
	}
	pair->duration_s = run->duration_s;
	overhead_free(&ov);
	results_summary_free(&sum);
	return err;
}

const struct mesh_pair *mesh_find(const struct mesh *m, unsigned client, unsigned server)
{
	for (size_t i = 0; i < m->npairs; i++)
		if (m->pairs[i].client == client && m->pairs[i].server == server)
			return &m->pairs[i];
	return NULL;
}

int mesh_add_pair(struct mesh *m, const char *client, const char *server,
		  const struct results_run *run, enum mesh_status status, const char *reason,
		  const char *dir)
{
	struct mesh_pair *pair;
	int c = mesh_host(m, client), s = c < 0 ? c : mesh_host(m, server);

	if (c < 0 || s < 0)
		return c < 0 ? c : s;
	if (c == s)
		return -EINVAL;
	if (mesh_find(m, (unsigned)c, (unsigned)s))
		return -EEXIST;
	if (m->npairs == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		struct mesh_pair *np = realloc(m->pairs, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		m->pairs = np;
		m->cap = cap;
	}
	pair = &m->pairs[m->npairs];
	memset(pair, 0, sizeof(*pair));
	pair->client = (unsigned)c;
	pair->server = (unsigned)s;
	pair->status = status;
	snprintf(pair->reason, sizeof(pair->reason), "%s", reason ? reason : "");
	snprintf(pair->dir, sizeof(pair->dir), "%s", dir ? dir : "");
	if (run) {
		int err = fill_pair(m, pair, run);

		if (err)
			return err;
		if (!m->scenario[0])
			snprintf(m->scenario, sizeof(m->scenario), "%s", run->scenario_name);
		/* ISO 8601 in UTC sorts as text */
		if (run->started_utc[0] &&
		    (!m->started_first[0] || strcmp(run->started_utc, m->started_first) < 0))
			snprintf(m->started_first, sizeof(m->started_first), "%s",
				 run->started_utc);
		if (strcmp(run->started_utc, m->started_last) > 0)
			snprintf(m->started_last, sizeof(m->started_last), "%s", run->started_utc);
	}
	m->npairs++;
	return 0;
}

static int pair_cmp(const void *a, const void *b)
{
	const struct mesh_pair *x = a, *y = b;

	if (x->client != y->client)
		return x->client < y->client ? -1 : 1;
	return x->server < y->server ? -1 : x->server > y->server;
}

void mesh_sort(struct mesh *m)
{
	unsigned order[MESH_MAX_HOSTS], rank[MESH_MAX_HOSTS];
	char names[MESH_MAX_HOSTS][MESH_HOST_MAX];

	/* Insertion sort: at most MESH_MAX_HOSTS names, and qsort() has no
	 * context argument to reach them through. */
	for (unsigned i = 0; i < m->nhosts; i++) {
		unsigned j = i;

		for (; j > 0 && strcmp(m->hosts[order[j - 1]], m->hosts[i]) > 0; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	memcpy(names, m->hosts, sizeof(names));
	for (unsigned i = 0; i < m->nhosts; i++) {
		rank[order[i]] = i;
		memcpy(m->hosts[i], names[order[i]], MESH_HOST_MAX);
	}
	for (size_t i = 0; i < m->npairs; i++) {
		m->pairs[i].client = rank[m->pairs[i].client];
		m->pairs[i].server = rank[m->pairs[i].server];
	}
	qsort(m->pairs, m->npairs, sizeof(m->pairs[0]), pair_cmp);
}

size_t mesh_count(const struct mesh *m, enum mesh_status s)
{
	size_t n = 0;

	for (size_t i = 0; i < m->npairs; i++)
		n += m->pairs[i].status == s;
	return n;
}

bool mesh_figure_applies(const struct mesh *m, unsigned path, enum mesh_figure f)
{
	if (f == MESH_TCP_RATIO || f == MESH_NDR_RATIO)
		return m->paths[path].kind != RESULTS_PATH_UNDERLAY;
	return true;
}
