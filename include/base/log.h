/* SPDX-License-Identifier: MIT */
/*
 * Logging to stderr, or to the file of `ovlperf --logfile FILE` (lines then
 * carry a UTC time stamp). Results go to stdout through the report printers;
 * these macros are for diagnostics only and carry the calling function's
 * name.
 */
#ifndef OVLPERF_LOG_H
#define OVLPERF_LOG_H

enum log_level { LOG_ERR, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* Set once at start-up from -v/-q; the default is LOG_WARN. */
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* Set once at start-up (main.c, before any thread): log lines go to path,
 * opened for appending (created 0640). 0 or a negative errno; stderr stays
 * the log then. */
int log_set_file(const char *path);
/* Set once at start-up (main.c): every line then starts "ovlperf CMD:"
 * instead of "ovlperf:", as the command's own errors do. */
void log_set_command(const char *cmd);

void log_msg(enum log_level level, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One line that says what a long-running command is doing (the server's
 * start-up line): shown at the default level, hidden by -q. */
void log_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define log_err(...)   log_msg(LOG_ERR, __func__, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARN, __func__, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_INFO, __func__, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __func__, __VA_ARGS__)

#endif
