// SPDX-License-Identifier: MIT
/* JSON rendering of one load test, schema LOAD_JSON_SCHEMA (docs/json.md).
 * Built with cJSON only; numbers are JSON numbers (counters fit a double's
 * 53-bit mantissa for any test shorter than centuries). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hostfacts_json.h"
#include "json_out.h"
#include "report_layers.h"
#include "loss_place.h"
#include "report_load.h"
#include "tcp_limit.h"
#include "version.h"

static bool add_num(cJSON *o, const char *k, double v)
{
	return cJSON_AddNumberToObject(o, k, v) != NULL;
}

static cJSON *spec_json(const struct load_spec *s)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "protocol", s->proto == LOAD_UDP ? "udp" : "tcp");
	cJSON_AddStringToObject(o, "host", s->host);
	add_num(o, "port", s->port ? s->port : LOAD_DEFAULT_PORT);
	cJSON_AddStringToObject(o, "family",
				s->family == AF_INET	? "ipv4"
				: s->family == AF_INET6 ? "ipv6"
							: "any");
	add_num(o, "streams", s->streams);
	add_num(o, "duration_s", (double)s->duration_ns / 1e9);
	add_num(o, "omit_s", (double)s->omit_ns / 1e9);
	add_num(o, "interval_s", (double)s->interval_ns / 1e9);
	add_num(o, "target_bps", (double)s->rate_bps);
	add_num(o, "len", s->len);
	cJSON_AddBoolToObject(o, "reverse", s->reverse);
	add_num(o, "mss", s->mss);
	cJSON_AddBoolToObject(o, "udp_gso", s->udp_gso);
	cJSON_AddBoolToObject(o, "udp_gro", s->udp_gro);
	add_num(o, "sock_buf", s->sock_buf);
	add_num(o, "dscp", s->dscp);
	cJSON_AddBoolToObject(o, "authenticated", s->psk_file[0] != 0);
	return o;
}

static cJSON *tcp_info_json(const struct tcp_info_summary *t)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	add_num(o, "retransmits", t->retransmits);
	add_num(o, "rtt_us", t->rtt_us);
	add_num(o, "rttvar_us", t->rttvar_us);
	add_num(o, "snd_mss", t->snd_mss);
	add_num(o, "adv_mss", t->adv_mss);
	add_num(o, "rcv_mss", t->rcv_mss);
	add_num(o, "pmtu", t->pmtu);
	add_num(o, "snd_cwnd", t->snd_cwnd);
	return o;
}

/* One end's figures the verdict stands on (null when it sent none). */
static cJSON *end_limits_json(const struct tcp_end_limits *l)
{
	cJSON *o;

	if (!l->known)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddBoolToObject(o, "chronographs", l->chrono);
	add_num(o, "streams", l->streams);
	add_num(o, "window_s", l->window_s);
	add_num(o, "busy_s", l->busy_s);
	add_num(o, "rwnd_limited_s", l->rwnd_limited_s);
	add_num(o, "sndbuf_limited_s", l->sndbuf_limited_s);
	add_num(o, "bytes_sent", (double)l->bytes_sent);
	add_num(o, "bytes_retrans", (double)l->bytes_retrans);
	add_num(o, "delivery_bps", (double)l->delivery_bps);
	add_num(o, "app_limited_streams", l->app_limited_streams);
	add_num(o, "min_rtt_us", l->min_rtt_us);
	if (l->rtt_median_us)
		add_num(o, "rtt_median_us", l->rtt_median_us);
	add_num(o, "snd_wnd", l->snd_wnd);
	add_num(o, "sock_sndbuf", l->sock_sndbuf);
	add_num(o, "sock_rcvbuf", l->sock_rcvbuf);
	add_num(o, "rcv_space", l->rcv_space);
	if (l->sysctl) {
		add_num(o, "tcp_rmem_max", l->tcp_rmem_max);
		add_num(o, "tcp_wmem_max", l->tcp_wmem_max);
		add_num(o, "rmem_max", l->rmem_max);
		add_num(o, "wmem_max", l->wmem_max);
	}
	add_num(o, "thread_cpu", l->thread_cpu);
	return o;
}

/* The verdict (results/tcp_limit.h) with its shares and arithmetic. */
static cJSON *limit_json(const struct load_result *r)
{
	struct tcp_limit_verdict v;
	cJSON *o = cJSON_CreateObject(), *sh;

	if (!o)
		return NULL;
	tcp_limit_of(r, 0, &v);
	cJSON_AddStringToObject(o, "name", tcp_limit_name(v.limit));
	cJSON_AddStringToObject(o, "evidence", v.evidence);
	cJSON_AddStringToObject(o, "fix", v.fix);
	if (v.limit == TCP_LIMIT_UNKNOWN)
		return o;
	sh = cJSON_AddObjectToObject(o, "shares");
	if (sh) {
		add_num(sh, "application", v.app);
		add_num(sh, "receive_window", v.rwnd);
		add_num(sh, "send_buffer", v.sndbuf);
		add_num(sh, "congestion_window", v.cwnd);
	}
	add_num(o, "retrans_ratio", v.retrans_ratio);
	add_num(o, "rtt_ms", v.rtt_ms);
	add_num(o, "queue_ms", v.queue_ms);
	add_num(o, "needed_window_bytes", v.needed_window_B);
	add_num(o, "allowed_window_bytes", v.allowed_window_B);
	add_num(o, "allowed_bps", v.allowed_bps);
	add_num(o, "sender_cpu", v.sender_cpu);
	add_num(o, "receiver_cpu", v.receiver_cpu);
	add_num(o, "fix_bps", v.fix_bps);
	return o;
}

static cJSON *tcp_json(const struct load_result *r)
{
	const struct tcp_result *t = &r->tcp;
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	add_num(o, "bytes", (double)t->bytes);
	add_num(o, "sent_bytes", (double)t->sent_bytes);
	add_num(o, "goodput_bps", (double)t->goodput_bps);
	add_num(o, "retransmits", t->sender.retransmits);
	add_num(o, "rtt_us", t->sender.rtt_us);
	add_num(o, "rttvar_us", t->sender.rttvar_us);
	add_num(o, "snd_mss", t->sender.snd_mss);
	add_num(o, "adv_mss", t->sender.adv_mss);
	add_num(o, "pmtu", t->sender.pmtu);
	add_num(o, "snd_cwnd", t->sender.snd_cwnd);
	cJSON_AddItemToObject(o, "sender", tcp_info_json(&t->sender));
	cJSON_AddItemToObject(o, "receiver", tcp_info_json(&t->receiver));
	cJSON_AddItemToObject(o, "sender_limits", end_limits_json(&t->sender_limits));
	cJSON_AddItemToObject(o, "receiver_limits", end_limits_json(&t->receiver_limits));
	cJSON_AddItemToObject(o, "limit", limit_json(r));
	return o;
}

static cJSON *owd_json(const struct owd_summary *w)
{
	cJSON *o;

	if (!w->valid)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (!o)
		return NULL;
	add_num(o, "min", (double)w->min_ns / 1e3);
	add_num(o, "p50", (double)w->p50_ns / 1e3);
	add_num(o, "p99", (double)w->p99_ns / 1e3);
	add_num(o, "max", (double)w->max_ns / 1e3);
	add_num(o, "mean", (double)w->mean_ns / 1e3);
	return o;
}

static cJSON *loss_at_json(const struct loss_attrib *l)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	add_num(o, "sender_sndbuf", (double)l->sender_sndbuf);
	add_num(o, "sender_link", (double)l->sender_link);
	add_num(o, "receiver_rcvbuf", (double)l->receiver_rcvbuf);
	add_num(o, "receiver_socket", (double)l->receiver_socket);
	add_num(o, "backlog", (double)l->backlog);
	add_num(o, "receiver_inerrors", (double)l->receiver_inerrors);
	add_num(o, "receiver_link", (double)l->receiver_link);
	add_num(o, "network", (double)l->network);
	add_num(o, "sender_qdisc", (double)l->sender_qdisc);
	add_num(o, "tunnel", (double)l->tunnel);
	if (l->network_where[0])
		cJSON_AddStringToObject(o, "network_where", l->network_where);
	if (l->other_port) {
		/* the receiving host's other socket that dropped most */
		cJSON *so = cJSON_AddObjectToObject(o, "receiver_other_socket");

		if (so) {
			add_num(so, "port", l->other_port);
			add_num(so, "family", l->other_family);
			add_num(so, "drops", (double)l->other_drops);
			if (l->other_pid) {
				add_num(so, "pid", l->other_pid);
				cJSON_AddStringToObject(so, "process", l->other_owner);
			}
		}
	}
	return o;
}

/* The places with loss, in path order, each with its plain name and fix. */
static cJSON *loss_places_json(const struct loss_attrib *l)
{
	cJSON *a = cJSON_CreateArray(), *o;
	char fix[256];

	for (int p = 0; a && p < LOSS_PLACE_COUNT; p++) {
		uint64_t n = loss_place_count(l, (enum loss_place)p);

		if (!n)
			continue;
		o = cJSON_CreateObject();
		if (!o)
			break;
		loss_place_fix(fix, sizeof(fix), l, (enum loss_place)p);
		cJSON_AddStringToObject(o, "place", loss_place_key((enum loss_place)p));
		cJSON_AddStringToObject(o, "name", loss_place_name_at(l, (enum loss_place)p));
		add_num(o, "datagrams", (double)n);
		cJSON_AddStringToObject(o, "fix", fix);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* The sender's own account behind loss_at.sender_qdisc. */
static cJSON *qdisc_drops_json(const struct loss_attrib *l)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "qdisc", l->qdisc_kind);
	cJSON_AddStringToObject(o, "interface", l->qdisc_if);
	add_num(o, "txqueuelen", l->sender_txqlen);
	add_num(o, "packets", (double)l->qdisc_packets);
	add_num(o, "datagrams", (double)l->qdisc_datagrams);
	add_num(o, "refused_datagrams", (double)l->refused_dgrams);
	add_num(o, "skipped_datagrams", (double)l->hidden_dgrams);
	return o;
}

/* The receiver's account behind loss_at.receiver_socket; null from a
 * receiver that does not send it. */
static cJSON *socket_drops_json(const struct loss_attrib *l)
{
	cJSON *o;

	if (!l->socket_packets_known)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (!o)
		return NULL;
	add_num(o, "packets", (double)l->socket_packets);
	add_num(o, "datagrams", (double)l->receiver_socket);
	return o;
}

/* whole: the test's total, with the figures only the total has (a stream's
 * record is the same without them) */
static cJSON *udp_json(const struct udp_result *u, bool whole)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	add_num(o, "sent", (double)u->sent);
	add_num(o, "received", (double)u->received);
	add_num(o, "lost", (double)u->lost);
	add_num(o, "loss_pct", u->sent ? 100.0 * (double)u->lost / (double)u->sent : 0.0);
	add_num(o, "duplicates", (double)u->duplicates);
	add_num(o, "reordered", (double)u->reordered);
	add_num(o, "malformed", (double)u->malformed);
	add_num(o, "len", u->len);
	add_num(o, "target_bps", (double)u->target_bps);
	add_num(o, "achieved_bps", (double)u->achieved_bps);
	add_num(o, "received_bps", (double)u->received_bps);
	add_num(o, "sent_pps", (double)u->sent_pps);
	add_num(o, "received_pps", (double)u->received_pps);
	add_num(o, "arrival_bps", (double)u->arrival_bps);
	add_num(o, "jitter_ms", u->jitter_ms);
	cJSON_AddItemToObject(o, "owd_us", owd_json(&u->owd));
	cJSON_AddBoolToObject(o, "generator_limited", u->generator_limited);
	if (whole) {
		/* the receiver's window is the whole test's */
		add_num(o, "queue_growth_ms", u->queue_growth_ms);
		/* the receiver measures its socket wait over all streams */
		cJSON_AddItemToObject(o, "rx_wait_us", owd_json(&u->rx_wait));
		cJSON_AddItemToObject(o, "loss_at", loss_at_json(&u->loss_at));
		cJSON_AddItemToObject(o, "loss_places", loss_places_json(&u->loss_at));
		cJSON_AddItemToObject(o, "sender_drops", qdisc_drops_json(&u->loss_at));
		cJSON_AddItemToObject(o, "receiver_drops", socket_drops_json(&u->loss_at));
	}
	return o;
}

/* The datagrams at every layer: null when fragmented (not one frame each).
 * The figures of the end whose results never came are null. */
static cJSON *layers_json(const struct load_result *r)
{
	bool sent_known = !r->peer_missing || !r->spec.reverse;
	bool received_known = !r->peer_missing || r->spec.reverse;
	struct report_layers l;
	cJSON *o, *e;

	if (!report_layers_get(r, &l))
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "family", l.family == AF_INET6 ? "ipv6" : "ipv4");
	if (sent_known)
		add_num(o, "sent_pps", l.sent_pps);
	else
		cJSON_AddNullToObject(o, "sent_pps");
	if (received_known)
		add_num(o, "received_pps", l.received_pps);
	else
		cJSON_AddNullToObject(o, "received_pps");
	for (unsigned i = 0; i < LAYER_COUNT; i++) {
		e = cJSON_AddObjectToObject(o, layer_name((enum layer)i));
		if (!e)
			break;
		add_num(e, "datagram_bytes", (double)l.bytes[i]);
		if (sent_known) {
			add_num(e, "sent_bytes", (double)l.sent_bytes[i]);
			add_num(e, "sent_bps", l.sent_bps[i]);
		} else {
			cJSON_AddNullToObject(e, "sent_bytes");
			cJSON_AddNullToObject(e, "sent_bps");
		}
		if (received_known) {
			add_num(e, "received_bytes", (double)l.received_bytes[i]);
			add_num(e, "received_bps", l.received_bps[i]);
		} else {
			cJSON_AddNullToObject(e, "received_bytes");
			cJSON_AddNullToObject(e, "received_bps");
		}
	}
	/* Over the built-in overlay: the encrypted datagrams the underlay
	 * carried, as the client's daemon counted them (null elsewhere). */
	cJSON_AddItemToObject(o, "outer",
			      report_outer_json(&r->udp.outer, l.bytes[LAYER_LINE], r->duration_s));
	return o;
}

static cJSON *cpu_json(const struct cpu_use *c, double s_per_gbit)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	add_num(o, "user_s", c->user_s);
	add_num(o, "sys_s", c->sys_s);
	add_num(o, "wall_s", c->wall_s);
	add_num(o, "s_per_gbit", s_per_gbit);
	return o;
}

static cJSON *streams_json(const struct load_result *r)
{
	cJSON *a = cJSON_CreateArray();

	if (!a)
		return NULL;
	for (unsigned i = 0; i < r->nstreams; i++) {
		const struct load_stream_result *s = &r->streams[i];
		cJSON *o = cJSON_CreateObject();

		if (!o)
			break;
		add_num(o, "id", i + 1);
		add_num(o, "bytes", (double)s->bytes);
		add_num(o, "bps", (double)s->bps);
		if (r->spec.proto == LOAD_UDP) {
			cJSON_AddItemToObject(o, "udp", udp_json(&s->udp, false));
		} else {
			cJSON_AddItemToObject(o, "sender", tcp_info_json(&s->tcp_sender));
			cJSON_AddItemToObject(o, "receiver", tcp_info_json(&s->tcp_receiver));
		}
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *intervals_json(const struct load_result *r)
{
	cJSON *a = cJSON_CreateArray();

	if (!a)
		return NULL;
	for (unsigned i = 0; i < r->nintervals; i++) {
		const struct load_interval *iv = &r->intervals[i];
		cJSON *o = cJSON_CreateObject();

		if (!o)
			break;
		add_num(o, "start_s", iv->start_s);
		add_num(o, "end_s", iv->end_s);
		add_num(o, "bytes", (double)iv->bytes);
		add_num(o, "bps", (double)iv->bps);
		if (r->spec.proto == LOAD_UDP)
			add_num(o, "lost", (double)iv->lost);
		else
			add_num(o, "retransmits", iv->retransmits);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* Figures only one end measures. When the test ran but the server's RESULTS
 * never came (res->peer_missing), the server's end's figures are unknown:
 * they become null, not the zeros (or the 100 % loss) the merge leaves.
 * "lost", "loss_pct" and "loss_at" need both ends. Lists end with NULL. */
static const char *const udp_by_receiver[] = {
	"received",	"lost",		"loss_pct",	   "duplicates",  "reordered",
	"malformed",	"received_bps", "received_pps",	   "arrival_bps", "jitter_ms",
	"owd_us",	"rx_wait_us",	"loss_at",	   "loss_places", "receiver_drops",
	"rcvbuf_bytes", "gro",		"queue_growth_ms", NULL,
};
static const char *const udp_by_sender[] = {
	"sent",	       "lost",	       "loss_pct",	    "achieved_bps", "sent_pps", "loss_at",
	"loss_places", "sender_drops", "generator_limited", "gso",	    NULL,
};
static const char *const tcp_by_receiver[] = { "bytes", "goodput_bps", "receiver", NULL };
static const char *const tcp_by_sender[] = {
	"sent_bytes", "retransmits", "rtt_us",	 "rttvar_us", "snd_mss",
	"adv_mss",    "pmtu",	     "snd_cwnd", "sender",    NULL,
};
static const char *const by_receiver[] = { "receiver", NULL };
static const char *const by_sender[] = { "sender", NULL };
static const char *const stream_by_receiver[] = { "bytes", "bps", NULL };

static void set_null(cJSON *o, const char *const *keys)
{
	for (; o && *keys; keys++)
		if (cJSON_HasObjectItem(o, *keys))
			cJSON_ReplaceItemInObjectCaseSensitive(o, *keys, cJSON_CreateNull());
}

static void peer_unknown(cJSON *o, const struct load_result *r)
{
	/* The server is the receiver unless the test is reversed. */
	bool peer_receives = !r->spec.reverse, udp = r->spec.proto == LOAD_UDP;
	const char *const *summary = udp ? (peer_receives ? udp_by_receiver : udp_by_sender)
					 : (peer_receives ? tcp_by_receiver : tcp_by_sender);
	const char *const *end = peer_receives ? by_receiver : by_sender;
	cJSON *s;

	set_null(cJSON_GetObjectItemCaseSensitive(o, udp ? "udp" : "tcp"), summary);
	set_null(cJSON_GetObjectItemCaseSensitive(o, "cpu"), end);
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(o, "streams"))
	{
		if (udp)
			set_null(cJSON_GetObjectItemCaseSensitive(s, "udp"), summary);
		else
			set_null(s, end);
		if (peer_receives)
			set_null(s, stream_by_receiver);
	}
}

/* What the options and the path said before any datagram (a datagram
 * refused for its size knows them): kept when nothing was measured; 0 is
 * their "unknown". */
static bool kept(const cJSON *c)
{
	static const char *const facts[] = { "len", "path_mtu", "fragments", NULL };

	if (!strcmp(c->string, "dont_fragment"))
		return true;
	for (const char *const *k = facts; *k; k++)
		if (!strcmp(*k, c->string))
			return cJSON_IsNumber(c) && c->valuedouble != 0;
	return false;
}

/* The test never ran (it failed before START, or could not connect):
 * every figure it would have measured is null, not the zeros the empty
 * result holds. */
static void nothing_measured(cJSON *o, const struct load_result *r)
{
	cJSON *sum = cJSON_GetObjectItemCaseSensitive(o, r->spec.proto == LOAD_UDP ? "udp" : "tcp");
	char key[64];

	for (cJSON *c = sum ? sum->child : NULL; c; c = c->next) {
		if (kept(c) || cJSON_IsNull(c) || !c->string ||
		    snprintf(key, sizeof(key), "%s", c->string) >= (int)sizeof(key))
			continue;
		/* the replacement takes c's place in the list: c->next stays
		 * valid through it */
		cJSON_ReplaceItemInObjectCaseSensitive(sum, key, cJSON_CreateNull());
		c = cJSON_GetObjectItemCaseSensitive(sum, key);
	}
	cJSON_ReplaceItemInObjectCaseSensitive(o, "cpu", cJSON_CreateNull());
	cJSON_ReplaceItemInObjectCaseSensitive(o, "duration_s", cJSON_CreateNull());
}

cJSON *report_load_json(const struct load_result *r)
{
	cJSON *o = cJSON_CreateObject(), *cpu;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "schema", "ovlperf.load");
	add_num(o, "schema_version", LOAD_JSON_SCHEMA);
	cJSON_AddStringToObject(o, "ovlperf_version", OVLPERF_VERSION);
	cJSON_AddStringToObject(o, "server_version", r->server_version);
	cJSON_AddItemToObject(o, "test", spec_json(&r->spec));
	cJSON_AddItemToObject(o, "sched", json_out_sched(&r->sched_client, &r->sched_server));
	cJSON_AddItemToObject(o, "host_facts",
			      hostfacts_json_pair(&r->facts_client, &r->facts_server));
	cJSON_AddStringToObject(o, "local_addr", r->local_addr);
	cJSON_AddStringToObject(o, "remote_addr", r->remote_addr);
	cJSON_AddBoolToObject(o, "interrupted", r->interrupted);
	cJSON_AddBoolToObject(o, "peer_missing", r->peer_missing);
	if (r->error[0])
		cJSON_AddStringToObject(o, "error", r->error);
	else
		cJSON_AddNullToObject(o, "error");
	add_num(o, "duration_s", r->duration_s);
	if (r->spec.proto == LOAD_UDP) {
		cJSON *u = udp_json(&r->udp, true);

		if (u) {
			cJSON_AddBoolToObject(u, "owd_shared_clock", r->owd_shared_clock);
			add_num(u, "owd_error_us", (double)r->udp.owd.error_ns / 1e3);
			cJSON_AddBoolToObject(u, "gso", r->udp_gso_used);
			cJSON_AddBoolToObject(u, "gro", r->udp_gro_used);
			add_num(u, "rcvbuf_bytes", r->rcvbuf_bytes);
			add_num(u, "path_mtu", r->udp.path_mtu);
			add_num(u, "fragments", r->udp.fragments);
			cJSON_AddBoolToObject(u, "dont_fragment", r->udp.dont_fragment);
			cJSON_AddItemToObject(u, "layers", layers_json(r));
			if (r->udp.sender_diag) {
				cJSON *sf = cJSON_AddObjectToObject(u, "shortfall");

				if (sf) {
					add_num(sf, "late_wakeup", r->udp.skipped_late_wakeup);
					add_num(sf, "slow_send", r->udp.skipped_slow_send);
					add_num(sf, "blocked_send", r->udp.skipped_blocked_send);
					add_num(sf, "send_refused", r->udp.send_refused);
				}
			} else {
				cJSON_AddNullToObject(u, "shortfall");
			}
		}
		cJSON_AddItemToObject(o, "udp", u);
	} else {
		cJSON_AddItemToObject(o, "tcp", tcp_json(r));
	}
	cpu = cJSON_AddObjectToObject(o, "cpu");
	if (cpu) {
		cJSON_AddItemToObject(cpu, "sender",
				      cpu_json(&r->cpu_sender, r->sender_cpu_s_per_gbit));
		cJSON_AddItemToObject(cpu, "receiver",
				      cpu_json(&r->cpu_receiver, r->receiver_cpu_s_per_gbit));
	}
	cJSON_AddItemToObject(o, "streams", streams_json(r));
	cJSON_AddItemToObject(o, "intervals", intervals_json(r));
	if (r->peer_missing)
		peer_unknown(o, r);
	if (!r->nstreams)
		nothing_measured(o, r);
	return o;
}

int report_load_json_print(FILE *f, const struct load_result *res)
{
	cJSON *o = report_load_json(res);
	char *s;

	if (!o)
		return -ENOMEM;
	s = cJSON_Print(o);
	cJSON_Delete(o);
	if (!s)
		return -ENOMEM;
	fputs(s, f);
	fputc('\n', f);
	free(s);
	return fflush(f) ? -errno : 0;
}

int report_load_json_bidir_print(FILE *f, const struct load_result *fwd,
				 const struct load_result *rev, const char *server_text)
{
	cJSON *o = cJSON_CreateObject();

	if (o) {
		cJSON_AddStringToObject(o, "schema", REPORT_BIDIR_SCHEMA);
		add_num(o, "schema_version", 1);
		cJSON_AddItemToObject(o, "forward", report_load_json(fwd));
		cJSON_AddItemToObject(o, "reverse", report_load_json(rev));
		if (server_text)
			cJSON_AddStringToObject(o, "server_output_text", server_text);
	}
	return json_out_print(f, o);
}
