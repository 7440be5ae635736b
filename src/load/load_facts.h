/* SPDX-License-Identifier: MIT */
/*
 * The client's host facts over a test (hostfacts.h): read from just before
 * START to the end of its streams, the path's interface taken from the
 * data socket (a VPN's TUN, whose holder is found), the baseline from the
 * caller's gaps between tests or a short idle sample.
 */
#ifndef OVLPERF_LOAD_FACTS_H
#define OVLPERF_LOAD_FACTS_H

#include "load.h"
#include "load_streams.h"

/* The machine's busy CPU measured this long before a test that has no
 * gap before it to measure (`ovlperf client`: one test). */
#define LOAD_FACTS_IDLE_NS (100ULL * 1000000ULL)

/* Before START: the machine's busy CPU with no test running, and the
 * processes found from the interface of data socket fd (the path's: a
 * VPN's TUN) and the hooks' pids. hooks may be NULL. NULL when out of
 * memory; a test started so ends with load_facts_end() either way. */
struct hostfacts_probe *load_facts_prepare(const struct load_hooks *hooks, int fd);
/* Once the streams run (their threads are the test's): the first read. */
void load_facts_start(struct hostfacts_probe *p);
/* After the streams' threads are joined: the busiest of them by its own
 * count (RUSAGE_THREAD, ls's) as the test's busiest thread ("stream N")
 * when busier than any thread read in /proc (a stream thread that ended
 * before the window's last read is not there). */
void load_facts_streams(struct hostfacts *f, const struct load_streams *ls);

/* Before the streams' threads are joined: fills out and frees p (NULL:
 * out is unknown). */
void load_facts_end(const struct load_hooks *hooks, struct hostfacts_probe *p,
		    struct hostfacts *out);

#endif
