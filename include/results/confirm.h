/* SPDX-License-Identifier: MIT */
/*
 * A fix proved by a rerun (`ovlperf run --confirm`): what a rerun of a
 * limited TCP figure may apply of its verdict's fix (in ovlperf's own lab
 * its hosts' TCP buffer maxima; anywhere the test's own -w and -C, never a
 * setting of a host it did not make), and how the figure before and after
 * reads. Pure: the verdict in, the plan out; the figures in, the words out.
 * The suite applies the plan, reruns, and puts back what it changed.
 */
#ifndef OVLPERF_CONFIRM_H
#define OVLPERF_CONFIRM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tcp_limit.h"

enum confirm_action {
	CONFIRM_NONE,	    /* no fix ovlperf may apply (why says so) */
	CONFIRM_RMEM,	    /* the lab's receiving host's net.ipv4.tcp_rmem maximum */
	CONFIRM_WMEM,	    /* the lab's sending host's net.ipv4.tcp_wmem maximum */
	CONFIRM_SOCK_BUF,   /* the test's own -w (SO_SNDBUF/SO_RCVBUF), bytes */
	CONFIRM_CONGESTION, /* the test's own -C */
};

struct confirm_plan {
	enum confirm_action action;
	uint64_t value; /* the maximum or -w, bytes */
	/* between hosts, the -w within the host's maximum that caps it: that
	 * maximum (0: not read) and its name */
	uint32_t max;
	const char *max_name;
	char cc[16];   /* CONFIRM_CONGESTION: the algorithm */
	char why[128]; /* CONFIRM_NONE: why nothing is applied */
};

/* What a rerun of a figure whose verdict is v may apply; lab: the run made
 * the hosts (their namespaces' sysctls are its own). */
void confirm_plan_of(const struct tcp_limit_verdict *v, bool lab, struct confirm_plan *p);

/* One rerun: the figure before (the point's median) and after, each
 * one's verdict, and what was applied. */
#define RESULTS_MAX_CONFIRMS 16
struct results_confirm {
	unsigned path, streams;
	char limit_before[24], limit_after[24];
	double before_bps, after_bps; /* goodput; after 0: the rerun failed */
	char applied[160];	      /* what the rerun changed ("" none: why in note) */
	char note[160];		      /* why nothing was applied, or how it failed */
	bool restored;		      /* everything it changed was put back */
};

/* A figure moved when it rose by a tenth or more. */
#define CONFIRM_MOVED 1.1

/* "confirmed: +62 %, now limited by network rate", "not moved: +2 %, still
 * limited by receive window", "not rerun: ..." */
void confirm_words(const struct results_confirm *c, char *buf, size_t len);

#endif
