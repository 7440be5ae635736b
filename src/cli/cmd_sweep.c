// SPDX-License-Identifier: MIT
/* `ovlperf sweep HOST`: a linear UDP rate sweep or a knee (NDR/PDR) search. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli_layer.h"
#include "cli_opt.h"
#include "cmd.h"
#include "interrupt.h"
#include "knee.h"
#include "lab.h"
#include "log.h"
#include "rate.h"
#include "scenario.h"
#include "sweep.h"
#include "value.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ovlperf sweep [options] HOST --from RATE --to RATE --step RATE\n"
		"       ovlperf sweep [options] HOST --knee --max RATE\n"
		"Sweeps UDP offered load against `ovlperf server` on HOST: linearly, printing\n"
		"offered | TX pps | RX pps | Mbit/s | delivered %% per rate, or as a knee search\n"
		"for the NDR (no loss) and PDR (loss within a goal), FD.io MLRsearch-style.\n"
		"Rates in bit/s with k/M/G (decimal): 500k, 100M, 1.5G. HOST: a name or\n"
		"address, with a port (instead of -p) as HOST:5211 or [2001:2::2]:5211.\n\n"
		"  --from R --to R --step R   linear sweep, both ends included\n"
		"  --knee                     knee search (needs --max)\n"
		"  --max R, --min R           knee: first trial rate; lowest rate (default "
		"max/1000)\n"
		"  -t, --time DUR             linear: each trial (default 5s); knee: narrowing\n"
		"                             trials (default 1s). DUR: 10, 10s, 500ms, 1m\n"
		"  --final DUR                knee: final trials (default 1s)\n"
		"  --loss-goal PCT            knee: PDR loss tolerated (default 0.5)\n"
		"  --width-goal PCT           knee: stop at this relative width (default 1)\n"
		"  --exceed-ratio PCT         knee: share of a load's trial time that may lose\n"
		"                             more than the goal (RFC 9971; default 50)\n"
		"  --duration-sum DUR         knee: trial time a load needs before it is\n"
		"                             classified (default three final trials)\n"
		"  --max-trials N             knee: give up after N trials (default %d)\n"
		"  --max-time DUR             knee: the search's own time, each trial's setup\n"
		"                             included, pauses not (default: 60 final\n"
		"                             trials)\n"
		"  --fit-trials N             knee: final trials, once the goals are done, at\n"
		"                             a soft knee's fitted NDR (0: none; default %d)\n"
		"  --gap DUR                  pause between trials (default 500ms)\n"
		"  -l, --length BYTES         UDP payload per datagram (default %d)\n"
		"      --size-layer L         -l is the size at layer L: payload (the default),\n"
		"                             ip (IP packet) or frame (Ethernet frame with FCS)\n"
		"      --rate-layer L         the rates count layer L: payload (the default),\n"
		"                             ip, frame or line (frame + 20 B of preamble, SFD\n"
		"                             and gap): RFC 2544 line rate\n"
		"  -P, --parallel N           streams sharing the rate (default 1)\n"
		"      --no-gso               send each datagram alone, not in UDP GSO batches\n"
		"                             (each is then one packet to a packet counter)\n"
		"  -w, --window BYTES         socket buffers (k/M/G binary, to 1G)\n"
		"  -4, -6                     IPv4 / IPv6 only\n"
		"  -p, --port PORT            the server's port, TCP and UDP (default %d)\n"
		"      --cport PORT           source ports of the streams, PORT..PORT+P-1\n"
		"                             (the control connection's stays ephemeral)\n"
		"      --psk-file FILE        prove the server's pre-shared key\n"
		"      --label NAME           path name shown in the report\n"
		"      --no-progress          no progress lines on stderr\n"
		"      --realtime             as root, this end's UDP threads SCHED_FIFO (off by\n"
		"                             default: it starves a userspace overlay daemon on\n"
		"                             the host; each point says what both ends ran with)\n"
		"      --no-rt                SCHED_OTHER, the default (kept for old scripts)\n"
		"  -J, --json                 one JSON document on stdout\n",
		KNEE_DEFAULT_MAX_TRIALS, KNEE_DEFAULT_FIT_TRIALS, LOAD_UDP_DEFAULT_LEN,
		LOAD_DEFAULT_PORT);
}

enum {
	OPT_FROM = 256,
	OPT_TO,
	OPT_STEP,
	OPT_KNEE,
	OPT_MAX,
	OPT_MIN,
	OPT_FINAL,
	OPT_LOSS,
	OPT_WIDTH,
	OPT_EXCEED,
	OPT_DURSUM,
	OPT_MAX_TIME,
	OPT_TRIALS,
	OPT_FIT_TRIALS,
	OPT_GAP,
	OPT_PSK,
	OPT_LABEL,
	OPT_NOPROGRESS,
	OPT_SIZE_LAYER,
	OPT_RATE_LAYER,
	OPT_CPORT,
	OPT_NO_GSO,
};

static const struct option options[] = {
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "step", required_argument, NULL, OPT_STEP },
	{ "knee", no_argument, NULL, OPT_KNEE },
	{ "max", required_argument, NULL, OPT_MAX },
	{ "min", required_argument, NULL, OPT_MIN },
	{ "time", required_argument, NULL, 't' },
	{ "final", required_argument, NULL, OPT_FINAL },
	{ "loss-goal", required_argument, NULL, OPT_LOSS },
	{ "width-goal", required_argument, NULL, OPT_WIDTH },
	{ "exceed-ratio", required_argument, NULL, OPT_EXCEED },
	{ "duration-sum", required_argument, NULL, OPT_DURSUM },
	{ "max-time", required_argument, NULL, OPT_MAX_TIME },
	{ "max-trials", required_argument, NULL, OPT_TRIALS },
	{ "fit-trials", required_argument, NULL, OPT_FIT_TRIALS },
	{ "gap", required_argument, NULL, OPT_GAP },
	{ "length", required_argument, NULL, 'l' },
	{ "size-layer", required_argument, NULL, OPT_SIZE_LAYER },
	{ "rate-layer", required_argument, NULL, OPT_RATE_LAYER },
	{ "parallel", required_argument, NULL, 'P' },
	{ "window", required_argument, NULL, 'w' },
	{ "port", required_argument, NULL, 'p' },
	{ "cport", required_argument, NULL, OPT_CPORT },
	{ "psk-file", required_argument, NULL, OPT_PSK },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "no-progress", no_argument, NULL, OPT_NOPROGRESS },
	{ "no-gso", no_argument, NULL, OPT_NO_GSO },
	{ "realtime", no_argument, NULL, CLI_OPT_RT },
	{ "no-rt", no_argument, NULL, CLI_OPT_NO_RT },
	{ "json", no_argument, NULL, 'J' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct opts {
	struct sweep_spec spec;
	bool linear_given[3]; /* from, to, step */
	bool knee, max_given, time_given, final_given, json, progress;
	struct cli_layer layer;
};

/* The field a rate option sets. */
static uint64_t *rate_ptr(struct sweep_spec *s, int c)
{
	switch (c) {
	case OPT_FROM:
		return &s->from_bps;
	case OPT_TO:
		return &s->to_bps;
	case OPT_STEP:
		return &s->step_bps;
	case OPT_MAX:
		return &s->knee.max_rate_bps;
	default:
		return &s->knee.min_rate_bps;
	}
}

/* The field a rate option sets, marked as given. */
static uint64_t *rate_field(struct opts *o, int c)
{
	if (c >= OPT_FROM && c <= OPT_STEP)
		o->linear_given[c - OPT_FROM] = true;
	else if (c == OPT_MAX)
		o->max_given = true;
	return rate_ptr(&o->spec, c);
}

static bool set_duration(struct opts *o, int c, uint64_t v)
{
	struct sweep_spec *s = &o->spec;

	if (c == 't') {
		o->time_given = true;
		s->trial_ns = v;
		s->knee.short_ns = v;
	} else if (c == OPT_FINAL) {
		o->final_given = true;
		s->knee.final_ns = v;
	} else if (c == OPT_DURSUM) {
		s->knee.duration_sum_ns = v;
	} else if (c == OPT_MAX_TIME) {
		s->knee.max_time_ns = v;
	} else {
		s->gap_ns = v;
	}
	return true;
}

/* An option with a number; false with why on a bad value. */
static bool parse_number(struct opts *o, int c, const char *arg, char why[static VALUE_WHY_MAX])
{
	struct sweep_spec *s = &o->spec;
	uint64_t v;
	double pct;

	switch (c) {
	case OPT_FROM:
	case OPT_TO:
	case OPT_STEP:
	case OPT_MAX:
	case OPT_MIN:
		if (value_get(VALUE_RATE, arg, 1, (uint64_t)RATE_MAX_BPS, &v, why, VALUE_WHY_MAX))
			return false;
		*rate_field(o, c) = v;
		return true;
	case 't':
	case OPT_FINAL:
	case OPT_DURSUM:
	case OPT_MAX_TIME:
	case OPT_GAP:
		if (value_get(VALUE_DURATION, arg, c == OPT_GAP ? 0 : CLI_DURATION_MIN_NS,
			      SCN_DURATION_MAX_NS, &v, why, VALUE_WHY_MAX))
			return false;
		return set_duration(o, c, v);
	case OPT_LOSS:
	case OPT_WIDTH:
		if (value_get_percent(arg, 0, 100, &pct, why, VALUE_WHY_MAX))
			return false;
		/* knee.h: a loss goal below 100 %, a width goal strictly inside 0..50 % */
		if (c == OPT_LOSS ? pct >= 100 : !(pct > 0 && pct < 50)) {
			snprintf(why, VALUE_WHY_MAX, "%s is out of range (%s)", arg,
				 c == OPT_LOSS ? "0..100, 100 excluded" : "0..50, both excluded");
			return false;
		}
		*(c == OPT_LOSS ? &s->knee.loss_goal : &s->knee.width_goal) = pct / 100;
		return true;
	case OPT_EXCEED:
		if (value_get_percent(arg, 0, 100, &pct, why, VALUE_WHY_MAX))
			return false;
		if (pct >= 100) {
			snprintf(why, VALUE_WHY_MAX, "%s is out of range (0..100, 100 excluded)",
				 arg);
			return false;
		}
		s->knee.exceed_ratio = pct / 100;
		return true;
	case OPT_TRIALS:
		if (value_get(VALUE_UINT, arg, 1, KNEE_MAX_TRIALS, &v, why, VALUE_WHY_MAX))
			return false;
		s->knee.max_trials = (unsigned)v;
		return true;
	case OPT_FIT_TRIALS:
		if (value_get(VALUE_UINT, arg, 0, KNEE_MAX_TRIALS, &v, why, VALUE_WHY_MAX))
			return false;
		s->knee.fit_trials = (unsigned)v;
		return true;
	default:
		return false;
	}
}

/* An option of the load; false with why on a bad value. */
static bool parse_load(struct opts *o, int c, const char *arg, char why[static VALUE_WHY_MAX])
{
	struct sweep_spec *s = &o->spec;
	uint64_t v;

	switch (c) {
	case 'l':
		/* the range at the layer is checked once the layer is known */
		if (value_get(VALUE_UINT, arg, 1, 1u << 20, &v, why, VALUE_WHY_MAX))
			return false;
		o->layer.len_given = true;
		o->layer.len = v;
		return true;
	case OPT_SIZE_LAYER:
		return cli_layer_parse(arg, LAYER_FRAME, &o->layer.size_layer, why, VALUE_WHY_MAX);
	case OPT_RATE_LAYER:
		return cli_layer_parse(arg, LAYER_LINE, &o->layer.rate_layer, why, VALUE_WHY_MAX);
	case 'P':
		if (value_get(VALUE_UINT, arg, 1, LOAD_MAX_STREAMS, &v, why, VALUE_WHY_MAX))
			return false;
		s->load.streams = (unsigned)v;
		return true;
	case 'w':
		/* as `client -w`: a socket buffer above 1G is a typo */
		if (value_get(VALUE_SIZE, arg, 1, 1u << 30, &v, why, VALUE_WHY_MAX))
			return false;
		s->load.sock_buf = (uint32_t)v;
		return true;
	case 'p':
	case OPT_CPORT:
		if (value_get(VALUE_UINT, arg, 1, 65535, &v, why, VALUE_WHY_MAX))
			return false;
		*(c == 'p' ? &s->load.port : &s->load.cport) = (uint16_t)v;
		return true;
	case OPT_PSK:
		return cli_opt_copy(s->load.psk_file, sizeof(s->load.psk_file), arg, why,
				    VALUE_WHY_MAX);
	case OPT_LABEL:
		return cli_opt_copy(s->label, sizeof(s->label), arg, why, VALUE_WHY_MAX);
	default:
		return parse_number(o, c, arg, why);
	}
}

/* One option; false with why on a bad value. */
static bool parse_option(struct opts *o, int c, const char *arg, char why[static VALUE_WHY_MAX])
{
	if (cli_opt_family_rt(c, &o->spec.load.family, &o->spec.load.realtime))
		return true;
	switch (c) {
	case OPT_KNEE:
		o->knee = true;
		return true;
	case OPT_NOPROGRESS:
		o->progress = false;
		return true;
	case OPT_NO_GSO:
		o->spec.load.udp_gso = false;
		return true;
	case 'J':
		o->json = true;
		return true;
	default:
		snprintf(why, VALUE_WHY_MAX, "unknown option");
		return parse_load(o, c, arg, why);
	}
}

/* -l and the rates from their layers into payload units (cli_layer.h);
 * false after saying why. */
static bool convert_layers(struct opts *o)
{
	static const int rate_opts[] = { OPT_FROM, OPT_TO, OPT_STEP, OPT_MAX, OPT_MIN };
	struct load_spec *s = &o->spec.load;
	char why[VALUE_WHY_MAX], name[CLI_OPT_NAME_MAX];
	int family;

	if (o->layer.size_layer == LAYER_PAYLOAD && o->layer.len_given &&
	    (o->layer.len < LOAD_UDP_SHORT_MIN_LEN || o->layer.len > LOAD_UDP_MAX_LEN)) {
		snprintf(why, sizeof(why), "%llu is out of range (%u..%u)",
			 (unsigned long long)o->layer.len, LOAD_UDP_SHORT_MIN_LEN,
			 LOAD_UDP_MAX_LEN);
		cli_opt_error("sweep", "--length", why);
		return false;
	}
	if (cli_layer_len(&o->layer, s, &family, why, sizeof(why)) < 0) {
		cli_opt_error("sweep", "--length", why);
		return false;
	}
	if (o->layer.size_layer != LAYER_PAYLOAD || o->layer.rate_layer != LAYER_PAYLOAD)
		s->family = family; /* the layers count this family's headers */
	/* a linear sweep's rates stay at their layer: its points are converted
	 * one by one (sweep.h); every rate is checked here */
	o->spec.rate_layer = o->knee ? LAYER_PAYLOAD : o->layer.rate_layer;
	for (size_t i = 0; i < sizeof(rate_opts) / sizeof(rate_opts[0]); i++) {
		uint64_t *bps = rate_ptr(&o->spec, rate_opts[i]), v = *bps;

		if (cli_layer_rate(&o->layer, s, family, &v, why, sizeof(why)) < 0) {
			cli_opt_error("sweep", cli_opt_name(options, rate_opts[i], name), why);
			return false;
		}
		if (o->spec.rate_layer == LAYER_PAYLOAD || rate_opts[i] == OPT_MAX ||
		    rate_opts[i] == OPT_MIN)
			*bps = v;
	}
	return true;
}

/* Checks the combination of options; fills defaults that depend on the mode. */
static bool finish_options(struct opts *o)
{
	struct sweep_spec *s = &o->spec;
	bool any_linear = o->linear_given[0] || o->linear_given[1] || o->linear_given[2];
	char err[256];

	if (!convert_layers(o))
		return false;
	if (o->knee && any_linear) {
		fprintf(stderr, "ovlperf sweep: --knee and --from/--to/--step do not mix\n");
		return false;
	}
	if (o->knee) {
		if (!o->max_given) {
			fprintf(stderr,
				"ovlperf sweep: --knee needs --max RATE (the first trial)\n");
			return false;
		}
		s->mode = SWEEP_KNEE;
		if (!o->time_given)
			s->knee.short_ns = KNEE_DEFAULT_SHORT_NS;
		if (!o->final_given && s->knee.final_ns < s->knee.short_ns)
			s->knee.final_ns = s->knee.short_ns;
	} else if (any_linear) {
		if (!o->linear_given[0] || !o->linear_given[1] || !o->linear_given[2]) {
			fprintf(stderr,
				"ovlperf sweep: a linear sweep needs --from, --to and --step\n");
			return false;
		}
		s->mode = SWEEP_LINEAR;
	} else {
		fprintf(stderr, "ovlperf sweep: say --from/--to/--step or --knee --max RATE\n");
		return false;
	}
	if (sweep_spec_check(s, err, sizeof(err)) < 0) {
		fprintf(stderr, "ovlperf sweep: %s\n", err);
		return false;
	}
	return true;
}

static void show_progress(void *arg, const struct sweep_progress *p)
{
	bool tty = arg != NULL;

	fprintf(stderr, "%strial %u of %s%u, %s%s%.2f Mbit/s for %.3g s%s%s, about %.0f s left%s",
		tty ? "\r\033[K" : "", p->trial, p->mode == SWEEP_KNEE ? "~" : "", p->total,
		p->label && p->label[0] ? p->label : "", p->label && p->label[0] ? ", " : "",
		(double)p->rate_bps / 1e6, (double)p->duration_ns / 1e9,
		p->mode == SWEEP_KNEE ? " " : "",
		p->mode == SWEEP_KNEE ? knee_phase_name(p->phase) : "", (double)p->left_ns / 1e9,
		tty ? "" : "\n");
	fflush(stderr);
}

int cmd_sweep(int argc, char **argv)
{
	char why[VALUE_WHY_MAX], name[CLI_OPT_NAME_MAX];
	struct opts o = { .progress = true };
	struct sweep_result res;
	int c, rc;

	sweep_spec_defaults(&o.spec);
	optind = 1;
	while ((c = getopt_long(argc, argv, "t:l:P:w:p:46Jh", options, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == '?') {
			usage(stderr);
			return EXIT_USAGE;
		}
		if (!parse_option(&o, c, optarg, why))
			return cli_opt_error("sweep", cli_opt_name(options, c, name), why);
	}
	if (optind != argc - 1) {
		fprintf(stderr, "ovlperf sweep: name one HOST\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!cli_opt_host(o.spec.load.host, sizeof(o.spec.load.host), &o.spec.load.port,
			  argv[optind], why, sizeof(why)))
		return cli_opt_error("sweep", "HOST", why);
	if (!finish_options(&o))
		return EXIT_USAGE;
	if (o.progress) {
		o.spec.progress = show_progress;
		o.spec.progress_arg = isatty(STDERR_FILENO) ? (void *)&o : NULL;
	}
	interrupt_install();
	rc = sweep_run(&o.spec, &res);
	/* in a lab, the loss on the path is the emulated link's to name, as
	 * ovlperf client does; elsewhere it stays unaccounted */
	for (unsigned i = 0; i < res.npoints; i++)
		if (res.points[i].loss_at.network)
			lab_where(res.host, res.points[i].loss_at.network_where,
				  sizeof(res.points[i].loss_at.network_where));
	if (o.progress && o.spec.progress_arg)
		fprintf(stderr, "\r\033[K");
	if (o.json)
		report_sweep_json(stdout, &res);
	else
		report_sweep_term(stdout, &res);
	if (rc < 0 && !res.interrupted)
		log_err("sweep stopped: %s", res.error);
	sweep_result_free(&res);
	return rc < 0 ? 1 : 0;
}
