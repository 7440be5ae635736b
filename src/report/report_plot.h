/* SPDX-License-Identifier: MIT */
/*
 * gnuplot's side of every plot (report_plot.c), shared by the plots of a run
 * (report_run_plot.c) and the heatmaps of a mesh (report_mesh_plot.c).
 */
#ifndef OVLPERF_REPORT_PLOT_H
#define OVLPERF_REPORT_PLOT_H

#include <stdbool.h>
#include <stdio.h>

/* Writes s as a double-quoted gnuplot string; a quote, a backslash or a
 * newline in it becomes '_'. */
void report_plot_str(FILE *f, const char *s);
/* Runs `gnuplot GP` in dir; its messages go to dir/plot.log. 0, -ENOENT
 * (no gnuplot), -EIO (gnuplot failed) or a negative errno. */
int report_plot_render(const char *dir, const char *gp);
/* Whether gnuplot wrote the whole dir/NAME.svg: it may exit 0 having
 * written part of it to a full disk, but a complete file ends with </svg>. */
bool report_plot_svg_complete(const char *dir, const char *name);

#endif
