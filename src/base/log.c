// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

/* Written once by main() before any thread starts; read-only afterwards. */
static enum log_level threshold = LOG_WARN;
static int log_fd = STDERR_FILENO;
/* "ovlperf COMMAND" once main() knows the command, else "ovlperf" */
static char prefix[40] = "ovlperf";

void log_set_level(enum log_level level)
{
	threshold = level;
}

enum log_level log_get_level(void)
{
	return threshold;
}

void log_set_command(const char *cmd)
{
	snprintf(prefix, sizeof(prefix), "ovlperf%s%s", cmd && *cmd ? " " : "", cmd ? cmd : "");
}

int log_set_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0640);

	if (fd < 0)
		return -errno;
	log_fd = fd;
	return 0;
}

/* A log file gets a UTC time stamp per line (it outlives the terminal that
 * would have shown when a line appeared); stderr stays as it was. */
static size_t stamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	if (log_fd == STDERR_FILENO)
		return 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	if (n && n + 6 < len)
		n += (size_t)snprintf(buf + n, len - n, ".%03ldZ ", ts.tv_nsec / 1000000);
	return n < len ? n : 0;
}

static void emit(const char *level, const char *func, const char *msg)
{
	char line[1200];
	size_t n = stamp(line, sizeof(line));
	int k;

	if (func)
		k = snprintf(line + n, sizeof(line) - n, "%s: %s: %s: %s\n", prefix, level, func,
			     msg);
	else if (level)
		k = snprintf(line + n, sizeof(line) - n, "%s: %s: %s\n", prefix, level, msg);
	else
		k = snprintf(line + n, sizeof(line) - n, "%s: %s\n", prefix, msg);
	if (k < 0)
		return;
	n += (size_t)k;
	if (n >= sizeof(line)) {
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	/* One write per line so that lines from several threads do not interleave. */
	while (write(log_fd, line, n) < 0 && errno == EINTR)
		;
}

void log_msg(enum log_level level, const char *func, const char *fmt, ...)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	char msg[1024];
	va_list ap;

	if (level > threshold)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(names[level], threshold >= LOG_DEBUG ? func : NULL, msg);
}

void log_notice(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (threshold < LOG_WARN)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(NULL, NULL, msg);
}
