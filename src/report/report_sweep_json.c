// SPDX-License-Identifier: MIT
/*
 * JSON printer of a sweep: the trials as points and, for a knee search, the
 * NDR/PDR bounds. Rates in bit/s, durations in seconds, delays in
 * microseconds; field names are part of the JSON contract (docs/json.md).
 */
#include <stdio.h>
#include <sys/socket.h>

#include <cjson/cJSON.h>

#include "json_out.h"
#include "report_layers.h"
#include "sweep.h"

static void num(cJSON *o, const char *k, double v)
{
	cJSON_AddNumberToObject(o, k, v);
}

static cJSON *loss_at_json(const struct loss_attrib *a)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	num(o, "network", (double)a->network);
	num(o, "sender_sndbuf", (double)a->sender_sndbuf);
	num(o, "sender_link", (double)a->sender_link);
	num(o, "receiver_rcvbuf", (double)a->receiver_rcvbuf);
	num(o, "receiver_socket", (double)a->receiver_socket);
	num(o, "backlog", (double)a->backlog);
	num(o, "receiver_inerrors", (double)a->receiver_inerrors);
	num(o, "receiver_link", (double)a->receiver_link);
	num(o, "sender_qdisc", (double)a->sender_qdisc);
	num(o, "tunnel", (double)a->tunnel);
	return o;
}

/* The point's datagrams at every layer (report_layers.h); null when the
 * family is unknown. */
static cJSON *point_layers(const struct sweep_result *res, const struct sweep_point *p)
{
	struct report_layers l;
	cJSON *o;

	if (res->family != AF_INET && res->family != AF_INET6)
		return cJSON_CreateNull();
	report_layers_of(res->family, res->len, p->sent, p->received, (double)p->sent_pps,
			 (double)p->received_pps, &l);
	o = report_layers_json(&l);
	if (o)
		cJSON_AddItemToObject(
			o, "outer",
			report_outer_json(&p->outer, l.bytes[LAYER_LINE], p->duration_s));
	return o;
}

/* {valid, min, p50, p99, max} in microseconds, added to o as name */
static cJSON *delay_json(cJSON *o, const char *name, const struct owd_summary *w)
{
	cJSON *d = cJSON_AddObjectToObject(o, name);

	if (d) {
		cJSON_AddBoolToObject(d, "valid", w->valid);
		num(d, "min", (double)w->min_ns / 1e3);
		num(d, "p50", (double)w->p50_ns / 1e3);
		num(d, "p99", (double)w->p99_ns / 1e3);
		num(d, "max", (double)w->max_ns / 1e3);
	}
	return d;
}

static cJSON *point_json(const struct sweep_result *res, const struct sweep_point *p, bool knee)
{
	cJSON *o = cJSON_CreateObject(), *owd;

	if (!o)
		return NULL;
	num(o, "target_bps", (double)p->target_bps);
	num(o, "duration_s", (double)p->duration_ns / 1e9);
	num(o, "measured_s", p->duration_s);
	num(o, "start_s", (double)p->start_ns / 1e9);
	num(o, "achieved_bps", (double)p->achieved_bps);
	num(o, "received_bps", (double)p->received_bps);
	num(o, "sent_pps", (double)p->sent_pps);
	num(o, "received_pps", (double)p->received_pps);
	num(o, "sent", (double)p->sent);
	num(o, "received", (double)p->received);
	num(o, "lost", (double)p->lost);
	num(o, "delivered_pct", p->delivered_pct);
	num(o, "loss_ratio", p->loss_ratio);
	num(o, "queue_growth_ms", p->queue_growth_ms);
	cJSON_AddBoolToObject(o, "generator_limited", p->generator_limited);
	cJSON_AddItemToObject(o, "layers", point_layers(res, p));
	cJSON_AddItemToObject(o, "loss_at", loss_at_json(&p->loss_at));
	owd = delay_json(o, "owd_us", &p->owd);
	if (owd)
		num(owd, "error", (double)p->owd.error_ns / 1e3);
	/* the receiver's share of that delay, on its one clock */
	delay_json(o, "rx_wait_us", &p->rx_wait);
	num(o, "jitter_ms", p->jitter_ms);
	num(o, "cpu_sender_s", p->cpu_sender.user_s + p->cpu_sender.sys_s);
	num(o, "cpu_receiver_s", p->cpu_receiver.user_s + p->cpu_receiver.sys_s);
	cJSON_AddItemToObject(o, "sched", json_out_sched(&p->sched_client, &p->sched_server));
	if (knee) {
		cJSON_AddStringToObject(o, "phase", knee_phase_name(p->phase));
		cJSON_AddStringToObject(o, "verdict", knee_verdict_name(p->verdict));
	}
	if (p->rc < 0)
		cJSON_AddStringToObject(o, "error", p->error);
	return o;
}

static cJSON *bound_json(const struct knee_bound *b)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "outcome", knee_outcome_name(b->outcome));
	if (b->lower_valid) {
		/* the rate sent in the deciding trial, and the target it had */
		num(o, "lower_bps", (double)b->lower_achieved_bps);
		num(o, "lower_target_bps", (double)b->lower_bps);
	} else {
		cJSON_AddNullToObject(o, "lower_bps");
		cJSON_AddNullToObject(o, "lower_target_bps");
	}
	cJSON_AddStringToObject(
		o, "bound", b->lower_valid && b->outcome != KNEE_FOUND ? "lower_bound" : "exact");
	if (b->upper_valid)
		num(o, "upper_bps", (double)b->upper_bps);
	else
		cJSON_AddNullToObject(o, "upper_bps");
	cJSON_AddBoolToObject(o, "lower_confirmed", b->lower_final);
	cJSON_AddBoolToObject(o, "upper_confirmed", b->upper_final);
	cJSON_AddBoolToObject(o, "upper_is_generator_limit", b->upper_is_generator_limit);
	num(o, "lower_trial", b->lower_trial);
	num(o, "upper_trial", b->upper_trial);
	num(o, "upper_loss_ratio", b->upper_loss);
	/* RFC 9971: the goal, its conditional throughput, the trial time
	 * pooled at each bound */
	num(o, "loss_ratio", b->goal.loss_ratio);
	num(o, "exceed_ratio", b->goal.exceed_ratio);
	num(o, "final_trial_duration_s", (double)b->goal.final_ns / 1e9);
	num(o, "duration_sum_s", (double)b->goal.duration_sum_ns / 1e9);
	num(o, "relative_width", b->goal.width);
	num(o, "conditional_throughput_bps", (double)b->conditional_throughput_bps);
	num(o, "lower_trials", b->lower_ntrials);
	num(o, "lower_duration_s", (double)b->lower_duration_ns / 1e9);
	num(o, "upper_trials", b->upper_ntrials);
	num(o, "upper_duration_s", (double)b->upper_duration_ns / 1e9);
	cJSON_AddBoolToObject(o, "lower_is_sent", b->lower_is_sent);
	return o;
}

static cJSON *knee_json(const struct sweep_result *res)
{
	const struct knee_result *k = &res->knee;
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	num(o, "max_rate_bps", (double)res->knee_cfg.max_rate_bps);
	num(o, "min_rate_bps",
	    (double)(res->knee_cfg.min_rate_bps ? res->knee_cfg.min_rate_bps
						: res->knee_cfg.max_rate_bps / 1000));
	num(o, "loss_goal", res->knee_cfg.loss_goal);
	num(o, "width_goal", res->knee_cfg.width_goal);
	num(o, "short_s", (double)res->knee_cfg.short_ns / 1e9);
	num(o, "final_s", (double)res->knee_cfg.final_ns / 1e9);
	num(o, "exceed_ratio", res->knee_cfg.exceed_ratio);
	num(o, "duration_sum_s", (double)k->bound[KNEE_NDR].goal.duration_sum_ns / 1e9);
	num(o, "mrr_bps", (double)k->mrr_bps);
	num(o, "loads", k->nloads);
	num(o, "trials", k->ntrials);
	num(o, "trial_s", (double)k->trial_ns / 1e9);
	cJSON_AddBoolToObject(o, "done", k->done);
	if (k->generator_limited)
		num(o, "generator_limit_bps", (double)k->generator_limit_bps);
	else
		cJSON_AddNullToObject(o, "generator_limit_bps");
	cJSON_AddItemToObject(o, "ndr", bound_json(&k->bound[KNEE_NDR]));
	cJSON_AddItemToObject(o, "pdr", bound_json(&k->bound[KNEE_PDR]));
	return o;
}

void *report_sweep_json_object(const struct sweep_result *res)
{
	cJSON *o = cJSON_CreateObject(), *pts;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "schema", SWEEP_JSON_SCHEMA);
	num(o, "schema_version", SWEEP_JSON_SCHEMA_VERSION);
	cJSON_AddStringToObject(o, "mode", res->mode == SWEEP_KNEE ? "knee" : "linear");
	cJSON_AddStringToObject(o, "path", res->label);
	cJSON_AddStringToObject(o, "host", res->host);
	num(o, "family", res->family == AF_INET6 ? 6 : res->family == AF_INET ? 4 : 0);
	num(o, "len", res->len);
	num(o, "trial_s", (double)res->trial_ns / 1e9);
	num(o, "elapsed_s", (double)res->elapsed_ns / 1e9);
	cJSON_AddBoolToObject(o, "interrupted", res->interrupted);
	if (res->rc < 0 && res->error[0])
		cJSON_AddStringToObject(o, "error", res->error);
	else
		cJSON_AddNullToObject(o, "error");
	pts = cJSON_AddArrayToObject(o, "points");
	for (unsigned i = 0; pts && i < res->npoints; i++)
		cJSON_AddItemToArray(pts, point_json(res, &res->points[i], res->has_knee));
	if (res->has_knee)
		cJSON_AddItemToObject(o, "knee", knee_json(res));
	return o;
}

int report_sweep_json(FILE *f, const struct sweep_result *res)
{
	return json_out_print(f, report_sweep_json_object(res));
}
