// SPDX-License-Identifier: MIT
/* Option errors as every subcommand reports them (cli_opt.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "addr.h"
#include "cli_opt.h"
#include "cmd.h"

const char *cli_opt_name(const struct option *opts, int c, char buf[static CLI_OPT_NAME_MAX])
{
	for (; opts && opts->name; opts++) {
		if (opts->val == c && !opts->flag) {
			snprintf(buf, CLI_OPT_NAME_MAX, "--%s", opts->name);
			return buf;
		}
	}
	snprintf(buf, CLI_OPT_NAME_MAX, "-%c", c > 0 && c < 128 ? c : '?');
	return buf;
}

int cli_opt_error(const char *cmd, const char *opt, const char *why)
{
	fprintf(stderr, "ovlperf %s: %s: %s\n", cmd, opt, why);
	return EXIT_USAGE;
}

int cli_opt_usage(int c, void (*usage)(FILE *f))
{
	usage(c == 'h' ? stdout : stderr);
	return c == 'h' ? 0 : EXIT_USAGE;
}

/* Optimal string alignment distance (Damerau-Levenshtein with adjacent
 * swaps), capped: names longer than 40 are never near. */
static unsigned edits(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	unsigned d[41][41];

	if (n > 40 || m > 40)
		return 99;
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			unsigned best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[n][m];
}

const char *cli_opt_nearest(const struct option *opts, const char *name)
{
	const char *best = NULL;
	unsigned best_d = 3; /* two edits at most */
	size_t len = strcspn(name, "=");
	char key[48];

	if (!len || len >= sizeof(key))
		return NULL;
	memcpy(key, name, len);
	key[len] = '\0';
	for (const struct option *o = opts; o && o->name; o++) {
		unsigned d = edits(key, o->name);

		/* a short name is near nothing but itself: "ab" is two
		 * edits from every two-letter name */
		if (d < best_d && d < strlen(key)) {
			best_d = d;
			best = o->name;
		}
	}
	return best;
}

const char *cmd_nearest(const char *const *names, size_t n, const char *name)
{
	const char *best = NULL;
	unsigned best_d = 3;

	for (size_t i = 0; i < n; i++) {
		unsigned d = edits(name, names[i]);

		if (d < best_d && d < strlen(name)) {
			best_d = d;
			best = names[i];
		}
	}
	return best;
}

int cli_opt_unknown(const char *cmd, const struct option *opts, int c, const char *arg)
{
	const char *near;

	if (c == ':') {
		fprintf(stderr, "ovlperf %s: %s needs a value\n", cmd, arg ? arg : "an option");
		return EXIT_USAGE;
	}
	if (!arg || strncmp(arg, "--", 2)) {
		fprintf(stderr, "ovlperf %s: unknown option '-%c'\n", cmd, optopt ? optopt : '?');
		return EXIT_USAGE;
	}
	near = cli_opt_nearest(opts, arg + 2);
	if (near)
		fprintf(stderr, "ovlperf %s: unknown option '%.*s' (did you mean --%s?)\n", cmd,
			(int)strcspn(arg, "="), arg, near);
	else
		fprintf(stderr, "ovlperf %s: unknown option '%.*s'\n", cmd, (int)strcspn(arg, "="),
			arg);
	return EXIT_USAGE;
}

int cli_opt_choice(const char *arg, const char *const *names, size_t n, char *why, size_t whylen)
{
	size_t used;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return (int)i;
	used = (size_t)snprintf(why, whylen, "'%s': expected", arg);
	for (size_t i = 0; i < n && used < whylen; i++)
		used += (size_t)snprintf(why + used, whylen - used, "%s%s",
					 !i	     ? " "
					 : i + 1 < n ? ", "
						     : " or ",
					 names[i]);
	return -1;
}

bool cli_opt_copy(char *dst, size_t size, const char *arg, char *why, size_t whylen)
{
	size_t n = strlen(arg);

	if (n >= size) {
		snprintf(why, whylen, "is too long (%zu characters, at most %zu)", n, size - 1);
		return false;
	}
	memcpy(dst, arg, n + 1);
	return true;
}

bool cli_opt_host(char *host, size_t size, uint16_t *port, const char *arg, char *why,
		  size_t whylen)
{
	uint16_t p = 0;
	int rc = addr_split(arg, host, size, &p);

	if (rc == -ERANGE)
		snprintf(why, whylen, "'%s': the port must be 1..65535", arg);
	else if (rc == -ENAMETOOLONG)
		snprintf(why, whylen, "'%s' is too long (at most %zu characters)", arg, size - 1);
	else if (rc)
		snprintf(why, whylen,
			 "'%s' is not an address: NAME, IPv4, IPv6, or with a port NAME:PORT, "
			 "IPv4:PORT, [IPv6]:PORT",
			 arg);
	else if (p && !port)
		snprintf(why, whylen, "'%s': this option takes an address without a port", arg);
	if (rc || (p && !port))
		return false;
	if (p)
		*port = p;
	return true;
}

bool cli_opt_family_rt(int c, int *family, bool *realtime)
{
	switch (c) {
	case '4':
	case '6':
		*family = c == '4' ? AF_INET : AF_INET6;
		return true;
	case CLI_OPT_RT:
	case CLI_OPT_NO_RT:
		if (!realtime)
			return false;
		*realtime = c == CLI_OPT_RT;
		return true;
	default:
		return false;
	}
}
