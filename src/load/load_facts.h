/* SPDX-License-Identifier: MIT */
/*
 * The client's host facts over a test (hostfacts.h): read from just before
 * START to the end of its streams, the path's interface taken from the
 * data socket (a VPN's TUN, whose holder is found), the baseline from the
 * caller's gaps between tests or a short idle sample.
 */
#ifndef OVLPERF_LOAD_FACTS_H
#define OVLPERF_LOAD_FACTS_H

#include <net/if.h>

#include "load.h"

/* The machine's busy CPU measured this long before a test that has no
 * gap before it to measure (`ovlperf client`: one test). */
#define LOAD_FACTS_IDLE_NS (100ULL * 1000000ULL)

/* Before START: the machine's busy CPU with no test running (< 0: not
 * measured), and the interface of data socket fd (the path's, into dev).
 * A test started so ends with load_facts_end(). */
double load_facts_baseline(const struct load_hooks *hooks, int fd, char dev[static IF_NAMESIZE]);
/* Once the streams run (their threads are the test's): the first read.
 * hooks may be NULL; dev as load_facts_baseline() gave it. NULL when out
 * of memory. */
struct hostfacts_probe *load_facts_begin(const struct load_hooks *hooks, const char *dev,
					 double baseline);
/* Before the streams' threads are joined: fills out and frees p (NULL:
 * out is unknown). */
void load_facts_end(const struct load_hooks *hooks, struct hostfacts_probe *p,
		    struct hostfacts *out);

#endif
