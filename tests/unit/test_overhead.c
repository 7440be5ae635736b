// SPDX-License-Identifier: MIT
/* Overhead ratios and deltas of overlay paths against the underlay. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "overhead.h"
#include "run_fixture.h"

static const struct overhead_row *find(const struct overhead *o, unsigned path,
				       enum overhead_metric m, unsigned key)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->rows[i].path == path && o->rows[i].metric == m && o->rows[i].key == key)
			return &o->rows[i];
	return NULL;
}

static void close_to(double got, double want)
{
	if (fabs(got - want) > 1e-9 * (fabs(want) + 1))
		fail_msg("got %.12g, want %.12g", got, want);
}

static void test_fixture_ratios(void **state)
{
	/* Expected values from the fixture's documented figures. */
	static const struct {
		enum overhead_metric m;
		unsigned key;
		double base, value, ratio, cost;
	} want[] = {
		{ OVERHEAD_TCP_GOODPUT, 1, 950e6, 250e6, 250.0 / 950, 100 * (1 - 250.0 / 950) },
		{ OVERHEAD_TCP_GOODPUT, 4, 1900e6, 500e6, 500.0 / 1900, 100 * (1 - 500.0 / 1900) },
		{ OVERHEAD_UDP_NDR, 1400, 800e6, 200e6, 0.25, 75 },
		{ OVERHEAD_UDP_PDR, 1400, 840e6, 220e6, 220.0 / 840, 100 * (1 - 220.0 / 840) },
		{ OVERHEAD_OWD_P50, 1400, 0.05, 0.15, 3.0, 200 },
		{ OVERHEAD_OWD_P99, 1400, 0.2, 0.9, 4.5, 350 },
		{ OVERHEAD_CPU_PER_GBIT, 1, 1.0, 4.0, 4.0, 300 },
		{ OVERHEAD_HOST_CPU_PER_GBIT, 4, 1.0, 4.0, 4.0, 300 },
		{ OVERHEAD_TCP_MSS, 1, 1448, 1368, 1368.0 / 1448, 0 },
	};
	struct results_run run;
	struct results_summary sum;
	struct overhead o;

	(void)state;
	fixture_run(&run);
	assert_int_equal(results_aggregate(&run, &sum), 0);
	assert_int_equal(overhead_compute(&run, &sum, &o), 0);
	/* 2 stream counts x (goodput, cpu, host cpu, mss) + NDR, PDR + p50, p99 */
	assert_int_equal(o.n, 12);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct overhead_row *r = find(&o, 1, want[i].m, want[i].key);

		if (!r)
			fail_msg("no row for %s %u", overhead_metric_name(want[i].m), want[i].key);
		assert_int_equal(r->base_path, 0);
		close_to(r->base, want[i].base);
		close_to(r->value, want[i].value);
		close_to(r->ratio, want[i].ratio);
		close_to(r->delta, want[i].value - want[i].base);
		close_to(overhead_cost_pct(r), want[i].cost);
	}
	/* The underlay is never compared with itself. */
	for (size_t i = 0; i < o.n; i++)
		assert_int_equal(o.rows[i].path, 1);
	overhead_free(&o);
	results_summary_free(&sum);
	results_free(&run);
}

static void test_no_underlay(void **state)
{
	struct results_run run;
	struct results_summary sum;
	struct overhead o;

	(void)state;
	fixture_run(&run);
	run.paths[0].kind = RESULTS_PATH_EXTERNAL;
	assert_int_equal(results_aggregate(&run, &sum), 0);
	assert_int_equal(overhead_compute(&run, &sum, &o), 0);
	assert_int_equal(o.n, 0);
	results_summary_free(&sum);
	results_free(&run);
}

static void test_underlay_not_first_and_missing_figures(void **state)
{
	struct results_run run;
	struct results_summary sum;
	struct overhead o;
	const struct overhead_row *r;

	(void)state;
	fixture_run(&run);
	/* Swap roles: path 1 is now the underlay, path 0 the overlay. */
	run.paths[0].kind = RESULTS_PATH_EXTERNAL;
	run.paths[1].kind = RESULTS_PATH_UNDERLAY;
	/* Drop the overlay's delay trials: no delay rows may appear. */
	for (size_t i = 0; i < run.ntrials; i++)
		if (run.trials[i].kind == RESULTS_TRIAL_DELAY && run.trials[i].path == 0)
			run.trials[i].status = -EIO;
	assert_int_equal(results_aggregate(&run, &sum), 0);
	assert_int_equal(overhead_compute(&run, &sum, &o), 0);
	r = find(&o, 0, OVERHEAD_UDP_NDR, 1400);
	assert_non_null(r);
	close_to(r->ratio, 4.0);
	close_to(overhead_cost_pct(r), -300); /* negative: better than the base */
	assert_null(find(&o, 0, OVERHEAD_OWD_P50, 1400));
	overhead_free(&o);
	results_summary_free(&sum);
	results_free(&run);
}

static void test_zero_base(void **state)
{
	struct results_run run;
	struct results_summary sum;
	struct overhead o;
	const struct overhead_row *r;

	(void)state;
	fixture_run(&run);
	run.knees[0].ndr_lower_bps = 0; /* underlay NDR 0: ratio undefined */
	assert_int_equal(results_aggregate(&run, &sum), 0);
	assert_int_equal(overhead_compute(&run, &sum, &o), 0);
	r = find(&o, 1, OVERHEAD_UDP_NDR, 1400);
	assert_non_null(r);
	assert_true(isnan(r->ratio));
	assert_true(isnan(overhead_cost_pct(r)));
	close_to(r->delta, 200e6);
	overhead_free(&o);
	results_summary_free(&sum);
	results_free(&run);
}

static void test_names(void **state)
{
	(void)state;
	for (int m = 0; m < OVERHEAD_METRIC_COUNT; m++)
		assert_int_equal(overhead_metric_parse(overhead_metric_name(m)), m);
	assert_int_equal(overhead_metric_parse("bogus"), -EINVAL);
	assert_true(overhead_higher_is_better(OVERHEAD_UDP_PDR));
	assert_false(overhead_higher_is_better(OVERHEAD_OWD_P99));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_ratios),
		cmocka_unit_test(test_no_underlay),
		cmocka_unit_test(test_underlay_not_first_and_missing_figures),
		cmocka_unit_test(test_zero_base),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
