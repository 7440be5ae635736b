// SPDX-License-Identifier: MIT
/* Option errors as every subcommand reports them (cli_opt.h). */
#include <stdio.h>
#include <string.h>

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
