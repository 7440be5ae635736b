/* SPDX-License-Identifier: MIT */
/*
 * Each end's host facts, briefly (hostfacts.h): the overlay/VPN processes
 * found there and how, their CPU, a throttled cgroup, the machine against
 * its baseline, drops, the TCP congestion control; or why unknown. For
 * `ovlperf client`'s summary and, per path, the run's terminal summary
 * and report.md.
 */
#ifndef OVLPERF_REPORT_FACTS_H
#define OVLPERF_REPORT_FACTS_H

#include <stddef.h>
#include <stdio.h>

#include "hostfacts.h"
#include "report_run.h"

/* One end's facts in a sentence into buf. */
void report_facts_brief(char *buf, size_t len, const struct hostfacts *f);
/* The VPN found on each path's hosts (the first trial of the path with
 * either end's facts known), as terminal lines or report.md's (md). */
void report_facts_run(FILE *f, const struct report_run *rr, bool md);

#endif
