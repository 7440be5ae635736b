// SPDX-License-Identifier: MIT
/*
 * The knee driver (knee_drive.c) with an injected runner and no sockets:
 * simulated systems (a sharp knee, a sender that tops out, a noisy path)
 * answer its tries, and a script makes chosen tries fail, measure nothing
 * the search accepts, or stop the search. The table says how the search
 * must end, after how many tries and counted trials, and why; without
 * failures the driver must ask exactly the trials the bare search asks.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "knee_drive.h"
#include "knee_fixture.h"

#define MAX_SCRIPT 4

enum act { ACT_FAIL = 1, ACT_BAD, ACT_STOP, ACT_INTR };

/* The runner: a system, and what happens at chosen tries (1-based). */
struct script {
	struct sys sys;
	double noise_p;	   /* probability that a trial loses 2e-5 (seeded) */
	uint64_t setup_ns; /* each try's own time beyond its trial (0: not said) */
	uint64_t rng;
	struct {
		unsigned try_no;
		enum act act;
	} at[MAX_SCRIPT];
	/* what the driver asked */
	unsigned tries;
	struct knee_drive_try seen[KNEE_MAX_TRIALS + 4];
};

static double rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (double)((*s * 2685821657736338717ULL) >> 11) / (double)(1ULL << 53);
}

static struct knee_measurement sim(struct script *sc, const struct knee_trial *t,
				   const struct knee_config *cfg)
{
	struct step st = { (double)t->rate_bps / 1e6, t->duration_ns >= cfg->final_ns ? 'F' : 'S',
			   t->phase, 0, 0 };

	if (sc->noise_p > 0 && rnd(&sc->rng) < sc->noise_p)
		st.noise = 2e-5;
	return fix_measure(&sc->sys, &st);
}

static const struct knee_config *cfg_of_drive; /* for the runner's durations */

static int runner(void *arg, const struct knee_drive_try *t, struct knee_measurement *m,
		  uint64_t *wall_ns)
{
	struct script *sc = arg;
	unsigned no = ++sc->tries;

	if (sc->setup_ns)
		*wall_ns = t->trial.duration_ns + sc->setup_ns;
	if (no <= sizeof(sc->seen) / sizeof(sc->seen[0]))
		sc->seen[no - 1] = *t;
	for (unsigned i = 0; i < MAX_SCRIPT; i++) {
		if (sc->at[i].try_no != no)
			continue;
		switch (sc->at[i].act) {
		case ACT_FAIL:
			return -ECONNREFUSED;
		case ACT_BAD:
			*m = (struct knee_measurement){ .loss_ratio = 1.5 };
			return 0;
		case ACT_STOP:
			return -ECANCELED;
		case ACT_INTR:
			return -EINTR;
		}
	}
	*m = sim(sc, &t->trial, cfg_of_drive);
	return 0;
}

struct row {
	const char *name;
	struct script sc;
	unsigned max_trials;  /* 0: the default */
	uint64_t max_time_ns; /* 0: the default */
	enum knee_drive_end end;
	unsigned tries, counted; /* tries run, trials recorded */
	int rc;			 /* d.rc at the end: the last try not counted, or the stop */
	const char *stopped;	 /* part of d.stopped; NULL: empty */
};

static const struct row rows[] = {
	{ "sharp knee: to the end, every try counted", .sc = { .sys = { .knee = 47e6 } },
	  .end = KNEE_DRIVE_DONE },
	{ "generator-limited sender: to the end, its repeats are the search's",
	  .sc = { .sys = { .knee = 110e6, .gen_max = 80e6 } }, .end = KNEE_DRIVE_DONE },
	{ "noisy path: to the end", .sc = { .sys = { .knee = 100e6 }, .noise_p = 0.3, .rng = 7 },
	  .end = KNEE_DRIVE_DONE },
	{ "one failed try is asked again, the search goes on",
	  .sc = { .sys = { .knee = 47e6 }, .at = { { 3, ACT_FAIL } } }, .end = KNEE_DRIVE_DONE,
	  .rc = -ECONNREFUSED },
	{ "two failed tries in a row end the search",
	  .sc = { .sys = { .knee = 47e6 }, .at = { { 3, ACT_FAIL }, { 4, ACT_FAIL } } },
	  .end = KNEE_DRIVE_FAILED, .tries = 4, .counted = 2, .rc = -ECONNREFUSED,
	  .stopped = "2 trials in a row at 47.5 Mbit/s could not be counted, the last: Connection "
		     "refused" },
	{ "a measurement the search refuses, twice, ends it",
	  .sc = { .sys = { .knee = 47e6 }, .at = { { 1, ACT_BAD }, { 2, ACT_BAD } } },
	  .end = KNEE_DRIVE_FAILED, .tries = 2, .counted = 0, .rc = -EINVAL,
	  .stopped = "2 trials in a row at 1000.0 Mbit/s could not be counted, the last: it "
		     "measured nothing the search accepts" },
	{ "failures apart are asked again each time",
	  .sc = { .sys = { .knee = 47e6 }, .at = { { 2, ACT_FAIL }, { 4, ACT_FAIL } } },
	  .end = KNEE_DRIVE_DONE, .rc = -ECONNREFUSED },
	{ "max_trials bounds the tries, counted or not",
	  .sc = { .sys = { .knee = 47e6 },
		  .at = { { 1, ACT_FAIL }, { 3, ACT_FAIL }, { 5, ACT_FAIL } } },
	  .max_trials = 5, .end = KNEE_DRIVE_ATTEMPTS, .tries = 5, .counted = 2,
	  .rc = -ECONNREFUSED,
	  .stopped = "5 trials run (max_trials), 3 of them could not be counted" },
	{ "max_time bounds the search's own time, setup included: 1 s trials and 0.25 s setup "
	  "in 5 s: the 5th try would end beyond it",
	  .sc = { .sys = { .knee = 47e6 }, .setup_ns = SEC / 4 }, .max_time_ns = 5 * SEC,
	  .end = KNEE_DRIVE_TIME, .tries = 4, .counted = 4,
	  .stopped = "5.0 s of trials (max_time 5.0 s): the next, of 1.0 s, would end beyond it" },
	{ "max_time: a failed try's time counts too",
	  .sc = { .sys = { .knee = 47e6 }, .setup_ns = SEC / 4, .at = { { 2, ACT_FAIL } } },
	  .max_time_ns = 5 * SEC, .end = KNEE_DRIVE_TIME, .tries = 4, .counted = 3,
	  .rc = -ECONNREFUSED, .stopped = "(max_time 5.0 s)" },
	{ "max_trials counted: the search's own end", .sc = { .sys = { .knee = 47e6 } },
	  .max_trials = 3, .end = KNEE_DRIVE_DONE, .tries = 3, .counted = 3 },
	{ "the runner stops the search (a run that stops)",
	  .sc = { .sys = { .knee = 47e6 }, .at = { { 3, ACT_STOP } } }, .end = KNEE_DRIVE_STOPPED,
	  .tries = 3, .counted = 2, .rc = -ECANCELED },
	{ "an interrupt stops it at once, a failure before it or not",
	  .sc = { .sys = { .knee = 47e6 }, .at = { { 2, ACT_FAIL }, { 3, ACT_INTR } } },
	  .end = KNEE_DRIVE_STOPPED, .tries = 3, .counted = 1, .rc = -EINTR },
};

/* The trials the bare search asks for the same system, without failures. */
static unsigned bare_search(const struct row *rw, const struct knee_config *cfg,
			    struct knee_trial *out)
{
	static struct knee k;
	struct script sc = rw->sc;
	struct knee_trial t;
	unsigned n = 0;

	assert_int_equal(knee_init(&k, cfg), 0);
	while (knee_next(&k, &t)) {
		struct knee_measurement m = sim(&sc, &t, &k.cfg);

		out[n++] = t;
		assert_int_equal(knee_record(&k, &m), 0);
	}
	return n;
}

/* Each try says where the search is: its number among the tries, the
 * number of the trial it is, and whether it repeats the one before (then
 * it is the same trial, which the search could not count). */
static void check_tries(const struct script *sc)
{
	for (unsigned i = 0; i < sc->tries; i++) {
		const struct knee_drive_try *t = &sc->seen[i], *prev = i ? &sc->seen[i - 1] : NULL;

		assert_int_equal(t->tries, i);
		if (!prev) {
			assert_int_equal(t->trial_no, 1);
			assert_int_equal(t->again, 0);
		} else if (t->again) {
			assert_int_equal(t->trial_no, prev->trial_no);
			assert_memory_equal(&t->trial, &prev->trial, sizeof(t->trial));
		} else {
			assert_int_equal(t->trial_no, prev->trial_no + 1);
		}
	}
}

static void test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *rw = &rows[i];
		static struct knee_drive d;
		static struct knee_trial bare[KNEE_MAX_TRIALS];
		struct script sc = rw->sc;
		struct knee_config cfg;
		unsigned nbare, n;
		const struct knee_record *tr;

		knee_config_defaults(&cfg);
		cfg.max_rate_bps = 1000 * M;
		if (rw->max_trials)
			cfg.max_trials = rw->max_trials;
		cfg.max_time_ns = rw->max_time_ns;
		assert_int_equal(knee_drive_init(&d, &cfg, runner, &sc), 0);
		cfg_of_drive = &d.k.cfg;
		assert_int_equal(knee_drive_run(&d), rw->end);
		tr = knee_trials(&d.k, &n);
		print_message("%s: %u tries, %u counted, end %d, rc %d, \"%s\"\n", rw->name,
			      d.tries, n, d.end, d.rc, d.stopped);
		assert_int_equal(d.tries, sc.tries);
		check_tries(&sc);
		if (rw->stopped)
			assert_non_null(strstr(d.stopped, rw->stopped));
		else
			assert_string_equal(d.stopped, "");
		assert_int_equal(d.rc, rw->rc);
		/* stepping an ended search does nothing */
		assert_int_equal(knee_drive_step(&d), KNEE_DRIVE_END);
		assert_int_equal(sc.tries, d.tries);
		if (rw->end != KNEE_DRIVE_DONE) {
			struct knee_result res;

			assert_int_equal(d.tries, rw->tries);
			assert_int_equal(n, rw->counted);
			knee_get_result(&d.k, &res);
			assert_false(res.done);
			continue;
		}
		if (rw->tries)
			assert_int_equal(d.tries, rw->tries);
		/* the counted trials are the bare search's, in order (a failed
		 * try changes nothing the search knows) */
		nbare = bare_search(rw, &d.k.cfg, bare);
		assert_int_equal(n, nbare);
		for (unsigned j = 0; j < n; j++) {
			assert_memory_equal(&tr[j].trial, &bare[j], sizeof(bare[j]));
			assert_int_equal(tr[j].m.offered_bps, bare[j].rate_bps);
		}
		assert_true(knee_done(&d.k));
	}
}

/* Abandoning keeps what was measured; an ended search stays as it ended. */
static void test_abandon(void **state)
{
	static struct knee_drive d;
	struct script sc = { .sys = { .knee = 47e6 } };
	struct knee_config cfg;
	struct knee_result res;

	(void)state;
	knee_config_defaults(&cfg);
	cfg.max_rate_bps = 1000 * M;
	assert_int_equal(knee_drive_init(&d, &cfg, runner, &sc), 0);
	cfg_of_drive = &d.k.cfg;
	assert_int_equal(knee_drive_step(&d), KNEE_DRIVE_COUNTED);
	assert_int_equal(knee_drive_step(&d), KNEE_DRIVE_COUNTED);
	knee_drive_abandon(&d);
	assert_int_equal(d.end, KNEE_DRIVE_STOPPED);
	assert_int_equal(knee_drive_step(&d), KNEE_DRIVE_END);
	knee_get_result(&d.k, &res);
	assert_int_equal(res.ntrials, 2);
	assert_false(res.done);
	assert_int_equal(res.mrr_bps, 47 * M);

	sc = (struct script){ .sys = { .knee = 47e6 } };
	assert_int_equal(knee_drive_init(&d, &cfg, runner, &sc), 0);
	cfg_of_drive = &d.k.cfg;
	assert_int_equal(knee_drive_run(&d), KNEE_DRIVE_DONE);
	knee_drive_abandon(&d);
	assert_int_equal(d.end, KNEE_DRIVE_DONE);
	knee_get_result(&d.k, &res);
	assert_true(res.done);
	assert_int_equal(res.bound[KNEE_NDR].outcome, KNEE_FOUND);

	cfg.max_rate_bps = 0;
	assert_int_equal(knee_drive_init(&d, &cfg, runner, &sc), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_abandon),
	};

	return cmocka_run_group_tests_name("knee_drive", tests, NULL, NULL);
}
