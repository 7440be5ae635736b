/* SPDX-License-Identifier: MIT */
/* OpenMetrics text pieces shared by the run's, the matrix's and the trend's
 * printers (report_om.c; private to src/report). */
#ifndef OVLPERF_REPORT_OM_H
#define OVLPERF_REPORT_OM_H

#include <stdbool.h>
#include <stdio.h>

/* One label, name="value": '{' before the first (*first true), ',' after;
 * the value's backslash, double quote and newline escaped (OpenMetrics 1.0,
 * "Escaping"). */
void report_om_label(FILE *f, bool *first, const char *name, const char *value);
/* A sample's value: a Go-parsable float; NaN and the infinities spelt out. */
void report_om_value(FILE *f, double v);
/* A family's metadata (OpenMetrics 1.0, "MetricFamily"): TYPE gauge, UNIT
 * when unit is not NULL (the name's suffix), HELP; each name is prefix then
 * name. */
void report_om_family(FILE *f, const char *prefix, const char *name, const char *unit,
		      const char *help);

#endif
