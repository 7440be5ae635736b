// SPDX-License-Identifier: MIT
/* `ovlperf report --matrix DIR...`: many pair runs (one client host to one
 * server host each, as deploy/ansible's mesh playbook fetches them) merged
 * into host x host tables: on the terminal, and with --out as report.md,
 * matrix.csv, matrix.json and heatmaps. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_opt.h"
#include "cmd.h"
#include "mesh.h"
#include "report_mesh.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ovlperf report --matrix [options] DIR...\n"
		"  DIR          a pair's results directory: its run.json and the pair.json the\n"
		"               mesh playbook writes beside it ({\"client\", \"server\", "
		"\"status\":\n"
		"               ok|failed|unreachable, \"reason\"}); without pair.json the client\n"
		"               is the run's host name and the server its first path's address\n\n"
		"  --out DIR    also write report.md, matrix.csv, matrix.json and the heatmaps\n"
		"               (heatmap-FIGURE-PATH.svg, gnuplot) into DIR (made if missing)\n"
		"  --json       print matrix.json on stdout instead of the tables\n"
		"  -F, --format FMT  what stdout gets: table (default), json (as --json) or\n"
		"               openmetrics (the figures as OpenMetrics text, for a node\n"
		"               exporter's textfile collector or a push gateway)\n"
		"  --no-plots   do not run gnuplot\n"
		"  -h, --help\n\n"
		"Rows are the client, columns the server. Tables: TCP goodput (most streams\n"
		"measured), UDP NDR (largest datagram), overlay / underlay ratios of both, "
		"one-way\n"
		"delay p50 (first common load), the worst MTU/MSS verdict, per path. '>=' marks a\n"
		"lower bound, '<=' an upper bound; a pair that failed or was unreachable is shown\n"
		"so. Exit 0 when every DIR was read (failed pairs included), %d for a DIR that is\n"
		"no pair run, %d when a file could not be written.\n",
		EXIT_USAGE, EXIT_UNWRITTEN);
}

enum matrix_format { MATRIX_TABLE, MATRIX_JSON, MATRIX_OPENMETRICS };

struct matrix_opts {
	const char *out;
	enum matrix_format format;
	bool plots;
};

static int parse_format(const char *s, enum matrix_format *fmt)
{
	static const char *const names[] = { "table", "json", "openmetrics" };
	char why[160];
	int i = cli_opt_choice(s, names, sizeof(names) / sizeof(names[0]), why, sizeof(why));

	if (i < 0) {
		cli_opt_error("report --matrix", "--format", why);
		return -1;
	}
	*fmt = (enum matrix_format)i;
	return 0;
}

static int parse(int argc, char **argv, struct matrix_opts *o)
{
	static const struct option opts[] = {
		{ "matrix", no_argument, NULL, 'M' },
		{ "out", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-plots", no_argument, NULL, 'P' },
		{ "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->plots = true;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hF:", opts, NULL)) != -1) {
		switch (c) {
		case 'M':
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'j':
			o->format = MATRIX_JSON;
			break;
		case 'F':
			if (parse_format(optarg, &o->format))
				return EXIT_USAGE;
			break;
		case 'P':
			o->plots = false;
			break;
		default: /* -h, or what it does not take */
			return cli_opt_usage(c, usage);
		}
	}
	if (optind == argc) {
		fprintf(stderr, "ovlperf report --matrix: name at least one pair directory\n");
		return EXIT_USAGE;
	}
	return -1;
}

int cmd_report_matrix(int argc, char **argv)
{
	struct mesh_verdicts v;
	struct matrix_opts o;
	struct mesh m;
	char err[1024];
	int rc = parse(argc, argv, &o);

	if (rc >= 0)
		return rc;
	mesh_init(&m);
	for (int i = optind; i < argc; i++) {
		if (mesh_load_dir(&m, argv[i], err, sizeof(err))) {
			fprintf(stderr, "ovlperf report --matrix: %s\n", err);
			mesh_free(&m);
			return EXIT_USAGE;
		}
	}
	mesh_sort(&m);
	mesh_verdicts(&m, &v);
	rc = 0;
	if (o.format == MATRIX_JSON)
		rc = report_mesh_json(stdout, &m, &v) ? EXIT_UNWRITTEN : 0;
	else if (o.format == MATRIX_OPENMETRICS)
		rc = report_mesh_openmetrics(stdout, &m) ? EXIT_UNWRITTEN : 0;
	else
		report_mesh_term(stdout, &m, &v);
	if (o.out && report_mesh_write(o.out, &m, &v, o.plots))
		rc = EXIT_UNWRITTEN;
	mesh_free(&m);
	return rc;
}
