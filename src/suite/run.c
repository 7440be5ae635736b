// SPDX-License-Identifier: MIT
/*
 * run_scenario(): the suite's top level. Creates the results directory,
 * brings the paths up, runs the trial plan from the client's namespace, and
 * whatever happened (completion, Ctrl-C, a dead host) tears down what it
 * created and writes what it measured.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "clock.h"
#include "interrupt.h"
#include "log.h"
#include "retention.h"
#include "run_int.h"

static int mkdir_p(const char *dir)
{
	char tmp[1024];

	if (snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* results/<UTC>-<name>, with -2, -3 ... when two runs start in one second. */
static int make_dir(struct run *r, const char *name)
{
	const char *root = r->opt->results_root ? r->opt->results_root : RUN_DEFAULT_RESULTS;
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32], safe[RESULTS_NAME_MAX];
	int err;

	if (r->opt->out_dir) {
		if (snprintf(r->dir, sizeof(r->dir), "%s", r->opt->out_dir) >= (int)sizeof(r->dir))
			return -ENAMETOOLONG;
		return mkdir_p(r->dir);
	}
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	/* The name becomes part of a path: keep it to one harmless component
	 * (the name retention recognises a run by). */
	retention_safe_name(name, safe, sizeof(safe));
	name = safe;
	err = mkdir_p(root);
	if (err)
		return err;
	for (unsigned i = 1; i < 100; i++) {
		int n = i == 1 ? snprintf(r->dir, sizeof(r->dir), "%s/%s-%s", root, stamp, name)
			       : snprintf(r->dir, sizeof(r->dir), "%s/%s-%s-%u", root, stamp, name,
					  i);

		if (n >= (int)sizeof(r->dir))
			return -ENAMETOOLONG;
		if (mkdir(r->dir, 0755) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* --out DIR names a directory exactly: one that holds a run already (its
 * run.json) is the user's results and is not overwritten unless forced. */
static int out_dir_free(struct run *r)
{
	char path[1100];
	struct stat st;

	if (!r->opt->out_dir || r->opt->force)
		return 0;
	if (snprintf(path, sizeof(path), "%s/run.json", r->opt->out_dir) >= (int)sizeof(path))
		return 0; /* make_dir says the name is too long */
	if (stat(path, &st) < 0)
		return 0;
	run_stop(r, -EEXIST,
		 "%s already holds a run (run.json); nothing was touched: give another --out "
		 "directory, or --force to overwrite it",
		 r->opt->out_dir);
	return -EEXIST;
}

/* What must hold before anything is created: the results directory is free
 * and the lab's name is not someone else's. */
static int may_start(struct run *r)
{
	int err = out_dir_free(r);

	if (!err && r->scn->is_lab)
		err = run_paths_claim_lab(r);
	if (err)
		snprintf(r->res->stop_reason, sizeof(r->res->stop_reason), "%s", r->stop_reason);
	return err;
}

/* The scenario's path types are the run model's path kinds, value for value. */
_Static_assert((int)SCN_PATH_UNDERLAY == (int)RESULTS_PATH_UNDERLAY &&
		       (int)SCN_PATH_BUILTIN == (int)RESULTS_PATH_BUILTIN &&
		       (int)SCN_PATH_EXTERNAL == (int)RESULTS_PATH_EXTERNAL,
	       "path kinds");

static void init_model(struct run *r, const struct scenario *scn, const char *text)
{
	struct results_run *res = r->res;
	time_t now = time(NULL);
	struct tm tm;

	results_init(res);
	results_fill_host(res);
	gmtime_r(&now, &tm);
	strftime(res->started_utc, sizeof(res->started_utc), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(res->scenario_name, sizeof(res->scenario_name), "%s", scn->name);
	snprintf(res->scenario_file, sizeof(res->scenario_file), "%s", scn->file);
	res->scenario_text = text ? strdup(text) : NULL;
	res->pdr_goal_pct = scn->knee.enabled ? scn->knee.loss_goal * 100.0 : 0.5;
	snprintf(res->stop_reason, sizeof(res->stop_reason), "running");
	res->size_layer = scn->udp.size_layer;
	res->sweep_rate_layer = scn->sweep.rate_layer;
	res->knee_rate_layer = scn->knee.rate_layer;
	for (unsigned i = 0; i < scn->lab.nlinks && !res->line_rate_bps; i++)
		if (scn->lab.links[i].rate_layer == LAYER_LINE)
			res->line_rate_bps = scn->lab.links[i].rate_bps;
	for (unsigned i = 0; i < scn->npaths; i++) {
		int k = results_add_path(res, scn->paths[i].name,
					 (enum results_path_kind)scn->paths[i].type, "", 0);

		if (k >= 0)
			res->paths[k].family = scn->paths[i].family;
	}
}

int run_scenario(const struct scenario *scn, const char *text, const struct run_options *opt,
		 struct results_run *res, char *dir, size_t dirlen)
{
	struct run *r = calloc(1, sizeof(*r));
	int err, json_err;

	results_init(res);
	if (dirlen)
		dir[0] = '\0';
	if (!r)
		return -ENOMEM;
	r->scn = scn;
	r->opt = opt;
	r->res = res;
	r->t0 = clock_now_ns();
	r->reps = opt->repetitions ? opt->repetitions : scn->repetitions;
	if (!r->reps)
		r->reps = SCN_DEFAULT_REPETITIONS;
	init_model(r, scn, text);
	err = may_start(r);
	if (err) {
		free(r);
		return err;
	}
	err = make_dir(r, scn->name);
	if (err) {
		log_err("cannot create the results directory under %s: %s",
			opt->results_root ? opt->results_root : RUN_DEFAULT_RESULTS,
			strerror(-err));
		if (opt->unwritten && opt->unwritten_len)
			snprintf(opt->unwritten, opt->unwritten_len, "the results directory");
		free(r);
		return err;
	}
	snprintf(dir, dirlen, "%s", r->dir);
	run_save(r);
	err = run_paths_up(r);
	if (interrupt_requested())
		run_stop(r, -EINTR, "interrupted by signal %d while setting up",
			 interrupt_signal());
	else if (err)
		run_stop(r, err, "setting up the paths failed: %s", strerror(-err));
	if (!r->stop) {
		err = run_paths_enter(r);
		if (err)
			run_stop(r, err, "cannot enter the client host: %s", strerror(-err));
		else {
			/* the gaps between trials from here: the paths' set-up
			 * (a VPN starting) is not the machine at rest */
			hostfacts_idle_init(&r->idle, NULL);
			run_trials(r);
			if (!r->stop && opt->confirm)
				run_confirm(r);
			hostfacts_idle_destroy(&r->idle);
		}
		run_paths_leave(r);
	}
	run_paths_down(r);
	res->complete = r->stop == 0;
	snprintf(res->stop_reason, sizeof(res->stop_reason), "%s", r->stop ? r->stop_reason : "");
	/* The last save is the one that counts: an earlier one that failed
	 * (a disk full for a while) was overwritten by it. */
	json_err = run_save(r);
	err = r->stop;
	if (err == -EINTR || interrupt_requested())
		err = -EINTR;
	if (json_err) {
		log_err("could not write in %s: run.json", r->dir);
		if (opt->unwritten && opt->unwritten_len)
			snprintf(opt->unwritten, opt->unwritten_len, "run.json");
		if (!err)
			err = -EIO;
	}
	free(r);
	return err;
}
