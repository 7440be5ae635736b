/* SPDX-License-Identifier: MIT */
/* One file of a results directory, written by a printer: the run's
 * (run_output.c) and the matrix's (report_mesh_out.c). */
#ifndef OVLPERF_REPORT_FILE_H
#define OVLPERF_REPORT_FILE_H

#include <stdio.h>

/* Writes one file's content to f; 0 or a negative errno. */
typedef int (*report_printer)(FILE *f, const void *ctx);

/* Writes DIR/NAME with print(f, ctx). The path's length, the open, the
 * flush (a full disk shows there: the printers' writes are buffered) and
 * the close are checked, and a failure is logged with the path. 0 or a
 * negative errno. */
int report_write_file(const char *dir, const char *name, report_printer print, const void *ctx);

#endif
