// SPDX-License-Identifier: MIT
/*
 * The knee search's fit trials (knee.h, step 5): on a simulated noisy path
 * whose chance of a lossy trial is logistic in the log of the load, a
 * search spends its fit trials once the goals are done, near the load
 * where that chance is the exceed ratio, and a fit of its trials
 * (knee_fit.h) lands nearer the truth than without them, over 60 seeds; on
 * a shaper (a sharp knee) and with fit_trials 0 it spends none, and its
 * trials are those of the search without them, one for one. (A fit trial
 * at a new load can move the coarse target's bounds, and the goals then
 * narrow again before the next: the trials count as any do.)
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "knee.h"
#include "knee_fit.h"
#include "test_seed.h"

#define M 1000000ULL

/* A path: a shaper at cap; below it, a trial loses a few datagrams with
 * probability 1 / (1 + exp(-ln(r / knee) / scale)) (scale 0: never). */
struct path {
	double knee, scale, cap;
};

static struct knee_measurement measure(const struct path *p, const struct knee_trial *t)
{
	double r = (double)t->rate_bps, loss = r > p->cap ? 1 - p->cap / r : 0;

	if (p->scale > 0 && test_rand01() < 1 / (1 + exp(-log(r / p->knee) / p->scale)))
		loss += 1e-4;
	return (struct knee_measurement){ .offered_bps = t->rate_bps,
					  .achieved_bps = t->rate_bps,
					  .received_bps = (uint64_t)(r * (1 - loss)),
					  .loss_ratio = loss };
}

/* One search; *nfit: its fit trials; *err: |ln(fit / knee)| of a fit of
 * its final trials (1 when none), as knee_select.c and run.json fit them. */
static unsigned search(const struct path *p, unsigned fit_trials, unsigned *nfit, double *err,
		       struct knee_record *out)
{
	struct knee_config cfg;
	struct knee k;
	struct knee_trial t;
	struct knee_result res;
	struct knee_fit_obs obs[KNEE_MAX_TRIALS];
	struct knee_fit f;
	const struct knee_record *tr;
	unsigned n;
	size_t nobs = 0;

	knee_config_defaults(&cfg);
	cfg.max_rate_bps = 1000 * M;
	cfg.fit_trials = fit_trials;
	assert_int_equal(knee_init(&k, &cfg), 0);
	while (knee_next(&k, &t)) {
		struct knee_measurement m = measure(p, &t);

		assert_int_equal(knee_record(&k, &m), 0);
	}
	tr = knee_trials(&k, &n);
	knee_get_result(&k, &res);
	*nfit = 0;
	for (unsigned i = 0; i < n; i++) {
		if (out)
			out[i] = tr[i];
		*nfit += tr[i].trial.phase == KNEE_PHASE_FIT;
		if (tr[i].trial.duration_ns >= cfg.final_ns)
			obs[nobs++] =
				(struct knee_fit_obs){ .load_bps = (double)tr[i].trial.rate_bps,
						       .bad = tr[i].verdict != KNEE_PASS };
	}
	assert_int_equal(res.nfit, *nfit);
	assert_int_equal(res.ntrials, n);
	*err = knee_fit(obs, nobs, cfg.exceed_ratio, &f) ? fabs(log(f.load_bps / p->knee)) : 1;
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* wireguard-go as measured here: the chance of a lossy 1 s trial 10 % at
 * 391M and 90 % at 490M (scale 0.051), a shaper far above. A search whose
 * trials overlap spends all 15 fit trials, none otherwise (about half of
 * 60 seeds: the PDR, far above, adds no trials here as it does on a real
 * path), within max_trials; their loads lie near the knee (the median
 * search's median fit load within 3 %), and the fit's median error over
 * the seeds is below 5 % and smaller than without them. */
static void test_soft_knee(void **state)
{
	const struct path p = { .knee = 438e6, .scale = 0.051, .cap = 2e9 };
	double with[60], without[60], off[60];
	unsigned soft = 0;

	(void)state;
	for (int s = 0; s < 60; s++) {
		struct knee_record tr[KNEE_MAX_TRIALS];
		double loads[KNEE_MAX_TRIALS];
		unsigned nfit, n, k = 0;

		n = search(&p, 15, &nfit, &with[s], tr);
		assert_true(nfit == 0 || nfit == 15);
		assert_true(n <= KNEE_DEFAULT_MAX_TRIALS);
		for (unsigned i = 0; i < n; i++)
			if (tr[i].trial.phase == KNEE_PHASE_FIT) {
				assert_int_equal(tr[i].trial.duration_ns, KNEE_DEFAULT_FINAL_NS);
				assert_int_equal(tr[i].trial.target, KNEE_NDR);
				loads[k++] = (double)tr[i].trial.rate_bps;
			}
		if (k) {
			qsort(loads, k, sizeof(loads[0]), cmp_double);
			off[soft++] = fabs(log(loads[k / 2] / p.knee));
		}
		search(&p, 0, &nfit, &without[s], NULL);
		assert_int_equal(nfit, 0);
	}
	qsort(with, 60, sizeof(with[0]), cmp_double);
	qsort(without, 60, sizeof(without[0]), cmp_double);
	qsort(off, soft, sizeof(off[0]), cmp_double);
	print_message("%u of 60 searches soft; fit error, median: %.1f %% with 15 fit trials, "
		      "%.1f %% without; fit loads off the knee by %.1f %% (median)\n",
		      soft, 100 * with[30], 100 * without[30], 100 * off[soft / 2]);
	assert_true(soft >= 20);
	assert_true(off[soft / 2] < 0.03);
	assert_true(with[30] < without[30]);
	assert_true(with[30] < 0.05);
}

/* A shaper at 200M: a knee sharper than the width, no fit trial, and the
 * same trials with fit_trials 15 as with 0. */
static void test_sharp_knee(void **state)
{
	const struct path p = { .cap = 200e6 };
	struct knee_record a[KNEE_MAX_TRIALS], b[KNEE_MAX_TRIALS];
	unsigned na, nb, fa, fb;
	double e;

	(void)state;
	na = search(&p, 15, &fa, &e, a);
	nb = search(&p, 0, &fb, &e, b);
	assert_int_equal(fa, 0);
	assert_int_equal(fb, 0);
	assert_int_equal(na, nb);
	for (unsigned i = 0; i < na; i++)
		assert_int_equal(a[i].trial.rate_bps, b[i].trial.rate_bps);
}

/* fit_trials above the trial list is refused; the phase has a name. */
static void test_config(void **state)
{
	struct knee_config cfg;
	struct knee k;

	(void)state;
	knee_config_defaults(&cfg);
	assert_int_equal(cfg.fit_trials, KNEE_DEFAULT_FIT_TRIALS);
	cfg.max_rate_bps = 1000 * M;
	cfg.fit_trials = KNEE_MAX_TRIALS + 1;
	assert_int_equal(knee_init(&k, &cfg), -EINVAL);
	assert_string_equal(knee_phase_name(KNEE_PHASE_FIT), "fit");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soft_knee),
		cmocka_unit_test(test_sharp_knee),
		cmocka_unit_test(test_config),
	};

	test_rng_state = 0xf17f17ULL; /* fixed: the same draws on every run */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
