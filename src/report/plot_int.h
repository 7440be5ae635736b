/* SPDX-License-Identifier: MIT */
/*
 * Rendering a gnuplot script, shared by the plots of a run (plot.c) and the
 * heatmaps of a mesh (report_mesh_plot.c).
 */
#ifndef OVLPERF_PLOT_INT_H
#define OVLPERF_PLOT_INT_H

#include <stdbool.h>

/* Runs `gnuplot GP` in dir; its messages go to dir/plot.log. 0, -ENOENT
 * (no gnuplot), -EIO (gnuplot failed) or a negative errno. */
int plot_render(const char *dir, const char *gp);
/* Whether gnuplot wrote the whole dir/NAME.svg: it may exit 0 having
 * written part of it to a full disk, but a complete file ends with </svg>. */
bool plot_svg_complete(const char *dir, const char *name);

#endif
