// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

/* Written once by main() before any thread starts; read-only afterwards. */
static enum log_level threshold = LOG_WARN;

void log_set_level(enum log_level level)
{
	threshold = level;
}

enum log_level log_get_level(void)
{
	return threshold;
}

void log_msg(enum log_level level, const char *func, const char *fmt, ...)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	char line[1024];
	va_list ap;

	if (level > threshold)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One write per line so that lines from several threads do not interleave. */
	if (threshold >= LOG_DEBUG)
		fprintf(stderr, "ovlperf: %s: %s: %s\n", names[level], func, line);
	else
		fprintf(stderr, "ovlperf: %s: %s\n", names[level], line);
}
