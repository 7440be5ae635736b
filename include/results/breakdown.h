/* SPDX-License-Identifier: MIT */
/*
 * Each overlay's cost broken down against the underlay: of a TCP goodput
 * ratio and a UDP NDR ratio, how much is bytes on the wire (the overlay's
 * encapsulation and the MSS it loses), how much CPU (per wire bit: the
 * sender, the receiver, the overlay's daemons, the rest of the machine),
 * how much the CPU the run got to use, and how much what limited the
 * overlay otherwise (the window over the delay it added, loss, a network
 * rate). The ratio is the product of the parts' factors; each part's
 * points (its share of ln(ratio), times the shortfall 1 - ratio, in %)
 * add up to the measured shortfall, so "x0.27: bytes -2 points, CPU -71"
 * reads as a sum. A part that closes the gap between the medians the ratio
 * is made of and the sums the parts are made of is named ("repetitions").
 *
 * Pure: the run model in, rows out (run_limit.h names the limit).
 */
#ifndef OVLPERF_BREAKDOWN_H
#define OVLPERF_BREAKDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results.h"

enum breakdown_kind { BREAKDOWN_TCP = 0, BREAKDOWN_NDR };

#define BREAKDOWN_MAX_PARTS 10
struct breakdown_part {
	char name[40];	  /* "bytes on the wire", "CPU: overlay daemons", ... */
	double factor;	  /* its factor of the ratio (1: no effect; NAN for a sub-part) */
	double points;	  /* its share of (ratio - 1) * 100: the parts add up */
	char detail[160]; /* the figures behind it */
	bool sub;	  /* a share of the part before it (the CPU by whom): its
			   * points split that part's by each one's CPU per wire bit */
};

struct breakdown_row {
	enum breakdown_kind kind;
	unsigned path, base_path;
	unsigned key;	/* streams (TCP) or datagram payload bytes (NDR) */
	double ratio;	/* overlay / underlay, the medians the reports show */
	bool ok;	/* broken down; false: why not in note */
	char limit[32]; /* what limited the overlay (run_limit.h's name) */
	char note[200];
	unsigned nparts;
	struct breakdown_part part[BREAKDOWN_MAX_PARTS];
};

struct breakdown {
	size_t n;
	struct breakdown_row *rows;
};

/* One row per overlay path and TCP stream count, and per overlay path and
 * datagram size with a knee, against the underlay; 0 or -ENOMEM. */
int breakdown_of(const struct results_run *run, const struct results_summary *sum,
		 struct breakdown *out);
void breakdown_free(struct breakdown *b);

/* The sum of a row's points over its top-level parts (the sub-parts split
 * one of them): (ratio - 1) * 100 when the row is complete. */
double breakdown_points(const struct breakdown_row *r);

#endif
