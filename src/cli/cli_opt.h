/* SPDX-License-Identifier: MIT */
/*
 * Private to the subcommands (src/cli/): the options several of them take
 * (-4, -6, --realtime, --no-rt), and how a refused option value is
 * reported, the same way by each of them:
 *
 *   ovlperf client: --dscp: 64 is out of range (0..63)
 *
 * The sentence after the option comes from value_get() (value.h), the one
 * the scenario parser puts after "FILE:LINE: [SECTION] KEY: ".
 */
#ifndef OVLPERF_CLI_OPT_H
#define OVLPERF_CLI_OPT_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "value.h"

#define CLI_OPT_NAME_MAX 40
/* The longest test or limit a client or server option takes: 1e7 s, above
 * which a value is a typo. */
#define CLI_SECONDS_MAX_NS (10000000ULL * VALUE_NS_PER_S)
/* The shortest non-zero duration an option takes, as value_range_str()
 * states it ("1us"). */
#define CLI_DURATION_MIN_NS 1000ULL

/* "--dscp" for getopt_long()'s code c in opts; "-c" for a short option
 * without a long name. */
const char *cli_opt_name(const struct option *opts, int c, char buf[static CLI_OPT_NAME_MAX]);
/* "ovlperf CMD: OPT: WHY" on stderr; returns EXIT_USAGE. */
int cli_opt_error(const char *cmd, const char *opt, const char *why);
/* The end of a command's option switch: -h (c 'h') prints usage on stdout
 * and returns 0; anything else (an unknown option, a value missing) prints
 * it on stderr and returns EXIT_USAGE. */
int cli_opt_usage(int c, void (*usage)(FILE *f));
/* The long option nearest to name (without its "--"): at most two edits
 * away (a letter left out, added, changed or two swapped), or a prefix
 * of exactly one; NULL when none is that near. */
const char *cli_opt_nearest(const struct option *opts, const char *name);
/* A getopt error with opterr 0 and ':' leading the short options, as
 * "ovlperf CMD: ..." on stderr: c ':' an option without its value, else an
 * unknown option, with "did you mean --X?" for a misspelt long one. arg
 * is the argument getopt stopped at (argv[optind - 1]). EXIT_USAGE. */
int cli_opt_unknown(const char *cmd, const struct option *opts, int c, const char *arg);
/* The index of arg in names[n]; -1 with why ("'x': expected a, b or c")
 * when it is none of them. */
int cli_opt_choice(const char *arg, const char *const *names, size_t n, char *why, size_t whylen);
/* A string option copied into dst[size]; false with why ("is too long ...")
 * when it does not fit. */
bool cli_opt_copy(char *dst, size_t size, const char *arg, char *why, size_t whylen);
/* An address argument (addr_split(): "HOST", "HOST:PORT", "2001:2::2",
 * "[2001:2::2]:5211") into host[size] without brackets. With port non-NULL
 * a port in arg is stored there (and left alone when arg has none); with
 * port NULL an option that takes no port refuses one. false with why. */
bool cli_opt_host(char *host, size_t size, uint16_t *port, const char *arg, char *why,
		  size_t whylen);

/* getopt_long() codes of --realtime and --no-rt, above every command's own
 * (which start at 256). */
enum { CLI_OPT_RT = 1024, CLI_OPT_NO_RT };
/* The options client, server, sweep and mtu share: -4 / -6 set *family
 * (AF_INET / AF_INET6), --realtime / --no-rt set *realtime (NULL: the
 * command takes neither). Whether c was one of them. */
bool cli_opt_family_rt(int c, int *family, bool *realtime);

#endif
