// SPDX-License-Identifier: MIT
/* `ovlperf link run|show`: the userspace WAN link (include/link/link.h). */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "cli_opt.h"
#include "cmd.h"
#include "link.h"

static const char usage_text[] =
	"Usage: ovlperf link run --a IF --b IF --counters FILE [--delay D[/D]]\n"
	"                        [--jitter J[/J]] [--loss P[/P]] [--loss-burst P,R[/P,R]]\n"
	"                        [--reorder P[/P]] [--rate R[/R]] [--limit BYTES] [--seed N]\n"
	"                        [--no-realtime]\n"
	"       ovlperf link show FILE [--json]\n"
	"\n"
	"'link run' forwards Ethernet frames between the interfaces IF a and b (ARP\n"
	"and ND included) through AF_PACKET sockets, holding each until its due time,\n"
	"until SIGTERM or SIGINT. A value X/Y is X for a->b and Y for b->a; a lone X\n"
	"applies both ways. GSO super-packets are cut into the wire packets they stand\n"
	"for, and every count is per wire packet (docs/link.md).\n"
	"  --a IF, --b IF   the two ends (both up; IPv6 off on them)\n"
	"  --counters FILE  the counter file; it appears once forwarding starts\n"
	"  --delay D        one-way delay, e.g. 20ms, 500us (0..60s)\n"
	"  --jitter J       each packet's delay uniform in D-J..D+J; packets keep their\n"
	"                   order unless --reorder is set\n"
	"  --loss P         random loss in percent, e.g. 1%, 0.5\n"
	"  --loss-burst P,R Gilbert-Elliott bursts: p good->bad, r bad->good in percent,\n"
	"                   every packet lost in the bad state (netem's loss gemodel)\n"
	"  --reorder P      P percent of the packets go out at once, ahead of the\n"
	"                   delayed ones (netem's reorder)\n"
	"  --rate R         a serialization clock of R bit/s of Ethernet frames, e.g.\n"
	"                   100M, 1G\n"
	"  --limit BYTES    the bound of each direction's queue (4k..4G; default: twice\n"
	"                   the bandwidth-delay product at the rate, or at 10 Gbit/s)\n"
	"  --seed N         the loss, jitter and reorder generators' seed (default 0)\n"
	"  --no-realtime    forwarding threads at normal priority; by default they run\n"
	"                   SCHED_FIFO, so the delay does not grow with the machine's load\n"
	"'link show' prints a counter file: per direction rx, tx, delayed, reordered,\n"
	"the drops by reason and the queue.\n"
	"  --json           as one JSON object\n";

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "ovlperf link: %s%s%s\n(ovlperf link --help for usage)\n", what,
		arg ? " " : "", arg ? arg : "");
	return EXIT_USAGE;
}

/* An interface that must exist in this namespace. */
static int check_if(const char *opt, const char *name)
{
	if (!name || !*name)
		return usage_error(opt, "needs an interface");
	if (strlen(name) >= IF_NAMESIZE || !if_nametoindex(name)) {
		fprintf(stderr, "ovlperf link: %s %s: no such interface\n", opt, name);
		return EXIT_USAGE;
	}
	return 0;
}

static int parse_run(int argc, char **argv, struct link_run_opts *o)
{
	static const struct option opts[] = {
		{ "a", required_argument, NULL, 'a' },
		{ "b", required_argument, NULL, 'b' },
		{ "counters", required_argument, NULL, 'c' },
		{ "delay", required_argument, NULL, 'D' },
		{ "jitter", required_argument, NULL, 'J' },
		{ "loss", required_argument, NULL, 'L' },
		{ "loss-burst", required_argument, NULL, 'G' },
		{ "reorder", required_argument, NULL, 'R' },
		{ "rate", required_argument, NULL, 'r' },
		{ "limit", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 's' },
		{ "no-realtime", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[LINK_CONF_ERR_MAX], name[CLI_OPT_NAME_MAX];
	int c, rc;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o->a = optarg;
			break;
		case 'b':
			o->b = optarg;
			break;
		case 'c':
			o->counters = optarg;
			break;
		case 'N':
			o->best_effort = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		case ':':
			return usage_error(argv[optind - 1], "needs a value");
		case '?':
			return usage_error("unknown option", argv[optind - 1]);
		default:
			/* The option's long name is its condition's key. */
			if (!link_conf_set(&o->conf, cli_opt_name(opts, c, name) + 2, optarg, err,
					   sizeof(err)))
				return cli_opt_error("link", name, err);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument", argv[optind]);
	rc = check_if("--a", o->a);
	if (!rc)
		rc = check_if("--b", o->b);
	if (!rc && !strcmp(o->a, o->b))
		rc = usage_error("--a and --b name the same interface", o->a);
	if (!rc && (!o->counters || !*o->counters))
		rc = usage_error("--counters FILE is needed", NULL);
	return rc;
}

static int run(int argc, char **argv)
{
	struct link_run_opts o = { 0 };
	int rc = parse_run(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	rc = link_run(&o);
	if (rc == -ENODEV)
		return EXIT_USAGE;
	return rc ? 1 : 0;
}

static int show(int argc, char **argv)
{
	struct link_counters c;
	const char *path = NULL;
	bool json = false;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return fputs(usage_text, stdout) < 0;
		else if (argv[i][0] == '-' || path)
			return usage_error("unexpected argument", argv[i]);
		else
			path = argv[i];
	}
	if (!path)
		return usage_error("show needs the counter FILE", NULL);
	rc = link_counters_read(path, &c);
	if (rc) {
		fprintf(stderr, "ovlperf link: %s: %s\n", path,
			rc == -EPROTO ? "not a link counter file of this version" : strerror(-rc));
		return 1;
	}
	rc = json ? link_counters_print_json(stdout, &c) : link_counters_print(stdout, &c);
	return rc ? 1 : 0;
}

int cmd_link(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("needs run or show", NULL);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "run")) {
		/* getopt names argv[0]: "ovlperf link run: ..."; a copy, argv is the caller's */
		char *sub[argc];

		sub[0] = (char *)"ovlperf link run";
		for (int k = 2; k < argc; k++)
			sub[k - 1] = argv[k];
		sub[argc - 1] = NULL;
		return run(argc - 1, sub);
	}
	if (!strcmp(argv[1], "show"))
		return show(argc - 1, argv + 1);
	return usage_error("unknown subcommand", argv[1]);
}
