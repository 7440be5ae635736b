// SPDX-License-Identifier: MIT
/* `ovlperf report DIR` re-renders a run from its run.json (or prints it as
 * OpenMetrics or HTML); `ovlperf report DIR1 DIR2` compares two runs figure
 * by figure, each change judged against its repetitions' noise. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_opt.h"
#include "cmd.h"
#include "report_run.h"
#include "results.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ovlperf report [options] DIR [DIR2]\n"
		"  DIR          a results directory (or its run.json): prints the summary and\n"
		"               rewrites summary.csv, report.md, report.html and the plots\n"
		"               from run.json\n"
		"  DIR DIR2     compares two runs: every figure both have, with B - A, the\n"
		"               change's interval from the repetitions and its verdict\n"
		"  --matrix DIR...  merges pair runs into host x host tables (--matrix --help)\n"
		"  --trend DIR...  every run of a scenario over time, each figure's segments and\n"
		"               where one starts lower or higher (--trend --help)\n\n"
		"  -F, --format FMT  what DIR prints on stdout: summary (default; rewrites\n"
		"               the directory's files), openmetrics (the figures as\n"
		"               OpenMetrics text, for a textfile collector or a push\n"
		"               gateway) or html (report.html with the plots in DIR\n"
		"               embedded); the last two leave the directory as it is\n"
		"  -o, --output FILE  with -F openmetrics: write FILE instead of printing,\n"
		"               atomically (a temporary file beside it, then a rename), so\n"
		"               that a textfile collector never reads a part of it\n"
		"  --no-write   only print (leave the directory as it is)\n"
		"  --threshold PCT  DIR DIR2: the least change of a rate called a\n"
		"               regression or progression (default 10 %%; one-way delay\n"
		"               is held to its own: docs/compare.md)\n"
		"  --threshold-cpu PCT  DIR DIR2: the same for CPU per Gbit (default: not\n"
		"               judged, never a regression: it moves between runs of one\n"
		"               setup far beyond its repetitions)\n"
		"  --confidence PCT  DIR DIR2: of the change's interval (default 90 %%)\n"
		"  --json       DIR DIR2: the comparison as one JSON document\n"
		"  --fail-on-regression  DIR DIR2: exit 5 when a figure regressed\n"
		"  --history ROOT  DIR DIR2: earlier runs of A's scenario (a results root):\n"
		"               a figure with 4 runs there is held to 3 times its run-to-run\n"
		"               noise instead of its documented threshold\n"
		"  --no-plots   do not run gnuplot\n"
		"  -h, --help\n");
}

/* DIR or DIR/run.json -> the run.json path and the directory. */
static int load(const char *arg, struct results_run *run, char *dir, size_t dirlen)
{
	char path[1200], err[512];
	struct stat st;
	int rc;

	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(path, sizeof(path), "%s/run.json", arg);
		snprintf(dir, dirlen, "%s", arg);
	} else {
		const char *slash = strrchr(arg, '/');

		snprintf(path, sizeof(path), "%s", arg);
		if (slash)
			snprintf(dir, dirlen, "%.*s", (int)(slash - arg), arg);
		else
			snprintf(dir, dirlen, ".");
	}
	rc = results_read_json(path, run, err, sizeof(err));
	if (rc)
		fprintf(stderr, "ovlperf report: %s: %s\n", path, err);
	return rc;
}

enum report_format { FMT_SUMMARY, FMT_OPENMETRICS, FMT_HTML };

static int parse_format(const char *s, enum report_format *fmt)
{
	static const char *const names[] = { "summary", "openmetrics", "html" };
	char why[160];
	int i = cli_opt_choice(s, names, sizeof(names) / sizeof(names[0]), why, sizeof(why));

	if (i < 0) {
		cli_opt_error("report", "--format", why);
		return -EINVAL;
	}
	*fmt = (enum report_format)i;
	return 0;
}

/* A run printed to stdout in fmt; the directory is only read. */
static int print_run(const struct results_run *run, const char *dir, enum report_format fmt,
		     const char *output)
{
	struct report_run rr;
	struct plot_set set;
	int rc = report_run_prepare(&rr, run);

	if (rc)
		return rc;
	if (fmt == FMT_OPENMETRICS && output) {
		rc = report_run_openmetrics_file(output, &rr);
	} else if (fmt == FMT_OPENMETRICS) {
		rc = report_run_openmetrics(stdout, &rr);
	} else if (fmt == FMT_HTML) {
		report_run_plot_existing(dir, &set);
		rc = report_run_html(stdout, &rr, &set, dir);
	} else {
		report_run_term(stdout, &rr);
	}
	if ((fflush(stdout) || ferror(stdout)) && !rc)
		rc = -EIO;
	report_run_release(&rr);
	return rc;
}

/* A percentage option into a fraction. */
static int parse_pct(const char *opt, const char *s, double lo, double hi, double *out)
{
	char why[160];
	double pct;

	if (value_get_percent(s, lo, hi, &pct, why, sizeof(why))) {
		cli_opt_error("report", opt, why);
		return -EINVAL;
	}
	*out = pct / 100;
	return 0;
}

static int compare(const char *a, const char *b, struct report_diff_options *o, bool fail)
{
	struct results_run ra, rb;
	struct report_run pa, pb;
	char da[1024], db[1024];
	int rc;

	if (load(a, &ra, da, sizeof(da)))
		return EXIT_USAGE;
	if (load(b, &rb, db, sizeof(db))) {
		results_free(&ra);
		return EXIT_USAGE;
	}
	rc = report_run_prepare(&pa, &ra);
	if (!rc) {
		rc = report_run_prepare(&pb, &rb);
		if (!rc) {
			o->dir_a = da;
			o->dir_b = db;
			if (!o->json)
				printf("A = %s\nB = %s\n", da, db);
			rc = report_run_diff(stdout, &pa, &pb, o);
			if (rc > 0)
				rc = fail ? EXIT_REGRESSION : 0;
			else if (rc < 0)
				fprintf(stderr, "ovlperf report: comparing: %s\n", strerror(-rc));
			report_run_release(&pb);
		}
		report_run_release(&pa);
	}
	results_free(&ra);
	results_free(&rb);
	if (fflush(stdout) || ferror(stdout))
		return 1;
	return rc < 0 ? 1 : rc;
}

/* What `ovlperf report DIR [DIR2]`'s options ask for. */
struct report_args {
	enum report_format fmt;
	struct report_diff_options dopt;
	bool write, plots, fail;
	bool diff_opt; /* an option only a comparison takes */
	const char *output;
};

/* One option (getopt_long()'s c) into a: -1 to go on, else the exit status. */
static int parse_opt(int c, struct report_args *a)
{
	switch (c) {
	case 'F':
		if (parse_format(optarg, &a->fmt))
			return EXIT_USAGE;
		break;
	case 'o':
		a->output = optarg;
		break;
	case 'W':
		a->write = false;
		break;
	case 'P':
		a->plots = false;
		break;
	case 'T':
		if (parse_pct("--threshold", optarg, 0, 100, &a->dopt.threshold))
			return EXIT_USAGE;
		a->diff_opt = true;
		break;
	case 'U':
		if (parse_pct("--threshold-cpu", optarg, 0, 1000, &a->dopt.cpu_threshold))
			return EXIT_USAGE;
		a->diff_opt = true;
		break;
	case 'C':
		if (parse_pct("--confidence", optarg, 50, 99.9, &a->dopt.confidence))
			return EXIT_USAGE;
		a->diff_opt = true;
		break;
	case 'J':
		a->dopt.json = a->diff_opt = true;
		break;
	case 'R':
		a->fail = a->diff_opt = true;
		break;
	case 'H':
		a->dopt.history = optarg;
		a->diff_opt = true;
		break;
	default: /* -h, or what it does not take */
		return cli_opt_usage(c, usage);
	}
	return -1;
}

/* The options into a, and whether --format and --output fit the DIRs
 * given: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct report_args *a)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "no-write", no_argument, NULL, 'W' },
		{ "no-plots", no_argument, NULL, 'P' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "threshold-cpu", required_argument, NULL, 'U' },
		{ "confidence", required_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' },
		{ "fail-on-regression", no_argument, NULL, 'R' },
		{ "history", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "F:o:h", opts, NULL)) != -1)
		if ((rc = parse_opt(c, a)) >= 0)
			return rc;
	if (argc - optind == 2 && a->fmt != FMT_SUMMARY) {
		fprintf(stderr, "ovlperf report: --format is for one DIR; two are compared as "
				"text\n");
		return EXIT_USAGE;
	}
	if (a->output && a->fmt != FMT_OPENMETRICS) {
		fprintf(stderr, "ovlperf report: --output is for --format openmetrics\n");
		return EXIT_USAGE;
	}
	return -1;
}

/* One DIR: re-rendered into its files and on stdout, or printed in the
 * format asked for. */
static int report_one(const char *arg, const struct report_args *a)
{
	struct results_run run;
	char dir[1024];
	int rc;

	if (load(arg, &run, dir, sizeof(dir)))
		return EXIT_USAGE;
	if (a->write && a->fmt == FMT_SUMMARY)
		rc = report_run_out_write(&run, dir, a->plots, stdout, NULL, 0);
	else
		rc = print_run(&run, dir, a->fmt, a->output);
	results_free(&run);
	return rc ? 1 : 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .fmt = FMT_SUMMARY, .write = true, .plots = true };
	int rc;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--matrix"))
			return cmd_report_matrix(argc, argv);
		else if (!strcmp(argv[i], "--trend"))
			return cmd_report_trend(argc, argv);
	rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	if (argc - optind == 2)
		return compare(argv[optind], argv[optind + 1], &a.dopt, a.fail);
	if (a.diff_opt) {
		fprintf(stderr,
			"ovlperf report: --threshold, --threshold-cpu, --confidence, --json, "
			"--history and --fail-on-regression are for two DIRs\n");
		return EXIT_USAGE;
	}
	if (argc - optind != 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	return report_one(argv[optind], &a);
}
