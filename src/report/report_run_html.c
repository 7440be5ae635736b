// SPDX-License-Identifier: MIT
/*
 * report.html: report.md rendered as one self-contained HTML page. The page
 * is made from report.md's own text, so that it shows every section
 * report.md has and cannot drift from it: report_run_md() writes into
 * memory and the subset of Markdown it uses (headings, pipe tables,
 * paragraphs, a blockquote, a list, a fenced block, images, `code` and
 * **strong**) becomes HTML here. The plots are embedded as data: URIs
 * (RFC 2397), so the file needs no network and no other file; the styles
 * are inline and use the reader's own fonts; tables scroll sideways on a
 * narrow screen instead of widening the page.
 */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "report_run.h"

#define SVG_MAX (8u << 20) /* a gnuplot SVG of a run is ~100 kB */

static const char style[] =
	"body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
	"margin:0 auto;padding:0 1rem 2rem;max-width:72rem;line-height:1.45;color:#1b1b1b}"
	"h1{font-size:1.5rem;margin-top:1rem}h2{font-size:1.25rem;margin-top:2rem;"
	"border-bottom:1px solid #ccc}h3{font-size:1.05rem}"
	"nav ul{padding-left:1.2rem;columns:16rem}"
	".scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;margin:.5rem 0}"
	"table{border-collapse:collapse;font-size:.9rem}"
	"th,td{border:1px solid #ccc;padding:.25rem .5rem;vertical-align:top}"
	"th{background:#f0f0f0}td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}"
	"tr:nth-child(even) td{background:#fafafa}"
	"blockquote{border-left:4px solid #d62728;margin:1rem 0;padding:.25rem 1rem;"
	"background:#fff4f4}"
	"code{background:#f3f3f3;padding:0 .2rem;border-radius:3px}"
	"pre{background:#f3f3f3;padding:.75rem;overflow-x:auto}"
	"pre code{padding:0}"
	"figure{margin:1rem 0}figure img{max-width:100%;height:auto;border:1px solid #ddd}"
	"figcaption{font-size:.9rem;color:#555}";

/* Text escaped for HTML element content and attribute values. */
static void esc(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		switch (s[i]) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(s[i], f);
		}
	}
}

/* Inline Markdown: `code` and **strong**; the rest escaped. */
static void inline_md(FILE *f, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		const char *end;

		if (s[i] == '`' && (end = memchr(s + i + 1, '`', n - i - 1))) {
			fputs("<code>", f);
			esc(f, s + i + 1, (size_t)(end - s - i - 1));
			fputs("</code>", f);
			i = (size_t)(end - s) + 1;
		} else if (i + 1 < n && s[i] == '*' && s[i + 1] == '*' && i + 2 < n &&
			   (end = memmem(s + i + 2, n - i - 2, "**", 2))) {
			fputs("<strong>", f);
			inline_md(f, s + i + 2, (size_t)(end - s - i - 2));
			fputs("</strong>", f);
			i = (size_t)(end - s) + 2;
		} else {
			esc(f, s + i, 1);
			i++;
		}
	}
}

/* A heading's anchor: its words in lower case joined by '-'. */
static void slug(char *buf, size_t len, const char *s)
{
	size_t o = 0;
	bool dash = false;

	for (; *s && o + 2 < len; s++) {
		char c = *s;

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			if (dash && o)
				buf[o++] = '-';
			buf[o++] = c;
			dash = false;
		} else if (c >= 'A' && c <= 'Z') {
			if (dash && o)
				buf[o++] = '-';
			buf[o++] = (char)(c - 'A' + 'a');
			dash = false;
		} else {
			dash = true;
		}
	}
	buf[o] = '\0';
}

/* Cells of a "| a | b |" row, trimmed, into cells[] (pointers into a copy
 * the caller frees). */
static size_t split_row(char *row, char **cells, size_t max)
{
	size_t n = 0;
	char *p = row, *bar;

	if (*p == '|')
		p++;
	while (n < max && (bar = strchr(p, '|'))) {
		char *e = bar;

		*bar = '\0';
		while (*p == ' ')
			p++;
		while (e > p && e[-1] == ' ')
			*--e = '\0';
		cells[n++] = p;
		p = bar + 1;
	}
	return n;
}

#define MAX_COLS 32

static bool blank_row(char **cells, size_t n)
{
	for (size_t c = 0; c < n; c++)
		if (cells[c][0])
			return false;
	return true;
}

/* A pipe table: lines[0] the header, lines[1] the alignment row. */
static void table(FILE *f, char **lines, size_t n)
{
	char *cells[MAX_COLS], *copy;
	bool right[MAX_COLS] = { false };
	size_t nc;

	copy = strdup(lines[1]);
	if (!copy)
		return;
	nc = split_row(copy, cells, MAX_COLS);
	for (size_t c = 0; c < nc; c++)
		right[c] = cells[c][0] && cells[c][strlen(cells[c]) - 1] == ':';
	free(copy);
	fputs("<div class=\"scroll\"><table>\n", f);
	for (size_t r = 0; r < n; r++) {
		if (r == 1)
			continue;
		copy = strdup(lines[r]);
		if (!copy)
			break;
		nc = split_row(copy, cells, MAX_COLS);
		if (r == 0 && blank_row(cells, nc)) {
			/* report.md's key-value table has an empty header */
			fputs("<tbody>\n", f);
			free(copy);
			continue;
		}
		fputs(r == 0 ? "<thead><tr>" : "<tr>", f);
		for (size_t c = 0; c < nc; c++) {
			fprintf(f, "<%s%s>", r ? "td" : "th", right[c] ? " class=\"r\"" : "");
			inline_md(f, cells[c], strlen(cells[c]));
			fprintf(f, "</%s>", r ? "td" : "th");
		}
		fputs(r == 0 ? "</tr></thead><tbody>\n" : "</tr>\n", f);
		free(copy);
	}
	fputs("</tbody></table></div>\n", f);
}

/* A plot as a data: URI image; the file name when it cannot be read. */
static void figure(FILE *f, const char *dir, const char *alt, size_t altlen, const char *file,
		   size_t filelen)
{
	char path[1200], *b64 = NULL;
	unsigned char *svg = NULL;
	size_t n = 0;
	FILE *in;

	snprintf(path, sizeof(path), "%s/%.*s", dir, (int)filelen, file);
	in = fopen(path, "r");
	if (in) {
		svg = malloc(SVG_MAX);
		n = svg ? fread(svg, 1, SVG_MAX, in) : 0;
		if (n == SVG_MAX || ferror(in))
			n = 0;
		fclose(in);
	}
	if (n) {
		size_t blen = sodium_base64_encoded_len(n, sodium_base64_VARIANT_ORIGINAL);

		b64 = malloc(blen);
		if (b64)
			sodium_bin2base64(b64, blen, svg, n, sodium_base64_VARIANT_ORIGINAL);
	}
	free(svg);
	fputs("<figure>", f);
	if (b64) {
		fprintf(f, "<img src=\"data:image/svg+xml;base64,%s\" alt=\"", b64);
		esc(f, alt, altlen);
		fputs("\">", f);
	} else {
		log_warn("%s not embedded in report.html: it cannot be read", path);
	}
	fputs("<figcaption>", f);
	esc(f, alt, altlen);
	fputs(" (", f);
	esc(f, file, filelen);
	fputs(b64 ? ")" : ": missing)", f);
	fputs("</figcaption></figure>\n", f);
	free(b64);
}

/* "![alt](file)" -> true with its parts. */
static bool image_line(const char *l, const char **alt, size_t *altlen, const char **file,
		       size_t *filelen)
{
	const char *close, *paren;

	if (strncmp(l, "![", 2))
		return false;
	close = strstr(l, "](");
	paren = close ? strchr(close, ')') : NULL;
	if (!paren)
		return false;
	*alt = l + 2;
	*altlen = (size_t)(close - l - 2);
	*file = close + 2;
	*filelen = (size_t)(paren - close - 2);
	return true;
}

static void heading(FILE *f, const char *l)
{
	int level = 0;
	char id[96];

	while (l[level] == '#')
		level++;
	slug(id, sizeof(id), l + level + 1);
	fprintf(f, "<h%d id=\"%s\">", level, id);
	inline_md(f, l + level + 1, strlen(l + level + 1));
	fprintf(f, "</h%d>\n", level);
}

/* A table of contents of the ## sections, for a phone's small screen. */
static void contents(FILE *f, char **lines, size_t n)
{
	char id[96];

	fputs("<nav><ul>\n", f);
	for (size_t i = 0; i < n; i++) {
		if (strncmp(lines[i], "## ", 3))
			continue;
		slug(id, sizeof(id), lines[i] + 3);
		fprintf(f, "<li><a href=\"#%s\">", id);
		esc(f, lines[i] + 3, strlen(lines[i] + 3));
		fputs("</a></li>\n", f);
	}
	fputs("</ul></nav>\n", f);
}

/* A block of lines starting at lines[i]; returns the index after it. */
static size_t block(FILE *f, char **lines, size_t n, size_t i, const char *dir)
{
	const char *l = lines[i], *alt, *file;
	size_t altlen, filelen, j = i + 1;

	if (l[0] == '#') {
		heading(f, l);
		if (!strncmp(l, "# ", 2))
			contents(f, lines, n);
		return j;
	}
	if (!strncmp(l, "```", 3)) {
		fputs("<pre><code>", f);
		for (; j < n && strncmp(lines[j], "```", 3); j++) {
			esc(f, lines[j], strlen(lines[j]));
			fputc('\n', f);
		}
		fputs("</code></pre>\n", f);
		return j < n ? j + 1 : j;
	}
	if (l[0] == '|' && i + 1 < n && !strncmp(lines[i + 1], "|-", 2)) {
		while (j < n && lines[j][0] == '|')
			j++;
		table(f, lines + i, j - i);
		return j;
	}
	if (image_line(l, &alt, &altlen, &file, &filelen)) {
		figure(f, dir, alt, altlen, file, filelen);
		return j;
	}
	if (!strncmp(l, "- ", 2)) {
		fputs("<ul>\n", f);
		for (j = i; j < n && !strncmp(lines[j], "- ", 2); j++) {
			fputs("<li>", f);
			inline_md(f, lines[j] + 2, strlen(lines[j] + 2));
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
		return j;
	}
	fputs(l[0] == '>' ? "<blockquote><p>" : "<p>", f);
	/* The first line belongs to the paragraph whatever it starts with. */
	for (j = i; j < n && lines[j][0] &&
		    (j == i || (lines[j][0] != '#' && lines[j][0] != '|' &&
				strncmp(lines[j], "```", 3) && strncmp(lines[j], "![", 2)));
	     j++) {
		const char *t = lines[j][0] == '>' ? lines[j] + 1 + (lines[j][1] == ' ') : lines[j];

		if (j > i)
			fputc('\n', f);
		inline_md(f, t, strlen(t));
	}
	fputs(l[0] == '>' ? "</p></blockquote>\n" : "</p>\n", f);
	return j;
}

/* The Markdown text split into lines in place. */
static char **split_lines(char *md, size_t *n)
{
	size_t cap = 64;
	char **lines = malloc(cap * sizeof(*lines));

	*n = 0;
	for (char *p = md; lines && *p;) {
		char *nl = strchr(p, '\n');

		if (*n == cap) {
			char **more = realloc(lines, 2 * cap * sizeof(*lines));

			if (!more) {
				free(lines);
				return NULL;
			}
			lines = more;
			cap *= 2;
		}
		lines[(*n)++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	return lines;
}

int report_run_html(FILE *f, const struct report_run *rr, const struct plot_set *set,
		    const char *dir)
{
	char *md = NULL, **lines;
	size_t mdlen = 0, n;
	FILE *m = open_memstream(&md, &mdlen);
	int err;

	if (!m)
		return -ENOMEM;
	err = report_run_md(m, rr, set);
	if (fclose(m) && !err)
		err = -ENOMEM;
	if (err) {
		free(md);
		return err;
	}
	lines = split_lines(md, &n);
	if (!lines) {
		free(md);
		return -ENOMEM;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>ovlperf run: ",
	      f);
	esc(f, rr->run->scenario_name, sizeof(rr->run->scenario_name));
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
	for (size_t i = 0; i < n;)
		i = lines[i][0] ? block(f, lines, n, i, dir) : i + 1;
	fputs("</body>\n</html>\n", f);
	free(lines);
	free(md);
	return ferror(f) ? -EIO : 0;
}
