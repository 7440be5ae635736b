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
#include "run_iperf3.h"
#include "run_schedule.h"
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
static void write_iperf3(const struct run_iperf3 *ri, const char *dir, char *unwritten, size_t len)
{
	char bad[256];
	int rc = run_iperf3_write(ri, dir, bad, sizeof(bad));
	size_t used = strlen(unwritten);

	if (!rc)
		return;
	log_err("could not write %s/%s: %s", dir, bad, strerror(-rc));
	snprintf(unwritten + used, len - used, "%s%s", used ? ", " : "", bad);
}

int cmd_run(int argc, char **argv)
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
	char unwritten[512] = "";
	struct run_options opt = { .unwritten = unwritten, .unwritten_len = sizeof(unwritten) };
	struct report_run_progress progress;
	struct run_iperf3 iperf3;
	struct run_schedule sched = { 0 };
	struct scenario *scn;
	struct results_run res;
	const char *file = NULL;
	char defpath[1024];
	bool dry = false, lines = true, plots = true, iperf3_json = false;
	char err[4096], dir[1024] = "";
	char why[VALUE_WHY_MAX];
	char *text;
	uint64_t v;
	unsigned fails;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:r:nh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			opt.results_root = optarg;
			break;
		case 'O':
			opt.out_dir = optarg;
			break;
		case 'r':
			if (value_get(VALUE_UINT, optarg, 1, 100, &v, why, sizeof(why)))
				return cli_opt_error("run", "--repetitions", why);
			opt.repetitions = (unsigned)v;
			break;
		case 'P':
			plots = false;
			break;
		case 'N':
			lines = false;
			break;
		case 'I':
			iperf3_json = true;
			break;
		case 'n':
			dry = true;
			break;
		case 'F':
			opt.force = true;
			break;
		case 'C':
			opt.confirm = true;
			break;
		case 'K':
			if (value_get(VALUE_UINT, optarg, 1, 100000, &v, why, sizeof(why)))
				return cli_opt_error("run", "--keep", why);
			sched.keep = (unsigned)v;
			break;
		case 'D':
			if (value_get(VALUE_UINT, optarg, 1, 100000, &v, why, sizeof(why)))
				return cli_opt_error("run", "--keep-days", why);
			sched.keep_days = (unsigned)v;
			break;
		case 'T':
			sched.textfile_dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if ((sched.keep || sched.keep_days) && opt.out_dir) {
		fprintf(stderr, "ovlperf run: --keep and --keep-days prune the runs under "
				"--results; a run in --out DIR is never pruned\n");
		return EXIT_USAGE;
	}
	if (optind < argc)
		file = argv[optind++];
	else
		file = default_scenario(defpath, sizeof(defpath));
	if (optind < argc) {
		fprintf(stderr, "ovlperf run: one scenario at a time ('%s' is extra)\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	scn = calloc(1, sizeof(*scn));
	if (!scn)
		return 1;
	rc = scenario_load(file, scn, err, sizeof(err));
	if (rc) {
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
	if (dry) {
		struct run_plan plan;

		run_plan_build(scn, opt.repetitions, &plan);
		report_run_plan(stdout, &plan);
		free(scn);
		return 0;
	}
	if (scn->is_lab && geteuid() != 0) {
		fprintf(stderr,
			"ovlperf run: %s builds a lab (network namespaces): run it as "
			"root\n",
			file);
		free(scn);
		return 1;
	}
	text = read_text(file);
	interrupt_install();
	report_run_progress_init(&progress, stderr, lines);
	opt.progress = report_run_progress;
	opt.progress_arg = &progress;
	if (iperf3_json)
		run_iperf3_attach(&iperf3, &opt);
	rc = run_scenario(scn, text, &opt, &res, dir, sizeof(dir));
	if (iperf3_json && dir[0])
		write_iperf3(&iperf3, dir, unwritten, sizeof(unwritten));
	if (iperf3_json)
		run_iperf3_free(&iperf3);
	free(text);
	free(scn);
	/* The summary is printed even for an interrupted run: what was measured
	 * is worth seeing. Plots are skipped then, so Ctrl-C ends the run fast. */
	if (dir[0])
		report_run_out_write(&res, dir, plots && rc != -EINTR, stdout, unwritten,
				     sizeof(unwritten));
	if (rc && res.stop_reason[0])
		fprintf(stderr, "ovlperf run: stopped: %s%s%s\n", res.stop_reason,
			dir[0] ? "; what was measured is in " : "", dir);
	fails = mtu_fails(&res);
	/* a refused, failed or interrupted run, or one with files unwritten,
	 * neither replaces the textfile nor prunes */
	if (!rc && !unwritten[0] && dir[0] && run_schedule_wanted(&sched) &&
	    run_schedule_after(&sched, &res,
			       opt.results_root ? opt.results_root : RUN_DEFAULT_RESULTS, dir,
			       unwritten, sizeof(unwritten)) &&
	    !unwritten[0]) {
		fprintf(stderr, "ovlperf run: the retention could not remove a run (above)\n");
		results_free(&res);
		return EXIT_UNWRITTEN;
	}
	results_free(&res);
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
