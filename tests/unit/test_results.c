// SPDX-License-Identifier: MIT
/* The run model: medians, aggregates, run.json round trip and its errors. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "overhead.h"
#include "loss_place.h"
#include "report_load.h"
#include "report_run.h"
#include "results.h"
#include "run_fixture.h"
#include "run_verdict.h"

static void test_stat_median(void **state)
{
	static const struct {
		double v[6];
		size_t n;
		double median, min, max;
	} cases[] = {
		{ { 5 }, 1, 5, 5, 5 },
		{ { 3, 1, 2 }, 3, 2, 1, 3 },
		{ { 4, 1, 3, 2 }, 4, 2.5, 1, 4 },
		{ { 10, 10, 1, 10, 100 }, 5, 10, 1, 100 },
		{ { -1, 7 }, 2, 3, -1, 7 },
	};
	struct results_stat s;
	double none[1];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double v[6];

		memcpy(v, cases[i].v, sizeof(v));
		s = results_stat_of(v, cases[i].n);
		assert_int_equal(s.n, cases[i].n);
		assert_true(s.median == cases[i].median);
		assert_true(s.min == cases[i].min);
		assert_true(s.max == cases[i].max);
	}
	s = results_stat_of(none, 0);
	assert_int_equal(s.n, 0);
}

static void test_delivered(void **state)
{
	struct udp_result u = { .sent = 1000, .received = 990 };

	(void)state;
	assert_true(results_delivered_pct(&u) == 99.0);
	u.received = 1003; /* duplicates never lift delivery above 100 % */
	assert_true(results_delivered_pct(&u) == 100.0);
	u.sent = 0;
	assert_true(results_delivered_pct(&u) == 0.0);
}

static void test_aggregate(void **state)
{
	struct results_run run;
	struct results_summary sum;
	const struct results_tcp_point *tp;
	const struct results_knee_point *kp;
	const struct results_delay_point *dp;

	(void)state;
	fixture_run(&run);
	/* A failed trial must not enter any figure. */
	{
		struct results_trial *t = results_add_trial(&run);

		t->kind = RESULTS_TRIAL_TCP;
		t->path = 0;
		t->streams = 1;
		t->status = -ECONNREFUSED;
		t->duration_s = 1;
		t->tcp.goodput_bps = 1;
	}
	assert_int_equal(results_aggregate(&run, &sum), 0);
	assert_int_equal(sum.ntcp, 4);
	tp = results_find_tcp(&sum, 0, 1);
	assert_non_null(tp);
	assert_int_equal(tp->goodput_bps.n, 3);
	assert_true(tp->goodput_bps.median == 950e6);
	assert_true(tp->goodput_bps.min == 900e6);
	assert_true(tp->goodput_bps.max == 1000e6);
	assert_int_equal(tp->snd_mss, 1448);
	tp = results_find_tcp(&sum, 1, 4);
	assert_true(tp->goodput_bps.median == 500e6);
	assert_true(tp->cpu_s_per_gbit.median == 4.0);
	/* host CPU: cpu * 2 s * Gbit / (Gbit/s * 2 s) = cpu */
	assert_true(tp->host_cpu_s_per_gbit.n == 3);
	assert_true(tp->host_cpu_s_per_gbit.median > 3.999 &&
		    tp->host_cpu_s_per_gbit.median < 4.001);
	assert_int_equal(tp->snd_mss, 1368);

	kp = results_find_knee(&sum, 1, 1400);
	assert_non_null(kp);
	assert_true(kp->ndr_bps.median == 200e6);
	assert_true(kp->pdr_bps.median == 220e6);
	assert_true(kp->ndr_upper_bps.median == 202e6);
	/* the loss above the NDR: the knee trials at 500 M and 1 G (60 % and
	 * 78 % lost), not the one at 200 M, the NDR's own load */
	assert_int_equal(kp->above_trials, 2);
	assert_int_equal(kp->above_lossy, 2);
	assert_int_equal(kp->above_lost, 26786 + 69643);
	assert_int_equal(kp->above_sent, 44642 + 89285);
	assert_int_equal(kp->loss_at.network, kp->above_lost);
	assert_int_equal(kp->loss_at.receiver_rcvbuf, 0);
	assert_int_equal(kp->above_worst_bps, 1000000000);
	assert_int_equal(kp->loss_at_bps, 202000000);
	assert_null(results_find_knee(&sum, 1, 46));

	dp = results_find_delay(&sum, 1, 1400, 100000000);
	assert_non_null(dp);
	assert_int_equal(dp->p50_ms.n, 3);
	assert_true(dp->p50_ms.median > 0.1499 && dp->p50_ms.median < 0.1501);
	assert_int_equal(dp->load_bps, 100000000);

	/* knee trials become sweep points sorted by rate, per path */
	assert_int_equal(sum.nsweep, 5);
	assert_int_equal(sum.sweep[0].path, 0);
	assert_int_equal(sum.sweep[0].target_bps, 500000000);
	assert_int_equal(sum.sweep[2].path, 1);
	assert_int_equal(sum.sweep[2].target_bps, 200000000);
	assert_true(sum.sweep[4].delivered_pct.median > 21.9 &&
		    sum.sweep[4].delivered_pct.median < 22.1);
	results_summary_free(&sum);
	results_free(&run);
}

/* The whole machine's CPU per Gbit less other work: a trial whose host
 * facts measured a baseline of 0.1 core (other work at rest) counts its
 * busy cores less it; one at 1.9 cores, or whose rest moved, is left out
 * and counted, and the verdict then says why and gives the test's and the
 * overlay's own processes instead (its ratio steady where the whole
 * machine's read x7.3 and x1.26 in two identical runs). */
static void test_host_cpu_baseline(void **state)
{
	struct results_run run;
	struct results_summary sum;
	const struct results_tcp_point *tp;
	struct run_verdict v;
	bool said = false;

	(void)state;
	fixture_run(&run);
	for (size_t i = 0; i < run.ntrials; i++) {
		struct results_trial *t = &run.trials[i];

		if (t->kind != RESULTS_TRIAL_TCP || t->streams != 1)
			continue;
		t->facts_client.known = true;
		t->facts_client.window_s = t->duration_s;
		/* 1.5 cores busy over the trial, 0.1 of them other work's */
		t->facts_client.machine_cores = 1.5;
		t->facts_client.baseline_cores = 0.1;
		t->overlay_cpu_s = t->path ? 0.5 : 0;
	}
	assert_int_equal(results_aggregate(&run, &sum), 0);
	tp = results_find_tcp(&sum, 0, 1);
	/* 1.4 cores * 2 s over 950 Mbit/s * 2 s: 1.4 / 0.95 s per Gbit */
	assert_int_equal(tp->host_cpu_s_per_gbit.n, 3);
	assert_float_equal(tp->host_cpu_s_per_gbit.median, 1.4 / 0.95, 1e-9);
	assert_int_equal(tp->host_cpu_moved, 0);
	results_summary_free(&sum);
	for (size_t i = 0; i < run.ntrials; i++)
		if (run.trials[i].kind == RESULTS_TRIAL_TCP && run.trials[i].streams == 1) {
			run.trials[i].facts_client.baseline_cores = i % 2 ? 1.9 : 0.1;
			run.trials[i].facts_client.rest_moved = !(i % 2);
		}
	assert_int_equal(results_aggregate(&run, &sum), 0);
	tp = results_find_tcp(&sum, 1, 1);
	assert_int_equal(tp->host_cpu_s_per_gbit.n, 0);
	assert_int_equal(tp->host_cpu_moved, 3);
	/* the overlay's own: 4 s/Gbit of its processes and 0.5 s over 250 Mbit/s * 2 s */
	assert_float_equal(tp->own_cpu_s_per_gbit.median, 4.0 + 0.5 / 0.5, 1e-9);
	results_run_verdict(&run, &sum, &v);
	for (unsigned i = 0; i < v.n; i++) {
		assert_null(strstr(v.line[i], "the whole machine spent"));
		said |= strstr(v.line[i],
			       "CPU: the whole machine's CPU per Gbit is not given: "
			       "other work on the machine (up to 1.9 cores busy") != NULL;
	}
	assert_true(said);
	results_summary_free(&sum);
	results_free(&run);
}

/* Bounds over repetitions: each repetition's lower (the rate sent) and
 * upper bound and where its loss was come from that repetition; the
 * summary's medians keep lower <= upper. The first row is the field case
 * "NDR 37.2M..28.5M": the median lower against repetition 1's upper. */
static void test_knee_bounds_over_reps(void **state)
{
	static const struct {
		unsigned n;
		struct {
			double lo, sent, up; /* Mbit/s; up 0: none */
			const char *outcome;
			uint64_t net; /* loss_at_bps: tags the repetition */
		} rep[3];
		double lo, up; /* medians; up 0: none */
		uint64_t net;  /* the repetition whose first failing rate is reported */
		bool lower_bound;
	} cases[] = {
		{ 3,
		  { { 28.0, 28.0, 28.5, "found", 1 },
		    { 37.2, 37.0, 38.0, "found", 2 },
		    { 30.0, 29.9, 31.0, "found", 3 } },
		  29.9,
		  31.0,
		  3,
		  false },
		{ 2,
		  { { 100, 100, 110, "found", 1 }, { 200, 198, 0, "above-max", 2 } },
		  149,
		  0,
		  1,
		  true },
		{ 3,
		  { { 100, 99, 101, "found", 1 },
		    { 280, 277.5, 0, "above-max", 2 },
		    { 279, 278, 281, "generator-limit", 3 } },
		  277.5,
		  281,
		  3,
		  true },
		{ 1, { { 50, 52, 60, "found", 4 } }, 50, 60, 4, false }, /* sent > target */
		{ 1, { { 50, 50, 40, "found", 5 } }, 50, 0, 5, false },	 /* inverted file */
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct results_run run;
		struct results_summary sum;
		const struct results_knee_point *kp;

		results_init(&run);
		results_add_path(&run, "p", RESULTS_PATH_UNDERLAY, "198.18.0.2", 1500);
		for (unsigned r = 0; r < cases[c].n; r++) {
			struct results_knee *k = results_add_knee(&run);

			k->len = 1400;
			k->rep = r;
			k->found = true;
			k->ndr_lower_bps = (uint64_t)(cases[c].rep[r].lo * 1e6);
			k->ndr_lower_achieved_bps = (uint64_t)(cases[c].rep[r].sent * 1e6);
			k->ndr_upper_bps = (uint64_t)(cases[c].rep[r].up * 1e6);
			k->loss_at_bps = cases[c].rep[r].net;
			snprintf(k->ndr_outcome, sizeof(k->ndr_outcome), "%s",
				 cases[c].rep[r].outcome);
		}
		assert_int_equal(results_aggregate(&run, &sum), 0);
		kp = results_find_knee(&sum, 0, 1400);
		assert_non_null(kp);
		if (fabs(kp->ndr_bps.median - cases[c].lo * 1e6) > 1 ||
		    (cases[c].up ? fabs(kp->ndr_upper_bps.median - cases[c].up * 1e6) > 1
				 : kp->ndr_upper_bps.n != 0) ||
		    kp->loss_at_bps != cases[c].net || kp->ndr_lower_bound != cases[c].lower_bound)
			fail_msg("case %zu: NDR %.2f..%.2f (n %u) loss tag %llu bound %d", c,
				 kp->ndr_bps.median / 1e6, kp->ndr_upper_bps.median / 1e6,
				 kp->ndr_upper_bps.n, (unsigned long long)kp->loss_at_bps,
				 kp->ndr_lower_bound);
		if (kp->ndr_upper_bps.n) {
			assert_true(kp->ndr_bps.median <= kp->ndr_upper_bps.median);
			assert_true(kp->ndr_bps.min <= kp->ndr_upper_bps.min);
			assert_true(kp->ndr_bps.max <= kp->ndr_upper_bps.max);
		}
		results_summary_free(&sum);
		results_free(&run);
	}
}

static char *tmpfile_path(void)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_results_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	return path;
}

/* The delay loads' basis: per path the median over repetitions of what
 * each carried (NDR, else PDR), then the lowest path; other sizes and
 * repetitions that found nothing do not count. */
static void test_delay_basis(void **state)
{
	static const struct {
		unsigned path;
		uint32_t len;
		uint64_t ndr, pdr;
	} k[] = {
		{ 0, 1400, 3000, 0 }, { 0, 1400, 3800, 0 }, { 0, 1400, 3400, 0 },
		{ 1, 1400, 0, 1200 }, { 1, 1400, 1100, 0 }, { 1, 1400, 0, 0 },
		{ 1, 1400, 1500, 0 }, { 1, 64, 10, 0 },
	};
	struct results_run run;

	(void)state;
	results_init(&run);
	results_add_path(&run, "u", RESULTS_PATH_UNDERLAY, "198.18.0.2", 1500);
	results_add_path(&run, "o", RESULTS_PATH_BUILTIN, "198.19.0.2", 1440);
	assert_int_equal(results_delay_basis(&run, 1400), 0);
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		struct results_knee *kn = results_add_knee(&run);

		kn->path = k[i].path;
		kn->len = k[i].len;
		kn->ndr_lower_bps = k[i].ndr;
		kn->pdr_lower_bps = k[i].pdr;
	}
	/* path 0: median 3400 (not its best, 3800); path 1: 1100, 1200, 1500 */
	assert_int_equal(results_delay_basis(&run, 1400), 1200);
	assert_int_equal(results_delay_basis(&run, 64), 10);
	assert_int_equal(results_delay_basis(&run, 1000), 0);
	results_free(&run);
}

static void test_round_trip(void **state)
{
	struct results_run a, b;
	char err[256];
	char *ja, *jb, *path = tmpfile_path();

	(void)state;
	fixture_run(&a);
	a.trials[3].status = -ETIMEDOUT;
	snprintf(a.trials[3].error, sizeof(a.trials[3].error), "server did not answer");
	a.trials[5].udp.generator_limited = true;
	a.trials[5].sched_client = (struct load_sched){ LOAD_SCHED_OTHER, 0 };
	a.trials[5].sched_server = (struct load_sched){ LOAD_SCHED_FIFO, 1 };
	/* an external VPN's process held at its quota, and softirq per CPU */
	snprintf(a.trials[0].overlay_thread, sizeof(a.trials[0].overlay_thread), "wireguard-go");
	snprintf(a.trials[0].overlay_process, sizeof(a.trials[0].overlay_process), "wireguard-go");
	snprintf(a.trials[0].overlay_quota_process, sizeof(a.trials[0].overlay_quota_process),
		 "wireguard-go");
	snprintf(a.trials[0].overlay_quota_thread, sizeof(a.trials[0].overlay_quota_thread),
		 "wireguard-go");
	a.trials[0].overlay_quota_thread_cpu = 0.07;
	a.trials[0].softirq_ncpu = 2;
	a.trials[0].softirq[0] = 0.25;
	a.trials[0].softirq[1] = 0.97;
	a.complete = false;
	a.knees[1].trials = 41;
	a.knees[1].fit_trials = 15;
	snprintf(a.stop_reason, sizeof(a.stop_reason), "interrupted by signal 2");
	snprintf(a.host.client_cpus, sizeof(a.host.client_cpus), "0");
	snprintf(a.host.server_cpus, sizeof(a.host.server_cpus), "1-3");
	/* the built-in overlay's data cipher, as its daemon said */
	snprintf(a.paths[1].cipher.name, sizeof(a.paths[1].cipher.name), "aes256gcm");
	snprintf(a.paths[1].cipher.impl, sizeof(a.paths[1].cipher.impl), "openssl");
	snprintf(a.paths[1].cipher.by, sizeof(a.paths[1].cipher.by), "negotiated");
	snprintf(a.paths[1].cipher.order, sizeof(a.paths[1].cipher.order), "measured");
	assert_int_equal(results_write_json(&a, path), 0);
	assert_int_equal(results_read_json(path, &b, err, sizeof(err)), 0);
	assert_int_equal(b.npaths, 2);
	assert_string_equal(b.paths[1].name, "overlay");
	assert_int_equal(b.paths[1].kind, RESULTS_PATH_BUILTIN);
	assert_int_equal(b.paths[1].mtu, 1420);
	assert_string_equal(b.paths[1].cipher.name, "aes256gcm");
	assert_string_equal(b.paths[1].cipher.impl, "openssl");
	assert_string_equal(b.paths[1].cipher.by, "negotiated");
	assert_string_equal(b.paths[1].cipher.order, "measured");
	assert_string_equal(b.paths[0].cipher.name, ""); /* the underlay has none */
	assert_int_equal(b.ntrials, a.ntrials);
	assert_int_equal(b.nknees, 2);
	assert_int_equal(b.nmtu, 1);
	assert_false(b.complete);
	assert_string_equal(b.stop_reason, "interrupted by signal 2");
	assert_string_equal(b.host.cpu, "Test CPU \"quoted\" model");
	assert_string_equal(b.host.client_cpus, "0");
	assert_string_equal(b.host.server_cpus, "1-3");
	assert_string_equal(b.scenario_text, a.scenario_text);
	assert_int_equal(b.trials[3].status, -ETIMEDOUT);
	assert_string_equal(b.trials[3].error, "server did not answer");
	assert_int_equal(b.trials[0].tcp.goodput_bps, a.trials[0].tcp.goodput_bps);
	assert_int_equal(b.trials[0].tcp.sender.snd_mss, 1448);
	assert_int_equal(b.trials[5].sched_client.policy, LOAD_SCHED_OTHER);
	assert_int_equal(b.trials[5].sched_server.policy, LOAD_SCHED_FIFO);
	assert_int_equal(b.trials[5].sched_server.prio, 1);
	assert_int_equal(b.trials[0].sched_server.policy, LOAD_SCHED_UNKNOWN);
	assert_string_equal(b.trials[0].overlay_process, "wireguard-go");
	assert_string_equal(b.trials[0].overlay_quota_process, "wireguard-go");
	assert_string_equal(b.trials[0].overlay_quota_thread, "wireguard-go");
	assert_true(b.trials[0].overlay_quota_thread_cpu == 0.07);
	assert_int_equal(b.trials[0].softirq_ncpu, 2);
	assert_true(b.trials[0].softirq[1] == 0.97);
	assert_int_equal(b.trials[1].softirq_ncpu, 0); /* not read: absent */
	assert_int_equal(b.knees[1].loss_at.receiver_rcvbuf, 7);
	assert_int_equal(b.knees[1].trials, 41);
	assert_int_equal(b.knees[1].fit_trials, 15);
	assert_int_equal(b.knees[0].fit_trials, 0);
	assert_int_equal(b.mtu[0].verdict, RESULTS_WARN);
	assert_string_equal(b.mtu[0].fix, a.mtu[0].fix);
	/* Everything, including derived sections, survives a second trip. */
	ja = results_to_json(&a);
	jb = results_to_json(&b);
	assert_non_null(ja);
	assert_non_null(jb);
	assert_string_equal(ja, jb);
	free(ja);
	free(jb);
	unlink(path);
	results_free(&a);
	results_free(&b);
}

/* Delay trials at two loads (50 % and 90 % of the NDR): a figure per path,
 * size and load, an overhead row per load against the underlay at that same
 * load, and each trial's share kept by run.json. */
static void test_delay_loads(void **state)
{
	struct results_run a, b;
	struct results_summary sum;
	struct overhead ov;
	const struct results_delay_point *dp;
	const struct overhead_row *r;
	char err[256], *j;

	(void)state;
	fixture_run(&a);
	fixture_two_loads(&a);
	assert_int_equal(results_aggregate(&a, &sum), 0);
	assert_int_equal(sum.ndelay, 4);
	dp = results_find_delay(&sum, 1, 1400, 100000000);
	assert_non_null(dp);
	assert_true(dp->load_pct == 50 && dp->p99_ms.median > 0.8999 && dp->p99_ms.median < 0.9001);
	dp = results_find_delay(&sum, 1, 1400, 180000000);
	assert_non_null(dp);
	assert_int_equal(dp->p99_ms.n, 3);
	assert_true(dp->load_pct == 90 && dp->p99_ms.median > 11.999 && dp->p99_ms.median < 12.001);
	/* the receiver's socket share: the median of its p99s; none measured at 50 % */
	assert_int_equal(dp->rx_wait_p99_ms.n, 3);
	assert_true(dp->rx_wait_p99_ms.median > 8.999 && dp->rx_wait_p99_ms.median < 9.001);
	assert_true(dp->rx_wait_p99_ms.min > 7.999 && dp->rx_wait_p99_ms.max < 10.001);
	assert_int_equal(results_find_delay(&sum, 1, 1400, 100000000)->rx_wait_p99_ms.n, 0);
	assert_null(results_find_delay(&sum, 1, 1400, 150000000));
	/* sorted by path, size, then load: 50 % before 90 % */
	assert_true(sum.delay[2].load_pct == 50 && sum.delay[3].load_pct == 90);
	assert_int_equal(overhead_compute(&a, &sum, &ov), 0);
	r = overhead_find_load(&ov, 1, OVERHEAD_OWD_P99, 1400, 180000000);
	assert_non_null(r);
	assert_true(r->load_pct == 90 && r->ratio > 23.99 && r->ratio < 24.01); /* 12 / 0.5 */
	r = overhead_find_load(&ov, 1, OVERHEAD_OWD_P99, 1400, 100000000);
	assert_non_null(r);
	assert_true(r->load_pct == 50 && r->ratio > 4.49 && r->ratio < 4.51); /* 0.9 / 0.2 */
	/* the non-delay rows carry no load */
	assert_int_equal(overhead_find(&ov, 1, OVERHEAD_UDP_NDR, 1400)->load_bps, 0);
	overhead_free(&ov);
	results_summary_free(&sum);
	j = results_to_json(&a);
	assert_non_null(j);
	assert_non_null(
		strstr(j, "\"delay_loads\":\t[{\n\t\t\t\"len\":\t1400,\n\t\t\t\"load_pct\":\t50,\n"
			  "\t\t\t\"load_bps\":\t100000000\n\t\t}, {\n\t\t\t\"len\":\t1400,\n"
			  "\t\t\t\"load_pct\":\t90,\n\t\t\t\"load_bps\":\t180000000\n\t\t}]"));
	assert_int_equal(results_from_json(j, &b, err, sizeof(err)), 0);
	for (size_t i = 0; i < a.ntrials; i++)
		assert_true(b.trials[i].load_pct == a.trials[i].load_pct);
	free(j);
	results_free(&a);
	results_free(&b);
}

/* A UDP trial at every layer: RFC 2544's 64-byte frame over IPv4 is 18
 * bytes of payload, 46 of IP, 84 on the line (148,809 of them a second at
 * 100 Mbit/s); the same payload over IPv6 takes 20 bytes more per layer
 * but its frame is no longer padded. run.json carries the family and the
 * layers the scenario stated, and a run.json without them reads as IPv4
 * by address and payload. */
static void test_layers(void **state)
{
	struct results_run a, b;
	struct results_trial *t;
	struct results_layers l;
	char err[256], *j;

	(void)state;
	fixture_run(&a);
	t = &a.trials[a.ntrials - 1];
	assert_true(t->kind != RESULTS_TRIAL_TCP);
	t->path = 0;
	t->len = 18;
	t->udp.sent = 148809;
	t->udp.received = 148800;
	t->udp.sent_pps = 148809;
	t->udp.received_pps = 148800;
	t->udp.fragments = 0;
	assert_true(results_trial_layers(&a, t, &l));
	assert_int_equal(l.family, AF_INET);
	assert_int_equal(l.bytes[LAYER_PAYLOAD], 18);
	assert_int_equal(l.bytes[LAYER_IP], 46);
	assert_int_equal(l.bytes[LAYER_FRAME], 64);
	assert_int_equal(l.bytes[LAYER_LINE], 84);
	assert_int_equal(l.received_bytes[LAYER_FRAME], 148800ULL * 64);
	assert_int_equal(l.sent_bytes[LAYER_LINE], 148809ULL * 84);
	assert_true(l.sent_bps[LAYER_LINE] > 99999000 && l.sent_bps[LAYER_LINE] <= 100000000);
	assert_true(l.received_bps[LAYER_PAYLOAD] == 148800.0 * 18 * 8);
	a.paths[0].family = AF_INET6;
	assert_true(results_trial_layers(&a, t, &l));
	assert_int_equal(l.bytes[LAYER_IP], 66);
	assert_int_equal(l.bytes[LAYER_FRAME], 84);
	assert_int_equal(results_layer_bytes(&a, 0, 16, LAYER_FRAME), 82); /* RFC 5180's 64: 82 */
	assert_false(l.outer); /* no daemon counted: not over the built-in overlay */
	/* the overlay's daemon counted 148,900 outer datagrams (the test's and
	 * 91 others) of 9,600,000 bytes over 1 s, IPv4 underlay */
	t->udp.outer = (struct udp_outer){ .ip_version = 4, .datagrams = 148900, .bytes = 9600000 };
	t->duration_s = 1.0;
	assert_true(results_trial_layers(&a, t, &l));
	assert_true(l.outer);
	assert_int_equal(l.outer_family, AF_INET);
	assert_int_equal(l.outer_bytes[LAYER_IP], 9600000 + 148900ULL * 28);
	assert_int_equal(l.outer_bytes[LAYER_FRAME], 9600000 + 148900ULL * 46);
	assert_int_equal(l.outer_bytes[LAYER_LINE], 9600000 + 148900ULL * 66);
	assert_true(l.outer_bps[LAYER_LINE] == 8.0 * (9600000 + 148900.0 * 66));
	/* the mean outer datagram on the line against the inner 104 (the
	 * path is IPv6 by now, its underlay IPv4) */
	assert_true(fabs(l.outer_line_per_datagram - (9600000 + 148900.0 * 66) / 148900) < 1e-6);
	assert_true(l.inner_line_per_datagram == 104);
	j = results_to_json(&a);
	assert_non_null(strstr(j, "\"outer_datagrams\":\t148900"));
	assert_non_null(strstr(j, "\"inner_line_bytes_per_datagram\":\t104"));
	assert_int_equal(results_from_json(j, &b, err, sizeof(err)), 0);
	assert_int_equal(b.trials[a.ntrials - 1].udp.outer.datagrams, 148900);
	assert_int_equal(b.trials[a.ntrials - 1].udp.outer.ip_version, 4);
	free(j);
	results_free(&b);
	t->udp.outer = (struct udp_outer){ 0 };
	t->udp.fragments = 2; /* a datagram in two fragments is not one frame */
	assert_false(results_trial_layers(&a, t, &l));
	t->udp.fragments = 1;
	assert_false(results_trial_layers(&a, &a.trials[0], &l)); /* TCP */
	a.size_layer = LAYER_FRAME;
	a.sweep_rate_layer = LAYER_LINE;
	a.knee_rate_layer = LAYER_IP;
	j = results_to_json(&a);
	assert_non_null(j);
	assert_non_null(strstr(j, "\"size_layer\":\t\"frame\""));
	assert_non_null(strstr(j, "\"layers\":\t{\n\t\t\t\t\t\"family\":\t6,"));
	assert_non_null(strstr(j, "\"received_bytes\":\t12499200")); /* 148800 * 84 */
	assert_int_equal(results_from_json(j, &b, err, sizeof(err)), 0);
	assert_int_equal(b.paths[0].family, AF_INET6);
	assert_int_equal(b.paths[1].family, AF_INET); /* by its address */
	assert_int_equal(b.size_layer, LAYER_FRAME);
	assert_int_equal(b.sweep_rate_layer, LAYER_LINE);
	assert_int_equal(b.knee_rate_layer, LAYER_IP);
	free(j);
	results_free(&b);
	/* before layers were recorded: payload, and the family by address */
	a.paths[0].family = 0;
	a.size_layer = a.sweep_rate_layer = a.knee_rate_layer = LAYER_PAYLOAD;
	assert_int_equal(results_path_family(&a.paths[0]), AF_INET);
	snprintf(a.paths[0].addr, sizeof(a.paths[0].addr), "2001:2::2");
	assert_int_equal(results_path_family(&a.paths[0]), AF_INET6);
	results_free(&a);
}

static void test_json_has_ratios(void **state)
{
	struct results_run a;
	char *j;

	(void)state;
	fixture_run(&a);
	j = results_to_json(&a);
	assert_non_null(j);
	assert_non_null(strstr(j, "\"overhead\""));
	assert_non_null(strstr(j, "\"udp_ndr_bps\""));
	assert_non_null(strstr(j, "\"ratio\":\t0.25"));
	assert_non_null(strstr(j, "\"schema\":\t\"ovlperf.run\""));
	assert_non_null(strstr(j, "\"schema_version\":\t2"));
	assert_non_null(strstr(j, "\"underlay_outcome\":\t\"found\""));
	free(j);
	results_free(&a);
}

/* A lab run's links and their conditions go to run.json and back; a file
 * without them (an older run) has none. */
static void test_links(void **state)
{
	struct results_run a, b;
	char err[256], *j;

	(void)state;
	fixture_run(&a);
	a.nlinks = 1;
	a.links[0] = (struct results_link){
		.a = 0,
		.b = 1,
		.means = "userspace",
		.conditions = "delay 35ms/10ms loss 1%",
		.rate_bps = 1000000000,
		.dir = { { .delay_ns = 35000000, .loss_pct = 1 },
			 { .delay_ns = 10000000, .loss_pct = 1, .loss_burst_p_pct = 0.5 } },
	};
	j = results_to_json(&a);
	assert_non_null(j);
	assert_non_null(strstr(j, "\"means\":\t\"userspace\""));
	assert_int_equal(results_from_json(j, &b, err, sizeof(err)), 0);
	assert_int_equal(b.nlinks, 1);
	assert_string_equal(b.links[0].means, "userspace");
	assert_string_equal(b.links[0].conditions, "delay 35ms/10ms loss 1%");
	assert_int_equal(b.links[0].rate_bps, 1000000000);
	assert_int_equal(b.links[0].dir[0].delay_ns, 35000000);
	assert_int_equal(b.links[0].dir[1].delay_ns, 10000000);
	assert_true(b.links[0].dir[1].loss_burst_p_pct == 0.5 && b.links[0].dir[0].loss_pct == 1);
	results_free(&b);
	free(j);
	a.nlinks = 0;
	j = results_to_json(&a);
	assert_int_equal(results_from_json(j, &b, err, sizeof(err)), 0);
	assert_int_equal(b.nlinks, 0);
	free(j);
	results_free(&a);
	results_free(&b);
}

static void test_read_errors(void **state)
{
	static const struct {
		const char *text;
		const char *expect;
	} cases[] = {
		{ "{", "not valid JSON" },
		{ "[]", "not a JSON object" },
		{ "{\"complete\":true}", "schema: is missing" },
		{ "{\"schema\":99,\"complete\":true}", "schema version 99" },
		{ "{\"schema\":\"ovlperf.run\",\"schema_version\":3,\"complete\":true}",
		  "schema version 3" },
		{ "{\"schema\":\"ovlperf.run\",\"complete\":true}", "schema_version: is missing" },
		{ "{\"schema\":\"ovlperf.load\",\"schema_version\":2}", "not an ovlperf run.json" },
		{ "{\"schema\":1}", "complete" },
		{ "{\"schema\":1,\"complete\":true,\"scenario\":{\"name\":\"x\"}}", "paths" },
		{ "{\"schema\":1,\"complete\":true,\"scenario\":{\"name\":\"x\"},"
		  "\"paths\":[{\"name\":\"u\",\"kind\":\"tunnel\"}]}",
		  "paths[0].kind" },
		{ "{\"schema\":1,\"complete\":true,\"scenario\":{\"name\":\"x\"},"
		  "\"paths\":[{\"name\":\"u\",\"kind\":\"underlay\"}],\"trials\":[{\"kind\":"
		  "\"tcp\","
		  "\"path\":3}]}",
		  "trials[0].path" },
		{ "{\"schema\":1,\"complete\":true,\"scenario\":{\"name\":\"x\"},"
		  "\"paths\":[{\"name\":\"u\",\"kind\":\"underlay\"}],\"trials\":[{\"kind\":"
		  "\"udp\","
		  "\"path\":0}]}",
		  "trials[0].kind" },
		{ "{\"schema\":1,\"complete\":true,\"scenario\":{\"name\":\"x\"},"
		  "\"paths\":[{\"name\":\"u\",\"kind\":\"underlay\"}],\"trials\":[{\"kind\":"
		  "\"knee\","
		  "\"path\":0,\"udp\":{\"sent\":-4}}]}",
		  "trials[0].udp.sent" },
		{ "{\"schema\":1,\"complete\":true,\"scenario\":{\"name\":\"x\"},"
		  "\"paths\":[{\"name\":\"u\",\"kind\":\"underlay\"}],\"trials\":[{\"kind\":"
		  "\"knee\","
		  "\"path\":0,\"udp\":{\"owd\":{\"valid\":1}}}]}",
		  "trials[0].udp.owd.valid" },
		{ "{\"schema\":1,\"complete\":true,\"scenario\":{\"name\":\"x\"},"
		  "\"paths\":[{\"name\":\"u\",\"kind\":\"underlay\"}],\"trials\":[{\"kind\":"
		  "\"knee\",\"path\":0,\"sched\":{\"server\":\"fifo:0\"}}]}",
		  "trials[0].sched.server" },
		{ "{\"schema\":1,\"complete\":true,\"scenario\":{\"name\":\"x\"},"
		  "\"paths\":[{\"name\":\"u\",\"kind\":\"underlay\"}],\"trials\":[],"
		  "\"mtu\":[{\"path\":0,\"check\":\"pmtu\",\"verdict\":\"MAYBE\"}]}",
		  "mtu[0].verdict" },
		{ "{\"schema\":1,\"complete\":true,\"scenario\":{\"name\":\"x\"},"
		  "\"paths\":[{\"name\":\"u\",\"kind\":\"underlay\"}],\"trials\":[{\"kind\":"
		  "\"delay\",\"path\":0,\"load_pct\":150}]}",
		  "trials[0].load_pct: must be 0..100" },
		{ "{\"schema\":1,\"complete\":true,\"scenario\":{\"name\":\"x\"},"
		  "\"paths\":[{\"name\":\"u\",\"kind\":\"underlay\"}],\"trials\":[{\"kind\":"
		  "\"knee\",\"path\":0,\"load_pct\":50}]}",
		  "trials[0].load_pct: belongs to delay trials only" },
		{ "{\"schema\":1,\"complete\":true,\"scenario\":{\"name\":\"x\"},"
		  "\"paths\":[{\"name\":\"u\",\"kind\":\"underlay\"}],\"trials\":[{\"kind\":"
		  "\"tcp\",\"path\":0,\"softirq\":{\"scope\":\"machine\",\"cpu\":[0.5,1.5]}}]}",
		  "trials[0].softirq.cpu: must hold shares from 0 to 1" },
		{ "{\"schema\":1,\"complete\":true,\"scenario\":{\"name\":\"x\"},"
		  "\"paths\":[{\"name\":\"u\",\"kind\":\"underlay\"}],\"trials\":[{\"kind\":"
		  "\"tcp\",\"path\":0,\"softirq\":[0.5]}]}",
		  "trials[0].softirq: must be an object with a cpu array" },
		{ "{\"schema\":1,\"complete\":true,\"scenario\":{\"name\":\"x\"},"
		  "\"paths\":[{\"name\":\"u\",\"kind\":\"underlay\"}],\"trials\":[{\"kind\":"
		  "\"knee\",\"path\":0,\"udp\":{\"loss_detail\":{\"other_socket\":{\"port\":0,"
		  "\"family\":4}}}}]}",
		  "trials[0].udp.loss_detail.other_socket.port: must be a UDP port" },
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct results_run r;

		assert_int_equal(results_from_json(cases[i].text, &r, err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].expect))
			fail_msg("case %zu: error '%s' does not name '%s'", i, err,
				 cases[i].expect);
	}
}

static void test_read_missing_file(void **state)
{
	struct results_run r;
	char err[256];

	(void)state;
	assert_int_equal(results_read_json("/nonexistent/run.json", &r, err, sizeof(err)), -ENOENT);
	/* the caller names the file, once */
	assert_null(strstr(err, "/nonexistent/run.json"));
	assert_string_equal(err, strerror(ENOENT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_median),
		cmocka_unit_test(test_delivered),
		cmocka_unit_test(test_aggregate),
		cmocka_unit_test(test_host_cpu_baseline),
		cmocka_unit_test(test_knee_bounds_over_reps),
		cmocka_unit_test(test_delay_basis),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_json_has_ratios),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_read_missing_file),
		cmocka_unit_test(test_delay_loads),
		cmocka_unit_test(test_layers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
