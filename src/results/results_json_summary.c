// SPDX-License-Identifier: MIT
/*
 * run.json's derived sections, written for its readers and recomputed when
 * it is read (results_json.c reads nothing of them): "summary" (per path
 * and load the TCP, knee and delay figures over the repetitions, the knee's
 * fit and RFC 9971 goals, what limited each), "overhead", "breakdown" and
 * "delay_loads". Schema: results/README.md.
 */
#include <math.h>

#include <cJSON.h>

#include "breakdown.h"
#include "loss_place.h"
#include "overhead.h"
#include "run_limit.h"
#include "results.h"
#include "results_fields.h"
#include "results_json_int.h"

static cJSON *stat_json(const struct results_stat *s)
{
	cJSON *o = cJSON_CreateObject();

	if (o && !(rj_add_num(o, "n", s->n) && rj_add_num(o, "median", s->median) &&
		   rj_add_num(o, "min", s->min) && rj_add_num(o, "max", s->max))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static bool add_stat(cJSON *o, const char *name, const struct results_stat *s)
{
	return rj_add_child(o, name, stat_json(s));
}

static bool summary_tcp(cJSON *arr, const struct results_run *run,
			const struct results_summary *sum)
{
	for (size_t i = 0; i < sum->ntcp; i++) {
		const struct results_tcp_point *p = &sum->tcp[i];
		cJSON *o = cJSON_CreateObject();

		if (!rj_add_array_item(arr, o))
			return false;
		if (!(rj_add_str(o, "path", run->paths[p->path].name) &&
		      rj_add_num(o, "streams", p->streams) &&
		      add_stat(o, "goodput_bps", &p->goodput_bps) &&
		      add_stat(o, "cpu_s_per_gbit", &p->cpu_s_per_gbit) &&
		      add_stat(o, "host_cpu_s_per_gbit", &p->host_cpu_s_per_gbit) &&
		      add_stat(o, "retransmits", &p->retransmits) &&
		      add_stat(o, "rtt_us", &p->rtt_us) && rj_add_num(o, "snd_mss", p->snd_mss)))
			return false;
	}
	return true;
}

/* "exact", "lower_bound", "upper_bound" (below the search's minimum: the
 * rate it lost at, in ndr_upper / pdr_upper), "fit" (the headline is the
 * fit: ndr_fit, pdr_fit) or "none" (none found, or the path changed). */
static const char *knee_bound_name(const struct results_knee_point *p, bool pdr)
{
	const struct results_stat *s;
	enum overhead_bound b;

	if ((pdr ? p->pdr_head : p->ndr_head) == RESULTS_HEAD_FIT)
		return "fit";
	if (!overhead_knee_figure(p, pdr, &s, &b))
		return "none";
	return overhead_figure_bound_name(b);
}

/* Each repetition's knee under the common slope (knee_fit_reps()), and
 * the test of whether they differ by more than their trials' luck. */
static bool add_fit_reps(cJSON *j, const struct results_knee_point *p)
{
	const struct knee_fit_reps *fr = &p->ndr_fit_reps;
	cJSON *arr = cJSON_CreateArray(), *t;

	if (!rj_add_child(j, "repetitions", arr))
		return false;
	for (unsigned i = 0; i < fr->n; i++) {
		cJSON *r = cJSON_CreateObject();

		if (!rj_add_array_item(arr, r) || !rj_add_num(r, "rep", fr->rep[i].rep) ||
		    !rj_add_num(r, "trials", fr->rep[i].ntrials) ||
		    !rj_add_num(r, "lossy_trials", fr->rep[i].nbad) ||
		    !(fr->rep[i].load_bps > 0 ? rj_add_num(r, "load_bps", fr->rep[i].load_bps)
					      : rj_add_child(r, "load_bps", cJSON_CreateNull())))
			return false;
	}
	t = cJSON_CreateObject();
	return rj_add_child(j, "same_knee_test", t) && rj_add_num(t, "statistic", fr->lr) &&
	       rj_add_num(t, "df", fr->df) && rj_add_num(t, "p", fr->p) &&
	       cJSON_AddBoolToObject(t, "differ", fr->df && fr->p < KNEE_FIT_DIFFER_P) &&
	       rj_add_num(j, "slope", fr->slope);
}

/* A fit under name: its load at the exceed ratio, its 90 % interval,
 * where the chance of a lossy trial is 10 % and 90 %, the trials fitted;
 * null when the trials give none (a sharp knee: the bounds are the
 * answer). *j: its object, NULL for null. */
static bool add_fit(cJSON *o, const char *name, const struct knee_fit *f, cJSON **j)
{
	*j = NULL;
	if (!(f->load_bps > 0))
		return rj_add_child(o, name, cJSON_CreateNull());
	*j = cJSON_CreateObject();
	return rj_add_child(o, name, *j) && rj_add_num(*j, "load_bps", f->load_bps) &&
	       rj_add_num(*j, "low_bps", f->low_bps) && rj_add_num(*j, "high_bps", f->high_bps) &&
	       rj_add_num(*j, "chance_10pct_bps", f->band_low_bps) &&
	       rj_add_num(*j, "chance_90pct_bps", f->band_high_bps) &&
	       rj_add_num(*j, "trials", f->ntrials) && rj_add_num(*j, "lossy_trials", f->nbad);
}

/* Where the soft knee lies, fitted from every trial (knee_fit.h), and each
 * repetition's knee with the test of one knee. */
static bool add_ndr_fit(cJSON *o, const struct results_knee_point *p)
{
	cJSON *j;

	if (!add_fit(o, "ndr_fit", &p->ndr_fit, &j))
		return false;
	return !j || (add_stat(j, "repetitions_bps", &p->ndr_fit_rep_bps) &&
		      rj_add_num(j, "spread", p->ndr_fit_spread) && add_fit_reps(j, p));
}

/* The PDR goal's fit: a trial is lossy when it lost more than the PDR's
 * loss ratio. */
static bool add_pdr_fit(cJSON *o, const struct results_knee_point *p)
{
	cJSON *j;

	return add_fit(o, "pdr_fit", &p->pdr_fit, &j);
}

/* What each goal's headline is (results_knee_head.c), and both fits. */
static bool add_knee_fit(cJSON *o, const struct results_knee_point *p)
{
	if (!rj_add_str(o, "ndr_headline", results_head_name(p->ndr_head)) ||
	    !rj_add_str(o, "pdr_headline", results_head_name(p->pdr_head)) || !add_pdr_fit(o, p))
		return false;
	return add_ndr_fit(o, p);
}

static bool summary_knee(cJSON *arr, const struct results_run *run,
			 const struct results_summary *sum)
{
	for (size_t i = 0; i < sum->nknee; i++) {
		const struct results_knee_point *p = &sum->knee[i];
		cJSON *o = cJSON_CreateObject();

		if (!rj_add_array_item(arr, o))
			return false;
		if (!(rj_add_str(o, "path", run->paths[p->path].name) &&
		      rj_add_num(o, "len", p->len) &&
		      rj_add_str(o, "ndr_outcome", p->ndr_outcome) &&
		      rj_add_str(o, "pdr_outcome", p->pdr_outcome) &&
		      add_stat(o, "ndr_bps", &p->ndr_bps) && add_stat(o, "pdr_bps", &p->pdr_bps) &&
		      rj_add_str(o, "ndr_bound", knee_bound_name(p, false)) &&
		      rj_add_str(o, "pdr_bound", knee_bound_name(p, true)) &&
		      add_stat(o, "ndr_target_bps", &p->ndr_target_bps) &&
		      add_stat(o, "pdr_target_bps", &p->pdr_target_bps) &&
		      rj_add_num(o, "ndr_upper_bps", p->ndr_upper_bps.median) &&
		      rj_add_num(o, "pdr_upper_bps", p->pdr_upper_bps.median) &&
		      add_stat(o, "ndr_upper", &p->ndr_upper_bps) &&
		      add_stat(o, "pdr_upper", &p->pdr_upper_bps) &&
		      rj_add_num(o, "ndr_pps", p->len ? p->ndr_bps.median / (8.0 * p->len) : 0) &&
		      rj_add_num(o, "trials", p->trials) && rj_add_num(o, "time_s", p->time_s) &&
		      rj_add_num(o, "max_rx_bps", (double)p->max_rx_bps) &&
		      rj_add_num(o, "loss_at_bps", (double)p->loss_at_bps) &&
		      rj_add_loss(o, "loss_at", "loss_detail", &p->loss_at) &&
		      rj_add_num(o, "above_trials", p->above_trials) &&
		      rj_add_num(o, "above_lossy_trials", p->above_lossy) &&
		      rj_add_num(o, "above_sent", (double)p->above_sent) &&
		      rj_add_num(o, "above_lost", (double)p->above_lost) &&
		      rj_add_num(o, "above_worst_loss_ratio", p->above_worst_ratio) &&
		      rj_add_num(o, "above_worst_bps", (double)p->above_worst_bps) &&
		      rj_add_num(o, "above_queued_ratio", p->above_queued_ratio) &&
		      rj_add_num(o, "above_queued_bps", (double)p->above_queued_bps) &&
		      rj_add_num(o, "above_queued_growth_ms", p->above_queued_ms) &&
		      rj_add_num(o, "above_queued_trial_s", p->above_queued_s) &&
		      add_stat(o, "ndr_conditional_throughput_bps", &p->ndr_ct_bps) &&
		      add_stat(o, "pdr_conditional_throughput_bps", &p->pdr_ct_bps) &&
		      rj_add_num(o, "ndr_spread", p->ndr_spread) &&
		      rj_add_num(o, "disagree_trials", p->disagree_trials) &&
		      rj_add_num(o, "band_trials", p->band_trials) &&
		      rj_add_num(o, "band_lossy_trials", p->band_lossy) &&
		      rj_add_loss(o, "disagree_loss_at", "disagree_loss_detail",
				  &p->disagree_loss) &&
		      add_knee_fit(o, p)))
			return false;
	}
	return true;
}

static bool summary_delay(cJSON *arr, const struct results_run *run,
			  const struct results_summary *sum)
{
	for (size_t i = 0; i < sum->ndelay; i++) {
		const struct results_delay_point *p = &sum->delay[i];
		cJSON *o = cJSON_CreateObject();

		if (!rj_add_array_item(arr, o))
			return false;
		if (!(rj_add_str(o, "path", run->paths[p->path].name) &&
		      rj_add_num(o, "len", p->len) &&
		      rj_add_num(o, "load_bps", (double)p->load_bps) &&
		      rj_add_num(o, "load_pct", p->load_pct) &&
		      add_stat(o, "owd_p50_ms", &p->p50_ms) &&
		      add_stat(o, "owd_p99_ms", &p->p99_ms) &&
		      add_stat(o, "rx_wait_p99_ms", &p->rx_wait_p99_ms) &&
		      add_stat(o, "delivered_pct", &p->delivered_pct)))
			return false;
	}
	return true;
}

/* For NDR/PDR rows: how the underlay's search ended. Anything but "found"
 * ("above-max", "generator-limit") makes its figure a lower bound and the
 * ratio an upper one. */
static const char *base_outcome(const struct results_summary *sum, const struct overhead_row *r)
{
	const struct results_knee_point *k;

	if (r->metric != OVERHEAD_UDP_NDR && r->metric != OVERHEAD_UDP_PDR)
		return NULL;
	k = results_find_knee(sum, r->base_path, r->key);
	if (!k)
		return NULL;
	return r->metric == OVERHEAD_UDP_NDR ? k->ndr_outcome : k->pdr_outcome;
}

static bool overhead_json(cJSON *arr, const struct results_run *run, const struct overhead *ov,
			  const struct results_summary *sum)
{
	for (size_t i = 0; i < ov->n; i++) {
		const struct overhead_row *r = &ov->rows[i];
		cJSON *o = cJSON_CreateObject();
		double cost = overhead_cost_pct(r);

		if (!rj_add_array_item(arr, o))
			return false;
		if (!(rj_add_str(o, "path", run->paths[r->path].name) &&
		      rj_add_str(o, "versus", run->paths[r->base_path].name) &&
		      rj_add_str(o, "metric", overhead_metric_name(r->metric)) &&
		      rj_add_num(o, overhead_metric_key(r->metric), r->key) &&
		      rj_add_num(o, "underlay", r->base) && rj_add_num(o, "overlay", r->value) &&
		      (isnan(r->ratio) ? cJSON_AddNullToObject(o, "ratio") != NULL
				       : rj_add_num(o, "ratio", r->ratio)) &&
		      rj_add_num(o, "delta", r->delta) &&
		      (isnan(cost) ? cJSON_AddNullToObject(o, "cost_pct") != NULL
				   : rj_add_num(o, "cost_pct", cost))))
			return false;
		if (base_outcome(sum, r) &&
		    !rj_add_str(o, "underlay_outcome", base_outcome(sum, r)))
			return false;
		if ((r->metric == OVERHEAD_OWD_P50 || r->metric == OVERHEAD_OWD_P99) &&
		    !(rj_add_num(o, "load_bps", (double)r->load_bps) &&
		      rj_add_num(o, "load_pct", r->load_pct)))
			return false;
		if (!rj_add_str(o, "ratio_bound", overhead_bound_name(overhead_ratio_bound(r))) ||
		    !rj_add_str(o, "cost_bound", overhead_bound_name(overhead_cost_bound(r))))
			return false;
	}
	return true;
}

static cJSON *array_in(cJSON *parent, const char *name)
{
	cJSON *a = cJSON_CreateArray();

	return rj_add_child(parent, name, a) ? a : NULL;
}

/* Every load the delay trials ran at, per size in the order they ran:
 * derived from the trials (each carries its own), for readers. */
static bool delay_loads(cJSON *arr, const struct results_run *run)
{
	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];
		bool seen = t->kind != RESULTS_TRIAL_DELAY;
		cJSON *o;

		for (size_t j = 0; j < i && !seen; j++)
			seen = run->trials[j].kind == RESULTS_TRIAL_DELAY &&
			       run->trials[j].len == t->len &&
			       run->trials[j].target_bps == t->target_bps;
		if (seen)
			continue;
		o = cJSON_CreateObject();
		if (!rj_add_array_item(arr, o) || !rj_add_num(o, "len", t->len) ||
		    !rj_add_num(o, "load_pct", t->load_pct) ||
		    !rj_add_num(o, "load_bps", (double)t->target_bps))
			return false;
	}
	return true;
}

/* "limits": what limited each TCP point (the verdict most repetitions
 * got) and each knee's NDR (run_limit.h). */
static bool limits_json(cJSON *arr, const struct results_run *run,
			const struct results_summary *sum)
{
	struct results_tcp_limit l;
	struct ndr_limit_verdict v;
	cJSON *o;

	for (size_t i = 0; i < sum->ntcp; i++) {
		const struct results_tcp_point *p = &sum->tcp[i];

		if (!results_tcp_limit_line(run, p->path, p->streams, &l))
			continue;
		o = cJSON_CreateObject();
		if (!rj_add_array_item(arr, o) ||
		    !rj_add_str(o, "path", run->paths[p->path].name) ||
		    !rj_add_str(o, "figure", "tcp") || !rj_add_num(o, "streams", p->streams) ||
		    !rj_add_str(o, "limit", tcp_limit_name(l.v.limit)) ||
		    !rj_add_num(o, "agree", l.agree) || !rj_add_num(o, "judged", l.n) ||
		    !rj_add_str(o, "evidence", l.v.evidence) || !rj_add_str(o, "fix", l.v.fix))
			return false;
	}
	for (size_t i = 0; i < sum->nknee; i++) {
		const struct results_knee_point *k = &sum->knee[i];

		if (!results_ndr_limit(run, sum, k->path, k->len, &v))
			continue;
		o = cJSON_CreateObject();
		if (!rj_add_array_item(arr, o) ||
		    !rj_add_str(o, "path", run->paths[k->path].name) ||
		    !rj_add_str(o, "figure", "ndr") || !rj_add_num(o, "len", k->len) ||
		    !rj_add_str(o, "limit", ndr_limit_name(v.limit)) ||
		    !rj_add_num(o, "fail_bps", (double)v.fail_bps) ||
		    !rj_add_str(o, "place", v.place >= 0 ? loss_place_key(v.place) : "") ||
		    !rj_add_str(o, "evidence", v.evidence) || !rj_add_str(o, "fix", v.fix))
			return false;
	}
	return true;
}

/* "breakdown": each overlay's cost by part (breakdown.h). */
static bool breakdown_json(cJSON *arr, const struct results_run *run, const struct breakdown *b)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct breakdown_row *r = &b->rows[i];
		cJSON *o = cJSON_CreateObject(), *parts;

		if (!rj_add_array_item(arr, o) ||
		    !rj_add_str(o, "path", run->paths[r->path].name) ||
		    !rj_add_str(o, "base", run->paths[r->base_path].name) ||
		    !rj_add_str(o, "figure", r->kind == BREAKDOWN_TCP ? "tcp" : "ndr") ||
		    !rj_add_num(o, r->kind == BREAKDOWN_TCP ? "streams" : "len", r->key) ||
		    !rj_add_num(o, "ratio", r->ratio) || !cJSON_AddBoolToObject(o, "ok", r->ok) ||
		    !rj_add_str(o, "limit", r->limit) || !rj_add_str(o, "note", r->note) ||
		    !(parts = array_in(o, "parts")))
			return false;
		for (unsigned j = 0; j < r->nparts; j++) {
			const struct breakdown_part *p = &r->part[j];
			cJSON *q = cJSON_CreateObject();

			if (!rj_add_array_item(parts, q) || !rj_add_str(q, "name", p->name) ||
			    !(p->sub ? cJSON_AddNullToObject(q, "factor") != NULL
				     : rj_add_num(q, "factor", p->factor)) ||
			    !rj_add_num(q, "points", p->points) ||
			    !cJSON_AddBoolToObject(q, "sub", p->sub) ||
			    !rj_add_str(q, "detail", p->detail))
				return false;
		}
	}
	return true;
}

/* The derived sections: written for readers, recomputed when read. */
bool results_json_add_derived(cJSON *root, const struct results_run *run)
{
	struct results_summary sum;
	struct overhead ov = { 0 };
	struct breakdown bd = { 0 };
	cJSON *s = cJSON_CreateObject(), *tcp, *knee, *delay, *oh, *loads, *lim, *bda;
	bool ok;

	if (!rj_add_child(root, "summary", s) || results_aggregate(run, &sum))
		return false;
	ok = overhead_compute(run, &sum, &ov) == 0 && breakdown_of(run, &sum, &bd) == 0;
	tcp = ok ? array_in(s, "tcp") : NULL;
	knee = tcp ? array_in(s, "udp_knee") : NULL;
	delay = knee ? array_in(s, "delay") : NULL;
	lim = delay ? array_in(s, "limits") : NULL;
	oh = lim ? array_in(root, "overhead") : NULL;
	bda = oh ? array_in(root, "breakdown") : NULL;
	loads = bda ? array_in(root, "delay_loads") : NULL;
	ok = loads && delay_loads(loads, run) && summary_tcp(tcp, run, &sum) &&
	     summary_knee(knee, run, &sum) && summary_delay(delay, run, &sum) &&
	     rj_add_num(s, "owd_error_ms", sum.owd_error_ms) && overhead_json(oh, run, &ov, &sum) &&
	     limits_json(lim, run, &sum) && breakdown_json(bda, run, &bd);
	breakdown_free(&bd);
	overhead_free(&ov);
	results_summary_free(&sum);
	return ok;
}
