// SPDX-License-Identifier: MIT
/* history.c and the trend's printers: 8 runs of the fixture written as
 * run.json under one results root, the overlay's TCP goodput 15 % lower
 * from the 5th on: that figure alone gets a second segment, flagged a
 * regression where it started, and the OpenMetrics text says so. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "report_diff.h"
#include "report_trend.h"
#include "run_fixture.h"

#define RUNS 8

/* Run r of the history: every TCP repetition within 1 % of its level (the
 * fixture's own spread is 20 %), the overlay's 15 % lower from run 4 on. */
static void write_run(const char *root, int r, const char *scenario)
{
	struct results_run run;
	char dir[256], path[300];

	fixture_run(&run);
	snprintf(run.scenario_name, sizeof(run.scenario_name), "%s", scenario);
	snprintf(run.started_utc, sizeof(run.started_utc), "2026-12-0%dT0%d:00:00Z", 1 + r / 4,
		 r % 4);
	for (size_t i = 0; i < run.ntrials; i++) {
		struct results_trial *t = &run.trials[i];
		double level = t->path ? 250e6 : 950e6;

		if (t->kind != RESULTS_TRIAL_TCP)
			continue;
		if (t->path && r >= 4)
			level *= 0.85;
		t->tcp.goodput_bps =
			(uint64_t)(level * (1 + 0.005 * ((int)t->rep - 1) + 0.002 * (r % 3)));
	}
	snprintf(dir, sizeof(dir), "%s/run%d", root, r);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/run.json", dir);
	assert_int_equal(results_write_json(&run, path), 0);
	results_free(&run);
}

static char *render_om(const struct history *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report_trend_openmetrics(f, h), 0);
	fclose(f);
	return buf;
}

static void test_history(void **state)
{
	char root[] = "/tmp/test_history_XXXXXX", err[256], *text;
	char *dirs[1] = { root };
	const struct history_series *s = NULL;
	struct history h;
	unsigned multi = 0;

	(void)state;
	assert_non_null(mkdtemp(root));
	for (int r = 0; r < RUNS; r++)
		write_run(root, r, "fixture");
	write_run(root, RUNS, "other"); /* started last, another scenario */
	assert_int_equal(history_read(&h, dirs, 1, "fixture", 0.05, err, sizeof(err)), 0);
	assert_int_equal(h.nruns, RUNS);
	assert_int_equal(h.other, 1);
	assert_string_equal(h.runs[0].started_utc, "2026-12-01T00:00:00Z");
	for (size_t i = 0; i < h.nseries; i++) {
		const struct history_series *x = &h.series[i];

		assert_int_equal(x->n, RUNS);
		multi += x->trend.n > 1;
		if (!strcmp(x->id.what, "TCP goodput") && !strcmp(x->id.path, "overlay") &&
		    x->id.key == 1)
			s = x;
	}
	assert_non_null(s);
	assert_int_equal(s->trend.n, 2);
	assert_int_equal(s->trend.seg[1].start, 4);
	assert_int_equal(s->trend.seg[1].verdict, CHANGE_REGRESSION);
	assert_true(fabs(s->trend.seg[1].change_pct + 15) < 1);
	/* the 4-stream figure and the ratios fall with it; nothing else */
	print_message("figures with more than one segment: %u of %zu\n", multi, h.nseries);
	assert_in_range(multi, 3, 6);
	text = render_om(&h);
	assert_non_null(strstr(text, "# TYPE ovlperf_trend_tcp_goodput_bytes_per_second gauge\n"
				     "# UNIT ovlperf_trend_tcp_goodput_bytes_per_second "
				     "bytes_per_second\n"));
	assert_non_null(
		strstr(text, "ovlperf_trend_regression{figure=\"tcp_goodput_bytes_per_"
			     "second\",scenario=\"fixture\",path=\"overlay\",streams=\"1\"} 1\n"));
	assert_non_null(
		strstr(text, "ovlperf_trend_regression{figure=\"tcp_goodput_bytes_per_"
			     "second\",scenario=\"fixture\",path=\"underlay\",streams=\"1\"} 0\n"));
	assert_non_null(strstr(text, "ovlperf_trend_runs{scenario=\"fixture\"} 8\n"));
	assert_non_null(strstr(text, "\n# EOF\n"));
	free(text);
	history_free(&h);
	/* without --scenario: the latest run's, the other one alone */
	assert_int_equal(history_read(&h, dirs, 1, NULL, 0.05, err, sizeof(err)), 0);
	assert_string_equal(h.scenario, "other");
	assert_int_equal(h.nruns, 1);
	history_free(&h);
	assert_int_equal(history_read(&h, dirs, 1, "none", 0.05, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "'none'"));
	/* TEST_HISTORY_KEEP set: the runs stay, for `report --trend` by hand */
	if (getenv("TEST_HISTORY_KEEP")) {
		print_message("runs kept in %s\n", root);
		return;
	}
	snprintf(err, sizeof(err), "rm -rf %s", root);
	assert_int_equal(system(err), 0);
}

/* Run r of a machine whose overlay TCP goodput moves by 8 % from run to
 * run (alternately above and below its level), each run's repetitions
 * within 1 % of each other: repetitions that agree, runs that do not. */
static void noisy_run(struct results_run *run, int r)
{
	fixture_run(run);
	snprintf(run->started_utc, sizeof(run->started_utc), "2026-12-0%dT0%d:00:00Z", 1 + r / 4,
		 r % 4);
	for (size_t i = 0; i < run->ntrials; i++) {
		struct results_trial *t = &run->trials[i];
		double level = t->path ? 250e6 * (r % 2 ? 1.08 : 0.92) : 950e6;

		if (t->kind == RESULTS_TRIAL_TCP)
			t->tcp.goodput_bps = (uint64_t)(level * (1 + 0.005 * ((int)t->rep - 1)));
	}
}

static unsigned overlay_goodput_verdict(const struct report_diff *d, enum change_verdict *v)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->rows[i].a->what, "TCP goodput") &&
		    !strcmp(d->rows[i].a->path, "overlay") && d->rows[i].a->key == 1) {
			*v = d->rows[i].verdict;
			return (unsigned)d->rows[i].hist_runs;
		}
	fail();
	return 0;
}

/* report A B --history: two identical runs of that machine, A above its
 * level and B below (-15 %), are a regression by the documented 10 %;
 * against the history of eight such runs, whose noise the goodput moves
 * by, they are not. */
static void test_diff_history(void **state)
{
	char root[] = "/tmp/test_diff_history_XXXXXX", dir[300], path[320];
	struct results_run a, b;
	struct report_run ra, rb;
	struct report_diff d;
	struct report_diff_options o = { 0 };
	enum change_verdict v;

	(void)state;
	assert_non_null(mkdtemp(root));
	for (int r = 0; r < RUNS; r++) {
		struct results_run run;

		noisy_run(&run, r);
		snprintf(dir, sizeof(dir), "%s/run%d", root, r);
		assert_int_equal(mkdir(dir, 0755), 0);
		snprintf(path, sizeof(path), "%s/run.json", dir);
		assert_int_equal(results_write_json(&run, path), 0);
		results_free(&run);
	}
	noisy_run(&a, 1);
	noisy_run(&b, 2);
	assert_int_equal(report_run_prepare(&ra, &a), 0);
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	assert_int_equal(report_diff_build(&d, &ra, &rb, &o), 0);
	assert_int_equal(overlay_goodput_verdict(&d, &v), 0);
	assert_int_equal(v, CHANGE_REGRESSION);
	report_diff_free(&d);
	o.history = root;
	assert_int_equal(report_diff_build(&d, &ra, &rb, &o), 0);
	assert_int_equal(d.hist_runs, RUNS);
	assert_int_equal(overlay_goodput_verdict(&d, &v), RUNS);
	assert_int_not_equal(v, CHANGE_REGRESSION);
	/* the underlay, steady from run to run, keeps a tight threshold */
	for (size_t i = 0; i < d.n; i++)
		if (!strcmp(d.rows[i].a->what, "TCP goodput") &&
		    !strcmp(d.rows[i].a->path, "underlay") && d.rows[i].a->key == 1)
			assert_true(d.rows[i].threshold < 0.05);
	report_diff_free(&d);
	report_run_release(&ra);
	report_run_release(&rb);
	results_free(&a);
	results_free(&b);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_diff_history),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
