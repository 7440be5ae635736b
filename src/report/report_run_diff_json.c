// SPDX-License-Identifier: MIT
/* `ovlperf report --json A B`: the comparison as one document (libcjson),
 * schema "ovlperf.compare"; its fields are in docs/json.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "json_out.h"
#include "report_diff.h"

#define COMPARE_SCHEMA_NAME "ovlperf.compare"
#define COMPARE_SCHEMA	    1

/* A number, or null where there is none (NAN). */
static void add_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *run_json(const struct results_run *run, const char *dir)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "dir", dir ? dir : "");
	cJSON_AddStringToObject(o, "scenario", run->scenario_name);
	cJSON_AddStringToObject(o, "started_utc", run->started_utc);
	cJSON_AddBoolToObject(o, "complete", run->complete);
	cJSON_AddNumberToObject(o, "trials", (double)run->ntrials);
	return o;
}

static cJSON *side_json(const struct results_figure *x)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "value", x->value);
	cJSON_AddStringToObject(o, "bound", x->fit ? "fit" : overhead_figure_bound_name(x->bound));
	/* a soft knee's fit: its 90 % interval, what a change is judged by */
	if (x->fit) {
		cJSON_AddNumberToObject(o, "fit_low", x->fit_low);
		cJSON_AddNumberToObject(o, "fit_high", x->fit_high);
	}
	cJSON_AddItemToObject(o, "repetitions", cJSON_CreateDoubleArray(x->v, (int)x->n));
	return o;
}

static cJSON *change_json(const struct report_diff_row *r)
{
	const struct change *c = &r->ch;
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "estimate", c->shift);
	add_num(o, "estimate_pct", c->pct);
	if (c->has_interval) {
		cJSON_AddNumberToObject(o, "low", c->lo);
		cJSON_AddNumberToObject(o, "high", c->hi);
		add_num(o, "low_pct", c->lo_pct);
		add_num(o, "high_pct", c->hi_pct);
		/* a span's range is every change the runs allow, not a
		 * confidence interval; its estimate the least of them */
		if (r->by_span)
			cJSON_AddNullToObject(o, "confidence");
		else
			cJSON_AddNumberToObject(o, "confidence", c->confidence);
	} else {
		cJSON_AddNullToObject(o, "low");
		cJSON_AddNullToObject(o, "high");
		cJSON_AddNullToObject(o, "low_pct");
		cJSON_AddNullToObject(o, "high_pct");
		cJSON_AddNullToObject(o, "confidence");
	}
	cJSON_AddStringToObject(o, "bound",
				!r->by_span    ? overhead_bound_name(r->delta_bound)
				: c->shift < 0 ? overhead_bound_name(OVERHEAD_AT_MOST)
					       : overhead_bound_name(OVERHEAD_AT_LEAST));
	return o;
}

static cJSON *row_json(const struct report_diff_row *r)
{
	const struct results_figure *x = r->a;
	cJSON *o = cJSON_CreateObject();
	char name[64];

	results_figure_name(x, name, sizeof(name));
	cJSON_AddStringToObject(o, "figure", x->what);
	cJSON_AddStringToObject(o, "metric", name);
	cJSON_AddStringToObject(o, "path", x->path);
	cJSON_AddNumberToObject(o, "key", x->key);
	cJSON_AddStringToObject(o, "key_unit", x->key_unit);
	if (x->load_pct > 0)
		cJSON_AddNumberToObject(o, "load_pct", x->load_pct);
	cJSON_AddStringToObject(o, "better",
				x->better > 0	? "higher"
				: x->better < 0 ? "lower"
						: "neither");
	cJSON_AddItemToObject(o, "a", side_json(x));
	if (!r->b) {
		cJSON_AddNullToObject(o, "b");
		cJSON_AddNullToObject(o, "change");
		cJSON_AddStringToObject(o, "verdict", "only-in-a");
		return o;
	}
	cJSON_AddItemToObject(o, "b", side_json(r->b));
	if (r->compared)
		cJSON_AddItemToObject(o, "change", change_json(r));
	else
		cJSON_AddNullToObject(o, "change");
	/* the share of A a change had to exceed (null: not judged), and the
	 * runs of the history it came from (0: the figure's documented one) */
	if (r->compared && isfinite(r->threshold))
		cJSON_AddNumberToObject(o, "threshold_pct", 100 * r->threshold);
	else
		cJSON_AddNullToObject(o, "threshold_pct");
	cJSON_AddBoolToObject(o, "machine_bound", r->machine_bound);
	cJSON_AddBoolToObject(o, "machine_busy", r->machine_busy);
	cJSON_AddNumberToObject(o, "busy_cores", r->busy_cores);
	cJSON_AddStringToObject(o, "judged_by",
				r->by_span     ? "span"
				: r->changed   ? "none"
				: r->fit_mixed ? "fit_and_found"
				: r->fit       ? "fit"
					       : "repetitions");
	/* the run (a, b or both) whose repetitions disagree: no change judged
	 * but by its span */
	if (r->changed)
		cJSON_AddStringToObject(o, "moved_within",
					!r->b->changed	 ? "a"
					: !r->a->changed ? "b"
							 : "both");
	else
		cJSON_AddNullToObject(o, "moved_within");
	cJSON_AddNumberToObject(o, "history_runs",
				r->hist_runs >= REPORT_DIFF_HISTORY_MIN ? (double)r->hist_runs : 0);
	cJSON_AddStringToObject(o, "verdict", change_verdict_name(r->verdict));
	return o;
}

int report_diff_json(FILE *f, const struct report_diff *d, const struct report_diff_options *o)
{
	cJSON *root = cJSON_CreateObject(), *warn, *figs;

	if (!root)
		return -ENOMEM;
	cJSON_AddStringToObject(root, "schema", COMPARE_SCHEMA_NAME);
	cJSON_AddNumberToObject(root, "schema_version", COMPARE_SCHEMA);
	cJSON_AddItemToObject(root, "a", run_json(d->a->run, o ? o->dir_a : NULL));
	cJSON_AddItemToObject(root, "b", run_json(d->b->run, o ? o->dir_b : NULL));
	cJSON_AddNumberToObject(root, "threshold_pct", 100 * d->threshold);
	if (d->cpu_threshold > 0)
		cJSON_AddNumberToObject(root, "threshold_cpu_pct", 100 * d->cpu_threshold);
	else
		cJSON_AddNullToObject(root, "threshold_cpu_pct");
	cJSON_AddNumberToObject(root, "confidence", d->confidence);
	cJSON_AddNumberToObject(root, "history_runs", (double)d->hist_runs);
	cJSON_AddStringToObject(root, "method", "hodges-lehmann");
	cJSON_AddBoolToObject(root, "setups_differ", d->setups_differ);
	warn = cJSON_AddArrayToObject(root, "warnings");
	for (unsigned i = 0; warn && i < d->nwarn; i++)
		cJSON_AddItemToArray(warn, cJSON_CreateString(d->warn[i]));
	figs = cJSON_AddArrayToObject(root, "figures");
	for (size_t i = 0; figs && i < d->n; i++)
		cJSON_AddItemToArray(figs, row_json(&d->rows[i]));
	cJSON_AddNumberToObject(root, "only_in_b", (double)d->only_b);
	cJSON_AddNumberToObject(root, "regressions", d->regressions);
	cJSON_AddNumberToObject(root, "progressions", d->progressions);
	return json_out_print(f, root);
}
