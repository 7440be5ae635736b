// SPDX-License-Identifier: MIT
/*
 * The suite's orchestration against simulated paths (no sockets, no lab):
 * run_scenario() on a two-host scenario whose loads go to a fake runner that
 * models an underlay of 1 Gbit/s and a VPN of 250 Mbit/s. Checks the trial
 * plan (interleaving, repetitions, phases), that the knee search lands on
 * the simulated knees, the overhead ratios, the common delay load, run.json
 * on disk, and how the run stops: interrupted, a path that fails, a path
 * that never answers; the progress events the run hands its caller, their
 * rendering, and the plan (run_plan_build) with its trial counts.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "clock.h"
#include "interrupt.h"
#include "knee.h"
#include "report_suite.h"
#include "results.h"
#include "run.h"
#include "run_fixture.h"
#include "run_int.h"
#include "scenario.h"

#define UNDERLAY_BPS 1000000000.0
#define VPN_BPS	     250000000.0

static const char scenario_text[] =
	"[scenario]\nname = sim\nrepetitions = 2\nduration = 1s\n\n"
	"[host.far]\naddress = 192.0.2.10\n\n"
	"[path.underlay]\ntype = underlay\n\n"
	"[path.vpn]\ntype = external\naddress = 203.0.113.10\n\n"
	"[tcp]\nstreams = 1,4\n\n[udp]\nsizes = 1400\n\n"
	"[knee]\nmax_rate = 2G\nwidth_goal = 1\nshort = 1s\nfinal = 5s\n";

/* Every phase's trial count is known without a knee search: 1 repetition,
 * TCP 1 stream, a 2-point sweep, delay at the [udp] rate; 2 trials each per
 * point on the two paths. */
static const char small_text[] = "[scenario]\nname = small\nrepetitions = 1\nduration = 1s\n\n"
				 "[host.far]\naddress = 192.0.2.10\n\n"
				 "[path.underlay]\ntype = underlay\n\n"
				 "[path.vpn]\ntype = external\naddress = 203.0.113.10\n\n"
				 "[tcp]\nstreams = 1\n\n[udp]\nsizes = 1400\nrate = 20M\n\n"
				 "[sweep]\nfrom = 50M\nto = 100M\nstep = 50M\n";

struct call {
	bool vpn;
	enum load_proto proto;
	unsigned streams;
	uint64_t rate;
	uint64_t duration_ns;
};

struct sim {
	unsigned ncalls;
	struct call calls[512];
	unsigned interrupt_at; /* raise the interrupt at this call (0: never) */
	bool vpn_fails_after_warmup;
	bool vpn_never_answers;
	bool vpn_blackhole;   /* answers on the control connection, delivers nothing */
	uint64_t vpn_udp_max; /* the vpn's server refuses UDP above this (0: none) */
	unsigned refused;     /* trials it refused */
};

static int sim_run(void *arg, const struct load_spec *spec, struct load_result *res,
		   const struct load_hooks *hooks)
{
	struct sim *s = arg;
	bool vpn = !strcmp(spec->host, "203.0.113.10");
	double cap = vpn ? VPN_BPS : UNDERLAY_BPS, dur = (double)spec->duration_ns / 1e9;
	struct call *c = &s->calls[s->ncalls < 512 ? s->ncalls : 511];

	(void)hooks;
	memset(res, 0, sizeof(*res));
	res->spec = *spec;
	*c = (struct call){ vpn, spec->proto, spec->streams, spec->rate_bps, spec->duration_ns };
	s->ncalls++;
	if (s->interrupt_at && s->ncalls == s->interrupt_at) {
		interrupt_raise();
		snprintf(res->error, sizeof(res->error), "interrupted");
		return -EINTR;
	}
	if (s->ncalls > 400) {
		/* a search that never ends: stop it so that the test fails, not hangs */
		interrupt_raise();
		return -EINTR;
	}
	if (vpn && s->vpn_udp_max && spec->proto == LOAD_UDP && spec->rate_bps > s->vpn_udp_max) {
		s->refused++;
		snprintf(res->error, sizeof(res->error),
			 "the server refuses rates above its limit");
		return -EPERM;
	}
	if (vpn && (s->vpn_never_answers || (s->vpn_fails_after_warmup && s->ncalls > 2))) {
		snprintf(res->error, sizeof(res->error), "cannot connect to %.64s: refused",
			 spec->host);
		return -ECONNREFUSED;
	}
	res->duration_s = dur;
	res->cpu_sender.sys_s = dur * (vpn ? 0.4 : 0.2);
	if (spec->proto == LOAD_TCP) {
		res->tcp.goodput_bps = (uint64_t)(cap * (vpn ? 0.9 : 0.95));
		res->tcp.bytes = (uint64_t)((double)res->tcp.goodput_bps * dur / 8);
		res->tcp.sender.snd_mss = vpn ? 1368 : 1448;
		res->sender_cpu_s_per_gbit = vpn ? 2.0 : 0.5;
	} else {
		struct udp_result *u = &res->udp;
		double off = (double)spec->rate_bps, rx = off < cap ? off : cap;

		if (vpn && s->vpn_blackhole)
			rx = 0;
		double bits = spec->len * 8.0;

		u->len = spec->len;
		u->target_bps = spec->rate_bps;
		u->achieved_bps = spec->rate_bps;
		u->sent = (uint64_t)(off * dur / bits);
		u->received = (uint64_t)(rx * dur / bits);
		u->lost = u->sent - u->received;
		u->received_bps = (uint64_t)rx;
		u->sent_pps = (uint64_t)(off / bits);
		u->received_pps = (uint64_t)(rx / bits);
		u->owd.valid = true;
		u->owd.p50_ns = vpn ? 300000 : 100000;
		u->owd.p99_ns = u->owd.p50_ns * (off > cap ? 50 : 2);
		u->loss_at.network = u->lost;
	}
	return 0;
}

static void parse_scenario(const char *text, struct scenario *scn)
{
	char err[1024];

	if (scenario_parse("sim.ini", text, strlen(text), scn, err, sizeof(err)))
		fail_msg("scenario: %s", err);
}

static void load_scenario(struct scenario *scn)
{
	parse_scenario(scenario_text, scn);
}

static int run_sim(struct sim *s, struct results_run *res, char *dir, size_t dirlen, char *tmpl)
{
	static struct scenario scn;
	struct run_options opt = { .runner = sim_run, .runner_arg = s, .no_gap = true };

	load_scenario(&scn);
	assert_non_null(mkdtemp(tmpl));
	opt.results_root = tmpl;
	return run_scenario(&scn, scenario_text, &opt, res, dir, dirlen);
}

static void rm_rf(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The delay phase: two rounds (50 % then 90 % of the lowest NDR), each on
 * both paths, interleaved per repetition as the other phases are. */
static void check_delay_loads(const struct results_run *res)
{
	unsigned n = 0;

	for (size_t i = 0; i < res->ntrials; i++) {
		const struct results_trial *t = &res->trials[i];
		double want_pct = n < 4 ? 50 : 90;

		if (t->kind != RESULTS_TRIAL_DELAY) {
			assert_true(t->load_pct == 0);
			continue;
		}
		assert_true(t->load_pct == want_pct);
		assert_int_equal(t->path, n % 2);
		assert_int_equal(t->rep, (n / 2) % 2);
		if ((double)t->target_bps > VPN_BPS * want_pct / 100 ||
		    (double)t->target_bps < VPN_BPS * want_pct / 100 * 0.99)
			fail_msg("delay trial at %llu bit/s for %g %%",
				 (unsigned long long)t->target_bps, want_pct);
		n++;
	}
	assert_int_equal(n, 8);
}

static void test_plan_and_figures(void **state)
{
	static struct sim s;
	struct results_run res, back;
	char dir[1024], tmpl[] = "/tmp/test_run_plan_XXXXXX", path[1100], err[256];
	unsigned tcp = 0, knee_alternations = 0;

	(void)state;
	assert_int_equal(run_sim(&s, &res, dir, sizeof(dir), tmpl), 0);
	assert_true(res.complete);
	assert_int_equal(res.npaths, 2);
	assert_string_equal(res.paths[1].addr, "203.0.113.10");
	/* Two warm-up tests (one per path) come first and are not recorded. */
	assert_int_equal(s.ncalls, res.ntrials + 2);
	assert_true(s.calls[0].proto == LOAD_UDP && !s.calls[0].vpn && s.calls[1].vpn);
	/* TCP: 2 reps x streams 1,4 x 2 paths, interleaved A,B,A,B. */
	for (size_t i = 0; i < res.ntrials; i++) {
		const struct results_trial *t = &res.trials[i];

		if (t->kind != RESULTS_TRIAL_TCP)
			continue;
		assert_int_equal(t->path, tcp % 2);
		assert_int_equal(t->streams, (tcp / 2) % 2 ? 4 : 1);
		assert_int_equal(t->rep, tcp / 4);
		tcp++;
	}
	assert_int_equal(tcp, 8);
	/* Knee trials of the two paths alternate while both searches run. */
	for (size_t i = 1; i < res.ntrials; i++)
		if (res.trials[i].kind == RESULTS_TRIAL_KNEE &&
		    res.trials[i - 1].kind == RESULTS_TRIAL_KNEE &&
		    res.trials[i].path != res.trials[i - 1].path)
			knee_alternations++;
	assert_true(knee_alternations >= 10);
	/* Two searches per path (repetitions), each on its simulated knee. */
	assert_int_equal(res.nknees, 4);
	for (size_t i = 0; i < res.nknees; i++) {
		const struct results_knee *k = &res.knees[i];
		double cap = k->path ? VPN_BPS : UNDERLAY_BPS;

		assert_true(k->found && k->pdr_found);
		assert_string_equal(k->ndr_outcome, "found");
		if ((double)k->ndr_lower_bps > cap || (double)k->ndr_lower_bps < cap * 0.99)
			fail_msg("path %u NDR %llu, knee at %.0f", k->path,
				 (unsigned long long)k->ndr_lower_bps, cap);
		assert_true((double)k->ndr_upper_bps > cap);
		assert_true(k->loss_at.network > 0); /* attributed where the sim lost it */
		assert_true(k->trials > 2 && k->trials <= 60);
	}
	/* The common loads: half and 90 % of the slower path's NDR, on both
	 * paths, each trial recording its share. */
	assert_true((double)res.delay_load_bps <= VPN_BPS / 2 &&
		    (double)res.delay_load_bps >= VPN_BPS / 2 * 0.99);
	check_delay_loads(&res);
	snprintf(path, sizeof(path), "%s/run.json", dir);
	assert_int_equal(results_read_json(path, &back, err, sizeof(err)), 0);
	assert_true(back.complete);
	assert_int_equal(back.ntrials, res.ntrials);
	{
		struct results_summary sum;
		const struct results_knee_point *kp;
		const struct results_delay_point *dp;

		assert_int_equal(results_aggregate(&back, &sum), 0);
		kp = results_find_knee(&sum, 1, 1400);
		assert_int_equal(kp->ndr_bps.n, 2);
		dp = results_find_delay(&sum, 1, 1400, back.delay_load_bps);
		assert_int_equal(dp->p50_ms.n, 2);
		assert_true(dp->p50_ms.median > 0.2999 && dp->p50_ms.median < 0.3001);
		assert_true(dp->load_pct == 50);
		/* two loads x two paths; run.json kept each trial's share */
		assert_int_equal(sum.ndelay, 4);
		assert_true(sum.delay[1].load_pct == 90 && sum.delay[3].load_pct == 90);
		results_summary_free(&sum);
	}
	results_free(&back);
	results_free(&res);
	rm_rf(tmpl);
}

/* Runs the simulation in a child (the interrupt flag cannot be cleared) and
 * returns what run_scenario returned there, as an exit code. */
static void test_interrupted(void **state)
{
	char tmpl[] = "/tmp/test_run_plan_XXXXXX";
	pid_t pid;
	int st;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		static struct sim s = { .interrupt_at = 9 };
		static struct scenario scn;
		struct run_options opt = {
			.runner = sim_run, .runner_arg = &s, .no_gap = true, .out_dir = tmpl
		};
		struct results_run res;
		char dir[1024];
		int rc;

		load_scenario(&scn);
		rc = run_scenario(&scn, scenario_text, &opt, &res, dir, sizeof(dir));
		/* 7 measured trials (calls 3..8), the interrupted one recorded failed */
		_exit(rc == -EINTR && !res.complete && res.ntrials == 7 &&
				      res.trials[6].status == -EINTR &&
				      strstr(res.stop_reason, "interrupted")
			      ? 0
			      : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	{
		struct results_run back;
		char path[128], err[256];

		snprintf(path, sizeof(path), "%s/run.json", tmpl);
		assert_int_equal(results_read_json(path, &back, err, sizeof(err)), 0);
		assert_false(back.complete);
		assert_int_equal(back.ntrials, 7);
		assert_non_null(strstr(back.stop_reason, "interrupted"));
		results_free(&back);
	}
	rm_rf(tmpl);
}

static void test_path_fails(void **state)
{
	static struct sim s = { .vpn_fails_after_warmup = true };
	struct results_run res;
	char dir[1024], tmpl[] = "/tmp/test_run_plan_XXXXXX";

	(void)state;
	assert_int_equal(run_sim(&s, &res, dir, sizeof(dir), tmpl), -EHOSTUNREACH);
	assert_false(res.complete);
	assert_non_null(strstr(res.stop_reason, "path vpn: 2 trials in a row failed"));
	/* A,B(fail),A,B(fail): the second failure stops the run. */
	assert_int_equal(res.ntrials, 4);
	assert_int_equal(res.trials[0].status, 0);
	assert_int_equal(res.trials[3].status, -ECONNREFUSED);
	assert_non_null(strstr(res.trials[3].error, "refused"));
	results_free(&res);
	rm_rf(tmpl);
}

static void test_path_never_answers(void **state)
{
	static struct sim s = { .vpn_never_answers = true };
	struct results_run res;
	char dir[1024], tmpl[] = "/tmp/test_run_plan_XXXXXX";

	(void)state;
	assert_int_equal(run_sim(&s, &res, dir, sizeof(dir), tmpl), -EHOSTUNREACH);
	assert_false(res.complete);
	assert_non_null(strstr(res.stop_reason, "path vpn: no test gets through to 203.0.113.10"));
	assert_int_equal(res.ntrials, 0);
	assert_int_equal(s.ncalls, 1 + 3); /* underlay warm-up, 3 attempts on vpn */
	results_free(&res);
	rm_rf(tmpl);
}

static void test_path_blackholed(void **state)
{
	static struct sim s = { .vpn_blackhole = true };
	struct results_run res;
	char dir[1024], tmpl[] = "/tmp/test_run_plan_XXXXXX";

	(void)state;
	assert_int_equal(run_sim(&s, &res, dir, sizeof(dir), tmpl), -EHOSTUNREACH);
	assert_non_null(strstr(res.stop_reason, "the server answers but none of"));
	assert_int_equal(res.ntrials, 0);
	results_free(&res);
	rm_rf(tmpl);
}

/* A knee trial that keeps failing (here the vpn's server refuses the search's
 * maximum rate) is tried once more, then that path's search stops with the
 * reason in run.json; the run goes on. */
static void test_knee_trial_keeps_failing(void **state)
{
	static struct sim s = { .vpn_udp_max = 1000000000 };
	struct results_run res;
	char dir[1024], tmpl[] = "/tmp/test_run_plan_XXXXXX";
	const struct results_knee *ul = NULL, *vpn = NULL;

	(void)state;
	assert_int_equal(run_sim(&s, &res, dir, sizeof(dir), tmpl), 0);
	assert_true(res.complete);
	assert_int_equal(s.refused, 2 * 2); /* twice per repetition */
	for (size_t i = 0; i < res.nknees; i++) {
		if (res.knees[i].path == 0 && !ul)
			ul = &res.knees[i];
		if (res.knees[i].path == 1 && !vpn)
			vpn = &res.knees[i];
	}
	assert_non_null(ul);
	assert_non_null(vpn);
	assert_string_equal(ul->stopped, "");
	assert_true(ul->found);
	assert_non_null(strstr(vpn->stopped, "2 trials in a row at 2000.0 Mbit/s"));
	assert_non_null(strstr(vpn->stopped, "Operation not permitted"));
	assert_false(vpn->found);
	results_free(&res);
	/* and run.json says so */
	{
		char path[1100], *text;
		FILE *f;
		long n;

		snprintf(path, sizeof(path), "%s/run.json", dir);
		f = fopen(path, "r");
		assert_non_null(f);
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		rewind(f);
		text = calloc(1, (size_t)n + 1);
		assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
		fclose(f);
		assert_non_null(strstr(text, "\"stopped\":"));
		assert_non_null(strstr(text, "2 trials in a row at 2000.0 Mbit/s"));
		free(text);
	}
	rm_rf(tmpl);
}

/* The plan of the knee scenario: per phase repetitions x paths x variants. */
static void test_plan_counts(void **state)
{
	static struct scenario scn;
	struct run_plan plan;
	struct knee_config cfg;
	uint64_t knee_trials, knee_ns;

	(void)state;
	load_scenario(&scn);
	run_knee_config(&scn, &cfg);
	knee_trials = knee_estimate_trials(&cfg);
	knee_ns = knee_estimate_ns(&cfg);
	assert_true(knee_trials > 0 && knee_ns > 0);
	run_plan_build(&scn, 0, &plan);
	assert_string_equal(plan.name, "sim");
	assert_false(plan.lab);
	assert_int_equal(plan.npaths, 2);
	assert_string_equal(plan.paths[1].name, "vpn");
	assert_string_equal(plan.paths[1].address, "203.0.113.10");
	assert_int_equal(plan.reps, 2);
	assert_true(plan.interleave);
	assert_false(plan.phase[RUN_PHASE_MTU].enabled);
	assert_false(plan.phase[RUN_PHASE_SWEEP].enabled);
	assert_int_equal(plan.phase[RUN_PHASE_SWEEP].trials, 0);
	/* 2 reps x 2 paths x streams 1,4: 8 trials of 1 s */
	assert_int_equal(plan.tcp_nstreams, 2);
	assert_int_equal(plan.phase[RUN_PHASE_TCP].trials, 8);
	assert_int_equal(plan.phase[RUN_PHASE_TCP].time_ns, 8 * NSEC_PER_SEC);
	/* 2 reps x 2 paths x 1 size: 4 searches as the search estimates them */
	assert_int_equal(plan.knee_max_rate_bps, 2000000000);
	assert_int_equal(plan.phase[RUN_PHASE_KNEE].trials, 4 * knee_trials);
	assert_int_equal(plan.phase[RUN_PHASE_KNEE].time_ns, 4 * knee_ns);
	/* and what those 4 never exceed: max_trials and max_time each */
	assert_int_equal(plan.knee_searches, 4);
	assert_int_equal(plan.knee_max_trials, knee_max_trials(&cfg));
	assert_int_equal(plan.knee_max_time_ns, knee_max_time_ns(&cfg)); /* 60 x 5 s */
	assert_true(plan.knee_max_trials >= knee_trials && plan.knee_max_time_ns >= knee_ns);
	/* 2 reps x 2 paths x 1 size x 2 loads (the default delay_loads, 50 %
	 * and 90 % of the NDR; one load before they were a list): 8 of 1 s */
	assert_int_equal(plan.phase[RUN_PHASE_DELAY].trials, 8);
	assert_int_equal(plan.phase[RUN_PHASE_DELAY].time_ns, 8 * NSEC_PER_SEC);
	assert_int_equal(plan.delay_nloads, 2);
	assert_true(plan.delay_loads_pct[0] == 50 && plan.delay_loads_pct[1] == 90);
	assert_int_equal(plan.trials, 8 + 4 * knee_trials + 8);
	assert_int_equal(plan.time_ns, 16 * NSEC_PER_SEC + 4 * knee_ns);
	/* --repetitions overrides the scenario's (delay: 3 x 2 x 2 loads) */
	run_plan_build(&scn, 3, &plan);
	assert_int_equal(plan.reps, 3);
	assert_int_equal(plan.phase[RUN_PHASE_TCP].trials, 12);
	assert_int_equal(plan.trials, 12 + 6 * knee_trials + 12);
	/* three loads: one more round of delay trials per size */
	scn.udp.delay_loads_pct[2] = 75;
	scn.udp.ndelay_loads = 3;
	run_plan_build(&scn, 0, &plan);
	assert_int_equal(plan.phase[RUN_PHASE_DELAY].trials, 12);
	/* 10 trials of 5 s end a search before max_time's 5 minutes */
	scn.knee.max_trials = 10;
	run_plan_build(&scn, 0, &plan);
	assert_int_equal(plan.knee_max_trials, 10);
	assert_int_equal(plan.knee_max_time_ns, 50 * NSEC_PER_SEC);

	parse_scenario(small_text, &scn);
	run_plan_build(&scn, 0, &plan);
	assert_int_equal(plan.sweep_points, 2);
	assert_int_equal(plan.sweep_from_bps, 50000000);
	assert_int_equal(plan.phase[RUN_PHASE_SWEEP].trials, 4);
	assert_false(plan.phase[RUN_PHASE_KNEE].enabled);
	assert_int_equal(plan.trials, 2 + 4 + 2);
	assert_int_equal(plan.time_ns, 8 * NSEC_PER_SEC);
}

/* The kinds of the events of the small scenario, in order, when the vpn
 * refuses its second sweep point (T trial, D done, W warning). */
static const char small_events[] = "P T D T D P T D T D T D T W D P T D T D E";

static char event_letter(enum run_progress_kind k)
{
	switch (k) {
	case RUN_PROGRESS_PHASE:
		return 'P';
	case RUN_PROGRESS_TRIAL:
		return 'T';
	case RUN_PROGRESS_TRIAL_DONE:
		return 'D';
	case RUN_PROGRESS_MTU_DONE:
		return 'M';
	case RUN_PROGRESS_WARNING:
		return 'W';
	case RUN_PROGRESS_END:
		return 'E';
	}
	return '?';
}

static void check_small_events(const struct fixture_events *fe, const struct results_run *res)
{
	static const enum run_phase phases[] = { RUN_PHASE_TCP, RUN_PHASE_SWEEP, RUN_PHASE_DELAY };
	char kinds[2 * FIXTURE_MAX_EVENTS] = "";
	unsigned nphase = 0, ntrial = 0, ndone = 0;
	enum run_phase cur = RUN_PHASE_N;

	assert_int_equal(fe->dropped, 0);
	for (unsigned i = 0; i < fe->n; i++) {
		const struct fixture_event *e = &fe->e[i];

		kinds[2 * i] = event_letter(e->ev.kind);
		kinds[2 * i + 1] = i + 1 < fe->n ? ' ' : '\0';
		assert_int_equal(e->ev.npaths, 2);
		if (e->ev.kind == RUN_PROGRESS_PHASE) {
			assert_true(nphase < 3);
			assert_int_equal(e->ev.phase, phases[nphase++]);
			cur = e->ev.phase;
		} else if (e->ev.kind == RUN_PROGRESS_TRIAL) {
			const struct results_trial *t = &res->trials[ntrial];

			/* numbered 1, 2, ... in the order of run.json, under the
			 * phase announced last, against the plan's 8 trials */
			assert_int_equal(e->ev.trial_no, ++ntrial);
			assert_int_equal(e->ev.trials_planned, 8);
			assert_int_equal(e->ev.phase, cur);
			assert_int_equal(e->ev.trial_kind, t->kind);
			assert_int_equal(e->ev.path, t->path);
			assert_string_equal(e->path_name, t->path ? "vpn" : "underlay");
			assert_int_equal(e->ev.rate_bps, t->target_bps);
			assert_true(e->ev.left_ns >= e->ev.duration_ns);
		} else if (e->ev.kind == RUN_PROGRESS_TRIAL_DONE) {
			assert_int_equal(e->ev.trial_no, ++ndone);
			assert_int_equal(ndone, ntrial);
			assert_true(e->has_trial);
			assert_int_equal(e->trial.seq, ndone);
			assert_int_equal(e->ev.status, res->trials[ndone - 1].status);
		}
	}
	assert_string_equal(kinds, small_events);
	assert_int_equal(ntrial, res->ntrials);
}

/* The progress events of a run: count, order, phases, the trial each
 * announces and reports, the warning of a failed trial. */
static void test_progress_events(void **state)
{
	static struct sim s = { .vpn_udp_max = 80000000 };
	static struct fixture_events fe;
	static struct scenario scn;
	struct run_options opt = { .runner = sim_run,
				   .runner_arg = &s,
				   .no_gap = true,
				   .progress = fixture_progress,
				   .progress_arg = &fe };
	struct results_run res;
	char dir[1024], tmpl[] = "/tmp/test_run_plan_XXXXXX";
	const struct fixture_event *w = NULL;

	(void)state;
	parse_scenario(small_text, &scn);
	assert_non_null(mkdtemp(tmpl));
	opt.results_root = tmpl;
	assert_int_equal(run_scenario(&scn, small_text, &opt, &res, dir, sizeof(dir)), 0);
	assert_int_equal(res.ntrials, 8);
	assert_int_equal(s.refused, 1);
	check_small_events(&fe, &res);
	/* The refused trial: its warning names the path, and it is recorded
	 * failed (the sweep's 100M point on the vpn, trial 6). */
	for (unsigned i = 0; i < fe.n; i++)
		if (fe.e[i].ev.kind == RUN_PROGRESS_WARNING)
			w = &fe.e[i];
	assert_non_null(w);
	assert_string_equal(w->message, "path vpn: trial 6 failed: the server refuses rates "
					"above its limit");
	assert_non_null(w->ev.func);
	assert_int_equal(w[1].ev.kind, RUN_PROGRESS_TRIAL_DONE);
	assert_int_equal(w[1].ev.status, -EPERM);
	assert_int_equal(w[1].trial.status, -EPERM);
	assert_int_equal(fe.e[fe.n - 1].ev.trial_no, 8);
	results_free(&res);
	rm_rf(tmpl);
}

static char *render(void (*fn)(FILE *, const void *), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, arg);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void render_events(FILE *f, const void *arg)
{
	const struct fixture_events *fe = arg;
	struct report_run_progress p;

	report_run_progress_init(&p, f, true);
	assert_false(p.tty);
	for (unsigned i = 0; i < fe->n; i++) {
		struct run_progress ev = fe->e[i].ev;

		ev.path_name = fe->e[i].path_name;
		if (ev.kind != RUN_PROGRESS_WARNING) /* the log's, on stderr */
			report_run_progress(&p, &ev);
	}
}

static void render_plan(FILE *f, const void *arg)
{
	struct run_plan plan;

	run_plan_build(arg, 0, &plan);
	report_run_plan(f, &plan);
}

/* What `ovlperf run --dry-run` shows of the small scenario. */
static void test_plan_rendered(void **state)
{
	static struct scenario scn;
	char *text;

	(void)state;
	parse_scenario(small_text, &scn);
	text = render(render_plan, &scn);
	/* as `ovlperf run --dry-run` prints it: a path without its own address
	 * shows its host's, where its loads go */
	assert_string_equal(
		text, "scenario 'small' (sim.ini): \n"
		      "  path underlay     underlay IPv4 192.0.2.10\n"
		      "  path vpn          external IPv4 203.0.113.10\n"
		      "plan: 1 repetition, paths interleaved\n"
		      "  TCP, 1 stream count                                2 trials  ~2.0s\n"
		      "  UDP linear sweep 50 Mbit/s..100 Mbit/s, 2 points     4 trials  ~4.0s\n"
		      "  UDP one-way delay at a common load                 2 trials  ~2.0s\n"
		      "  total (without setup and gaps)                     8 trials  ~8.0s\n");
	free(text);
	/* the default delay loads, named by their share of the NDR */
	load_scenario(&scn);
	text = render(render_plan, &scn);
	if (!strstr(text, "  UDP one-way delay at 50, 90 % of NDR               8 trials  ~8.0s\n"))
		fail_msg("plan:\n%s", text);
	/* the knee's estimate, and its ceiling on a soft knee */
	if (!strstr(text, "    (a search at most 60 trials and 5m00s, max_trials and max_time: 4 "
			  "searches at most 20m00s)\n"))
		fail_msg("plan:\n%s", text);
	free(text);
}

/* What `ovlperf run` shows of the small scenario's progress: the lines as
 * rendered from its events (not a terminal: one line each). */
static void test_progress_rendered(void **state)
{
	static struct sim s;
	static struct fixture_events fe;
	static struct scenario scn;
	struct run_options opt = { .runner = sim_run,
				   .runner_arg = &s,
				   .no_gap = true,
				   .progress = fixture_progress,
				   .progress_arg = &fe };
	struct results_run res;
	char dir[1024], tmpl[] = "/tmp/test_run_plan_XXXXXX", *text;

	(void)state;
	parse_scenario(small_text, &scn);
	assert_non_null(mkdtemp(tmpl));
	opt.results_root = tmpl;
	assert_int_equal(run_scenario(&scn, small_text, &opt, &res, dir, sizeof(dir)), 0);
	text = render(render_events, &fe);
	assert_string_equal(text,
			    "[1/8] underlay: TCP 1 stream, rep 1, ~10.4s left\n"
			    "[2/8] vpn: TCP 1 stream, rep 1, ~9.1s left\n"
			    "[3/8] underlay: UDP 1400 B @ 50 Mbit/s sweep, rep 1, ~7.8s left\n"
			    "[4/8] vpn: UDP 1400 B @ 50 Mbit/s sweep, rep 1, ~6.5s left\n"
			    "[5/8] underlay: UDP 1400 B @ 100 Mbit/s sweep, rep 1, ~5.2s left\n"
			    "[6/8] vpn: UDP 1400 B @ 100 Mbit/s sweep, rep 1, ~3.9s left\n"
			    "[7/8] underlay: UDP 1400 B @ 20 Mbit/s delay, rep 1, ~2.6s left\n"
			    "[8/8] vpn: UDP 1400 B @ 20 Mbit/s delay, rep 1, ~1.3s left\n");
	free(text);
	results_free(&res);
	rm_rf(tmpl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_and_figures),
		cmocka_unit_test(test_path_fails),
		cmocka_unit_test(test_path_never_answers),
		cmocka_unit_test(test_path_blackholed),
		cmocka_unit_test(test_knee_trial_keeps_failing),
		cmocka_unit_test(test_plan_counts),
		cmocka_unit_test(test_progress_events),
		cmocka_unit_test(test_plan_rendered),
		cmocka_unit_test(test_progress_rendered),
		cmocka_unit_test(test_interrupted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
