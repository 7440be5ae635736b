// SPDX-License-Identifier: MIT
/* RFC 4180 2.6-2.7: a field with a comma, quote or line break is quoted,
 * its quotes doubled. */
#include <stdio.h>
#include <string.h>

#include "report_csv.h"

void report_csv_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void report_csv_field(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\n\r"))
		report_csv_quoted(f, s);
	else
		fputs(s, f);
}
