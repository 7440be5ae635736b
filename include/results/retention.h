/* SPDX-License-Identifier: MIT */
/*
 * Retention of a results root (retention.c): `ovlperf run --keep N
 * --keep-days D` removes, after a run that completed, the oldest runs of the
 * same scenario beyond the newest N and those that started more than D days
 * ago. A directory is a run ovlperf wrote only when its name is the one
 * `run` gives (<UTC stamp>-<scenario>[-N], run.c's make_dir) and it holds a
 * run.json this ovlperf reads, of that scenario; anything else under the
 * root (a foreign directory, a file, a symbolic link, a run of another
 * scenario, a run in a directory named by --out) is never touched. The run
 * just written is always kept.
 */
#ifndef OVLPERF_RETENTION_H
#define OVLPERF_RETENTION_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* One run of the scenario found under the root. */
struct retention_run {
	char name[256]; /* the directory's name under the root */
	time_t started; /* run.json's started_utc (seconds since the epoch) */
	bool current;	/* the run just written: never removed */
	bool remove;	/* out: chosen for removal */
};

/* The choice alone, on plain input: sorts runs oldest first (by start,
 * then name) and marks for removal every run but the newest keep ones
 * (keep 0: no limit by count) and every run that started before
 * now - keep_days days (0: no limit by age), never the current one.
 * Returns how many are marked. */
size_t retention_choose(struct retention_run *runs, size_t n, unsigned keep, unsigned keep_days,
			time_t now);

/* Whether name is one `ovlperf run` gives a run of scenario (its name
 * made path-safe as run.c does): "YYYYmmddTHHMMSSZ-<safe>" or "...-<safe>-N"
 * with N from 2 to 99. */
bool retention_name_matches(const char *name, const char *scenario);

/* The scenario's name as one harmless path component ("run" when empty;
 * every byte but letters, digits, '-', '_' and '.' as '_', no leading
 * '.'): the tail of a run directory's name. */
void retention_safe_name(const char *scenario, char *buf, size_t len);

/* Applies the choice under root to the runs of scenario; current is the
 * path of the run just written. Each removal is logged; *removed counts
 * them. 0, or a negative errno when root cannot be read or a run chosen
 * could not be removed (the others still are). */
int retention_prune(const char *root, const char *scenario, const char *current, unsigned keep,
		    unsigned keep_days, unsigned *removed);

#endif
