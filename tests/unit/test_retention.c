// SPDX-License-Identifier: MIT
/* retention.c: which runs --keep and --keep-days remove (a table of plain
 * cases), which directory names are a run's, and a prune of a scratch
 * results root that holds runs of the scenario, a run of another, a run
 * under a name ovlperf does not give, a foreign directory, a file and a
 * symbolic link: only the oldest runs of the scenario beyond N go. */
#include <errno.h>
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

#include "retention.h"
#include "run_fixture.h"

#define DAY 86400
#define NOW ((time_t)1800000000)

struct choose_case {
	const char *what;
	unsigned keep, keep_days;
	size_t n;
	time_t age_days[8]; /* of each run, in the order given (not sorted) */
	int current;	    /* index of the current run, or -1 */
	const char *want;   /* per run in the order given: 'r' removed, 'k' kept */
};

static const struct choose_case cases[] = {
	{ "nothing asked keeps all", 0, 0, 4, { 9, 1, 5, 3 }, -1, "kkkk" },
	{ "keep 2 of 4: the two oldest go", 2, 0, 4, { 9, 1, 5, 3 }, -1, "rkrk" },
	{ "keep 4 of 4 removes none", 4, 0, 4, { 9, 1, 5, 3 }, -1, "kkkk" },
	{ "keep 9 of 4 removes none", 9, 0, 4, { 9, 1, 5, 3 }, -1, "kkkk" },
	{ "keep 1: only the newest stays", 1, 0, 3, { 2, 0, 1 }, 1, "rkr" },
	{ "keep 1, current not the newest: it stays too", 1, 0, 3, { 2, 0, 1 }, 0, "kkr" },
	{ "older than 4 days go", 0, 4, 4, { 9, 1, 5, 3 }, -1, "rkrk" },
	{ "a current run older than the days stays", 0, 4, 2, { 9, 1 }, 0, "kk" },
	{ "both: the union of what each removes", 3, 6, 5, { 9, 1, 5, 3, 2 }, -1, "rkrkk" },
	{ "none at all", 3, 3, 0, { 0 }, -1, "" },
};

static void test_choose(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct choose_case *k = &cases[c];
		struct retention_run runs[8];
		size_t marked, want_marked = 0;

		memset(runs, 0, sizeof(runs));
		for (size_t i = 0; i < k->n; i++) {
			snprintf(runs[i].name, sizeof(runs[i].name), "run%zu", i);
			runs[i].started = NOW - k->age_days[i] * DAY - 60;
			runs[i].current = (int)i == k->current;
			want_marked += k->want[i] == 'r';
		}
		marked = retention_choose(runs, k->n, k->keep, k->keep_days, NOW);
		if (marked != want_marked)
			fail_msg("%s: %zu marked, want %zu", k->what, marked, want_marked);
		/* sorted now: find each run by its name */
		for (size_t i = 0; i < k->n; i++) {
			char name[16];
			bool found = false;

			snprintf(name, sizeof(name), "run%zu", i);
			for (size_t j = 0; j < k->n; j++)
				if (!strcmp(runs[j].name, name)) {
					found = true;
					if (runs[j].remove != (k->want[i] == 'r'))
						fail_msg("%s: %s %s", k->what, name,
							 runs[j].remove ? "removed" : "kept");
				}
			assert_true(found);
		}
		for (size_t j = 1; j < k->n; j++)
			assert_true(runs[j - 1].started <= runs[j].started);
	}
}

/* Two runs that started in one second are ordered by name (-2 after). */
static void test_choose_same_second(void **state)
{
	struct retention_run runs[2] = { { .name = "20261203T100000Z-s-2", .started = NOW },
					 { .name = "20261203T100000Z-s", .started = NOW } };

	(void)state;
	assert_int_equal(retention_choose(runs, 2, 1, 0, NOW), 1);
	assert_string_equal(runs[0].name, "20261203T100000Z-s");
	assert_true(runs[0].remove);
	assert_false(runs[1].remove);
}

static void test_names(void **state)
{
	static const struct {
		const char *name, *scenario;
		bool match;
	} t[] = {
		{ "20261203T175500Z-lab", "lab", true },
		{ "20261203T175500Z-lab-2", "lab", true },
		{ "20261203T175500Z-lab-99", "lab", true },
		{ "20261203T175500Z-lab-1", "lab", false },
		{ "20261203T175500Z-lab-100", "lab", false },
		{ "20261203T175500Z-lab-02", "lab", false },
		{ "20261203T175500Z-lab-x", "lab", false },
		{ "20261203T175500Z-labs", "lab", false },
		{ "20261203T175500Z-my_lab", "my lab", true },
		{ "20261203T175500Z-_x", ".x", true },
		{ "20261203T175500Z-run", "", true },
		{ "20261203T175500-lab", "lab", false },
		{ "2026120XT175500Z-lab", "lab", false },
		{ "20261203T175500Z", "lab", false },
		{ "20261203T175500Zlab", "lab", false },
		{ "keep-me", "lab", false },
		{ "..", "lab", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (retention_name_matches(t[i].name, t[i].scenario) != t[i].match)
			fail_msg("%s of '%s': want %s", t[i].name, t[i].scenario,
				 t[i].match ? "a match" : "none");
}

static void write_run(const char *root, const char *name, const char *scenario, const char *started)
{
	struct results_run run;
	char dir[512], path[600];

	fixture_run(&run);
	snprintf(run.scenario_name, sizeof(run.scenario_name), "%s", scenario);
	snprintf(run.started_utc, sizeof(run.started_utc), "%s", started);
	snprintf(dir, sizeof(dir), "%s/%s", root, name);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/run.json", dir);
	assert_int_equal(results_write_json(&run, path), 0);
	/* a file of the run beside run.json, and a subdirectory */
	snprintf(path, sizeof(path), "%s/report.md", dir);
	fclose(fopen(path, "w"));
	snprintf(path, sizeof(path), "%s/iperf3", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	results_free(&run);
}

static bool exists(const char *root, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	return lstat(path, &st) == 0;
}

static void test_prune(void **state)
{
	char root[] = "/tmp/test_retention.XXXXXX", path[512], cmd[600];
	unsigned removed = 99;

	(void)state;
	assert_non_null(mkdtemp(root));
	write_run(root, "20261201T000000Z-s", "s", "2026-12-01T00:00:00Z");
	write_run(root, "20261202T000000Z-s", "s", "2026-12-02T00:00:00Z");
	write_run(root, "20261202T000000Z-s-2", "s", "2026-12-02T00:00:00Z");
	write_run(root, "20261203T000000Z-s", "s", "2026-12-03T00:00:00Z");
	write_run(root, "20261204T000000Z-s", "s", "2026-12-04T00:00:00Z");
	/* the oldest of all, but another scenario's */
	write_run(root, "20261130T000000Z-t", "t", "2026-11-30T00:00:00Z");
	/* a run of s under a name ovlperf does not give (run --out) */
	write_run(root, "mine", "s", "2026-11-29T00:00:00Z");
	/* a directory of the right name without a run.json, a run.json that
	 * is not one, a file and a symbolic link of run names */
	snprintf(path, sizeof(path), "%s/20261128T000000Z-s", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/20261127T000000Z-s", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/20261127T000000Z-s/run.json", root);
	fclose(fopen(path, "w"));
	snprintf(path, sizeof(path), "%s/20261126T000000Z-s", root);
	fclose(fopen(path, "w"));
	snprintf(path, sizeof(path), "%s/20261125T000000Z-s", root);
	assert_int_equal(symlink("20261201T000000Z-s", path), 0);

	assert_int_equal(retention_prune(root, "s", "20261204T000000Z-s", 2, 0, &removed), 0);
	assert_int_equal(removed, 3);
	assert_false(exists(root, "20261201T000000Z-s"));
	assert_false(exists(root, "20261202T000000Z-s"));
	assert_false(exists(root, "20261202T000000Z-s-2"));
	assert_true(exists(root, "20261203T000000Z-s/run.json"));
	assert_true(exists(root, "20261204T000000Z-s/iperf3"));
	assert_true(exists(root, "20261130T000000Z-t/run.json"));
	assert_true(exists(root, "mine/run.json"));
	assert_true(exists(root, "20261128T000000Z-s"));
	assert_true(exists(root, "20261127T000000Z-s/run.json"));
	assert_true(exists(root, "20261126T000000Z-s"));
	assert_true(exists(root, "20261125T000000Z-s"));

	/* again: nothing more to remove */
	assert_int_equal(retention_prune(root, "s", "20261204T000000Z-s", 2, 0, &removed), 0);
	assert_int_equal(removed, 0);
	/* a root that is not there: an error, nothing removed */
	snprintf(path, sizeof(path), "%s/none", root);
	assert_int_equal(retention_prune(path, "s", "x", 1, 0, &removed), -ENOENT);
	assert_int_equal(removed, 0);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose),
		cmocka_unit_test(test_choose_same_second),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_prune),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
