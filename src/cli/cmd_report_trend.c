// SPDX-License-Identifier: MIT
/* `ovlperf report --trend DIR...`: every run of one scenario over time,
 * each figure's history in constant segments and where a segment starts
 * lower or higher: on the terminal or as OpenMetrics, and with --out as
 * trend.html, a time-series SVG per figure and trend.prom. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_opt.h"
#include "cmd.h"
#include "history.h"
#include "log.h"
#include "report_trend.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ovlperf report --trend [options] DIR...\n"
		"  DIR          a run's results directory, or a results root whose\n"
		"               directories are runs; the complete runs of one scenario are\n"
		"               followed in the order they started\n\n"
		"  --scenario NAME  the scenario to follow (default: the latest run's)\n"
		"  --threshold PCT  the least change of a segment flagged (default 5 %%;\n"
		"               CPU per Gbit is not judged, docs/compare.md)\n"
		"  --out DIR    also write trend.html, trend-N.svg per figure (gnuplot) and\n"
		"               trend.prom (OpenMetrics) into DIR (made if missing)\n"
		"  -F, --format FMT  what stdout gets: summary (default) or openmetrics\n"
		"  --no-plots   do not run gnuplot\n"
		"  --fail-on-regression  exit %d when a figure's latest segment started with a\n"
		"               regression\n"
		"  -h, --help\n\n"
		"Each figure's runs are grouped into constant segments by Minimum Description\n"
		"Length (docs/compare.md); a segment whose level differs from the one before\n"
		"by more than the threshold is flagged a regression or progression.\n",
		EXIT_REGRESSION);
}

struct trend_opts {
	const char *out, *scenario;
	double threshold;
	bool openmetrics, plots, fail;
};

static int parse(int argc, char **argv, struct trend_opts *o)
{
	static const struct option opts[] = {
		{ "trend", no_argument, NULL, 'T' },
		{ "scenario", required_argument, NULL, 's' },
		{ "threshold", required_argument, NULL, 't' },
		{ "out", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'F' },
		{ "no-plots", no_argument, NULL, 'P' },
		{ "fail-on-regression", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const char *const formats[] = { "summary", "openmetrics" };
	char why[160];
	double pct;
	int c, i;

	memset(o, 0, sizeof(*o));
	o->plots = true;
	o->threshold = CHANGE_DEFAULT_THRESHOLD;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hF:", opts, NULL)) != -1) {
		switch (c) {
		case 'T':
			break;
		case 's':
			o->scenario = optarg;
			break;
		case 't':
			if (value_get_percent(optarg, 0, 100, &pct, why, sizeof(why)))
				return cli_opt_error("report --trend", "--threshold", why);
			o->threshold = pct / 100;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'F':
			i = cli_opt_choice(optarg, formats, 2, why, sizeof(why));
			if (i < 0)
				return cli_opt_error("report --trend", "--format", why);
			o->openmetrics = i == 1;
			break;
		case 'P':
			o->plots = false;
			break;
		case 'R':
			o->fail = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	return 0;
}

static int write_out(const struct history *h, const struct trend_opts *o)
{
	bool plots = o->plots;
	int rc;

	if (mkdir(o->out, 0755) && errno != EEXIST) {
		fprintf(stderr, "ovlperf report --trend: %s: %s\n", o->out, strerror(errno));
		return -errno;
	}
	for (size_t i = 0; plots && i < h->nseries; i++) {
		rc = report_trend_plot(h, i, o->out);
		if (rc == -ENOENT) {
			log_warn("no gnuplot: trend.html without plots");
			plots = false;
		} else if (rc) {
			fprintf(stderr, "ovlperf report --trend: %s/trend-%zu.svg: %s\n", o->out, i,
				strerror(-rc));
			return rc;
		}
	}
	rc = report_trend_html(h, o->out, plots);
	if (!rc)
		rc = report_trend_prom(h, o->out);
	if (rc)
		fprintf(stderr, "ovlperf report --trend: writing in %s: %s\n", o->out,
			strerror(-rc));
	return rc;
}

static bool regressed(const struct history *h)
{
	for (size_t i = 0; i < h->nseries; i++) {
		const struct trend *t = &h->series[i].trend;

		if (t->n > 1 && t->seg[t->n - 1].verdict == CHANGE_REGRESSION)
			return true;
	}
	return false;
}

int cmd_report_trend(int argc, char **argv)
{
	struct trend_opts o;
	struct history h;
	char err[256];
	int rc = parse(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	rc = history_read(&h, argv + optind, (size_t)(argc - optind), o.scenario, o.threshold, err,
			  sizeof(err));
	if (rc) {
		fprintf(stderr, "ovlperf report --trend: %s\n",
			rc == -ENOENT ? err : strerror(-rc));
		return rc == -ENOENT ? EXIT_USAGE : 1;
	}
	if (o.openmetrics)
		rc = report_trend_openmetrics(stdout, &h);
	else
		report_trend_term(stdout, &h);
	if (!rc && o.out)
		rc = write_out(&h, &o);
	if ((fflush(stdout) || ferror(stdout)) && !rc)
		rc = -EIO;
	if (!rc && o.fail && regressed(&h))
		rc = EXIT_REGRESSION;
	history_free(&h);
	return rc < 0 ? 1 : rc;
}
