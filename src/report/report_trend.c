// SPDX-License-Identifier: MIT
/*
 * `ovlperf report --trend`: a scenario's figures over its runs, as a
 * terminal summary and as trend.html (the table and each figure's plot
 * beside it, the SVGs referenced from the same directory).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_file.h"
#include "report_run.h"
#include "report_trend.h"

static void fmt_value(char *buf, size_t len, const struct results_figure *id, double v)
{
	if (id->rate)
		report_run_fmt_rate(buf, len, v);
	else
		snprintf(buf, len, "%.4g", v);
}

static const char *flag_word(enum change_verdict v)
{
	return v == CHANGE_REGRESSION	 ? "REGRESSION"
	       : v == CHANGE_PROGRESSION ? "progression"
	       : v == CHANGE_DIFFERENT	 ? "changed"
					 : "within threshold";
}

static const struct trend_segment *latest(const struct history_series *s)
{
	return &s->trend.seg[s->trend.n - 1];
}

static void at_text(char *buf, size_t len, const struct results_figure *id)
{
	snprintf(buf, len, "%u %s", id->key, !strcmp(id->key_unit, "bytes") ? "B" : "str");
}

void report_trend_term(FILE *f, const struct history *h)
{
	unsigned flags = 0;

	fprintf(f, "trend of '%s': %zu runs, %s .. %s\n", h->scenario, h->nruns,
		h->runs[0].started_utc, h->runs[h->nruns - 1].started_utc);
	if (h->other || h->incomplete || h->unreadable)
		fprintf(f, "left out: %u runs of other scenarios, %u incomplete, %u unreadable\n",
			h->other, h->incomplete, h->unreadable);
	fprintf(f, "\n  %-22s %-12s %8s %5s %14s %9s %-10s %-20s %s\n", "figure", "path", "at",
		"runs", "latest level", "segments", "change", "since", "flag");
	for (size_t i = 0; i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];
		const struct trend_segment *l = latest(s);
		char at[24], lv[32], ch[32];

		at_text(at, sizeof(at), &s->id);
		lv[0] = '~';
		fmt_value(lv + s->fitted, sizeof(lv) - 1, &s->id, l->level);
		if (s->trend.n > 1)
			snprintf(ch, sizeof(ch), "%+.1f%%", l->change_pct);
		else
			snprintf(ch, sizeof(ch), "-");
		fprintf(f, "  %-22s %-12s %8s %5zu %14s %9zu %-10s %-20s %s\n", s->id.what,
			s->id.path, at, s->n, lv, s->trend.n, ch,
			s->trend.n > 1 ? h->runs[s->run[l->start]].started_utc : "the first run",
			s->trend.n > 1 ? flag_word(l->verdict) : "");
	}
	fprintf(f, "\n  where a new segment starts:\n");
	for (size_t i = 0; i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];

		for (size_t k = 1; k < s->trend.n; k++) {
			const struct trend_segment *g = &s->trend.seg[k];
			char at[24], a[32], b[32];

			if (g->verdict == CHANGE_SMALL)
				continue;
			flags++;
			at_text(at, sizeof(at), &s->id);
			fmt_value(a, sizeof(a), &s->id, s->trend.seg[k - 1].level);
			fmt_value(b, sizeof(b), &s->id, g->level);
			fprintf(f, "  %-11s %s %s %s: %s -> %s (%+.1f%%) from %s (%s)\n",
				flag_word(g->verdict), s->id.what, s->id.path, at, a, b,
				g->change_pct, h->runs[s->run[g->start]].started_utc,
				h->runs[s->run[g->start]].dir);
		}
	}
	if (!flags)
		fprintf(f, "  none beyond the threshold (%.3g %%; CPU per Gbit not judged)\n",
			100 * h->threshold);
	for (size_t i = 0; i < h->nseries; i++)
		if (h->series[i].fitted) {
			fprintf(f, "\n  ~ a soft knee's fit of all its trials: each run's figure, "
				   "its noise the fits' own interval\n");
			break;
		}
}

static void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

static void html_series(FILE *f, const struct history *h, size_t i, bool plots)
{
	const struct history_series *s = &h->series[i];
	char at[24], v[32];

	at_text(at, sizeof(at), &s->id);
	fputs("<h2>", f);
	esc(f, s->id.what);
	fputs(" &middot; ", f);
	esc(f, s->id.path);
	fprintf(f, " &middot; %s</h2>\n", at);
	if (plots)
		fprintf(f, "<img src=\"trend-%zu.svg\" alt=\"trend %zu\">\n", i, i);
	fputs("<table><tr><th>segment</th><th>from</th><th>runs</th><th>level</th>"
	      "<th>change</th><th>flag</th></tr>\n",
	      f);
	for (size_t k = 0; k < s->trend.n; k++) {
		const struct trend_segment *g = &s->trend.seg[k];

		fmt_value(v, sizeof(v), &s->id, g->level);
		fprintf(f, "<tr><td>%zu</td><td>", k + 1);
		esc(f, h->runs[s->run[g->start]].started_utc);
		fprintf(f, "</td><td>%zu</td><td>%s</td>", g->end - g->start, v);
		if (k)
			fprintf(f, "<td>%+.1f %%</td><td class=\"%s\">%s</td></tr>\n",
				g->change_pct, change_verdict_name(g->verdict),
				flag_word(g->verdict));
		else
			fputs("<td></td><td></td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

struct html_ctx {
	const struct history *h;
	bool plots;
};

static int html_page(FILE *f, const void *arg)
{
	const struct html_ctx *c = arg;
	const struct history *h = c->h;
	bool plots = c->plots;

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ovlperf trend: ", f);
	esc(f, h->scenario);
	fputs("</title><style>body{font-family:sans-serif;max-width:60em;margin:auto}"
	      "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}"
	      ".regression{color:#c00;font-weight:bold}.progression{color:#070}"
	      "img{max-width:100%}</style></head><body>\n<h1>",
	      f);
	esc(f, h->scenario);
	fprintf(f, ": %zu runs</h1>\n<p>", h->nruns);
	esc(f, h->runs[0].started_utc);
	fputs(" .. ", f);
	esc(f, h->runs[h->nruns - 1].started_utc);
	fprintf(f,
		". Each figure's runs are grouped into constant segments by Minimum Description "
		"Length; a segment that starts more than %.3g %% lower or higher is flagged "
		"(CPU per Gbit is not judged; docs/compare.md).</p>\n",
		100 * h->threshold);
	for (size_t i = 0; i < h->nseries; i++)
		html_series(f, h, i, plots);
	fputs("</body></html>\n", f);
	return 0;
}

int report_trend_html(const struct history *h, const char *dir, bool plots)
{
	const struct html_ctx c = { h, plots };
	char path[1100];

	snprintf(path, sizeof(path), "%s/trend.html", dir);
	return report_write_path(path, html_page, &c);
}

static int prom_text(FILE *f, const void *h)
{
	return report_trend_openmetrics(f, h);
}

int report_trend_prom(const struct history *h, const char *dir)
{
	char path[1100];

	snprintf(path, sizeof(path), "%s/trend.prom", dir);
	return report_write_path(path, prom_text, h);
}
