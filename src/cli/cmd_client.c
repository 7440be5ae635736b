// SPDX-License-Identifier: MIT
/* `ovlperf client HOST`: one TCP or UDP test, printed as tables or JSON. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli_layer.h"
#include "auth.h"
#include "cli_opt.h"
#include "client_bidir.h"
#include "clock.h"
#include "cmd.h"
#include "interrupt.h"
#include "line_prefix.h"
#include "load.h"
#include "lab.h"
#include "log.h"
#include "rate.h"
#include "report_iperf3.h"
#include "report_load.h"
#include "version.h"
#include "value.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ovlperf client [options] HOST\n"
		"       ovlperf client [options] -c HOST   (ovlperf -c HOST, as iperf3)\n"
		"Runs one test against `ovlperf server` on HOST: a name, 198.18.0.2,\n"
		"2001:2::2, or with a port (instead of -p) HOST:5211, [2001:2::2]:5211.\n\n"
		"  -c, --client HOST    the server, as iperf3 takes it (or HOST alone)\n"
		"  -u, --udp            UDP test (the default is TCP)\n"
		"      --tcp            TCP test, said explicitly\n"
		"  -P, --parallel N     streams, 1..%d (default 1)\n"
		"  -t, --time DUR       duration (default 10s; DUR: 10, 1.5, 500ms, 2m)\n"
		"  -i, --interval DUR   interval reports every DUR; 0: none. Default 1s when\n"
		"                       stdout is a terminal (as iperf3), none otherwise: a\n"
		"                       script reading the tables gets the summary alone\n"
		"  -O, --omit DUR       warm-up left out of the result\n"
		"  -b, --bitrate RATE   target bit/s, total over streams, k/M/G suffixes;\n"
		"                       0: as fast as the sender can (UDP default 1M; TCP\n"
		"                       default unlimited)\n"
		"  -l, --length BYTES   UDP payload (default %d) / TCP write size (default %d)\n"
		"      --size-layer L   UDP: -l is the size at layer L: payload (the default),\n"
		"                       ip (IP packet) or frame (Ethernet frame with FCS, at\n"
		"                       least 64: RFC 2544's 64..1518)\n"
		"      --rate-layer L   UDP: -b counts layer L: payload (the default), ip,\n"
		"                       frame, or line (frame + preamble, SFD and gap: 20 B):\n"
		"                       100M of 64-byte frames at line rate is 148,809 pps\n"
		"  -R, --reverse        the server sends, the client receives\n"
		"      --bidir          both at once: two simultaneous tests, one each way,\n"
		"                       reported as iperf3 --bidir reports ([TX-C], [RX-C])\n"
		"  -M, --mss BYTES      TCP_MAXSEG of the test connections\n"
		"  -C, --congestion ALG TCP congestion control of the test connections at\n"
		"                       both ends (cubic, reno, bbr...; default each end's\n"
		"                       own); the server must have it too\n"
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
		"      --connect-timeout MS  deadline of connecting to the server (default:\n"
		"                       --msg-timeout's)\n"
		"  -T, --title STR      start each line of the tables with \"STR:  \"\n"
		"      --timestamps[=FMT]  start each line of the tables with the time, as\n"
		"                       strftime(3) FMT (default \"%%c \", as iperf3)\n"
		"  -f, --format U       rates in k, m, g (kbit/s, Mbit/s, Gbit/s) or K, M, G\n"
		"                       (kB/s, MB/s, GB/s); decimal units (1k = 1000), where\n"
		"                       iperf3 counts bytes in 1024s. Default: each scaled\n"
		"  -V, --verbose        print this host, its kernel and the test's options\n"
		"      --get-server-output  also the test as the server's end measured it\n"
		"                       (from its RESULTS; iperf3's \"server_output_text\")\n"
		"  -J                   iperf3's JSON document, as iperf3 -J writes it (its\n"
		"                       keys and types; ovlperf's figures under \"ovlperf\")\n"
		"      --json           ovlperf's own JSON document: every figure (docs/json.md)\n"
		"      --json-format F  the document's shape, whichever of -J and --json is\n"
		"                       given: ovlperf or iperf3\n"
		"      --json-stream    iperf3's shape, one JSON object per line and event\n"
		"                       (start, each interval, error, end) as iperf3\n"
		"                       --json-stream writes them\n\n"
		"Where ovlperf's defaults differ from iperf3's, on purpose: port 5211 (an\n"
		"iperf3 server may run beside it on 5201); UDP datagrams of 1400 B, which\n"
		"cross common overlays unfragmented; a UDP receive buffer of 32M, so the\n"
		"test's own socket does not drop what the path delivered; no interval\n"
		"tables in a pipe; SCHED_OTHER threads (--realtime).\n\n%s",
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
	OPT_SIZE_LAYER,
	OPT_RATE_LAYER,
	OPT_JSON_FORMAT,
	OPT_JSON_STREAM,
	OPT_JSON,
	OPT_CONNECT_TIMEOUT,
	OPT_BIDIR,
	OPT_SERVER_OUTPUT,
	OPT_TIMESTAMPS,
};

static const struct option options[] = {
	{ "client", required_argument, NULL, 'c' },
	{ "title", required_argument, NULL, 'T' },
	{ "timestamps", optional_argument, NULL, OPT_TIMESTAMPS },
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
	{ "bidir", no_argument, NULL, OPT_BIDIR },
	{ "get-server-output", no_argument, NULL, OPT_SERVER_OUTPUT },
	{ "mss", required_argument, NULL, 'M' },
	{ "congestion", required_argument, NULL, 'C' },
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
	{ "no-rt", no_argument, NULL, CLI_OPT_NO_RT },
	{ "realtime", no_argument, NULL, CLI_OPT_RT },
	{ "dont-fragment", no_argument, NULL, OPT_DF },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "json-format", required_argument, NULL, OPT_JSON_FORMAT },
	{ "json-stream", no_argument, NULL, OPT_JSON_STREAM },
	{ "connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT },
	{ "format", required_argument, NULL, 'f' },
	{ "verbose", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Whole numbers, sizes and durations in their ranges (value.h). */
static bool get(enum value_kind kind, const char *arg, uint64_t lo, uint64_t hi, uint64_t *v,
		char why[static VALUE_WHY_MAX])
{
	return value_get(kind, arg, lo, hi, v, why, VALUE_WHY_MAX) == 0;
}

/* -C: a name as tcp(7) takes it: 1..15 of [A-Za-z0-9_-]. */
static bool congestion_name(struct load_spec *s, const char *arg, char why[static VALUE_WHY_MAX])
{
	size_t n = strlen(arg);

	if (!n || n >= sizeof(s->congestion) ||
	    strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != n) {
		snprintf(why, VALUE_WHY_MAX,
			 "'%s' is not a congestion control name (1..15 of A-Z a-z 0-9 _ -)", arg);
		return false;
	}
	memcpy(s->congestion, arg, n + 1);
	return true;
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
	case OPT_CONNECT_TIMEOUT:
		if (!get(VALUE_UINT, arg, 1, 3600000, &v, why))
			return false;
		s->connect_timeout_ms = (uint32_t)v;
		return true;
	case 'B':
		return cli_opt_host(s->bind_addr, sizeof(s->bind_addr), NULL, arg, why,
				    VALUE_WHY_MAX);
	case 'C':
		return congestion_name(s, arg, why);
	case OPT_PSK:
		return cli_opt_copy(s->psk_file, sizeof(s->psk_file), arg, why, VALUE_WHY_MAX);
	default:
		snprintf(why, VALUE_WHY_MAX, "unknown option");
		return false;
	}
}

/* What the options say beyond the spec. */
struct client_opts {
	enum client_output json;
	struct cli_layer layer;
	bool interval_given, rate_given, verbose, bidir, server_output;
	char units;		  /* -f: 0 or one of REPORT_UNITS */
	const char *host;	  /* -c; NULL: the HOST argument */
	struct line_prefix lines; /* -T, --timestamps */
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

/* The output options; false with why on a bad value. */
static bool apply_output(int c, const char *arg, struct client_opts *o,
			 char why[static VALUE_WHY_MAX])
{
	switch (c) {
	case 'J': /* iperf3's -J: its document, for the tools that read it */
		if (o->json == CLIENT_TERM)
			o->json = CLIENT_IPERF3;
		return true;
	case OPT_JSON: /* ovlperf's own, every figure (docs/json.md) */
		if (o->json == CLIENT_TERM)
			o->json = CLIENT_JSON;
		return true;
	case OPT_JSON_STREAM:
		o->json = CLIENT_IPERF3_STREAM;
		return true;
	case 'V':
		o->verbose = true;
		return true;
	case OPT_BIDIR:
		o->bidir = true;
		return true;
	case OPT_SERVER_OUTPUT:
		o->server_output = true;
		return true;
	case 'T':
		o->lines.title = arg;
		return true;
	case OPT_TIMESTAMPS:
		o->lines.timestamps = arg ? arg : "%c ";
		return true;
	case 'f':
		if (strlen(arg) != 1 || !strchr(REPORT_UNITS, arg[0])) {
			snprintf(why, VALUE_WHY_MAX, "'%s': one of k, m, g, K, M, G", arg);
			return false;
		}
		o->units = arg[0];
		return true;
	default: /* --json-format */
		if (!strcmp(arg, "ovlperf") || !strcmp(arg, "iperf3")) {
			if (o->json != CLIENT_IPERF3_STREAM)
				o->json = arg[0] == 'i' ? CLIENT_IPERF3 : CLIENT_JSON;
			return true;
		}
		snprintf(why, VALUE_WHY_MAX, "'%s': ovlperf or iperf3", arg);
		return false;
	}
}

/* One option into the spec; false with why on a bad value. */
static bool apply(struct load_spec *s, int c, const char *arg, struct client_opts *o,
		  char why[static VALUE_WHY_MAX])
{
	if (cli_opt_family_rt(c, &s->family, &s->realtime))
		return true;
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
	case OPT_DF:
		s->dont_fragment = true;
		return true;
	case OPT_GSO:
		s->udp_gso = true;
		return true;
	case OPT_GRO:
		s->udp_gro = true;
		return true;
	case 'c':
		if (o->host) {
			snprintf(why, VALUE_WHY_MAX, "one server at a time");
			return false;
		}
		o->host = arg;
		return true;
	case 'T':
	case OPT_TIMESTAMPS:
	case 'J':
	case OPT_JSON:
	case OPT_JSON_FORMAT:
	case OPT_JSON_STREAM:
	case 'f':
	case 'V':
	case OPT_BIDIR:
	case OPT_SERVER_OUTPUT:
		return apply_output(c, arg, o, why);
	case 'l':
	case OPT_SIZE_LAYER:
	case OPT_RATE_LAYER:
		return apply_layer(s, c, arg, o, why);
	case 'i':
		o->interval_given = true;
		return apply_value(s, c, arg, why);
	case 'b':
		o->rate_given = true;
		return apply_value(s, c, arg, why);
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

/* What iperf3 users expect when they give no -b or -i: 1 Mbit/s for UDP;
 * a report each second on a terminal and in iperf3's JSON (whose
 * "intervals" always has them). Without a terminal the tables stay the
 * summary alone, ovlperf's default for scripts. */
static void habit_defaults(const struct client_opts *o, struct load_spec *s)
{
	if (!o->rate_given && s->proto == LOAD_UDP)
		s->rate_bps = 1000000;
	if (o->interval_given)
		return;
	if (o->json == CLIENT_IPERF3 || o->json == CLIENT_IPERF3_STREAM ||
	    (o->json == CLIENT_TERM && isatty(STDOUT_FILENO)))
		s->interval_ns = NSEC_PER_SEC;
}

/* -V: this host, its kernel and the options the test runs with. */
static void print_verbose(FILE *f, const struct load_spec *s)
{
	struct utsname u;

	fprintf(f, "ovlperf %s\n", OVLPERF_VERSION);
	if (uname(&u) == 0)
		fprintf(f, "host %s: %s %s %s %s\n", u.nodename, u.sysname, u.release, u.version,
			u.machine);
	fprintf(f,
		"options: %s, %u stream%s, %.3f s (omit %.3f s), interval %.3f s, length %u B, "
		"rate %llu bit/s%s, %s, mss %u, window %u B, dscp %u, port %u%s%s\n",
		s->proto == LOAD_UDP ? "UDP" : "TCP", s->streams, s->streams == 1 ? "" : "s",
		(double)s->duration_ns / 1e9, (double)s->omit_ns / 1e9,
		(double)s->interval_ns / 1e9,
		s->len		       ? s->len
		: s->proto == LOAD_UDP ? LOAD_UDP_DEFAULT_LEN
				       : LOAD_TCP_DEFAULT_LEN,
		(unsigned long long)s->rate_bps, s->rate_bps ? "" : " (as fast as it can)",
		s->reverse ? "reverse" : "client sends", s->mss, s->sock_buf, s->dscp,
		s->port ? s->port : LOAD_DEFAULT_PORT, s->bind_addr[0] ? ", bind " : "",
		s->bind_addr);
	fflush(f);
}

/* ovlperf's document, with the server's view under "server_output_text"
 * when asked (--get-server-output). */
static void print_native(const struct load_result *res, const char *server)
{
	cJSON *doc;
	char *text;

	if (!server) {
		report_load_json_print(stdout, res);
		return;
	}
	doc = report_load_json(res);
	if (doc)
		cJSON_AddStringToObject(doc, "server_output_text", server);
	text = doc ? cJSON_Print(doc) : NULL;
	if (text)
		printf("%s\n", text);
	else
		log_err("out of memory");
	free(text);
	cJSON_Delete(doc);
}

/* Runs the test and prints it as the options say; load_run's code. */
static int run_and_print(const struct client_opts *o, const struct load_spec *spec,
			 struct load_result *res, FILE *f)
{
	struct report_term term = { .f = f, .units = o->units };
	struct report_iperf3_stream st = { .f = stdout };
	struct load_hooks hooks = { .on_interval = report_load_term_interval, .arg = &term };
	struct load_hooks stream = { .on_local = report_iperf3_stream_local, .arg = &st };
	struct client_out out = { .mode = o->json,
				  .units = o->units,
				  .server_output = o->server_output };
	char *server = NULL;
	int rc;

	if (o->verbose && o->json == CLIENT_TERM)
		print_verbose(f, spec);
	if (o->bidir) {
		memset(res, 0, sizeof(*res)); /* each direction has its own */
		return client_bidir_run(&out, spec);
	}
	if (o->json == CLIENT_TERM)
		report_load_term_header(&term, spec);
	rc = load_run_hooks(spec, res,
			    o->json == CLIENT_TERM	      ? &hooks
			    : o->json == CLIENT_IPERF3_STREAM ? &stream
							      : NULL);
	/* in a lab, the loss on the path is the emulated link's to name */
	if (spec->proto == LOAD_UDP && res->udp.loss_at.network)
		lab_where(spec->host, res->udp.loss_at.network_where,
			  sizeof(res->udp.loss_at.network_where));
	if (o->server_output && res->nstreams)
		server = report_load_server_text(res, o->units);
	st.server_text = server;
	switch (o->json) {
	case CLIENT_TERM:
		if (res->nstreams)
			report_load_term(&term, res);
		if (server)
			fprintf(f, "\nServer output:\n%s", server);
		break;
	case CLIENT_JSON:
		print_native(res, server);
		break;
	case CLIENT_IPERF3:
		report_iperf3_print(stdout, res, server);
		break;
	default:
		report_iperf3_stream_end(&st, res);
	}
	free(server);
	return rc;
}

/* Arguments beyond the one HOST: name them, and the habit that most often
 * makes them (a value in two words, as iperf3's help writes "Mbits/sec"). */
static int extra_args(int argc, char **argv, int first, const char *host)
{
	if (first >= argc)
		fprintf(stderr, "ovlperf client: give exactly one server HOST (or -c HOST)\n");
	else if (host)
		fprintf(stderr,
			"ovlperf client: '%s' is one argument too many: the server is -c %s; a "
			"rate or size is one word (-b 100M, not -b 100 Mbps)\n",
			argv[first], host);
	else
		fprintf(stderr,
			"ovlperf client: give exactly one server HOST, not '%s' and '%s'; a rate "
			"or size is one word (-b 100M, not -b 100 Mbps)\n",
			argv[first], argv[first + 1]);
	fprintf(stderr, "see 'ovlperf client --help'\n");
	return EXIT_USAGE;
}

int cmd_client(int argc, char **argv)
{
	struct load_result res;
	struct load_spec spec;
	char why[VALUE_WHY_MAX], name[CLI_OPT_NAME_MAX];
	struct client_opts o = { .json = CLIENT_TERM };
	FILE *out;
	int c, rc;

	load_spec_defaults(&spec);
	optind = 1;
	opterr = 0; /* cli_opt_unknown() says it, with the option it may have meant */
	while ((c = getopt_long(argc, argv, ":uP:t:i:O:b:l:RM:C:w:46p:B:f:VJhc:T:", options,
				NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == '?' || c == ':' || !apply(&spec, c, optarg, &o, why)) {
			if (c == '?' || c == ':')
				cli_opt_unknown("client", options, c, argv[optind - 1]);
			else
				cli_opt_error("client", cli_opt_name(options, c, name), why);
			fprintf(stderr, "see 'ovlperf client --help'\n");
			return EXIT_USAGE;
		}
	}
	if (optind != argc - !o.host)
		return extra_args(argc, argv, optind, o.host);
	if (!o.host)
		o.host = argv[optind];
	if (!cli_opt_host(spec.host, sizeof(spec.host), &spec.port, o.host, why, sizeof(why)))
		return cli_opt_error("client", "HOST", why);
	if (!convert_layers(&o, &spec))
		return EXIT_USAGE;
	if (o.bidir && spec.reverse) {
		cli_opt_error("client", "--bidir", "runs both directions: leave -R out");
		return EXIT_USAGE;
	}
	habit_defaults(&o, &spec);
	/* before any output: the banner is not printed for a test that
	 * cannot start */
	if (spec.proto == LOAD_UDP && spec.len &&
	    (spec.len < LOAD_UDP_SHORT_MIN_LEN || spec.len > LOAD_UDP_MAX_LEN)) {
		snprintf(why, sizeof(why), "a UDP datagram carries %d..%d bytes",
			 LOAD_UDP_SHORT_MIN_LEN, LOAD_UDP_MAX_LEN);
		return cli_opt_error("client", "--length", why);
	}
	if ((o.lines.title || o.lines.timestamps) && o.bidir)
		return cli_opt_error("client", o.lines.title ? "--title" : "--timestamps",
				     "not with --bidir");
	out = stdout;
	if ((o.lines.title || o.lines.timestamps) && o.json == CLIENT_TERM &&
	    !(out = line_prefix_open(stdout, &o.lines))) {
		log_err("cannot prefix the output lines: %s", strerror(errno));
		return 1;
	}
	interrupt_install();
	rc = run_and_print(&o, &spec, &res, out);
	if (out != stdout)
		fclose(out);
	if (rc < 0 && res.error[0])
		log_err("%s", res.error);
	load_result_free(&res);
	if (rc == -EINVAL)
		return EXIT_USAGE;
	return rc < 0 ? 1 : 0;
}
