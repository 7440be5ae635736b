// SPDX-License-Identifier: MIT
/* `ovlperf mtu HOST [HOST2 ...]`: path MTU and TCP MSS per path, verdicts. */
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "cli_opt.h"
#include "cmd.h"
#include "interrupt.h"
#include "log.h"
#include "mtu.h"
#include "scenario.h"
#include "value.h"

static const char usage_text[] =
	"Usage: ovlperf mtu HOST [HOST2 ...] [options]\n"
	"\n"
	"HOST: a name or address, with a port (instead of -p) as HOST:5211 or\n"
	"[2001:2::2]:5211.\n\n"
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
	"  -p, --port PORT     the server's port, TCP and UDP (default 5211)\n"
	"  --cport PORT        source port of the UDP probes and of the --tcp-mss\n"
	"                      connection (the control connection's stays ephemeral)\n"
	"  --base N            first size, assumed to work: 1200 (default), 576, 68 ...\n"
	"                      (68..65535)\n"
	"  --max N             largest size to try, 68..65535 (default: the interface MTU)\n"
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
	OPT_CPORT,
};

struct opts {
	struct mtu_probe_spec spec;
	enum mtu_path_kind tunnel;
	int underlay_family;
	bool json;
};

/* The largest size an option takes: the largest link MTU Linux allows
 * (IP_MAX_MTU, ETH_MAX_MTU), as the scenario's [mtu] keys. MTU_MAX_SIZE,
 * an IPv6 packet with the largest payload, needs a link MTU above it. */
#define OPT_SIZE_MAX 65535

static const struct option options[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "cport", required_argument, NULL, OPT_CPORT },
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

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "ovlperf mtu: %s '%s'\n(ovlperf mtu --help for usage)\n", what, arg);
	return EXIT_USAGE;
}

static bool get_u32(const char *s, uint64_t lo, uint64_t hi, uint32_t *out,
		    char why[static VALUE_WHY_MAX])
{
	uint64_t v;

	if (value_get(VALUE_UINT, s, lo, hi, &v, why, VALUE_WHY_MAX))
		return false;
	*out = (uint32_t)v;
	return true;
}

/* An option with a number; false with why on a bad value. */
static bool parse_number(int c, const char *arg, struct opts *o, char why[static VALUE_WHY_MAX])
{
	struct mtu_probe_spec *s = &o->spec;
	uint32_t v;

	switch (c) {
	case 'p':
	case OPT_CPORT:
		if (!get_u32(arg, 1, 65535, &v, why))
			return false;
		*(c == 'p' ? &s->port : &s->cport) = (uint16_t)v;
		return true;
	case OPT_BASE:
		return get_u32(arg, MTU_MIN_SIZE, OPT_SIZE_MAX, &s->base, why);
	case OPT_MAX:
		return get_u32(arg, MTU_MIN_SIZE, OPT_SIZE_MAX, &s->max, why);
	case OPT_PROBES:
		return get_u32(arg, 1, MTU_MAX_PROBES, &s->probes, why);
	case OPT_TIMEOUT:
		return !value_get(VALUE_DURATION, arg, CLI_DURATION_MIN_NS, SCN_DURATION_MAX_NS,
				  &s->timeout_ns, why, VALUE_WHY_MAX);
	case OPT_EXPECT_MTU:
		return get_u32(arg, MTU_MIN_SIZE, OPT_SIZE_MAX, &s->expect_mtu, why);
	case OPT_EXPECT_MSS:
		return get_u32(arg, 1, OPT_SIZE_MAX, &s->expect_mss, why);
	default:
		snprintf(why, VALUE_WHY_MAX, "unknown option");
		return false;
	}
}

/* One option; false with why on a bad value. */
static bool parse_opt(int c, const char *arg, struct opts *o, char why[static VALUE_WHY_MAX])
{
	struct mtu_probe_spec *s = &o->spec;

	if (cli_opt_family_rt(c, &s->family, NULL))
		return true;
	switch (c) {
	case OPT_TCP_MSS:
		s->tcp_mss = true;
		return true;
	case OPT_NO_FRAG:
		s->fragments = false;
		return true;
	case OPT_TUNNEL:
		if (!strcmp(arg, "builtin") || !strcmp(arg, "external")) {
			o->tunnel = arg[0] == 'b' ? MTU_PATH_BUILTIN : MTU_PATH_EXTERNAL;
			return true;
		}
		snprintf(why, VALUE_WHY_MAX, "'%.40s' is not builtin or external", arg);
		return false;
	case OPT_UNDERLAY_FAMILY:
		if (!strcmp(arg, "4") || !strcmp(arg, "6")) {
			o->underlay_family = arg[0] == '6' ? AF_INET6 : AF_INET;
			return true;
		}
		snprintf(why, VALUE_WHY_MAX, "'%.40s' is not 4 or 6", arg);
		return false;
	case OPT_PSK:
		return cli_opt_copy(s->psk_file, sizeof(s->psk_file), arg, why, VALUE_WHY_MAX);
	case OPT_JSON:
		o->json = true;
		return true;
	default:
		return parse_number(c, arg, o, why);
	}
}

static int parse(int argc, char **argv, struct opts *o)
{
	char why[VALUE_WHY_MAX], name[CLI_OPT_NAME_MAX];
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "46p:h", options, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return 1;
		}
		if (c == '?')
			return EXIT_USAGE;
		if (!parse_opt(c, optarg, o, why))
			return cli_opt_error("mtu", cli_opt_name(options, c, name), why);
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
	for (int i = optind; i < argc; i++) {
		char host[sizeof(o->spec.host)];
		uint16_t port = 0;

		if (!cli_opt_host(host, sizeof(host), &port, argv[i], why, sizeof(why)))
			return cli_opt_error("mtu", "HOST", why);
	}
	return 0;
}

static void setup_path(struct mtu_report *rep, const struct opts *o, unsigned i, const char *host)
{
	struct mtu_probe_spec *s = &rep->paths[i].spec;
	uint16_t port = 0;

	*s = o->spec;
	/* parse() checked it: "[2001:2::2]:5211" is host 2001:2::2, port 5211 */
	addr_split(host, s->host, sizeof(s->host), &port);
	if (port)
		s->port = port;
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
