// SPDX-License-Identifier: MIT
/* `ovlperf client HOST`: one TCP or UDP test, printed as tables or JSON. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "clock.h"
#include "cmd.h"
#include "interrupt.h"
#include "load.h"
#include "log.h"
#include "rate.h"
#include "report_load.h"
#include "scenario.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ovlperf client [options] HOST\n"
		"Runs one test against `ovlperf server` on HOST.\n\n"
		"  -u, --udp            UDP test (default TCP; --tcp says so explicitly)\n"
		"  -P, --parallel N     streams, 1..%d (default 1)\n"
		"  -t, --time SEC       duration (default 10)\n"
		"  -i, --interval SEC   interval reports every SEC (default none)\n"
		"  -O, --omit SEC       warm-up left out of the result\n"
		"  -b, --bitrate RATE   target bit/s, total over streams, k/M/G suffixes\n"
		"                       (UDP default 1M; TCP default unlimited)\n"
		"  -l, --length BYTES   UDP payload (default %d) / TCP write size (default %d)\n"
		"  -R, --reverse        the server sends, the client receives\n"
		"  -M, --mss BYTES      TCP_MAXSEG of the test connections\n"
		"  -w, --window BYTES   socket buffers (K/M suffixes, binary): TCP both ends'\n"
		"                       (default autotuning), UDP the receiver's (default 32M)\n"
		"      --no-gso, --no-gro  do not use UDP GSO / GRO (on where the kernel has "
		"them)\n"
		"      --dont-fragment  UDP: set DF; a datagram above the path MTU is an error.\n"
		"                       Without it the kernel fragments such datagrams (reported\n"
		"                       as fragments per datagram, with a warning)\n"
		"      --no-rt          keep this end's UDP threads SCHED_OTHER (default as root:\n"
		"                       SCHED_FIFO, so a busy host does not distort the pacing)\n"
		"  -4, -6               IPv4 / IPv6 only\n"
		"  -p, --port PORT      control port (default %d)\n"
		"  -B, --bind ADDR      local address\n"
		"      --dscp N         DSCP of the test traffic (0..63)\n"
		"      --psk-file FILE  prove the server's pre-shared key\n"
		"      --msg-timeout MS deadline of each control step (connecting included),\n"
		"                       and how long past the drain the results may take\n"
		"                       (default 10000)\n"
		"  -J, --json           one JSON document on stdout (docs/json.md)\n",
		LOAD_MAX_STREAMS, LOAD_UDP_DEFAULT_LEN, LOAD_TCP_DEFAULT_LEN, LOAD_DEFAULT_PORT);
}

/* Bytes with optional binary K/M/G suffix. */
static bool parse_size(const char *s, uint64_t max, uint32_t *out)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	switch (tolower((unsigned char)*end)) {
	case 'k':
		shift = 10;
		end++;
		break;
	case 'm':
		shift = 20;
		end++;
		break;
	case 'g':
		shift = 30;
		end++;
		break;
	default:
		break;
	}
	if (*end || v > (max >> shift))
		return false;
	*out = (uint32_t)(v << shift);
	return true;
}

enum {
	OPT_TCP = 256,
	OPT_DF,
	OPT_NO_GSO,
	OPT_NO_GRO,
	OPT_GSO,
	OPT_GRO,
	OPT_PSK,
	OPT_DSCP,
	OPT_MSGTMO,
	OPT_NO_RT
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
	{ "reverse", no_argument, NULL, 'R' },
	{ "mss", required_argument, NULL, 'M' },
	{ "window", required_argument, NULL, 'w' },
	{ "no-gso", no_argument, NULL, OPT_NO_GSO },
	{ "no-gro", no_argument, NULL, OPT_NO_GRO },
	{ "gso", no_argument, NULL, OPT_GSO },
	{ "gro", no_argument, NULL, OPT_GRO },
	{ "port", required_argument, NULL, 'p' },
	{ "bind", required_argument, NULL, 'B' },
	{ "dscp", required_argument, NULL, OPT_DSCP },
	{ "psk-file", required_argument, NULL, OPT_PSK },
	{ "msg-timeout", required_argument, NULL, OPT_MSGTMO },
	{ "no-rt", no_argument, NULL, OPT_NO_RT },
	{ "dont-fragment", no_argument, NULL, OPT_DF },
	{ "json", no_argument, NULL, 'J' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static bool copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		return false;
	memcpy(dst, src, n + 1);
	return true;
}

/* One option into the spec; false with a message on bad input. */
static bool apply(struct load_spec *s, int c, const char *arg, bool *json)
{
	uint64_t v;
	uint32_t sz;

	switch (c) {
	case 'u':
		s->proto = LOAD_UDP;
		return true;
	case OPT_TCP:
		s->proto = LOAD_TCP;
		return true;
	case 'P':
		if (!scenario_parse_uint(arg, 0, LOAD_MAX_STREAMS, &v) || !v)
			return false;
		s->streams = (unsigned)v;
		return true;
	case 't':
		return load_parse_seconds(arg, &s->duration_ns) && s->duration_ns;
	case 'i':
		return load_parse_seconds(arg, &s->interval_ns);
	case 'O':
		return load_parse_seconds(arg, &s->omit_ns);
	case 'b':
		return rate_parse(arg, &s->rate_bps);
	case 'l':
		if (!parse_size(arg, 16u << 20, &sz) || !sz)
			return false;
		s->len = sz;
		return true;
	case 'R':
		s->reverse = true;
		return true;
	case 'M':
		if (!scenario_parse_uint(arg, 0, 65535, &v) || v < 88)
			return false;
		s->mss = (uint32_t)v;
		return true;
	case 'w':
		return parse_size(arg, 1u << 30, &s->sock_buf) && s->sock_buf;
	case OPT_NO_GSO:
		s->udp_gso = false;
		return true;
	case OPT_NO_GRO:
		s->udp_gro = false;
		return true;
	case OPT_NO_RT:
		s->no_realtime = true;
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
	case 'p':
		if (!scenario_parse_uint(arg, 0, 65535, &v) || !v)
			return false;
		s->port = (uint16_t)v;
		return true;
	case 'B':
		return copy_str(s->bind_addr, sizeof(s->bind_addr), arg);
	case OPT_DSCP:
		if (!scenario_parse_uint(arg, 0, 63, &v))
			return false;
		s->dscp = (uint8_t)v;
		return true;
	case OPT_PSK:
		return copy_str(s->psk_file, sizeof(s->psk_file), arg);
	case OPT_MSGTMO:
		if (!scenario_parse_uint(arg, 0, 3600000, &v) || !v)
			return false;
		s->msg_timeout_ms = (uint32_t)v;
		return true;
	case 'J':
		*json = true;
		return true;
	default:
		return false;
	}
}

int cmd_client(int argc, char **argv)
{
	struct load_hooks hooks = { .on_interval = report_load_term_interval, .arg = stdout };
	struct load_result res;
	struct load_spec spec;
	bool json = false;
	int c, rc;

	load_spec_defaults(&spec);
	optind = 1;
	while ((c = getopt_long(argc, argv, "uP:t:i:O:b:l:RM:w:46p:B:Jh", options, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == '?' || !apply(&spec, c, optarg, &json)) {
			if (c != '?')
				fprintf(stderr, "ovlperf client: bad value '%s' for -%c\n",
					optarg ? optarg : "", c < 256 ? c : '-');
			fprintf(stderr, "see 'ovlperf client --help'\n");
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || !copy_str(spec.host, sizeof(spec.host), argv[optind])) {
		fprintf(stderr, "ovlperf client: give exactly one server HOST\n");
		fprintf(stderr, "see 'ovlperf client --help'\n");
		return EXIT_USAGE;
	}
	interrupt_install();
	if (!json)
		report_load_term_header(stdout, &spec);
	rc = load_run_hooks(&spec, &res, json ? NULL : &hooks);
	if (json) {
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
