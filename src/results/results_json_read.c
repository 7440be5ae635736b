// SPDX-License-Identifier: MIT
/*
 * Reading run.json back into the run model, for `ovlperf report`. The file
 * may come from anywhere (an older or newer ovlperf, a hand edit), so every
 * field is type-checked and an error names the field; fields added by later
 * minor changes may be absent and read as 0.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cJSON.h>

#include "hostfacts_json.h"
#include "results.h"
#include "results_fields.h"
#include "results_json_rd.h"

/* A TCP trial's "drops" (absent in a run.json from before). */
static int read_tcp_drops(struct rd *rd, const cJSON *tcp, struct tcp_drops *d)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(tcp, "drops");
	size_t at;
	int err;

	if (!o)
		return 0;
	at = rd_push(rd, "drops");
	err = rd_fields(rd, o, d, tcpdrops_fields, NF(tcpdrops_fields));
	if (!err)
		err = rd_str(rd, o, "qdisc_kind", d->qdisc_kind, sizeof(d->qdisc_kind), false);
	if (!err)
		err = rd_str(rd, o, "qdisc_if", d->qdisc_if, sizeof(d->qdisc_if), false);
	rd->where[at] = '\0';
	return err;
}

/* "loss_at": the places (loss_fields); "loss_detail" beside it: what the
 * fixes name (loss_detail_fields, the link, qdisc and interface, and
 * "other_socket", the receiving host's other socket that dropped most);
 * each absent in a run.json from before it was written. */
static int read_loss(struct rd *rd, const cJSON *obj, struct loss_attrib *l)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(obj, "loss_detail"), *s, *n;
	size_t at, at2;
	int err = rd_sub(rd, obj, "loss_at", l, loss_fields, NF(loss_fields));

	if (err || !d)
		return err;
	at = rd_push(rd, "loss_detail");
	err = rd_fields(rd, d, l, loss_detail_fields, NF(loss_detail_fields));
	if (!err)
		err = rd_str(rd, d, "network_where", l->network_where, sizeof(l->network_where),
			     false);
	if (!err)
		err = rd_str(rd, d, "qdisc_kind", l->qdisc_kind, sizeof(l->qdisc_kind), false);
	if (!err)
		err = rd_str(rd, d, "qdisc_if", l->qdisc_if, sizeof(l->qdisc_if), false);
	s = cJSON_GetObjectItemCaseSensitive(d, "other_socket");
	if (err || !s) {
		rd->where[at] = '\0';
		return err;
	}
	at2 = rd_push(rd, "other_socket");
	err = rd_fields(rd, s, l, other_socket_fields, NF(other_socket_fields));
	if (!err)
		err = rd_str(rd, s, "owner", l->other_owner, sizeof(l->other_owner), false);
	n = cJSON_GetObjectItemCaseSensitive(s, "port");
	if (!err && (!cJSON_IsNumber(n) || n->valuedouble < 1 || n->valuedouble > 65535 ||
		     n->valuedouble != floor(n->valuedouble)))
		err = rd_error(rd, "port", "must be a UDP port, 1 to 65535");
	if (!err)
		l->other_port = (uint16_t)n->valuedouble;
	n = cJSON_GetObjectItemCaseSensitive(s, "family");
	if (!err && (!cJSON_IsNumber(n) || (n->valuedouble != 4 && n->valuedouble != 6)))
		err = rd_error(rd, "family", "must be 4 or 6");
	if (!err)
		l->other_family = (uint8_t)n->valuedouble;
	rd->where[at2] = '\0';
	rd->where[at] = '\0';
	return err;
}

/* "sched": {"client": "other", "server": "fifo:1"}; absent (older runs) or
 * null: unknown. */
static int read_sched(struct rd *rd, const cJSON *o, struct results_trial *t)
{
	const cJSON *sc = cJSON_GetObjectItemCaseSensitive(o, "sched");
	struct load_sched *end[2] = { &t->sched_client, &t->sched_server };
	static const char *const key[2] = { "client", "server" };
	static const char *const field[2] = { "sched.client", "sched.server" };

	if (!sc || cJSON_IsNull(sc))
		return 0;
	if (!cJSON_IsObject(sc))
		return rd_error(rd, "sched", "must be an object");
	for (int i = 0; i < 2; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(sc, key[i]);

		if (!v || cJSON_IsNull(v))
			continue;
		if (!cJSON_IsString(v) || !load_sched_parse(v->valuestring, end[i]))
			return rd_error(
				rd, field[i],
				"must be null, \"other\", \"fifo:N\" or \"rr:N\" (N 1..99)");
	}
	return 0;
}

/* A delay trial's load_pct: absent in a run.json from before it was
 * recorded (0: unknown, as for a fixed rate). */
static int read_load_pct(struct rd *rd, const cJSON *o, struct results_trial *t)
{
	static const struct field f[] = { FLD(struct results_trial, load_pct, F_DBL) };
	int err = rd_fields(rd, o, t, f, NF(f));

	if (!err && (t->load_pct < 0 || t->load_pct > 100))
		return rd_error(rd, "load_pct", "must be 0..100");
	if (!err && t->load_pct && t->kind != RESULTS_TRIAL_DELAY)
		return rd_error(rd, "load_pct", "belongs to delay trials only");
	return err;
}

/* "softirq": {"scope": "machine", "cpu": [shares 0..1]}, absent: not read */
static int read_softirq(struct rd *rd, const cJSON *o, struct results_trial *t)
{
	const cJSON *a = o ? cJSON_GetObjectItemCaseSensitive(o, "cpu") : NULL, *v;

	t->softirq_ncpu = 0;
	if (!o)
		return 0;
	if (!cJSON_IsObject(o) || !cJSON_IsArray(a))
		return rd_error(rd, "softirq", "must be an object with a cpu array");
	if (cJSON_GetArraySize(a) > CPUUSE_MAX_CPUS)
		return rd_error(rd, "softirq.cpu", "has more CPUs than ovlperf reads");
	cJSON_ArrayForEach(v, a)
	{
		if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 1))
			return rd_error(rd, "softirq.cpu", "must hold shares from 0 to 1");
		t->softirq[t->softirq_ncpu++] = v->valuedouble;
	}
	return 0;
}

static int read_trial(struct rd *rd, const cJSON *o, const struct results_run *run,
		      struct results_trial *t)
{
	const cJSON *udp = cJSON_GetObjectItemCaseSensitive(o, "udp");
	const cJSON *tcp = cJSON_GetObjectItemCaseSensitive(o, "tcp");
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "status");
	char kind[16];
	int err, k;

	err = rd_fields(rd, o, t, trial_fields, NF(trial_fields));
	if (!err)
		err = rd_str(rd, o, "kind", kind, sizeof(kind), true);
	if (!err)
		err = rd_str(rd, o, "error", t->error, sizeof(t->error), false);
	if (!err)
		err = rd_str(rd, o, "overlay_thread", t->overlay_thread, sizeof(t->overlay_thread),
			     false);
	if (!err)
		err = rd_str(rd, o, "overlay_process", t->overlay_process,
			     sizeof(t->overlay_process), false);
	if (!err)
		err = rd_str(rd, o, "congestion", t->congestion, sizeof(t->congestion), false);
	if (!err && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "reverse")))
		t->reverse = true;
	if (!err)
		err = rd_str(rd, o, "overlay_quota_process", t->overlay_quota_process,
			     sizeof(t->overlay_quota_process), false);
	if (!err)
		err = rd_str(rd, o, "overlay_quota_thread", t->overlay_quota_thread,
			     sizeof(t->overlay_quota_thread), false);
	if (!err)
		err = read_softirq(rd, cJSON_GetObjectItemCaseSensitive(o, "softirq"), t);
	if (err)
		return err;
	k = results_trial_kind_parse(kind);
	if (k < 0)
		return rd_error(rd, "kind", "must be tcp, sweep, knee or delay");
	t->kind = (enum results_trial_kind)k;
	err = read_load_pct(rd, o, t);
	if (err)
		return err;
	if (t->path >= run->npaths)
		return rd_error(rd, "path", "names no path of the run");
	if (st && (!cJSON_IsNumber(st) || st->valuedouble > 0 || st->valuedouble < -4095))
		return rd_error(rd, "status", "must be 0 or a negative errno");
	t->status = st ? (int)st->valuedouble : 0;
	if (udp) {
		size_t l = rd_push(rd, "udp");

		err = rd_sub(rd, udp, "owd", &t->udp.owd, owd_fields, NF(owd_fields));
		/* absent in a run.json from before it was measured */
		if (!err)
			err = rd_sub(rd, udp, "rx_wait", &t->udp.rx_wait, owd_fields,
				     NF(owd_fields));
		if (!err)
			err = read_loss(rd, udp, &t->udp.loss_at);
		rd->where[l] = '\0';
		if (!err)
			err = rd_sub(rd, o, "udp", &t->udp, udp_fields, NF(udp_fields));
	}
	if (!err && tcp) {
		static const struct field tf[] = {
			FLD(struct tcp_result, bytes, F_U64),
			FLD(struct tcp_result, goodput_bps, F_U64),
		};
		size_t l;

		err = rd_sub(rd, o, "tcp", &t->tcp, tf, NF(tf));
		l = rd_push(rd, "tcp");
		if (!err)
			err = rd_sub(rd, tcp, "sender", &t->tcp.sender, tcpinfo_fields,
				     NF(tcpinfo_fields));
		if (!err)
			err = rd_sub(rd, tcp, "receiver", &t->tcp.receiver, tcpinfo_fields,
				     NF(tcpinfo_fields));
		/* absent before what limited a trial was recorded */
		if (!err)
			err = rd_sub(rd, tcp, "sender_limits", &t->tcp.sender_limits,
				     tcplimits_fields, NF(tcplimits_fields));
		if (!err)
			err = rd_sub(rd, tcp, "receiver_limits", &t->tcp.receiver_limits,
				     tcplimits_fields, NF(tcplimits_fields));
		/* absent before the trial's drops were recorded */
		if (!err)
			err = read_tcp_drops(rd, tcp, &t->tcp.drops);
		rd->where[l] = '\0';
	}
	if (!err)
		err = rd_sub(rd, o, "cpu_sender", &t->cpu_sender, cpu_fields, NF(cpu_fields));
	if (!err)
		err = rd_sub(rd, o, "cpu_receiver", &t->cpu_receiver, cpu_fields, NF(cpu_fields));
	if (!err)
		err = read_sched(rd, o, t);
	hostfacts_json_read_pair(o, &t->facts_client, &t->facts_server);
	return err;
}

/* A path's "cipher" object (a built-in overlay's; absent in older runs and other paths). */
static int read_path_cipher(struct rd *rd, const cJSON *o, struct results_path_cipher *c)
{
	const cJSON *co = cJSON_GetObjectItemCaseSensitive(o, "cipher");
	int err;

	memset(c, 0, sizeof(*c));
	if (!co)
		return 0;
	if (!cJSON_IsObject(co))
		return rd_error(rd, "cipher", "must be an object");
	err = rd_str(rd, co, "name", c->name, sizeof(c->name), true);
	if (!err)
		err = rd_str(rd, co, "impl", c->impl, sizeof(c->impl), false);
	if (!err)
		err = rd_str(rd, co, "by", c->by, sizeof(c->by), false);
	if (!err)
		err = rd_str(rd, co, "order", c->order, sizeof(c->order), false);
	return err;
}

static int read_paths(struct rd *rd, const cJSON *root, struct results_run *run)
{
	const cJSON *paths = cJSON_GetObjectItemCaseSensitive(root, "paths"), *o;
	int err = 0;

	if (!cJSON_IsArray(paths))
		return rd_error(rd, "paths", "is missing or not an array");
	cJSON_ArrayForEach(o, paths)
	{
		struct results_path *p;
		char kind[16];
		const cJSON *mtu;
		int k;

		if (run->npaths >= RESULTS_MAX_PATHS)
			return rd_error(rd, "paths", "has too many entries");
		snprintf(rd->where, sizeof(rd->where), "paths[%u]", run->npaths);
		p = &run->paths[run->npaths];
		if (!cJSON_IsObject(o))
			return rd_error(rd, "(entry)", "is not an object");
		err = rd_str(rd, o, "name", p->name, sizeof(p->name), true);
		if (!err)
			err = rd_str(rd, o, "kind", kind, sizeof(kind), true);
		if (!err)
			err = rd_str(rd, o, "addr", p->addr, sizeof(p->addr), false);
		if (err)
			return err;
		k = results_path_kind_parse(kind);
		if (k < 0)
			return rd_error(rd, "kind", "must be underlay, builtin or external");
		p->kind = (enum results_path_kind)k;
		mtu = cJSON_GetObjectItemCaseSensitive(o, "mtu");
		if (mtu &&
		    (!cJSON_IsNumber(mtu) || mtu->valuedouble < 0 || mtu->valuedouble > 65535))
			return rd_error(rd, "mtu", "must be a number 0..65535");
		p->mtu = mtu ? (uint32_t)mtu->valuedouble : 0;
		mtu = cJSON_GetObjectItemCaseSensitive(o, "pmtu");
		if (mtu &&
		    (!cJSON_IsNumber(mtu) || mtu->valuedouble < 0 || mtu->valuedouble > 65535))
			return rd_error(rd, "pmtu", "must be a number 0..65535");
		p->pmtu = mtu ? (uint32_t)mtu->valuedouble : 0;
		err = rd_str(rd, o, "pmtu_source", p->pmtu_source, sizeof(p->pmtu_source), false);
		if (err)
			return err;
		mtu = cJSON_GetObjectItemCaseSensitive(o, "family");
		if (mtu &&
		    (!cJSON_IsNumber(mtu) || (mtu->valuedouble != 4 && mtu->valuedouble != 6)))
			return rd_error(rd, "family", "must be 4 or 6");
		p->family = !mtu ? 0 : mtu->valuedouble == 6 ? AF_INET6 : AF_INET;
		err = read_path_cipher(rd, o, &p->cipher);
		if (err)
			return err;
		run->npaths++;
	}
	rd->where[0] = '\0';
	return 0;
}

/* "links" (absent before link conditions were recorded: none). */
static int read_links(struct rd *rd, const cJSON *root, struct results_run *run)
{
	const cJSON *links = cJSON_GetObjectItemCaseSensitive(root, "links"), *o;
	int err = 0;

	if (!links)
		return 0;
	if (!cJSON_IsArray(links))
		return rd_error(rd, "links", "is not an array");
	cJSON_ArrayForEach(o, links)
	{
		struct results_link *l;

		if (run->nlinks >= RESULTS_MAX_LINKS)
			return rd_error(rd, "links", "has too many entries");
		snprintf(rd->where, sizeof(rd->where), "links[%u]", run->nlinks);
		l = &run->links[run->nlinks];
		err = rd_fields(rd, o, l, link_fields, NF(link_fields));
		if (!err)
			err = rd_str(rd, o, "means", l->means, sizeof(l->means), false);
		if (!err)
			err = rd_str(rd, o, "conditions", l->conditions, sizeof(l->conditions),
				     false);
		if (!err)
			err = rd_sub(rd, o, "a_to_b", &l->dir[0], link_dir_fields,
				     NF(link_dir_fields));
		if (!err)
			err = rd_sub(rd, o, "b_to_a", &l->dir[1], link_dir_fields,
				     NF(link_dir_fields));
		if (err)
			return err;
		run->nlinks++;
	}
	rd->where[0] = '\0';
	return 0;
}

static int read_trials(struct rd *rd, const cJSON *root, struct results_run *run)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "trials"), *o;
	size_t i = 0;

	if (!cJSON_IsArray(arr))
		return rd_error(rd, "trials", "is missing or not an array");
	cJSON_ArrayForEach(o, arr)
	{
		struct results_trial *t = results_add_trial(run);
		int err;

		if (!t)
			return -ENOMEM;
		snprintf(rd->where, sizeof(rd->where), "trials[%zu]", i++);
		err = read_trial(rd, o, run, t);
		if (err)
			return err;
	}
	rd->where[0] = '\0';
	return 0;
}

static int read_knees(struct rd *rd, const cJSON *root, struct results_run *run)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "knees"), *o;
	size_t i = 0;

	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return rd_error(rd, "knees", "is not an array");
	cJSON_ArrayForEach(o, arr)
	{
		struct results_knee *k = results_add_knee(run);
		int err;

		if (!k)
			return -ENOMEM;
		snprintf(rd->where, sizeof(rd->where), "knees[%zu]", i++);
		err = rd_fields(rd, o, k, knee_fields, NF(knee_fields));
		if (!err)
			err = rd_str(rd, o, "ndr_outcome", k->ndr_outcome, sizeof(k->ndr_outcome),
				     false);
		if (!err)
			err = rd_str(rd, o, "pdr_outcome", k->pdr_outcome, sizeof(k->pdr_outcome),
				     false);
		if (!err)
			err = rd_str(rd, o, "stopped", k->stopped, sizeof(k->stopped), false);
		if (!err)
			err = rd_str(rd, o, "cut_by", k->cut_by, sizeof(k->cut_by), false);
		if (!err)
			err = read_loss(rd, o, &k->loss_at);
		if (err)
			return err;
		if (k->path >= run->npaths)
			return rd_error(rd, "path", "names no path of the run");
	}
	rd->where[0] = '\0';
	return 0;
}

static int read_mtu(struct rd *rd, const cJSON *root, struct results_run *run)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "mtu"), *o;
	static const struct field mf[] = {
		FLD(struct results_mtu_check, path, F_UINT),
		FLD(struct results_mtu_check, value, F_U32),
	};
	size_t i = 0;

	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return rd_error(rd, "mtu", "is not an array");
	cJSON_ArrayForEach(o, arr)
	{
		struct results_mtu_check *m = results_add_mtu(run);
		char verdict[8];
		int err, v;

		if (!m)
			return -ENOMEM;
		snprintf(rd->where, sizeof(rd->where), "mtu[%zu]", i++);
		err = rd_fields(rd, o, m, mf, NF(mf));
		if (!err)
			err = rd_str(rd, o, "check", m->check, sizeof(m->check), true);
		if (!err)
			err = rd_str(rd, o, "verdict", verdict, sizeof(verdict), true);
		if (!err)
			err = rd_str(rd, o, "reason", m->reason, sizeof(m->reason), false);
		if (!err)
			err = rd_str(rd, o, "fix", m->fix, sizeof(m->fix), false);
		if (err)
			return err;
		v = results_verdict_parse(verdict);
		if (v < 0)
			return rd_error(rd, "verdict", "must be OK, WARN or FAIL");
		m->verdict = (enum results_verdict)v;
		if (m->path >= run->npaths)
			return rd_error(rd, "path", "names no path of the run");
	}
	rd->where[0] = '\0';
	return 0;
}

/* "confirm": absent but after run --confirm */
static int read_confirms(struct rd *rd, const cJSON *root, struct results_run *run)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "confirm"), *o;
	int err = 0;

	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return rd_error(rd, "confirm", "is not an array");
	cJSON_ArrayForEach(o, arr)
	{
		struct results_confirm *c = &run->confirms[run->nconfirms];

		if (run->nconfirms == RESULTS_MAX_CONFIRMS)
			return rd_error(rd, "confirm", "has too many entries");
		snprintf(rd->where, sizeof(rd->where), "confirm[%u]", run->nconfirms++);
		err = rd_fields(rd, o, c, confirm_fields, NF(confirm_fields));
		if (!err)
			err = rd_str(rd, o, "limit_before", c->limit_before,
				     sizeof(c->limit_before), false);
		if (!err)
			err = rd_str(rd, o, "limit_after", c->limit_after, sizeof(c->limit_after),
				     false);
		if (!err)
			err = rd_str(rd, o, "applied", c->applied, sizeof(c->applied), false);
		if (!err)
			err = rd_str(rd, o, "note", c->note, sizeof(c->note), false);
		if (!err && c->path >= run->npaths)
			err = rd_error(rd, "path", "names no path of the run");
		if (err)
			return err;
	}
	rd->where[0] = '\0';
	return 0;
}

/* One goal's headline as summary.udp_knee[] recorded it; absent (a file
 * from before headlines): the found bounds, as such a file read then. */
static int read_headline(struct rd *rd, const cJSON *o, const char *name, enum results_head *h)
{
	char v[16] = "";
	int err = rd_str(rd, o, name, v, sizeof(v), false), x;

	*h = RESULTS_HEAD_FOUND;
	if (err || !v[0])
		return err;
	x = results_head_parse(v);
	if (x < 0)
		return rd_error(rd, name, "is not one of found, fit, changed");
	*h = (enum results_head)x;
	return 0;
}

/* The knees' headlines of summary.udp_knee[], decided when the run was
 * measured: kept as they were (results_run.heads), not decided again. */
static int read_heads(struct rd *rd, const cJSON *root, struct results_run *run)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "summary");
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(s, "udp_knee"), *o;
	unsigned i = 0;
	int err = 0;

	run->heads_read = true;
	if (!cJSON_IsArray(arr))
		return 0;
	cJSON_ArrayForEach(o, arr)
	{
		const cJSON *path = cJSON_GetObjectItemCaseSensitive(o, "path");
		const cJSON *len = cJSON_GetObjectItemCaseSensitive(o, "len");
		struct results_head_rec h = { .path = run->npaths }, *q;

		snprintf(rd->where, sizeof(rd->where), "summary.udp_knee[%u]", i++);
		for (unsigned p = 0; cJSON_IsString(path) && p < run->npaths; p++)
			if (!strcmp(run->paths[p].name, path->valuestring))
				h.path = p;
		if (h.path == run->npaths || !cJSON_IsNumber(len) || len->valuedouble < 0)
			continue;
		h.len = (uint32_t)len->valuedouble;
		err = read_headline(rd, o, "ndr_headline", &h.ndr);
		if (!err)
			err = read_headline(rd, o, "pdr_headline", &h.pdr);
		if (err)
			return err;
		q = realloc(run->heads, (run->nheads + 1) * sizeof(*q));
		if (!q)
			return -ENOMEM;
		run->heads = q;
		run->heads[run->nheads++] = h;
	}
	rd->where[0] = '\0';
	return 0;
}

/* An optional layer name (absent in a run.json from before layers: the
 * payload layer, ovlperf's own). */
static int get_layer(struct rd *rd, const cJSON *root, const char *name, enum layer *l)
{
	char v[16];
	int err = rd_str(rd, root, name, v, sizeof(v), false);

	*l = LAYER_PAYLOAD;
	if (err || !v[0])
		return err;
	if (!layer_parse(v, l))
		return rd_error(rd, name, "must be payload, ip, frame or line");
	return 0;
}

/* "schema": "ovlperf.run" with "schema_version", or version 1's bare
 * numeric "schema"; the figures of both versions are the same. */
static int read_schema(struct rd *rd, const cJSON *root, const cJSON *schema,
		       struct results_run *run)
{
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "schema_version");
	double v;

	if (cJSON_IsNumber(schema)) {
		v = schema->valuedouble;
	} else if (cJSON_IsString(schema) && !strcmp(schema->valuestring, RESULTS_SCHEMA_NAME)) {
		if (!cJSON_IsNumber(ver))
			return rd_error(rd, "schema_version", "is missing or not a number");
		v = ver->valuedouble;
	} else {
		return rd_error(rd, "schema",
				"is missing or not \"" RESULTS_SCHEMA_NAME
				"\": not an ovlperf run.json");
	}
	if (v != 1 && v != RESULTS_SCHEMA) {
		snprintf(rd->err, rd->errlen,
			 "schema version %g is not one this ovlperf reads (1..%d)", v,
			 RESULTS_SCHEMA);
		return -EINVAL;
	}
	run->schema = (unsigned)v;
	return 0;
}

static int read_head(struct rd *rd, const cJSON *root, struct results_run *run)
{
	const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
	const cJSON *complete = cJSON_GetObjectItemCaseSensitive(root, "complete");
	const cJSON *sc = cJSON_GetObjectItemCaseSensitive(root, "scenario");
	const cJSON *host = cJSON_GetObjectItemCaseSensitive(root, "host"), *text;
	static const struct field hf[] = {
		FLD(struct results_run, duration_s, F_DBL),
		FLD(struct results_run, pdr_goal_pct, F_DBL),
		FLD(struct results_run, delay_load_bps, F_U64),
		FLD(struct results_run, udp_fit_len, F_U32),
		FLD(struct results_run, line_rate_bps, F_U64),
	};
	int err;

	err = read_schema(rd, root, schema, run);
	if (err)
		return err;
	if (!cJSON_IsBool(complete))
		return rd_error(rd, "complete", "is missing or not true/false");
	run->complete = cJSON_IsTrue(complete);
	err = rd_fields(rd, root, run, hf, NF(hf));
	if (!err)
		err = rd_str(rd, root, "version", run->version, sizeof(run->version), false);
	if (!err)
		err = rd_str(rd, root, "stop_reason", run->stop_reason, sizeof(run->stop_reason),
			     false);
	if (!err)
		err = rd_str(rd, root, "started_utc", run->started_utc, sizeof(run->started_utc),
			     false);
	if (!err)
		err = get_layer(rd, root, "size_layer", &run->size_layer);
	if (!err)
		err = get_layer(rd, root, "sweep_rate_layer", &run->sweep_rate_layer);
	if (!err)
		err = get_layer(rd, root, "knee_rate_layer", &run->knee_rate_layer);
	if (err)
		return err;
	if (!cJSON_IsObject(sc))
		return rd_error(rd, "scenario", "is missing or not an object");
	snprintf(rd->where, sizeof(rd->where), "scenario");
	err = rd_str(rd, sc, "name", run->scenario_name, sizeof(run->scenario_name), true);
	if (!err)
		err = rd_str(rd, sc, "file", run->scenario_file, sizeof(run->scenario_file), false);
	text = cJSON_GetObjectItemCaseSensitive(sc, "text");
	if (!err && cJSON_IsString(text)) {
		run->scenario_text = strdup(text->valuestring);
		if (!run->scenario_text)
			return -ENOMEM;
	}
	if (err || !host)
		goto out;
	snprintf(rd->where, sizeof(rd->where), "host");
	if (!cJSON_IsObject(host))
		return rd_error(rd, "(object)", "is not an object");
	err = rd_str(rd, host, "kernel", run->host.kernel, sizeof(run->host.kernel), false);
	if (!err)
		err = rd_str(rd, host, "cpu", run->host.cpu, sizeof(run->host.cpu), false);
	if (!err)
		err = rd_str(rd, host, "hostname", run->host.hostname, sizeof(run->host.hostname),
			     false);
	if (!err)
		err = rd_str(rd, host, "client_cpus", run->host.client_cpus,
			     sizeof(run->host.client_cpus), false);
	if (!err)
		err = rd_str(rd, host, "server_cpus", run->host.server_cpus,
			     sizeof(run->host.server_cpus), false);
	if (!err) {
		static const struct field nf[] = { FLD(struct results_host, ncpu, F_UINT) };

		err = rd_fields(rd, host, &run->host, nf, 1);
	}
out:
	rd->where[0] = '\0';
	return err;
}

int results_from_json(const char *text, struct results_run *run, char *err, size_t errlen)
{
	struct rd rd = { .err = err, .errlen = errlen };
	cJSON *root;
	int rc;

	results_init(run);
	if (errlen)
		err[0] = '\0';
	root = cJSON_Parse(text);
	if (!root) {
		const char *at = cJSON_GetErrorPtr();

		snprintf(err, errlen, "not valid JSON (near byte %td)", at ? at - text : 0);
		return -EINVAL;
	}
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		snprintf(err, errlen, "not a JSON object");
		return -EINVAL;
	}
	rc = read_head(&rd, root, run);
	if (!rc)
		rc = read_paths(&rd, root, run);
	if (!rc)
		rc = read_links(&rd, root, run);
	if (!rc)
		rc = read_trials(&rd, root, run);
	if (!rc)
		rc = read_knees(&rd, root, run);
	if (!rc)
		rc = read_mtu(&rd, root, run);
	if (!rc)
		rc = read_confirms(&rd, root, run);
	if (!rc)
		rc = read_heads(&rd, root, run);
	cJSON_Delete(root);
	if (rc) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		results_free(run);
	}
	return rc;
}

int results_read_json(const char *path, struct results_run *run, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, cap = 0;
	int rc;

	results_init(run);
	if (!f) {
		rc = -errno;
		/* the caller names the file */
		snprintf(err, errlen, "%s", strerror(-rc));
		return rc;
	}
	for (;;) {
		size_t got;

		if (cap - len < 65536) {
			char *q = realloc(text, cap + 65536 + 1);

			if (!q) {
				fclose(f);
				free(text);
				snprintf(err, errlen, "out of memory");
				return -ENOMEM;
			}
			text = q;
			cap += 65536;
		}
		got = fread(text + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (!rc) {
		text[len] = '\0';
		rc = results_from_json(text, run, err, errlen);
	} else {
		snprintf(err, errlen, "%s: read error", path);
	}
	free(text);
	return rc;
}
