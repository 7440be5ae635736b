// SPDX-License-Identifier: MIT
/*
 * The line reader of the scenario parser. libinih splits lines into section,
 * key and value; a line reader of our own feeds it, so that we know the line
 * number of every key and section (the handler of the system's libinih gets
 * none), and so that lines libinih would reject or silently glue together
 * (too long, no '=', indented continuations, NUL bytes) are reported here
 * with their line.
 * The checks that need the whole file are in scenario_validate.c.
 */
#include <stdio.h>
#include <string.h>

#include "scenario_int.h"

/* Looks at one raw line before libinih does; returns false to replace it by
 * an empty line (after reporting what is wrong with it). */
static bool screen_line(struct parser *p, const char *line, size_t len)
{
	size_t i = 0, end;
	char name[SCN_NAME_MAX + 16];

	if (memchr(line, '\0', len)) {
		scn_error_at(p, p->line, NULL, NULL, "line contains a NUL byte");
		return false;
	}
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == len || line[i] == ';' || line[i] == '#')
		return true;
	if (i > 0) {
		scn_error_at(p, p->line, NULL, NULL,
			     "indented line (continuation lines are not supported)");
		return false;
	}
	if (line[0] == '[') {
		const char *close = memchr(line, ']', len);

		if (!close) {
			scn_error_at(p, p->line, NULL, NULL, "section header without ']'");
			p->cur = NULL;
			p->in_section = true;
			return false;
		}
		end = (size_t)(close - line);
		for (size_t j = end + 1; j < len; j++) {
			if (line[j] == ';' || line[j] == '#')
				break;
			if (line[j] != ' ' && line[j] != '\t') {
				scn_error_at(p, p->line, NULL, NULL,
					     "text after the section header");
				break;
			}
		}
		if (end - 1 >= sizeof(name) || end < 2) {
			scn_error_at(p, p->line, NULL, NULL, "section name empty or too long");
			p->cur = NULL;
			p->in_section = true;
			return false;
		}
		memcpy(name, line + 1, end - 1);
		name[end - 1] = '\0';
		scn_on_section(p, name);
		return true;
	}
	/* libinih stops at an inline comment (';' after a blank) before '='. */
	for (end = 0; end < len && line[end] != '=' && line[end] != ':'; end++)
		if (line[end] == ';' && end && (line[end - 1] == ' ' || line[end - 1] == '\t'))
			end = len - 1;
	if (end == len) {
		scn_error_at(p, p->line, NULL, NULL, "expected 'key = value'");
		return false;
	}
	if (end == 0) {
		scn_error_at(p, p->line, NULL, NULL, "a key is missing before '%c'", line[end]);
		return false;
	}
	return true;
}

char *scn_read_line(char *str, int num, void *stream)
{
	struct parser *p = stream;
	const char *start, *nl;
	size_t len, take;

	if (p->pos >= p->len || num < 4)
		return NULL;
	start = p->text + p->pos;
	nl = memchr(start, '\n', p->len - p->pos);
	len = nl ? (size_t)(nl - start) : p->len - p->pos;
	p->pos += len + (nl ? 1 : 0);
	p->line++;
	/* A UTF-8 byte order mark is allowed before the first line. */
	if (p->line == 1 && len >= 3 && !memcmp(start, "\xef\xbb\xbf", 3)) {
		start += 3;
		len -= 3;
	}
	take = len;
	if (take && start[take - 1] == '\r')
		take--;
	if (take > SCN_LINE_MAX || take + 2 > (size_t)num) {
		scn_error_at(p, p->line, NULL, NULL, "line longer than %d characters",
			     take + 2 > (size_t)num && num - 2 < SCN_LINE_MAX ? num - 2
									      : SCN_LINE_MAX);
		strcpy(str, "\n");
		return str;
	}
	if (!screen_line(p, start, take)) {
		strcpy(str, "\n");
		return str;
	}
	memcpy(str, start, take);
	str[take] = '\n';
	str[take + 1] = '\0';
	return str;
}
