// SPDX-License-Identifier: MIT
/* iperf3's -J shape from synthetic results: the keys iperf3 3.12 writes at
 * each level, their JSON types, the values they come from, nulls (never
 * zeros) for what the client cannot know, the error document, the
 * --json-stream events; and the terminal printer's -f units. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_iperf3.h"
#include "report_load.h"

static struct load_conn conns[2] = { { 5, 40000, 5211 }, { 6, 40001, 5211 } };
static struct load_stream_interval ivs[2][2];
static struct load_local_interval local[2];
static struct load_stream_result streams[2];

/* A finished two-stream test, TCP or UDP, forward or reverse. */
static void fixture(struct load_result *r, enum load_proto proto, bool reverse)
{
	memset(r, 0, sizeof(*r));
	memset(streams, 0, sizeof(streams));
	load_spec_defaults(&r->spec);
	r->spec.proto = proto;
	r->spec.reverse = reverse;
	r->spec.streams = 2;
	r->spec.len = proto == LOAD_UDP ? 1400 : 131072;
	r->spec.rate_bps = proto == LOAD_UDP ? 20000000 : 0;
	snprintf(r->spec.host, sizeof(r->spec.host), "198.18.0.2");
	snprintf(r->local_addr, sizeof(r->local_addr), "198.18.0.1");
	snprintf(r->remote_addr, sizeof(r->remote_addr), "198.18.0.2");
	snprintf(r->cc_local, sizeof(r->cc_local), "cubic");
	r->started_unix = 1796128187;
	r->conns = conns;
	r->nconns = 2;
	r->nstreams = 2;
	r->streams = streams;
	r->sender_duration_s = 2.0;
	r->receiver_duration_s = 2.001;
	for (unsigned i = 0; i < 2; i++) {
		local[i] = (struct load_local_interval){ .start_s = i,
							 .end_s = i + 1.0,
							 .streams = ivs[i] };
		for (unsigned s = 0; s < 2; s++)
			ivs[i][s] = (struct load_stream_interval){ .socket = 5 + (int)s,
								   .bytes = 1000,
								   .packets = 10,
								   .lost = 1,
								   .retransmits = 2,
								   .jitter_ms = 0.25 + 0.5 * s,
								   .tcp_info = !reverse,
								   .snd_cwnd_bytes = 14480,
								   .snd_wnd = 65536,
								   .snd_wnd_known = !reverse,
								   .rtt_us = 100 + 10 * i,
								   .rttvar_us = 5,
								   .pmtu = 1500 };
	}
	r->local = local;
	r->nlocal = 2;
	streams[0].sent_bytes = streams[1].sent_bytes = 2000;
	streams[0].bytes = streams[1].bytes = 2000;
	streams[0].udp.sent = streams[1].udp.sent = 20;
	streams[0].udp.received = streams[1].udp.received = 19;
	streams[0].udp.lost = streams[1].udp.lost = 1;
	r->tcp.sent_bytes = r->tcp.bytes = 4000;
	r->udp.sent = 40;
	r->udp.received = 38;
	r->udp.lost = 2;
	r->udp.jitter_ms = 0.25;
	r->cpu_sender = (struct cpu_use){ .user_s = 0.1, .sys_s = 0.3, .wall_s = 2 };
	r->cpu_receiver = (struct cpu_use){ .user_s = 0.1, .sys_s = 0.1, .wall_s = 2 };
}

static const cJSON *at(const cJSON *o, const char *path)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); o && k; k = strtok_r(NULL, ".", &save))
		o = cJSON_IsArray(o) ? cJSON_GetArrayItem(o, atoi(k))
				     : cJSON_GetObjectItemCaseSensitive(o, k);
	return o;
}

/* Exactly these keys, in any order. */
static void keys_are(const cJSON *o, const char *const *keys)
{
	const cJSON *c;
	int n = 0;

	assert_true(cJSON_IsObject(o));
	for (; keys[n]; n++)
		if (!cJSON_HasObjectItem(o, keys[n]))
			fail_msg("missing key %s", keys[n]);
	cJSON_ArrayForEach(c, o)
	{
		bool known = false;

		for (int i = 0; keys[i]; i++)
			known = known || !strcmp(keys[i], c->string);
		if (!known)
			fail_msg("key %s is not iperf3's", c->string);
	}
	assert_int_equal(cJSON_GetArraySize(o), n);
}

static double number(const cJSON *doc, const char *path)
{
	const cJSON *v = at(doc, path);

	if (!cJSON_IsNumber(v))
		fail_msg("%s is not a number", path);
	return v->valuedouble;
}

#define K(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void test_tcp_forward(void **state)
{
	struct load_result r;
	cJSON *d;

	(void)state;
	fixture(&r, LOAD_TCP, false);
	d = report_iperf3_json(&r);
	keys_are(d, K("start", "intervals", "end", "ovlperf"));
	keys_are(at(d, "start"), K("connected", "version", "system_info", "timestamp",
				   "connecting_to", "cookie", "tcp_mss_default", "target_bitrate",
				   "sock_bufsize", "sndbuf_actual", "rcvbuf_actual", "test_start"));
	keys_are(at(d, "start.test_start"),
		 K("protocol", "num_streams", "blksize", "omit", "duration", "bytes", "blocks",
		   "reverse", "tos", "target_bitrate"));
	keys_are(at(d, "intervals.0.streams.1"),
		 K("socket", "start", "end", "seconds", "bytes", "bits_per_second", "retransmits",
		   "snd_cwnd", "snd_wnd", "rtt", "rttvar", "pmtu", "omitted", "sender"));
	keys_are(at(d, "intervals.0.sum"), K("start", "end", "seconds", "bytes", "bits_per_second",
					     "retransmits", "omitted", "sender"));
	keys_are(at(d, "end"), K("streams", "sum_sent", "sum_received", "cpu_utilization_percent",
				 "sender_tcp_congestion", "receiver_tcp_congestion"));
	keys_are(at(d, "end.streams.0.sender"),
		 K("socket", "start", "end", "seconds", "bytes", "bits_per_second", "retransmits",
		   "max_snd_cwnd", "max_snd_wnd", "max_rtt", "min_rtt", "mean_rtt", "sender"));
	assert_int_equal(number(d, "intervals.1.sum.bytes"), 2000);
	assert_int_equal(number(d, "intervals.1.sum.bits_per_second"), 16000);
	assert_int_equal(number(d, "start.connected.1.local_port"), 40001);
	assert_int_equal(number(d, "end.streams.0.sender.max_rtt"), 110);
	assert_int_equal(number(d, "end.streams.0.sender.min_rtt"), 100);
	assert_int_equal(number(d, "end.sum_received.bytes"), 4000);
	assert_int_equal(number(d, "end.cpu_utilization_percent.host_total"), 20);
	assert_int_equal(number(d, "end.cpu_utilization_percent.remote_total"), 10);
	assert_true(cJSON_IsTrue(at(d, "end.sum_sent.sender")));
	assert_string_equal(at(d, "end.sender_tcp_congestion")->valuestring, "cubic");
	/* the server does not say its algorithm: null, not a guess */
	assert_true(cJSON_IsNull(at(d, "end.receiver_tcp_congestion")));
	assert_string_equal(at(d, "ovlperf.schema")->valuestring, REPORT_IPERF3_SCHEMA);
	assert_string_equal(at(d, "ovlperf.load.schema")->valuestring, "ovlperf.load");
	cJSON_Delete(d);
}

static void test_tcp_reverse(void **state)
{
	struct load_result r;
	cJSON *d;

	(void)state;
	fixture(&r, LOAD_TCP, true);
	streams[0].tcp_sender =
		(struct tcp_info_summary){ .rtt_us = 70, .snd_mss = 1448, .snd_cwnd = 10 };
	d = report_iperf3_json(&r);
	keys_are(at(d, "intervals.0.streams.0"), K("socket", "start", "end", "seconds", "bytes",
						   "bits_per_second", "omitted", "sender"));
	assert_true(cJSON_IsFalse(at(d, "intervals.0.sum.sender")));
	/* the server's TCP_INFO at the end is the one sample of the sender */
	assert_int_equal(number(d, "end.streams.0.sender.max_snd_cwnd"), 14480);
	assert_int_equal(number(d, "end.streams.0.sender.mean_rtt"), 70);
	assert_true(cJSON_IsNull(at(d, "end.streams.0.sender.max_snd_wnd")));
	assert_true(cJSON_IsNull(at(d, "end.sender_tcp_congestion")));
	assert_string_equal(at(d, "end.receiver_tcp_congestion")->valuestring, "cubic");
	cJSON_Delete(d);
}

static void test_udp(void **state)
{
	struct load_result r;
	cJSON *d;

	(void)state;
	fixture(&r, LOAD_UDP, false);
	d = report_iperf3_json(&r);
	assert_null(at(d, "start.tcp_mss_default"));
	keys_are(at(d, "intervals.0.streams.0"),
		 K("socket", "start", "end", "seconds", "bytes", "bits_per_second", "packets",
		   "omitted", "sender"));
	keys_are(at(d, "end"),
		 K("streams", "sum", "sum_sent", "sum_received", "cpu_utilization_percent"));
	keys_are(at(d, "end.streams.1.udp"),
		 K("socket", "start", "end", "seconds", "bytes", "bits_per_second", "jitter_ms",
		   "lost_packets", "packets", "lost_percent", "out_of_order", "sender"));
	keys_are(at(d, "end.sum"),
		 K("start", "end", "seconds", "bytes", "bits_per_second", "jitter_ms",
		   "lost_packets", "packets", "lost_percent", "sender"));
	assert_int_equal(number(d, "end.sum.lost_packets"), 2);
	assert_int_equal(number(d, "end.sum.packets"), 40);
	assert_int_equal(number(d, "end.sum.lost_percent"), 5);
	assert_int_equal(number(d, "end.sum_received.bytes"), 38 * 1400);
	assert_int_equal(number(d, "end.sum_sent.bytes"), 40 * 1400);
	assert_int_equal(number(d, "start.test_start.target_bitrate"), 20000000);
	cJSON_Delete(d);
	/* a receiving client counts the lost ones and says the jitter so far
	 * (the sum: its streams' mean) */
	fixture(&r, LOAD_UDP, true);
	d = report_iperf3_json(&r);
	keys_are(at(d, "intervals.0.sum"),
		 K("start", "end", "seconds", "bytes", "bits_per_second", "jitter_ms",
		   "lost_packets", "packets", "lost_percent", "omitted", "sender"));
	assert_true(number(d, "intervals.0.sum.jitter_ms") == 0.5);
	assert_int_equal(number(d, "intervals.0.sum.packets"), 22);
	assert_int_equal(number(d, "intervals.0.sum.lost_packets"), 2);
	cJSON_Delete(d);
}

/* The server's RESULTS never came: its figures are null, the client's kept. */
static void test_peer_missing(void **state)
{
	struct load_result r;
	cJSON *d;

	(void)state;
	fixture(&r, LOAD_UDP, false);
	r.peer_missing = true;
	r.interrupted = true;
	snprintf(r.error, sizeof(r.error), "control connection: peer closed");
	d = report_iperf3_json(&r);
	assert_string_equal(at(d, "error")->valuestring, "control connection: peer closed");
	assert_int_equal(number(d, "end.sum_sent.bytes"), 40 * 1400);
	assert_true(cJSON_IsNull(at(d, "end.sum_received.bytes")));
	assert_true(cJSON_IsNull(at(d, "end.sum.lost_packets")));
	assert_true(cJSON_IsNull(at(d, "end.sum.jitter_ms")));
	assert_true(cJSON_IsNull(at(d, "end.cpu_utilization_percent.remote_total")));
	assert_true(number(d, "end.cpu_utilization_percent.host_total") > 0);
	cJSON_Delete(d);
}

/* Nothing measured: iperf3's error document, no figure at all. */
static void test_error(void **state)
{
	struct load_result r;
	cJSON *d;

	(void)state;
	memset(&r, 0, sizeof(r));
	load_spec_defaults(&r.spec);
	snprintf(r.error, sizeof(r.error), "cannot connect to 198.18.0.2:5211: refused");
	d = report_iperf3_json(&r);
	keys_are(d, K("start", "intervals", "end", "error", "ovlperf"));
	keys_are(at(d, "start"), K("connected", "version", "system_info"));
	assert_int_equal(cJSON_GetArraySize(at(d, "start.connected")), 0);
	assert_int_equal(cJSON_GetArraySize(at(d, "intervals")), 0);
	assert_int_equal(cJSON_GetArraySize(at(d, "end")), 0);
	assert_true(cJSON_IsNull(at(d, "ovlperf.load")));
	cJSON_Delete(d);
}

static void test_stream_events(void **state)
{
	struct load_result r;
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	const char *want[] = { "start", "interval", "interval", "end", "ovlperf" };
	struct report_iperf3_stream st = { .f = open_memstream(&buf, &len) };
	int n = 0;

	(void)state;
	assert_non_null(st.f);
	fixture(&r, LOAD_TCP, false);
	report_iperf3_stream_local(&r, 0, &st);
	report_iperf3_stream_local(&r, 1, &st);
	assert_int_equal(report_iperf3_stream_end(&st, &r), 0);
	fclose(st.f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		cJSON *e = cJSON_Parse(line);

		assert_true(n < 5);
		keys_are(e, K("event", "data"));
		assert_string_equal(at(e, "event")->valuestring, want[n]);
		cJSON_Delete(e);
	}
	assert_int_equal(n, 5);
	free(buf);
}

static char *term(const struct load_result *r, char units)
{
	struct report_term t = { .units = units };
	char *buf = NULL;
	size_t len = 0;

	t.f = open_memstream(&buf, &len);
	assert_non_null(t.f);
	report_load_term_header(&t, &r->spec);
	report_load_term(&t, r);
	fclose(t.f);
	return buf;
}

static void test_units(void **state)
{
	static const struct {
		char units;
		const char *want;
	} cases[] = {
		{ 0, "20.00 Mbit/s" },	{ 'k', "20000.00 kbit/s" }, { 'm', "20.00 Mbit/s" },
		{ 'g', "0.02 Gbit/s" }, { 'K', "2500.00 kB/s" },    { 'M', "2.50 MB/s" },
		{ 'G', "0.00 GB/s" },
	};
	struct load_result r;

	(void)state;
	fixture(&r, LOAD_UDP, false);
	r.udp.target_bps = r.spec.rate_bps;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = term(&r, cases[i].units);

		if (!strstr(out, cases[i].want))
			fail_msg("-f %c: no '%s' in:\n%s", cases[i].units ? cases[i].units : '-',
				 cases[i].want, out);
		free(out);
	}
	/* -b 0 asks for no rate: the header says so, never "target 0" */
	r.spec.rate_bps = 0;
	{
		char *out = term(&r, 0);

		assert_non_null(strstr(out, "as fast as the sender can"));
		assert_null(strstr(out, "target 0"));
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp_forward), cmocka_unit_test(test_tcp_reverse),
		cmocka_unit_test(test_udp),	    cmocka_unit_test(test_peer_missing),
		cmocka_unit_test(test_error),	    cmocka_unit_test(test_stream_events),
		cmocka_unit_test(test_units),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
