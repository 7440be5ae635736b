/* SPDX-License-Identifier: MIT */
/*
 * Subcommands. Each is its own file (src/cli/cmd_<name>.c, tunnel/cmd_tunnel.c),
 * parses its own options and returns the process exit status:
 * 0 success, 1 the measurement or operation failed, 2 bad usage or input.
 */
#ifndef OVLPERF_CMD_H
#define OVLPERF_CMD_H

#include <stddef.h>

#define EXIT_USAGE 2
/* `ovlperf run` only: a file of the results directory could not be written
 * (full disk, permissions; the files are named on stderr) ... */
#define EXIT_UNWRITTEN 3
/* ... or the run completed and wrote everything, but an MTU / MSS check
 * says FAIL (`ovlperf mtu` exits 1 for the same). */
#define EXIT_VERDICT_FAIL 4
/* `ovlperf report A B --fail-on-regression`: a figure of B regressed
 * against A beyond the noise of the repetitions and the threshold. */
#define EXIT_REGRESSION 5

int cmd_server(int argc, char **argv);
int cmd_client(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_mtu(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
/* `report --matrix`: cmd_report() hands its arguments over (cmd_report_matrix.c). */
int cmd_report_matrix(int argc, char **argv);
/* `report --trend`: likewise (cmd_report_trend.c). */
int cmd_report_trend(int argc, char **argv);
int cmd_lab(int argc, char **argv);
int cmd_link(int argc, char **argv);
int cmd_tunnel(int argc, char **argv);

/* Of names[n], the one nearest to name (a misspelt command: at most two
 * edits, as a misspelt long option, cli_opt.c), or NULL. */
const char *cmd_nearest(const char *const *names, size_t n, const char *name);

#endif
