// SPDX-License-Identifier: MIT
/* The files of a results directory besides run.json: summary.csv, report.md
 * and the SVG plots, plus the terminal summary. Used by `ovlperf run` at the
 * end of a run and by `ovlperf report DIR` to re-render one. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "report_run.h"
#include "run.h"

static int write_file(const char *dir, const char *name, const struct report_run *rr,
		      const struct plot_set *set)
{
	char path[1200];
	FILE *f;
	int err;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "w");
	if (!f) {
		err = -errno;
		log_err("cannot write %s: %s", path, strerror(-err));
		return err;
	}
	err = set ? report_run_md(f, rr, set) : report_run_csv(f, rr);
	if (fclose(f) && !err)
		err = -EIO;
	if (err)
		log_err("writing %s failed: %s", path, strerror(-err));
	return err;
}

int run_output_write(const struct results_run *res, const char *dir, bool plots, FILE *term)
{
	struct report_run rr;
	struct plot_set set;
	int err, e2;

	err = report_run_prepare(&rr, res);
	if (err)
		return err;
	memset(&set, 0, sizeof(set));
	if (plots) {
		err = plot_run(&rr, dir, &set);
		if (err)
			log_warn("plots: %s", strerror(-err));
	} else {
		snprintf(set.note, sizeof(set.note),
			 "Plots were not rendered for this run "
			 "(`ovlperf report DIR` renders them).");
	}
	err = write_file(dir, "summary.csv", &rr, NULL);
	e2 = write_file(dir, "report.md", &rr, &set);
	if (!err)
		err = e2;
	if (term) {
		report_run_term(term, &rr);
		fprintf(term, "\nresults: %s/ (run.json, summary.csv, report.md%s)\n", dir,
			set.n ? ", *.svg" : "");
		fflush(term);
	}
	report_run_release(&rr);
	return err;
}
