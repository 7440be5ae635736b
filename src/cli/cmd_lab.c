// SPDX-License-Identifier: MIT
/* `ovlperf lab up|down|list|show`: lab hosts from the command line. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sodium.h>

#include "cli_opt.h"
#include "cmd.h"
#include "interrupt.h"
#include "lab.h"
#include "lab_overlay.h"
#include "log.h"
#include "value.h"

static const char usage_text[] =
	"Usage: ovlperf lab up [NAME] [--hosts N] [--mtu N] [--rate RATE] [--drop PCT]\n"
	"                      [--delay D[/D]] [--jitter J[/J]] [--loss PCT[/PCT]]\n"
	"                      [--loss-burst P,R[/P,R]] [--reorder PCT[/PCT]]\n"
	"                      [--link-means auto|netem|userspace]\n"
	"                      [--tcp-rmem-max SIZE] [--tcp-wmem-max SIZE]\n"
	"                      [--cpus LIST|LIST...]\n"
	"                      [--block-icmp] [--link L:KEY=VALUE,...] [--force]\n"
	"                      [--overlay | --overlay6]\n"
	"       ovlperf lab down [NAME]\n"
	"       ovlperf lab list\n"
	"       ovlperf lab show [NAME]\n"
	"       ovlperf lab exec NAME HOST CMD [ARGS...]\n"
	"\n"
	"Lab hosts are network namespaces ovp-NAME-0, ovp-NAME-1, ... joined in a chain\n"
	"by veth links (link i: 198.18.i.0/24 and 2001:2:0:i::/64; interface ovp<i>).\n"
	"NAME (default '" LAB_DEFAULT_NAME "', as a scenario's [lab] name):\n"
	"  " LAB_NAME_RULE ".\n"
	"A lab made here is yours: 'ovlperf run' of a scenario naming it refuses to\n"
	"touch it unless 'run --force'.\n"
	"  --hosts N      number of hosts, 2..8 (default 2)\n"
	"  --mtu N        MTU of every link, 68..65535 (default 1500)\n"
	"  --rate RATE    tbf rate limit on both ends of every link, e.g. 100M, 1.5G\n"
	"  --drop PCT     drop PCT % of the packets in each direction (0.01..100;\n"
	"                 nftables numgen on ingress, segmentation offloads off)\n"
	"  --block-icmp   drop ICMP fragmentation-needed / ICMPv6 packet-too-big\n"
	"  --tcp-rmem-max SIZE, --tcp-wmem-max SIZE\n"
	"                 every host's net.ipv4.tcp_rmem / tcp_wmem maximum (TCP\n"
	"                 autotuning's ceiling), e.g. 256K, 16M (4K at least)\n"
	"  --cpus LIST|LIST...\n"
	"                 each host's CPUs, in host order, as taskset -c lists them:\n"
	"                 '0|1' puts host 0 on CPU 0 and host 1 on CPU 1, as two\n"
	"                 machines ('0-3|4-7'). Every process started in a host\n"
	"                 (lab exec, the overlay, a run's server) and a run's own\n"
	"                 loads on its client host run there only\n"
	"WAN conditions of every link (X/Y: X from host i to i+1, Y back; X alone:\n"
	"both ways):\n"
	"  --delay D      one-way delay, e.g. 40ms, 500us (0..60s)\n"
	"  --jitter J     each packet's delay uniform in D +/- J\n"
	"  --loss PCT     random loss, e.g. 1% (steps of 0.0001 %)\n"
	"  --loss-burst P,R  Gilbert-Elliott bursts: P % good->bad, R % bad->good,\n"
	"                 every packet lost in the bad state (netem's loss gemodel)\n"
	"  --reorder PCT  send PCT % of the packets at once, ahead of the delayed\n"
	"  --link-means M how: netem (a qdisc on each end), userspace (ovlperf link\n"
	"                 run in namespace ovp-NAME-l<i> between the hosts, logging\n"
	"                 to /run/ovlperf/labs/NAME.link-<i>.log), or auto (default:\n"
	"                 netem if the kernel has it). --rate's tbf stays on the\n"
	"                 hosts: under netem it paces what netem lets go; with\n"
	"                 userspace it paces a packet as it leaves its host\n"
	"  --link L:K=V,.. settings of link L alone, applied after the options above:\n"
	"                 mtu=N, rate=RATE, drop=PCT, block-icmp, delay=D, jitter=J,\n"
	"                 loss=PCT, loss-burst=P,R, reorder=PCT, and rate-layer=frame\n"
	"                 or line: the tbf charges each packet its Ethernet frame (FCS,\n"
	"                 64 B at least) or also preamble, SFD and gap (84 B at least):\n"
	"                 rate=1G,rate-layer=line carries 1,488,095 64-byte frames/s\n"
	"                 (e.g. --hosts 3 --link 1:mtu=1280,block-icmp)\n"
	"  --force        remove an existing lab of that NAME first\n"
	"  --overlay      also start the built-in overlay (ovl0, 198.19.0.h+1 and\n"
	"                 2001:2:0:ff::h+1) over link 0's IPv4 addresses;\n"
	"                 --overlay6 over its IPv6 addresses. The daemons outlive\n"
	"                 'lab up' in sessions of their own and log to\n"
	"                 /run/ovlperf/labs/NAME.overlay-H.log (H: the host);\n"
	"                 'lab down' stops them and removes the logs\n"
	"'lab exec' runs CMD in host HOST (0, 1, ...) of lab NAME and returns its exit\n"
	"status; an interrupt stops it (SIGTERM, then SIGKILL after 2 s).\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ovlperf lab: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(ovlperf lab --help for usage)\n");
	return EXIT_USAGE;
}

static int fail(const char *what, const char *name, int rc)
{
	fprintf(stderr, "ovlperf lab: %s %s: %s%s\n", what, name, strerror(-rc),
		rc == -EPERM || rc == -EACCES
			? " (lab hosts need root: CAP_SYS_ADMIN, CAP_NET_ADMIN)"
			: "");
	return 1;
}

static void print_rate(uint64_t bps)
{
	if (bps >= 1000000000ULL)
		printf("%g Gbit/s", (double)bps / 1e9);
	else if (bps >= 1000000ULL)
		printf("%g Mbit/s", (double)bps / 1e6);
	else
		printf("%g kbit/s", (double)bps / 1e3);
}

/* A link's WAN conditions as their keys spell them, and how they are made. */
static void print_cond(const struct lab_link_spec *k)
{
	char text[256];

	if (link_conf_active(&k->cond) && !lab_link_cond_str(k, text, sizeof(text)))
		printf(", %s: %s", lab_means_name(k->means), text);
}

/* The userspace emulator's counters, per direction. */
static void print_counters(const struct lab *lab, unsigned l)
{
	static const char *const dirs[LINK_DIRS] = { "a->b", "b->a" };
	struct link_counters c;
	int rc = lab_link_counters(lab, l, &c);

	if (rc == -ENOENT && lab_get_spec(lab)->links[l].means != LAB_MEANS_USERSPACE)
		return;
	printf("    emulator in netns %s", lab_link_netns_name(lab, l));
	if (rc) {
		printf(": no counters (%s)\n", strerror(-rc));
		return;
	}
	printf(", pid %u%s\n", c.pid, c.running ? "" : " (exited)");
	for (unsigned d = 0; d < LINK_DIRS; d++) {
		const struct link_dir_counters *x = &c.dir[d];

		printf("      %s rx %" PRIu64 " tx %" PRIu64 " delayed %" PRIu64
		       " reordered %" PRIu64 " drop loss %" PRIu64 " burst %" PRIu64
		       " queue %" PRIu64 " rate %" PRIu64 " other %" PRIu64 " queue max %" PRIu64
		       " B\n",
		       dirs[d], x->rx_packets, x->tx_packets, x->delayed, x->reordered,
		       x->drop_loss, x->drop_burst, x->drop_queue, x->drop_rate, x->drop_other,
		       x->queue_max_bytes);
	}
}

static void print_spec(const struct lab_spec *s)
{
	printf("lab %s: %u hosts, %u link%s\n", s->name, s->nhosts, s->nlinks,
	       s->nlinks == 1 ? "" : "s");
	if (s->tcp_rmem_max)
		printf("  every host: net.ipv4.tcp_rmem maximum %u B\n", s->tcp_rmem_max);
	if (s->tcp_wmem_max)
		printf("  every host: net.ipv4.tcp_wmem maximum %u B\n", s->tcp_wmem_max);
	for (unsigned h = 0; h < s->cpus_hosts && h < LAB_MAX_HOSTS; h++)
		printf("  host %u: CPUs %s\n", h, s->cpus[h]);
	for (unsigned l = 0; l < s->nlinks; l++) {
		const struct lab_link_spec *k = &s->links[l];

		printf("  link %u: host %u <-> host %u, ovp%u, mtu %u", l, k->a, k->b, l,
		       k->mtu ? k->mtu : LAB_DEFAULT_MTU);
		if (k->rate_bps) {
			printf(", tbf ");
			print_rate(k->rate_bps);
			if (k->rate_layer == LAYER_FRAME || k->rate_layer == LAYER_LINE)
				printf(" at %s rate (Ethernet)", layer_name(k->rate_layer));
		}
		if (k->drop_pct > 0)
			printf(", drop %.2f%%", k->drop_pct);
		if (k->block_icmp_too_big)
			printf(", ICMP too-big blocked");
		print_cond(k);
		printf("\n");
	}
}

static void print_lab(const struct lab *lab)
{
	const struct lab_spec *s = lab_get_spec(lab);

	print_spec(s);
	for (unsigned l = 0; l < s->nlinks; l++)
		print_counters(lab, l);
}

static int show_host(const struct lab *lab, unsigned h)
{
	struct lab_if_info ifs[16];
	size_t n = 0;
	int rc;

	printf("  host %u: netns %s\n", h, lab_netns_name(lab, h));
	rc = lab_host_interfaces(lab, h, ifs, sizeof(ifs) / sizeof(ifs[0]), &n);
	if (rc)
		return rc;
	for (size_t i = 0; i < n && i < sizeof(ifs) / sizeof(ifs[0]); i++) {
		printf("    %-8s %-4s mtu %-5u qdisc %-8s", ifs[i].name,
		       ifs[i].up ? (ifs[i].carrier ? "UP" : "NO-CARRIER") : "DOWN", ifs[i].mtu,
		       ifs[i].qdisc[0] ? ifs[i].qdisc : "-");
		for (unsigned a = 0; a < ifs[i].naddrs; a++)
			printf(" %s", ifs[i].addrs[a]);
		printf("\n");
	}
	return 0;
}

static int show_json(const struct lab *lab)
{
	char *text;
	int rc = lab_json(lab, &text);

	if (rc)
		return rc;
	puts(text);
	free(text);
	return 0;
}

static int show(const char *name, bool json)
{
	struct lab *lab;
	int rc;

	rc = lab_open(name, &lab);
	if (rc == -ENOENT) {
		fprintf(stderr, "ovlperf lab: no lab named %s (or it is incomplete)\n", name);
		return 1;
	}
	if (rc)
		return fail("cannot open lab", name, rc);
	if (json) {
		rc = show_json(lab);
	} else {
		print_lab(lab);
		for (unsigned h = 0; h < lab_get_spec(lab)->nhosts && !rc; h++)
			rc = show_host(lab, h);
	}
	lab_close(lab);
	return rc ? fail("cannot read lab", name, rc) : 0;
}

static int list_one(const char *name, void *arg)
{
	enum lab_owner owner = LAB_OWNER_USER;
	struct lab *lab;
	pid_t pid = 0;
	int rc = lab_open(name, &lab);
	bool alive;

	(void)arg;
	lab_creator(name, &owner, &pid);
	alive = pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
	if (rc) {
		printf("%-12s broken (%s): ovlperf lab down %s\n", name, strerror(-rc), name);
		return 0;
	}
	printf("%-12s %u hosts, %u link%s, made by %s, pid %d (%s)\n", name,
	       lab_get_spec(lab)->nhosts, lab_get_spec(lab)->nlinks,
	       lab_get_spec(lab)->nlinks == 1 ? "" : "s", lab_owner_name(owner), (int)pid,
	       alive ? "running" : "exited");
	lab_close(lab);
	return 0;
}

struct up_opts {
	const char *name;
	unsigned hosts;
	uint32_t mtu;
	uint64_t rate;
	double drop;
	bool block_icmp, force;
	int overlay_family; /* 0: no overlay */
	enum lab_means means;
	uint32_t tcp_rmem_max, tcp_wmem_max;
	const char *cpus; /* --cpus */
	unsigned nconds;
	struct {
		const char *key, *value;
	} conds[8]; /* --delay ... --reorder, applied to every link in order */
	unsigned nlinkopts;
	const char *linkopts[2 * LAB_MAX_LINKS]; /* --link, applied in order */
};

/* lab.h: drops are counted in 0.01 % steps (the numgen threshold). */
#define DROP_MIN_PCT 0.01

/* --hosts, --mtu, --rate, --drop or a TCP buffer maximum into o; 0 or -EINVAL/-ERANGE with why. */
static int up_value(struct up_opts *o, int c, const char *arg, char why[static VALUE_WHY_MAX])
{
	uint64_t v;
	int rc;

	switch (c) {
	case 'n':
		rc = value_get(VALUE_UINT, arg, 2, LAB_MAX_HOSTS, &v, why, VALUE_WHY_MAX);
		if (!rc)
			o->hosts = (unsigned)v;
		return rc;
	case 'm':
		rc = value_get(VALUE_UINT, arg, LAB_MTU_MIN, LAB_MTU_MAX, &v, why, VALUE_WHY_MAX);
		if (!rc)
			o->mtu = (uint32_t)v;
		return rc;
	case 'r':
		return value_get(VALUE_RATE, arg, LAB_RATE_MIN_BPS, LAB_RATE_MAX_BPS, &o->rate, why,
				 VALUE_WHY_MAX);
	case 'W':
	case 'X':
		rc = value_get(VALUE_SIZE, arg, LAB_TCP_MEM_MIN, 1u << 30, &v, why, VALUE_WHY_MAX);
		if (!rc)
			*(c == 'W' ? &o->tcp_rmem_max : &o->tcp_wmem_max) = (uint32_t)v;
		return rc;
	default:
		return value_get_percent(arg, DROP_MIN_PCT, 100, &o->drop, why, VALUE_WHY_MAX);
	}
}

/* --link, and the link conditions (--delay ... --reorder), each kept in the
 * order given: 0, or EXIT_USAGE when there are too many. */
static int up_link_opt(struct up_opts *o, int c, const struct option *opts)
{
	if (c == 'L') {
		if (o->nlinkopts >= sizeof(o->linkopts) / sizeof(o->linkopts[0]))
			return usage_error("too many --link options (at most %zu)",
					   sizeof(o->linkopts) / sizeof(o->linkopts[0]));
		o->linkopts[o->nlinkopts++] = optarg;
		return 0;
	}
	if (o->nconds >= sizeof(o->conds) / sizeof(o->conds[0]))
		return usage_error("too many link conditions");
	/* the option's name is its condition's key (link.h) */
	for (const struct option *x = opts; x->name; x++)
		if (x->val == c)
			o->conds[o->nconds].key = x->name;
	o->conds[o->nconds++].value = optarg;
	return 0;
}

/* One option of `lab up` (getopt_long()'s c; opts its table) into o: 0 to
 * go on, else what parse_up() returns. */
static int up_opt(struct up_opts *o, int c, const struct option *opts)
{
	char why[VALUE_WHY_MAX], name[CLI_OPT_NAME_MAX];

	switch (c) {
	case 'n':
	case 'm':
	case 'r':
	case 'd':
	case 'W':
	case 'X':
		if (up_value(o, c, optarg, why))
			return usage_error("%s: %s", cli_opt_name(opts, c, name), why);
		break;
	case 'L':
	case 'D':
	case 'J':
	case 'l':
	case 'B':
	case 'R':
		return up_link_opt(o, c, opts);
	case 'C':
		o->cpus = optarg;
		break;
	case 'M':
		if (!lab_means_parse(optarg, &o->means))
			return usage_error("--link-means: '%s' is not auto, netem or "
					   "userspace",
					   optarg);
		break;
	case 'b':
		o->block_icmp = true;
		break;
	case 'f':
		o->force = true;
		break;
	case 'o':
		o->overlay_family = AF_INET;
		break;
	case '6':
		o->overlay_family = AF_INET6;
		break;
	case 'h':
		fputs(usage_text, stdout);
		return -1;
	default:
		return EXIT_USAGE;
	}
	return 0;
}

static int parse_up(int argc, char **argv, struct up_opts *o)
{
	static const struct option opts[] = {
		{ "hosts", required_argument, NULL, 'n' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "rate", required_argument, NULL, 'r' },
		{ "drop", required_argument, NULL, 'd' },
		{ "block-icmp", no_argument, NULL, 'b' },
		{ "force", no_argument, NULL, 'f' },
		{ "overlay", no_argument, NULL, 'o' },
		{ "overlay6", no_argument, NULL, '6' },
		{ "link", required_argument, NULL, 'L' },
		{ "delay", required_argument, NULL, 'D' },
		{ "jitter", required_argument, NULL, 'J' },
		{ "loss", required_argument, NULL, 'l' },
		{ "loss-burst", required_argument, NULL, 'B' },
		{ "reorder", required_argument, NULL, 'R' },
		{ "link-means", required_argument, NULL, 'M' },
		{ "tcp-rmem-max", required_argument, NULL, 'W' },
		{ "tcp-wmem-max", required_argument, NULL, 'X' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		if ((rc = up_opt(o, c, opts)) != 0)
			return rc;
	if (optind < argc)
		o->name = argv[optind++];
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_LSAN 1
#endif
#endif
#ifdef HAVE_LSAN
#include <sanitizer/lsan_interface.h>
#endif

/* The overlay handle outlives this process on purpose (see overlay_up):
 * tell LeakSanitizer so, or an ASan build would fail `lab up --overlay`. */
static void keep(void *p)
{
#ifdef HAVE_LSAN
	__lsan_ignore_object(p);
#else
	(void)p;
#endif
}

/* The overlay daemons live in the lab's namespaces, so `lab down` stops them
 * with everything else; the handle is deliberately not released here, since
 * lab_overlay_down() would stop them now. */
static int overlay_up(struct lab *lab, int family)
{
	struct lab_overlay_spec ospec = { .link = 0, .underlay_family = family, .detach = true };
	struct lab_overlay *ov;
	char logp[256];
	int rc;

	/* Keys live in sodium_malloc memory, which needs the library initialised. */
	if (sodium_init() < 0)
		return -EIO;
	rc = lab_overlay_up(lab, &ospec, &ov);
	if (rc)
		return rc;
	keep(ov);
	for (unsigned h = 0; h < lab_get_spec(lab)->nhosts; h++) {
		struct sockaddr_storage a4, a6;
		char s4[INET6_ADDRSTRLEN] = "?", s6[INET6_ADDRSTRLEN] = "?";

		if (!lab_overlay_addr(ov, h, AF_INET, &a4))
			inet_ntop(AF_INET, &((struct sockaddr_in *)&a4)->sin_addr, s4, sizeof(s4));
		if (!lab_overlay_addr(ov, h, AF_INET6, &a6))
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&a6)->sin6_addr, s6,
				  sizeof(s6));
		printf("overlay host %u: %s %s %s\n", h, lab_overlay_ifname(ov, h), s4, s6);
	}
	if (lab_overlay_log_path(lab_get_spec(lab)->name, -1, logp, sizeof(logp)) == 0)
		printf("overlay daemons log to %s (H: the host; 'lab down' removes them)\n", logp);
	return 0;
}

static int up(int argc, char **argv)
{
	struct up_opts o = { .name = LAB_DEFAULT_NAME, .hosts = 2 };
	struct lab_spec spec;
	struct lab *lab;
	char err[160];
	int rc;

	rc = parse_up(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!lab_name_valid(o.name))
		return usage_error("invalid lab name '%s': " LAB_NAME_RULE, o.name);
	lab_spec_chain(&spec, o.name, o.hosts, o.mtu);
	for (unsigned l = 0; l < spec.nlinks; l++) {
		spec.links[l].rate_bps = o.rate;
		spec.links[l].drop_pct = o.drop;
		spec.links[l].block_icmp_too_big = o.block_icmp;
	}
	spec.means = o.means;
	spec.tcp_rmem_max = o.tcp_rmem_max;
	spec.tcp_wmem_max = o.tcp_wmem_max;
	if (o.cpus && lab_parse_cpus_opt(o.cpus, &spec, err, sizeof(err)))
		return usage_error("--cpus: %s", err);
	for (unsigned i = 0; i < o.nconds; i++)
		if (lab_spec_cond(&spec, o.conds[i].key, o.conds[i].value, err, sizeof(err)))
			return usage_error("--%s", err);
	for (unsigned i = 0; i < o.nlinkopts; i++)
		if (lab_parse_link_opt(o.linkopts[i], &spec, err, sizeof(err)))
			return usage_error("%s", err);
	if (lab_spec_check(&spec, err, sizeof(err)))
		return usage_error("%s", err);
	if (lab_cpus_available(&spec, err, sizeof(err)))
		return usage_error("--cpus: %s", err);
	interrupt_install();
	if (o.force) {
		rc = lab_down_by_name(o.name);
		if (rc && rc != -ENOENT)
			return fail("cannot remove the old lab", o.name, rc);
	}
	rc = lab_up(&spec, &lab);
	if (rc == -EINTR) {
		fprintf(stderr, "ovlperf lab: interrupted; lab %s removed\n", o.name);
		return 1;
	}
	if (rc == -EEXIST) /* lab_up said which name is taken and what to do */
		return 1;
	if (rc)
		return fail("cannot bring up lab", o.name, rc);
	if (o.overlay_family) {
		rc = overlay_up(lab, o.overlay_family);
		if (rc) {
			lab_down(lab);
			return fail("cannot start the overlay in lab", o.name, rc);
		}
	}
	print_lab(lab);
	for (unsigned h = 0; h < spec.nhosts && !rc; h++)
		rc = show_host(lab, h);
	/* The lab stays up after this process exits: `ovlperf lab down` removes it. */
	lab_close(lab);
	return 0;
}

static int name_arg(int argc, char **argv, const char **name)
{
	*name = LAB_DEFAULT_NAME;
	if (argc > 3)
		return usage_error("unexpected argument '%s'", argv[3]);
	if (argc == 3)
		*name = argv[2];
	if (!lab_name_valid(*name))
		return usage_error("invalid lab name '%s': " LAB_NAME_RULE, *name);
	return 0;
}

static int down(int argc, char **argv)
{
	const char *name;
	int rc;

	/* An interrupt must not cut the teardown short: the flag it sets is
	 * ignored here, and the removal runs to its end. */
	interrupt_install();
	rc = name_arg(argc, argv, &name);
	if (rc)
		return rc;
	rc = lab_down_by_name(name);
	if (rc == -ENOENT) {
		fprintf(stderr, "ovlperf lab: no lab named %s\n", name);
		return 1;
	}
	if (rc == -EPERM) {
		fprintf(stderr,
			"ovlperf lab: lab %s removed, but a namespace it listed is no longer "
			"ovlperf's and was left alone\n",
			name);
		return 1;
	}
	return rc ? fail("cannot remove lab", name, rc) : 0;
}

/* execv() needs a path: CMD as given if it has a '/', else the first
 * executable of that name on $PATH. */
static int find_exe(const char *cmd, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(cmd, '/'))
		return snprintf(buf, len, "%s", cmd) < (int)len ? 0 : -ENAMETOOLONG;
	if (!path)
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		int k = snprintf(buf, len, "%.*s/%s", (int)n, n ? path : ".", cmd);

		if (k > 0 && (size_t)k < len && access(buf, X_OK) == 0)
			return 0;
		path += n + (path[n] == ':');
	}
	return -ENOENT;
}

static int wait_child(pid_t pid)
{
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, 0);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (r < 0 && errno != EINTR)
			return 1;
		if (interrupt_requested())
			return lab_reap(pid, 2000);
	}
}

static int exec_in(int argc, char **argv)
{
	char why[VALUE_WHY_MAX];
	uint64_t host;
	char exe[4096];
	struct lab *lab;
	pid_t pid;
	int rc;

	if (argc < 5)
		return usage_error("lab exec NAME HOST CMD [ARGS...]");
	if (!lab_name_valid(argv[2]))
		return usage_error("invalid lab name '%s': " LAB_NAME_RULE, argv[2]);
	if (value_get(VALUE_UINT, argv[3], 0, LAB_MAX_HOSTS - 1, &host, why, sizeof(why)))
		return usage_error("HOST: %s", why);
	if (find_exe(argv[4], exe, sizeof(exe)))
		return usage_error("%s: command not found", argv[4]);
	rc = lab_open(argv[2], &lab);
	if (rc)
		return fail("cannot open lab", argv[2], rc);
	if (host >= lab_get_spec(lab)->nhosts) {
		lab_close(lab);
		return usage_error("lab %s has no host %s", argv[2], argv[3]);
	}
	interrupt_install();
	argv[4] = exe;
	pid = lab_spawn(lab, (unsigned)host, argv + 4, -1, -1);
	lab_close(lab);
	if (pid < 0)
		return fail("cannot start", argv[4], (int)pid);
	rc = wait_child(pid);
	return rc < 0 ? 1 : rc;
}

int cmd_lab(int argc, char **argv)
{
	const char *name;
	int rc;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage_text, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	/* `lab SUB --help` (before exec's command, whose own --help it is) */
	if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "up")) {
		/* getopt names argv[0]: "ovlperf lab up: ..."; a copy, argv is the caller's */
		char *sub[argc];

		sub[0] = (char *)"ovlperf lab up";
		for (int k = 2; k < argc; k++)
			sub[k - 1] = argv[k];
		sub[argc - 1] = NULL;
		return up(argc - 1, sub);
	}
	if (!strcmp(argv[1], "down"))
		return down(argc, argv);
	if (!strcmp(argv[1], "show")) {
		bool json = argc > 2 && !strcmp(argv[argc - 1], "--json");

		rc = name_arg(argc - json, argv, &name);
		return rc ? rc : show(name, json);
	}
	if (!strcmp(argv[1], "exec"))
		return exec_in(argc, argv);
	if (!strcmp(argv[1], "list")) {
		if (argc > 2)
			return usage_error("unexpected argument '%s'", argv[2]);
		rc = lab_list(list_one, NULL);
		return rc ? fail("cannot list", LAB_STATE_DIR, rc) : 0;
	}
	return usage_error("unknown subcommand '%s' (up, down, list, show)", argv[1]);
}
