// SPDX-License-Identifier: MIT
/* `ovlperf server`: options, then server_run(). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "addr.h"
#include "auth.h"
#include "cli_opt.h"
#include "cmd.h"
#include "interrupt.h"
#include "load_spec.h"
#include "log.h"
#include "overlay.h"
#include "rate.h"
#include "server.h"
#include "value.h"
#include "version.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ovlperf server [options]   (ovlperf -s, ovlperf server -s, as iperf3)\n"
		"Serves TCP, UDP and MTU tests to `ovlperf client`, `sweep`, `mtu` and `run`.\n"
		"Logs go to stderr (-v for one line per test). When it stops it logs one stats\n"
		"line: sessions, tests, and every refusal counted by reason (bad_message,\n"
		"timeout, auth, limit_*, busy, ...) and refused foreign data.\n\n"
		"  -s, --server           accepted for iperf3's habit (this is the server)\n"
		"  -p, --port PORT        the one port, TCP and UDP: control, data, UDP streams\n"
		"                         and MTU probes (default %d)\n"
		"  -B, --bind ADDR        listen on this address only (default: all, IPv4+IPv6);\n"
		"                         198.18.0.2, 2001:2::2, [2001:2::2]:5211 (with a port)\n"
		"  -4, -6                 IPv4 / IPv6 only\n"
		"  -1, --one-off          serve one test, then exit\n"
		"      --psk-file FILE    clients must prove this pre-shared key first\n"
		"      --max-duration DUR longest test accepted, omit included (default 1h)\n"
		"      --max-rate RATE    highest bit rate accepted (k/M/G; default none;\n"
		"                         with a limit, unlimited TCP requests are refused)\n"
		"      --max-streams N    most streams per test (default %d)\n"
		"      --max-sessions N   control connections at once (default %d)\n"
		"      --msg-timeout MS   a started message must complete within MS (default %u)\n"
		"      --idle-timeout MS  longest silence between messages (default %u)\n"
		"      --realtime         as root, run the UDP test threads SCHED_FIFO (priority\n"
		"                         1). Off by default: a real-time receiver starves a\n"
		"                         userspace overlay daemon (the built-in overlay,\n"
		"                         wireguard-go, OpenVPN) on the same host, and the test\n"
		"                         then measures that (loss, delay), not the path. Only\n"
		"                         for a host no such daemon shares. Each result says\n"
		"                         what both ends' threads ran with (\"sched\")\n"
		"      --no-rt            SCHED_OTHER, the default (kept for old scripts)\n"
		"      --overlay          (needs --psk-file; root) bring up the built-in overlay\n"
		"                         for an authenticated client that asks (`run`, a\n"
		"                         [host.*] path of type builtin): fresh keys, a TUN\n"
		"                         device ovs<PORT>-<N> and its daemon, underlay UDP on\n"
		"                         this server's port. It lives as long as the client's\n"
		"                         control connection: taken down when the client is\n"
		"                         done or hangs up, after %d s without an answer to TCP\n"
		"                         keepalives (a client that vanished), and when the\n"
		"                         server stops; what a crashed server left is removed\n"
		"                         at the next start (state file in %s)\n"
		"      --overlay-max N    overlays at once, one per client session (default %d,\n"
		"                         at most %d)\n"
		"      --overlay-state F  the state file (default\n"
		"                         %s/server-NETNS_INODE-PORT.state)\n"
		"      --no-host-facts    send no host facts (answer as a server before them:\n"
		"                         to test a client against an older server)\n\n"
		"On start it logs one line: version, port, PSK on or off, limits.\n\n"
		"%s",
		LOAD_DEFAULT_PORT, LOAD_MAX_STREAMS, SERVER_DEFAULT_MAX_SESSIONS, 10000u,
		SERVER_DEFAULT_IDLE_MS, OVERLAY_DEAD_S, OVERLAY_STATE_DIR, OVERLAY_DEFAULT_MAX,
		OVERLAY_MAX_SLOTS, OVERLAY_STATE_DIR, AUTH_PSK_FILE_HELP);
}

enum {
	OPT_PSK = 256,
	OPT_MAXDUR,
	OPT_MAXRATE,
	OPT_MAXSTREAMS,
	OPT_MAXSESS,
	OPT_MSGTMO,
	OPT_IDLE,
	OPT_OVERLAY,
	OPT_OVERLAY_MAX,
	OPT_OVERLAY_STATE,
	OPT_NO_FACTS
};

static const struct option options[] = {
	{ "server", no_argument, NULL, 's' },
	{ "port", required_argument, NULL, 'p' },
	{ "bind", required_argument, NULL, 'B' },
	{ "one-off", no_argument, NULL, '1' },
	{ "psk-file", required_argument, NULL, OPT_PSK },
	{ "max-duration", required_argument, NULL, OPT_MAXDUR },
	{ "max-rate", required_argument, NULL, OPT_MAXRATE },
	{ "max-streams", required_argument, NULL, OPT_MAXSTREAMS },
	{ "max-sessions", required_argument, NULL, OPT_MAXSESS },
	{ "msg-timeout", required_argument, NULL, OPT_MSGTMO },
	{ "idle-timeout", required_argument, NULL, OPT_IDLE },
	{ "no-rt", no_argument, NULL, CLI_OPT_NO_RT },
	{ "realtime", no_argument, NULL, CLI_OPT_RT },
	{ "overlay", no_argument, NULL, OPT_OVERLAY },
	{ "overlay-max", required_argument, NULL, OPT_OVERLAY_MAX },
	{ "overlay-state", required_argument, NULL, OPT_OVERLAY_STATE },
	{ "no-host-facts", no_argument, NULL, OPT_NO_FACTS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* An option with a value into cfg; false with why on a bad value. */
static bool apply_value(struct server_config *cfg, int c, const char *arg,
			char why[static VALUE_WHY_MAX])
{
	uint64_t v;

	switch (c) {
	case 'p':
		if (value_get(VALUE_UINT, arg, 1, 65535, &v, why, VALUE_WHY_MAX))
			return false;
		cfg->port = (uint16_t)v;
		return true;
	case 'B':
		return cli_opt_host(cfg->bind_addr, sizeof(cfg->bind_addr), &cfg->port, arg, why,
				    VALUE_WHY_MAX);
	case OPT_PSK:
		return cli_opt_copy(cfg->psk_file, sizeof(cfg->psk_file), arg, why, VALUE_WHY_MAX);
	case OPT_MAXDUR:
		return !value_get(VALUE_DURATION, arg, CLI_DURATION_MIN_NS, CLI_SECONDS_MAX_NS,
				  &cfg->max_duration_ns, why, VALUE_WHY_MAX);
	case OPT_MAXRATE:
		return !value_get(VALUE_RATE, arg, 1, (uint64_t)RATE_MAX_BPS, &cfg->max_rate_bps,
				  why, VALUE_WHY_MAX);
	case OPT_MAXSTREAMS:
		if (value_get(VALUE_UINT, arg, 1, LOAD_MAX_STREAMS, &v, why, VALUE_WHY_MAX))
			return false;
		cfg->max_streams = (unsigned)v;
		return true;
	case OPT_MAXSESS:
		if (value_get(VALUE_UINT, arg, 1, 4096, &v, why, VALUE_WHY_MAX))
			return false;
		cfg->max_sessions = (unsigned)v;
		return true;
	case OPT_OVERLAY_MAX:
		if (value_get(VALUE_UINT, arg, 1, OVERLAY_MAX_SLOTS, &v, why, VALUE_WHY_MAX))
			return false;
		cfg->overlay_max = (unsigned)v;
		return true;
	case OPT_OVERLAY_STATE:
		return cli_opt_copy(cfg->overlay_state, sizeof(cfg->overlay_state), arg, why,
				    VALUE_WHY_MAX);
	case OPT_MSGTMO:
	case OPT_IDLE:
		if (value_get(VALUE_UINT, arg, 1, 3600000, &v, why, VALUE_WHY_MAX))
			return false;
		*(c == OPT_MSGTMO ? &cfg->msg_timeout_ms : &cfg->idle_timeout_ms) = (uint32_t)v;
		return true;
	default:
		snprintf(why, VALUE_WHY_MAX, "unknown option");
		return false;
	}
}

static bool apply(struct server_config *cfg, int c, const char *arg, char why[static VALUE_WHY_MAX])
{
	if (cli_opt_family_rt(c, &cfg->family, &cfg->realtime))
		return true;
	switch (c) {
	case '1':
		cfg->one_shot = true;
		return true;
	case OPT_OVERLAY:
		cfg->overlay = true;
		return true;
	case OPT_NO_FACTS:
		cfg->no_host_facts = true;
		return true;
	default:
		return apply_value(cfg, c, arg, why);
	}
}

/* The start-up line: what a client may expect of this server, so that the
 * log of a service says it without reading its unit file. */
static void startup_line(const struct server_config *cfg)
{
	int family = cfg->bind_addr[0] ? addr_literal_family(cfg->bind_addr) : cfg->family;
	char rate[32] = "none", ovl[48] = "off";

	if (cfg->max_rate_bps)
		snprintf(rate, sizeof(rate), "%.6g Mbit/s", (double)cfg->max_rate_bps / 1e6);
	if (cfg->overlay)
		snprintf(ovl, sizeof(ovl), "on, at most %u at once", cfg->overlay_max);
	log_notice("server %s starting: port %u%s%s, %s, PSK %s, built-in overlay %s; limits: "
		   "%u sessions, %u streams a test, %.0f s a test, rate %s",
		   OVLPERF_VERSION, cfg->port ? cfg->port : LOAD_DEFAULT_PORT,
		   cfg->bind_addr[0] ? " on " : "", cfg->bind_addr,
		   family == AF_INET	? "IPv4"
		   : family == AF_INET6 ? "IPv6"
		   : cfg->bind_addr[0]	? "as the name resolves"
					: "IPv4 and IPv6",
		   cfg->psk_file[0] ? "on" : "off", ovl, cfg->max_sessions, cfg->max_streams,
		   (double)cfg->max_duration_ns / 1e9, rate);
}

int cmd_server(int argc, char **argv)
{
	char why[VALUE_WHY_MAX], name[CLI_OPT_NAME_MAX];
	struct server_config cfg;
	int c, rc;

	server_config_defaults(&cfg);
	optind = 1;
	opterr = 0; /* cli_opt_unknown() says it, with the option it may have meant */
	while ((c = getopt_long(argc, argv, ":p:B:461hs", options, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == 's') /* iperf3's -s: this is the server already */
			continue;
		if (c == '?' || c == ':' || !apply(&cfg, c, optarg, why)) {
			if (c == '?' || c == ':')
				cli_opt_unknown("server", options, c, argv[optind - 1]);
			else
				cli_opt_error("server", cli_opt_name(options, c, name), why);
			fprintf(stderr, "see 'ovlperf server --help'\n");
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "ovlperf server: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (cfg.overlay && !cfg.psk_file[0]) {
		fprintf(stderr, "ovlperf server: --overlay needs --psk-file: only a client that "
				"proves the pre-shared key may bring up a TUN device here\n");
		return EXIT_USAGE;
	}
	interrupt_install();
	startup_line(&cfg);
	rc = server_run(&cfg);
	if (rc == -EACCES || rc == -EINVAL || rc == -ENOENT)
		return EXIT_USAGE;
	return rc < 0 ? 1 : 0;
}
