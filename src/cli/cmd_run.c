// SPDX-License-Identifier: MIT
/* `ovlperf run [SCENARIO]`: the comparison suite (run.h). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "cli_opt.h"
#include "cmd.h"
#include "interrupt.h"
#include "log.h"
#include "report_run.h"
#include "report_suite.h"
#include "results.h"
#include "run.h"
#include "cmd_run_iperf3.h"
#include "cmd_run_schedule.h"
#include "scenario.h"
#include "value.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ovlperf run [options] [SCENARIO]\n"
		"Compares the paths a scenario names (underlay, built-in overlay, external\n"
		"VPNs) with identical TCP and UDP loads, interleaved, and reports what each\n"
		"overlay costs. Without SCENARIO: %s (a lab on this machine; an\n"
		"installed ovlperf finds it in PREFIX/share/ovlperf).\n\n"
		"  -o, --results DIR     parent of the results directory (default: %s)\n"
		"      --out DIR         write the results exactly into DIR (refused when DIR\n"
		"                        holds a run already, unless --force)\n"
		"      --force           overwrite the run in --out DIR; replace a lab of the\n"
		"                        scenario's [lab] name made by 'ovlperf lab up' (what\n"
		"                        runs in it is killed). Without it the run refuses\n"
		"                        both and touches nothing\n"
		"  -r, --repetitions N   override the scenario's repetitions\n"
		"      --confirm         after the trials, rerun each limited TCP figure once\n"
		"                        with its fix applied where ovlperf may (its own lab's\n"
		"                        TCP buffer maxima, the test's own -w and -C; never a\n"
		"                        host it did not make), report the figure before and\n"
		"                        after, and put back what it changed\n"
		"      --no-plots        do not run gnuplot\n"
		"      --no-progress     no progress line on stderr\n"
		"      --iperf3-json     also each trial as iperf3's -J document, in the\n"
		"                        results directory's iperf3/ (docs/json.md)\n"
		"  -n, --dry-run         check the scenario and print the plan; run nothing\n"
		"      --keep N          after a run that completed: remove the oldest runs of\n"
		"                        the scenario under --results beyond the newest N\n"
		"      --keep-days D     ... and those that started more than D days ago.\n"
		"                        Only directories ovlperf named and wrote a run.json\n"
		"                        of the scenario into are removed, nothing else\n"
		"      --textfile-dir DIR  after a run that completed: its figures as\n"
		"                        OpenMetrics in DIR/ovlperf-<scenario>.prom, replaced\n"
		"                        atomically (a node exporter's textfile collector)\n"
		"  -h, --help\n\n"
		"Writes <results>/<UTC time>-<scenario>/: run.json, summary.csv, report.md,\n"
		"report.html (one page, the plots embedded), *.svg.\n\n"
		"A lab the run builds is the run's: it is removed at the end, and if the run\n"
		"is killed, by the next run of that lab name. A lab made by 'ovlperf lab up'\n"
		"is never touched without --force.\n\n"
		"A [host.*] psk_file authenticates to that host's 'ovlperf server --psk-file'.\n"
		"%s\n"
		"Exit status (the first that applies):\n"
		"  2      bad usage or scenario\n"
		"  3      a file of the results directory or the textfile could not be\n"
		"         written (full disk, permissions): the files are named on stderr,\n"
		"         do not trust them; or a run the retention chose was not removed\n"
		"  128+N  interrupted by signal N (kept as incomplete)\n"
		"  1      the run failed (kept as incomplete), or refused to start (a lab\n"
		"         made by 'lab up', a run already in --out DIR): nothing touched\n"
		"  4      the run completed, but an MTU / MSS check says FAIL\n"
		"  0      complete, every file written, no FAIL verdict\n",
		RUN_DEFAULT_SCENARIO, RUN_DEFAULT_RESULTS, AUTH_PSK_FILE_HELP);
}

/* Without an argument the default scenario is looked up in the current
 * directory, then next to the binary and one level up (./ovlperf and
 * build-x/ovlperf in a source tree), then where `make install` puts it
 * (PREFIX/bin/ovlperf and PREFIX/share/ovlperf/scenarios). */
static const char *default_scenario(char *buf, size_t len)
{
	char exe[768];
	ssize_t n;
	char *slash;

	if (access(RUN_DEFAULT_SCENARIO, R_OK) == 0)
		return RUN_DEFAULT_SCENARIO;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return RUN_DEFAULT_SCENARIO;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return RUN_DEFAULT_SCENARIO;
	*slash = '\0';
	snprintf(buf, len, "%s/%s", exe, RUN_DEFAULT_SCENARIO);
	if (access(buf, R_OK) == 0)
		return buf;
	snprintf(buf, len, "%s/../%s", exe, RUN_DEFAULT_SCENARIO);
	if (access(buf, R_OK) == 0)
		return buf;
	snprintf(buf, len, "%s/../share/ovlperf/%s", exe, RUN_DEFAULT_SCENARIO);
	if (access(buf, R_OK) == 0)
		return buf;
	return RUN_DEFAULT_SCENARIO;
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int c;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	if (!m) {
		fclose(f);
		return NULL;
	}
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

static unsigned mtu_fails(const struct results_run *res)
{
	unsigned n = 0;

	for (size_t i = 0; i < res->nmtu; i++)
		n += res->mtu[i].verdict == RESULTS_FAIL;
	return n;
}

/* --iperf3-json: the trials' documents beside run.json; a file that could
 * not be written joins the unwritten list. */
static void write_iperf3(const struct cmd_run_iperf3 *ri, const char *dir, char *unwritten,
			 size_t len)
{
	char bad[256];
	int rc = cmd_run_iperf3_write(ri, dir, bad, sizeof(bad));
	size_t used = strlen(unwritten);

	if (!rc)
		return;
	log_err("could not write %s/%s: %s", dir, bad, strerror(-rc));
	snprintf(unwritten + used, len - used, "%s%s", used ? ", " : "", bad);
}

/* What `ovlperf run`'s options and argument ask for. */
struct run_args {
	struct run_options opt;
	struct cmd_run_schedule sched;
	const char *file;
	char defpath[1024];
	bool dry, lines, plots, iperf3_json;
};

/* One option (getopt_long()'s c) into a: -1 to go on, else the exit status. */
static int parse_opt(int c, struct run_args *a)
{
	char why[VALUE_WHY_MAX];
	uint64_t v;

	switch (c) {
	case 'o':
		a->opt.results_root = optarg;
		break;
	case 'O':
		a->opt.out_dir = optarg;
		break;
	case 'r':
		if (value_get(VALUE_UINT, optarg, 1, 100, &v, why, sizeof(why)))
			return cli_opt_error("run", "--repetitions", why);
		a->opt.repetitions = (unsigned)v;
		break;
	case 'P':
		a->plots = false;
		break;
	case 'N':
		a->lines = false;
		break;
	case 'I':
		a->iperf3_json = true;
		break;
	case 'n':
		a->dry = true;
		break;
	case 'F':
		a->opt.force = true;
		break;
	case 'C':
		a->opt.confirm = true;
		break;
	case 'K':
		if (value_get(VALUE_UINT, optarg, 1, 100000, &v, why, sizeof(why)))
			return cli_opt_error("run", "--keep", why);
		a->sched.keep = (unsigned)v;
		break;
	case 'D':
		if (value_get(VALUE_UINT, optarg, 1, 100000, &v, why, sizeof(why)))
			return cli_opt_error("run", "--keep-days", why);
		a->sched.keep_days = (unsigned)v;
		break;
	case 'T':
		a->sched.textfile_dir = optarg;
		break;
	default: /* -h, or what it does not take */
		return cli_opt_usage(c, usage);
	}
	return -1;
}

/* The options and the one scenario (or the default's path) into a: -1 to
 * go on, else the exit status. */
static int parse_args(int argc, char **argv, struct run_args *a)
{
	static const struct option opts[] = {
		{ "results", required_argument, NULL, 'o' },
		{ "out", required_argument, NULL, 'O' },
		{ "repetitions", required_argument, NULL, 'r' },
		{ "no-plots", no_argument, NULL, 'P' },
		{ "no-progress", no_argument, NULL, 'N' },
		{ "iperf3-json", no_argument, NULL, 'I' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'F' },
		{ "confirm", no_argument, NULL, 'C' },
		{ "keep", required_argument, NULL, 'K' },
		{ "keep-days", required_argument, NULL, 'D' },
		{ "textfile-dir", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:r:nh", opts, NULL)) != -1)
		if ((rc = parse_opt(c, a)) >= 0)
			return rc;
	if ((a->sched.keep || a->sched.keep_days) && a->opt.out_dir) {
		fprintf(stderr, "ovlperf run: --keep and --keep-days prune the runs under "
				"--results; a run in --out DIR is never pruned\n");
		return EXIT_USAGE;
	}
	if (optind < argc)
		a->file = argv[optind++];
	else
		a->file = default_scenario(a->defpath, sizeof(a->defpath));
	if (optind < argc) {
		fprintf(stderr, "ovlperf run: one scenario at a time ('%s' is extra)\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	return -1;
}

/* The scenario file into *out (to free); else EXIT_USAGE with every problem
 * on stderr (1 without memory). */
static int load_scenario(const char *file, struct scenario **out)
{
	struct scenario *scn = calloc(1, sizeof(*scn));
	char err[4096];
	int rc;

	if (!scn)
		return 1;
	rc = scenario_load(file, scn, err, sizeof(err));
	if (!rc) {
		*out = scn;
		return 0;
	}
	/* err names the file (and line and key) on each of its lines */
	if (err[0])
		for (char *l = err, *nl; *l; l = nl) {
			nl = l + strcspn(l, "\n");
			fprintf(stderr, "ovlperf run: %.*s\n", (int)(nl - l), l);
			nl += *nl == '\n';
		}
	else
		fprintf(stderr, "ovlperf run: %s: %s\n", file, strerror(-rc));
	free(scn);
	return EXIT_USAGE;
}

/* The run itself, its progress drawn on stderr, then its files and summary
 * (and --iperf3-json's documents) written into dir; run_scenario()'s result. */
static int run_and_write(struct run_args *a, const struct scenario *scn, struct results_run *res,
			 char *dir, size_t dirlen)
{
	struct report_run_progress progress;
	struct cmd_run_iperf3 iperf3;
	char *text = read_text(a->file);
	int rc;

	interrupt_install();
	report_run_progress_init(&progress, stderr, a->lines);
	a->opt.progress = report_run_progress;
	a->opt.progress_arg = &progress;
	if (a->iperf3_json)
		cmd_run_iperf3_attach(&iperf3, &a->opt);
	rc = run_scenario(scn, text, &a->opt, res, dir, dirlen);
	if (a->iperf3_json && dir[0])
		write_iperf3(&iperf3, dir, a->opt.unwritten, a->opt.unwritten_len);
	if (a->iperf3_json)
		cmd_run_iperf3_free(&iperf3);
	free(text);
	/* The summary is printed even for an interrupted run: what was measured
	 * is worth seeing. Plots are skipped then, so Ctrl-C ends the run fast. */
	if (dir[0])
		report_run_out_write(res, dir, a->plots && rc != -EINTR, stdout, a->opt.unwritten,
				     a->opt.unwritten_len);
	if (rc && res->stop_reason[0])
		fprintf(stderr, "ovlperf run: stopped: %s%s%s\n", res->stop_reason,
			dir[0] ? "; what was measured is in " : "", dir);
	return rc;
}

/* After a complete run with every file written, the retention and the
 * textfile (--keep, --keep-days, --textfile-dir); then the exit status, the
 * first of usage()'s list that applies. rc: run_scenario()'s. */
static int run_exit(struct run_args *a, const struct results_run *res, int rc, const char *dir)
{
	char *unwritten = a->opt.unwritten;
	unsigned fails = mtu_fails(res);

	/* a refused, failed or interrupted run, or one with files unwritten,
	 * neither replaces the textfile nor prunes */
	if (!rc && !unwritten[0] && dir[0] && cmd_run_schedule_wanted(&a->sched) &&
	    cmd_run_schedule_after(&a->sched, res,
				   a->opt.results_root ? a->opt.results_root : RUN_DEFAULT_RESULTS,
				   dir, unwritten, a->opt.unwritten_len) &&
	    !unwritten[0]) {
		fprintf(stderr, "ovlperf run: the retention could not remove a run (above)\n");
		return EXIT_UNWRITTEN;
	}
	if (unwritten[0]) {
		fprintf(stderr, "ovlperf run: could not write %s%s%s\n", unwritten,
			dir[0] ? " in " : "", dir);
		return EXIT_UNWRITTEN;
	}
	if (rc == -EINTR)
		return 128 + (interrupt_signal() ? interrupt_signal() : SIGINT);
	if (rc)
		return 1;
	if (fails) {
		fprintf(stderr, "ovlperf run: %u MTU / MSS check%s say%s FAIL (see report.md)\n",
			fails, fails > 1 ? "s" : "", fails > 1 ? "" : "s");
		return EXIT_VERDICT_FAIL;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	char unwritten[512] = "", dir[1024] = "";
	struct run_args a = {
		.opt = { .unwritten = unwritten, .unwritten_len = sizeof(unwritten) },
		.lines = true,
		.plots = true,
	};
	struct scenario *scn;
	struct results_run res;
	int rc = parse_args(argc, argv, &a);

	if (rc >= 0)
		return rc;
	rc = load_scenario(a.file, &scn);
	if (rc)
		return rc;
	if (a.dry) {
		struct run_plan plan;

		run_plan_build(scn, a.opt.repetitions, &plan);
		report_run_plan(stdout, &plan);
		free(scn);
		return 0;
	}
	if (scn->is_lab && geteuid() != 0) {
		fprintf(stderr,
			"ovlperf run: %s builds a lab (network namespaces): run it as "
			"root\n",
			a.file);
		free(scn);
		return 1;
	}
	rc = run_and_write(&a, scn, &res, dir, sizeof(dir));
	free(scn);
	rc = run_exit(&a, &res, rc, dir);
	results_free(&res);
	return rc;
}
