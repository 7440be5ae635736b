// SPDX-License-Identifier: MIT
#define _GNU_SOURCE /* fopencookie */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "line_prefix.h"

struct lp_cookie {
	FILE *out;
	const struct line_prefix *p;
	bool at_start;
};

static void prefix(struct lp_cookie *c)
{
	char ts[128];
	time_t now = time(NULL);
	struct tm tm;

	/* the user's strftime format, as iperf3 --timestamps=FMT takes it */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	if (c->p->timestamps && localtime_r(&now, &tm) &&
	    strftime(ts, sizeof(ts), c->p->timestamps, &tm))
		fputs(ts, c->out);
#pragma GCC diagnostic pop
	if (c->p->title)
		fprintf(c->out, "%s:  ", c->p->title);
}

static ssize_t lp_write(void *cookie, const char *buf, size_t len)
{
	struct lp_cookie *c = cookie;

	for (size_t i = 0; i < len;) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (buf + i)) + 1 : len - i;

		if (c->at_start)
			prefix(c);
		if (fwrite(buf + i, 1, n, c->out) != n)
			return -1;
		c->at_start = nl != NULL;
		i += n;
	}
	return (ssize_t)len;
}

static int lp_close(void *cookie)
{
	struct lp_cookie *c = cookie;
	int rc = fflush(c->out);

	free(c);
	return rc ? -1 : 0;
}

FILE *line_prefix_open(FILE *out, const struct line_prefix *p)
{
	static const cookie_io_functions_t io = { .write = lp_write, .close = lp_close };
	struct lp_cookie *c = calloc(1, sizeof(*c));
	FILE *f;

	if (!c)
		return NULL;
	*c = (struct lp_cookie){ .out = out, .p = p, .at_start = true };
	f = fopencookie(c, "w", io);
	if (!f)
		free(c);
	else
		setvbuf(f, NULL, _IOLBF, 0); /* each line as it comes, as stdout on a terminal */
	return f;
}
