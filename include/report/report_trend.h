/* SPDX-License-Identifier: MIT */
/*
 * Printers of a scenario's history (history.h), `ovlperf report --trend`:
 * the terminal summary and trend.html (report_trend.c), a time-series SVG
 * per figure (report_trend_plot.c, gnuplot) and the latest segments as
 * OpenMetrics (report_trend_om.c). They only read.
 */
#ifndef OVLPERF_REPORT_TREND_H
#define OVLPERF_REPORT_TREND_H

#include <stdbool.h>
#include <stdio.h>

#include "history.h"

/* Every figure: its runs, its latest segment's level and change, each new
 * segment flagged a regression or progression. */
void report_trend_term(FILE *f, const struct history *h);
/* The latest segment of every figure as OpenMetrics text, ending in
 * "# EOF". 0 or -EIO. */
int report_trend_openmetrics(FILE *f, const struct history *h);
/* dir/trend-N.svg for figure N of h (gnuplot; its script dir/trend-N.gp).
 * 0, -ENOENT (no gnuplot) or a negative errno. */
int report_trend_plot(const struct history *h, size_t n, const char *dir);
/* dir/trend.html: the summary table and, for each figure, its SVG in dir
 * embedded (when plots drew it) with its segments. 0 or a negative errno. */
int report_trend_html(const struct history *h, const char *dir, bool plots);
/* dir/trend.prom: report_trend_openmetrics() written whole and renamed into
 * place, so a textfile collector never reads half of it. 0 or a negative
 * errno. */
int report_trend_prom(const struct history *h, const char *dir);

#endif
