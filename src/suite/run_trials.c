// SPDX-License-Identifier: MIT
/*
 * The trial plan of a run. Identical loads on every path, interleaved
 * (A, B, A, B ...) unless the scenario says interleave = no, so that drift of
 * the machine over the run never favours one path:
 *   1. TCP goodput, per repetition and stream count;
 *   2. linear UDP sweeps, per repetition, size and offered rate;
 *   3. knee searches (knee.h), one search per path, size and repetition, the
 *      paths' searches advancing trial by trial side by side;
 *   4. one-way delay at common loads (by default 50 % and 90 % of the
 *      slowest path's NDR, or the scenario's [udp] rate), per repetition,
 *      size and load.
 * Every trial is one load_run() from the client's namespace, recorded in the
 * run model at once and saved to run.json.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "interrupt.h"
#include "knee.h"
#include "knee_drive.h"
#include "load.h"
#include "log.h"
#include "run_int.h"
#include "sweep.h"

struct trial_req {
	unsigned path, rep;
	enum results_trial_kind kind;
	unsigned streams;
	uint32_t len;
	uint64_t rate_bps, duration_ns;
	double load_pct;   /* delay trials: percent of the lowest NDR; 0: none */
	const char *phase; /* knee phase name for the progress line, or NULL */
};

static int run_load(struct run *r, const struct load_spec *spec, struct load_result *lr,
		    const struct load_hooks *hooks)
{
	int rc = r->opt->runner ? r->opt->runner(r->opt->runner_arg, spec, lr, hooks)
				: load_run_hooks(spec, lr, hooks);

	if (r->opt->trial_result)
		r->opt->trial_result(r->opt->trial_result_arg, lr, rc);
	return rc;
}

static unsigned udp_nsizes(const struct scenario *scn)
{
	return scn->udp.nsizes ? scn->udp.nsizes : 1;
}

static uint64_t dur_or(uint64_t a, uint64_t b)
{
	return a ? a : b;
}

static uint64_t sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static enum run_phase phase_of(enum results_trial_kind kind)
{
	switch (kind) {
	case RESULTS_TRIAL_TCP:
		return RUN_PHASE_TCP;
	case RESULTS_TRIAL_SWEEP:
		return RUN_PHASE_SWEEP;
	case RESULTS_TRIAL_KNEE:
		return RUN_PHASE_KNEE;
	default:
		return RUN_PHASE_DELAY;
	}
}

/* The event of a trial that starts (TRIAL) or ended (TRIAL_DONE), with the
 * time still ahead: the plan's trial time plus the measured per-trial cost
 * beyond a trial's duration (300 ms until one was measured) for each trial
 * still to run. */
static void trial_event(struct run *r, const struct trial_req *q, struct run_progress *ev)
{
	uint64_t avg = r->overhead_n ? r->overhead_ns / r->overhead_n : 300 * NSEC_PER_MSEC;
	unsigned total = r->trials_planned > r->trial_no ? r->trials_planned : r->trial_no;
	unsigned ahead = total - r->trial_no + (ev->kind == RUN_PROGRESS_TRIAL);

	ev->phase = phase_of(q->kind);
	ev->path = q->path;
	ev->path_name = r->paths[q->path].sp->name;
	ev->trial_no = r->trial_no;
	ev->trials_planned = total;
	ev->left_ns = r->time_planned_ns + (uint64_t)ahead * avg;
	ev->trial_kind = q->kind;
	ev->rep = q->rep;
	ev->streams = q->streams;
	ev->len = q->len;
	ev->rate_bps = q->rate_bps;
	ev->duration_ns = q->duration_ns;
	ev->knee_phase = q->phase;
	run_event(r, ev);
}

static void account(struct run *r, const struct run_path *p, int rc, uint64_t wall_ns,
		    uint64_t dur_ns)
{
	r->time_planned_ns = sat_sub(r->time_planned_ns, dur_ns);
	if (wall_ns > dur_ns) {
		r->overhead_ns += wall_ns - dur_ns;
		r->overhead_n++;
	}
	if (interrupt_requested()) {
		run_stop(r, -EINTR, "interrupted by signal %d", interrupt_signal());
		return;
	}
	if (rc < 0 && run_paths_check(r) == 0 && p->failures >= RUN_MAX_PATH_FAILURES)
		run_stop(r, -EHOSTUNREACH, "path %s: %u trials in a row failed, the last: %s",
			 p->sp->name, p->failures, strerror(-rc));
}

/* The load a trial asks for, as the scenario and the path say. */
static void trial_spec(const struct run *r, const struct trial_req *q, struct load_spec *spec)
{
	const struct run_path *p = &r->paths[q->path];

	load_spec_defaults(spec);
	spec->proto = q->kind == RESULTS_TRIAL_TCP ? LOAD_TCP : LOAD_UDP;
	snprintf(spec->host, sizeof(spec->host), "%s", p->addr);
	spec->port = p->port;
	spec->cport = p->cport;
	spec->family = p->sp->family;
	spec->streams = q->streams;
	spec->duration_ns = q->duration_ns;
	spec->omit_ns = r->scn->omit_ns;
	spec->rate_bps = q->rate_bps;
	spec->len = q->len;
	spec->fit_judged = true; /* run_size_checks() said it once per path */
	snprintf(spec->psk_file, sizeof(spec->psk_file), "%s", p->psk_file);
	if (spec->proto == LOAD_TCP) {
		spec->mss = r->scn->tcp.mss;
		spec->reverse = r->scn->tcp.reverse;
	}
}

int run_tcp_once(struct run *r, unsigned path, unsigned streams, uint32_t sock_buf,
		 const char *congestion, struct load_result *lr)
{
	const struct trial_req q = { .path = path,
				     .kind = RESULTS_TRIAL_TCP,
				     .streams = streams,
				     .len = r->scn->tcp.len,
				     .duration_ns =
					     dur_or(r->scn->tcp.duration_ns, r->scn->duration_ns) };
	struct load_spec spec;

	trial_spec(r, &q, &spec);
	if (sock_buf)
		spec.sock_buf = sock_buf;
	if (congestion)
		snprintf(spec.congestion, sizeof(spec.congestion), "%s", congestion);
	memset(lr, 0, sizeof(*lr));
	return run_load(r, &spec, lr, NULL);
}

/* A machine whose other work moved during a trial by more than the
 * test's own share (hostfacts.h): its whole-machine CPU figures carry that
 * work. Said once a path. */
static void warn_moved(struct run *r, struct run_path *p, const struct results_trial *t)
{
	const struct hostfacts *f[2] = { &t->facts_client, &t->facts_server };
	static const char *const end[2] = { "client", "server" };

	for (int i = 0; i < 2 && !p->moved_warned; i++) {
		if (!f[i]->known || !f[i]->rest_moved)
			continue;
		p->moved_warned = true;
		run_warn(r,
			 "path %s: trial %u: the %s host's machine was %.2f cores busy, %.2f "
			 "at rest before it: the rest of the machine moved by more than the "
			 "test's own share, and its whole-machine CPU figures carry that work",
			 p->sp->name, r->trial_no, end[i], f[i]->machine_cores,
			 f[i]->baseline_cores);
	}
}

/* Runs one trial and records it; *idx receives its index in res->trials and
 * km (if not NULL) the knee measurement it stands for. Returns load_run's
 * result, or -ENOMEM when the trial could not be recorded. */
static int do_trial(struct run *r, const struct trial_req *q, struct knee_measurement *km,
		    size_t *idx, uint64_t *wall)
{
	struct run_path *p = &r->paths[q->path];
	struct load_spec spec;
	struct load_result lr;
	struct results_trial *t;
	struct load_hooks hooks = { .idle = &r->idle };

	struct run_cpu *cpu = NULL;
	uint64_t start;
	int rc;

	trial_spec(r, q, &spec);
	r->trial_no++;
	trial_event(r, q, &(struct run_progress){ .kind = RUN_PROGRESS_TRIAL });
	memset(&lr, 0, sizeof(lr));
	/* an overlay between hosts: its process may hold a UDP socket
	 * connected to the far host's underlay address */
	if (!r->scn->is_lab && p->sp->type != SCN_PATH_UNDERLAY)
		hooks.far_addr = r->scn->hosts[p->sp->host].address;
	cpu = run_cpu_begin(r, p, &hooks);
	if (cpu) /* interval reports bracket the measured window for run_cpu */
		spec.interval_ns = q->duration_ns / 5 ? q->duration_ns / 5 : q->duration_ns;
	start = clock_now_ns();
	rc = run_load(r, &spec, &lr, &hooks);
	*wall = clock_now_ns() - start;
	t = results_add_trial(r->res);
	if (t) {
		t->path = q->path;
		t->rep = q->rep;
		t->kind = q->kind;
		t->streams = q->streams;
		t->len = q->len;
		t->target_bps = q->rate_bps;
		t->load_pct = q->load_pct;
		t->start_s = (double)(start - r->t0) / 1e9;
		results_trial_from_load(t, &lr);
		results_trial_network_where(r->res, t);
		t->status = rc < 0 ? rc : 0;
		if (rc < 0 && !t->error[0])
			snprintf(t->error, sizeof(t->error), "%s", strerror(-rc));
		*idx = r->res->ntrials - 1;
	}
	run_cpu_end(cpu, lr.duration_s, t);
	if (km && spec.proto == LOAD_UDP) {
		struct sweep_point pt;

		sweep_point_from_result(&lr, &pt);
		sweep_point_to_knee(&pt, km);
	}
	load_result_free(&lr);
	/* the knee driver bounds a search's failed trials: they end that
	 * path's search, not the run */
	if (q->kind != RESULTS_TRIAL_KNEE || rc >= 0 || rc == -EINTR)
		p->failures = rc < 0 ? p->failures + 1 : 0;
	if (rc < 0 && rc != -EINTR)
		run_warn(r, "path %s: trial %u failed: %s", p->sp->name, r->trial_no,
			 t && t->error[0] ? t->error : strerror(-rc));
	if (t)
		warn_moved(r, p, t);
	account(r, p, rc, *wall, q->duration_ns);
	trial_event(r, q,
		    &(struct run_progress){ .kind = RUN_PROGRESS_TRIAL_DONE,
					    .status = rc < 0 ? rc : 0,
					    .trial = t });
	run_save(r);
	if (!r->stop && !r->opt->no_gap)
		clock_sleep_until_ns(clock_now_ns() + RUN_TRIAL_GAP_MS * NSEC_PER_MSEC);
	if (!t)
		return -ENOMEM;
	return rc;
}

static int simple(struct run *r, struct trial_req *q)
{
	size_t idx;
	uint64_t wall;

	return do_trial(r, q, NULL, &idx, &wall);
}

/* Runs the same request on every path (interleaved) or path by path. */
static void tcp_phase(struct run *r)
{
	const struct scenario *scn = r->scn;
	struct trial_req q = { .kind = RESULTS_TRIAL_TCP,
			       .len = scn->tcp.len,
			       .duration_ns = dur_or(scn->tcp.duration_ns, scn->duration_ns) };
	unsigned per_path = r->reps * scn->tcp.nstreams;

	for (unsigned i = 0; i < per_path * r->npaths && !r->stop; i++) {
		unsigned k = scn->interleave ? i / r->npaths : i % per_path;

		q.path = scn->interleave ? i % r->npaths : i / per_path;
		q.rep = k / scn->tcp.nstreams;
		q.streams = scn->tcp.streams[k % scn->tcp.nstreams];
		simple(r, &q);
	}
}

static void sweep_phase(struct run *r)
{
	const struct scenario *scn = r->scn;
	const struct scenario_sweep *sw = &scn->sweep;
	unsigned npoints = sweep_linear_count(sw->from_bps, sw->to_bps, sw->step_bps);
	unsigned nsizes = udp_nsizes(scn);
	unsigned per_path = r->reps * nsizes * npoints;
	struct trial_req q = { .kind = RESULTS_TRIAL_SWEEP,
			       .streams = 1,
			       .duration_ns = dur_or(sw->duration_ns, dur_or(scn->udp.duration_ns,
									     scn->duration_ns)) };

	for (unsigned i = 0; i < per_path * r->npaths && !r->stop; i++) {
		unsigned k = scn->interleave ? i / r->npaths : i % per_path;

		q.path = scn->interleave ? i % r->npaths : i / per_path;
		q.rep = k / (nsizes * npoints);
		q.len = run_udp_size(r, (k / npoints) % nsizes);
		/* each point at the layer the file counts, then in payload */
		q.rate_bps = scenario_rate_payload(
			scn, sw->rate_layer, sw->from_bps + (uint64_t)(k % npoints) * sw->step_bps,
			q.len);
		simple(r, &q);
	}
}

/* One knee search of one path, run by the knee driver (knee_drive.h: it
 * repeats a trial that could not be counted once and bounds the tries),
 * with the run-trial index of each record. */
struct knee_run {
	struct knee_drive d;
	struct run *r;
	unsigned path, rep;
	uint32_t len;
	size_t map[KNEE_MAX_TRIALS];
	unsigned nmap;
	size_t idx; /* the last try's index in the run's trials */
	uint64_t wall_ns;
};

static void knee_bound(const struct knee_bound *b, bool *found, uint64_t *lo, uint64_t *hi,
		       char *outcome, size_t len)
{
	*found = b->outcome != KNEE_UNFINISHED && b->lower_valid;
	*lo = b->lower_valid ? b->lower_bps : 0;
	*hi = b->upper_valid ? b->upper_bps : 0;
	snprintf(outcome, len, "%s", knee_outcome_name(b->outcome));
}

static void knee_store(struct run *r, unsigned path, uint32_t len, unsigned rep,
		       const struct knee_run *kr, const struct knee_config *cfg)
{
	struct results_knee *k = results_add_knee(r->res);
	struct knee_result res;
	const struct knee_bound *ndr;

	if (!k)
		return;
	knee_get_result(&kr->d.k, &res);
	ndr = &res.bound[KNEE_NDR];
	k->path = path;
	k->len = len;
	k->rep = rep;
	knee_bound(ndr, &k->found, &k->ndr_lower_bps, &k->ndr_upper_bps, k->ndr_outcome,
		   sizeof(k->ndr_outcome));
	knee_bound(&res.bound[KNEE_PDR], &k->pdr_found, &k->pdr_lower_bps, &k->pdr_upper_bps,
		   k->pdr_outcome, sizeof(k->pdr_outcome));
	k->ndr_lower_achieved_bps = ndr->lower_achieved_bps;
	k->pdr_lower_achieved_bps = res.bound[KNEE_PDR].lower_achieved_bps;
	k->pdr_goal_pct = cfg->loss_goal * 100.0;
	k->width_goal = cfg->width_goal;
	k->exceed_ratio = ndr->goal.exceed_ratio;
	k->final_s = (double)ndr->goal.final_ns / 1e9;
	k->duration_sum_s = (double)ndr->goal.duration_sum_ns / 1e9;
	k->ndr_ct_bps = ndr->conditional_throughput_bps;
	k->pdr_ct_bps = res.bound[KNEE_PDR].conditional_throughput_bps;
	k->ndr_lower_trials = ndr->lower_ntrials;
	k->loads = res.nloads;
	k->max_rx_bps = res.mrr_bps;
	snprintf(k->cut_by, sizeof(k->cut_by), "%s", kr->d.cut_by ? kr->d.cut_by : "");
	if (kr->d.stopped[0] || !kr->d.cut_by)
		snprintf(k->stopped, sizeof(k->stopped), "%s", kr->d.stopped);
	else
		snprintf(k->stopped, sizeof(k->stopped), "%u trials run (%s)", res.ntrials,
			 kr->d.cut_by);
	k->trials = res.ntrials;
	k->fit_trials = res.nfit;
	k->stalls = res.nstalls;
	k->time_s = (double)kr->wall_ns / 1e9;
	/* Where the loss went at the lowest rate that lost: the NDR's upper bound. */
	if (ndr->upper_trial >= 0 && (unsigned)ndr->upper_trial < kr->nmap) {
		const struct results_trial *t = &r->res->trials[kr->map[ndr->upper_trial]];

		k->loss_at = t->udp.loss_at;
		k->loss_at_bps = t->target_bps;
	}
}

/* One try of a path's knee trial, for the knee driver: a trial of the
 * run, recorded in run.json like any other. A trial that failed because
 * the run stops stops the search. */
static int knee_try(void *arg, const struct knee_drive_try *t, struct knee_measurement *m,
		    uint64_t *wall_ns)
{
	struct knee_run *kr = arg;
	struct trial_req q = { .path = kr->path,
			       .rep = kr->rep,
			       .kind = RESULTS_TRIAL_KNEE,
			       .streams = 1,
			       .len = kr->len,
			       .rate_bps = t->trial.rate_bps,
			       .duration_ns = t->trial.duration_ns,
			       .phase = knee_phase_name(t->trial.phase) };
	uint64_t wall = 0;
	int rc = do_trial(kr->r, &q, m, &kr->idx, &wall);

	kr->wall_ns += wall;
	*wall_ns = wall; /* the gap after it is not the search's */
	return rc < 0 && kr->r->stop ? -ECANCELED : rc;
}

/* Advances path p's search by one try; false when it is done. */
static bool knee_step(struct run *r, struct knee_run *kr)
{
	switch (knee_drive_step(&kr->d)) {
	case KNEE_DRIVE_COUNTED:
		if (kr->nmap < KNEE_MAX_TRIALS)
			kr->map[kr->nmap++] = kr->idx;
		return true;
	case KNEE_DRIVE_AGAIN:
		return true;
	case KNEE_DRIVE_END:
		break;
	}
	if (kr->d.end == KNEE_DRIVE_FAILED)
		run_warn(r, "path %s: knee search stopped: %s", r->paths[kr->path].sp->name,
			 kr->d.stopped);
	return false;
}

static void knee_round(struct run *r, struct knee_run *kr, unsigned rep, uint32_t len,
		       const struct knee_config *cfg)
{
	unsigned est = knee_estimate_trials(cfg);
	uint64_t est_ns = knee_estimate_ns(cfg);

	for (unsigned p = 0; p < r->npaths; p++) {
		memset(&kr[p], 0, sizeof(kr[p]));
		knee_drive_init(&kr[p].d, cfg, knee_try, &kr[p]);
		kr[p].r = r;
		kr[p].path = p;
		kr[p].rep = rep;
		kr[p].len = len;
	}
	for (bool any = true; any && !r->stop;) {
		any = false;
		for (unsigned p = 0; p < r->npaths && !r->stop; p++) {
			bool more;

			do
				more = knee_step(r, &kr[p]);
			while (more && !r->scn->interleave && !r->stop);
			any |= more;
		}
	}
	for (unsigned p = 0; p < r->npaths; p++) {
		unsigned n;

		knee_drive_abandon(&kr[p].d);
		knee_store(r, p, len, rep, &kr[p], cfg);
		/* Give back what the estimate planned beyond the trials it took. */
		n = r->res->knees[r->res->nknees - 1].trials;
		if (n < est && r->trials_planned >= est - n)
			r->trials_planned -= est - n;
		if (kr[p].wall_ns < est_ns)
			r->time_planned_ns = sat_sub(r->time_planned_ns, est_ns - kr[p].wall_ns);
	}
	run_save(r);
}

static void knee_phase(struct run *r)
{
	struct knee_config cfg;
	struct knee_run *kr;
	struct knee probe;

	run_knee_config(r->scn, &cfg);
	if (knee_init(&probe, &cfg)) {
		run_stop(r, -EINVAL,
			 "%s:%u: [knee] settings the search refuses (max_rate, "
			 "goals, durations)",
			 r->scn->file, r->scn->knee.line);
		return;
	}
	kr = calloc(r->npaths, sizeof(*kr));
	if (!kr) {
		run_stop(r, -ENOMEM, "out of memory");
		return;
	}
	for (unsigned s = 0; s < udp_nsizes(r->scn) && !r->stop; s++) {
		uint32_t len = run_udp_size(r, s);
		struct knee_config c = cfg;

		/* the search runs in payload units: its bounds converted per size */
		c.min_rate_bps = scenario_rate_payload(r->scn, r->scn->knee.rate_layer,
						       cfg.min_rate_bps, len);
		c.max_rate_bps = scenario_rate_payload(r->scn, r->scn->knee.rate_layer,
						       cfg.max_rate_bps, len);
		for (unsigned rep = 0; rep < r->reps && !r->stop; rep++)
			knee_round(r, kr, rep, len, &c);
	}
	free(kr);
}

/* The delay trials at one load: every path, every repetition. */
static void delay_load(struct run *r, struct trial_req *q)
{
	const struct scenario *scn = r->scn;

	for (unsigned i = 0; i < r->reps * r->npaths && !r->stop; i++) {
		unsigned k = scn->interleave ? i / r->npaths : i % r->reps;

		q->path = scn->interleave ? i % r->npaths : i / r->reps;
		q->rep = k;
		simple(r, q);
	}
}

/* Common loads are shares of a found knee; a basis that some path's search
 * left a lower bound of (its sender ran out, or it passed at max_rate) may
 * not be below that path's knee, and the run says so. */
static void warn_lower_basis(struct run *r, uint32_t len, uint64_t basis)
{
	const struct results_run *res = r->res;

	for (size_t i = 0; i < res->nknees; i++) {
		const struct results_knee *k = &res->knees[i];

		if (k->len != len || !results_knee_is_lower_bound(k->ndr_outcome))
			continue;
		run_warn(r,
			 "UDP %u B: the delay trials' loads are shares of %.0f bit/s, and path "
			 "%s's NDR is only a lower bound (%s): they may not be below its knee",
			 len, (double)basis, res->paths[k->path].name, k->ndr_outcome);
		return;
	}
}

/* One-way delay at each common load: the scenario's [udp] rate, else each
 * [udp] delay_loads fraction of the slowest path's NDR. Half the NDR alone
 * hides the queue a path builds near its knee; a load near it shows it. */
static void delay_phase(struct run *r)
{
	const struct scenario *scn = r->scn;
	unsigned nloads = scn->udp.rate_bps ? 1 : scn->udp.ndelay_loads;
	struct trial_req q = { .kind = RESULTS_TRIAL_DELAY,
			       .streams = 1,
			       .duration_ns = dur_or(scn->udp.duration_ns, scn->duration_ns) };

	for (unsigned s = 0; s < udp_nsizes(scn) && !r->stop; s++) {
		uint64_t basis;

		q.len = run_udp_size(r, s);
		basis = scn->udp.rate_bps ? scenario_rate_payload(scn, scn->udp.rate_layer,
								  scn->udp.rate_bps, q.len)
					  : results_delay_basis(r->res, q.len);
		if (!basis) {
			log_info("UDP %u B: no NDR/PDR and no [udp] rate: no delay trials", q.len);
			r->trials_planned =
				sat_sub(r->trials_planned, r->reps * r->npaths * nloads);
			continue;
		}
		if (!scn->udp.rate_bps)
			warn_lower_basis(r, q.len, basis);
		for (unsigned l = 0; l < nloads && !r->stop; l++) {
			q.load_pct = scn->udp.rate_bps ? 0 : scn->udp.delay_loads_pct[l];
			q.rate_bps =
				q.load_pct ? (uint64_t)((double)basis * q.load_pct / 100) : basis;
			if (!q.rate_bps) /* 0 would ask for an unpaced sender */
				q.rate_bps = 1;
			if (l == 0)
				r->res->delay_load_bps = q.rate_bps;
			delay_load(r, &q);
		}
	}
}

/* How many trials and how much trial time the plan holds (knee searches by
 * the search's own estimate), for the progress events. */
static void plan(struct run *r)
{
	struct run_plan p;

	run_plan_build(r->scn, r->reps, &p);
	r->trials_planned = (unsigned)p.trials;
	r->time_planned_ns = p.time_ns;
}

/* A short, slow UDP test on each path before the plan: it proves that the
 * far server answers and that datagrams arrive (a dead VPN or a black-holed
 * path stops the run here with a clear reason, not mid-way), and warms
 * neighbour caches and tunnel sessions so the first measured trial is not
 * the slow one. Not recorded. */
static int warm_once(struct run *r, unsigned p, char *why, size_t len)
{
	struct load_spec spec;
	struct load_result lr;
	int rc;

	load_spec_defaults(&spec);
	spec.proto = LOAD_UDP;
	snprintf(spec.host, sizeof(spec.host), "%s", r->paths[p].addr);
	spec.port = r->paths[p].port;
	spec.cport = r->paths[p].cport;
	spec.family = r->paths[p].sp->family;
	spec.duration_ns = 200 * NSEC_PER_MSEC;
	spec.rate_bps = 10000000;
	spec.len = 512; /* fits any path an IP network must carry */
	snprintf(spec.psk_file, sizeof(spec.psk_file), "%s", r->paths[p].psk_file);
	memset(&lr, 0, sizeof(lr));
	rc = run_load(r, &spec, &lr, NULL);
	if (rc)
		snprintf(why, len, "%s", lr.error[0] ? lr.error : strerror(-rc));
	else if (!lr.udp.received) {
		snprintf(why, len, "the server answers but none of %llu datagrams arrived",
			 (unsigned long long)lr.udp.sent);
		rc = -EHOSTUNREACH;
	}
	load_result_free(&lr);
	return rc;
}

static void warm_up(struct run *r)
{
	char why[RESULTS_TEXT_MAX] = "";

	for (unsigned p = 0; p < r->npaths && !r->stop; p++) {
		int rc = -EIO;

		for (unsigned attempt = 0; attempt < 3 && rc && !interrupt_requested(); attempt++) {
			rc = warm_once(r, p, why, sizeof(why));
			if (rc && !interrupt_requested())
				log_info("path %s: warm-up attempt %u: %s", r->paths[p].sp->name,
					 attempt + 1, why);
		}
		if (interrupt_requested())
			run_stop(r, -EINTR, "interrupted by signal %d", interrupt_signal());
		else if (rc && run_paths_check(r) == 0) /* a path that went down says so */
			run_stop(r, -EHOSTUNREACH,
				 "path %s: no test gets through to %s port %u: %s",
				 r->paths[p].sp->name, r->paths[p].addr, r->paths[p].port, why);
		else
			run_paths_check(r);
	}
}

static void phase_start(struct run *r, enum run_phase ph)
{
	run_event(r, &(struct run_progress){ .kind = RUN_PROGRESS_PHASE,
					     .phase = ph,
					     .trials_planned = r->trials_planned });
}

int run_trials(struct run *r)
{
	const struct scenario *scn = r->scn;

	plan(r);
	warm_up(r);
	if (scn->mtu.enabled && !r->stop) {
		phase_start(r, RUN_PHASE_MTU);
		run_mtu_checks(r);
	}
	if (!r->stop)
		run_size_checks(r);
	if (scn->tcp.enabled && !r->stop) {
		phase_start(r, RUN_PHASE_TCP);
		tcp_phase(r);
	}
	if (scn->sweep.enabled && !r->stop) {
		phase_start(r, RUN_PHASE_SWEEP);
		sweep_phase(r);
	}
	if (scn->knee.enabled && !r->stop) {
		phase_start(r, RUN_PHASE_KNEE);
		knee_phase(r);
	}
	if (scn->udp.enabled && !r->stop) {
		phase_start(r, RUN_PHASE_DELAY);
		delay_phase(r);
	}
	run_event(r, &(struct run_progress){ .kind = RUN_PROGRESS_END,
					     .trial_no = r->trial_no,
					     .trials_planned = r->trials_planned });
	return r->stop;
}
