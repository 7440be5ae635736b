// SPDX-License-Identifier: MIT
/* `report A B` on synthetic runs: each figure's change, its interval and
 * verdict, the setups that differ, the CPU threshold, lower bounds. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "report_fixture.h"
#include "report_run.h"
#include "run.h"
#include "run_fixture.h"

static void p_diff(FILE *f, const struct report_run *rr, const void *arg)
{
	report_run_diff(f, rr, arg, NULL);
}

static void test_diff(void **state)
{
	struct results_run a, b;
	struct report_run ra, rb;
	char *t;

	(void)state;
	fixture_run(&a);
	fixture_run(&b);
	b.knees[1].ndr_lower_bps = 300000000; /* overlay NDR 200 -> 300 */
	assert_int_equal(report_run_prepare(&ra, &a), 0);
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	t = render(p_diff, &ra, &rb);
	contains(t, "UDP NDR");
	contains(t, "+50.0%");
	contains(t, "100 Mbit/s");
	free(t);
	report_run_release(&ra);
	report_run_release(&rb);
	results_free(&a);
	results_free(&b);
}

static void p_diff_json(FILE *f, const struct report_run *rr, const void *arg)
{
	struct report_diff_options o = {
		.json = true, .dir_a = "a", .dir_b = "b", .cpu_threshold = 0.05
	};

	assert_int_equal(report_run_diff(f, rr, arg, &o), 6);
}

/* The text at --threshold-cpu 10 */
static void p_diff_cpu10(FILE *f, const struct report_run *rr, const void *arg)
{
	struct report_diff_options o = { .cpu_threshold = 0.10 };

	report_run_diff(f, rr, arg, &o);
}

/* The overlay's TCP goodput halves in B: every one of its repetitions
 * below every one of A's, a regression at 1 and 4 streams, and so are its
 * ratios to the underlay; the ratio of the host's CPU per Gbit doubles (the
 * same CPU seconds for half the data), within the CPU figures' default
 * threshold of 100 % and a regression at --threshold-cpu 5 (the JSON);
 * the test processes' CPU per Gbit, the same in every repetition, is
 * noise, and so is the underlay, unchanged. */
static void p_diff_json_setups(FILE *f, const struct report_run *rr, const void *arg)
{
	struct report_diff_options o = { .json = true };

	assert_true(report_run_diff(f, rr, arg, &o) >= 0);
}

/* Runs of two setups (the default lab against the WAN scenario's 75 ms
 * link, another MTU) compare only with a loud warning naming each
 * difference, in the text and the JSON. */
static void test_diff_setups(void **state)
{
	struct results_run a, b;
	struct report_run ra, rb;
	char *t;

	(void)state;
	fixture_run(&a);
	fixture_run(&b);
	a.nlinks = b.nlinks = 1;
	a.links[0].rate_bps = b.links[0].rate_bps = 1000000000;
	/* the same 1.5 s trials measured 1.7 s in one run, 1.8 s in the next */
	for (size_t i = 0; i < a.ntrials; i++)
		if (a.trials[i].kind == RESULTS_TRIAL_TCP)
			a.trials[i].duration_s = 1.7;
	for (size_t i = 0; i < b.ntrials; i++)
		if (b.trials[i].kind == RESULTS_TRIAL_TCP)
			b.trials[i].duration_s = i % 2 ? 1.8 : 1.7;
	assert_int_equal(report_run_prepare(&ra, &a), 0);
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	t = render(p_diff, &ra, &rb);
	assert_null(strstr(t, "WARNING"));
	assert_null(strstr(t, "durations differ"));
	free(t);
	report_run_release(&rb);
	snprintf(b.links[0].conditions, sizeof(b.links[0].conditions), "delay 75ms");
	snprintf(b.scenario_name, sizeof(b.scenario_name), "wan_sdwan");
	b.paths[1].mtu = 1380;
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	t = render(p_diff, &ra, &rb);
	contains(t, "WARNING: A and B are not runs of one setup");
	contains(t, "warning: the scenarios differ: A 'fixture', B 'wan_sdwan'");
	contains(t, "warning: the labs' link 0 differs: A 1 Gbit/s, no delay or loss; B 1 Gbit/s, "
		    "delay 75ms");
	contains(t, "MTU differs");
	free(t);
	t = render(p_diff_json_setups, &ra, &rb);
	contains(t, "\"setups_differ\":\ttrue");
	free(t);
	report_run_release(&ra);
	report_run_release(&rb);
	results_free(&a);
	results_free(&b);
}

static void test_diff_verdicts(void **state)
{
	struct results_run a, b;
	struct report_run ra, rb;
	cJSON *doc, *figs, *x;
	unsigned regressions = 0;
	char *t;

	(void)state;
	fixture_run(&a);
	fixture_run(&b);
	for (size_t i = 0; i < b.ntrials; i++)
		if (b.trials[i].kind == RESULTS_TRIAL_TCP && b.trials[i].path == 1)
			b.trials[i].tcp.goodput_bps /= 2;
	assert_int_equal(report_run_prepare(&ra, &a), 0);
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	t = render(p_diff, &ra, &rb);
	/* 200..300 against 100..150: the nine ratios 1/3..3/4 (a rate's
	 * change is a ratio: never below -100 %) */
	contains(t,
		 "TCP goodput            overlay         1 str      250 Mbit/s     125 Mbit/s    "
		 "-125 Mbit/s   -50.0%  [-66.7, -25.0]%    REGRESSION\n");
	contains(t,
		 "TCP goodput            underlay        1 str      950 Mbit/s     950 Mbit/s     "
		 "   0 bit/s    +0.0%  [-10.0, +11.1]%    noise\n");
	contains(t, "ratio host CPU s/Gbit  overlay         1 str               4              8 "
		    "             4  +100.0%  [+100.0, +100.0]%  within threshold\n");
	contains(t, "(1+1 reps)         too few reps\n");
	contains(t, "4 regressions, 0 progressions");
	contains(t, "(CPU per Gbit is not judged: it moves between runs beyond its repetitions; "
		    "--threshold-cpu PCT)");
	free(t);
	t = render(p_diff_json, &ra, &rb);
	doc = cJSON_Parse(t);
	assert_non_null(doc);
	assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring, "ovlperf.compare");
	assert_int_equal(cJSON_GetObjectItem(doc, "regressions")->valueint, 6);
	assert_float_equal(cJSON_GetObjectItem(doc, "threshold_cpu_pct")->valuedouble, 5, 1e-9);
	figs = cJSON_GetObjectItem(doc, "figures");
	cJSON_ArrayForEach(x, figs)
	{
		const char *v = cJSON_GetObjectItem(x, "verdict")->valuestring;

		if (strcmp(v, "regression"))
			continue;
		regressions++;
		assert_string_equal(cJSON_GetObjectItem(x, "path")->valuestring, "overlay");
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(x, "b"),
									"repetitions")),
				 3);
		assert_float_equal(
			cJSON_GetObjectItem(cJSON_GetObjectItem(x, "change"), "confidence")
				->valuedouble,
			0.9, 1e-9);
	}
	assert_int_equal(regressions, 6);
	cJSON_Delete(doc);
	free(t);
	report_run_release(&ra);
	report_run_release(&rb);
	results_free(&a);
	results_free(&b);
}

/* The line of the figure that starts with head; its verdict must be want. */
static void verdict_of(const char *text, const char *head, const char *want)
{
	const char *l = strstr(text, head), *e;

	if (!l)
		fail_msg("no line '%s' in:\n%s", head, text);
	e = strchr(l, '\n');
	assert_non_null(e);
	if ((size_t)(e - l) < strlen(want) || strncmp(e - strlen(want), want, strlen(want)))
		fail_msg("'%.*s': not '%s'", (int)(e - l), l, want);
}

/* The goodput the same, the test processes' CPU per Gbit tripled in B (as
 * between identical real runs, docs/compare.md): not judged by default (0
 * regressions), a regression at --threshold-cpu 10; the goodput noise. */
static void test_diff_cpu_threshold(void **state)
{
	struct results_run a, b;
	struct report_run ra, rb;
	FILE *null;
	char *t;

	(void)state;
	fixture_run(&a);
	fixture_run(&b);
	for (size_t i = 0; i < b.ntrials; i++)
		if (b.trials[i].kind == RESULTS_TRIAL_TCP) {
			b.trials[i].sender_cpu_s_per_gbit *= 3;
			b.trials[i].receiver_cpu_s_per_gbit *= 3;
		}
	assert_int_equal(report_run_prepare(&ra, &a), 0);
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	null = fopen("/dev/null", "w");
	assert_non_null(null);
	assert_int_equal(report_run_diff(null, &ra, &rb, NULL), 0);
	fclose(null);
	t = render(p_diff, &ra, &rb);
	contains(t, "CPU s/Gbit             overlay         1 str               4             12 "
		    "             8  +200.0%  [+200.0, +200.0]%  within threshold\n");
	verdict_of(t, "  CPU s/Gbit             underlay        4 str", "within threshold");
	verdict_of(t, "  ratio CPU s/Gbit       overlay         1 str", "noise");
	verdict_of(t, "  TCP goodput            overlay         1 str", "noise");
	contains(t, "0 regressions, 0 progressions");
	free(t);
	t = render(p_diff_cpu10, &ra, &rb);
	contains(t, "CPU s/Gbit             overlay         1 str               4             12 "
		    "             8  +200.0%  [+200.0, +200.0]%  REGRESSION\n");
	verdict_of(t, "  TCP goodput            overlay         1 str", "noise");
	contains(t, "4 regressions, 0 progressions");
	contains(t, "(CPU per Gbit: 10 %, --threshold-cpu)");
	free(t);
	report_run_release(&ra);
	report_run_release(&rb);
	results_free(&a);
	results_free(&b);
}

/* B's delay tails 50 times A's (0.2 -> 10 ms over the underlay, 0.9 -> 45
 * over the overlay): a regression when B's machine was idle; measured
 * while other work kept 1.9 of its 2 cores busy before the trials (the
 * baseline of its host facts), the host's scheduler's: judged as CPU per
 * Gbit, not a regression, and said why. Below half a core: judged. */
static void busy_delays(struct results_run *b, double baseline)
{
	fixture_run(b);
	for (size_t i = 0; i < b->ntrials; i++) {
		struct results_trial *t = &b->trials[i];

		if (t->kind != RESULTS_TRIAL_DELAY)
			continue;
		t->udp.owd.p99_ns *= 50;
		t->facts_client.known = baseline >= 0;
		t->facts_client.baseline_cores = baseline;
	}
}

static void test_diff_busy_machine(void **state)
{
	static const double baselines[] = { -1, 0.3, 1.9 };
	struct results_run a, b;
	struct report_run ra, rb;
	char *t;

	(void)state;
	fixture_run(&a);
	assert_int_equal(report_run_prepare(&ra, &a), 0);
	for (unsigned i = 0; i < 3; i++) {
		busy_delays(&b, baselines[i]);
		assert_int_equal(report_run_prepare(&rb, &b), 0);
		t = render(p_diff, &ra, &rb);
		verdict_of(t, "  delay p99 ms           overlay",
			   i < 2 ? "REGRESSION" : "within threshold");
		if (i < 2)
			assert_null(strstr(t, "kept the machine busy"));
		else
			contains(t,
				 "(6 one-way delay figures measured while other work kept the "
				 "machine "
				 "busy (0.5 cores or more\n  before their trials, in A or B) are "
				 "judged as CPU per Gbit");
		free(t);
		report_run_release(&rb);
		results_free(&b);
	}
	report_run_release(&ra);
	results_free(&a);
}

/* `ovlperf report A B`: a lower bound is no exact difference, a knee below
 * the search's minimum, or lost at every rate a cut search tried, is a
 * figure (not "only in A"), and runs that differ
 * in what they measured are flagged. */
static void test_diff_bounds(void **state)
{
	struct results_run a, b;
	struct report_run ra, rb;
	char *t;

	(void)state;
	fixture_run(&a);
	bound_run(&b);
	/* B's overlay PDR is below the search's minimum */
	b.knees[1].pdr_found = false;
	snprintf(b.knees[1].pdr_outcome, sizeof(b.knees[1].pdr_outcome), "below-min");
	b.knees[1].pdr_upper_bps = 1000000;
	b.pdr_goal_pct = 2.0;
	a.pdr_goal_pct = 0.5;
	b.trials[b.ntrials - 1].duration_s = 5.0;
	assert_int_equal(report_run_prepare(&ra, &a), 0);
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	t = render(p_diff, &ra, &rb);
	contains(t, "warning: the PDR loss goals differ: A 0.5 %, B 2 %");
	contains(t, "warning: the delay trial durations differ: A 1.0s, B 1.0s 5.0s");
	/* underlay NDR: 800 exact in A, >= 10 G in B: the change is a lower bound */
	contains(t, "800 Mbit/s   >= 10 Gbit/s  >= 9.2 Gbit/s >= +1150.0%");
	/* both ratios of the NDR rest on a bound in B: no difference */
	contains(t, "0.25         ? 0.18              ?        ?");
	/* overlay PDR: <= 1 Mbit/s in B, a bound, not "only in A" */
	contains(t, "UDP PDR                overlay        1400 B      220 Mbit/s    <= 1 Mbit/s "
		    "<= -219 Mbit/s <= -99.5%");
	/* nor is its ratio to the underlay: it is an upper bound */
	contains(t, "ratio UDP PDR          overlay        1400 B          0.2619     <= 0.00119");
	assert_null(strstr(t, "only in A"));
	free(t);
	t = render(p_csv, &rb, NULL);
	contains(t, "udp_pdr_bps,overlay,builtin,,1400,,1,1000000,1000000,1000000,840000000,"
		    "0.00119048,99.88,upper_bound,exact,at_most,at_least,\n");
	free(t);
	t = render(p_md, &rb, NULL);
	contains(t, "| overlay | UDP PDR | 1400 bytes | 840.0 Mbit/s | <= 1.0 Mbit/s | <= 0.001 |");
	free(t);
	/* a search that lost at every rate it tried but was cut before its
	 * minimum (its trials or time spent): the least rate it lost at
	 * bounds it all the same */
	report_run_release(&rb);
	snprintf(b.knees[1].pdr_outcome, sizeof(b.knees[1].pdr_outcome), "unfinished");
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	t = render(p_diff, &ra, &rb);
	contains(t, "UDP PDR                overlay        1400 B      220 Mbit/s    <= 1 Mbit/s "
		    "<= -219 Mbit/s <= -99.5%");
	assert_null(strstr(t, "only in A"));
	free(t);
	report_run_release(&ra);
	report_run_release(&rb);
	results_free(&a);
	results_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff),	    cmocka_unit_test(test_diff_verdicts),
		cmocka_unit_test(test_diff_setups), cmocka_unit_test(test_diff_cpu_threshold),
		cmocka_unit_test(test_diff_bounds), cmocka_unit_test(test_diff_busy_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
