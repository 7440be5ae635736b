// SPDX-License-Identifier: MIT
/*
 * --bidir in iperf3's shape: ovlperf runs two tests at once, one where the
 * client sends and one where the server does, and reports them as iperf3
 * --bidir does (src/iperf_api.c): each interval and the end list the
 * streams of both directions (each stream's "sender" says its direction),
 * the forward direction's sums keep iperf3's names and the reverse's carry
 * the suffix _bidir_reverse.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "json_out.h"
#include "report_iperf3.h"

/* Moves every element of from's array key to the end of to's. */
static void append_array(cJSON *to, cJSON *from, const char *key)
{
	cJSON *a = cJSON_GetObjectItemCaseSensitive(to, key);
	cJSON *b = cJSON_DetachItemFromObjectCaseSensitive(from, key), *e;

	if (!a || !b) {
		cJSON_Delete(b);
		return;
	}
	while ((e = cJSON_DetachItemFromArray(b, 0)))
		cJSON_AddItemToArray(a, e);
	cJSON_Delete(b);
}

/* from's key becomes to's key_bidir_reverse. */
static void move_reverse(cJSON *to, cJSON *from, const char *key)
{
	char name[48];
	cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(from, key);

	if (!v)
		return;
	snprintf(name, sizeof(name), "%s_bidir_reverse", key);
	cJSON_AddItemToObject(to, name, v);
}

cJSON *report_iperf3_bidir_interval(cJSON *fwd, cJSON *rev)
{
	if (!fwd || !rev) {
		cJSON_Delete(fwd);
		cJSON_Delete(rev);
		return NULL;
	}
	append_array(fwd, rev, "streams");
	move_reverse(fwd, rev, "sum");
	cJSON_Delete(rev);
	return fwd;
}

static struct cpu_use cpu_sum(const struct cpu_use *a, const struct cpu_use *b)
{
	return (struct cpu_use){ .user_s = a->user_s + b->user_s,
				 .sys_s = a->sys_s + b->sys_s,
				 .wall_s = a->wall_s > b->wall_s ? a->wall_s : b->wall_s };
}

cJSON *report_iperf3_bidir_end(const struct load_result *fwd, const struct load_result *rev)
{
	cJSON *o = report_iperf3_end(fwd), *r;
	struct cpu_use host, remote;

	if (!o || !fwd->nstreams || !rev->nstreams)
		return o; /* a direction measured nothing: its end stays out */
	r = report_iperf3_end(rev);
	if (!r)
		return o;
	append_array(o, r, "streams");
	move_reverse(o, r, "sum");
	move_reverse(o, r, "sum_sent");
	move_reverse(o, r, "sum_received");
	cJSON_Delete(r);
	/* this host ran the forward sender and the reverse receiver, at once */
	host = cpu_sum(&fwd->cpu_sender, &rev->cpu_receiver);
	remote = cpu_sum(&fwd->cpu_receiver, &rev->cpu_sender);
	cJSON_ReplaceItemInObjectCaseSensitive(
		o, "cpu_utilization_percent",
		report_iperf3_cpu(&host, &remote, !fwd->peer_missing && !rev->peer_missing));
	return o;
}

static void add_error(cJSON *o, const struct load_result *fwd, const struct load_result *rev)
{
	char msg[sizeof(fwd->error) * 2 + 48];

	if (fwd->error[0] && rev->error[0])
		snprintf(msg, sizeof(msg), "client sending: %s; server sending: %s", fwd->error,
			 rev->error);
	else if (fwd->error[0] || rev->error[0])
		snprintf(msg, sizeof(msg), "%s: %s",
			 fwd->error[0] ? "client sending" : "server sending",
			 fwd->error[0] ? fwd->error : rev->error);
	else
		return;
	cJSON_AddStringToObject(o, "error", msg);
}

cJSON *report_iperf3_bidir_json(const struct load_result *fwd, const struct load_result *rev)
{
	cJSON *o = cJSON_CreateObject(), *start, *a;
	unsigned n = fwd->nlocal < rev->nlocal ? fwd->nlocal : rev->nlocal;

	if (!o)
		return NULL;
	start = report_iperf3_start(fwd);
	if (start) {
		cJSON *rs = report_iperf3_start(rev);

		append_array(start, rs, "connected");
		cJSON_Delete(rs);
	}
	cJSON_AddItemToObject(o, "start", start);
	a = cJSON_AddArrayToObject(o, "intervals");
	for (unsigned i = 0; a && i < n; i++)
		cJSON_AddItemToArray(a,
				     report_iperf3_bidir_interval(report_iperf3_interval(fwd, i),
								  report_iperf3_interval(rev, i)));
	cJSON_AddItemToObject(o, "end", report_iperf3_bidir_end(fwd, rev));
	add_error(o, fwd, rev);
	cJSON_AddItemToObject(o, "ovlperf", report_iperf3_extra(fwd, rev));
	return o;
}

int report_iperf3_bidir_print(FILE *f, const struct load_result *fwd, const struct load_result *rev,
			      const char *server_text)
{
	cJSON *doc = report_iperf3_bidir_json(fwd, rev);
	int rc;

	if (doc && server_text)
		cJSON_AddStringToObject(doc, "server_output_text", server_text);
	rc = json_out_print(f, doc);

	return rc ? rc : fflush(f) ? -EIO : 0;
}
