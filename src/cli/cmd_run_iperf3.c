// SPDX-License-Identifier: MIT
/* Per-trial iperf3 documents of a run: kept as the trials end, written
 * beside run.json once the results directory is known. The trials
 * themselves are run as without the option: the documents only render
 * what was measured (their "intervals" are empty unless the trial had
 * interval reports, like iperf3 -i 0's). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report_iperf3.h"
#include "cmd_run_iperf3.h"

static void name_trial(struct cmd_run_iperf3 *ri, const struct run_progress *ev)
{
	const char *kind = results_trial_kind_name(ev->trial_kind);

	if (ev->trial_kind == RESULTS_TRIAL_TCP)
		snprintf(ri->next, sizeof(ri->next), "%03u-%.40s-%s-P%u-rep%u", ev->trial_no,
			 ev->path_name ? ev->path_name : "path", kind, ev->streams, ev->rep + 1);
	else
		snprintf(ri->next, sizeof(ri->next), "%03u-%.40s-%s-%uB-%llukbps-rep%u",
			 ev->trial_no, ev->path_name ? ev->path_name : "path", kind, ev->len,
			 (unsigned long long)(ev->rate_bps / 1000), ev->rep + 1);
	/* a name is a file name: nothing but what a path may not misread */
	for (char *c = ri->next; *c; c++)
		if (*c == '/' || *c == ' ')
			*c = '_';
	ri->tries = 0;
}

static void progress(void *arg, const struct run_progress *ev)
{
	struct cmd_run_iperf3 *ri = arg;

	if (ev->kind == RUN_PROGRESS_TRIAL)
		name_trial(ri, ev);
	else if (ev->kind == RUN_PROGRESS_TRIAL_DONE)
		ri->next[0] = '\0'; /* loads outside a trial (a path's warm-up) are no trial's */
	if (ri->progress)
		ri->progress(ri->progress_arg, ev);
}

static void keep(void *arg, const struct load_result *lr, int rc)
{
	struct cmd_run_iperf3 *ri = arg;
	struct cmd_run_iperf3_doc *d;
	cJSON *doc;

	(void)rc; /* the document carries the result's error itself */
	if (ri->err || !ri->next[0])
		return;
	d = realloc(ri->docs, (ri->n + 1) * sizeof(*d));
	if (!d) {
		ri->err = -ENOMEM;
		return;
	}
	ri->docs = d;
	d += ri->n;
	ri->tries++;
	if (ri->tries > 1)
		snprintf(d->name, sizeof(d->name), "%s-%u.json", ri->next, ri->tries);
	else
		snprintf(d->name, sizeof(d->name), "%s.json", ri->next);
	doc = report_iperf3_json(lr);
	d->text = doc ? cJSON_Print(doc) : NULL;
	cJSON_Delete(doc);
	if (!d->text) {
		ri->err = -ENOMEM;
		return;
	}
	ri->n++;
}

void cmd_run_iperf3_attach(struct cmd_run_iperf3 *ri, struct run_options *opt)
{
	memset(ri, 0, sizeof(*ri));
	ri->progress = opt->progress;
	ri->progress_arg = opt->progress_arg;
	opt->progress = progress;
	opt->progress_arg = ri;
	opt->trial_result = keep;
	opt->trial_result_arg = ri;
}

static int write_one(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int rc = 0;

	if (!f)
		return -errno;
	if (fprintf(f, "%s\n", text) < 0)
		rc = -EIO;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

int cmd_run_iperf3_write(const struct cmd_run_iperf3 *ri, const char *dir, char *bad, size_t badlen)
{
	char path[1024];
	int rc = ri->err;

	snprintf(bad, badlen, "%s/", RUN_IPERF3_DIR);
	if (rc)
		return rc;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, RUN_IPERF3_DIR) >= sizeof(path))
		return -ENAMETOOLONG;
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	for (unsigned i = 0; i < ri->n; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, RUN_IPERF3_DIR,
				     ri->docs[i].name) >= sizeof(path))
			return -ENAMETOOLONG;
		rc = write_one(path, ri->docs[i].text);
		if (rc) {
			snprintf(bad, badlen, "%s/%s", RUN_IPERF3_DIR, ri->docs[i].name);
			return rc;
		}
	}
	bad[0] = '\0';
	return 0;
}

void cmd_run_iperf3_free(struct cmd_run_iperf3 *ri)
{
	for (unsigned i = 0; i < ri->n; i++)
		free(ri->docs[i].text);
	free(ri->docs);
	ri->docs = NULL;
	ri->n = 0;
}
