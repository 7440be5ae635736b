// SPDX-License-Identifier: MIT
/*
 * run.json: the run model as JSON (cJSON) and back. Plain numeric fields go
 * through tables of (name, offset, type), so that writer and reader cannot
 * drift apart. The "summary" and "overhead" sections are written for readers
 * of the file; reading recomputes them from the trials instead of trusting
 * them. Schema: results/README.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>

#include "log.h"
#include "breakdown.h"
#include "loss_place.h"
#include "overhead.h"
#include "run_limit.h"
#include "results.h"
#include "results_fields.h"

static cJSON *put_fields(cJSON *obj, const void *base, const struct field *f, size_t n)
{
	for (size_t i = 0; i < n && obj; i++) {
		const char *p = (const char *)base + f[i].off;
		cJSON *v = NULL;

		switch (f[i].type) {
		case F_U64:
			v = cJSON_CreateNumber((double)*(const uint64_t *)p);
			break;
		case F_U32:
			v = cJSON_CreateNumber(*(const uint32_t *)p);
			break;
		case F_UINT:
			v = cJSON_CreateNumber(*(const unsigned *)p);
			break;
		case F_DBL: {
			double d = *(const double *)p;

			v = cJSON_CreateNumber(isfinite(d) ? d : 0);
			break;
		}
		case F_BOOL:
			v = cJSON_CreateBool(*(const bool *)p);
			break;
		}
		if (!v || !cJSON_AddItemToObject(obj, f[i].name, v)) {
			cJSON_Delete(v);
			return NULL;
		}
	}
	return obj;
}

static cJSON *obj_of(const void *base, const struct field *f, size_t n)
{
	cJSON *o = cJSON_CreateObject();

	if (o && !put_fields(o, base, f, n)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* Adds child under name; on failure deletes child and returns false. */
static bool add_child(cJSON *parent, const char *name, cJSON *child)
{
	if (!child)
		return false;
	if (!cJSON_AddItemToObject(parent, name, child)) {
		cJSON_Delete(child);
		return false;
	}
	return true;
}

static bool add_str(cJSON *o, const char *name, const char *s)
{
	return cJSON_AddStringToObject(o, name, s ? s : "") != NULL;
}

static bool add_num(cJSON *o, const char *name, double v)
{
	return cJSON_AddNumberToObject(o, name, isfinite(v) ? v : 0) != NULL;
}

/* Where datagrams were lost: KEY, the places (loss_fields), each a count of
 * datagrams summing to lost; and beside it DETAIL_KEY, only when the run
 * knew any of it, what the fixes name (loss_place.h): the emulated link,
 * the sender's qdisc, interface and its queue, the test socket's buffer and
 * the one that would have held the overflow, and "other_socket", the
 * receiving host's other socket that dropped most; so that `report DIR`
 * names them as the run did. */
static bool add_loss(cJSON *o, const char *key, const char *detail_key, const struct loss_attrib *l)
{
	cJSON *d, *s;

	if (!add_child(o, key, obj_of(l, loss_fields, NF(loss_fields))))
		return false;
	if (!l->network_where[0] && !l->qdisc_kind[0] && !l->qdisc_if[0] && !l->sender_txqlen &&
	    !l->rcvbuf_bytes && !l->rcvbuf_need_bytes && !l->other_port)
		return true;
	d = obj_of(l, loss_detail_fields, NF(loss_detail_fields));
	if (!add_child(o, detail_key, d))
		return false;
	if ((l->network_where[0] && !add_str(d, "network_where", l->network_where)) ||
	    (l->qdisc_kind[0] && !add_str(d, "qdisc_kind", l->qdisc_kind)) ||
	    (l->qdisc_if[0] && !add_str(d, "qdisc_if", l->qdisc_if)))
		return false;
	if (!l->other_port)
		return true;
	s = obj_of(l, other_socket_fields, NF(other_socket_fields));
	return add_child(d, "other_socket", s) && add_str(s, "owner", l->other_owner) &&
	       add_num(s, "port", l->other_port) && add_num(s, "family", l->other_family);
}

/* {"client": "other", "server": "fifo:1"}; an end that did not say: null */
static cJSON *sched_json(const struct results_trial *t)
{
	const struct load_sched *end[2] = { &t->sched_client, &t->sched_server };
	const char *key[2] = { "client", "server" };
	cJSON *o = cJSON_CreateObject();
	char buf[16];

	for (int i = 0; o && i < 2; i++) {
		cJSON *v = end[i]->policy == LOAD_SCHED_UNKNOWN
				   ? cJSON_CreateNull()
				   : cJSON_CreateString(load_sched_name(end[i], buf, sizeof(buf)));

		if (!add_child(o, key[i], v)) {
			cJSON_Delete(o);
			return NULL;
		}
	}
	return o;
}

/* The overlay's outer datagrams at every layer, measured by its daemon,
 * and what one test datagram cost on the line outside against inside. */
static cJSON *outer_json(const struct results_layers *l)
{
	cJSON *o = cJSON_CreateObject();

	if (!o || !add_num(o, "family", l->outer_family == AF_INET6 ? 6 : 4) ||
	    !add_num(o, "datagrams", (double)l->outer_datagrams) ||
	    !add_num(o, "line_bytes_per_datagram", l->outer_line_per_datagram) ||
	    !add_num(o, "inner_line_bytes_per_datagram", l->inner_line_per_datagram)) {
		cJSON_Delete(o);
		return NULL;
	}
	for (unsigned i = 0; i < LAYER_COUNT; i++) {
		cJSON *e = cJSON_CreateObject();

		if (!add_child(o, layer_name((enum layer)i), e) ||
		    !add_num(e, "bytes", (double)l->outer_bytes[i]) ||
		    !add_num(e, "bps", l->outer_bps[i])) {
			cJSON_Delete(o);
			return NULL;
		}
	}
	return o;
}

/* The trial's datagrams at every layer (derived, not read back: the
 * reader recomputes them from the counts); null when they crossed in
 * fragments. */
static cJSON *layers_json(const struct results_run *run, const struct results_trial *t)
{
	struct results_layers l;
	cJSON *o;

	if (!results_trial_layers(run, t, &l))
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (!o || !add_num(o, "family", l.family == AF_INET6 ? 6 : 4) ||
	    !add_num(o, "sent_pps", l.sent_pps) || !add_num(o, "received_pps", l.received_pps)) {
		cJSON_Delete(o);
		return NULL;
	}
	for (unsigned i = 0; i < LAYER_COUNT; i++) {
		cJSON *e = cJSON_CreateObject();

		if (!add_child(o, layer_name((enum layer)i), e) ||
		    !add_num(e, "datagram_bytes", (double)l.bytes[i]) ||
		    !add_num(e, "sent_bytes", (double)l.sent_bytes[i]) ||
		    !add_num(e, "received_bytes", (double)l.received_bytes[i]) ||
		    !add_num(e, "sent_bps", l.sent_bps[i]) ||
		    !add_num(e, "received_bps", l.received_bps[i])) {
			cJSON_Delete(o);
			return NULL;
		}
	}
	if (l.outer && !add_child(o, "outer", outer_json(&l))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* {"scope": "machine", "cpu": [0.02, 0.97]}: the lab's hosts share the
 * machine's CPUs, so one set stands for them all */
static cJSON *softirq_json(const struct results_trial *t)
{
	cJSON *o = cJSON_CreateObject(), *a = cJSON_CreateArray();

	if (!o || !a || !add_str(o, "scope", "machine") || !add_child(o, "cpu", a)) {
		cJSON_Delete(o);
		if (!o)
			cJSON_Delete(a);
		return NULL;
	}
	for (unsigned i = 0; i < t->softirq_ncpu && i < CPUUSE_MAX_CPUS; i++)
		if (!cJSON_AddItemToArray(a, cJSON_CreateNumber(t->softirq[i]))) {
			cJSON_Delete(o);
			return NULL;
		}
	return o;
}

static cJSON *trial_json(const struct results_run *run, const struct results_trial *t)
{
	cJSON *o = obj_of(t, trial_fields, NF(trial_fields)), *u;
	bool ok = o && add_str(o, "kind", results_trial_kind_name(t->kind)) &&
		  add_num(o, "status", t->status) && add_str(o, "error", t->error) &&
		  add_str(o, "overlay_thread", t->overlay_thread) &&
		  add_str(o, "overlay_process", t->overlay_process) &&
		  add_str(o, "overlay_quota_process", t->overlay_quota_process) &&
		  add_str(o, "overlay_quota_thread", t->overlay_quota_thread) &&
		  (!t->softirq_ncpu || add_child(o, "softirq", softirq_json(t)));

	if (ok && t->kind == RESULTS_TRIAL_DELAY)
		ok = add_num(o, "load_pct", t->load_pct);

	if (ok && t->kind != RESULTS_TRIAL_TCP) {
		u = obj_of(&t->udp, udp_fields, NF(udp_fields));
		ok = add_child(o, "udp", u) &&
		     add_child(u, "owd", obj_of(&t->udp.owd, owd_fields, NF(owd_fields))) &&
		     add_child(u, "rx_wait", obj_of(&t->udp.rx_wait, owd_fields, NF(owd_fields))) &&
		     add_loss(u, "loss_at", "loss_detail", &t->udp.loss_at) &&
		     add_child(u, "layers", layers_json(run, t));
	} else if (ok) {
		u = cJSON_CreateObject();
		ok = add_child(o, "tcp", u) && add_num(u, "bytes", (double)t->tcp.bytes) &&
		     add_num(u, "goodput_bps", (double)t->tcp.goodput_bps) &&
		     add_child(u, "sender",
			       obj_of(&t->tcp.sender, tcpinfo_fields, NF(tcpinfo_fields))) &&
		     add_child(u, "receiver",
			       obj_of(&t->tcp.receiver, tcpinfo_fields, NF(tcpinfo_fields))) &&
		     (!t->tcp.sender_limits.known ||
		      add_child(u, "sender_limits",
				obj_of(&t->tcp.sender_limits, tcplimits_fields,
				       NF(tcplimits_fields)))) &&
		     (!t->tcp.receiver_limits.known ||
		      add_child(u, "receiver_limits",
				obj_of(&t->tcp.receiver_limits, tcplimits_fields,
				       NF(tcplimits_fields))));
	}
	ok = ok && add_child(o, "cpu_sender", obj_of(&t->cpu_sender, cpu_fields, NF(cpu_fields))) &&
	     add_child(o, "cpu_receiver", obj_of(&t->cpu_receiver, cpu_fields, NF(cpu_fields))) &&
	     add_child(o, "sched", sched_json(t));
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *stat_json(const struct results_stat *s)
{
	cJSON *o = cJSON_CreateObject();

	if (o && !(add_num(o, "n", s->n) && add_num(o, "median", s->median) &&
		   add_num(o, "min", s->min) && add_num(o, "max", s->max))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static bool add_stat(cJSON *o, const char *name, const struct results_stat *s)
{
	return add_child(o, name, stat_json(s));
}

static bool add_array_item(cJSON *arr, cJSON *item)
{
	if (!item)
		return false;
	if (!cJSON_AddItemToArray(arr, item)) {
		cJSON_Delete(item);
		return false;
	}
	return true;
}

static bool summary_tcp(cJSON *arr, const struct results_run *run,
			const struct results_summary *sum)
{
	for (size_t i = 0; i < sum->ntcp; i++) {
		const struct results_tcp_point *p = &sum->tcp[i];
		cJSON *o = cJSON_CreateObject();

		if (!add_array_item(arr, o))
			return false;
		if (!(add_str(o, "path", run->paths[p->path].name) &&
		      add_num(o, "streams", p->streams) &&
		      add_stat(o, "goodput_bps", &p->goodput_bps) &&
		      add_stat(o, "cpu_s_per_gbit", &p->cpu_s_per_gbit) &&
		      add_stat(o, "host_cpu_s_per_gbit", &p->host_cpu_s_per_gbit) &&
		      add_stat(o, "retransmits", &p->retransmits) &&
		      add_stat(o, "rtt_us", &p->rtt_us) && add_num(o, "snd_mss", p->snd_mss)))
			return false;
	}
	return true;
}

/* "exact", "lower_bound", "upper_bound" (below the search's minimum: the
 * rate it lost at, in ndr_upper / pdr_upper) or "none". */
static const char *knee_bound_name(const struct results_knee_point *p, bool pdr)
{
	const struct results_stat *s;
	enum overhead_bound b;

	if (!overhead_knee_figure(p, pdr, &s, &b))
		return "none";
	return overhead_figure_bound_name(b);
}

/* One search's two goals in the terms of RFC 9971 (4.6, 4.8, 4.9). */
static cJSON *knee_goals(const struct results_knee *k)
{
	cJSON *arr = cJSON_CreateArray();

	for (int pdr = 0; arr && pdr < 2; pdr++) {
		cJSON *g = cJSON_CreateObject();
		bool lower = pdr ? k->pdr_found : k->found;
		uint64_t lo = pdr ? k->pdr_lower_bps : k->ndr_lower_bps;
		uint64_t up = pdr ? k->pdr_upper_bps : k->ndr_upper_bps;

		if (!add_array_item(arr, g) || !add_str(g, "name", pdr ? "PDR" : "NDR") ||
		    !add_num(g, "loss_ratio", pdr ? k->pdr_goal_pct / 100 : 0) ||
		    !add_num(g, "exceed_ratio", k->exceed_ratio) ||
		    !add_num(g, "final_trial_duration_s", k->final_s) ||
		    !add_num(g, "duration_sum_s", k->duration_sum_s) ||
		    !add_num(g, "relative_width", k->width_goal) ||
		    !add_str(g, "outcome", pdr ? k->pdr_outcome : k->ndr_outcome) ||
		    (lower && !add_num(g, "relevant_lower_bound_bps", (double)lo)) ||
		    (up && !add_num(g, "relevant_upper_bound_bps", (double)up)) ||
		    !add_num(g, "conditional_throughput_bps",
			     (double)(pdr ? k->pdr_ct_bps : k->ndr_ct_bps))) {
			cJSON_Delete(arr);
			return NULL;
		}
	}
	return arr;
}

/* Each repetition's knee under the common slope (knee_fit_reps()), and
 * the test of whether they differ by more than their trials' luck. */
static bool add_fit_reps(cJSON *j, const struct results_knee_point *p)
{
	const struct knee_fit_reps *fr = &p->ndr_fit_reps;
	cJSON *arr = cJSON_CreateArray(), *t;

	if (!add_child(j, "repetitions", arr))
		return false;
	for (unsigned i = 0; i < fr->n; i++) {
		cJSON *r = cJSON_CreateObject();

		if (!add_array_item(arr, r) || !add_num(r, "rep", fr->rep[i].rep) ||
		    !add_num(r, "trials", fr->rep[i].ntrials) ||
		    !add_num(r, "lossy_trials", fr->rep[i].nbad) ||
		    !(fr->rep[i].load_bps > 0 ? add_num(r, "load_bps", fr->rep[i].load_bps)
					      : add_child(r, "load_bps", cJSON_CreateNull())))
			return false;
	}
	t = cJSON_CreateObject();
	return add_child(j, "same_knee_test", t) && add_num(t, "statistic", fr->lr) &&
	       add_num(t, "df", fr->df) && add_num(t, "p", fr->p) &&
	       cJSON_AddBoolToObject(t, "differ", fr->df && fr->p < KNEE_FIT_DIFFER_P) &&
	       add_num(j, "slope", fr->slope);
}

/* Where the soft knee lies, fitted from every trial (knee_fit.h); null
 * when the trials give no fit (a sharp knee: the bounds are the answer). */
static bool add_knee_fit(cJSON *o, const struct results_knee_point *p)
{
	const struct knee_fit *f = &p->ndr_fit;
	cJSON *j;

	if (!(f->load_bps > 0))
		return add_child(o, "ndr_fit", cJSON_CreateNull());
	j = cJSON_CreateObject();
	if (!add_child(o, "ndr_fit", j))
		return false;
	return add_num(j, "load_bps", f->load_bps) && add_num(j, "low_bps", f->low_bps) &&
	       add_num(j, "high_bps", f->high_bps) &&
	       add_num(j, "chance_10pct_bps", f->band_low_bps) &&
	       add_num(j, "chance_90pct_bps", f->band_high_bps) &&
	       add_num(j, "trials", f->ntrials) && add_num(j, "lossy_trials", f->nbad) &&
	       add_stat(j, "repetitions_bps", &p->ndr_fit_rep_bps) &&
	       add_num(j, "spread", p->ndr_fit_spread) && add_fit_reps(j, p);
}

static bool summary_knee(cJSON *arr, const struct results_run *run,
			 const struct results_summary *sum)
{
	for (size_t i = 0; i < sum->nknee; i++) {
		const struct results_knee_point *p = &sum->knee[i];
		cJSON *o = cJSON_CreateObject();

		if (!add_array_item(arr, o))
			return false;
		if (!(add_str(o, "path", run->paths[p->path].name) && add_num(o, "len", p->len) &&
		      add_str(o, "ndr_outcome", p->ndr_outcome) &&
		      add_str(o, "pdr_outcome", p->pdr_outcome) &&
		      add_stat(o, "ndr_bps", &p->ndr_bps) && add_stat(o, "pdr_bps", &p->pdr_bps) &&
		      add_str(o, "ndr_bound", knee_bound_name(p, false)) &&
		      add_str(o, "pdr_bound", knee_bound_name(p, true)) &&
		      add_stat(o, "ndr_target_bps", &p->ndr_target_bps) &&
		      add_stat(o, "pdr_target_bps", &p->pdr_target_bps) &&
		      add_num(o, "ndr_upper_bps", p->ndr_upper_bps.median) &&
		      add_num(o, "pdr_upper_bps", p->pdr_upper_bps.median) &&
		      add_stat(o, "ndr_upper", &p->ndr_upper_bps) &&
		      add_stat(o, "pdr_upper", &p->pdr_upper_bps) &&
		      add_num(o, "ndr_pps", p->len ? p->ndr_bps.median / (8.0 * p->len) : 0) &&
		      add_num(o, "trials", p->trials) && add_num(o, "time_s", p->time_s) &&
		      add_num(o, "max_rx_bps", (double)p->max_rx_bps) &&
		      add_num(o, "loss_at_bps", (double)p->loss_at_bps) &&
		      add_loss(o, "loss_at", "loss_detail", &p->loss_at) &&
		      add_num(o, "above_trials", p->above_trials) &&
		      add_num(o, "above_lossy_trials", p->above_lossy) &&
		      add_num(o, "above_sent", (double)p->above_sent) &&
		      add_num(o, "above_lost", (double)p->above_lost) &&
		      add_num(o, "above_worst_loss_ratio", p->above_worst_ratio) &&
		      add_num(o, "above_worst_bps", (double)p->above_worst_bps) &&
		      add_num(o, "above_queued_ratio", p->above_queued_ratio) &&
		      add_num(o, "above_queued_bps", (double)p->above_queued_bps) &&
		      add_stat(o, "ndr_conditional_throughput_bps", &p->ndr_ct_bps) &&
		      add_stat(o, "pdr_conditional_throughput_bps", &p->pdr_ct_bps) &&
		      add_num(o, "ndr_spread", p->ndr_spread) &&
		      add_num(o, "disagree_trials", p->disagree_trials) &&
		      add_num(o, "band_trials", p->band_trials) &&
		      add_num(o, "band_lossy_trials", p->band_lossy) &&
		      add_loss(o, "disagree_loss_at", "disagree_loss_detail", &p->disagree_loss) &&
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

		if (!add_array_item(arr, o))
			return false;
		if (!(add_str(o, "path", run->paths[p->path].name) && add_num(o, "len", p->len) &&
		      add_num(o, "load_bps", (double)p->load_bps) &&
		      add_num(o, "load_pct", p->load_pct) &&
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

		if (!add_array_item(arr, o))
			return false;
		if (!(add_str(o, "path", run->paths[r->path].name) &&
		      add_str(o, "versus", run->paths[r->base_path].name) &&
		      add_str(o, "metric", overhead_metric_name(r->metric)) &&
		      add_num(o, overhead_metric_key(r->metric), r->key) &&
		      add_num(o, "underlay", r->base) && add_num(o, "overlay", r->value) &&
		      (isnan(r->ratio) ? cJSON_AddNullToObject(o, "ratio") != NULL
				       : add_num(o, "ratio", r->ratio)) &&
		      add_num(o, "delta", r->delta) &&
		      (isnan(cost) ? cJSON_AddNullToObject(o, "cost_pct") != NULL
				   : add_num(o, "cost_pct", cost))))
			return false;
		if (base_outcome(sum, r) && !add_str(o, "underlay_outcome", base_outcome(sum, r)))
			return false;
		if ((r->metric == OVERHEAD_OWD_P50 || r->metric == OVERHEAD_OWD_P99) &&
		    !(add_num(o, "load_bps", (double)r->load_bps) &&
		      add_num(o, "load_pct", r->load_pct)))
			return false;
		if (!add_str(o, "ratio_bound", overhead_bound_name(overhead_ratio_bound(r))) ||
		    !add_str(o, "cost_bound", overhead_bound_name(overhead_cost_bound(r))))
			return false;
	}
	return true;
}

static cJSON *array_in(cJSON *parent, const char *name)
{
	cJSON *a = cJSON_CreateArray();

	return add_child(parent, name, a) ? a : NULL;
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
		if (!add_array_item(arr, o) || !add_num(o, "len", t->len) ||
		    !add_num(o, "load_pct", t->load_pct) ||
		    !add_num(o, "load_bps", (double)t->target_bps))
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
		if (!add_array_item(arr, o) || !add_str(o, "path", run->paths[p->path].name) ||
		    !add_str(o, "figure", "tcp") || !add_num(o, "streams", p->streams) ||
		    !add_str(o, "limit", tcp_limit_name(l.v.limit)) ||
		    !add_num(o, "agree", l.agree) || !add_num(o, "judged", l.n) ||
		    !add_str(o, "evidence", l.v.evidence) || !add_str(o, "fix", l.v.fix))
			return false;
	}
	for (size_t i = 0; i < sum->nknee; i++) {
		const struct results_knee_point *k = &sum->knee[i];

		if (!results_ndr_limit(run, sum, k->path, k->len, &v))
			continue;
		o = cJSON_CreateObject();
		if (!add_array_item(arr, o) || !add_str(o, "path", run->paths[k->path].name) ||
		    !add_str(o, "figure", "ndr") || !add_num(o, "len", k->len) ||
		    !add_str(o, "limit", ndr_limit_name(v.limit)) ||
		    !add_num(o, "fail_bps", (double)v.fail_bps) ||
		    !add_str(o, "place", v.place >= 0 ? loss_place_key(v.place) : "") ||
		    !add_str(o, "evidence", v.evidence) || !add_str(o, "fix", v.fix))
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

		if (!add_array_item(arr, o) || !add_str(o, "path", run->paths[r->path].name) ||
		    !add_str(o, "base", run->paths[r->base_path].name) ||
		    !add_str(o, "figure", r->kind == BREAKDOWN_TCP ? "tcp" : "ndr") ||
		    !add_num(o, r->kind == BREAKDOWN_TCP ? "streams" : "len", r->key) ||
		    !add_num(o, "ratio", r->ratio) || !cJSON_AddBoolToObject(o, "ok", r->ok) ||
		    !add_str(o, "limit", r->limit) || !add_str(o, "note", r->note) ||
		    !(parts = array_in(o, "parts")))
			return false;
		for (unsigned j = 0; j < r->nparts; j++) {
			const struct breakdown_part *p = &r->part[j];
			cJSON *q = cJSON_CreateObject();

			if (!add_array_item(parts, q) || !add_str(q, "name", p->name) ||
			    !(p->sub ? cJSON_AddNullToObject(q, "factor") != NULL
				     : add_num(q, "factor", p->factor)) ||
			    !add_num(q, "points", p->points) ||
			    !cJSON_AddBoolToObject(q, "sub", p->sub) ||
			    !add_str(q, "detail", p->detail))
				return false;
		}
	}
	return true;
}

/* The derived sections: written for readers, recomputed when read. */
static bool add_derived(cJSON *root, const struct results_run *run)
{
	struct results_summary sum;
	struct overhead ov = { 0 };
	struct breakdown bd = { 0 };
	cJSON *s = cJSON_CreateObject(), *tcp, *knee, *delay, *oh, *loads, *lim, *bda;
	bool ok;

	if (!add_child(root, "summary", s) || results_aggregate(run, &sum))
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
	     add_num(s, "owd_error_ms", sum.owd_error_ms) && overhead_json(oh, run, &ov, &sum) &&
	     limits_json(lim, run, &sum) && breakdown_json(bda, run, &bd);
	breakdown_free(&bd);
	overhead_free(&ov);
	results_summary_free(&sum);
	return ok;
}

static bool add_head(cJSON *root, const struct results_run *run)
{
	cJSON *sc = cJSON_CreateObject(), *host = cJSON_CreateObject();

	if (!add_child(root, "scenario", sc)) {
		cJSON_Delete(host);
		return false;
	}
	return add_str(root, "schema", RESULTS_SCHEMA_NAME) &&
	       add_num(root, "schema_version", RESULTS_SCHEMA) &&
	       add_str(root, "tool", "ovlperf") && add_str(root, "version", run->version) &&
	       cJSON_AddBoolToObject(root, "complete", run->complete) &&
	       add_str(root, "stop_reason", run->stop_reason) &&
	       add_str(root, "started_utc", run->started_utc) &&
	       add_num(root, "duration_s", run->duration_s) &&
	       add_num(root, "pdr_goal_pct", run->pdr_goal_pct) &&
	       add_num(root, "delay_load_bps", (double)run->delay_load_bps) &&
	       add_num(root, "udp_fit_len", run->udp_fit_len) &&
	       add_str(root, "size_layer", layer_name(run->size_layer)) &&
	       add_str(root, "sweep_rate_layer", layer_name(run->sweep_rate_layer)) &&
	       add_str(root, "knee_rate_layer", layer_name(run->knee_rate_layer)) &&
	       add_num(root, "line_rate_bps", (double)run->line_rate_bps) &&
	       add_str(sc, "name", run->scenario_name) && add_str(sc, "file", run->scenario_file) &&
	       add_str(sc, "text", run->scenario_text) && add_child(root, "host", host) &&
	       add_str(host, "kernel", run->host.kernel) && add_str(host, "cpu", run->host.cpu) &&
	       add_num(host, "ncpu", run->host.ncpu) &&
	       add_str(host, "hostname", run->host.hostname) &&
	       (!run->host.client_cpus[0] || add_str(host, "client_cpus", run->host.client_cpus)) &&
	       (!run->host.server_cpus[0] || add_str(host, "server_cpus", run->host.server_cpus));
}

/* "links": the lab's links, their conditions and how they were made. */
static bool add_links(cJSON *root, const struct results_run *run)
{
	cJSON *links = cJSON_CreateArray();

	if (!add_child(root, "links", links))
		return false;
	for (unsigned i = 0; i < run->nlinks && i < RESULTS_MAX_LINKS; i++) {
		const struct results_link *l = &run->links[i];
		cJSON *o = obj_of(l, link_fields, NF(link_fields));

		if (!add_array_item(links, o) || !add_str(o, "means", l->means) ||
		    !add_str(o, "conditions", l->conditions) ||
		    !add_child(o, "a_to_b",
			       obj_of(&l->dir[0], link_dir_fields, NF(link_dir_fields))) ||
		    !add_child(o, "b_to_a",
			       obj_of(&l->dir[1], link_dir_fields, NF(link_dir_fields))))
			return false;
	}
	return true;
}

static bool add_lists(cJSON *root, const struct results_run *run)
{
	cJSON *paths = cJSON_CreateArray(), *trials = NULL, *knees = NULL, *mtu = NULL;

	if (!add_child(root, "paths", paths) || !add_links(root, run))
		return false;
	for (unsigned i = 0; i < run->npaths; i++) {
		const struct results_path *p = &run->paths[i];
		cJSON *o = cJSON_CreateObject();

		if (!add_array_item(paths, o) || !add_str(o, "name", p->name) ||
		    !add_str(o, "kind", results_path_kind_name(p->kind)) ||
		    !add_str(o, "addr", p->addr) || !add_num(o, "mtu", p->mtu) ||
		    !add_num(o, "pmtu", p->pmtu) || !add_str(o, "pmtu_source", p->pmtu_source) ||
		    !add_num(o, "family", results_path_family(p) == AF_INET6 ? 6 : 4))
			return false;
	}
	trials = cJSON_CreateArray();
	if (!add_child(root, "trials", trials))
		return false;
	for (size_t i = 0; i < run->ntrials; i++)
		if (!add_array_item(trials, trial_json(run, &run->trials[i])))
			return false;
	knees = cJSON_CreateArray();
	if (!add_child(root, "knees", knees))
		return false;
	for (size_t i = 0; i < run->nknees; i++) {
		const struct results_knee *k = &run->knees[i];
		cJSON *o = obj_of(k, knee_fields, NF(knee_fields));

		if (!add_array_item(knees, o) || !add_str(o, "ndr_outcome", k->ndr_outcome) ||
		    !add_str(o, "pdr_outcome", k->pdr_outcome) ||
		    (k->stopped[0] && !add_str(o, "stopped", k->stopped)) ||
		    (k->cut_by[0] && !add_str(o, "cut_by", k->cut_by)) ||
		    !add_loss(o, "loss_at", "loss_detail", &k->loss_at) ||
		    !add_child(o, "goals", knee_goals(k)))
			return false;
	}
	mtu = cJSON_CreateArray();
	if (!add_child(root, "mtu", mtu))
		return false;
	for (size_t i = 0; i < run->nmtu; i++) {
		const struct results_mtu_check *m = &run->mtu[i];
		cJSON *o = cJSON_CreateObject();

		if (!add_array_item(mtu, o) || !add_num(o, "path", m->path) ||
		    !add_str(o, "check", m->check) ||
		    !add_str(o, "verdict", results_verdict_name(m->verdict)) ||
		    !add_num(o, "value", m->value) || !add_str(o, "reason", m->reason) ||
		    !add_str(o, "fix", m->fix))
			return false;
	}
	return true;
}

char *results_to_json(const struct results_run *run)
{
	cJSON *root = cJSON_CreateObject();
	char *text = NULL;

	if (root && add_head(root, run) && add_lists(root, run) && add_derived(root, run))
		text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}

int results_write_json(const struct results_run *run, const char *path)
{
	char tmp[4096];
	char *text = results_to_json(run);
	size_t len;
	FILE *f;
	int err = 0;

	if (!text)
		return -ENOMEM;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		free(text);
		return -ENAMETOOLONG;
	}
	f = fopen(tmp, "w");
	if (!f) {
		err = -errno;
		free(text);
		return err;
	}
	len = strlen(text);
	errno = 0;
	if (fwrite(text, 1, len, f) != len || fputc('\n', f) == EOF)
		err = -(errno ? errno : EIO);
	if (fflush(f) || fsync(fileno(f)))
		err = err ? err : -errno;
	if (fclose(f) && !err)
		err = -(errno ? errno : EIO);
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	free(text);
	return err;
}
