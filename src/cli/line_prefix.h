/* SPDX-License-Identifier: MIT */
/* A stream that starts each line it passes on with a time stamp and/or a
 * title, as iperf3's --timestamps and -T do to its text output (private to
 * src/cli). */
#ifndef OVLPERF_LINE_PREFIX_H
#define OVLPERF_LINE_PREFIX_H

#include <stdio.h>

/* What each line starts with: strftime(3) of the local time with
 * timestamps (NULL: none), then "TITLE:  " (NULL: none). */
struct line_prefix {
	const char *timestamps;
	const char *title;
};

/* A stream writing to out, each line prefixed as p says; p must outlive
 * it. NULL (errno set) when it cannot be made. fclose() flushes it, and
 * leaves out open. */
FILE *line_prefix_open(FILE *out, const struct line_prefix *p);

#endif
