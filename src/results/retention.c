// SPDX-License-Identifier: MIT
/* Which runs of a results root to remove, and removing them (retention.h). */
#define _GNU_SOURCE /* timegm, strptime */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "log.h"
#include "results.h"
#include "retention.h"

#define SECONDS_PER_DAY 86400
/* "20261203T175500Z": the UTC stamp of a run directory's name */
#define STAMP_LEN 16

static int older_first(const void *pa, const void *pb)
{
	const struct retention_run *a = pa, *b = pb;

	if (a->started != b->started)
		return a->started < b->started ? -1 : 1;
	return strcmp(a->name, b->name);
}

size_t retention_choose(struct retention_run *runs, size_t n, unsigned keep, unsigned keep_days,
			time_t now)
{
	time_t cut = now - (time_t)keep_days * SECONDS_PER_DAY;
	size_t marked = 0;

	if (n > 1)
		qsort(runs, n, sizeof(*runs), older_first);
	for (size_t i = 0; i < n; i++) {
		bool beyond = keep && n - i > keep;
		bool aged = keep_days && runs[i].started < cut;

		runs[i].remove = (beyond || aged) && !runs[i].current;
		marked += runs[i].remove;
	}
	return marked;
}

void retention_safe_name(const char *scenario, char *buf, size_t len)
{
	snprintf(buf, len, "%s", scenario[0] ? scenario : "run");
	for (char *c = buf; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.')
			*c = '_';
	if (buf[0] == '.')
		buf[0] = '_';
}

static bool is_stamp(const char *s)
{
	for (int i = 0; i < STAMP_LEN; i++) {
		bool want_digit = i != 8 && i != 15;

		if (want_digit ? !isdigit((unsigned char)s[i]) : s[i] != (i == 8 ? 'T' : 'Z'))
			return false;
	}
	return true;
}

bool retention_name_matches(const char *name, const char *scenario)
{
	char safe[RESULTS_NAME_MAX];
	const char *tail;
	size_t l;

	if (strlen(name) <= STAMP_LEN + 1 || !is_stamp(name) || name[STAMP_LEN] != '-')
		return false;
	retention_safe_name(scenario, safe, sizeof(safe));
	l = strlen(safe);
	tail = name + STAMP_LEN + 1;
	if (strncmp(tail, safe, l))
		return false;
	tail += l;
	if (!*tail)
		return true;
	/* make_dir's -2 ... -99 when two runs start in one second */
	if (tail[0] != '-' || !isdigit((unsigned char)tail[1]) || tail[1] == '0')
		return false;
	if (!tail[2])
		return tail[1] >= '2';
	return isdigit((unsigned char)tail[2]) && !tail[3];
}

static time_t parse_utc(const char *s)
{
	struct tm tm = { 0 };
	const char *end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);

	return end && !*end ? timegm(&tm) : (time_t)-1;
}

/* root/name as a run of scenario, or false: not a directory (symbolic links
 * are not followed), no readable run.json, another scenario. */
static bool is_run_of(const char *root, const char *name, const char *scenario, time_t *started)
{
	char dir[1024], path[1100], err[256];
	struct results_run run;
	struct stat st;
	bool ok;

	if (!retention_name_matches(name, scenario))
		return false;
	if (snprintf(dir, sizeof(dir), "%s/%s", root, name) >= (int)sizeof(dir) ||
	    lstat(dir, &st) || !S_ISDIR(st.st_mode))
		return false;
	snprintf(path, sizeof(path), "%s/run.json", dir);
	if (lstat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	if (results_read_json(path, &run, err, sizeof(err))) {
		log_info("%s: %s: not a run this ovlperf wrote, left alone", path, err);
		return false;
	}
	*started = parse_utc(run.started_utc);
	ok = !strcmp(run.scenario_name, scenario) && *started != (time_t)-1;
	results_free(&run);
	return ok;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) && errno != ENOENT) {
		int err = -errno;

		log_err("could not remove %s: %s", path, strerror(-err));
		return err;
	}
	return 0;
}

/* The runs of scenario under root into *out (n of them). */
static int scan(const char *root, const char *scenario, const char *current,
		struct retention_run **out, size_t *n)
{
	const char *cur = strrchr(current, '/') ? strrchr(current, '/') + 1 : current;
	DIR *d = opendir(root);
	struct dirent *e;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		struct retention_run *q;
		time_t started;

		if (!is_run_of(root, e->d_name, scenario, &started))
			continue;
		q = realloc(*out, (*n + 1) * sizeof(*q));
		if (!q) {
			rc = -ENOMEM;
			break;
		}
		*out = q;
		q = &q[(*n)++];
		memset(q, 0, sizeof(*q));
		snprintf(q->name, sizeof(q->name), "%s", e->d_name);
		q->started = started;
		q->current = !strcmp(e->d_name, cur);
	}
	closedir(d);
	return rc;
}

int retention_prune(const char *root, const char *scenario, const char *current, unsigned keep,
		    unsigned keep_days, unsigned *removed)
{
	struct retention_run *runs;
	size_t n;
	int rc = scan(root, scenario, current, &runs, &n);

	*removed = 0;
	if (rc) {
		log_err("%s: %s: nothing removed", root, strerror(-rc));
		free(runs);
		return rc;
	}
	retention_choose(runs, n, keep, keep_days, time(NULL));
	for (size_t i = 0; i < n; i++) {
		char path[1100];
		int err;

		if (!runs[i].remove)
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, runs[i].name);
		/* depth first, no symbolic link followed, no other file system */
		err = nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
		if (err) {
			rc = err < 0 ? -errno : err;
			log_err("%s: could not be removed whole", path);
			continue;
		}
		log_info("removed %s (retention)", path);
		(*removed)++;
	}
	free(runs);
	return rc;
}
