// SPDX-License-Identifier: MIT
/*
 * The context of one run, at the bottom of the suite: every other file of
 * src/suite/ reports through it and none of it calls back up. Progress
 * events and warnings go to the caller's hook (run_options.progress; the
 * suite never prints), the first reason to stop is kept, and run.json is
 * written after every trial so that even a killed run leaves what it
 * measured.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "log.h"
#include "run_int.h"

void run_event(struct run *r, struct run_progress *ev)
{
	ev->npaths = r->npaths;
	if (r->opt->progress)
		r->opt->progress(r->opt->progress_arg, ev);
}

void run_warn_at(struct run *r, const char *func, const char *fmt, ...)
{
	struct run_progress ev = { .kind = RUN_PROGRESS_WARNING, .func = func };
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!r->opt->progress) {
		log_msg(LOG_WARN, func, "%s", msg);
		return;
	}
	ev.message = msg;
	run_event(r, &ev);
}

void run_stop(struct run *r, int err, const char *fmt, ...)
{
	va_list ap;

	if (r->stop)
		return;
	r->stop = err ? err : -ECANCELED;
	va_start(ap, fmt);
	vsnprintf(r->stop_reason, sizeof(r->stop_reason), fmt, ap);
	va_end(ap);
	log_info("run stops: %s", r->stop_reason);
}

int run_save(struct run *r)
{
	char path[1100];
	int err;

	r->res->duration_s = (double)(clock_now_ns() - r->t0) / 1e9;
	snprintf(path, sizeof(path), "%s/run.json", r->dir);
	err = results_write_json(r->res, path);
	if (err)
		log_err("cannot write %s: %s", path, strerror(-err));
	return err;
}
