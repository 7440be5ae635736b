// SPDX-License-Identifier: MIT
/*
 * The progress of `ovlperf run` on stderr, rendered from the suite's events
 * (run.h). On a terminal it is one line rewritten in place (CR, then ECMA-48
 * EL "erase in line", CSI K); into a file or a pipe every update is a line
 * of its own, without escapes.
 */
#include <stdio.h>
#include <unistd.h>

#include "log.h"
#include "report_run.h"
#include "report_suite.h"

/* ECMA-48: carriage return, then CSI 0 K (erase to the end of the line). */
#define LINE_RESET "\r\033[K"

void report_run_progress_init(struct report_run_progress *p, FILE *f, bool lines)
{
	p->f = f;
	p->lines = lines;
	p->tty = isatty(fileno(f));
}

static void trial_line(const struct report_run_progress *p, const struct run_progress *ev)
{
	char what[96], rate[32], t[32];

	if (ev->trial_kind == RESULTS_TRIAL_TCP) {
		snprintf(what, sizeof(what), "TCP %u stream%s", ev->streams,
			 ev->streams > 1 ? "s" : "");
	} else {
		report_run_fmt_rate(rate, sizeof(rate), (double)ev->rate_bps);
		snprintf(what, sizeof(what), "UDP %u B @ %s %s%s%s", ev->len, rate,
			 results_trial_kind_name(ev->trial_kind), ev->knee_phase ? " " : "",
			 ev->knee_phase ? ev->knee_phase : "");
	}
	report_run_fmt_time(t, sizeof(t), (double)ev->left_ns / 1e9);
	fprintf(p->f, "%s[%u/%u] %s: %s, rep %u, ~%s left%s", p->tty ? LINE_RESET : "",
		ev->trial_no, ev->trials_planned, ev->path_name, what, ev->rep + 1, t,
		p->tty ? "" : "\n");
	fflush(p->f);
}

void report_run_progress(void *arg, const struct run_progress *ev)
{
	const struct report_run_progress *p = arg;

	switch (ev->kind) {
	case RUN_PROGRESS_WARNING:
		log_msg(LOG_WARN, ev->func ? ev->func : __func__, "%s", ev->message);
		return;
	case RUN_PROGRESS_TRIAL:
		if (p->lines)
			trial_line(p, ev);
		return;
	case RUN_PROGRESS_PHASE:
		if (p->lines && ev->phase == RUN_PHASE_MTU) {
			fprintf(p->f, "%sMTU and MSS checks on %u paths%s",
				p->tty ? LINE_RESET : "", ev->npaths, p->tty ? "" : "\n");
			fflush(p->f);
		}
		return;
	case RUN_PROGRESS_END:
		if (p->lines && p->tty) {
			fputs(LINE_RESET, p->f);
			fflush(p->f);
		}
		return;
	case RUN_PROGRESS_TRIAL_DONE:
	case RUN_PROGRESS_MTU_DONE:
		/* The summary at the end shows every trial and verdict. */
		return;
	}
}
