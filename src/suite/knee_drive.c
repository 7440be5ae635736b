// SPDX-License-Identifier: MIT
/*
 * The knee driver (knee_drive.h): the search loop, its repeat of a trial
 * that could not be counted, and the bounds on tries, for every caller.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "knee_drive.h"

int knee_drive_init(struct knee_drive *d, const struct knee_config *cfg, knee_drive_runner_fn run,
		    void *arg)
{
	memset(d, 0, sizeof(*d));
	d->run = run;
	d->arg = arg;
	return knee_init(&d->k, cfg);
}

/* The search ends for why (abandoned unless it is done). */
static enum knee_drive_step finish(struct knee_drive *d, enum knee_drive_end why)
{
	if (why != KNEE_DRIVE_DONE)
		knee_abandon(&d->k);
	d->end = why;
	return KNEE_DRIVE_END;
}

/* A try that could not be counted: asked again once, the second in a row
 * ends the search. run_rc is what the runner returned, rc why the try was
 * not counted (the runner's error or knee_record()'s). */
static enum knee_drive_step uncounted(struct knee_drive *d, const struct knee_trial *t, int run_rc,
				      int rc)
{
	d->rc = rc;
	if (++d->uncounted < KNEE_DRIVE_MAX_UNCOUNTED)
		return KNEE_DRIVE_AGAIN;
	snprintf(d->stopped, sizeof(d->stopped),
		 "%u trials in a row at %.1f Mbit/s could not be counted, the last: %s",
		 d->uncounted, (double)t->rate_bps / 1e6,
		 run_rc < 0 ? strerror(-run_rc) : "it measured nothing the search accepts");
	return finish(d, KNEE_DRIVE_FAILED);
}

/* Whether the next try, of duration ns, would end beyond max_time: its
 * duration plus the longest setup of the tries so far. */
static bool out_of_time(const struct knee_drive *d, uint64_t ns)
{
	return d->spent_ns + ns + d->setup_max_ns > d->k.cfg.max_time_ns;
}

enum knee_drive_step knee_drive_step(struct knee_drive *d)
{
	struct knee_drive_try t = { 0 };
	struct knee_measurement m;
	unsigned counted = d->k.b.ntrials;
	uint64_t wall = 0;
	int rc;

	if (d->end)
		return KNEE_DRIVE_END;
	if (!knee_next(&d->k, &t.trial)) {
		/* the search's own end at max_trials counted trials cut it short */
		if (counted >= d->k.cfg.max_trials)
			d->cut_by = "max_trials";
		return finish(d, KNEE_DRIVE_DONE);
	}
	if (d->tries >= d->k.cfg.max_trials) {
		d->cut_by = "max_trials";
		snprintf(d->stopped, sizeof(d->stopped),
			 "%u trials run (max_trials), %u of them could not be counted", d->tries,
			 d->tries - counted);
		return finish(d, KNEE_DRIVE_ATTEMPTS);
	}
	if (d->tries && out_of_time(d, t.trial.duration_ns)) {
		d->cut_by = "max_time";
		snprintf(d->stopped, sizeof(d->stopped),
			 "%.1f s of trials (max_time %.1f s): the next, of %.1f s, would end "
			 "beyond it",
			 (double)d->spent_ns / 1e9, (double)d->k.cfg.max_time_ns / 1e9,
			 (double)t.trial.duration_ns / 1e9);
		return finish(d, KNEE_DRIVE_TIME);
	}
	t.trial_no = counted + 1;
	t.again = d->uncounted;
	t.tries = d->tries++;
	t.trial_ns = d->k.b.trial_ns;
	memset(&m, 0, sizeof(m));
	rc = d->run(d->arg, &t, &m, &wall);
	d->spent_ns += wall;
	if (wall > t.trial.duration_ns && wall - t.trial.duration_ns > d->setup_max_ns)
		d->setup_max_ns = wall - t.trial.duration_ns;
	if (rc == -EINTR || rc == -ECANCELED) {
		d->rc = rc;
		return finish(d, KNEE_DRIVE_STOPPED);
	}
	if (rc < 0)
		return uncounted(d, &t.trial, rc, rc);
	m.offered_bps = t.trial.rate_bps;
	if ((rc = knee_record(&d->k, &m)) < 0)
		return uncounted(d, &t.trial, 0, rc);
	d->uncounted = 0;
	return KNEE_DRIVE_COUNTED;
}

enum knee_drive_end knee_drive_run(struct knee_drive *d)
{
	while (knee_drive_step(d) != KNEE_DRIVE_END)
		;
	return d->end;
}

void knee_drive_abandon(struct knee_drive *d)
{
	if (!d->end)
		finish(d, KNEE_DRIVE_STOPPED);
}
