// SPDX-License-Identifier: MIT
/*
 * run.json: the run model as JSON (cJSON) and back. Plain numeric fields go
 * through tables of (name, offset, type), so that writer and reader cannot
 * drift apart. This half writes the run as recorded (head, paths, links,
 * trials, knees, MTU checks); the derived sections ("summary", "overhead",
 * ...) are results_json_summary.c's, written for readers of the file:
 * reading recomputes them from the trials instead of trusting them.
 * Schema: results/README.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>

#include "hostfacts_json.h"
#include "results.h"
#include "results_fields.h"
#include "results_json_int.h"

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

		if (!rj_add_child(o, key[i], v)) {
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

	if (!o || !rj_add_num(o, "family", l->outer_family == AF_INET6 ? 6 : 4) ||
	    !rj_add_num(o, "datagrams", (double)l->outer_datagrams) ||
	    !rj_add_num(o, "line_bytes_per_datagram", l->outer_line_per_datagram) ||
	    !rj_add_num(o, "inner_line_bytes_per_datagram", l->inner_line_per_datagram)) {
		cJSON_Delete(o);
		return NULL;
	}
	for (unsigned i = 0; i < LAYER_COUNT; i++) {
		cJSON *e = cJSON_CreateObject();

		if (!rj_add_child(o, layer_name((enum layer)i), e) ||
		    !rj_add_num(e, "bytes", (double)l->outer_bytes[i]) ||
		    !rj_add_num(e, "bps", l->outer_bps[i])) {
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
	if (!o || !rj_add_num(o, "family", l.family == AF_INET6 ? 6 : 4) ||
	    !rj_add_num(o, "sent_pps", l.sent_pps) ||
	    !rj_add_num(o, "received_pps", l.received_pps)) {
		cJSON_Delete(o);
		return NULL;
	}
	for (unsigned i = 0; i < LAYER_COUNT; i++) {
		cJSON *e = cJSON_CreateObject();

		if (!rj_add_child(o, layer_name((enum layer)i), e) ||
		    !rj_add_num(e, "datagram_bytes", (double)l.bytes[i]) ||
		    !rj_add_num(e, "sent_bytes", (double)l.sent_bytes[i]) ||
		    !rj_add_num(e, "received_bytes", (double)l.received_bytes[i]) ||
		    !rj_add_num(e, "sent_bps", l.sent_bps[i]) ||
		    !rj_add_num(e, "received_bps", l.received_bps[i])) {
			cJSON_Delete(o);
			return NULL;
		}
	}
	if (l.outer && !rj_add_child(o, "outer", outer_json(&l))) {
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

	if (!o || !a || !rj_add_str(o, "scope", "machine") || !rj_add_child(o, "cpu", a)) {
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

/* "drops": where a TCP trial's segments may have gone, by both ends'
 * counters, with the sender's qdisc that held or dropped most */
static bool tcp_drops_json(cJSON *tcp, const struct tcp_drops *d)
{
	cJSON *o = rj_obj_of(d, tcpdrops_fields, NF(tcpdrops_fields));

	return rj_add_child(tcp, "drops", o) &&
	       (!d->qdisc_kind[0] || rj_add_str(o, "qdisc_kind", d->qdisc_kind)) &&
	       (!d->qdisc_if[0] || rj_add_str(o, "qdisc_if", d->qdisc_if));
}

static cJSON *trial_json(const struct results_run *run, const struct results_trial *t)
{
	cJSON *o = rj_obj_of(t, trial_fields, NF(trial_fields)), *u;
	bool ok = o && rj_add_str(o, "kind", results_trial_kind_name(t->kind)) &&
		  rj_add_num(o, "status", t->status) && rj_add_str(o, "error", t->error) &&
		  rj_add_str(o, "overlay_thread", t->overlay_thread) &&
		  rj_add_str(o, "overlay_process", t->overlay_process) &&
		  rj_add_str(o, "overlay_quota_process", t->overlay_quota_process) &&
		  rj_add_str(o, "overlay_quota_thread", t->overlay_quota_thread) &&
		  (!t->congestion[0] || rj_add_str(o, "congestion", t->congestion)) &&
		  (!t->reverse || cJSON_AddTrueToObject(o, "reverse")) &&
		  (!t->softirq_ncpu || rj_add_child(o, "softirq", softirq_json(t)));

	if (ok && t->kind == RESULTS_TRIAL_DELAY)
		ok = rj_add_num(o, "load_pct", t->load_pct);

	if (ok && t->kind != RESULTS_TRIAL_TCP) {
		u = rj_obj_of(&t->udp, udp_fields, NF(udp_fields));
		ok = rj_add_child(o, "udp", u) &&
		     rj_add_child(u, "owd", rj_obj_of(&t->udp.owd, owd_fields, NF(owd_fields))) &&
		     rj_add_child(u, "rx_wait",
				  rj_obj_of(&t->udp.rx_wait, owd_fields, NF(owd_fields))) &&
		     rj_add_loss(u, "loss_at", "loss_detail", &t->udp.loss_at) &&
		     rj_add_child(u, "layers", layers_json(run, t));
	} else if (ok) {
		u = cJSON_CreateObject();
		ok = rj_add_child(o, "tcp", u) && rj_add_num(u, "bytes", (double)t->tcp.bytes) &&
		     rj_add_num(u, "goodput_bps", (double)t->tcp.goodput_bps) &&
		     rj_add_child(u, "sender",
				  rj_obj_of(&t->tcp.sender, tcpinfo_fields, NF(tcpinfo_fields))) &&
		     rj_add_child(
			     u, "receiver",
			     rj_obj_of(&t->tcp.receiver, tcpinfo_fields, NF(tcpinfo_fields))) &&
		     (!t->tcp.sender_limits.known ||
		      rj_add_child(u, "sender_limits",
				   rj_obj_of(&t->tcp.sender_limits, tcplimits_fields,
					     NF(tcplimits_fields)))) &&
		     (!t->tcp.receiver_limits.known ||
		      rj_add_child(u, "receiver_limits",
				   rj_obj_of(&t->tcp.receiver_limits, tcplimits_fields,
					     NF(tcplimits_fields)))) &&
		     (!t->tcp.drops.known || tcp_drops_json(u, &t->tcp.drops));
	}
	ok = ok &&
	     rj_add_child(o, "cpu_sender", rj_obj_of(&t->cpu_sender, cpu_fields, NF(cpu_fields))) &&
	     rj_add_child(o, "cpu_receiver",
			  rj_obj_of(&t->cpu_receiver, cpu_fields, NF(cpu_fields))) &&
	     rj_add_child(o, "sched", sched_json(t)) &&
	     rj_add_child(o, "host_facts", hostfacts_json_pair(&t->facts_client, &t->facts_server));
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
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

		if (!rj_add_array_item(arr, g) || !rj_add_str(g, "name", pdr ? "PDR" : "NDR") ||
		    !rj_add_num(g, "loss_ratio", pdr ? k->pdr_goal_pct / 100 : 0) ||
		    !rj_add_num(g, "exceed_ratio", k->exceed_ratio) ||
		    !rj_add_num(g, "final_trial_duration_s", k->final_s) ||
		    !rj_add_num(g, "duration_sum_s", k->duration_sum_s) ||
		    !rj_add_num(g, "relative_width", k->width_goal) ||
		    !rj_add_str(g, "outcome", pdr ? k->pdr_outcome : k->ndr_outcome) ||
		    (lower && !rj_add_num(g, "relevant_lower_bound_bps", (double)lo)) ||
		    (up && !rj_add_num(g, "relevant_upper_bound_bps", (double)up)) ||
		    !rj_add_num(g, "conditional_throughput_bps",
				(double)(pdr ? k->pdr_ct_bps : k->ndr_ct_bps))) {
			cJSON_Delete(arr);
			return NULL;
		}
	}
	return arr;
}

static bool add_head(cJSON *root, const struct results_run *run)
{
	cJSON *sc = cJSON_CreateObject(), *host = cJSON_CreateObject();

	if (!rj_add_child(root, "scenario", sc)) {
		cJSON_Delete(host);
		return false;
	}
	return rj_add_str(root, "schema", RESULTS_SCHEMA_NAME) &&
	       rj_add_num(root, "schema_version", RESULTS_SCHEMA) &&
	       rj_add_str(root, "tool", "ovlperf") && rj_add_str(root, "version", run->version) &&
	       cJSON_AddBoolToObject(root, "complete", run->complete) &&
	       rj_add_str(root, "stop_reason", run->stop_reason) &&
	       rj_add_str(root, "started_utc", run->started_utc) &&
	       rj_add_num(root, "duration_s", run->duration_s) &&
	       rj_add_num(root, "pdr_goal_pct", run->pdr_goal_pct) &&
	       rj_add_num(root, "delay_load_bps", (double)run->delay_load_bps) &&
	       rj_add_num(root, "udp_fit_len", run->udp_fit_len) &&
	       rj_add_str(root, "size_layer", layer_name(run->size_layer)) &&
	       rj_add_str(root, "sweep_rate_layer", layer_name(run->sweep_rate_layer)) &&
	       rj_add_str(root, "knee_rate_layer", layer_name(run->knee_rate_layer)) &&
	       rj_add_num(root, "line_rate_bps", (double)run->line_rate_bps) &&
	       rj_add_str(sc, "name", run->scenario_name) &&
	       rj_add_str(sc, "file", run->scenario_file) &&
	       rj_add_str(sc, "text", run->scenario_text) && rj_add_child(root, "host", host) &&
	       rj_add_str(host, "kernel", run->host.kernel) &&
	       rj_add_str(host, "cpu", run->host.cpu) && rj_add_num(host, "ncpu", run->host.ncpu) &&
	       rj_add_str(host, "hostname", run->host.hostname) &&
	       (!run->host.client_cpus[0] ||
		rj_add_str(host, "client_cpus", run->host.client_cpus)) &&
	       (!run->host.server_cpus[0] ||
		rj_add_str(host, "server_cpus", run->host.server_cpus));
}

/* "links": the lab's links, their conditions and how they were made. */
static bool add_links(cJSON *root, const struct results_run *run)
{
	cJSON *links = cJSON_CreateArray();

	if (!rj_add_child(root, "links", links))
		return false;
	for (unsigned i = 0; i < run->nlinks && i < RESULTS_MAX_LINKS; i++) {
		const struct results_link *l = &run->links[i];
		cJSON *o = rj_obj_of(l, link_fields, NF(link_fields));

		if (!rj_add_array_item(links, o) || !rj_add_str(o, "means", l->means) ||
		    !rj_add_str(o, "conditions", l->conditions) ||
		    !rj_add_child(o, "a_to_b",
				  rj_obj_of(&l->dir[0], link_dir_fields, NF(link_dir_fields))) ||
		    !rj_add_child(o, "b_to_a",
				  rj_obj_of(&l->dir[1], link_dir_fields, NF(link_dir_fields))))
			return false;
	}
	return true;
}

/* "confirm" (run --confirm): each limited TCP figure rerun with its fix */
static bool add_confirms(cJSON *root, const struct results_run *run)
{
	cJSON *arr;

	if (!run->nconfirms)
		return true;
	arr = cJSON_CreateArray();
	if (!rj_add_child(root, "confirm", arr))
		return false;
	for (unsigned i = 0; i < run->nconfirms; i++) {
		const struct results_confirm *c = &run->confirms[i];
		cJSON *o = rj_obj_of(c, confirm_fields, NF(confirm_fields));

		if (!rj_add_array_item(arr, o) || !rj_add_str(o, "limit_before", c->limit_before) ||
		    !rj_add_str(o, "limit_after", c->limit_after) ||
		    !rj_add_str(o, "applied", c->applied) || !rj_add_str(o, "note", c->note))
			return false;
	}
	return true;
}

static bool add_lists(cJSON *root, const struct results_run *run)
{
	cJSON *paths = cJSON_CreateArray(), *trials = NULL, *knees = NULL, *mtu = NULL;

	if (!rj_add_child(root, "paths", paths) || !add_links(root, run))
		return false;
	for (unsigned i = 0; i < run->npaths; i++) {
		const struct results_path *p = &run->paths[i];
		const struct results_path_cipher *c = &p->cipher;
		cJSON *o = cJSON_CreateObject(), *co;

		if (!rj_add_array_item(paths, o) || !rj_add_str(o, "name", p->name) ||
		    !rj_add_str(o, "kind", results_path_kind_name(p->kind)) ||
		    !rj_add_str(o, "addr", p->addr) || !rj_add_num(o, "mtu", p->mtu) ||
		    !rj_add_num(o, "pmtu", p->pmtu) ||
		    !rj_add_str(o, "pmtu_source", p->pmtu_source) ||
		    !rj_add_num(o, "family", results_path_family(p) == AF_INET6 ? 6 : 4))
			return false;
		if (!c->name[0])
			continue;
		co = cJSON_CreateObject();
		if (!rj_add_child(o, "cipher", co) || !rj_add_str(co, "name", c->name) ||
		    !rj_add_str(co, "impl", c->impl) || !rj_add_str(co, "by", c->by) ||
		    !rj_add_str(co, "order", c->order))
			return false;
	}
	trials = cJSON_CreateArray();
	if (!rj_add_child(root, "trials", trials))
		return false;
	for (size_t i = 0; i < run->ntrials; i++)
		if (!rj_add_array_item(trials, trial_json(run, &run->trials[i])))
			return false;
	knees = cJSON_CreateArray();
	if (!rj_add_child(root, "knees", knees))
		return false;
	for (size_t i = 0; i < run->nknees; i++) {
		const struct results_knee *k = &run->knees[i];
		cJSON *o = rj_obj_of(k, knee_fields, NF(knee_fields));

		if (!rj_add_array_item(knees, o) || !rj_add_str(o, "ndr_outcome", k->ndr_outcome) ||
		    !rj_add_str(o, "pdr_outcome", k->pdr_outcome) ||
		    (k->stopped[0] && !rj_add_str(o, "stopped", k->stopped)) ||
		    (k->cut_by[0] && !rj_add_str(o, "cut_by", k->cut_by)) ||
		    !rj_add_loss(o, "loss_at", "loss_detail", &k->loss_at) ||
		    !rj_add_child(o, "goals", knee_goals(k)))
			return false;
	}
	mtu = cJSON_CreateArray();
	if (!rj_add_child(root, "mtu", mtu))
		return false;
	for (size_t i = 0; i < run->nmtu; i++) {
		const struct results_mtu_check *m = &run->mtu[i];
		cJSON *o = cJSON_CreateObject();

		if (!rj_add_array_item(mtu, o) || !rj_add_num(o, "path", m->path) ||
		    !rj_add_str(o, "check", m->check) ||
		    !rj_add_str(o, "verdict", results_verdict_name(m->verdict)) ||
		    !rj_add_num(o, "value", m->value) || !rj_add_str(o, "reason", m->reason) ||
		    !rj_add_str(o, "fix", m->fix))
			return false;
	}
	return add_confirms(root, run);
}

char *results_to_json(const struct results_run *run)
{
	cJSON *root = cJSON_CreateObject();
	char *text = NULL;

	if (root && add_head(root, run) && add_lists(root, run) &&
	    results_json_add_derived(root, run))
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
