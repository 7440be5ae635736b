// SPDX-License-Identifier: MIT
/*
 * run.json from untrusted bytes (`ovlperf report DIR` reads whatever is in
 * the directory: an older or newer ovlperf's file, a hand edit, a truncated
 * copy). The reader must refuse or accept without crashing and say why it
 * refuses; an accepted run must serialise to a document that reads back with
 * the same content and then to the very same text, and
 * every printer (aggregates, overhead, terminal, Markdown, CSV, comparison)
 * must cope with whatever figures it holds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_run.h"
#include "results.h"

static FILE *sink(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

static void print_all(const struct results_run *run)
{
	struct report_run rr;
	struct plot_set set = { 0 };
	struct report_diff_options json = { .json = true };

	if (report_run_prepare(&rr, run))
		return;
	report_run_term(sink(), &rr);
	report_run_md(sink(), &rr, &set);
	report_run_csv(sink(), &rr);
	report_run_diff(sink(), &rr, &rr, NULL);
	report_run_diff(sink(), &rr, &rr, &json);
	report_run_release(&rr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct results_run a, b;
	char err[256], *text, *j1, *j2;

	if (size > 1 << 16)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (results_from_json(text, &a, err, sizeof(err)) == 0) {
		/* cJSON prints a double with 15 digits when that reads back within
		 * an epsilon, so the first trip may move a value by an ulp; from
		 * then on the text is a fixed point. */
		j1 = results_to_json(&a);
		if (!j1 || results_from_json(j1, &b, err, sizeof(err)) != 0)
			abort();
		if (b.ntrials != a.ntrials || b.nknees != a.nknees || b.nmtu != a.nmtu ||
		    b.npaths != a.npaths || b.complete != a.complete)
			abort();
		j2 = results_to_json(&b);
		results_free(&b);
		if (!j2 || results_from_json(j2, &b, err, sizeof(err)) != 0)
			abort();
		free(j1);
		j1 = results_to_json(&b);
		if (!j1 || strcmp(j1, j2))
			abort();
		print_all(&a);
		free(j1);
		free(j2);
		results_free(&b);
		results_free(&a);
	} else if (!err[0]) {
		abort(); /* a refusal always says why */
	}
	free(text);
	return 0;
}
