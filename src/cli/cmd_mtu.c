// SPDX-License-Identifier: MIT
/* `ovlperf mtu HOST [HOST2 ...]`: path MTU and TCP MSS per path, verdicts. */
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "interrupt.h"
#include "load.h"
#include "log.h"
#include "mtu.h"
#include "scenario.h"

static const char usage_text[] =
	"Usage: ovlperf mtu HOST [HOST2 ...] [options]\n"
	"\n"
	"Probes the path MTU to each HOST running `ovlperf server`: UDP probes with DF set,\n"
	"each confirmed by the server over the control connection (never inferred from\n"
	"ICMP), several per size, searching from a safe base up to the interface MTU.\n"
	"Reports the largest size that gets through, whether ICMP too-big comes back,\n"
	"whether larger packets are black-holed, IP fragmentation seen on either host\n"
	"(and then the largest size that passes unfragmented), what happens above the\n"
	"path MTU without DF, and with --tcp-mss the TCP MSS of a real connection on\n"
	"both ends. Each path and check gets a verdict (OK / WARN / FAIL) with the\n"
	"fix to apply. The far end runs `ovlperf server`.\n"
	"\n"
	"  -4, -6              IPv4 / IPv6 only\n"
	"  -p, --port PORT     server control port (default 5211)\n"
	"  --base N            first size, assumed to work: 1200 (default), 576, 68 ...\n"
	"  --max N             largest size to try (default: the interface MTU)\n"
	"  --probes N          probes per size and round, 1..20 (default 3)\n"
	"  --timeout DUR       longest wait for a round's probes (default 1s)\n"
	"  --tcp-mss           also measure TCP MSS on both ends of a connection\n"
	"  --no-fragments      do not watch the IP fragment counters (they are host-wide:\n"
	"                      other traffic fragmenting at the same moment counts too)\n"
	"  --tunnel KIND       two hosts: HOST is the server's underlay address, HOST2 its\n"
	"                      overlay address; KIND builtin (overhead 60/80 bytes) or\n"
	"                      external (overhead inferred)\n"
	"  --underlay-family 4|6   builtin tunnel: family of the outer packets (default:\n"
	"                      that of HOST)\n"
	"  --expect-mtu N, --expect-mss N   FAIL unless every path measures this\n"
	"  --psk-file FILE     pre-shared key of the server\n"
	"  --json              JSON on stdout instead of the table\n"
	"\n"
	"Exit status: 0 no FAIL verdict, 1 a FAIL verdict or a probe error, 2 bad usage.\n";

enum {
	OPT_BASE = 256,
	OPT_MAX,
	OPT_PROBES,
	OPT_TIMEOUT,
	OPT_TCP_MSS,
	OPT_NO_FRAG,
	OPT_TUNNEL,
	OPT_UNDERLAY_FAMILY,
	OPT_EXPECT_MTU,
	OPT_EXPECT_MSS,
	OPT_PSK,
	OPT_JSON,
};

struct opts {
	struct mtu_probe_spec spec;
	enum mtu_path_kind tunnel;
	int underlay_family;
	bool json;
};

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "ovlperf mtu: %s '%s'\n(ovlperf mtu --help for usage)\n", what, arg);
	return EXIT_USAGE;
}

static bool parse_u32(const char *s, uint64_t min, uint64_t max, uint32_t *out)
{
	uint64_t v;

	if (!scenario_parse_uint(s, min, max, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

static int parse_opt(int c, const char *arg, struct opts *o)
{
	struct mtu_probe_spec *s = &o->spec;
	uint32_t v;

	switch (c) {
	case '4':
		s->family = AF_INET;
		return 0;
	case '6':
		s->family = AF_INET6;
		return 0;
	case 'p':
		if (!parse_u32(arg, 1, 65535, &v))
			return usage_error("bad port", arg);
		s->port = (uint16_t)v;
		return 0;
	case OPT_BASE:
		return parse_u32(arg, MTU_MIN_SIZE, MTU_MAX_SIZE, &s->base)
			       ? 0
			       : usage_error("--base wants 68..65575, not", arg);
	case OPT_MAX:
		return parse_u32(arg, MTU_MIN_SIZE, MTU_MAX_SIZE, &s->max)
			       ? 0
			       : usage_error("--max wants 68..65575, not", arg);
	case OPT_PROBES:
		if (!parse_u32(arg, 1, MTU_MAX_PROBES, &v))
			return usage_error("--probes wants 1..20, not", arg);
		s->probes = v;
		return 0;
	case OPT_TIMEOUT:
		if (!scenario_parse_duration(arg, &s->timeout_ns) || !s->timeout_ns)
			return usage_error("bad duration", arg);
		return 0;
	case OPT_TCP_MSS:
		s->tcp_mss = true;
		return 0;
	case OPT_NO_FRAG:
		s->fragments = false;
		return 0;
	case OPT_TUNNEL:
		if (!strcmp(arg, "builtin"))
			o->tunnel = MTU_PATH_BUILTIN;
		else if (!strcmp(arg, "external"))
			o->tunnel = MTU_PATH_EXTERNAL;
		else
			return usage_error("--tunnel wants builtin or external, not", arg);
		return 0;
	case OPT_UNDERLAY_FAMILY:
		if (strcmp(arg, "4") && strcmp(arg, "6"))
			return usage_error("--underlay-family wants 4 or 6, not", arg);
		o->underlay_family = arg[0] == '6' ? AF_INET6 : AF_INET;
		return 0;
	case OPT_EXPECT_MTU:
		return parse_u32(arg, MTU_MIN_SIZE, MTU_MAX_SIZE, &s->expect_mtu)
			       ? 0
			       : usage_error("--expect-mtu wants 68..65575, not", arg);
	case OPT_EXPECT_MSS:
		return parse_u32(arg, 1, MTU_MAX_SIZE, &s->expect_mss)
			       ? 0
			       : usage_error("--expect-mss wants a size, not", arg);
	case OPT_PSK:
		if (strlen(arg) >= sizeof(s->psk_file))
			return usage_error("file name too long", arg);
		snprintf(s->psk_file, sizeof(s->psk_file), "%s", arg);
		return 0;
	case OPT_JSON:
		o->json = true;
		return 0;
	default:
		return EXIT_USAGE;
	}
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "base", required_argument, NULL, OPT_BASE },
		{ "max", required_argument, NULL, OPT_MAX },
		{ "probes", required_argument, NULL, OPT_PROBES },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "tcp-mss", no_argument, NULL, OPT_TCP_MSS },
		{ "no-fragments", no_argument, NULL, OPT_NO_FRAG },
		{ "tunnel", required_argument, NULL, OPT_TUNNEL },
		{ "underlay-family", required_argument, NULL, OPT_UNDERLAY_FAMILY },
		{ "expect-mtu", required_argument, NULL, OPT_EXPECT_MTU },
		{ "expect-mss", required_argument, NULL, OPT_EXPECT_MSS },
		{ "psk-file", required_argument, NULL, OPT_PSK },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "46p:h", lo, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return 1;
		}
		if (c == '?')
			return EXIT_USAGE;
		rc = parse_opt(c, optarg, o);
		if (rc)
			return rc;
	}
	if (optind >= argc) {
		fprintf(stderr, "ovlperf mtu: which host? (ovlperf mtu --help for usage)\n");
		return EXIT_USAGE;
	}
	if (argc - optind > MTU_MAX_PATHS)
		return usage_error("too many hosts, at most 8, from", argv[optind + MTU_MAX_PATHS]);
	if (o->tunnel && argc - optind != 2)
		return usage_error("--tunnel wants exactly two hosts (underlay, overlay), not",
				   argv[optind]);
	return 0;
}

static void setup_path(struct mtu_report *rep, const struct opts *o, unsigned i, const char *host)
{
	struct mtu_probe_spec *s = &rep->paths[i].spec;

	*s = o->spec;
	snprintf(s->host, sizeof(s->host), "%s", host);
	if (o->tunnel)
		snprintf(s->name, sizeof(s->name), "%s", i == 0 ? "underlay" : "overlay");
	else
		snprintf(s->name, sizeof(s->name), "%s", host);
	rep->roles[i] = (struct mtu_path_role){ .kind = MTU_PATH_PLAIN, .underlay = -1 };
	if (o->tunnel && i == 0)
		rep->roles[i].kind = MTU_PATH_UNDERLAY;
	if (o->tunnel && i == 1)
		rep->roles[i] = (struct mtu_path_role){ .kind = o->tunnel,
							.underlay = 0,
							.underlay_family = o->underlay_family };
}

int cmd_mtu(int argc, char **argv)
{
	struct mtu_report *rep;
	struct opts o = { .underlay_family = 0 };
	bool failed = false;
	int rc;

	mtu_probe_spec_defaults(&o.spec);
	rc = parse(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	rep = calloc(1, sizeof(*rep));
	if (!rep) {
		fprintf(stderr, "ovlperf mtu: out of memory\n");
		return 1;
	}
	interrupt_install();
	for (int i = optind; i < argc && !interrupt_requested(); i++) {
		unsigned k = rep->npaths++;
		struct mtu_probe_spec spec;

		setup_path(rep, &o, k, argv[i]);
		spec = rep->paths[k].spec;
		if (mtu_probe_path(&spec, &rep->paths[k]) < 0) {
			log_err("%s: %s", argv[i], rep->paths[k].error);
			failed = true;
		}
	}
	mtu_verdicts(rep);
	if (o.json)
		mtu_report_print_json(stdout, rep);
	else
		mtu_report_print_term(stdout, rep);
	if (mtu_report_worst(rep) == MTU_FAIL)
		failed = true;
	free(rep);
	return interrupt_requested() ? 1 : failed ? 1 : 0;
}
