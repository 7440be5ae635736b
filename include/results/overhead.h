/* SPDX-License-Identifier: MIT */
/*
 * What an overlay costs: for each overlay path, every figure of the run set
 * against the same figure on the underlay, as a ratio (overlay / underlay)
 * and a delta (overlay - underlay). Pure arithmetic on the run model's
 * aggregates, testable without a network.
 */
#ifndef OVLPERF_OVERHEAD_H
#define OVLPERF_OVERHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results.h"

enum overhead_metric {
	OVERHEAD_TCP_GOODPUT = 0,   /* key: streams; bit/s */
	OVERHEAD_UDP_NDR,	    /* key: datagram size; bit/s */
	OVERHEAD_UDP_PDR,	    /* key: datagram size; bit/s */
	OVERHEAD_OWD_P50,	    /* key: datagram size; ms at load_bps */
	OVERHEAD_OWD_P99,	    /* key: datagram size; ms at load_bps */
	OVERHEAD_CPU_PER_GBIT,	    /* key: streams; CPU s/Gbit of the test processes */
	OVERHEAD_HOST_CPU_PER_GBIT, /* key: streams; CPU s/Gbit of the whole machine */
	OVERHEAD_TCP_MSS,	    /* key: streams; bytes */
	OVERHEAD_METRIC_COUNT
};

/* How a figure, or a ratio, delta or cost of figures, relates to the truth. */
enum overhead_bound {
	OVERHEAD_EXACT = 0,
	OVERHEAD_AT_MOST,  /* the true value is at most the one given (an upper bound) */
	OVERHEAD_AT_LEAST, /* at least (a lower bound) */
	OVERHEAD_UNKNOWN,  /* bounds pulling both ways: no bound either way */
};

struct overhead_row {
	unsigned path;	    /* the overlay path */
	unsigned base_path; /* the underlay */
	enum overhead_metric metric;
	unsigned key; /* stream count or datagram size, as the metric says */
	/* Delay rows: the common load both were measured at, and what part of
	 * the lowest NDR it was (0: a fixed [udp] rate); 0 for the others. */
	uint64_t load_bps;
	double load_pct;
	double base, value;
	double ratio; /* value / base; NAN when base is 0 */
	double delta; /* value - base */
	/* A figure that is only a bound (a knee search that passed at
	 * max_rate, hit the generator's limit or did not finish: AT_LEAST;
	 * one that lost even at its minimum rate: AT_MOST, the rate it lost
	 * at) makes the ratio, delta and cost bounds too. */
	enum overhead_bound base_bound, value_bound;
	/* NDR and PDR rows: a side whose figure is a soft knee's fit
	 * (RESULTS_HEAD_FIT); a ratio of a fit to a found knee says so */
	bool base_fit, value_fit;
};

struct overhead {
	size_t n;
	struct overhead_row *rows;
};

/* Rows for every overlay path and every figure both it and the underlay
 * have. No underlay in the run: zero rows, return 0. 0 or -ENOMEM. */
int overhead_compute(const struct results_run *run, const struct results_summary *sum,
		     struct overhead *out);
void overhead_free(struct overhead *o);
/* The row of one path, figure and key (streams or bytes), or NULL. A delay
 * figure has a row per load: overhead_find() gives the first of them,
 * overhead_find_load() the one at load_bps. */
const struct overhead_row *overhead_find(const struct overhead *o, unsigned path,
					 enum overhead_metric m, unsigned key);
const struct overhead_row *overhead_find_load(const struct overhead *o, unsigned path,
					      enum overhead_metric m, unsigned key,
					      uint64_t load_bps);

/* Stable names for JSON and CSV ("tcp_goodput_bps", ...), a short label for
 * tables ("TCP goodput") and what the key means ("streams" or "bytes"). */
const char *overhead_metric_name(enum overhead_metric m);
const char *overhead_metric_label(enum overhead_metric m);
const char *overhead_metric_key(enum overhead_metric m);
int overhead_metric_parse(const char *name);
bool overhead_higher_is_better(enum overhead_metric m);

/* The overlay's cost in percent, positive when the overlay is worse:
 * 100 * (1 - ratio) for rates, 100 * (ratio - 1) for delay and CPU. NAN
 * when the ratio is undefined; 0 for the MSS, which is not better or worse. */
double overhead_cost_pct(const struct overhead_row *r);

/* How the ratio and the delta relate to the truth: an overlay figure's
 * bound carries over, an underlay figure's turns around (a lower-bound
 * underlay makes the ratio an upper bound); two that pull opposite ways
 * leave UNKNOWN. */
enum overhead_bound overhead_ratio_bound(const struct overhead_row *r);
/* The cost's bound: the opposite of the ratio's for higher-is-better
 * figures (cost = 1 - ratio), the same for the others. */
enum overhead_bound overhead_cost_bound(const struct overhead_row *r);
/* "", "<= ", ">= " or "? " before a bounded figure. */
const char *overhead_bound_prefix(enum overhead_bound b);
/* "exact", "at_most", "at_least", "unknown" for CSV and JSON. */
const char *overhead_bound_name(enum overhead_bound b);
/* "exact", "upper_bound", "lower_bound" (or "unknown") for one figure. */
const char *overhead_figure_bound_name(enum overhead_bound b);

/* The figure a knee search stands for (pdr: the PDR, else the NDR), as
 * its headline says (enum results_head): on a soft knee the fit (EXACT,
 * its interval as the stat's min and max); else the rate achieved at its
 * lower bound (AT_LEAST when only a lower bound), or, when it lost at every
 * rate it tried (down to the search's minimum, or cut before it), the
 * least rate it lost at (AT_MOST). The stat behind
 * it goes to *stat. False: no figure (none found, or the path changed
 * between repetitions). */
bool overhead_knee_figure(const struct results_knee_point *p, bool pdr,
			  const struct results_stat **stat, enum overhead_bound *bound);

#endif
