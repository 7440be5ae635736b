// SPDX-License-Identifier: MIT
/* A knee's headline (results_knee_head.c) on paths whose knee is known by
 * construction (soft_fixture.h): a soft path's headline is its fit in
 * every output, a shaper's never is, and a path whose knee moved between
 * repetitions has none. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "history.h"
#include "mesh.h"
#include "overhead.h"
#include "report_diff.h"
#include "report_mesh.h"
#include "report_run.h"
#include "report_trend.h"
#include "results.h"
#include "run_limit.h"
#include "report_fixture.h"
#include "soft_fixture.h"

/* The soft fixture's run in mode, aggregated for the printers. */
static void prepared(struct results_run *run, struct report_run *rr, enum soft_mode mode)
{
	soft_run(run, mode);
	assert_int_equal(report_run_prepare(rr, run), 0);
}

static const struct results_knee_point *wg_knee(const struct report_run *rr)
{
	const struct results_knee_point *k = results_find_knee(&rr->sum, 1, SOFT_LEN);

	assert_non_null(k);
	return k;
}

/* The decision and its figure in the model: the fit at 50 % near the
 * curve's 440 Mbit/s, its interval about it; the underlay's tbf keeps its
 * found bounds. */
static void test_model(void **state)
{
	struct results_run run;
	struct report_run rr;
	const struct results_knee_point *k, *u;
	const struct results_stat *st;
	enum overhead_bound b;

	(void)state;
	prepared(&run, &rr, SOFT_SOFT);
	k = wg_knee(&rr);
	u = results_find_knee(&rr.sum, 0, SOFT_LEN);
	print_message("wg: band %u of %u lost, NDR %.0f..%.0f, fit %.4g (%.4g..%.4g), p %.3f\n",
		      k->band_lossy, k->band_trials, k->ndr_bps.min, k->ndr_bps.max,
		      k->ndr_fit.load_bps, k->ndr_fit.low_bps, k->ndr_fit.high_bps,
		      k->ndr_fit_reps.p);
	assert_true(results_knee_soft(k));
	assert_int_equal(k->ndr_head, RESULTS_HEAD_FIT);
	assert_true(overhead_knee_figure(k, false, &st, &b));
	assert_int_equal(b, OVERHEAD_EXACT);
	assert_true(st->median == k->ndr_fit.load_bps);
	assert_true(st->min == k->ndr_fit.low_bps && st->max == k->ndr_fit.high_bps);
	assert_true(fabs(st->median / SOFT_KNEE_BPS - 1) < 0.05);
	assert_int_equal(u->ndr_head, RESULTS_HEAD_FOUND);
	assert_int_equal(u->pdr_head, RESULTS_HEAD_FOUND);
	assert_true(overhead_knee_figure(u, false, &st, &b));
	assert_true(st->median == 900e6);
	report_run_release(&rr);
	results_free(&run);
}

/* The terminal: the verdict and the summary give the fit, marked, and the
 * ratio of a fit to a found knee says so; the sharp run shows neither. */
static void test_term(void **state)
{
	struct results_run run;
	struct report_run rr;
	char *t;

	(void)state;
	prepared(&run, &rr, SOFT_SOFT);
	t = render(p_term, &rr, NULL);
	contains(t, "through wg: ~4");
	contains(t, "fitted: a soft knee) against 900 Mbit/s over underlay (x0.");
	contains(t, ", a fit against a found knee)");
	contains(t, "  UDP 1200 B NDR         900M                             ~4");
	contains(t, "~ fitted: a soft knee");
	free(t);
	report_run_release(&rr);
	results_free(&run);

	prepared(&run, &rr, SOFT_SHARP);
	assert_int_equal(wg_knee(&rr)->ndr_head, RESULTS_HEAD_FOUND);
	t = render(p_term, &rr, NULL);
	assert_null(strstr(t, "~"));
	assert_null(strstr(t, "fitted"));
	contains(t, "through wg: 440 Mbit/s against 900 Mbit/s");
	free(t);
	report_run_release(&rr);
	results_free(&run);
}

/* The NDR's verdict of a soft knee whose median search found no lossless
 * load: the fit is the NDR, not "there is no NDR" beside a fitted
 * headline. */
static void test_verdict_no_lossless(void **state)
{
	struct results_run run;
	struct report_run rr;
	struct results_knee_point *k;
	struct ndr_limit_verdict v;

	(void)state;
	prepared(&run, &rr, SOFT_SOFT);
	k = (struct results_knee_point *)wg_knee(&rr);
	assert_int_equal(k->ndr_head, RESULTS_HEAD_FIT);
	k->ndr_bps.n = 0; /* every load its median search tried lost */
	for (size_t i = 0; i < run.ntrials && !k->loss_at_bps; i++)
		if (run.trials[i].kind == RESULTS_TRIAL_KNEE && run.trials[i].path == 1 &&
		    run.trials[i].udp.lost)
			k->loss_at_bps = run.trials[i].target_bps;
	assert_true(results_ndr_limit(&run, &rr.sum, 1, SOFT_LEN, &v));
	print_message("%s\n", v.evidence);
	assert_non_null(strstr(v.evidence, "no load tried was lossless"));
	assert_non_null(strstr(v.evidence, "a soft knee, whose NDR is the fit of every trial, ~4"));
	assert_null(strstr(v.evidence, "there is no NDR"));
	/* a sharp knee's search with no lossless load: no NDR */
	k->ndr_head = RESULTS_HEAD_FOUND;
	assert_true(results_ndr_limit(&run, &rr.sum, 1, SOFT_LEN, &v));
	assert_non_null(strstr(v.evidence, "so there is no NDR"));
	report_run_release(&rr);
	results_free(&run);
}

/* The third repetition's knee 40 % higher: no single figure, said. */
static void test_moved(void **state)
{
	struct results_run run;
	struct report_run rr;
	const struct results_stat *st;
	enum overhead_bound b;
	char *t;

	(void)state;
	prepared(&run, &rr, SOFT_MOVED);
	assert_int_equal(wg_knee(&rr)->ndr_head, RESULTS_HEAD_CHANGED);
	assert_false(overhead_knee_figure(wg_knee(&rr), false, &st, &b));
	t = render(p_term, &rr, NULL);
	contains(t, "through wg: no single figure (its repetitions' knees differ");
	contains(t, "(changed)");
	free(t);
	report_run_release(&rr);
	results_free(&run);
}

static void p_om(FILE *f, const struct report_run *rr, const void *arg)
{
	(void)arg;
	assert_int_equal(report_run_openmetrics(f, rr), 0);
}

static void p_html(FILE *f, const struct report_run *rr, const void *arg)
{
	struct plot_set set = { .n = 0 };

	(void)arg;
	assert_int_equal(report_run_html(f, rr, &set, "/nonexistent"), 0);
}

#define OM_WG "{scenario=\"soft\",path=\"wg\",kind=\"external\",bytes=\"1200\""

/* summary.csv, OpenMetrics, report.md and report.html: the fit as the
 * figure, its interval as min and max, its state "fit"; a sharp path's
 * outputs say nothing of a fit (its fit state 0). */
static void test_outputs(void **state)
{
	struct results_run run;
	struct report_run rr;
	char *t;

	(void)state;
	prepared(&run, &rr, SOFT_SOFT);
	t = render(p_csv, &rr, NULL);
	contains(t, "udp_ndr_bps,wg,external,,1200,,3,419016187,405114225,433395210,900000000,"
		    "0.465574,53.44,fit,exact,exact,exact,");
	free(t);
	t = render(p_om, &rr, NULL);
	contains(t, "ovlperf_udp_ndr_bytes_per_second" OM_WG ",stat=\"median\"} 52377023");
	contains(t, "ovlperf_udp_ndr_bound" OM_WG ",bound=\"exact\"} 0\n");
	contains(t, "ovlperf_udp_ndr_bound" OM_WG ",bound=\"fit\"} 1\n");
	contains(t, "ovlperf_udp_pdr_bound" OM_WG ",bound=\"fit\"} 0\n");
	free(t);
	t = render(p_md, &rr, NULL);
	contains(t,
		 "| wg | 1200 | ~419.0 (405.1-433.4), fitted: a soft knee | 330.0 (310.0-410.0) |");
	contains(t, "0.466 (a fit against a found knee)");
	free(t);
	t = render(p_html, &rr, NULL);
	contains(t, "~419.0 (405.1-433.4), fitted: a soft knee");
	free(t);
	report_run_release(&rr);
	results_free(&run);

	prepared(&run, &rr, SOFT_SHARP);
	t = render(p_csv, &rr, NULL);
	assert_null(strstr(t, "fit"));
	free(t);
	t = render(p_om, &rr, NULL);
	contains(t, "ovlperf_udp_ndr_bound" OM_WG ",bound=\"exact\"} 1\n");
	contains(t, "ovlperf_udp_ndr_bound" OM_WG ",bound=\"fit\"} 0\n");
	free(t);
	t = render(p_md, &rr, NULL);
	assert_null(strstr(t, "fitted: a soft knee"));
	free(t);
	report_run_release(&rr);
	results_free(&run);

	/* the path changed: no figure, said as such */
	prepared(&run, &rr, SOFT_MOVED);
	t = render(p_csv, &rr, NULL);
	contains(t, "udp_ndr_bps,wg,external,,1200,,0,0,0,0,,,,changed,");
	free(t);
	t = render(p_om, &rr, NULL);
	assert_null(strstr(t, "ovlperf_udp_ndr_bytes_per_second" OM_WG));
	assert_null(strstr(t, "ovlperf_udp_ndr_bound" OM_WG));
	free(t);
	t = render(p_md, &rr, NULL);
	contains(t, "no single figure: the path changed between repetitions");
	free(t);
	report_run_release(&rr);
	results_free(&run);
}

/* The wg path's NDR row of a comparison. */
static const struct report_diff_row *wg_ndr_row(const struct report_diff *d)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->rows[i].a->path, "wg") && d->rows[i].a->metric == OVERHEAD_UDP_NDR &&
		    !d->rows[i].a->ratio)
			return &d->rows[i];
	return NULL;
}

static void p_diff(FILE *f, const struct report_run *rr, const void *arg)
{
	report_run_diff(f, rr, arg, NULL);
}

/* `report A B` of two runs of the soft path: the same path with other
 * luck is no change (judged by the fits' intervals), the path 25 % slower
 * a regression; with the repetitions' found NDRs the first pair's spread
 * alone would move the figure. */
static void test_diff(void **state)
{
	struct results_run a, b, c;
	struct report_run ra, rb, rc;
	struct report_diff d;
	const struct report_diff_row *r;
	char *t;

	(void)state;
	soft_run_at(&a, SOFT_SOFT, 88172645463325252ULL, 1);
	soft_run_at(&b, SOFT_SOFT, 1181783497276652981ULL, 1);
	soft_run_at(&c, SOFT_SOFT, 1181783497276652981ULL, 0.75);
	assert_int_equal(report_run_prepare(&ra, &a), 0);
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	assert_int_equal(report_run_prepare(&rc, &c), 0);
	assert_int_equal(report_diff_build(&d, &ra, &rb, NULL), 0);
	r = wg_ndr_row(&d);
	assert_non_null(r);
	print_message("A ~%.4g (%.4g..%.4g), B ~%.4g (%.4g..%.4g): %+.1f %% [%+.1f, %+.1f]\n",
		      r->a->value, r->a->fit_low, r->a->fit_high, r->b->value, r->b->fit_low,
		      r->b->fit_high, r->ch.pct, r->ch.lo_pct, r->ch.hi_pct);
	assert_true(r->fit);
	assert_true(r->verdict == CHANGE_NOISE || r->verdict == CHANGE_SMALL);
	assert_int_equal(d.regressions, 0);
	report_diff_free(&d);
	t = render(p_diff, &ra, &rb);
	contains(t, "~4");
	contains(t, "% fit ");
	contains(t, "a change between two fits is judged by their 90 % intervals");
	free(t);
	assert_int_equal(report_diff_build(&d, &ra, &rc, NULL), 0);
	r = wg_ndr_row(&d);
	assert_non_null(r);
	print_message("slower: %+.1f %% [%+.1f, %+.1f]\n", r->ch.pct, r->ch.lo_pct, r->ch.hi_pct);
	assert_int_equal(r->verdict, CHANGE_REGRESSION);
	report_diff_free(&d);
	/* the path made sharp at 80 % of its knee (a daemon at a CPU quota): its
	 * found figure and its repetitions' range against A's fit */
	report_run_release(&rc);
	results_free(&c);
	soft_run_at(&c, SOFT_SHARP, 1181783497276652981ULL, 0.8);
	assert_int_equal(report_run_prepare(&rc, &c), 0);
	assert_int_equal(report_diff_build(&d, &ra, &rc, NULL), 0);
	r = wg_ndr_row(&d);
	assert_non_null(r);
	assert_true(r->fit && r->fit_mixed);
	assert_int_equal(r->verdict, CHANGE_REGRESSION);
	report_diff_free(&d);
	report_run_release(&ra);
	report_run_release(&rb);
	report_run_release(&rc);
	results_free(&a);
	results_free(&b);
	results_free(&c);
}

static void p_diff_json(FILE *f, const struct report_run *rr, const void *arg)
{
	struct report_diff_options o = { .json = true };

	report_run_diff(f, rr, arg, &o);
}

/* `report A B` where A's repetitions disagree (its headline "changed"):
 * the row is there, its found median shown as no exact figure, and no
 * change judged either way ("unknown"), said; a B that moved as well. */
static void test_diff_moved(void **state)
{
	struct results_run a, b;
	struct report_run ra, rb;
	struct report_diff d;
	const struct report_diff_row *r;
	char *t;

	(void)state;
	soft_run_at(&a, SOFT_MOVED, 88172645463325252ULL, 1);
	soft_run_at(&b, SOFT_SOFT, 1181783497276652981ULL, 0.5);
	assert_int_equal(report_run_prepare(&ra, &a), 0);
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	assert_int_equal(report_diff_build(&d, &ra, &rb, NULL), 0);
	r = wg_ndr_row(&d);
	assert_non_null(r);
	assert_true(r->changed && r->a->changed && !r->b->changed);
	assert_int_equal(r->verdict, CHANGE_UNKNOWN);
	assert_int_equal(d.regressions, 0);
	assert_int_equal(d.changed, 2); /* its NDR and its PDR */
	report_diff_free(&d);
	t = render(p_diff, &ra, &rb);
	contains(t, "? A moved");
	contains(t, "(? moved: 2 knee figures whose run's repetitions disagree");
	free(t);
	t = render(p_diff_json, &ra, &rb);
	contains(t, "\"moved_within\":\t\"a\"");
	contains(t, "\"verdict\":\t\"unknown\"");
	free(t);
	assert_int_equal(report_diff_build(&d, &rb, &ra, NULL), 0);
	assert_int_equal(wg_ndr_row(&d)->verdict, CHANGE_UNKNOWN);
	report_diff_free(&d);
	t = render(p_diff, &rb, &ra);
	contains(t, "? B moved");
	free(t);
	report_run_release(&ra);
	report_run_release(&rb);
	results_free(&a);
	results_free(&b);
}

/* `report A B` where B's repetitions disagree but every one of them puts
 * the knee far below A's fit (a daemon held to a CPU quota whose rate moved
 * between its repetitions): whichever was right, B is slower by more than
 * the threshold, so a regression, judged by B's span and said so; the same
 * runs the other way round a progression. Where the span reaches into the
 * other's interval (test_diff_moved) nothing is judged. */
static void test_diff_moved_far(void **state)
{
	struct results_run a, b;
	struct report_run ra, rb;
	struct report_diff d;
	const struct report_diff_row *r;
	char *t;

	(void)state;
	soft_run_at(&a, SOFT_SOFT, 1181783497276652981ULL, 1);
	soft_run_grid(&b, SOFT_MOVED, 88172645463325252ULL, 0.1, 0.1);
	assert_int_equal(report_run_prepare(&ra, &a), 0);
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	assert_int_equal(report_diff_build(&d, &ra, &rb, NULL), 0);
	r = wg_ndr_row(&d);
	assert_non_null(r);
	print_message("A ~%.4g (%.4g..%.4g); B moved, span %.4g..%.4g: %+.1f %% [%+.1f, %+.1f], "
		      "verdict %s\n",
		      r->a->fit_bps, r->a->fit_low, r->a->fit_high, r->b->moved_low,
		      r->b->moved_high, r->ch.pct, r->ch.lo_pct, r->ch.hi_pct,
		      change_verdict_name(r->verdict));
	assert_true(r->changed && r->b->changed && !r->a->changed);
	assert_true(r->by_span && r->compared);
	assert_int_equal(r->verdict, CHANGE_REGRESSION);
	/* the least change the span allows: its interval's end nearer 0 */
	assert_true(r->ch.hi_pct < -10 && fabs(r->ch.pct - r->ch.hi_pct) < 1e-9);
	assert_true(r->b->moved_high < r->a->fit_low);
	report_diff_free(&d);
	t = render(p_diff, &ra, &rb);
	contains(t, "REGRESSION, B moved");
	contains(t, "(moved: 2 knee figures whose run's repetitions disagree, judged all");
	free(t);
	t = render(p_diff_json, &ra, &rb);
	contains(t, "\"judged_by\":\t\"span\"");
	contains(t, "\"moved_within\":\t\"b\"");
	contains(t, "\"verdict\":\t\"regression\"");
	contains(t, "\"confidence\":\tnull");
	contains(t, "\"bound\":\t\"at_most\"");
	free(t);
	assert_int_equal(report_diff_build(&d, &rb, &ra, NULL), 0);
	r = wg_ndr_row(&d);
	assert_true(r->by_span);
	assert_int_equal(r->verdict, CHANGE_PROGRESSION);
	assert_true(r->ch.lo_pct > 10 && fabs(r->ch.pct - r->ch.lo_pct) < 1e-9);
	report_diff_free(&d);
	report_run_release(&ra);
	report_run_release(&rb);
	results_free(&a);
	results_free(&b);
}

/* Run r of the soft path under root (each its own luck, started an hour
 * apart), its knee at scale. */
static void write_soft(const char *root, int r, double scale)
{
	struct results_run run;
	char dir[256], path[300];

	soft_run_at(&run, SOFT_SOFT, 88172645463325252ULL + 7919ULL * (uint64_t)r, scale);
	snprintf(run.started_utc, sizeof(run.started_utc), "2026-12-07T%02d:00:00Z", r);
	snprintf(dir, sizeof(dir), "%s/run%d", root, r);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/run.json", dir);
	assert_int_equal(results_write_json(&run, path), 0);
	results_free(&run);
}

static void p_trend(FILE *f, const struct report_run *rr, const void *arg)
{
	(void)rr;
	report_trend_term(f, arg);
}

static void p_mesh(FILE *f, const struct report_run *rr, const void *arg)
{
	struct mesh_verdicts v;

	(void)rr;
	mesh_verdicts(arg, &v);
	report_mesh_term(f, arg, &v);
}

/* `report --trend` follows each run's fit (read from its run.json), its
 * band the fit's interval; the mesh matrix's cell is the fit, marked. */
static void test_trend_matrix(void **state)
{
	char root[] = "/tmp/test_knee_head_XXXXXX", err[256], cmd[300], *t;
	char *dirs[1] = { root };
	const struct history_series *s = NULL;
	struct results_run run;
	struct report_run rr;
	struct history h;
	struct mesh m;

	(void)state;
	assert_non_null(mkdtemp(root));
	for (int r = 0; r < 4; r++)
		write_soft(root, r, 1);
	assert_int_equal(history_read(&h, dirs, 1, "soft", 0.05, err, sizeof(err)), 0);
	for (size_t i = 0; i < h.nseries; i++)
		if (!strcmp(h.series[i].id.path, "wg") &&
		    h.series[i].id.metric == OVERHEAD_UDP_NDR && !h.series[i].id.ratio)
			s = &h.series[i];
	assert_non_null(s);
	assert_true(s->fitted);
	assert_int_equal(s->n, 4);
	for (size_t i = 0; i < s->n; i++)
		assert_true(s->lo[i] < s->y[i] && s->y[i] < s->hi[i] &&
			    fabs(s->y[i] / SOFT_KNEE_BPS - 1) < 0.1);
	t = render(p_trend, NULL, &h);
	contains(t, "~4");
	contains(t, "~ a soft knee's fit of all its trials");
	free(t);
	history_free(&h);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);

	mesh_init(&m);
	soft_run(&run, SOFT_SOFT);
	assert_int_equal(mesh_add_pair(&m, "a", "b", &run, MESH_OK, "", "a-b"), 0);
	results_free(&run);
	soft_run(&run, SOFT_SHARP);
	assert_int_equal(mesh_add_pair(&m, "b", "a", &run, MESH_OK, "", "b-a"), 0);
	results_free(&run);
	mesh_sort(&m);
	assert_true(report_mesh_any_fit(&m));
	t = render(p_mesh, NULL, &m);
	contains(t, "~419 Mbit/s");
	contains(t, "440 Mbit/s");
	contains(t, "~ a soft knee's fit");
	free(t);
	mesh_free(&m);
	(void)rr;
}

/* The fit's plot (knee_fit.gp): the fitted curve over each load's share
 * of lossy trials, the exceed ratio's line; the slope rebuilt from the
 * fit is the curve's own (10); a sharp run has no such plot. */
static void test_plot(void **state)
{
	char dir[] = "/tmp/test_knee_head_plot_XXXXXX", path[128], cmd[160], *t;
	struct results_run run;
	struct report_run rr;
	struct plot_set set;
	double slope = 0;
	FILE *f;
	long len;

	(void)state;
	assert_non_null(mkdtemp(dir));
	prepared(&run, &rr, SOFT_SOFT);
	report_run_plot(&rr, dir, &set);
	snprintf(path, sizeof(path), "%s/knee_fit.gp", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	t = calloc(1, (size_t)len + 1);
	assert_int_equal(fread(t, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	contains(t, "P1(x) = 1 / (1 + exp(-(log(0.5 / (1 - 0.5)) + ");
	assert_int_equal(sscanf(strstr(t, "(1 - 0.5)) + ") + 13, "%lf", &slope), 1);
	assert_true(slope > 8 && slope < 12);
	contains(t, "set arrow from graph 0, first 0.5 to graph 1, first 0.5 nohead dt 2");
	contains(t, "$f1 << EOD\n300 0 6\n");
	contains(t, "title 'the exceed ratio'");
	free(t);
	report_run_release(&rr);
	results_free(&run);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);

	assert_non_null(mkdtemp(strcpy(dir, "/tmp/test_knee_head_plot_XXXXXX")));
	prepared(&run, &rr, SOFT_SHARP);
	report_run_plot(&rr, dir, &set);
	snprintf(path, sizeof(path), "%s/knee_fit.gp", dir);
	assert_int_equal(access(path, F_OK), -1);
	report_run_release(&rr);
	results_free(&run);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* run.json keeps the decision; read back, it is the recorded one, not
 * decided again; a file without it (from before) reads with the found
 * bounds, as it did. */
static void test_json(void **state)
{
	struct results_run run, back;
	struct report_run rr;
	char err[256], *j, *at;

	(void)state;
	soft_run(&run, SOFT_SOFT);
	j = results_to_json(&run);
	assert_non_null(j);
	at = strstr(j, "\"path\":\t\"wg\"");
	assert_non_null(at);
	assert_non_null(strstr(at, "\"ndr_headline\":\t\"fit\""));
	assert_non_null(strstr(at, "\"ndr_bound\":\t\"fit\""));
	assert_non_null(strstr(j, "\"ndr_headline\":\t\"found\""));
	assert_int_equal(results_from_json(j, &back, err, sizeof(err)), 0);
	assert_int_equal(report_run_prepare(&rr, &back), 0);
	assert_int_equal(wg_knee(&rr)->ndr_head, RESULTS_HEAD_FIT);
	report_run_release(&rr);
	results_free(&back);
	/* an older file: no headline recorded */
	while ((at = strstr(j, "\"ndr_headline\"")))
		memcpy(at, "\"old_headline\"", 14);
	assert_int_equal(results_from_json(j, &back, err, sizeof(err)), 0);
	assert_int_equal(report_run_prepare(&rr, &back), 0);
	assert_int_equal(wg_knee(&rr)->ndr_head, RESULTS_HEAD_FOUND);
	report_run_release(&rr);
	results_free(&back);
	/* a bad value names its place */
	at = strstr(j, "\"pdr_headline\":\t\"");
	assert_non_null(at);
	memcpy(at + 17, "xx", 2);
	assert_int_equal(results_from_json(j, &back, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "summary.udp_knee[0].pdr_headline"));
	free(j);
	results_free(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_term),
		cmocka_unit_test(test_moved),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_outputs),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_diff_moved),
		cmocka_unit_test(test_diff_moved_far),
		cmocka_unit_test(test_verdict_no_lossless),
		cmocka_unit_test(test_trend_matrix),
		cmocka_unit_test(test_plot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
