// SPDX-License-Identifier: MIT
/* ovlperf: only the table of subcommands lives here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "log.h"
#include "version.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} subcommands[] = {
	{ "run", cmd_run,
	  "compare underlay and overlays as a scenario describes (default: the lab)" },
	{ "report", cmd_report, "re-render a results directory, or compare two" },
	{ "server", cmd_server, "serve tests to ovlperf clients" },
	{ "client", cmd_client, "run one TCP or UDP test against a server" },
	{ "sweep", cmd_sweep, "sweep UDP offered rates against a server; find the loss knee" },
	{ "mtu", cmd_mtu, "probe path MTU and TCP MSS on one or more paths" },
	{ "lab", cmd_lab, "create or remove lab hosts (network namespaces)" },
	{ "link", cmd_link, "a userspace WAN link: delay, jitter, loss, reorder, rate" },
	{ "tunnel", cmd_tunnel, "the built-in encrypted overlay" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: ovlperf [-v|-q] [--logfile FILE] <command> [options]\n"
		   "       ovlperf -c HOST [options]   (client, as iperf3)\n"
		   "       ovlperf -s [options]        (server, as iperf3)\n"
		   "       ovlperf --version\n\n"
		   "  -v            more log lines (twice: debug)\n"
		   "  -q            errors only\n"
		   "  --logfile FILE  log lines go to FILE (appended, time-stamped) instead of\n"
		   "                stderr; results stay on stdout\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(f, "  %-8s %s\n", subcommands[i].name, subcommands[i].help);
	fprintf(f, "\n'ovlperf <command> --help' describes each command.\n");
}

static int unknown(const char *cmd)
{
	const char *names[sizeof(subcommands) / sizeof(subcommands[0])], *near;

	for (size_t k = 0; k < sizeof(subcommands) / sizeof(subcommands[0]); k++)
		names[k] = subcommands[k].name;
	near = cmd_nearest(names, sizeof(names) / sizeof(names[0]), cmd);
	if (near) {
		fprintf(stderr, "ovlperf: unknown command '%s' (did you mean '%s'?)\n", cmd, near);
		return EXIT_USAGE;
	}
	fprintf(stderr, "ovlperf: unknown command '%s'\n", cmd);
	usage(stderr);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v"))
			log_set_level(log_get_level() == LOG_INFO ? LOG_DEBUG : LOG_INFO);
		else if (!strcmp(argv[i], "-q"))
			log_set_level(LOG_ERR);
		else if (!strcmp(argv[i], "--logfile") || !strncmp(argv[i], "--logfile=", 10)) {
			const char *path = argv[i][9] == '=' ? argv[i] + 10 : argv[++i];
			int rc = path && *path ? log_set_file(path) : -EINVAL;

			if (rc) {
				fprintf(stderr, "ovlperf: --logfile %s: %s\n", path ? path : "",
					path && *path ? strerror(-rc) : "needs a FILE");
				return EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--version")) {
			printf("ovlperf %s\n", OVLPERF_VERSION);
			return 0;
		} else if (!strncmp(argv[i], "-c", 2) || !strcmp(argv[i], "-s")) {
			/* iperf3's habit: `ovlperf -c HOST ...`, `ovlperf -s` */
			log_set_command(argv[i][1] == 'c' ? "client" : "server");
			argv[i - 1] = argv[i][1] == 'c' ? "ovlperf client" : "ovlperf server";
			return argv[i][1] == 'c' ? cmd_client(argc - i + 1, argv + i - 1)
						 : cmd_server(argc - i + 1, argv + i - 1);
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "ovlperf: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (size_t k = 0; k < sizeof(subcommands) / sizeof(subcommands[0]); k++)
		if (!strcmp(argv[i], subcommands[k].name)) {
			char name[32];

			/* errors start "ovlperf COMMAND:", getopt's too (it
			 * names argv[0]) */
			log_set_command(subcommands[k].name);
			snprintf(name, sizeof(name), "ovlperf %s", subcommands[k].name);
			argv[i] = name;
			return subcommands[k].fn(argc - i, argv + i);
		}
	return unknown(argv[i]);
}
