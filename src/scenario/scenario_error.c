// SPDX-License-Identifier: MIT
/*
 * The scenario parser's error list: one line per problem, each naming
 * file, line, section and key, stopping after MAX_ERRORS.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "scenario_int.h"

__attribute__((format(printf, 5, 0))) static void verror(struct parser *p, unsigned line,
							 const struct section *sec, const char *key,
							 const char *fmt, va_list ap)
{
	char msg[256], where[96] = "", full[640];
	size_t room, n;

	p->nerr++;
	if (!p->err || !p->errlen || p->nerr > MAX_ERRORS + 1)
		return;
	if (p->nerr == MAX_ERRORS + 1) {
		snprintf(full, sizeof(full), "%s: too many errors, the list stops here\n",
			 p->scn->file);
	} else {
		vsnprintf(msg, sizeof(msg), fmt, ap);
		if (sec && key)
			snprintf(where, sizeof(where), "[%s] %s: ", sec->name, key);
		else if (sec)
			snprintf(where, sizeof(where), "[%s]: ", sec->name);
		else if (key)
			snprintf(where, sizeof(where), "%s: ", key);
		if (line)
			snprintf(full, sizeof(full), "%s:%u: %s%s\n", p->scn->file, line, where,
				 msg);
		else
			snprintf(full, sizeof(full), "%s: %s%s\n", p->scn->file, where, msg);
	}
	room = p->errlen - p->errused;
	n = strlen(full);
	if (room <= 1)
		return;
	if (n >= room)
		n = room - 1;
	memcpy(p->err + p->errused, full, n);
	p->errused += n;
	p->err[p->errused] = '\0';
}

void scn_error_at(struct parser *p, unsigned line, const struct section *sec, const char *key,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(p, line, sec, key, fmt, ap);
	va_end(ap);
}

const char *scn_quote(const char *v, char buf[static 64])
{
	size_t i = 0;

	for (; v[i] && i < 60; i++)
		buf[i] = isprint((unsigned char)v[i]) ? v[i] : '?';
	buf[i] = '\0';
	if (v[i])
		memcpy(buf + 57, "...", 4);
	return buf;
}
