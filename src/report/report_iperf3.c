// SPDX-License-Identifier: MIT
/*
 * One load test as iperf3's -J document (iperf3 3.12's key names and JSON
 * types, src/iperf_api.c), so that the parsers, exporters and schedulers
 * written for iperf3 read ovlperf's results: "start", "intervals" (the
 * client's own per-stream samples, as iperf3's client reports), "end" and,
 * on a failure, "error". ovlperf's own figures ride along under the one
 * extra key "ovlperf" (the native document, docs/json.md).
 *
 * A figure this end does not know is null, never an invented zero: the
 * server's figures when its RESULTS never came, the server's congestion
 * control when it did not say (an older ovlperf), a receiver's
 * per-interval jitter.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "json_out.h"
#include "report_iperf3.h"
#include "report_load.h"
#include "version.h"

static void num(cJSON *o, const char *k, double v)
{
	cJSON_AddNumberToObject(o, k, v);
}

/* v when known, else null */
static void numk(cJSON *o, const char *k, double v, bool known)
{
	if (known)
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static void str_or_null(cJSON *o, const char *k, const char *v)
{
	if (v[0])
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static bool udp(const struct load_result *r)
{
	return r->spec.proto == LOAD_UDP;
}

static bool client_sends(const struct load_result *r)
{
	return !r->spec.reverse;
}

/* The server's figures are known unless its RESULTS never came. */
static bool sender_known(const struct load_result *r)
{
	return client_sends(r) || !r->peer_missing;
}

static bool receiver_known(const struct load_result *r)
{
	return !client_sends(r) || !r->peer_missing;
}

static double rate(double bytes, double s)
{
	return s > 0 ? bytes * 8 / s : 0;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static cJSON *connected_json(const struct load_result *r)
{
	cJSON *a = cJSON_CreateArray();

	for (unsigned i = 0; a && i < r->nconns; i++) {
		cJSON *o = cJSON_CreateObject();

		if (!o || !cJSON_AddItemToArray(a, o)) {
			cJSON_Delete(o);
			break;
		}
		num(o, "socket", r->conns[i].socket);
		cJSON_AddStringToObject(o, "local_host", r->local_addr);
		num(o, "local_port", r->conns[i].local_port);
		cJSON_AddStringToObject(o, "remote_host", r->remote_addr);
		num(o, "remote_port", r->conns[i].remote_port);
	}
	return a;
}

/* iperf3's "version" and "system_info" (uname -a). */
static void add_software(cJSON *o)
{
	struct utsname u;
	char info[5 * sizeof(u.sysname) + 8];

	cJSON_AddStringToObject(o, "version", "ovlperf " OVLPERF_VERSION);
	if (uname(&u) == 0) {
		snprintf(info, sizeof(info), "%s %s %s %s %s", u.sysname, u.nodename, u.release,
			 u.version, u.machine);
		cJSON_AddStringToObject(o, "system_info", info);
	}
}

static cJSON *test_start_json(const struct load_result *r)
{
	const struct load_spec *s = &r->spec;
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "protocol", udp(r) ? "UDP" : "TCP");
	num(o, "num_streams", s->streams);
	num(o, "blksize", s->len);
	/* whole seconds, as iperf3 takes -O and -t */
	num(o, "omit", (double)(s->omit_ns / 1000000000u));
	num(o, "duration", (double)(s->duration_ns / 1000000000u));
	num(o, "bytes", 0);
	num(o, "blocks", 0);
	num(o, "reverse", s->reverse ? 1 : 0);
	num(o, "tos", s->dscp << 2);
	num(o, "target_bitrate", (double)s->rate_bps);
	return o;
}

cJSON *report_iperf3_start(const struct load_result *r)
{
	cJSON *o = cJSON_CreateObject(), *t;
	time_t now = (time_t)r->started_unix;
	struct tm tm;
	char when[64];

	if (!o)
		return NULL;
	cJSON_AddItemToObject(o, "connected", connected_json(r));
	add_software(o);
	if (!r->started_unix)
		return o; /* the test never started: iperf3 says no more */
	t = cJSON_AddObjectToObject(o, "timestamp");
	if (t && gmtime_r(&now, &tm) &&
	    strftime(when, sizeof(when), "%a, %d %b %Y %H:%M:%S GMT", &tm)) {
		cJSON_AddStringToObject(t, "time", when);
		num(t, "timesecs", (double)r->started_unix);
	}
	t = cJSON_AddObjectToObject(o, "connecting_to");
	if (t) {
		cJSON_AddStringToObject(t, "host", r->spec.host);
		num(t, "port", r->spec.port);
	}
	cJSON_AddStringToObject(o, "cookie", r->cookie);
	if (!udp(r))
		num(o, "tcp_mss_default", r->tcp_mss);
	num(o, "target_bitrate", (double)r->spec.rate_bps);
	num(o, "sock_bufsize", r->spec.sock_buf);
	num(o, "sndbuf_actual", r->sndbuf_bytes);
	num(o, "rcvbuf_actual", r->rcvbuf_local_bytes);
	cJSON_AddItemToObject(o, "test_start", test_start_json(r));
	return o;
}

/* start, end, seconds, bytes, bits_per_second of a span. */
static void add_span(cJSON *o, double start, double end, double bytes, bool known)
{
	num(o, "start", start);
	num(o, "end", end);
	num(o, "seconds", end - start);
	numk(o, "bytes", bytes, known);
	numk(o, "bits_per_second", rate(bytes, end - start), known);
}

/* The UDP figures of an interval stream or sum: a sender counts
 * datagrams; a receiver also the lost ones and the jitter so far (RFC
 * 3550's running estimate, as iperf3 reports it; a sum's is its streams'
 * mean, as iperf3's). */
static void add_udp_iv(cJSON *o, const struct load_result *r, uint64_t packets, uint64_t lost,
		       double jitter_ms)
{
	if (client_sends(r)) {
		num(o, "packets", (double)packets);
		return;
	}
	num(o, "jitter_ms", jitter_ms);
	num(o, "lost_packets", (double)lost);
	num(o, "packets", (double)(packets + lost));
	num(o, "lost_percent", pct(lost, packets + lost));
}

static void add_tcp_info_iv(cJSON *o, const struct load_stream_interval *s)
{
	numk(o, "snd_cwnd", s->snd_cwnd_bytes, s->tcp_info);
	numk(o, "snd_wnd", s->snd_wnd, s->tcp_info && s->snd_wnd_known);
	numk(o, "rtt", s->rtt_us, s->tcp_info);
	numk(o, "rttvar", s->rttvar_us, s->tcp_info);
	numk(o, "pmtu", s->pmtu, s->tcp_info);
}

static cJSON *iv_stream_json(const struct load_result *r, const struct load_local_interval *v,
			     unsigned i)
{
	const struct load_stream_interval *s = &v->streams[i];
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	num(o, "socket", s->socket);
	add_span(o, v->start_s, v->end_s, (double)s->bytes, true);
	if (udp(r)) {
		add_udp_iv(o, r, s->packets, s->lost, s->jitter_ms);
	} else if (client_sends(r)) {
		num(o, "retransmits", s->retransmits);
		add_tcp_info_iv(o, s);
	}
	cJSON_AddBoolToObject(o, "omitted", v->omitted);
	cJSON_AddBoolToObject(o, "sender", client_sends(r));
	return o;
}

static cJSON *iv_sum_json(const struct load_result *r, const struct load_local_interval *v)
{
	uint64_t bytes = 0, packets = 0, lost = 0, retrans = 0;
	double jitter = 0;
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	for (unsigned i = 0; i < r->spec.streams; i++) {
		bytes += v->streams[i].bytes;
		packets += v->streams[i].packets;
		lost += v->streams[i].lost;
		retrans += v->streams[i].retransmits;
		jitter += v->streams[i].jitter_ms / r->spec.streams;
	}
	add_span(o, v->start_s, v->end_s, (double)bytes, true);
	if (udp(r))
		add_udp_iv(o, r, packets, lost, jitter);
	else if (client_sends(r))
		num(o, "retransmits", (double)retrans);
	cJSON_AddBoolToObject(o, "omitted", v->omitted);
	cJSON_AddBoolToObject(o, "sender", client_sends(r));
	return o;
}

cJSON *report_iperf3_interval(const struct load_result *r, unsigned idx)
{
	const struct load_local_interval *v = &r->local[idx];
	cJSON *o = cJSON_CreateObject(), *a;

	if (!o)
		return NULL;
	a = cJSON_AddArrayToObject(o, "streams");
	for (unsigned i = 0; a && i < r->spec.streams; i++)
		cJSON_AddItemToArray(a, iv_stream_json(r, v, i));
	cJSON_AddItemToObject(o, "sum", iv_sum_json(r, v));
	return o;
}

/* max/min/mean of a TCP sender's samples: the client's interval samples
 * when it sent, else the sender's TCP_INFO at the end (its one sample). */
struct tcp_extremes {
	bool known, wnd_known;
	double max_cwnd, max_wnd, max_rtt, min_rtt, mean_rtt;
};

static void tcp_extremes(const struct load_result *r, unsigned i, struct tcp_extremes *x)
{
	const struct tcp_info_summary *t = &r->streams[i].tcp_sender;
	double sum = 0;
	unsigned n = 0;

	memset(x, 0, sizeof(*x));
	for (unsigned k = 0; client_sends(r) && k < r->nlocal; k++) {
		const struct load_stream_interval *s = &r->local[k].streams[i];

		if (!s->tcp_info)
			continue;
		x->max_cwnd =
			n && x->max_cwnd > s->snd_cwnd_bytes ? x->max_cwnd : s->snd_cwnd_bytes;
		x->max_wnd = n && x->max_wnd > s->snd_wnd ? x->max_wnd : s->snd_wnd;
		x->max_rtt = n && x->max_rtt > s->rtt_us ? x->max_rtt : s->rtt_us;
		x->min_rtt = n && x->min_rtt < s->rtt_us ? x->min_rtt : s->rtt_us;
		x->wnd_known = x->wnd_known || s->snd_wnd_known;
		sum += s->rtt_us;
		n++;
	}
	if (n) {
		x->known = true;
		x->mean_rtt = (double)(uint64_t)(sum / n);
		return;
	}
	x->known = sender_known(r) && t->rtt_us;
	x->max_cwnd = (double)t->snd_cwnd * t->snd_mss;
	x->max_rtt = x->min_rtt = x->mean_rtt = t->rtt_us;
}

static cJSON *tcp_end_stream(const struct load_result *r, unsigned i)
{
	const struct load_stream_result *s = &r->streams[i];
	cJSON *o = cJSON_CreateObject(), *snd, *rcv;
	struct tcp_extremes x;

	if (!o)
		return NULL;
	tcp_extremes(r, i, &x);
	snd = cJSON_AddObjectToObject(o, "sender");
	rcv = cJSON_AddObjectToObject(o, "receiver");
	if (!snd || !rcv)
		return o;
	num(snd, "socket", i < r->nconns ? r->conns[i].socket : -1);
	add_span(snd, 0, r->sender_duration_s, (double)s->sent_bytes, sender_known(r));
	numk(snd, "retransmits", s->tcp_sender.retransmits, sender_known(r));
	numk(snd, "max_snd_cwnd", x.max_cwnd, x.known);
	numk(snd, "max_snd_wnd", x.max_wnd, x.wnd_known);
	numk(snd, "max_rtt", x.max_rtt, x.known);
	numk(snd, "min_rtt", x.min_rtt, x.known);
	numk(snd, "mean_rtt", x.mean_rtt, x.known);
	cJSON_AddBoolToObject(snd, "sender", client_sends(r));
	num(rcv, "socket", i < r->nconns ? r->conns[i].socket : -1);
	add_span(rcv, 0, r->receiver_duration_s, (double)s->bytes, receiver_known(r));
	cJSON_AddBoolToObject(rcv, "sender", client_sends(r));
	return o;
}

static cJSON *tcp_sum(const struct load_result *r, bool sent)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	if (sent) {
		add_span(o, 0, r->sender_duration_s, (double)r->tcp.sent_bytes, sender_known(r));
		numk(o, "retransmits", r->tcp.sender.retransmits, sender_known(r));
	} else {
		add_span(o, 0, r->receiver_duration_s, (double)r->tcp.bytes, receiver_known(r));
	}
	cJSON_AddBoolToObject(o, "sender", client_sends(r));
	return o;
}

/* The UDP figures of one stream or a sum: the bytes this end moved, the
 * receiver's loss, jitter and reordering against the datagrams sent. */
static void add_udp_end(cJSON *o, const struct load_result *r, const struct udp_result *u,
			bool sent_side)
{
	bool mine = sent_side ? client_sends(r) : !client_sends(r);
	bool known = mine || !r->peer_missing;
	uint64_t moved = sent_side ? u->sent : u->received;
	double dur = sent_side ? r->sender_duration_s : r->receiver_duration_s;

	add_span(o, 0, dur, (double)moved * r->spec.len, known);
	numk(o, "jitter_ms", u->jitter_ms, receiver_known(r));
	numk(o, "lost_packets", (double)u->lost, !r->peer_missing);
	numk(o, "packets", (double)u->sent, sender_known(r));
	numk(o, "lost_percent", pct(u->lost, u->sent), !r->peer_missing);
}

static cJSON *udp_end_stream(const struct load_result *r, unsigned i)
{
	const struct udp_result *u = &r->streams[i].udp;
	cJSON *o = cJSON_CreateObject(), *s;

	if (!o)
		return NULL;
	s = cJSON_AddObjectToObject(o, "udp");
	if (!s)
		return o;
	num(s, "socket", i < r->nconns ? r->conns[i].socket : -1);
	add_udp_end(s, r, u, client_sends(r));
	numk(s, "out_of_order", (double)u->reordered, receiver_known(r));
	cJSON_AddBoolToObject(s, "sender", client_sends(r));
	return o;
}

static cJSON *udp_sum(const struct load_result *r, bool sent_side)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	add_udp_end(o, r, &r->udp, sent_side);
	cJSON_AddBoolToObject(o, "sender", sent_side ? client_sends(r) : false);
	return o;
}

static void add_cpu(cJSON *o, const char *pfx, const struct cpu_use *c, bool known)
{
	char k[32];
	double w = c->wall_s > 0 ? c->wall_s : 0;

	known = known && w > 0;
	snprintf(k, sizeof(k), "%s_total", pfx);
	numk(o, k, known ? 100 * (c->user_s + c->sys_s) / w : 0, known);
	snprintf(k, sizeof(k), "%s_user", pfx);
	numk(o, k, known ? 100 * c->user_s / w : 0, known);
	snprintf(k, sizeof(k), "%s_system", pfx);
	numk(o, k, known ? 100 * c->sys_s / w : 0, known);
}

cJSON *report_iperf3_cpu(const struct cpu_use *host, const struct cpu_use *remote,
			 bool remote_known)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	add_cpu(o, "host", host, true);
	add_cpu(o, "remote", remote, remote_known);
	return o;
}

static cJSON *cpu_json(const struct load_result *r)
{
	bool snd = client_sends(r);

	return report_iperf3_cpu(snd ? &r->cpu_sender : &r->cpu_receiver,
				 snd ? &r->cpu_receiver : &r->cpu_sender, !r->peer_missing);
}

cJSON *report_iperf3_end(const struct load_result *r)
{
	cJSON *o = cJSON_CreateObject(), *a;

	if (!o || !r->nstreams)
		return o; /* nothing was measured: iperf3's "end" is empty then */
	a = cJSON_AddArrayToObject(o, "streams");
	for (unsigned i = 0; a && i < r->nstreams; i++)
		cJSON_AddItemToArray(a, udp(r) ? udp_end_stream(r, i) : tcp_end_stream(r, i));
	if (udp(r))
		cJSON_AddItemToObject(o, "sum", udp_sum(r, client_sends(r)));
	cJSON_AddItemToObject(o, "sum_sent", udp(r) ? udp_sum(r, true) : tcp_sum(r, true));
	cJSON_AddItemToObject(o, "sum_received", udp(r) ? udp_sum(r, false) : tcp_sum(r, false));
	cJSON_AddItemToObject(o, "cpu_utilization_percent", cpu_json(r));
	if (!udp(r)) {
		const char *mine = r->cc_local, *peer = r->peer_missing ? "" : r->cc_peer;

		str_or_null(o, "sender_tcp_congestion", client_sends(r) ? mine : peer);
		str_or_null(o, "receiver_tcp_congestion", client_sends(r) ? peer : mine);
	}
	return o;
}

static void add_load(cJSON *o, const char *key, const struct load_result *r)
{
	if (r->nstreams)
		cJSON_AddItemToObject(o, key, report_load_json(r));
	else
		cJSON_AddNullToObject(o, key);
}

cJSON *report_iperf3_extra(const struct load_result *r, const struct load_result *reverse)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "schema", REPORT_IPERF3_SCHEMA);
	num(o, "schema_version", REPORT_IPERF3_SCHEMA_VERSION);
	add_load(o, "load", r);
	if (reverse)
		add_load(o, "load_reverse", reverse);
	return o;
}

cJSON *report_iperf3_json(const struct load_result *r)
{
	cJSON *o = cJSON_CreateObject(), *a;

	if (!o)
		return NULL;
	cJSON_AddItemToObject(o, "start", report_iperf3_start(r));
	a = cJSON_AddArrayToObject(o, "intervals");
	for (unsigned i = 0; a && i < r->nlocal; i++)
		cJSON_AddItemToArray(a, report_iperf3_interval(r, i));
	cJSON_AddItemToObject(o, "end", report_iperf3_end(r));
	if (r->error[0])
		cJSON_AddStringToObject(o, "error", r->error);
	cJSON_AddItemToObject(o, "ovlperf", report_iperf3_extra(r, NULL));
	return o;
}

int report_iperf3_print(FILE *f, const struct load_result *r, const char *server_text)
{
	cJSON *doc = report_iperf3_json(r);
	int rc;

	if (doc && server_text)
		cJSON_AddStringToObject(doc, "server_output_text", server_text);
	rc = json_out_print(f, doc);

	return rc ? rc : fflush(f) ? -errno : 0;
}

/* --json-stream: one line {"event": NAME, "data": ...} per event, as iperf3
 * writes them (cJSON_PrintUnformatted). */
int report_iperf3_event(FILE *f, const char *name, cJSON *data)
{
	cJSON *o = cJSON_CreateObject();
	char *s;
	int rc = 0;

	if (!o || !data) {
		cJSON_Delete(o);
		cJSON_Delete(data);
		return -ENOMEM;
	}
	cJSON_AddStringToObject(o, "event", name);
	cJSON_AddItemToObject(o, "data", data);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!s)
		return -ENOMEM;
	if (fprintf(f, "%s\n", s) < 0 || fflush(f))
		rc = -EIO;
	free(s);
	return rc;
}

void report_iperf3_stream_local(const struct load_result *r, unsigned idx, void *arg)
{
	struct report_iperf3_stream *st = arg;

	if (!st->started) {
		st->started = true;
		report_iperf3_event(st->f, "start", report_iperf3_start(r));
	}
	report_iperf3_event(st->f, "interval", report_iperf3_interval(r, idx));
}

int report_iperf3_stream_end(struct report_iperf3_stream *st, const struct load_result *r)
{
	int rc = 0;

	if (!st->started) {
		st->started = true;
		rc = report_iperf3_event(st->f, "start", report_iperf3_start(r));
	}
	if (r->error[0] && !rc)
		rc = report_iperf3_event(st->f, "error", cJSON_CreateString(r->error));
	if (!rc && st->server_text)
		rc = report_iperf3_event(st->f, "server_output_text",
					 cJSON_CreateString(st->server_text));
	if (!rc)
		rc = report_iperf3_event(st->f, "end", report_iperf3_end(r));
	if (!rc)
		rc = report_iperf3_event(st->f, "ovlperf", report_iperf3_extra(r, NULL));
	return rc;
}
