/* SPDX-License-Identifier: MIT */
/*
 * Printers of a mesh (mesh.h), in src/report/: the terminal matrix
 * (report_mesh_term.c), report.md (report_mesh_md.c), matrix.csv
 * (report_mesh_csv.c), matrix.json (report_mesh_json.c) and the heatmap SVGs
 * (report_mesh_plot.c, gnuplot). Every table is host x host: rows are the
 * client, columns the server. They only read.
 */
#ifndef OVLPERF_REPORT_MESH_H
#define OVLPERF_REPORT_MESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "mesh.h"

#define MESH_PLOT_MAX	   (MESH_MAX_PATHS * MESH_FIGURE_COUNT)
#define MESH_PLOT_FILE_MAX 96

struct mesh_plot_set {
	unsigned n;
	char file[MESH_PLOT_MAX][MESH_PLOT_FILE_MAX]; /* "heatmap-tcp_goodput_bps-underlay.svg" */
	unsigned path[MESH_PLOT_MAX];
	enum mesh_figure fig[MESH_PLOT_MAX];
	char note[128];	     /* why plots are missing, or "" */
	char unwritten[512]; /* files that could not be written, or "" */
};

/* One cell's text: "812.3 Mbit/s", ">= 95.2 Mbit/s", "0.873", "<= 0.121 ms",
 * "ok 1420", "-" on the diagonal, "FAILED" / "UNREACHABLE" / "INCOMPLETE"
 * for a pair that did not complete, "n/a" where the run has no such figure,
 * "" for a pair not in the mesh. */
void report_mesh_cell(char *buf, size_t len, const struct mesh *m, unsigned client, unsigned server,
		      unsigned path, enum mesh_figure f);
/* What limited a figure's pairs, each limit once with its pairs:
 * "limited by: receive window (a -> b, b -> a); overlay CPU (a -> c)"; a
 * line of the terminal's table (md: a paragraph under report.md's).
 * Nothing when no pair's limit is known. */
void report_mesh_limits(FILE *f, const struct mesh *m, unsigned path, enum mesh_figure fig,
			bool md);
/* "Slowest pair: ..." and "Most expensive overlay: ..." lines, each ending
 * in a newline; "" when the mesh has none. */
void report_mesh_slowest(char *buf, size_t len, const struct mesh *m,
			 const struct mesh_verdicts *v);
void report_mesh_costliest(char *buf, size_t len, const struct mesh *m,
			   const struct mesh_verdicts *v);

void report_mesh_term(FILE *f, const struct mesh *m, const struct mesh_verdicts *v);
/* Whether some pair's figure is a soft knee's fit (marked "~"). */
bool report_mesh_any_fit(const struct mesh *m);
/* report.md: the tables, failed pairs with reasons, the named pair and
 * overlay, the heatmaps in set linked. 0 or -EIO. */
int report_mesh_md(FILE *f, const struct mesh *m, const struct mesh_verdicts *v,
		   const struct mesh_plot_set *set);
/* matrix.csv: one row per pair, path and figure. 0 or -EIO. */
int report_mesh_csv(FILE *f, const struct mesh *m);
/* matrix.json (schema "ovlperf-matrix", schema_version MESH_SCHEMA;
 * docs/mesh.md). 0, -ENOMEM or -EIO. */
int report_mesh_json(FILE *f, const struct mesh *m, const struct mesh_verdicts *v);
/* OpenMetrics text: each pair's status, a gauge family per figure (base
 * units; labels client, server, path, kind, bound), the MTU/MSS verdicts.
 * 0 or -EIO. */
int report_mesh_openmetrics(FILE *f, const struct mesh *m);
/* A heatmap per path and numeric figure the mesh has values for, as
 * DIR/heatmap-FIGURE-PATH.gp and .svg. Without gnuplot set->note says so
 * and 0 is returned; a file not written completely is named in
 * set->unwritten and the result is -EIO. */
int report_mesh_plot(const struct mesh *m, const char *dir, struct mesh_plot_set *set);
/* DIR (made if missing) gets matrix.json, matrix.csv, report.md and, with
 * plots, the heatmaps; each failure is logged with its path. 0, or a
 * negative errno when a file could not be written. */
int report_mesh_write(const char *dir, const struct mesh *m, const struct mesh_verdicts *v,
		      bool plots);

#endif
