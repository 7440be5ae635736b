/* SPDX-License-Identifier: MIT */
/* One file of a results directory, written by a printer: the run's
 * (report_run_out.c, report_run_plot.c) and the matrix's
 * (report_mesh_out.c); and the list of the files that could not be. */
#ifndef OVLPERF_REPORT_FILE_H
#define OVLPERF_REPORT_FILE_H

#include <stddef.h>
#include <stdio.h>

/* Writes one file's content to f; 0 or a negative errno. */
typedef int (*report_printer)(FILE *f, const void *ctx);

/* Writes DIR/NAME with print(f, ctx). The path's length, the open, the
 * flush (a full disk shows there: the printers' writes are buffered) and
 * the close are checked, and a failure is logged with the path. 0 or a
 * negative errno. */
int report_write_file(const char *dir, const char *name, report_printer print, const void *ctx);
/* Writes path with print(f, ctx) atomically: into a temporary file beside
 * it, flushed to disk, then renamed over it, so that a reader (a textfile
 * collector, a browser) sees the old file or the new one, never a part.
 * The path's length, the open, the flush (a full disk shows there: the
 * printers' writes are buffered), the sync, the close and the rename are
 * checked, and a failure is logged with the path and leaves no temporary
 * file. 0 or a negative errno. */
int report_write_path(const char *path, report_printer print, const void *ctx);

/* Appends name to a ", "-separated list of files (truncated, never
 * overflowing). */
void report_file_note(char *list, size_t len, const char *name);

#endif
