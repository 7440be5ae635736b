// SPDX-License-Identifier: MIT
/* A knee over repetitions in the run model (results_aggregate.c) and its
 * printers' sentences: how repeatable the NDR is (its spread, the trials
 * that disagreed and where they lost, a soft band) and where a soft knee
 * lies, fitted from all its trials; run.json keeps what they need. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "loss_place.h"
#include "report_run.h"
#include "results.h"

/* Repetition rep's knee of a 1200-byte search on path 0 that found ndr_bps
 * (what the sender achieved too), with a 1 % width. */
static struct results_knee *add_knee(struct results_run *run, unsigned rep, uint64_t ndr_bps)
{
	struct results_knee *k = results_add_knee(run);

	assert_non_null(k);
	k->len = 1200;
	k->rep = rep;
	k->found = true;
	k->ndr_lower_bps = k->ndr_lower_achieved_bps = ndr_bps;
	k->width_goal = 0.01;
	snprintf(k->ndr_outcome, sizeof(k->ndr_outcome), "found");
	return k;
}

/* The NDR's spread over repetitions (72, 108, 131 Mbit/s: the field's
 * wireguard-go) and the trials that disagreed: lossy trials at loads no
 * higher than the highest NDR, with where they lost; a trial above every
 * NDR is not one of them. The printers' sentence names the place. */
static void test_knee_spread(void **state)
{
	static const double ndr[] = { 72e6, 108e6, 131e6 };
	static const struct {
		double rate;
		uint64_t lost, other;
	} trials[] = { { 100e6, 0, 0 },
		       { 110e6, 0, 0 },
		       { 120e6, 40, 40 },
		       { 125e6, 10, 8 },
		       { 140e6, 900, 0 } };
	struct results_run run;
	struct results_summary sum;
	const struct results_knee_point *kp;
	char buf[1024];

	(void)state;
	results_init(&run);
	results_add_path(&run, "wg", RESULTS_PATH_EXTERNAL, "198.19.0.2", 1420);
	for (unsigned r = 0; r < 3; r++) {
		struct results_knee *k = add_knee(&run, r, (uint64_t)ndr[r]);

		k->ndr_upper_bps = (uint64_t)(ndr[r] * 1.01);
		k->ndr_ct_bps = (uint64_t)ndr[r];
	}
	for (size_t i = 0; i < sizeof(trials) / sizeof(trials[0]); i++) {
		struct results_trial *t = results_add_trial(&run);

		t->kind = RESULTS_TRIAL_KNEE;
		t->len = 1200;
		t->target_bps = (uint64_t)trials[i].rate;
		t->udp.lost = trials[i].lost;
		t->udp.loss_at.receiver_rcvbuf = trials[i].other;
		t->udp.loss_at.network = trials[i].lost - trials[i].other;
		/* the receiver named the socket that dropped them */
		t->udp.loss_at.other_port = 51820;
		t->udp.loss_at.other_family = 4;
		t->udp.loss_at.other_pid = 4242;
		t->udp.loss_at.other_drops = trials[i].other;
		snprintf(t->udp.loss_at.other_owner, sizeof(t->udp.loss_at.other_owner),
			 "wireguard-go");
	}
	assert_int_equal(results_aggregate(&run, &sum), 0);
	kp = results_find_knee(&sum, 0, 1200);
	assert_non_null(kp);
	assert_true(fabs(kp->ndr_spread - (131.0 - 72.0) / 108.0) < 1e-9);
	assert_int_equal(kp->disagree_trials, 2);
	assert_int_equal(kp->disagree_loss.receiver_rcvbuf, 48);
	assert_int_equal(kp->disagree_loss.network, 2);
	assert_int_equal(kp->ndr_ct_bps.n, 3);
	assert_true(report_run_knee_repeat(buf, sizeof(buf), kp));
	assert_non_null(strstr(buf, "varies 54.6 %"));
	assert_non_null(strstr(buf, "96 %"));
	assert_non_null(strstr(buf, loss_place_name(LOSS_PLACE_RECEIVER_OTHER)));
	assert_non_null(strstr(buf, "UDP port 51820 (IPv4) of wireguard-go (pid 4242)"));
	/* between 72M and 131M, 2 of 4 trials lost: a soft knee */
	assert_int_equal(kp->band_trials, 4);
	assert_int_equal(kp->band_lossy, 2);
	assert_non_null(
		strstr(buf, "A soft knee: 2 of the 4 trials between those NDRs lost (50 %)"));
	results_summary_free(&sum);
	/* run.json keeps the other socket: `report DIR` names it as the run did */
	{
		struct results_run back;
		char err[256], *j = results_to_json(&run);

		assert_non_null(j);
		assert_int_equal(results_from_json(j, &back, err, sizeof(err)), 0);
		free(j);
		assert_string_equal(back.trials[2].udp.loss_at.other_owner, "wireguard-go");
		assert_int_equal(back.trials[2].udp.loss_at.other_drops, 40);
		assert_int_equal(results_aggregate(&back, &sum), 0);
		assert_true(
			report_run_knee_repeat(buf, sizeof(buf), results_find_knee(&sum, 0, 1200)));
		assert_non_null(strstr(buf, "UDP port 51820 (IPv4) of wireguard-go (pid 4242)"));
		results_summary_free(&sum);
		results_free(&back);
	}
	/* every trial between them lost: loss rose with the load, no soft knee */
	run.trials[0].udp.lost = run.trials[1].udp.lost = 5;
	run.trials[0].udp.loss_at.network = run.trials[1].udp.loss_at.network = 5;
	assert_int_equal(results_aggregate(&run, &sum), 0);
	kp = results_find_knee(&sum, 0, 1200);
	assert_int_equal(kp->band_lossy, 4);
	assert_true(report_run_knee_repeat(buf, sizeof(buf), kp));
	assert_null(strstr(buf, "soft knee"));
	results_summary_free(&sum);
	/* within the width: a plain sentence, no warning */
	for (unsigned r = 0; r < 3; r++)
		run.knees[r].ndr_lower_bps = run.knees[r].ndr_lower_achieved_bps = 108000000 + r;
	assert_int_equal(results_aggregate(&run, &sum), 0);
	kp = results_find_knee(&sum, 0, 1200);
	assert_false(report_run_knee_repeat(buf, sizeof(buf), kp));
	assert_non_null(strstr(buf, "spread 0.0 %"));
	results_summary_free(&sum);
	results_free(&run);
}

/* A soft knee fitted from all trials (knee_fit.h): three repetitions whose
 * 1-s trials lose in about half the cases between 160M and 180M, the third
 * 5M higher. The fit pools them near 170M, fits each repetition, and says
 * so; trials shorter than the final duration, short of their rate or of
 * another size stay out; run.json carries it; a sharp knee has none. */
/* Three repetitions of 14 one-second trials at 140..200M (the third's
 * shift higher), half of them lost, and three trials the fit leaves out. */
static void fit_run(struct results_run *run, unsigned shift)
{
	static const unsigned bad_of_2[] = { 0, 0, 1, 1, 1, 2, 2 }; /* 140..200M */

	results_init(run);
	results_add_path(run, "wg", RESULTS_PATH_EXTERNAL, "198.19.0.2", 1420);
	for (unsigned r = 0; r < 3; r++) {
		struct results_knee *k = add_knee(run, r, 150000000);

		k->exceed_ratio = 0.5;
		k->final_s = 1;
		for (unsigned l = 0; l < 7; l++)
			for (unsigned i = 0; i < 2; i++) {
				struct results_trial *t = results_add_trial(run);

				t->kind = RESULTS_TRIAL_KNEE;
				t->len = 1200;
				t->rep = r;
				t->duration_s = 1;
				t->target_bps = (140 + 10 * l + (r == 2 ? shift : 0)) * 1000000ULL;
				t->udp.sent = 10000;
				t->udp.lost = i < bad_of_2[l] ? 7 : 0;
			}
	}
	/* out of the fit: a short trial, one short of its rate, another size */
	for (unsigned i = 0; i < 3; i++) {
		struct results_trial *t = results_add_trial(run);

		t->kind = RESULTS_TRIAL_KNEE;
		t->len = i == 2 ? 64 : 1200;
		t->duration_s = i == 0 ? 0.5 : 1;
		t->udp.generator_limited = i == 1;
		t->target_bps = 100000000;
		t->udp.sent = 10000;
		t->udp.lost = 9;
	}
}

static void test_knee_fit_run(void **state)
{
	struct results_run run;
	struct results_summary sum;
	const struct results_knee_point *kp;
	char buf[1024], *j;

	(void)state;
	fit_run(&run, 5);
	assert_int_equal(results_aggregate(&run, &sum), 0);
	kp = results_find_knee(&sum, 0, 1200);
	assert_non_null(kp);
	assert_int_equal(kp->ndr_fit.ntrials, 42);
	assert_int_equal(kp->ndr_fit.nbad, 21);
	assert_true(kp->ndr_fit.load_bps > 165e6 && kp->ndr_fit.load_bps < 177e6);
	assert_true(kp->ndr_fit.low_bps < kp->ndr_fit.load_bps);
	assert_true(kp->ndr_fit.high_bps > kp->ndr_fit.load_bps);
	assert_int_equal(kp->ndr_fit_rep_bps.n, 3);
	assert_true(kp->ndr_fit_spread > 0.02 && kp->ndr_fit_spread < 0.04);
	assert_true(report_run_knee_fit(buf, sizeof(buf), kp));
	assert_non_null(strstr(buf, "fitted to all 42 trials (21 lost): a trial loses in 50 %"));
	/* each repetition under the common slope: the third's trials 5M higher */
	assert_int_equal(kp->ndr_fit_reps.n, 3);
	assert_int_equal(kp->ndr_fit_reps.rep[2].ntrials, 14);
	assert_int_equal(kp->ndr_fit_reps.rep[2].nbad, 7);
	assert_true(kp->ndr_fit_reps.rep[2].load_bps > kp->ndr_fit_reps.rep[0].load_bps);
	assert_true(fabs(kp->ndr_fit_reps.rep[0].load_bps / kp->ndr_fit_reps.rep[1].load_bps - 1) <
		    1e-9);
	assert_int_equal(kp->ndr_fit_reps.df, 2);
	assert_true(kp->ndr_fit_reps.p > KNEE_FIT_DIFFER_P);
	assert_non_null(strstr(buf, "each repetition's knee under their common slope"));
	assert_non_null(strstr(buf, "within their trials' luck"));
	{
		/* two repetitions' knees outside the loads tried (no figure):
		 * the test was made all the same, and its reading is said */
		struct results_knee_point one = *kp;

		one.ndr_fit_reps.rep[0].load_bps = one.ndr_fit_reps.rep[1].load_bps = 0;
		one.ndr_fit_rep_bps.n = 1;
		assert_true(report_run_knee_fit(buf, sizeof(buf), &one));
		assert_non_null(strstr(buf, "a knee outside the loads tried has no figure"));
		assert_non_null(strstr(buf, "within their trials' luck"));
	}
	j = results_to_json(&run);
	assert_non_null(j);
	assert_non_null(strstr(j, "\"ndr_fit\":\t{\n"));
	assert_non_null(strstr(strstr(j, "\"ndr_fit\":"), "\"repetitions_bps\""));
	assert_non_null(strstr(strstr(j, "\"ndr_fit\":"), "\"same_knee_test\""));
	assert_non_null(strstr(strstr(j, "\"same_knee_test\":"), "\"differ\":\tfalse"));
	free(j);
	results_summary_free(&sum);
	/* every good trial below every bad one: no fit, and null in run.json */
	for (size_t i = 0; i < run.ntrials; i++)
		run.trials[i].udp.lost = run.trials[i].target_bps > 172000000 ? 7 : 0;
	assert_int_equal(results_aggregate(&run, &sum), 0);
	kp = results_find_knee(&sum, 0, 1200);
	assert_true(kp->ndr_fit.load_bps == 0);
	assert_int_equal(kp->ndr_fit_rep_bps.n, 0);
	assert_false(report_run_knee_fit(buf, sizeof(buf), kp));
	assert_string_equal(buf, "");
	j = results_to_json(&run);
	assert_non_null(strstr(j, "\"ndr_fit\":\tnull"));
	free(j);
	results_summary_free(&sum);
	results_free(&run);
}

/* The third repetition's trials 60M higher: its knee moved beyond the
 * trials' luck, and the report says which and what that means. */
static void test_knee_fit_moved(void **state)
{
	struct results_run run;
	struct results_summary sum;
	const struct results_knee_point *kp;
	char buf[1024], *j;

	(void)state;
	fit_run(&run, 60);
	assert_int_equal(results_aggregate(&run, &sum), 0);
	kp = results_find_knee(&sum, 0, 1200);
	assert_non_null(kp);
	assert_true(kp->ndr_fit_reps.p < KNEE_FIT_DIFFER_P);
	assert_true(kp->ndr_fit_reps.rep[2].load_bps > 1.25 * kp->ndr_fit_reps.rep[0].load_bps);
	assert_true(report_run_knee_fit(buf, sizeof(buf), kp));
	assert_non_null(strstr(buf, "wider than their trials' luck"));
	assert_non_null(strstr(buf, "repetition 3's at"));
	assert_non_null(strstr(buf, "the path itself changed between repetitions"));
	j = results_to_json(&run);
	assert_non_null(j);
	assert_non_null(strstr(strstr(j, "\"same_knee_test\":"), "\"differ\":\ttrue"));
	free(j);
	results_summary_free(&sum);
	results_free(&run);
}

/* Searches cut short (run.json's knees[].stopped, as knee_drive.c says it):
 * counted by max_time and max_trials, and whether their NDR goal was done;
 * the printers' sentence says which, through run.json and back. */
static void test_knee_cut(void **state)
{
	struct results_run run;
	struct results_summary sum;
	const struct results_knee_point *kp;
	char buf[512];

	(void)state;
	results_init(&run);
	results_add_path(&run, "wg", RESULTS_PATH_EXTERNAL, "198.19.0.2", 1420);
	add_knee(&run, 0, 400000000);
	assert_int_equal(results_aggregate(&run, &sum), 0);
	assert_false(report_run_knee_cut(buf, sizeof(buf), results_find_knee(&sum, 0, 1200)));
	assert_string_equal(buf, "");
	results_summary_free(&sum);
	snprintf(run.knees[0].stopped, sizeof(run.knees[0].stopped),
		 "59.6 s of trials (max_time 60.0 s): the next, of 1.0 s, would end beyond it");
	snprintf(run.knees[0].cut_by, sizeof(run.knees[0].cut_by), "max_time");
	add_knee(&run, 1, 410000000);
	add_knee(&run, 2, 0);
	run.knees[2].found = false;
	snprintf(run.knees[2].ndr_outcome, sizeof(run.knees[2].ndr_outcome), "unfinished");
	snprintf(run.knees[2].stopped, sizeof(run.knees[2].stopped),
		 "60 trials run (max_trials), 0 of them could not be counted");
	snprintf(run.knees[2].cut_by, sizeof(run.knees[2].cut_by), "max_trials");
	{
		struct results_run back;
		char err[256], *j = results_to_json(&run);

		assert_non_null(j);
		assert_int_equal(results_from_json(j, &back, err, sizeof(err)), 0);
		free(j);
		assert_int_equal(results_aggregate(&back, &sum), 0);
		results_free(&back);
	}
	kp = results_find_knee(&sum, 0, 1200);
	assert_int_equal(kp->reps, 3);
	assert_int_equal(kp->cut, 2);
	assert_int_equal(kp->cut_time, 1);
	assert_int_equal(kp->cut_unfinished, 1);
	assert_true(report_run_knee_cut(buf, sizeof(buf), kp));
	assert_non_null(strstr(buf, "2 of 3 searches stopped at max_time or max_trials, 1 of "
				    "them before the NDR goal was done"));
	results_summary_free(&sum);
	/* only max_time, after the goals */
	run.knees[2].stopped[0] = run.knees[2].cut_by[0] = '\0';
	assert_int_equal(results_aggregate(&run, &sum), 0);
	assert_true(report_run_knee_cut(buf, sizeof(buf), results_find_knee(&sum, 0, 1200)));
	assert_non_null(strstr(buf, "1 of 3 searches stopped at max_time after their goals"));
	results_summary_free(&sum);
	results_free(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_knee_spread),
		cmocka_unit_test(test_knee_fit_run),
		cmocka_unit_test(test_knee_fit_moved),
		cmocka_unit_test(test_knee_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
