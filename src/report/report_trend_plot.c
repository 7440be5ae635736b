// SPDX-License-Identifier: MIT
/*
 * A figure's history as a time series (gnuplot, `set terminal svg`): each
 * run's figure with the range of its repetitions, each segment's level as
 * a line over its runs, and the runs where a flagged segment starts marked
 * (red a regression, green a progression), as CSIT's trending graphs do.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "report_plot.h"
#include "report_trend.h"

/* bit/s are drawn in Mbit/s */
static double scale(const struct results_figure *id)
{
	return id->rate ? 1e-6 : 1;
}

/* The runs, the segments' levels and the flagged starts as data blocks;
 * the number of flagged starts. */
static unsigned data(FILE *f, const struct history *h, const struct history_series *s)
{
	unsigned nflags = 0;
	double k = scale(&s->id);

	fputs("$runs << EOD\n", f);
	for (size_t i = 0; i < s->n; i++)
		fprintf(f, "%s %.9g %.9g %.9g\n", h->runs[s->run[i]].started_utc, s->y[i] * k,
			s->lo[i] * k, s->hi[i] * k);
	fputs("EOD\n$levels << EOD\n", f);
	for (size_t g = 0; g < s->trend.n; g++) {
		const struct trend_segment *t = &s->trend.seg[g];

		fprintf(f, "%s %.9g\n%s %.9g\n\n", h->runs[s->run[t->start]].started_utc,
			t->level * k, h->runs[s->run[t->end - 1]].started_utc, t->level * k);
	}
	fputs("EOD\n$flags << EOD\n", f);
	for (size_t g = 1; g < s->trend.n; g++) {
		const struct trend_segment *t = &s->trend.seg[g];

		if (t->verdict == CHANGE_REGRESSION || t->verdict == CHANGE_PROGRESSION) {
			fprintf(f, "%s %.9g %d\n", h->runs[s->run[t->start]].started_utc,
				s->y[t->start] * k, t->verdict == CHANGE_REGRESSION);
			nflags++;
		}
	}
	fputs("EOD\n", f);
	return nflags;
}

int report_trend_plot(const struct history *h, size_t n, const char *dir)
{
	const struct history_series *s = &h->series[n];
	char gp[1100], name[32], title[160];
	unsigned nflags;
	FILE *f;
	int rc;

	snprintf(name, sizeof(name), "trend-%zu", n);
	snprintf(gp, sizeof(gp), "%s/%s.gp", dir, name);
	f = fopen(gp, "w");
	if (!f)
		return -errno;
	snprintf(title, sizeof(title), "%s, %s, %u %s", s->id.what, s->id.path, s->id.key,
		 s->id.key_unit);
	fprintf(f,
		"set terminal svg size 900,400 dynamic noenhanced font 'sans,12'\n"
		"set output '%s.svg'\n",
		name);
	fputs("set title ", f);
	report_plot_str(f, title);
	fprintf(f,
		"\nset xdata time\nset timefmt '%%Y-%%m-%%dT%%H:%%M:%%SZ'\n"
		"set format x \"%%m-%%d\\n%%H:%%M\"\nset grid\nset key outside bottom center "
		"horizontal\n"
		"set ylabel '%s'\n",
		s->id.rate    ? "Mbit/s"
		: s->id.ratio ? "overlay / underlay"
			      : "value");
	nflags = data(f, h, s);
	fputs("plot $runs using 1:2:3:4 with yerrorbars lc rgb '#3060a0' pt 7 ps 0.6 "
	      "title 'run (range of repetitions)', \\\n"
	      "     $levels using 1:2 with lines lw 2 lc rgb '#404040' title 'segment level'",
	      f);
	/* an empty data block would fail the plot: flags only when there are */
	if (nflags)
		fputs(", \\\n     $flags using 1:($3 > 0 ? $2 : NaN) with points pt 6 ps 2.5 lw 2 "
		      "lc rgb '#d00000' title 'regression', \\\n"
		      "     $flags using 1:($3 > 0 ? NaN : $2) with points pt 6 ps 2.5 lw 2 "
		      "lc rgb '#00a000' title 'progression'",
		      f);
	fputc('\n', f);
	rc = ferror(f) ? -EIO : 0;
	if (fclose(f) && !rc)
		rc = -EIO;
	if (!rc)
		rc = report_plot_render(dir, gp);
	if (!rc && !report_plot_svg_complete(dir, name))
		rc = -EIO;
	return rc;
}
