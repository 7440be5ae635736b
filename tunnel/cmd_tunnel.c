// SPDX-License-Identifier: MIT
/*
 * ovlperf tunnel genkey | pubkey | up CONF | show [DEV] | down DEV
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cmd.h"
#include "config.h"
#include "control.h"
#include "device.h"
#include "interrupt.h"
#include "key.h"
#include "log.h"
#include "sandbox.h"
#include "status.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: ovlperf tunnel genkey\n"
		   "       ovlperf tunnel pubkey < private.key\n"
		   "       ovlperf tunnel up CONF [-d] [--pid-file FILE] [--name DEV]\n"
		   "       ovlperf tunnel show [DEV] [--show-keys] [--raw]\n"
		   "       ovlperf tunnel down DEV\n");
}

static int cmd_genkey(void)
{
	uint8_t *priv = key_alloc();
	char b64[KEY_B64_LEN + 1];

	if (!priv)
		return 1;
	key_generate(priv);
	key_to_base64(b64, priv);
	key_free(priv);
	printf("%s\n", b64);
	sodium_memzero(b64, sizeof(b64));
	return fflush(stdout) == 0 ? 0 : 1;
}

static int cmd_pubkey(void)
{
	char line[256];
	uint8_t *priv = key_alloc();
	uint8_t pub[KEY_LEN];
	char b64[KEY_B64_LEN + 1];
	size_t n;
	int rc = EXIT_USAGE;

	if (!priv)
		return 1;
	n = fread(line, 1, sizeof(line) - 1, stdin);
	line[n] = '\0';
	if (!key_from_base64(priv, line) || key_public(pub, priv) < 0) {
		fprintf(stderr, "ovlperf tunnel pubkey: stdin is not a base64 private key\n");
	} else {
		key_to_base64(b64, pub);
		printf("%s\n", b64);
		rc = 0;
	}
	sodium_memzero(line, sizeof(line));
	key_free(priv);
	return rc;
}

static int write_pid_file(const char *path)
{
	char buf[32];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());

	if (fd < 0 || write(fd, buf, (size_t)n) != n) {
		int r = -errno;

		if (fd >= 0)
			close(fd);
		fprintf(stderr, "ovlperf tunnel up: pid file %s: %s\n", path, strerror(-r));
		return r;
	}
	close(fd);
	return 0;
}

/* -d: the parent exits once the child reports the device up (or failed). */
static int daemonize(int *ready_fd)
{
	int p[2];
	pid_t pid;
	char st = 1;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &st, 1) != 1)
			st = 1;
		_exit(st);
	}
	close(p[0]);
	setsid();
	*ready_fd = p[1];
	return 0;
}

static void report_ready(int *fd, char st)
{
	int devnull;

	if (*fd < 0)
		return;
	if (write(*fd, &st, 1) != 1)
		log_warn("cannot report start-up to the parent");
	close(*fd);
	*fd = -1;
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, STDIN_FILENO);
		dup2(devnull, STDOUT_FILENO);
		close(devnull);
	}
}

static int cmd_up(int argc, char **argv)
{
	static const struct option opts[] = { { "pid-file", required_argument, NULL, 'p' },
					      { "name", required_argument, NULL, 'n' },
					      { "daemon", no_argument, NULL, 'd' },
					      { "help", no_argument, NULL, 'h' },
					      { 0 } };
	const char *pid_file = NULL, *name = NULL;
	char err[CONFIG_ERR_LEN];
	struct config cfg;
	struct device *dev = NULL;
	struct sandbox sb = { 0 };
	bool daemon = false;
	int ready_fd = -1, c, r;

	while ((c = getopt_long(argc, argv, "dp:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			daemon = true;
			break;
		case 'p':
			pid_file = optarg;
			break;
		case 'n':
			name = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (name && (!*name || strlen(name) >= IFNAMSIZ)) {
		fprintf(stderr, "ovlperf tunnel up: --name '%s' is not an interface name\n", name);
		return EXIT_USAGE;
	}
	r = config_load(argv[optind], &cfg, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "ovlperf tunnel up: %s\n", err);
		config_free(&cfg);
		return EXIT_USAGE;
	}
	if (interrupt_install() < 0 || (daemon && daemonize(&ready_fd) < 0) ||
	    (pid_file && write_pid_file(pid_file) < 0)) {
		report_ready(&ready_fd, 1);
		config_free(&cfg);
		return 1;
	}
	r = device_up(&cfg, name, &dev);
	/* The two files removed at exit, the only ones the filter lets it remove. */
	if (r == 0 && !cfg.sandbox_off && dev->control_path[0])
		r = sandbox_allow_unlink(dev->control_path);
	if (r == 0 && !cfg.sandbox_off && pid_file)
		r = sandbox_allow_unlink(pid_file);
	/* Privileges go before the threads exist (they inherit none); the
	 * seccomp filter follows the start-up report (sandbox.h). */
	if (r == 0)
		r = sandbox_prepare(&sb, !cfg.sandbox_off);
	if (r == 0)
		r = device_start(dev);
	if (r < 0) {
		fprintf(stderr, "ovlperf tunnel up: %s: %s\n", argv[optind], strerror(-r));
		report_ready(&ready_fd, 1);
		sandbox_release(&sb);
		device_down(dev);
		config_free(&cfg);
		if (pid_file)
			unlink(pid_file);
		return 1;
	}
	log_info("%s up (%s)", dev->tun.name, argv[optind]);
	report_ready(&ready_fd, 0);
	r = sandbox_enter(&sb);
	if (r == 0)
		r = device_run(dev, status_format);
	device_down(dev);
	config_free(&cfg);
	if (pid_file)
		sandbox_unlink(pid_file);
	return r < 0 ? 1 : 0;
}

/* ---- show ---- */

static void human_bytes(char *buf, size_t len, uint64_t b)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	unsigned u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.2f %s" : "%.0f %s", v, units[u]);
}

static void print_ago(uint64_t realtime_ns)
{
	uint64_t now = clock_realtime_ns();

	if (!realtime_ns) {
		printf("  latest handshake: (none)\n");
		return;
	}
	printf("  latest handshake: %" PRIu64 " seconds ago\n",
	       (uint64_t)(now > realtime_ns ? (now - realtime_ns) / NSEC_PER_SEC : 0));
}

/* Renders the "key=value" status for people (like wg show). */
static void pretty(const char *reply)
{
	const char *s = reply;
	char rx[32] = "", drops[2048] = "", line[512];
	size_t dl = 0;

	while (*s) {
		const char *eol = strchr(s, '\n');
		size_t ll = eol ? (size_t)(eol - s) : strlen(s);
		char *v;

		snprintf(line, sizeof(line), "%.*s", (int)(ll < 511 ? ll : 511), s);
		s += ll + (eol ? 1 : 0);
		v = strchr(line, '=');
		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(line, "interface"))
			printf("interface: %s\n", v);
		else if (!strcmp(line, "peer")) {
			/* The interface's drops close its block. */
			printf("%s%speer: %s\n", drops, drops[0] ? "\n\n" : "\n", v);
			drops[0] = '\0';
			dl = 0;
		} else if (!strncmp(line, "drop.", 5) && strcmp(v, "0") && dl < sizeof(drops) - 64)
			dl += (size_t)snprintf(drops + dl, sizeof(drops) - dl, "%s%s %s",
					       dl ? ", " : "  drops: ", line + 5, v);
		else if (!strncmp(line, "counter.", 8))
			printf("  %s: %s\n", line + 8, v);
		else if (!strcmp(line, "latest_handshake_ns"))
			print_ago(strtoull(v, NULL, 10));
		else if (!strcmp(line, "rx_bytes"))
			human_bytes(rx, sizeof(rx), strtoull(v, NULL, 10));
		else if (!strcmp(line, "tx_bytes")) {
			char tx[32];

			human_bytes(tx, sizeof(tx), strtoull(v, NULL, 10));
			printf("  transfer: %s received, %s sent\n", rx, tx);
		} else if (strcmp(line, "rx_packets") && strcmp(line, "tx_packets") &&
			   strncmp(line, "drop.", 5)) {
			for (char *p = line; *p; p++)
				if (*p == '_')
					*p = ' ';
			printf("  %s: %s\n", line, v);
		}
	}
	if (drops[0])
		printf("%s\n", drops);
	sodium_memzero(line, sizeof(line)); /* a key line with --show-keys */
}

struct show_ctx {
	bool keys, raw;
	int rc;
	unsigned count;
};

static void show_one(void *arg, const char *ifname)
{
	struct show_ctx *sc = arg;
	char path[128];
	char *reply = malloc(CONTROL_REPLY_MAX);
	ssize_t n;

	if (!reply || control_path(0, ifname, path, sizeof(path)) < 0) {
		sc->rc = 1;
		free(reply);
		return;
	}
	n = control_request(path, sc->keys ? "show-keys" : "show", reply, CONTROL_REPLY_MAX, 3000);
	if (n < 0) {
		fprintf(stderr, "ovlperf tunnel show: %s: no daemon answers (%s)\n", ifname,
			strerror((int)-n));
		sc->rc = 1;
	} else {
		if (sc->count++)
			printf("\n");
		if (sc->raw)
			fputs(reply, stdout);
		else
			pretty(reply);
	}
	sodium_memzero(reply, (size_t)(n > 0 ? n : 0));
	free(reply);
}

static int cmd_show(int argc, char **argv)
{
	struct show_ctx sc = { 0 };
	const char *dev = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--show-keys"))
			sc.keys = true;
		else if (!strcmp(argv[i], "--raw"))
			sc.raw = true;
		else if (argv[i][0] != '-' && !dev)
			dev = argv[i];
		else {
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (dev)
		show_one(&sc, dev);
	else if (control_list(0, show_one, &sc) < 0)
		sc.rc = 1;
	return sc.rc;
}

static int cmd_down(int argc, char **argv)
{
	char path[128], pidbuf[16];
	char *reply;
	uint64_t deadline = clock_now_ns() + 10 * NSEC_PER_SEC;
	pid_t pid = 0;
	ssize_t n;

	if (argc != 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (control_path(0, argv[1], path, sizeof(path)) < 0) {
		fprintf(stderr, "ovlperf tunnel down: '%s' is not an interface name\n", argv[1]);
		return EXIT_USAGE;
	}
	reply = malloc(CONTROL_REPLY_MAX);
	if (!reply)
		return 1;
	n = control_request(path, "show", reply, CONTROL_REPLY_MAX, 3000);
	if (n >= 0 && control_get(reply, "pid", pidbuf, sizeof(pidbuf)) == 0)
		pid = (pid_t)atoi(pidbuf);
	if (n >= 0)
		n = control_request(path, "stop", reply, CONTROL_REPLY_MAX, 3000);
	free(reply);
	if (n < 0) {
		fprintf(stderr, "ovlperf tunnel down: %s: no daemon answers (%s)\n", argv[1],
			strerror((int)-n));
		return 1;
	}
	/* The daemon removes its device, then its socket, then exits. */
	while ((access(path, F_OK) == 0 || (pid > 0 && kill(pid, 0) == 0)) &&
	       clock_now_ns() < deadline)
		usleep(20 * 1000);
	if (access(path, F_OK) == 0 || (pid > 0 && kill(pid, 0) == 0)) {
		fprintf(stderr, "ovlperf tunnel down: %s: the daemon did not stop in 10 s\n",
			argv[1]);
		return 1;
	}
	return 0;
}

int cmd_tunnel(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	if (sodium_init() < 0) {
		fprintf(stderr, "ovlperf tunnel: cannot initialise libsodium\n");
		return 1;
	}
	/* `tunnel SUB --help` prints help, never a key */
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
	if ((!strcmp(argv[1], "genkey") || !strcmp(argv[1], "pubkey")) && argc > 2) {
		fprintf(stderr, "ovlperf tunnel: %s takes no argument ('%s')\n", argv[1], argv[2]);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "genkey"))
		return cmd_genkey();
	if (!strcmp(argv[1], "pubkey"))
		return cmd_pubkey();
	if (!strcmp(argv[1], "up")) {
		/* getopt names argv[0]: "ovlperf tunnel up: ..."; a copy, argv is the caller's */
		char *sub[argc];

		sub[0] = (char *)"ovlperf tunnel up";
		for (int k = 2; k < argc; k++)
			sub[k - 1] = argv[k];
		sub[argc - 1] = NULL;
		return cmd_up(argc - 1, sub);
	}
	if (!strcmp(argv[1], "show"))
		return cmd_show(argc - 1, argv + 1);
	if (!strcmp(argv[1], "down"))
		return cmd_down(argc - 1, argv + 1);
	fprintf(stderr, "ovlperf tunnel: unknown subcommand '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
