// SPDX-License-Identifier: MIT
/* The verdict on what limited a TCP test, from figures shaped like those
 * the lab measured (a 20 ms round trip: the far host's tcp_rmem maximum
 * 256 KiB, this host's tcp_wmem maximum 256 KiB, -b 50M; a 300 Mbit/s tbf;
 * 2 % random drop with no delay), each built so the answer is known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tcp_limit.h"

/* One stream over 3 s at a 20 ms round trip, nothing binding: the buffers
 * and windows large, the write queue busy, no loss, no queue. */
static void base(struct load_result *r, double goodput)
{
	struct tcp_end_limits *s = &r->tcp.sender_limits, *d = &r->tcp.receiver_limits;

	memset(r, 0, sizeof(*r));
	r->spec.proto = LOAD_TCP;
	r->spec.streams = 1;
	r->tcp.goodput_bps = (uint64_t)goodput;
	r->tcp.sender.rtt_us = 20150;
	r->tcp.sender.snd_mss = 1448;
	r->tcp.sender.snd_cwnd = 100000; /* 145 MB: never the limit here */
	*s = (struct tcp_end_limits){ .known = true,
				      .chrono = true,
				      .sysctl = true,
				      .streams = 1,
				      .window_s = 3,
				      .busy_s = 3,
				      .bytes_sent = (uint64_t)(goodput * 3 / 8),
				      .min_rtt_us = 20015,
				      .snd_wnd = 64u << 20,
				      .sock_sndbuf = 1u << 20,
				      .sock_rcvbuf = 1u << 20,
				      .tcp_rmem_max = 32u << 20,
				      .tcp_wmem_max = 4u << 20,
				      .thread_cpu = 0.02 };
	*d = *s;
	d->chrono = false;
	d->thread_cpu = 0.1;
}

static void test_receive_window(void **state)
{
	struct load_result r;
	struct tcp_limit_verdict v;
	unsigned long long value = 0;
	const char *p;

	(void)state;
	base(&r, 63.06e6);
	r.tcp.sender_limits.rwnd_limited_s = 1.07; /* the kernel's share: 36 % */
	r.tcp.sender_limits.snd_wnd = 162432;
	r.tcp.sender.snd_cwnd = 272;
	r.tcp.receiver_limits.sock_rcvbuf = 262144;
	r.tcp.receiver_limits.tcp_rmem_max = 262144;
	tcp_limit_of(&r, 0, &v);
	assert_int_equal(v.limit, TCP_LIMIT_RWND);
	assert_string_equal(tcp_limit_name(v.limit), "receive window");
	assert_non_null(strstr(v.evidence, "162432 B window the far host advertised"));
	/* the window allowed is the peer's, over the round trip */
	assert_true(v.allowed_bps > 64.4e6 && v.allowed_bps < 64.6e6);
	/* the fix names the sysctl, on the receiving host, with a value at
	 * least the bandwidth-delay product measured */
	p = strstr(v.fix, "net.ipv4.tcp_rmem");
	assert_non_null(p);
	assert_non_null(strstr(v.fix, "on the far host from 262144 to "));
	assert_int_equal(sscanf(strstr(v.fix, " to ") + 4, "%llu", &value), 1);
	assert_true((double)value >= v.needed_window_B);
	assert_true(value >= 4u << 20);
	/* reversed, the receiving host is this one */
	r.spec.reverse = true;
	tcp_limit_of(&r, 0, &v);
	assert_non_null(strstr(v.fix, "on this host"));
	/* a test that set -w gets that as the fix */
	r.spec.sock_buf = 131072;
	tcp_limit_of(&r, 0, &v);
	assert_non_null(strstr(v.fix, "a larger -w"));
}

static void test_reader_cpu_closes_the_window(void **state)
{
	struct load_result r;
	struct tcp_limit_verdict v;

	(void)state;
	base(&r, 63.06e6);
	r.tcp.sender_limits.snd_wnd = 162432;
	r.tcp.receiver_limits.thread_cpu = 0.99;
	tcp_limit_of(&r, 0, &v);
	assert_int_equal(v.limit, TCP_LIMIT_RECEIVER_CPU);
	assert_non_null(strstr(v.evidence, "99 % of a core"));
	assert_non_null(strstr(v.evidence, "the far host"));
}

static void test_send_buffer(void **state)
{
	struct load_result r;
	struct tcp_limit_verdict v;

	(void)state;
	base(&r, 76.76e6);
	r.tcp.sender_limits.sndbuf_limited_s = 2.39; /* 79 % */
	r.tcp.sender_limits.snd_wnd = 1159168;
	r.tcp.sender.snd_cwnd = 573;
	r.tcp.sender_limits.sock_sndbuf = 262144;
	r.tcp.sender_limits.tcp_wmem_max = 262144;
	tcp_limit_of(&r, 0, &v);
	assert_int_equal(v.limit, TCP_LIMIT_SNDBUF);
	assert_non_null(strstr(v.fix, "net.ipv4.tcp_wmem"));
	assert_non_null(strstr(v.fix, "on this host from 262144"));
	/* the default lab at 20 ms: autotuning at its 4 MiB maximum, 31 % of
	 * the time stalled on it, 1.1 Gbit/s */
	base(&r, 1.096e9);
	r.tcp.sender_limits.sock_sndbuf = 4u << 20;
	r.tcp.sender_limits.sndbuf_limited_s = 0.94;
	r.tcp.sender.snd_cwnd = 5744;
	tcp_limit_of(&r, 0, &v);
	assert_int_equal(v.limit, TCP_LIMIT_SNDBUF);
	/* at its maximum without stalls (2 % random drop: the buffer holds
	 * what waits for the holes' repair) it is not the send buffer */
	r.tcp.sender_limits.sndbuf_limited_s = 0.006;
	r.tcp.sender_limits.bytes_retrans = r.tcp.sender_limits.bytes_sent / 50;
	tcp_limit_of(&r, 0, &v);
	assert_int_equal(v.limit, TCP_LIMIT_LOSS);
}

static void test_application(void **state)
{
	struct load_result r;
	struct tcp_limit_verdict v;

	(void)state;
	/* -b 50M: a paced writer keeps the write queue busy, yet reached its rate */
	base(&r, 50.32e6);
	r.spec.rate_bps = 50000000;
	tcp_limit_of(&r, 0, &v);
	assert_int_equal(v.limit, TCP_LIMIT_APPLICATION);
	assert_string_equal(v.fix, "none: it ran at the rate asked");
	/* an idle write queue without -b: the writer */
	base(&r, 10e6);
	r.tcp.sender_limits.busy_s = 0.6;
	tcp_limit_of(&r, 0, &v);
	assert_int_equal(v.limit, TCP_LIMIT_APPLICATION);
	assert_true(v.app > 0.79 && v.app < 0.81);
	/* ... unless its thread was at a full core */
	r.tcp.sender_limits.thread_cpu = 0.99;
	tcp_limit_of(&r, 0, &v);
	assert_int_equal(v.limit, TCP_LIMIT_SENDER_CPU);
	assert_non_null(strstr(v.evidence, "sending thread on this host"));
}

static void test_network_rate_and_loss(void **state)
{
	struct load_result r;
	struct tcp_limit_verdict v;
	/* every CPU on the path read (a lab's machine), none at a core */
	const struct tcp_limit_ctx all_read = { 0 };

	(void)state;
	/* the tbf: the congestion window binds, its queue adds 2.6 ms */
	base(&r, 286.9e6);
	r.tcp.sender.rtt_us = 2650;
	r.tcp.sender_limits.min_rtt_us = 12;
	r.tcp.sender.snd_cwnd = 70;
	tcp_limit_judge(&r.tcp, &all_read, &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);
	assert_true(v.queue_ms > 2.6 && v.queue_ms < 2.7);
	/* ovlperf client reads no overlay's process, the far host no CPU
	 * beyond its test thread: the same queue decides nothing */
	snprintf(r.server_version, sizeof(r.server_version), "0.1.0");
	tcp_limit_of(&r, 0, &v);
	assert_int_equal(v.limit, TCP_LIMIT_UNKNOWN);
	assert_true(v.undecided);
	assert_non_null(strstr(v.evidence, "far host's CPU not reported: server 0.1.0"));
	assert_null(strstr(v.fix, "network"));
	/* no queue, but the caller knows the path's rate and it was reached */
	r.tcp.sender.rtt_us = 60;
	r.tcp.sender.snd_cwnd = 2;
	tcp_limit_of(&r, 300000000, &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);
	/* random drop: resent bytes with no queue */
	base(&r, 3.812e9);
	r.tcp.sender.rtt_us = 390;
	r.tcp.sender_limits.min_rtt_us = 4;
	r.tcp.sender.snd_cwnd = 120;
	r.tcp.sender.retransmits = 21217;
	r.tcp.sender_limits.bytes_retrans = r.tcp.sender_limits.bytes_sent / 50;
	tcp_limit_of(&r, 0, &v);
	assert_int_equal(v.limit, TCP_LIMIT_LOSS);
	assert_true(v.retrans_ratio > 0.0199 && v.retrans_ratio < 0.0201);
	assert_non_null(strstr(v.evidence, "21217 segments"));
	/* ... even when the last round trip sample sat above its least (a
	 * loaded link emulator): 2 % resent is no bottleneck's queue */
	r.tcp.sender.rtt_us = 3200;
	r.tcp.sender_limits.min_rtt_us = 2000;
	tcp_limit_of(&r, 0, &v);
	assert_int_equal(v.limit, TCP_LIMIT_LOSS);
	r.tcp.sender_limits.bytes_retrans = r.tcp.sender_limits.bytes_sent / 5000;
	tcp_limit_judge(&r.tcp, &all_read, &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);
	r.tcp.sender.rtt_us = 390;
	r.tcp.sender_limits.min_rtt_us = 4;
	r.tcp.sender_limits.bytes_retrans = r.tcp.sender_limits.bytes_sent / 50;
	/* the receiver's window shrunk at the end by what the losses left
	 * out of order (26 % of the time stalled on it, 74 % in the
	 * congestion window): still the loss */
	r.tcp.sender_limits.snd_wnd = (uint32_t)(v.needed_window_B * 1.1);
	r.tcp.sender_limits.rwnd_limited_s = 0.78;
	tcp_limit_of(&r, 0, &v);
	assert_int_equal(v.limit, TCP_LIMIT_LOSS);
	r.tcp.sender_limits.snd_wnd = 64u << 20;
	r.tcp.sender_limits.rwnd_limited_s = 0;
	/* the same with no loss: the congestion window alone */
	r.tcp.sender_limits.bytes_retrans = 0;
	tcp_limit_of(&r, 0, &v);
	assert_int_equal(v.limit, TCP_LIMIT_CWND);
}

/* The overlay's daemon thread at a full core, or the whole machine busy
 * (a lab's hosts share it): CPU limits of the path, not of its ends. */
static void test_overlay_and_machine(void **state)
{
	struct load_result r;
	struct tcp_limit_verdict v;
	struct tcp_limit_ctx c = { .overlay_cpu = 0.99,
				   .overlay_thread = "ovl-tx0",
				   .overlay_host = "lab host 0" };

	(void)state;
	/* the built-in overlay on the default lab: 4.5 Gbit/s, its queue 5 ms */
	base(&r, 4.54e9);
	r.tcp.sender.rtt_us = 5510;
	r.tcp.sender_limits.min_rtt_us = 115;
	r.tcp.sender.snd_cwnd = 2200;
	tcp_limit_judge(&r.tcp, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_OVERLAY_CPU);
	assert_string_equal(tcp_limit_name(v.limit), "overlay CPU");
	assert_non_null(strstr(v.evidence, "ovl-tx0 on lab host 0 used 99 %"));
	assert_non_null(strstr(v.fix, "lab host 0"));
	/* below a core, the queue is the network's rate ... */
	c.overlay_cpu = 0.71;
	tcp_limit_judge(&r.tcp, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);
	/* ... unless the machine's cores were all busy */
	c.machine_cpus = 2;
	c.machine_busy = 0.91;
	tcp_limit_judge(&r.tcp, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_HOST_CPU);
	assert_non_null(strstr(v.evidence, "2 cores were 91 % busy"));
	assert_non_null(strstr(v.evidence, "ovl-tx0 71 %"));
	c.machine_busy = 0.8;
	tcp_limit_judge(&r.tcp, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);
	/* a window that binds is the window, whatever the CPU */
	c.overlay_cpu = 0.99;
	base(&r, 63.06e6);
	r.tcp.sender_limits.snd_wnd = 162432;
	tcp_limit_judge(&r.tcp, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_RWND);
	/* a daemon held at its cgroup's quota: 0.19 of 0.20 cores, throttled */
	base(&r, 1.14e9);
	r.tcp.sender.rtt_us = 2430;
	r.tcp.sender_limits.min_rtt_us = 110;
	r.tcp.sender.snd_cwnd = 300;
	c = (struct tcp_limit_ctx){ .overlay_quota_cores = 0.2,
				    .overlay_quota_used = 0.19,
				    .overlay_throttled_s = 1.13,
				    .overlay_quota_host = "lab host 1" };
	tcp_limit_judge(&r.tcp, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_OVERLAY_CPU);
	assert_non_null(strstr(v.evidence, "lab host 1 was held at its cgroup's CPU quota"));
	assert_non_null(strstr(v.fix, "cpu.cfs_quota_us"));
	/* a quota it did not reach is no limit ... */
	c.overlay_quota_used = 0.05;
	tcp_limit_judge(&r.tcp, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);
	/* ... unless throttled a tenth of the test (a busy machine starved
	 * it below the quota between the throttled periods) */
	c.duration_s = 2;
	tcp_limit_judge(&r.tcp, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_OVERLAY_CPU);
	c.overlay_throttled_s = 0.1;
	tcp_limit_judge(&r.tcp, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);
	/* ... or throttled in half the quota's periods, however briefly each
	 * (a busy machine left it little of each period before the quota) */
	c.overlay_throttled_share = 0.6;
	tcp_limit_judge(&r.tcp, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_OVERLAY_CPU);
	c.overlay_throttled_share = 0.2;
	tcp_limit_judge(&r.tcp, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);
	/* and -b reached is the application */
	base(&r, 50.32e6);
	tcp_limit_judge(&r.tcp,
			&(struct tcp_limit_ctx){ .rate_bps = 50000000, .overlay_cpu = 0.99 }, &v);
	assert_int_equal(v.limit, TCP_LIMIT_APPLICATION);
}

/* An external VPN's daemon (wireguard-go) held at its quota, named with
 * its process and busiest thread; its thread at a full core; and one CPU
 * at a full core in softirq: the kernel's packet work, named by CPU. */
static void test_external_and_softirq(void **state)
{
	struct load_result r;
	struct tcp_limit_verdict v;
	struct tcp_limit_ctx c = { .overlay_quota_cores = 0.2,
				   .overlay_quota_used = 0.2,
				   .overlay_throttled_s = 1.2,
				   .overlay_quota_host = "lab host 1",
				   .overlay_quota_process = "wireguard-go",
				   .overlay_quota_thread = "wireguard-go",
				   .overlay_quota_thread_cpu = 0.07,
				   .duration_s = 1.5 };

	(void)state;
	base(&r, 310e6);
	r.tcp.sender.rtt_us = 9100;
	r.tcp.sender_limits.min_rtt_us = 150;
	r.tcp.sender.snd_cwnd = 400;
	tcp_limit_judge(&r.tcp, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_OVERLAY_CPU);
	assert_non_null(strstr(v.evidence,
			       "the overlay's daemon on lab host 1 was held at its cgroup's CPU "
			       "quota (wireguard-go, its busiest thread wireguard-go at 7 % of a "
			       "core): 0.20 of its 0.20 cores used, throttled 1200 ms"));
	/* its thread at a full core, no quota */
	c = (struct tcp_limit_ctx){ .overlay_cpu = 0.98,
				    .overlay_thread = "wireguard-go",
				    .overlay_process = "wireguard-go",
				    .overlay_host = "lab host 0" };
	tcp_limit_judge(&r.tcp, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_OVERLAY_CPU);
	assert_non_null(strstr(v.evidence, "wireguard-go on lab host 0 used 98 % of a core, "
					   "in process wireguard-go (the round trip"));
	/* one CPU in softirq 97 % of its time, no thread at a core */
	c = (struct tcp_limit_ctx){ .overlay_cpu = 0.4, .softirq_cpu = 1, .softirq_share = 0.97 };
	tcp_limit_judge(&r.tcp, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_HOST_CPU);
	assert_string_equal(tcp_limit_name(v.limit), "machine CPU");
	assert_non_null(strstr(v.evidence, "CPU 1 spent 97 % of its time in softirq"));
	assert_non_null(strstr(v.fix, "rps_cpus"));
	/* below a full core it is not the limit: the queue is the network's */
	c.softirq_share = 0.9;
	tcp_limit_judge(&r.tcp, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);
	/* an overlay thread at a full core comes first */
	c.softirq_share = 0.99;
	c.overlay_cpu = 0.99;
	c.overlay_thread = "ovl-rx0";
	tcp_limit_judge(&r.tcp, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_OVERLAY_CPU);
}

static void test_unknown(void **state)
{
	struct load_result r;
	struct tcp_limit_verdict v;

	(void)state;
	base(&r, 1e9);
	r.tcp.sender_limits.chrono = false;
	tcp_limit_of(&r, 0, &v);
	assert_int_equal(v.limit, TCP_LIMIT_UNKNOWN);
	assert_non_null(strstr(v.evidence, "chronographs"));
	base(&r, 1e9);
	r.tcp.sender_limits.known = false;
	tcp_limit_of(&r, 0, &v);
	assert_int_equal(v.limit, TCP_LIMIT_UNKNOWN);
	base(&r, 1e9);
	r.spec.proto = LOAD_UDP;
	tcp_limit_of(&r, 0, &v);
	assert_int_equal(v.limit, TCP_LIMIT_UNKNOWN);
	assert_string_equal(tcp_limit_name((enum tcp_limit)99), "unknown");
}

/* The shares of time add up to the whole, whatever the kernel's rounding. */
static void test_shares_add_up(void **state)
{
	struct load_result r;
	struct tcp_limit_verdict v;

	(void)state;
	base(&r, 1e9);
	r.tcp.sender_limits.busy_s = 3.084; /* a jiffy over the window */
	r.tcp.sender_limits.rwnd_limited_s = 1.0;
	r.tcp.sender_limits.sndbuf_limited_s = 0.5;
	tcp_limit_of(&r, 0, &v);
	assert_true(v.app >= 0);
	assert_true(v.app + v.rwnd + v.sndbuf + v.cwnd > 0.999 &&
		    v.app + v.rwnd + v.sndbuf + v.cwnd < 1.001);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_receive_window),
		cmocka_unit_test(test_reader_cpu_closes_the_window),
		cmocka_unit_test(test_send_buffer),
		cmocka_unit_test(test_application),
		cmocka_unit_test(test_network_rate_and_loss),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_shares_add_up),
		cmocka_unit_test(test_overlay_and_machine),
		cmocka_unit_test(test_external_and_softirq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
