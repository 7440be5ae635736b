// SPDX-License-Identifier: MIT
/* `ovlperf client HOST`: one TCP or UDP test, printed as tables or JSON. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cli_layer.h"
#include "auth.h"
#include "cli_opt.h"
#include "clock.h"
#include "cmd.h"
#include "interrupt.h"
#include "load.h"
#include "log.h"
#include "rate.h"
#include "report_load.h"
#include "value.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ovlperf client [options] HOST\n"
		"Runs one test against `ovlperf server` on HOST: a name, 198.18.0.2,\n"
		"2001:2::2, or with a port (instead of -p) HOST:5211, [2001:2::2]:5211.\n\n"
		"  -u, --udp            UDP test (the default is TCP)\n"
		"      --tcp            TCP test, said explicitly\n"
		"  -P, --parallel N     streams, 1..%d (default 1)\n"
		"  -t, --time DUR       duration (default 10s; DUR: 10, 1.5, 500ms, 2m)\n"
		"  -i, --interval DUR   interval reports every DUR (default none)\n"
		"  -O, --omit DUR       warm-up left out of the result\n"
		"  -b, --bitrate RATE   target bit/s, total over streams, k/M/G suffixes\n"
		"                       (UDP default 1M; TCP default unlimited)\n"
		"  -l, --length BYTES   UDP payload (default %d) / TCP write size (default %d)\n"
		"      --size-layer L   UDP: -l is the size at layer L: payload (the default),\n"
		"                       ip (IP packet) or frame (Ethernet frame with FCS, at\n"
		"                       least 64: RFC 2544's 64..1518)\n"
		"      --rate-layer L   UDP: -b counts layer L: payload (the default), ip,\n"
		"                       frame, or line (frame + preamble, SFD and gap: 20 B):\n"
		"                       100M of 64-byte frames at line rate is 148,809 pps\n"
		"  -R, --reverse        the server sends, the client receives\n"
		"  -M, --mss BYTES      TCP_MAXSEG of the test connections\n"
		"  -w, --window BYTES   socket buffers (k/M/G binary, to 1G): TCP both ends'\n"
		"                       (default autotuning), UDP the receiver's (default 32M)\n"
		"      --no-gso, --no-gro  do not use UDP GSO / GRO (on where the kernel has "
		"them)\n"
		"      --dont-fragment  UDP: set DF; a datagram above the path MTU is an error.\n"
		"                       Without it the kernel fragments such datagrams (reported\n"
		"                       as fragments per datagram, with a warning)\n"
		"      --realtime       as root, run this end's UDP threads SCHED_FIFO. Off by\n"
		"                       default: it starves a userspace overlay daemon on the\n"
		"                       same host and measures that; the result says what each\n"
		"                       end ran with (\"sched\"; the server has its own option)\n"
		"      --no-rt          SCHED_OTHER, the default (kept for old scripts)\n"
		"  -4, -6               IPv4 / IPv6 only\n"
		"  -p, --port PORT      the server's port, TCP and UDP (default %d)\n"
		"  -B, --bind ADDR      local address\n"
		"      --cport PORT     source port of the data streams: PORT..PORT+N-1 for\n"
		"                       -P N (the control connection's stays ephemeral)\n"
		"      --dscp N         DSCP of the test traffic (0..63)\n"
		"      --psk-file FILE  prove the server's pre-shared key\n"
		"      --msg-timeout MS deadline of each control step (connecting included),\n"
		"                       and how long past the drain the results may take\n"
		"                       (default 10000)\n"
		"  -J, --json           one JSON document on stdout (docs/json.md)\n\n%s",
		LOAD_MAX_STREAMS, LOAD_UDP_DEFAULT_LEN, LOAD_TCP_DEFAULT_LEN, LOAD_DEFAULT_PORT,
		AUTH_PSK_FILE_HELP);
}

enum {
	OPT_TCP = 256,
	OPT_DF,
	OPT_CPORT,
	OPT_NO_GSO,
	OPT_NO_GRO,
	OPT_GSO,
	OPT_GRO,
	OPT_PSK,
	OPT_DSCP,
	OPT_MSGTMO,
	OPT_NO_RT,
	OPT_RT,
	OPT_SIZE_LAYER,
	OPT_RATE_LAYER,
};

static const struct option options[] = {
	{ "udp", no_argument, NULL, 'u' },
	{ "tcp", no_argument, NULL, OPT_TCP },
	{ "parallel", required_argument, NULL, 'P' },
	{ "time", required_argument, NULL, 't' },
	{ "interval", required_argument, NULL, 'i' },
	{ "omit", required_argument, NULL, 'O' },
	{ "bitrate", required_argument, NULL, 'b' },
	{ "length", required_argument, NULL, 'l' },
	{ "size-layer", required_argument, NULL, OPT_SIZE_LAYER },
	{ "rate-layer", required_argument, NULL, OPT_RATE_LAYER },
	{ "reverse", no_argument, NULL, 'R' },
	{ "mss", required_argument, NULL, 'M' },
	{ "window", required_argument, NULL, 'w' },
	{ "no-gso", no_argument, NULL, OPT_NO_GSO },
	{ "no-gro", no_argument, NULL, OPT_NO_GRO },
	{ "gso", no_argument, NULL, OPT_GSO },
	{ "gro", no_argument, NULL, OPT_GRO },
	{ "port", required_argument, NULL, 'p' },
	{ "bind", required_argument, NULL, 'B' },
	{ "cport", required_argument, NULL, OPT_CPORT },
	{ "dscp", required_argument, NULL, OPT_DSCP },
	{ "psk-file", required_argument, NULL, OPT_PSK },
	{ "msg-timeout", required_argument, NULL, OPT_MSGTMO },
	{ "no-rt", no_argument, NULL, OPT_NO_RT },
	{ "realtime", no_argument, NULL, OPT_RT },
	{ "dont-fragment", no_argument, NULL, OPT_DF },
	{ "json", no_argument, NULL, 'J' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Whole numbers, sizes and durations in their ranges (value.h). */
static bool get(enum value_kind kind, const char *arg, uint64_t lo, uint64_t hi, uint64_t *v,
		char why[static VALUE_WHY_MAX])
{
	return value_get(kind, arg, lo, hi, v, why, VALUE_WHY_MAX) == 0;
}

/* An option with a value into the spec; false with why on a bad value. */
static bool apply_value(struct load_spec *s, int c, const char *arg, char why[static VALUE_WHY_MAX])
{
	uint64_t v;

	switch (c) {
	case 'P':
		if (!get(VALUE_UINT, arg, 1, LOAD_MAX_STREAMS, &v, why))
			return false;
		s->streams = (unsigned)v;
		return true;
	case 't':
		return get(VALUE_DURATION, arg, CLI_DURATION_MIN_NS, CLI_SECONDS_MAX_NS,
			   &s->duration_ns, why);
	case 'i':
		return get(VALUE_DURATION, arg, 0, CLI_SECONDS_MAX_NS, &s->interval_ns, why);
	case 'O':
		return get(VALUE_DURATION, arg, 0, CLI_SECONDS_MAX_NS, &s->omit_ns, why);
	case 'b':
		return get(VALUE_RATE, arg, 0, (uint64_t)RATE_MAX_BPS, &s->rate_bps, why);
	case 'l':
		if (!get(VALUE_SIZE, arg, 1, 16u << 20, &v, why))
			return false;
		s->len = (uint32_t)v;
		return true;
	case 'M':
		if (!get(VALUE_UINT, arg, 88, 65535, &v, why))
			return false;
		s->mss = (uint32_t)v;
		return true;
	case 'w':
		if (!get(VALUE_SIZE, arg, 1, 1u << 30, &v, why))
			return false;
		s->sock_buf = (uint32_t)v;
		return true;
	case 'p':
		if (!get(VALUE_UINT, arg, 1, 65535, &v, why))
			return false;
		s->port = (uint16_t)v;
		return true;
	case OPT_CPORT:
		if (!get(VALUE_UINT, arg, 1, 65535, &v, why))
			return false;
		s->cport = (uint16_t)v;
		return true;
	case OPT_DSCP:
		if (!get(VALUE_UINT, arg, 0, 63, &v, why))
			return false;
		s->dscp = (uint8_t)v;
		return true;
	case OPT_MSGTMO:
		if (!get(VALUE_UINT, arg, 1, 3600000, &v, why))
			return false;
		s->msg_timeout_ms = (uint32_t)v;
		return true;
	case 'B':
		return cli_opt_host(s->bind_addr, sizeof(s->bind_addr), NULL, arg, why,
				    VALUE_WHY_MAX);
	case OPT_PSK:
		return cli_opt_copy(s->psk_file, sizeof(s->psk_file), arg, why, VALUE_WHY_MAX);
	default:
		snprintf(why, VALUE_WHY_MAX, "unknown option");
		return false;
	}
}

/* What the options say beyond the spec. */
struct client_opts {
	bool json;
	struct cli_layer layer;
};

/* The layer options and -l as given; false with why on a bad value. */
static bool apply_layer(struct load_spec *s, int c, const char *arg, struct client_opts *o,
			char why[static VALUE_WHY_MAX])
{
	switch (c) {
	case OPT_SIZE_LAYER:
		return cli_layer_parse(arg, LAYER_FRAME, &o->layer.size_layer, why, VALUE_WHY_MAX);
	case OPT_RATE_LAYER:
		return cli_layer_parse(arg, LAYER_LINE, &o->layer.rate_layer, why, VALUE_WHY_MAX);
	default: /* -l */
		if (!apply_value(s, c, arg, why))
			return false;
		o->layer.len_given = true;
		o->layer.len = s->len;
		return true;
	}
}

/* One option into the spec; false with why on a bad value. */
static bool apply(struct load_spec *s, int c, const char *arg, struct client_opts *o,
		  char why[static VALUE_WHY_MAX])
{
	switch (c) {
	case 'u':
		s->proto = LOAD_UDP;
		return true;
	case OPT_TCP:
		s->proto = LOAD_TCP;
		return true;
	case 'R':
		s->reverse = true;
		return true;
	case OPT_NO_GSO:
		s->udp_gso = false;
		return true;
	case OPT_NO_GRO:
		s->udp_gro = false;
		return true;
	case OPT_NO_RT:
	case OPT_RT:
		s->realtime = c == OPT_RT;
		return true;
	case OPT_DF:
		s->dont_fragment = true;
		return true;
	case OPT_GSO:
		s->udp_gso = true;
		return true;
	case OPT_GRO:
		s->udp_gro = true;
		return true;
	case '4':
		s->family = AF_INET;
		return true;
	case '6':
		s->family = AF_INET6;
		return true;
	case 'J':
		o->json = true;
		return true;
	case 'l':
	case OPT_SIZE_LAYER:
	case OPT_RATE_LAYER:
		return apply_layer(s, c, arg, o, why);
	default:
		return apply_value(s, c, arg, why);
	}
}

/* -l and -b from their layers into payload units (cli_layer.h); false
 * after saying why. */
static bool convert_layers(const struct client_opts *o, struct load_spec *s)
{
	char why[VALUE_WHY_MAX];
	int family;

	if (o->layer.size_layer == LAYER_PAYLOAD && o->layer.rate_layer == LAYER_PAYLOAD)
		return true;
	if (s->proto != LOAD_UDP) {
		cli_opt_error("client",
			      o->layer.size_layer != LAYER_PAYLOAD ? "--size-layer"
								   : "--rate-layer",
			      "applies to UDP tests (-u)");
		return false;
	}
	if (cli_layer_len(&o->layer, s, &family, why, sizeof(why)) < 0) {
		cli_opt_error("client", "--length", why);
		return false;
	}
	if (cli_layer_rate(&o->layer, s, family, &s->rate_bps, why, sizeof(why)) < 0) {
		cli_opt_error("client", "--bitrate", why);
		return false;
	}
	return true;
}

int cmd_client(int argc, char **argv)
{
	struct load_hooks hooks = { .on_interval = report_load_term_interval, .arg = stdout };
	struct load_result res;
	struct load_spec spec;
	char why[VALUE_WHY_MAX], name[CLI_OPT_NAME_MAX];
	struct client_opts o = { .json = false };
	int c, rc;

	load_spec_defaults(&spec);
	optind = 1;
	while ((c = getopt_long(argc, argv, "uP:t:i:O:b:l:RM:w:46p:B:Jh", options, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == '?' || !apply(&spec, c, optarg, &o, why)) {
			if (c != '?')
				cli_opt_error("client", cli_opt_name(options, c, name), why);
			fprintf(stderr, "see 'ovlperf client --help'\n");
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "ovlperf client: give exactly one server HOST\n");
		fprintf(stderr, "see 'ovlperf client --help'\n");
		return EXIT_USAGE;
	}
	if (!cli_opt_host(spec.host, sizeof(spec.host), &spec.port, argv[optind], why, sizeof(why)))
		return cli_opt_error("client", "HOST", why);
	if (!convert_layers(&o, &spec))
		return EXIT_USAGE;
	interrupt_install();
	if (!o.json)
		report_load_term_header(stdout, &spec);
	rc = load_run_hooks(&spec, &res, o.json ? NULL : &hooks);
	if (o.json) {
		report_load_json_print(stdout, &res);
	} else if (res.nstreams) {
		report_load_term(stdout, &res);
	}
	if (rc < 0 && res.error[0])
		log_err("%s", res.error);
	load_result_free(&res);
	if (rc == -EINVAL)
		return EXIT_USAGE;
	return rc < 0 ? 1 : 0;
}
