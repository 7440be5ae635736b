/* SPDX-License-Identifier: MIT */
/*
 * What the printers' unit tests share (test_report_run.c,
 * test_report_diff.c): the printers, one rendered into memory, a text that must
 * hold a phrase, and a run whose figures are lower bounds.
 */
#ifndef OVLPERF_REPORT_FIXTURE_H
#define OVLPERF_REPORT_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "report_run.h"
#include "run_fixture.h"

typedef void (*printer)(FILE *f, const struct report_run *rr, const void *arg);

static inline char *render(printer p, const struct report_run *rr, const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	p(f, rr, arg);
	fclose(f);
	return buf;
}

static inline void p_term(FILE *f, const struct report_run *rr, const void *arg)
{
	(void)arg;
	report_run_term(f, rr);
}

static inline void p_md(FILE *f, const struct report_run *rr, const void *arg)
{
	assert_int_equal(report_run_md(f, rr, arg), 0);
}

static inline void p_csv(FILE *f, const struct report_run *rr, const void *arg)
{
	(void)arg;
	assert_int_equal(report_run_csv(f, rr), 0);
}

static inline void contains(const char *text, const char *what)
{
	if (!strstr(text, what))
		fail_msg("'%s' not found in:\n%s", what, text);
}

/* The underlay passed at max_rate (10 Gbit/s, a lower bound) and the
 * sender fell short of the overlay's knee (generator-limit): every printer
 * carries the marker, a ratio against the bound is a bound, and the CSV
 * says which figures are lower bounds. */
static inline void bound_run(struct results_run *run)
{
	fixture_run(run);
	snprintf(run->knees[0].ndr_outcome, sizeof(run->knees[0].ndr_outcome), "above-max");
	run->knees[0].ndr_lower_bps = 10000000000ULL;
	run->knees[0].ndr_lower_achieved_bps = 10000000000ULL;
	run->knees[0].ndr_upper_bps = 0;
	snprintf(run->knees[1].ndr_outcome, sizeof(run->knees[1].ndr_outcome), "generator-limit");
	run->knees[1].ndr_lower_bps = 1810000000ULL;
	run->knees[1].ndr_lower_achieved_bps = 1800000000ULL; /* what was sent */
	run->knees[1].ndr_upper_bps = 1830000000ULL;
}

#endif
