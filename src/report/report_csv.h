/* SPDX-License-Identifier: MIT */
/* A text cell of a CSV file (RFC 4180 2.6-2.7), for summary.csv
 * (report_run_csv.c) and matrix.csv (report_mesh_csv.c). */
#ifndef OVLPERF_REPORT_CSV_H
#define OVLPERF_REPORT_CSV_H

#include <stdio.h>

/* s in double quotes, its quotes doubled. */
void report_csv_quoted(FILE *f, const char *s);
/* s as it is, or quoted as above when it holds a comma, a quote or a line
 * break. */
void report_csv_field(FILE *f, const char *s);

#endif
