/* SPDX-License-Identifier: MIT */
/*
 * The runs of one scenario over time (history.c): `ovlperf report --trend`
 * reads every run.json it is given (a run directory, or a results root
 * whose directories are runs), keeps the complete runs of one scenario in
 * the order they started, and follows each figure (figures.h) from run to
 * run, its history segmented by trend.h.
 */
#ifndef OVLPERF_HISTORY_H
#define OVLPERF_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "figures.h"
#include "trend.h"

struct history_run {
	char dir[512];
	char started_utc[32];
	char version[32];
};

/* One figure across the runs that have it. */
struct history_series {
	struct results_figure id; /* its name, unit and direction (the first run's) */
	size_t n;
	size_t *run;	 /* index into the history's runs */
	double *y;	 /* each run's figure */
	double *lo, *hi; /* the least and largest of its repetitions */
	bool bounded;	 /* some run's figure is only a bound */
	bool fitted;	 /* some run's is a soft knee's fit: lo, hi its interval */
	double within;	 /* the noise of a run's figure from its repetitions (0: unknown) */
	struct trend trend;
};

struct history {
	char scenario[RESULTS_NAME_MAX];
	double threshold;
	size_t nruns;
	struct history_run *runs;
	size_t nseries;
	struct history_series *series;
	/* run.json files passed over: of other scenarios, incomplete, or
	 * unreadable (each logged) */
	unsigned other, incomplete, unreadable;
};

/* Reads the runs under dirs[n] of scenario (NULL: the scenario of the run
 * that started last) and segments each figure's history at threshold (a
 * fraction). 0; -ENOENT (no run of the scenario, err says what was found)
 * or -ENOMEM. */
int history_read(struct history *h, char *const *dirs, size_t n, const char *scenario,
		 double threshold, char *err, size_t errlen);
void history_free(struct history *h);

#endif
