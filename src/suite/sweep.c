// SPDX-License-Identifier: MIT
/*
 * UDP offered-load sweeps (see sweep.h): each trial is one load_run() at a
 * target rate, summarised into a struct sweep_point. The knee search decides
 * the rates of a knee sweep and the knee driver (knee_drive.c) runs its
 * loop; this file only runs each trial it asks for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "interrupt.h"
#include "knee_drive.h"
#include "load.h"
#include "log.h"
#include "sweep.h"

#define DEFAULT_GAP_NS (500 * NSEC_PER_MSEC)

void sweep_spec_defaults(struct sweep_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	load_spec_defaults(&spec->load);
	spec->load.proto = LOAD_UDP;
	spec->load.len = LOAD_UDP_DEFAULT_LEN;
	spec->load.streams = 1;
	spec->mode = SWEEP_LINEAR;
	spec->from_bps = 100000000ULL;
	spec->to_bps = 1000000000ULL;
	spec->step_bps = 100000000ULL;
	spec->trial_ns = 5 * NSEC_PER_SEC;
	knee_config_defaults(&spec->knee);
	spec->gap_ns = DEFAULT_GAP_NS;
}

unsigned sweep_linear_count(uint64_t from, uint64_t to, uint64_t step)
{
	uint64_t n;

	if (!step || !from || from > to)
		return 0;
	n = (to - from) / step + 1;
	return n > SWEEP_MAX_POINTS + 1ULL ? SWEEP_MAX_POINTS + 1 : (unsigned)n;
}

int sweep_spec_check(const struct sweep_spec *spec, char *err, size_t errlen)
{
	uint32_t len = spec->load.len ? spec->load.len : LOAD_UDP_DEFAULT_LEN;
	const char *why = NULL;

	if (len < LOAD_UDP_SHORT_MIN_LEN || len > LOAD_UDP_MAX_LEN)
		why = "the datagram size must be 16..65507 bytes";
	else if (!spec->load.streams || spec->load.streams > LOAD_MAX_STREAMS)
		why = "the number of streams must be 1..128";
	else if (spec->mode == SWEEP_LINEAR) {
		unsigned n = sweep_linear_count(spec->from_bps, spec->to_bps, spec->step_bps);

		if (!spec->from_bps || !spec->step_bps)
			why = "a linear sweep needs from > 0 and step > 0";
		else if (spec->from_bps > spec->to_bps)
			why = "a linear sweep needs from <= to";
		else if (n > SWEEP_MAX_POINTS)
			why = "a linear sweep is limited to 512 trials: raise the step";
		else if (!spec->trial_ns)
			why = "the trial duration must be above 0";
	} else if (spec->mode == SWEEP_KNEE) {
		struct knee *k = malloc(sizeof(*k));

		if (!k)
			return -ENOMEM;
		if (knee_init(k, &spec->knee))
			why = "knee search: need max rate > min rate, 0 <= loss goal < 100 %, "
			      "0 < width goal < 50 %, 0 < short <= final trial duration, "
			      "short <= max time";
		free(k);
	} else {
		why = "unknown sweep mode";
	}
	if (why) {
		if (err && errlen)
			snprintf(err, errlen, "%s", why);
		return -EINVAL;
	}
	return 0;
}

void sweep_point_from_result(const struct load_result *res, struct sweep_point *pt)
{
	const struct udp_result *u = &res->udp;

	memset(pt, 0, sizeof(*pt));
	pt->target_bps = res->spec.rate_bps;
	pt->duration_ns = res->spec.duration_ns;
	pt->duration_s = res->duration_s;
	pt->achieved_bps = u->achieved_bps;
	pt->received_bps = u->received_bps;
	pt->arrival_bps = u->arrival_bps;
	pt->queue_growth_ms = u->queue_growth_ms;
	pt->sent_pps = u->sent_pps;
	pt->received_pps = u->received_pps;
	pt->sent = u->sent;
	pt->received = u->received;
	pt->lost = u->lost;
	if (u->sent) {
		uint64_t rx = u->received < u->sent ? u->received : u->sent;

		pt->delivered_pct = 100.0 * (double)rx / (double)u->sent;
		pt->loss_ratio = (double)(u->sent - rx) / (double)u->sent;
	} else {
		pt->loss_ratio = 0;
	}
	/* nothing sent at all is never a measurement of the path */
	pt->generator_limited = u->generator_limited || !u->sent;
	pt->loss_at = u->loss_at;
	pt->outer = u->outer;
	pt->owd = u->owd;
	pt->rx_wait = u->rx_wait;
	pt->jitter_ms = u->jitter_ms;
	pt->cpu_sender = res->cpu_sender;
	pt->cpu_receiver = res->cpu_receiver;
	pt->sched_client = res->sched_client;
	pt->sched_server = res->sched_server;
}

void sweep_point_to_knee(const struct sweep_point *pt, struct knee_measurement *m)
{
	*m = (struct knee_measurement){ .offered_bps = pt->target_bps,
					.achieved_bps = pt->achieved_bps,
					.received_bps = pt->received_bps,
					.arrival_bps = pt->arrival_bps,
					.loss_ratio = pt->loss_ratio,
					.generator_limited = pt->generator_limited,
					.duration_ns = (uint64_t)(pt->duration_s * 1e9) };
}

int sweep_trial(const struct sweep_spec *spec, uint64_t rate_bps, uint64_t duration_ns,
		struct sweep_point *pt)
{
	struct load_spec ls = spec->load;
	struct load_result res;
	int rc;

	ls.proto = LOAD_UDP;
	if (!ls.len)
		ls.len = LOAD_UDP_DEFAULT_LEN;
	ls.rate_bps = rate_bps;
	ls.duration_ns = duration_ns;
	ls.interval_ns = 0;
	memset(&res, 0, sizeof(res));
	res.spec = ls;
	rc = spec->runner ? spec->runner(spec->runner_arg, &ls, &res) : load_run(&ls, &res);
	sweep_point_from_result(&res, pt);
	pt->target_bps = rate_bps;
	pt->duration_ns = duration_ns;
	pt->rc = rc;
	if (rc < 0)
		snprintf(pt->error, sizeof(pt->error), "%s",
			 res.error[0] ? res.error : strerror(-rc));
	load_result_free(&res);
	return rc;
}

static int add_point(struct sweep_result *res, const struct sweep_point *pt)
{
	struct sweep_point *np;

	if (res->npoints >= SWEEP_MAX_POINTS)
		return -ENOSPC;
	np = realloc(res->points, (res->npoints + 1) * sizeof(*np));
	if (!np)
		return -ENOMEM;
	res->points = np;
	res->points[res->npoints++] = *pt;
	return 0;
}

/* Lets queues drain between trials; returns false when interrupted. */
static bool pause_between(uint64_t gap_ns)
{
	uint64_t until = clock_now_ns() + gap_ns;

	while (!interrupt_requested() && clock_now_ns() < until)
		clock_sleep_until_ns(until);
	return !interrupt_requested();
}

static void progress(const struct sweep_spec *spec, const struct sweep_result *res, unsigned trial,
		     unsigned total, uint64_t rate, uint64_t dur, uint64_t left, uint64_t t0,
		     enum knee_phase phase)
{
	struct sweep_progress p = { .trial = trial,
				    .total = total < trial ? trial : total,
				    .label = spec->label,
				    .len = res->len,
				    .rate_bps = rate,
				    .duration_ns = dur,
				    .elapsed_ns = clock_now_ns() - t0,
				    .left_ns = left < dur ? dur : left,
				    .mode = spec->mode,
				    .phase = phase };

	if (spec->progress)
		spec->progress(spec->progress_arg, &p);
}

/* A linear point's payload rate: the rate at the spec's layer, as whole
 * datagrams a second (layer_rate(); checked when the options were). */
static uint64_t point_rate(const struct sweep_spec *spec, uint64_t bps)
{
	uint64_t pps, payload_bps;
	char why[160];

	if (spec->rate_layer == LAYER_PAYLOAD ||
	    layer_rate(spec->rate_layer, spec->load.family,
		       spec->load.len ? spec->load.len : LOAD_UDP_DEFAULT_LEN, bps, &pps,
		       &payload_bps, why, sizeof(why)) < 0)
		return bps;
	return payload_bps;
}

static int run_linear(const struct sweep_spec *spec, struct sweep_result *res, uint64_t t0)
{
	unsigned n = sweep_linear_count(spec->from_bps, spec->to_bps, spec->step_bps);

	for (unsigned i = 0; i < n; i++) {
		uint64_t rate = point_rate(spec, spec->from_bps + (uint64_t)i * spec->step_bps);
		uint64_t left = (uint64_t)(n - i) * (spec->trial_ns + spec->gap_ns);
		struct sweep_point pt;
		uint64_t start;
		int rc;

		if (i && !pause_between(spec->gap_ns))
			return -EINTR;
		progress(spec, res, i + 1, n, rate, spec->trial_ns, left, t0, 0);
		start = clock_now_ns() - t0;
		rc = sweep_trial(spec, rate, spec->trial_ns, &pt);
		pt.start_ns = start;
		if (rc == -EINTR || interrupt_requested())
			return -EINTR;
		if ((rc = add_point(res, &pt)) < 0)
			return rc;
		if (pt.rc < 0) {
			log_warn("%s: trial at %llu bit/s failed: %s", spec->label,
				 (unsigned long long)rate, pt.error);
			if (spec->stop_on_error) {
				snprintf(res->error, sizeof(res->error), "%s", pt.error);
				return pt.rc;
			}
		}
	}
	return 0;
}

/* A knee search's trials through the knee driver (knee_drive.h): the
 * driver repeats a trial that failed once and bounds the tries; this runs
 * each try and keeps its point. */
struct knee_sweep {
	const struct sweep_spec *spec;
	struct sweep_result *res;
	uint64_t t0;
	unsigned est;	       /* trials the search estimates */
	uint64_t est_ns;       /* and their time */
	struct sweep_point pt; /* the last try's */
};

static int knee_try(void *arg, const struct knee_drive_try *t, struct knee_measurement *m,
		    uint64_t *wall_ns)
{
	struct knee_sweep *ks = arg;
	const struct sweep_spec *spec = ks->spec;
	uint64_t spent = t->trial_ns + (uint64_t)(t->trial_no - 1) * spec->gap_ns, start;
	int rc;

	if (t->tries && !pause_between(spec->gap_ns))
		return -EINTR;
	if (!t->again)
		progress(spec, ks->res, t->trial_no, ks->est, t->trial.rate_bps,
			 t->trial.duration_ns, ks->est_ns > spent ? ks->est_ns - spent : 0, ks->t0,
			 t->trial.phase);
	start = clock_now_ns() - ks->t0;
	rc = sweep_trial(spec, t->trial.rate_bps, t->trial.duration_ns, &ks->pt);
	ks->pt.start_ns = start;
	*wall_ns = clock_now_ns() - ks->t0 - start; /* the pause before it is not the trial's */
	if (rc == -EINTR || interrupt_requested())
		return -EINTR;
	if (rc < 0) {
		log_warn("%s: trial at %llu bit/s failed: %s%s", spec->label,
			 (unsigned long long)t->trial.rate_bps, ks->pt.error,
			 t->again ? "" : "; retrying");
		return rc;
	}
	sweep_point_to_knee(&ks->pt, m);
	ks->pt.phase = t->trial.phase;
	return 0;
}

/* Why a knee sweep ended, as sweep_run() returns it. */
static int knee_end(const struct knee_drive *d, const struct knee_sweep *ks,
		    struct sweep_result *res)
{
	switch (d->end) {
	case KNEE_DRIVE_FAILED:
		/* the failed trial's own sentence, as a linear sweep gives it */
		snprintf(res->error, sizeof(res->error), "%s",
			 ks->pt.rc < 0 ? ks->pt.error : d->stopped);
		return d->rc;
	case KNEE_DRIVE_ATTEMPTS:
	case KNEE_DRIVE_TIME:
		snprintf(res->error, sizeof(res->error), "%s", d->stopped);
		return d->rc;
	case KNEE_DRIVE_STOPPED:
		return d->rc < 0 ? d->rc : -EINTR;
	default:
		return 0;
	}
}

static int run_knee(const struct sweep_spec *spec, struct sweep_result *res, uint64_t t0)
{
	struct knee_drive *d = malloc(sizeof(*d));
	struct knee_sweep ks = { .spec = spec,
				 .res = res,
				 .t0 = t0,
				 .est = knee_estimate_trials(&spec->knee),
				 .est_ns = knee_estimate_ns(&spec->knee) };
	enum knee_drive_step step;
	int rc = 0;

	if (!d)
		return -ENOMEM;
	if (knee_drive_init(d, &spec->knee, knee_try, &ks)) {
		free(d);
		return -EINVAL;
	}
	res->has_knee = true;
	while ((step = knee_drive_step(d)) != KNEE_DRIVE_END) {
		unsigned n;

		if (step != KNEE_DRIVE_COUNTED)
			continue;
		ks.pt.verdict = knee_trials(&d->k, &n)[n - 1].verdict;
		if ((rc = add_point(res, &ks.pt)) < 0) {
			knee_drive_abandon(d);
			break;
		}
	}
	if (!rc)
		rc = knee_end(d, &ks, res);
	knee_get_result(&d->k, &res->knee);
	free(d);
	return rc;
}

int sweep_run(const struct sweep_spec *spec, struct sweep_result *res)
{
	uint64_t t0 = clock_now_ns();
	int rc;

	memset(res, 0, sizeof(res[0]));
	res->mode = spec->mode;
	snprintf(res->label, sizeof(res->label), "%s", spec->label);
	res->len = spec->load.len ? spec->load.len : LOAD_UDP_DEFAULT_LEN;
	res->family = spec->load.family;
	snprintf(res->host, sizeof(res->host), "%s", spec->load.host);
	res->trial_ns = spec->mode == SWEEP_KNEE ? spec->knee.short_ns : spec->trial_ns;
	res->knee_cfg = spec->knee;
	rc = sweep_spec_check(spec, res->error, sizeof(res->error));
	if (rc < 0) {
		res->rc = rc;
		return rc;
	}
	rc = spec->mode == SWEEP_KNEE ? run_knee(spec, res, t0) : run_linear(spec, res, t0);
	res->elapsed_ns = clock_now_ns() - t0;
	if (rc == -EINTR) {
		res->interrupted = true;
		snprintf(res->error, sizeof(res->error), "interrupted");
	} else if (rc < 0 && !res->error[0]) {
		snprintf(res->error, sizeof(res->error), "%s", strerror(-rc));
	}
	res->rc = rc;
	return rc;
}

void sweep_result_free(struct sweep_result *res)
{
	free(res->points);
	res->points = NULL;
	res->npoints = 0;
}
