// SPDX-License-Identifier: MIT
/* report.md of a mesh: one Markdown table per figure and path, the pairs
 * that did not complete with their reasons, the slowest pair and the most
 * expensive overlay, and the heatmaps. */
#include <errno.h>
#include <stdio.h>

#include "report_mesh.h"

/* Cells go inside a Markdown table: a '|' would split one. */
static void md_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputs(*s == '|' ? "\\|" : (char[]){ *s, '\0' }, f);
}

/* What a table's cells are: rates are printed with their own unit. */
static const char *cells_are(enum mesh_figure fig)
{
	switch (fig) {
	case MESH_TCP_GOODPUT:
	case MESH_UDP_NDR:
		return "payload rate";
	case MESH_MTU:
		return "the path's worst check and its value";
	default:
		return mesh_figure_unit(fig);
	}
}

static void md_table(FILE *f, const struct mesh *m, unsigned path, enum mesh_figure fig)
{
	char cell[64];

	fprintf(f, "\n### %s, %s (%s)\n\n| client \\ server |", mesh_figure_label(fig),
		m->paths[path].name, cells_are(fig));
	for (unsigned s = 0; s < m->nhosts; s++) {
		fputc(' ', f);
		md_text(f, m->hosts[s]);
		fputs(" |", f);
	}
	fputs("\n|---|", f);
	for (unsigned s = 0; s < m->nhosts; s++)
		fputs("---:|", f);
	fputc('\n', f);
	for (unsigned c = 0; c < m->nhosts; c++) {
		fputs("| **", f);
		md_text(f, m->hosts[c]);
		fputs("** |", f);
		for (unsigned s = 0; s < m->nhosts; s++) {
			report_mesh_cell(cell, sizeof(cell), m, c, s, path, fig);
			fputc(' ', f);
			md_text(f, cell);
			fputs(" |", f);
		}
		fputc('\n', f);
	}
	report_mesh_limits(f, m, path, fig, true);
}

static void md_failed(FILE *f, const struct mesh *m)
{
	if (mesh_count(m, MESH_OK) == m->npairs)
		return;
	fprintf(f, "\n## Pairs that did not complete\n\n| client | server | status | reason |\n"
		   "|---|---|---|---|\n");
	for (size_t i = 0; i < m->npairs; i++) {
		const struct mesh_pair *p = &m->pairs[i];

		if (p->status == MESH_OK)
			continue;
		fputs("| ", f);
		md_text(f, m->hosts[p->client]);
		fputs(" | ", f);
		md_text(f, m->hosts[p->server]);
		fprintf(f, " | %s | ", mesh_status_name(p->status));
		md_text(f, p->reason[0] ? p->reason : "(no reason given)");
		fputs(" |\n", f);
	}
}

int report_mesh_md(FILE *f, const struct mesh *m, const struct mesh_verdicts *v,
		   const struct mesh_plot_set *set)
{
	char line[512];

	fprintf(f,
		"# ovlperf mesh\n\n%u hosts, %zu ordered pairs: %zu ok, %zu incomplete, %zu "
		"failed, %zu unreachable. Rows are the client, columns the server. `>=` marks a "
		"lower bound, `<=` an upper bound.%s\n\n",
		m->nhosts, m->npairs, mesh_count(m, MESH_OK), mesh_count(m, MESH_INCOMPLETE),
		mesh_count(m, MESH_FAILED), mesh_count(m, MESH_UNREACHABLE),
		report_mesh_any_fit(m) ? " `~` marks a soft knee's fit of all its trials." : "");
	report_mesh_slowest(line, sizeof(line), m, v);
	if (line[0])
		fprintf(f, "- %s", line);
	report_mesh_costliest(line, sizeof(line), m, v);
	if (line[0])
		fprintf(f, "- %s", line);
	if (m->tcp_streams || m->udp_len)
		fprintf(f, "- TCP goodput at %u stream(s); UDP NDR at %u B datagrams\n",
			m->tcp_streams, m->udp_len);
	fprintf(f, "\n## Figures\n");
	for (int fig = 0; fig < MESH_FIGURE_COUNT; fig++)
		for (unsigned p = 0; p < m->npaths; p++)
			if (mesh_figure_applies(m, p, (enum mesh_figure)fig))
				md_table(f, m, p, (enum mesh_figure)fig);
	md_failed(f, m);
	if (set && (set->n || set->note[0])) {
		fprintf(f, "\n## Heatmaps\n\n");
		for (unsigned i = 0; i < set->n; i++)
			fprintf(f, "![%s, %s](%s)\n\n", mesh_figure_label(set->fig[i]),
				m->paths[set->path[i]].name, set->file[i]);
		if (set->note[0])
			fprintf(f, "%s\n", set->note);
	}
	fprintf(f, "\n## Pair directories\n\n");
	for (size_t i = 0; i < m->npairs; i++) {
		fprintf(f, "- %s -> %s: `", m->hosts[m->pairs[i].client],
			m->hosts[m->pairs[i].server]);
		md_text(f, m->pairs[i].dir);
		fputs("`\n", f);
	}
	return ferror(f) ? -EIO : 0;
}
