// SPDX-License-Identifier: MIT
/* The files of a results directory besides run.json: summary.csv, report.md,
 * report.html and the SVG plots, plus the terminal summary. Used by
 * `ovlperf run` at the end of a run and by `ovlperf report DIR` to re-render
 * one. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "report_file.h"
#include "report_run.h"

/* What the printers of one run's files take. */
struct run_files {
	const struct report_run *rr;
	const struct plot_set *set;
	const char *dir;
};

static int print_csv(FILE *f, const void *ctx)
{
	return report_run_csv(f, ((const struct run_files *)ctx)->rr);
}

static int print_md(FILE *f, const void *ctx)
{
	const struct run_files *r = ctx;

	return report_run_md(f, r->rr, r->set);
}

static int print_html(FILE *f, const void *ctx)
{
	const struct run_files *r = ctx;

	return report_run_html(f, r->rr, r->set, r->dir);
}

int report_run_out_write(const struct results_run *res, const char *dir, bool plots, FILE *term,
			 char *unwritten, size_t len)
{
	struct report_run rr;
	struct plot_set set;
	struct run_files files;
	char failed[512] = "";
	int err, e2;

	if (unwritten && len)
		snprintf(failed, sizeof(failed), "%s", unwritten);
	err = report_run_prepare(&rr, res);
	if (err)
		return err;
	memset(&set, 0, sizeof(set));
	files = (struct run_files){ .rr = &rr, .set = &set, .dir = dir };
	if (plots) {
		err = report_run_plot(&rr, dir, &set);
		if (err)
			report_file_note(failed, sizeof(failed), set.unwritten);
	} else {
		snprintf(set.note, sizeof(set.note),
			 "Plots were not rendered for this run "
			 "(`ovlperf report DIR` renders them).");
	}
	e2 = report_write_file(dir, "summary.csv", print_csv, &files);
	if (e2)
		report_file_note(failed, sizeof(failed), "summary.csv");
	if (!err)
		err = e2;
	e2 = report_write_file(dir, "report.md", print_md, &files);
	if (e2)
		report_file_note(failed, sizeof(failed), "report.md");
	if (!err)
		err = e2;
	e2 = report_write_file(dir, "report.html", print_html, &files);
	if (e2)
		report_file_note(failed, sizeof(failed), "report.html");
	if (!err)
		err = e2;
	if (term) {
		report_run_term(term, &rr);
		if (failed[0])
			fprintf(term, "\nresults: %s/ INCOMPLETE: could not write %s\n", dir,
				failed);
		else
			fprintf(term,
				"\nresults: %s/ (run.json, summary.csv, report.md, "
				"report.html%s)\n",
				dir, set.n ? ", *.svg" : "");
		if ((fflush(term) || ferror(term)) && !err) {
			report_file_note(failed, sizeof(failed), "(the summary on stdout)");
			err = -EIO;
		}
	}
	if (failed[0] && !(unwritten && len && !strcmp(failed, unwritten)))
		log_err("could not write in %s: %s", dir, failed);
	if (unwritten && len)
		snprintf(unwritten, len, "%s", failed);
	report_run_release(&rr);
	return err;
}
