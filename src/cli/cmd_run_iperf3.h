/* SPDX-License-Identifier: MIT */
/*
 * `ovlperf run --iperf3-json`: every trial's load test also as iperf3's -J
 * document, in the results directory's iperf3/ folder, one file a trial
 * named for its number, path and load (007-underlay-knee-1400B-95000k.json).
 */
#ifndef OVLPERF_CMD_RUN_IPERF3_H
#define OVLPERF_CMD_RUN_IPERF3_H

#include <stddef.h>

#include "run.h"

#define RUN_IPERF3_DIR "iperf3"

struct cmd_run_iperf3_doc {
	char name[160];
	char *text;
};

struct cmd_run_iperf3 {
	run_progress_fn progress; /* the caller's, called from ours */
	void *progress_arg;
	char next[144]; /* the running trial's file name, without ".json" */
	unsigned tries; /* runs of that trial so far (a retried trial gets -2...) */
	unsigned n;
	struct cmd_run_iperf3_doc *docs;
	int err; /* the first failure to keep a document (-ENOMEM) */
};

/* Hooks ri into opt (after opt->progress is set). */
void cmd_run_iperf3_attach(struct cmd_run_iperf3 *ri, struct run_options *opt);
/* Writes the documents into dir/iperf3/; 0 or a negative errno with the
 * first file that failed in bad. */
int cmd_run_iperf3_write(const struct cmd_run_iperf3 *ri, const char *dir, char *bad,
			 size_t badlen);
void cmd_run_iperf3_free(struct cmd_run_iperf3 *ri);

#endif
