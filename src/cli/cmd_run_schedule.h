/* SPDX-License-Identifier: MIT */
/*
 * What `ovlperf run` does after a run for a schedule (a timer,
 * deploy/systemd/ovlperf-run@.service): the run's figures as OpenMetrics
 * into a node exporter's textfile directory (--textfile-dir), and the
 * retention of the results root (--keep, --keep-days; retention.h). Only
 * a run that completed and wrote every file gets either: a refused,
 * failed or interrupted run leaves the textfile as it was (its timestamp
 * then ages, which is what an alert on stale results watches) and
 * removes nothing.
 */
#ifndef OVLPERF_CMD_RUN_SCHEDULE_H
#define OVLPERF_CMD_RUN_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>

#include "results.h"

struct cmd_run_schedule {
	unsigned keep;		  /* the newest runs of the scenario kept; 0: all */
	unsigned keep_days;	  /* runs older than this many days removed; 0: none */
	const char *textfile_dir; /* NULL: no textfile */
};

/* Whether anything is asked at all. */
bool cmd_run_schedule_wanted(const struct cmd_run_schedule *s);

/* After res completed in dir under root: DIR/ovlperf-<scenario>.prom
 * written atomically (a failure is added to unwritten), then the prune.
 * 0, or a negative errno when the textfile or a removal failed (logged). */
int cmd_run_schedule_after(const struct cmd_run_schedule *s, const struct results_run *res,
			   const char *root, const char *dir, char *unwritten, size_t len);

#endif
