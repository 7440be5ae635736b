// SPDX-License-Identifier: MIT
/* Human tables of one load test. Rates are decimal (1 Mbit/s = 10^6 bit/s),
 * byte counts decimal too (1 MB = 10^6 bytes), as network engineers read them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_facts.h"
#include "clock.h"
#include "report_layers.h"
#include "loss_place.h"
#include "report_load.h"
#include "tcp_limit.h"

static const char *fmt_scaled(char *buf, size_t size, double v, const char *unit)
{
	static const char pre[] = " kMGT";
	unsigned i = 0;

	while (v >= 999.95 && i < sizeof(pre) - 2) { /* 999.96 is "1.000 k", not "1000.0" */
		v /= 1000.0;
		i++;
	}
	if (i == 0)
		snprintf(buf, size, "%.0f %s", v, unit);
	else
		snprintf(buf, size, "%.*f %c%s", v < 10 ? 3 : v < 100 ? 2 : 1, v, pre[i], unit);
	return buf;
}

/* A rate in the unit -f asked for (report_load.h), else scaled to fit. */
static const char *fmt_rate(char *buf, size_t size, uint64_t bps, char units)
{
	static const char *const name[] = { "kbit/s", "Mbit/s", "Gbit/s", "kB/s", "MB/s", "GB/s" };
	static const double scale[] = { 1e3, 1e6, 1e9, 8e3, 8e6, 8e9 };
	const char *p = units ? strchr(REPORT_UNITS, units) : NULL;

	if (!p)
		return fmt_scaled(buf, size, (double)bps, "bit/s");
	snprintf(buf, size, "%.2f %s", (double)bps / scale[p - REPORT_UNITS],
		 name[p - REPORT_UNITS]);
	return buf;
}

static const char *fmt_bytes(char *buf, size_t size, uint64_t bytes)
{
	return fmt_scaled(buf, size, (double)bytes, "B");
}

void report_load_term_header(const struct report_term *t, const struct load_spec *spec)
{
	FILE *f = t->f;
	char rate[32];

	fprintf(f, "%s%sovlperf %s test to %s port %u: %u stream%s, %.1f s", t->tag ? t->tag : "",
		t->tag ? " " : "", spec->proto == LOAD_UDP ? "UDP" : "TCP", spec->host,
		spec->port ? spec->port : LOAD_DEFAULT_PORT, spec->streams,
		spec->streams == 1 ? "" : "s", (double)spec->duration_ns / 1e9);
	if (spec->omit_ns)
		fprintf(f, " (+%.1f s omitted)", (double)spec->omit_ns / 1e9);
	if (spec->rate_bps)
		fprintf(f, ", target %s", fmt_rate(rate, sizeof(rate), spec->rate_bps, t->units));
	else
		fprintf(f, ", as fast as the sender can");
	fprintf(f, ", %s\n", spec->reverse ? "reverse (server sends)" : "client sends");
	fflush(f);
}

void report_load_term_interval(const struct load_result *res, const struct load_interval *iv,
			       void *term)
{
	const struct report_term *t = term;
	FILE *f = t->f;
	char b1[32], b2[32];

	if (res->nintervals == 1)
		fprintf(f, "%s%s%-15s %12s %16s %10s\n", t->tag ? t->tag : "", t->tag ? " " : "",
			"interval [s]", "transfer", "bitrate",
			res->spec.proto == LOAD_UDP ? "lost" : "retr");
	if (t->tag)
		fprintf(f, "%s ", t->tag);
	fprintf(f, "%6.2f-%-8.2f %12s %16s %10" PRIu64 "\n", iv->start_s, iv->end_s,
		fmt_bytes(b1, sizeof(b1), iv->bytes), fmt_rate(b2, sizeof(b2), iv->bps, t->units),
		res->spec.proto == LOAD_UDP ? iv->lost : (uint64_t)iv->retransmits);
	fflush(f);
}

static void print_tcp_info(FILE *f, const char *who, const struct tcp_info_summary *t)
{
	fprintf(f,
		"  TCP_INFO %-8s retransmits %u, rtt %u us (var %u), snd_mss %u, adv_mss %u, "
		"rcv_mss %u, pmtu %u, cwnd %u\n",
		who, t->retransmits, t->rtt_us, t->rttvar_us, t->snd_mss, t->adv_mss, t->rcv_mss,
		t->pmtu, t->snd_cwnd);
}

/* What limited the test (results/tcp_limit.h): the verdict, its evidence,
 * the fix, and the shares of time it stands on. */
static void print_tcp_limit(FILE *f, const struct load_result *res)
{
	struct tcp_limit_verdict v;

	if (res->peer_missing)
		return;
	tcp_limit_of(res, 0, &v);
	if (v.limit == TCP_LIMIT_UNKNOWN) {
		fprintf(f, "  limited by: unknown (%s)\n", v.evidence);
		return;
	}
	fprintf(f, "  limited by: %s: %s\n", tcp_limit_name(v.limit), v.evidence);
	if (v.fix[0])
		fprintf(f, "    fix: %s\n", v.fix);
	fprintf(f,
		"    time: write queue empty %.1f %%, receive window %.1f %%, send buffer %.1f %%, "
		"congestion window %.1f %%; resent %.3f %%; round trip %.2f ms (%.2f above its "
		"least); busiest threads: sender %.0f %%, receiver %.0f %% of a core\n",
		v.app * 100, v.rwnd * 100, v.sndbuf * 100, v.cwnd * 100, v.retrans_ratio * 100,
		v.rtt_ms, v.queue_ms, v.sender_cpu * 100, v.receiver_cpu * 100);
}

static void print_tcp(FILE *f, const struct load_result *res, char units)
{
	char b1[32], b2[32];

	fprintf(f, "%-8s %12s %16s %8s %9s %8s %8s\n", "stream", "transfer", "goodput", "retr",
		"rtt [us]", "snd_mss", "cwnd");
	for (unsigned i = 0; i < res->nstreams; i++) {
		const struct load_stream_result *s = &res->streams[i];

		fprintf(f, "%-8u %12s %16s %8u %9u %8u %8u\n", i + 1,
			fmt_bytes(b1, sizeof(b1), s->bytes),
			fmt_rate(b2, sizeof(b2), s->bps, units), s->tcp_sender.retransmits,
			s->tcp_sender.rtt_us, s->tcp_sender.snd_mss, s->tcp_sender.snd_cwnd);
	}
	fprintf(f, "%-8s %12s %16s %8u\n", "sum", fmt_bytes(b1, sizeof(b1), res->tcp.bytes),
		fmt_rate(b2, sizeof(b2), res->tcp.goodput_bps, units), res->tcp.sender.retransmits);
	print_tcp_info(f, "sender", &res->tcp.sender);
	print_tcp_info(f, "receiver", &res->tcp.receiver);
	print_tcp_limit(f, res);
}

static void print_owd(FILE *f, const struct load_result *res)
{
	const struct owd_summary *o = &res->udp.owd;

	if (!o->valid) {
		fprintf(f, "  one-way delay: n/a (nothing received)\n");
		return;
	}
	fprintf(f, "  one-way delay [us]: min %.1f  p50 %.1f  p99 %.1f  max %.1f  mean %.1f\n",
		(double)o->min_ns / 1e3, (double)o->p50_ns / 1e3, (double)o->p99_ns / 1e3,
		(double)o->max_ns / 1e3, (double)o->mean_ns / 1e3);
	if (!res->owd_shared_clock)
		fprintf(f,
			"    (the ends do not share a clock: each value is at most %.1f us above "
			"the true delay; p99 - min = %.1f us is queueing, not offset)\n",
			(double)o->error_ns / 1e3, (double)(o->p99_ns - o->min_ns) / 1e3);
	o = &res->udp.rx_wait;
	if (o->valid)
		fprintf(f,
			"  of that, in the receiver's socket [us]: p50 %.1f  p99 %.1f  max %.1f  "
			"mean %.1f (kernel arrival to the read: the receiving application's "
			"share, not the path's)\n",
			(double)o->p50_ns / 1e3, (double)o->p99_ns / 1e3, (double)o->max_ns / 1e3,
			(double)o->mean_ns / 1e3);
}

/* One line per place with loss, in path order: how many, and the fix. */
static void print_loss_at(FILE *f, const struct udp_result *u)
{
	const struct loss_attrib *l = &u->loss_at;
	char fix[256];

	if (!u->lost)
		return;
	fprintf(f, "  where the %" PRIu64 " lost datagrams were lost:\n", u->lost);
	for (int p = 0; p < LOSS_PLACE_COUNT; p++) {
		uint64_t n = loss_place_count(l, (enum loss_place)p);

		if (!n)
			continue;
		loss_place_fix(fix, sizeof(fix), l, (enum loss_place)p);
		fprintf(f, "    %-38s %10" PRIu64 " (%.1f %%)  fix: %s\n",
			loss_place_name_at(l, (enum loss_place)p), n,
			100.0 * (double)n / (double)u->lost, fix);
	}
}

/* The datagrams at every layer, RFC 2544 style: frames with FCS, line with
 * preamble, SFD and inter-frame gap. */
static void print_layers(FILE *f, const struct load_result *res)
{
	struct report_layers l;

	if (!report_layers_get(res, &l))
		return;
	fprintf(f, "  %-8s %8s %16s %16s   (%s, %.0f pps sent, %.0f pps received)\n", "layer",
		"bytes", "sent Mbit/s", "received Mbit/s", l.family == AF_INET6 ? "IPv6" : "IPv4",
		l.sent_pps, l.received_pps);
	for (unsigned i = 0; i < LAYER_COUNT; i++)
		fprintf(f, "  %-8s %8" PRIu64 " %16.3f %16.3f\n", layer_name((enum layer)i),
			l.bytes[i], l.sent_bps[i] / 1e6, l.received_bps[i] / 1e6);
}

static void print_udp(FILE *f, const struct load_result *res, char units)
{
	const struct udp_result *u = &res->udp;
	char b1[32], b2[32], b3[32];

	fprintf(f, "%-8s %12s %12s %10s %8s %8s %16s %16s %10s\n", "stream", "sent", "received",
		"lost", "dup", "reord", "achieved", "received", "jitter");
	for (unsigned i = 0; i < res->nstreams; i++) {
		const struct udp_result *s = &res->streams[i].udp;

		fprintf(f,
			"%-8u %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %8" PRIu64 " %8" PRIu64
			" %16s %16s %7.3f ms\n",
			i + 1, s->sent, s->received, s->lost, s->duplicates, s->reordered,
			fmt_rate(b1, sizeof(b1), s->achieved_bps, units),
			fmt_rate(b2, sizeof(b2), s->received_bps, units), s->jitter_ms);
	}
	fprintf(f,
		"%-8s %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %8" PRIu64 " %8" PRIu64
		" %16s %16s %7.3f ms\n",
		"sum", u->sent, u->received, u->lost, u->duplicates, u->reordered,
		fmt_rate(b1, sizeof(b1), u->achieved_bps, units),
		fmt_rate(b2, sizeof(b2), u->received_bps, units), u->jitter_ms);
	fprintf(f, "  loss %.4f %% of %" PRIu64 " datagrams of %u B; target %s, achieved %s%s\n",
		u->sent ? 100.0 * (double)u->lost / (double)u->sent : 0.0, u->sent, u->len,
		fmt_rate(b1, sizeof(b1), u->target_bps, units),
		fmt_rate(b3, sizeof(b3), u->achieved_bps, units),
		u->generator_limited ? "  (GENERATOR LIMITED: the sender fell short of the target)"
				     : "");
	print_layers(f, res);
	if (u->sender_diag && (u->skipped_late_wakeup || u->skipped_slow_send ||
			       u->skipped_blocked_send || u->send_refused))
		fprintf(f,
			"  sender: datagrams skipped: %" PRIu64 " after late wake-ups (this host "
			"did not run the sender on time), %" PRIu64 " after slow send calls (the "
			"kernel's send path: local qdisc, softirq work), %" PRIu64 " blocked by "
			"the local queue; %" PRIu64 " sends refused by it\n",
			u->skipped_late_wakeup, u->skipped_slow_send, u->skipped_blocked_send,
			u->send_refused);
	if (u->malformed)
		fprintf(f, "  malformed datagrams dropped: %" PRIu64 "\n", u->malformed);
	print_owd(f, res);
	print_loss_at(f, u);
	fprintf(f, "  offloads: GSO %s, GRO %s; receiver SO_RCVBUF %u B\n",
		res->udp_gso_used ? "on" : "off", res->udp_gro_used ? "on" : "off",
		res->rcvbuf_bytes);
	if (u->fragments > 1)
		fprintf(f,
			"  FRAGMENTED: each %u-B datagram left as %u IP fragments (path MTU %u)\n",
			u->len, u->fragments, u->path_mtu);
}

static void print_cpu(FILE *f, const char *who, const struct cpu_use *c, double s_per_gbit)
{
	fprintf(f, "  CPU %-8s user %.2f s, sys %.2f s over %.2f s wall: %.3f CPU-s per Gbit\n",
		who, c->user_s, c->sys_s, c->wall_s, s_per_gbit);
}

/* Each end's host facts in a line; nothing when neither was read (a
 * test that never ran). */
static void print_facts(FILE *f, const struct load_result *res)
{
	char buf[1024];

	if (!res->facts_client.known && !res->facts_client.unknown[0])
		return;
	report_facts_brief(buf, sizeof(buf), &res->facts_client);
	fprintf(f, "  client host: %s\n", buf);
	report_facts_brief(buf, sizeof(buf), &res->facts_server);
	fprintf(f, "  server host: %s\n", buf);
}

void report_load_term(const struct report_term *t, const struct load_result *res)
{
	FILE *f = t->f;
	char sc[16], ss[16];

	/* the threads' scheduling: a real-time end starves a userspace
	 * overlay on its host, so it belongs beside the figures */
	fprintf(f, "\n%s%s%s%s %s -> %s, %.2f s measured; scheduling: client %s, server %s\n",
		t->tag ? t->tag : "", t->tag ? " " : "",
		res->interrupted ? "INTERRUPTED: partial result. " : "",
		res->spec.proto == LOAD_UDP ? "UDP" : "TCP",
		res->spec.reverse ? res->remote_addr : res->local_addr,
		res->spec.reverse ? res->local_addr : res->remote_addr, res->duration_s,
		load_sched_name(&res->sched_client, sc, sizeof(sc)),
		load_sched_name(&res->sched_server, ss, sizeof(ss)));
	if (res->peer_missing)
		fprintf(f,
			"  UNKNOWN: the server's results never arrived, so the %s's figures "
			"below (%s, its CPU) are not measurements: read them as unknown, not 0\n",
			res->spec.reverse ? "sender" : "receiver",
			res->spec.proto == LOAD_UDP
				? (res->spec.reverse
					   ? "sent, lost, loss, achieved rate"
					   : "received, lost, loss, jitter, one-way delay")
				: (res->spec.reverse ? "sent bytes, retransmits, RTT, cwnd"
						     : "bytes received, goodput"));
	if (res->spec.proto == LOAD_UDP)
		print_udp(f, res, t->units);
	else
		print_tcp(f, res, t->units);
	print_cpu(f, "sender", &res->cpu_sender, res->sender_cpu_s_per_gbit);
	print_cpu(f, "receiver", &res->cpu_receiver, res->receiver_cpu_s_per_gbit);
	print_facts(f, res);
	if (res->error[0])
		fprintf(f, "  error: %s\n", res->error);
	fflush(f);
}

/* The server's end of one stream: what it moved (received, or sent with -R). */
static uint64_t server_stream_bytes(const struct load_result *r, unsigned i)
{
	const struct load_stream_result *s = &r->streams[i];

	if (r->spec.proto == LOAD_UDP)
		return (r->spec.reverse ? s->udp.sent : s->udp.received) * r->spec.len;
	return r->spec.reverse ? s->sent_bytes : s->bytes;
}

void report_load_term_server(const struct report_term *t, const struct load_result *r)
{
	bool sends = r->spec.reverse;
	double dur = sends ? r->sender_duration_s : r->receiver_duration_s;
	const struct cpu_use *c = sends ? &r->cpu_sender : &r->cpu_receiver;
	uint64_t total = 0;
	char b1[32], b2[32];
	FILE *f = t->f;

	fprintf(f, "server %s (%s): %s test from %s, %u stream%s, the server %s\n", r->remote_addr,
		r->server_version[0] ? r->server_version : "?",
		r->spec.proto == LOAD_UDP ? "UDP" : "TCP", r->local_addr, r->spec.streams,
		r->spec.streams == 1 ? "" : "s", sends ? "sending" : "receiving");
	if (r->peer_missing) {
		fprintf(f, "its results never arrived: nothing of its end is known\n");
		return;
	}
	/* a receiving server's interval reports are the test's intervals */
	for (unsigned i = 0; !sends && i < r->nintervals; i++)
		fprintf(f, "[SUM] %6.2f-%-6.2f s %12s %16s\n", r->intervals[i].start_s,
			r->intervals[i].end_s, fmt_bytes(b1, sizeof(b1), r->intervals[i].bytes),
			fmt_rate(b2, sizeof(b2), r->intervals[i].bps, t->units));
	fprintf(f, "- - - - - - - - - - - - - - - - - - - - - - - - -\n");
	for (unsigned i = 0; i < r->nstreams; i++) {
		uint64_t b = server_stream_bytes(r, i);

		total += b;
		fprintf(f, "[%3u] %6.2f-%-6.2f s %12s %16s %s\n", i + 1, 0.0, dur,
			fmt_bytes(b1, sizeof(b1), b),
			fmt_rate(b2, sizeof(b2), dur > 0 ? (uint64_t)((double)b * 8 / dur) : 0,
				 t->units),
			sends ? "sender" : "receiver");
	}
	fprintf(f, "[SUM] %6.2f-%-6.2f s %12s %16s %s\n", 0.0, dur,
		fmt_bytes(b1, sizeof(b1), total),
		fmt_rate(b2, sizeof(b2), dur > 0 ? (uint64_t)((double)total * 8 / dur) : 0,
			 t->units),
		sends ? "sender" : "receiver");
	fprintf(f, "CPU: user %.2f s, sys %.2f s over %.2f s wall\n", c->user_s, c->sys_s,
		c->wall_s);
}

char *report_load_server_text(const struct load_result *r, char units)
{
	struct report_term t = { .units = units };
	char *buf = NULL;
	size_t len = 0;

	t.f = open_memstream(&buf, &len);
	if (!t.f)
		return NULL;
	report_load_term_server(&t, r);
	if (fclose(t.f)) {
		free(buf);
		return NULL;
	}
	return buf;
}
