// SPDX-License-Identifier: MIT
/* The terminal matrix of a mesh, and the cell and verdict texts every mesh
 * printer shares. */
#include <stdio.h>
#include <string.h>

#include "report_mesh.h"
#include "report_run.h"

bool report_mesh_any_fit(const struct mesh *m)
{
	for (size_t i = 0; i < m->npairs; i++)
		for (unsigned p = 0; p < m->npaths; p++)
			for (int f = 0; f < MESH_FIGURE_COUNT; f++)
				if (m->pairs[i].fig[p][f].present && m->pairs[i].fig[p][f].fit)
					return true;
	return false;
}

static void fmt_figure(char *buf, size_t len, const struct mesh_value *x, enum mesh_figure f)
{
	const char *pre = x->fit ? "~" : overhead_bound_prefix(x->bound);
	char v[32];

	switch (f) {
	case MESH_TCP_GOODPUT:
	case MESH_UDP_NDR:
		report_run_fmt_rate(v, sizeof(v), x->v);
		snprintf(buf, len, "%s%s", pre, v);
		break;
	case MESH_TCP_RATIO:
	case MESH_NDR_RATIO:
		snprintf(buf, len, "%s%.3f", pre, x->v);
		break;
	case MESH_OWD_P50:
		snprintf(buf, len, "%s%.3f ms", pre, x->v);
		break;
	case MESH_MTU:
		if (x->detail)
			snprintf(buf, len, "%s %u",
				 results_verdict_name((enum results_verdict)x->v), x->detail);
		else
			snprintf(buf, len, "%s", results_verdict_name((enum results_verdict)x->v));
		break;
	default:
		snprintf(buf, len, "?");
	}
}

void report_mesh_cell(char *buf, size_t len, const struct mesh *m, unsigned client, unsigned server,
		      unsigned path, enum mesh_figure f)
{
	static const char *const status_cell[] = { "", "INCOMPLETE", "FAILED", "UNREACHABLE" };
	const struct mesh_pair *p = mesh_find(m, client, server);

	if (client == server)
		snprintf(buf, len, "-");
	else if (!p)
		snprintf(buf, len, "%s", "");
	else if (p->status != MESH_OK)
		snprintf(buf, len, "%s", status_cell[p->status]);
	else if (!p->fig[path][f].present)
		snprintf(buf, len, "n/a");
	else
		fmt_figure(buf, len, &p->fig[path][f], f);
}

void report_mesh_slowest(char *buf, size_t len, const struct mesh *m, const struct mesh_verdicts *v)
{
	const struct mesh_pair *p;
	char cell[48];

	buf[0] = '\0';
	if (!v->has_slowest)
		return;
	p = &m->pairs[v->slowest];
	report_mesh_cell(cell, sizeof(cell), m, p->client, p->server, v->slowest_path,
			 v->slowest_fig);
	snprintf(buf, len, "Slowest pair: %s -> %s, %s %s over %s\n", m->hosts[p->client],
		 m->hosts[p->server], mesh_figure_label(v->slowest_fig), cell,
		 m->paths[v->slowest_path].name);
}

void report_mesh_costliest(char *buf, size_t len, const struct mesh *m,
			   const struct mesh_verdicts *v)
{
	const struct mesh_pair *w;

	buf[0] = '\0';
	if (!v->has_costliest)
		return;
	w = &m->pairs[v->costliest_worst];
	snprintf(buf, len,
		 "Most expensive overlay: %s, %s costs a median %.1f%% over %u pairs (most: "
		 "%.1f%%, %s -> %s)\n",
		 m->paths[v->costliest_path].name,
		 v->costliest_fig == MESH_TCP_RATIO ? "TCP goodput" : "UDP NDR",
		 v->costliest_median_pct, v->costliest_n, v->costliest_worst_pct,
		 m->hosts[w->client], m->hosts[w->server]);
}

static int col_width(const struct mesh *m, unsigned path, enum mesh_figure f)
{
	int w = 6;
	char cell[64];

	for (unsigned c = 0; c < m->nhosts; c++) {
		for (unsigned s = 0; s < m->nhosts; s++) {
			report_mesh_cell(cell, sizeof(cell), m, c, s, path, f);
			if ((int)strlen(cell) > w)
				w = (int)strlen(cell);
		}
		if ((int)strlen(m->hosts[c]) > w)
			w = (int)strlen(m->hosts[c]);
	}
	return w;
}

void report_mesh_limits(FILE *f, const struct mesh *m, unsigned path, enum mesh_figure fig, bool md)
{
	const char *seen[MESH_MAX_HOSTS * 4];
	unsigned nseen = 0;

	/* each limit once, with the pairs it held */
	for (size_t i = 0; i < m->npairs; i++) {
		const char *l = m->pairs[i].fig[path][fig].limit;
		bool dup = false, first = true;

		if (m->pairs[i].status != MESH_OK || !m->pairs[i].fig[path][fig].present || !l[0])
			continue;
		for (unsigned k = 0; k < nseen && !dup; k++)
			dup = !strcmp(seen[k], l);
		if (dup || nseen >= sizeof(seen) / sizeof(seen[0]))
			continue;
		seen[nseen++] = l;
		fprintf(f,
			nseen == 1 ? (md ? "\nLimited by: %s (" : "  limited by: %s (") : "; %s (",
			l);
		for (size_t j = i; j < m->npairs; j++) {
			const struct mesh_pair *q = &m->pairs[j];

			if (q->status != MESH_OK || strcmp(q->fig[path][fig].limit, l))
				continue;
			fprintf(f, "%s%s -> %s", first ? "" : ", ", m->hosts[q->client],
				m->hosts[q->server]);
			first = false;
		}
		fputc(')', f);
	}
	if (nseen)
		fputs(md ? ".\n" : "\n", f);
}

static void key_note(char *buf, size_t len, const struct mesh *m, enum mesh_figure f)
{
	buf[0] = '\0';
	if ((f == MESH_TCP_GOODPUT || f == MESH_TCP_RATIO) && m->tcp_streams)
		snprintf(buf, len, ", %u stream%s", m->tcp_streams, m->tcp_streams == 1 ? "" : "s");
	else if ((f == MESH_UDP_NDR || f == MESH_NDR_RATIO) && m->udp_len)
		snprintf(buf, len, ", %u B datagrams", m->udp_len);
}

static void table(FILE *f, const struct mesh *m, unsigned path, enum mesh_figure fig)
{
	int w = col_width(m, path, fig), hw = 6;
	char cell[64], note[48];

	for (unsigned c = 0; c < m->nhosts; c++)
		if ((int)strlen(m->hosts[c]) > hw)
			hw = (int)strlen(m->hosts[c]);
	key_note(note, sizeof(note), m, fig);
	fprintf(f, "\n%s, %s%s:\n  %-*s", mesh_figure_label(fig), m->paths[path].name, note, hw,
		"");
	for (unsigned s = 0; s < m->nhosts; s++)
		fprintf(f, "  %*s", w, m->hosts[s]);
	fputc('\n', f);
	for (unsigned c = 0; c < m->nhosts; c++) {
		fprintf(f, "  %-*s", hw, m->hosts[c]);
		for (unsigned s = 0; s < m->nhosts; s++) {
			report_mesh_cell(cell, sizeof(cell), m, c, s, path, fig);
			fprintf(f, "  %*s", w, cell);
		}
		fputc('\n', f);
	}
	report_mesh_limits(f, m, path, fig, false);
}

void report_mesh_term(FILE *f, const struct mesh *m, const struct mesh_verdicts *v)
{
	char line[512];

	fprintf(f,
		"Mesh: %u hosts, %zu pairs (%zu ok, %zu incomplete, %zu failed, %zu unreachable); "
		"rows: client, columns: server\n",
		m->nhosts, m->npairs, mesh_count(m, MESH_OK), mesh_count(m, MESH_INCOMPLETE),
		mesh_count(m, MESH_FAILED), mesh_count(m, MESH_UNREACHABLE));
	for (int fig = 0; fig < MESH_FIGURE_COUNT; fig++)
		for (unsigned p = 0; p < m->npaths; p++)
			if (mesh_figure_applies(m, p, (enum mesh_figure)fig))
				table(f, m, p, (enum mesh_figure)fig);
	if (mesh_count(m, MESH_OK) != m->npairs) {
		fprintf(f, "\nPairs that did not complete:\n");
		for (size_t i = 0; i < m->npairs; i++)
			if (m->pairs[i].status != MESH_OK)
				fprintf(f, "  %s -> %s: %s: %s\n", m->hosts[m->pairs[i].client],
					m->hosts[m->pairs[i].server],
					mesh_status_name(m->pairs[i].status),
					m->pairs[i].reason[0] ? m->pairs[i].reason
							      : "(no reason given)");
	}
	fputc('\n', f);
	report_mesh_slowest(line, sizeof(line), m, v);
	fputs(line, f);
	report_mesh_costliest(line, sizeof(line), m, v);
	fputs(line, f);
	fprintf(f, "(>= a lower bound, <= an upper bound, ? no bound either way)\n");
	if (report_mesh_any_fit(m))
		fprintf(f, "(~ a soft knee's fit of all its trials: where each repetition's NDR "
			   "is its search's luck)\n");
}
