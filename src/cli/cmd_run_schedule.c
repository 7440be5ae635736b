// SPDX-License-Identifier: MIT
/* The textfile and the retention after a scheduled run (cmd_run_schedule.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "report_run.h"
#include "retention.h"
#include "cmd_run_schedule.h"

bool cmd_run_schedule_wanted(const struct cmd_run_schedule *s)
{
	return s->keep || s->keep_days || s->textfile_dir;
}

static int write_textfile(const char *tdir, const struct results_run *res, char *unwritten,
			  size_t len)
{
	char safe[RESULTS_NAME_MAX], path[1024];
	struct report_run rr;
	int rc;

	retention_safe_name(res->scenario_name, safe, sizeof(safe));
	if (snprintf(path, sizeof(path), "%s/ovlperf-%s.prom", tdir, safe) >= (int)sizeof(path)) {
		log_err("%s: the textfile's path is too long", tdir);
		rc = -ENAMETOOLONG;
	} else {
		rc = report_run_prepare(&rr, res);
		if (!rc) {
			rc = report_run_openmetrics_file(path, &rr);
			report_run_release(&rr);
		}
	}
	if (rc) {
		size_t used = strlen(unwritten);

		snprintf(unwritten + used, len - used, "%s%s", used ? ", " : "", path);
	}
	return rc;
}

int cmd_run_schedule_after(const struct cmd_run_schedule *s, const struct results_run *res,
			   const char *root, const char *dir, char *unwritten, size_t len)
{
	unsigned removed = 0;
	int rc = 0;

	if (s->textfile_dir)
		rc = write_textfile(s->textfile_dir, res, unwritten, len);
	/* a textfile that could not be written is a failed step: no prune
	 * after it, as after a failed run */
	if (rc || (!s->keep && !s->keep_days))
		return rc;
	rc = retention_prune(root, res->scenario_name, dir, s->keep, s->keep_days, &removed);
	if (removed)
		log_notice("retention: removed %u run%s of '%s' under %s", removed,
			   removed == 1 ? "" : "s", res->scenario_name, root);
	return rc;
}
