/* SPDX-License-Identifier: MIT */
/*
 * A run's verdict first: a few plain sentences a network engineer can act
 * on, for each overlay against the underlay: what it costs in TCP goodput,
 * in the lossless UDP rate, in delay and in CPU, whether the MTU and MSS
 * checks passed, and what limited each figure, with a bound said in words
 * ("at least") and why it is one. Pure: the run model in, sentences out;
 * the terminal summary and report.md (so report.html) start with them.
 */
#ifndef OVLPERF_RUN_VERDICT_H
#define OVLPERF_RUN_VERDICT_H

#include "results.h"

#define RUN_VERDICT_LINES 16
#define RUN_VERDICT_LEN	  640

struct run_verdict {
	unsigned n;
	char line[RUN_VERDICT_LINES][RUN_VERDICT_LEN];
};

/* The sentences of run (sum its aggregates); none when it has no overlay
 * and underlay to compare, or no figures. */
void results_run_verdict(const struct results_run *run, const struct results_summary *sum,
			 struct run_verdict *v);

#endif
