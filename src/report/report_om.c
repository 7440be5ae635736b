// SPDX-License-Identifier: MIT
/* OpenMetrics text pieces every OpenMetrics printer shares (report_om.h):
 * the run's (report_run_om.c), the matrix's (report_mesh_om.c) and the
 * trend's (report_trend_om.c). OpenMetrics 1.0. */
#include <math.h>
#include <stdio.h>

#include "report_om.h"

void report_om_label(FILE *f, bool *first, const char *name, const char *value)
{
	fprintf(f, "%s%s=\"", *first ? "{" : ",", name);
	*first = false;
	for (; *value; value++) {
		if (*value == '\\' || *value == '"')
			fprintf(f, "\\%c", *value);
		else if (*value == '\n')
			fputs("\\n", f);
		else
			fputc(*value, f);
	}
	fputc('"', f);
}

void report_om_value(FILE *f, double v)
{
	if (isnan(v))
		fputs(" NaN\n", f);
	else if (isinf(v))
		fputs(v > 0 ? " +Inf\n" : " -Inf\n", f);
	else
		fprintf(f, " %.12g\n", v);
}

void report_om_family(FILE *f, const char *prefix, const char *name, const char *unit,
		      const char *help)
{
	fprintf(f, "# TYPE %s%s gauge\n", prefix, name);
	if (unit)
		fprintf(f, "# UNIT %s%s %s\n", prefix, name, unit);
	fprintf(f, "# HELP %s%s %s\n", prefix, name, help);
}
