// SPDX-License-Identifier: MIT
/*
 * JSON printer of `ovlperf mtu --json` (contract: docs/mtu.md). Fields are
 * only added within a schema_version:
 *   { "schema": "ovlperf.mtu", "schema_version": 1, "ovlperf_version",
 *     "worst": "OK|WARN|FAIL",
 *     "paths": [ { name, host, family, local, remote, ifname, if_mtu,
 *                  server_if_mtu, status, error, pmtu, state, smallest_failed,
 *                  reached_max, icmp_seen, icmp_mtu, blackhole, loss_seen,
 *                  rounds, probes_sent, probes_delivered, probes_refused,
 *                  refused_error (when refused), duration_s,
 *                  rounds_detail: [ {size, sent, delivered, icmp, icmp_mtu,
 *                                    local_too_big, refused, refused_error,
 *                                    fragmented} ],
 *                  fragments: {local_created, local_reassembly,
 *                              remote_created, remote_reassembly, reassembled}
 *                             or null,
 *                  nodf: {size, sent, delivered, refused, reassembled, local_created,
 *                         remote_reassembly} or null (the round without DF),
 *                  fragmenting, unfragmented_pmtu,
 *                  unfragmented: {state, pmtu, smallest_failed, rounds} or null
 *                         (the second search when DF probes were fragmented),
 *                  tcp: {completed, timestamps, bytes_sent, bytes_acked,
 *                        bytes_received, expected_snd_mss,
 *                        client: {snd_mss, adv_mss, rcv_mss, pmtu},
 *                        client_initial: {...}, server: {...},
 *                        mss: {option, payload, options_len, syn_sent,
 *                              syn_arrived, synack_sent, clamped} or null,
 *                        error}
 *                       or null } ],
 *     "tunnels": [ { overlay, underlay, underlay_pmtu, overlay_pmtu,
 *                    overlay_if_mtu, overhead_expected, overhead_inferred,
 *                    inner_expected } ],
 *     "verdicts": [ { path, check, level, value, reason, fix } ] }
 */
#include <netinet/in.h>
#include <string.h>

#include <cJSON.h>

#include "json_out.h"
#include "mtu.h"
#include "version.h"

#define MTU_JSON_SCHEMA		"ovlperf.mtu"
#define MTU_JSON_SCHEMA_VERSION 1

static cJSON *tcp_end(const struct mtu_tcp_end *e)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "snd_mss", e->snd_mss);
	cJSON_AddNumberToObject(o, "adv_mss", e->adv_mss);
	cJSON_AddNumberToObject(o, "rcv_mss", e->rcv_mss);
	cJSON_AddNumberToObject(o, "pmtu", e->pmtu);
	return o;
}

static const char *clamp_name(enum mtu_mss_clamp c)
{
	switch (c) {
	case MTU_MSS_NOT_CLAMPED:
		return "no";
	case MTU_MSS_CLAMPED_ON_PATH:
		return "path";
	case MTU_MSS_FAR_END:
		return "far-end";
	}
	return "?";
}

/* The MSS in its two units; figures not known are null. */
static cJSON *mss_json(const struct mtu_tcp_result *t)
{
	struct mtu_mss m;
	cJSON *o;

	mtu_tcp_mss(t, &m);
	if (!m.valid)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "option", m.option);
	cJSON_AddNumberToObject(o, "payload", m.payload);
	cJSON_AddNumberToObject(o, "options_len", m.options_len);
	cJSON_AddNumberToObject(o, "syn_sent", m.syn_sent);
	if (m.syn_arrived)
		cJSON_AddNumberToObject(o, "syn_arrived", m.syn_arrived);
	else
		cJSON_AddNullToObject(o, "syn_arrived");
	if (m.synack_sent)
		cJSON_AddNumberToObject(o, "synack_sent", m.synack_sent);
	else
		cJSON_AddNullToObject(o, "synack_sent");
	cJSON_AddStringToObject(o, "clamped", clamp_name(m.clamp));
	return o;
}

static cJSON *tcp_json(const struct mtu_path_result *p)
{
	const struct mtu_tcp_result *t = &p->tcp;
	cJSON *o;

	if (!t->run)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "completed", t->completed);
	cJSON_AddBoolToObject(o, "timestamps", t->timestamps);
	cJSON_AddNumberToObject(o, "bytes_sent", (double)t->bytes_sent);
	cJSON_AddNumberToObject(o, "bytes_acked", (double)t->bytes_acked);
	cJSON_AddNumberToObject(o, "bytes_received", (double)t->bytes_received);
	cJSON_AddNumberToObject(o, "expected_snd_mss",
				mtu_expected_snd_mss(p->search.pmtu, p->family, t->timestamps));
	cJSON_AddItemToObject(o, "client", tcp_end(&t->client));
	cJSON_AddItemToObject(o, "client_initial", tcp_end(&t->client_initial));
	cJSON_AddItemToObject(o, "server", tcp_end(&t->server));
	cJSON_AddItemToObject(o, "mss", mss_json(t));
	cJSON_AddStringToObject(o, "error", t->error);
	return o;
}

static cJSON *frag_json(const struct mtu_path_result *p)
{
	cJSON *o;

	if (!p->frag_valid)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "local_created", (double)p->local_frag_creates);
	cJSON_AddNumberToObject(o, "local_reassembly", (double)p->local_reasm_reqds);
	cJSON_AddNumberToObject(o, "remote_created", (double)p->remote_frag_creates);
	cJSON_AddNumberToObject(o, "remote_reassembly", (double)p->remote_reasm_reqds);
	cJSON_AddNumberToObject(o, "reassembled", p->reassembled);
	return o;
}

static cJSON *nodf_json(const struct mtu_nodf *n)
{
	cJSON *o;

	if (!n->run)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "size", n->size);
	cJSON_AddNumberToObject(o, "sent", n->sent);
	cJSON_AddNumberToObject(o, "delivered", n->delivered);
	cJSON_AddNumberToObject(o, "refused", n->refused);
	cJSON_AddNumberToObject(o, "reassembled", n->reassembled);
	cJSON_AddNumberToObject(o, "local_created", (double)n->local_frag_creates);
	cJSON_AddNumberToObject(o, "remote_reassembly", (double)n->remote_reasm_reqds);
	return o;
}

static cJSON *rounds_json(const struct mtu_path_result *p)
{
	cJSON *a = cJSON_CreateArray();

	for (unsigned i = 0; i < p->nrecords; i++) {
		const struct mtu_probe_record *r = &p->records[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "size", r->size);
		cJSON_AddNumberToObject(o, "sent", r->sent);
		cJSON_AddNumberToObject(o, "delivered", r->delivered);
		cJSON_AddBoolToObject(o, "icmp", r->icmp);
		cJSON_AddNumberToObject(o, "icmp_mtu", r->icmp_mtu);
		cJSON_AddBoolToObject(o, "local_too_big", r->local_too_big);
		cJSON_AddNumberToObject(o, "refused", r->refused);
		if (r->refused)
			cJSON_AddStringToObject(o, "refused_error", strerror(r->refused_errno));
		cJSON_AddBoolToObject(o, "fragmented", r->fragmented);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *path_json(const struct mtu_report *rep, unsigned i)
{
	const struct mtu_path_result *p = &rep->paths[i];
	const struct mtu_search_result *s = &p->search;
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", p->spec.name);
	cJSON_AddStringToObject(o, "host", p->spec.host);
	cJSON_AddStringToObject(o, "kind", mtu_path_kind_name(rep->roles[i].kind));
	cJSON_AddNumberToObject(o, "family", p->family == AF_INET6 ? 6 : 4);
	cJSON_AddStringToObject(o, "local", p->local_addr);
	cJSON_AddStringToObject(o, "remote", p->remote_addr);
	cJSON_AddStringToObject(o, "ifname", p->ifname);
	cJSON_AddNumberToObject(o, "if_mtu", p->if_mtu);
	cJSON_AddNumberToObject(o, "server_if_mtu", p->server_if_mtu);
	cJSON_AddNumberToObject(o, "status", p->status);
	cJSON_AddStringToObject(o, "error", p->error);
	cJSON_AddNumberToObject(o, "pmtu", s->pmtu);
	cJSON_AddStringToObject(o, "state", mtu_search_state_name(s->state));
	cJSON_AddNumberToObject(o, "smallest_failed", s->smallest_failed);
	cJSON_AddBoolToObject(o, "reached_max", s->reached_max);
	cJSON_AddBoolToObject(o, "icmp_seen", s->icmp_seen);
	cJSON_AddNumberToObject(o, "icmp_mtu", s->icmp_mtu);
	cJSON_AddBoolToObject(o, "blackhole", s->blackhole);
	cJSON_AddBoolToObject(o, "loss_seen", s->loss_seen);
	cJSON_AddNumberToObject(o, "rounds", s->rounds);
	cJSON_AddNumberToObject(o, "probes_sent", s->probes_sent);
	cJSON_AddNumberToObject(o, "probes_delivered", s->probes_delivered);
	cJSON_AddNumberToObject(o, "probes_refused", s->probes_refused);
	if (s->probes_refused)
		cJSON_AddStringToObject(o, "refused_error", strerror(s->refused_errno));
	cJSON_AddNumberToObject(o, "duration_s", p->duration_s);
	cJSON_AddItemToObject(o, "rounds_detail", rounds_json(p));
	cJSON_AddItemToObject(o, "fragments", frag_json(p));
	cJSON_AddItemToObject(o, "nodf", nodf_json(&p->nodf));
	cJSON_AddBoolToObject(o, "fragmenting", p->fragmenting);
	cJSON_AddNumberToObject(o, "unfragmented_pmtu", mtu_path_unfragmented(p));
	if (p->fragmenting) {
		cJSON *n = cJSON_AddObjectToObject(o, "unfragmented");

		cJSON_AddStringToObject(n, "state", mtu_search_state_name(p->nofrag.state));
		cJSON_AddNumberToObject(n, "pmtu", p->nofrag.pmtu);
		cJSON_AddNumberToObject(n, "smallest_failed", p->nofrag.smallest_failed);
		cJSON_AddNumberToObject(n, "rounds", p->nofrag.rounds);
	} else {
		cJSON_AddNullToObject(o, "unfragmented");
	}
	cJSON_AddItemToObject(o, "tcp", tcp_json(p));
	return o;
}

static cJSON *tunnel_json(const struct mtu_report *rep, const struct mtu_tunnel *t)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "overlay", rep->paths[t->overlay].spec.name);
	cJSON_AddStringToObject(o, "underlay", rep->paths[t->underlay].spec.name);
	cJSON_AddNumberToObject(o, "underlay_pmtu", t->underlay_pmtu);
	cJSON_AddNumberToObject(o, "overlay_pmtu", t->overlay_pmtu);
	cJSON_AddNumberToObject(o, "overlay_if_mtu", t->overlay_if_mtu);
	cJSON_AddNumberToObject(o, "overhead_expected", t->overhead_expected);
	cJSON_AddNumberToObject(o, "overhead_inferred", t->overhead_inferred);
	cJSON_AddNumberToObject(o, "inner_expected", t->inner_expected);
	return o;
}

static cJSON *verdict_json(const struct mtu_verdict *v)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "path", v->path);
	cJSON_AddStringToObject(o, "check", v->check);
	cJSON_AddStringToObject(o, "level", mtu_level_name(v->level));
	cJSON_AddNumberToObject(o, "value", v->value);
	cJSON_AddStringToObject(o, "reason", v->reason);
	cJSON_AddStringToObject(o, "fix", v->fix);
	return o;
}

struct cJSON *mtu_report_to_json(const struct mtu_report *rep)
{
	cJSON *root = cJSON_CreateObject(), *paths, *tunnels, *verdicts;

	if (!root)
		return NULL;
	cJSON_AddStringToObject(root, "schema", MTU_JSON_SCHEMA);
	cJSON_AddNumberToObject(root, "schema_version", MTU_JSON_SCHEMA_VERSION);
	cJSON_AddStringToObject(root, "ovlperf_version", OVLPERF_VERSION);
	cJSON_AddStringToObject(root, "worst", mtu_level_name(mtu_report_worst(rep)));
	paths = cJSON_AddArrayToObject(root, "paths");
	tunnels = cJSON_AddArrayToObject(root, "tunnels");
	verdicts = cJSON_AddArrayToObject(root, "verdicts");
	if (!paths || !tunnels || !verdicts) {
		cJSON_Delete(root);
		return NULL;
	}
	for (unsigned i = 0; i < rep->npaths; i++)
		cJSON_AddItemToArray(paths, path_json(rep, i));
	for (unsigned i = 0; i < rep->npaths; i++)
		if (rep->tunnels[i].valid)
			cJSON_AddItemToArray(tunnels, tunnel_json(rep, &rep->tunnels[i]));
	for (unsigned i = 0; i < rep->nverdicts; i++)
		cJSON_AddItemToArray(verdicts, verdict_json(&rep->verdicts[i]));
	return root;
}

int mtu_report_print_json(FILE *f, const struct mtu_report *rep)
{
	return json_out_print(f, mtu_report_to_json(rep));
}
