// SPDX-License-Identifier: MIT
/* The run printers on a synthetic run: terminal, Markdown, CSV, comparison
 * and the gnuplot SVGs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "report_run.h"
#include "run.h"
#include "run_fixture.h"

typedef void (*printer)(FILE *f, const struct report_run *rr, const void *arg);

static char *render(printer p, const struct report_run *rr, const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	p(f, rr, arg);
	fclose(f);
	return buf;
}

static void p_term(FILE *f, const struct report_run *rr, const void *arg)
{
	(void)arg;
	report_run_term(f, rr);
}

static void p_md(FILE *f, const struct report_run *rr, const void *arg)
{
	assert_int_equal(report_run_md(f, rr, arg), 0);
}

static void p_csv(FILE *f, const struct report_run *rr, const void *arg)
{
	(void)arg;
	assert_int_equal(report_run_csv(f, rr), 0);
}

static void p_diff(FILE *f, const struct report_run *rr, const void *arg)
{
	report_run_diff(f, rr, arg, NULL);
}

static void contains(const char *text, const char *what)
{
	if (!strstr(text, what))
		fail_msg("'%s' not found in:\n%s", what, text);
}

static void test_term(void **state)
{
	struct results_run run;
	struct report_run rr;
	char *t;

	(void)state;
	fixture_run(&run);
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	t = render(p_term, &rr, NULL);
	contains(t, "scenario 'fixture'");
	contains(t, "950M [900M-1G]");			/* median and spread */
	contains(t, "250M [200M-300M]       x0.26");	/* 250/950 */
	contains(t, "200M                   x0.25");	/* NDR 200/800 */
	contains(t, "1368                   -80");	/* MSS delta */
	contains(t, "0.15 / 0.9             x3.0/4.5"); /* delay at the common load */
	contains(t, "200M..202M                             220M..222M"); /* knee bounds */
	report_run_release(&rr);
	free(t);
	/* a range that rounds to one unit: never "1e+03M", never "1G-1G" */
	for (size_t i = 0, k = 0; i < run.ntrials; i++)
		if (run.trials[i].kind == RESULTS_TRIAL_TCP && run.trials[i].path == 0 &&
		    run.trials[i].streams == 1)
			run.trials[i].tcp.goodput_bps =
				k++ ? 1000000000 + (k - 2) * 800000 : 999700000;
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	t = render(p_term, &rr, NULL);
	contains(t, "1G [999.7M-1.001G]");
	report_run_release(&rr);
	free(t);
	/* a delay ratio below 0.1 keeps its first digit: x0.05, not x0.0 */
	for (size_t i = 0; i < run.ntrials; i++)
		if (run.trials[i].kind == RESULTS_TRIAL_DELAY && run.trials[i].path == 1)
			run.trials[i].udp.owd.p99_ns = 10000;
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	t = render(p_term, &rr, NULL);
	contains(t, "x3.0/0.05");
	/* the NDR at every layer: 800 Mbit/s of 1400-byte payloads */
	contains(t, "NDR 71k frames/s: ip 1428 B 816.0, frame 1446 B 826.3, line 1466 B 837.7 "
		    "Mbit/s\n");
	free(t);
	/* on a lab link that counts like 1 GbE: the NDR as a share of it */
	run.line_rate_bps = 1000000000;
	report_run_release(&rr);
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	t = render(p_term, &rr, NULL);
	contains(t, "line 1466 B 837.7 Mbit/s, 83.8 % of the line's 1000 Mbit/s\n");
	contains(t,
		 "network 100%: 1 of 1 trials lost 16 % (14k datagrams), up to 16 % at 1 Gbit/s");
	contains(t,
		 "network 100%: 2 of 2 trials lost 72 % (96k datagrams), up to 78 % at 1 Gbit/s");
	contains(t, "offered payload | RX/TX pps");
	contains(t, "(sizes in bytes and rates in bit/s of UDP payload;");
	/* the size at every layer heads each table, what arrived is at each */
	contains(t, "UDP 1400 B (payload; IPv4: ip 1428, frame 1446, line 1466 B)");
	contains(t, "|  payload        ip     frame      line |");
	contains(t, "|####################|"); /* 100 % delivered */
	contains(t, "|####                |"); /* 22 % delivered */
	contains(t, "WARN pmtu");
	contains(t, "delay 1400B @100M");
	free(t);
	run.complete = false;
	snprintf(run.stop_reason, sizeof(run.stop_reason), "interrupted (SIGINT)");
	t = render(p_term, &rr, NULL);
	contains(t, "INCOMPLETE");
	contains(t, "stopped: interrupted (SIGINT)");
	free(t);
	report_run_release(&rr);
	results_free(&run);
}

/* Over the built-in overlay the outer datagrams its daemon counted show in
 * every printer as the line bytes of one: 17,900 outer datagrams of 1480
 * bytes of UDP payload (IPv4), 1546 bytes each on the line, x1.05 the 1466
 * of a 1400-byte test datagram. */
static void test_outer(void **state)
{
	struct results_run run;
	struct report_run rr;
	char *t;

	(void)state;
	fixture_run(&run);
	for (size_t i = 0; i < run.ntrials; i++) {
		struct results_trial *tr = &run.trials[i];

		if (tr->path != 1 || tr->kind == RESULTS_TRIAL_TCP)
			continue;
		tr->udp.sent = 17857;
		tr->udp.outer = (struct udp_outer){ .ip_version = 4,
						    .datagrams = 17900,
						    .bytes = 17900ULL * 1480 };
	}
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	t = render(p_term, &rr, NULL);
	contains(t, "1546.0 (x1.05)");
	free(t);
	t = render(p_md, &rr, NULL);
	contains(t, "| 1546.0 |");
	free(t);
	t = render(p_csv, &rr, NULL);
	contains(t, "knee_trial_outer_line_bytes_per_outer_datagram,overlay,builtin,,1400,");
	free(t);
	report_run_release(&rr);
	results_free(&run);
}

static void test_md_csv(void **state)
{
	struct results_run run;
	struct report_run rr;
	struct plot_set set = { .n = 1, .file = { "delivered.svg" }, .title = { "Delivered" } };
	char *t;

	(void)state;
	fixture_run(&run);
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	t = render(p_md, &rr, &set);
	contains(t, "# ovlperf run: fixture");
	contains(t, "![Delivered](delivered.svg)");
	contains(t, "| overlay | 1 | 250.0 (200.0-300.0) | 0.263 |");
	contains(t, "| overlay | 1400 | 200.0 | 200.0 | 202.0 | 17.9 | 0.250 |");
	/* the NDR at every layer, and each table's size and rate layers */
	contains(t, "| underlay | 1400 | 1428 | 1446 | 71429 | 800.0 | 816.0 | 826.3 | 837.7 |");
	contains(t, "Each datagram: 1400 B payload, 1428 B IP packet (IPv4), 1446 B frame, 1466 B "
		    "on the line.");
	contains(t, "| offered Mbit/s (payload) | TX pps | RX pps | RX Mbit/s payload |");
	contains(t, "- overlay, 1400 B: the network between the hosts: ");
	contains(t, "| 9 | 12.5 | network 100%: 2 of 2 trials lost 72 % (96k datagrams), up to 78 "
		    "% at 1 Gbit/s |");
	contains(t, "```ini\n[scenario]\nname = fixture\n```");
	contains(t, "Test CPU \"quoted\" model");
	free(t);
	t = render(p_csv, &rr, NULL);
	contains(t, "metric,path,kind,streams,bytes,offered_bps,n,median,min,max,");
	contains(t, "udp_ndr_bps,overlay,builtin,,1400,,1,200000000,200000000,200000000,"
		    "800000000,0.25,75,exact,exact,exact,exact,unknown\n");
	contains(
		t,
		"tcp_goodput_bps,underlay,underlay,4,,,3,1900000000,1800000000,2000000000,,,,exact,"
		",,,\n");
	contains(t, "owd_p99_ms,overlay,builtin,,1400,100000000,3,0.9,0.9,0.9,0.2,4.5,350,exact,"
		    "exact,exact,exact,\n");
	/* rates at the other layers, named by their layer: 200 Mbit/s of
	 * 1400-byte payloads is 17857 datagrams a second, 209.4 on the line */
	contains(t, "udp_ndr_pps,overlay,builtin,,1400,,1,17857.14286,");
	contains(t, "udp_ndr_line_bps,overlay,builtin,,1400,,1,209428571,");
	contains(t, "udp_ndr_frame_bps,overlay,builtin,,1400,,1,206571429,");
	contains(t, "knee_trial_rx_frame_bps,underlay,underlay,,1400,500000000,");
	free(t);
	/* one clock: no word about upper bounds */
	t = render(p_md, &rr, &set);
	assert_null(strstr(t, "do not share a clock"));
	free(t);
	report_run_release(&rr);
	results_free(&run);
}

/* Delays at two loads: one summary row per load, named by its share of the
 * NDR, and one report.md row per path and load with the ratio at that load. */
static void test_delay_rows(void **state)
{
	struct results_run run;
	struct report_run rr;
	char *t;

	(void)state;
	fixture_run(&run);
	fixture_two_loads(&run);
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	t = render(p_term, &rr, NULL);
	contains(t,
		 "delay 1400B @50% 100M  0.05 / 0.2                       0.15 / 0.9             "
		 "x3.0/4.5");
	contains(t,
		 "delay 1400B @90% 180M  0.06 / 0.5                       0.4 / 12               "
		 "x6.7/24.0");
	free(t);
	t = render(p_md, &rr, NULL);
	contains(t, "## One-way delay at common loads");
	contains(t, "| overlay | 1400 | 50 | 100.0 | 0.150 | 0.900 | - | 100.00 | 3.000 | 4.500 |");
	contains(t,
		 "| overlay | 1400 | 90 | 180.0 | 0.400 | 12.000 | 9.000 (8.000-10.000) | 100.00 | "
		 "6.667 | 24.000 |");
	contains(t, "| overlay | delay p99 | 1400 bytes, 90 % of NDR (180.0 Mbit/s) | 0.500 ms |");
	free(t);
	t = render(p_csv, &rr, NULL);
	contains(t, "owd_p99_ms,overlay,builtin,,1400,180000000,3,12,12,12,0.5,24,");
	contains(t, "rx_wait_p99_ms,overlay,builtin,,1400,180000000,3,9,8,10,,,");
	assert_null(strstr(t, "rx_wait_p99_ms,overlay,builtin,,1400,100000000"));
	free(t);
	report_run_release(&rr);
	results_free(&run);
}

/* Hosts whose clocks differ: the reports say the delays are upper bounds and
 * by how much at most (the largest error of any trial). */
static void test_owd_upper_bound(void **state)
{
	struct results_run run;
	struct report_run rr;
	struct plot_set set = { .n = 0 };
	bool first = true;
	char *t;

	(void)state;
	fixture_run(&run);
	for (size_t i = 0; i < run.ntrials; i++)
		if (run.trials[i].udp.owd.valid) {
			run.trials[i].udp.owd.error_ns = first ? 480000 : 250000;
			first = false;
		}
	assert_false(first);
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	assert_true(rr.sum.owd_error_ms > 0.4799 && rr.sum.owd_error_ms < 0.4801);
	t = render(p_md, &rr, &set);
	contains(t,
		 "The hosts do not share a clock: each delay is an upper bound, at most 0.480 ms "
		 "above the true one-way delay");
	free(t);
	t = render(p_term, &rr, NULL);
	contains(t, "(clocks not shared: delays are upper bounds, at most 0.480 ms above the true "
		    "ones)");
	free(t);
	report_run_release(&rr);
	results_free(&run);
}

static void test_diff(void **state)
{
	struct results_run a, b;
	struct report_run ra, rb;
	char *t;

	(void)state;
	fixture_run(&a);
	fixture_run(&b);
	b.knees[1].ndr_lower_bps = 300000000; /* overlay NDR 200 -> 300 */
	assert_int_equal(report_run_prepare(&ra, &a), 0);
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	t = render(p_diff, &ra, &rb);
	contains(t, "UDP NDR");
	contains(t, "+50.0%");
	contains(t, "100 Mbit/s");
	free(t);
	report_run_release(&ra);
	report_run_release(&rb);
	results_free(&a);
	results_free(&b);
}

static void p_diff_json(FILE *f, const struct report_run *rr, const void *arg)
{
	struct report_diff_options o = {
		.json = true, .dir_a = "a", .dir_b = "b", .cpu_threshold = 0.05
	};

	assert_int_equal(report_run_diff(f, rr, arg, &o), 6);
}

/* The text at --threshold-cpu 10 */
static void p_diff_cpu10(FILE *f, const struct report_run *rr, const void *arg)
{
	struct report_diff_options o = { .cpu_threshold = 0.10 };

	report_run_diff(f, rr, arg, &o);
}

/* The overlay's TCP goodput halves in B: every one of its repetitions
 * below every one of A's, a regression at 1 and 4 streams, and so are its
 * ratios to the underlay; the ratio of the host's CPU per Gbit doubles (the
 * same CPU seconds for half the data), within the CPU figures' default
 * threshold of 100 % and a regression at --threshold-cpu 5 (the JSON);
 * the test processes' CPU per Gbit, the same in every repetition, is
 * noise, and so is the underlay, unchanged. */
static void p_diff_json_setups(FILE *f, const struct report_run *rr, const void *arg)
{
	struct report_diff_options o = { .json = true };

	assert_true(report_run_diff(f, rr, arg, &o) >= 0);
}

/* Runs of two setups (the default lab against the WAN scenario's 75 ms
 * link, another MTU) compare only with a loud warning naming each
 * difference, in the text and the JSON. */
static void test_diff_setups(void **state)
{
	struct results_run a, b;
	struct report_run ra, rb;
	char *t;

	(void)state;
	fixture_run(&a);
	fixture_run(&b);
	a.nlinks = b.nlinks = 1;
	a.links[0].rate_bps = b.links[0].rate_bps = 1000000000;
	/* the same 1.5 s trials measured 1.7 s in one run, 1.8 s in the next */
	for (size_t i = 0; i < a.ntrials; i++)
		if (a.trials[i].kind == RESULTS_TRIAL_TCP)
			a.trials[i].duration_s = 1.7;
	for (size_t i = 0; i < b.ntrials; i++)
		if (b.trials[i].kind == RESULTS_TRIAL_TCP)
			b.trials[i].duration_s = i % 2 ? 1.8 : 1.7;
	assert_int_equal(report_run_prepare(&ra, &a), 0);
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	t = render(p_diff, &ra, &rb);
	assert_null(strstr(t, "WARNING"));
	assert_null(strstr(t, "durations differ"));
	free(t);
	report_run_release(&rb);
	snprintf(b.links[0].conditions, sizeof(b.links[0].conditions), "delay 75ms");
	snprintf(b.scenario_name, sizeof(b.scenario_name), "wan_sdwan");
	b.paths[1].mtu = 1380;
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	t = render(p_diff, &ra, &rb);
	contains(t, "WARNING: A and B are not runs of one setup");
	contains(t, "warning: the scenarios differ: A 'fixture', B 'wan_sdwan'");
	contains(t, "warning: the labs' link 0 differs: A 1 Gbit/s, no delay or loss; B 1 Gbit/s, "
		    "delay 75ms");
	contains(t, "MTU differs");
	free(t);
	t = render(p_diff_json_setups, &ra, &rb);
	contains(t, "\"setups_differ\":\ttrue");
	free(t);
	report_run_release(&ra);
	report_run_release(&rb);
	results_free(&a);
	results_free(&b);
}

static void test_diff_verdicts(void **state)
{
	struct results_run a, b;
	struct report_run ra, rb;
	cJSON *doc, *figs, *x;
	unsigned regressions = 0;
	char *t;

	(void)state;
	fixture_run(&a);
	fixture_run(&b);
	for (size_t i = 0; i < b.ntrials; i++)
		if (b.trials[i].kind == RESULTS_TRIAL_TCP && b.trials[i].path == 1)
			b.trials[i].tcp.goodput_bps /= 2;
	assert_int_equal(report_run_prepare(&ra, &a), 0);
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	t = render(p_diff, &ra, &rb);
	/* 200..300 against 100..150: the nine ratios 1/3..3/4 (a rate's
	 * change is a ratio: never below -100 %) */
	contains(t,
		 "TCP goodput            overlay         1 str      250 Mbit/s     125 Mbit/s    "
		 "-125 Mbit/s   -50.0%  [-66.7, -25.0]%    REGRESSION\n");
	contains(t,
		 "TCP goodput            underlay        1 str      950 Mbit/s     950 Mbit/s     "
		 "   0 bit/s    +0.0%  [-10.0, +11.1]%    noise\n");
	contains(t, "ratio host CPU s/Gbit  overlay         1 str               4              8 "
		    "             4  +100.0%  [+100.0, +100.0]%  within threshold\n");
	contains(t, "(1+1 reps)         too few reps\n");
	contains(t, "4 regressions, 0 progressions");
	contains(t, "(CPU per Gbit is not judged: it moves between runs beyond its repetitions; "
		    "--threshold-cpu PCT)");
	free(t);
	t = render(p_diff_json, &ra, &rb);
	doc = cJSON_Parse(t);
	assert_non_null(doc);
	assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring, "ovlperf.compare");
	assert_int_equal(cJSON_GetObjectItem(doc, "regressions")->valueint, 6);
	assert_float_equal(cJSON_GetObjectItem(doc, "threshold_cpu_pct")->valuedouble, 5, 1e-9);
	figs = cJSON_GetObjectItem(doc, "figures");
	cJSON_ArrayForEach(x, figs)
	{
		const char *v = cJSON_GetObjectItem(x, "verdict")->valuestring;

		if (strcmp(v, "regression"))
			continue;
		regressions++;
		assert_string_equal(cJSON_GetObjectItem(x, "path")->valuestring, "overlay");
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(x, "b"),
									"repetitions")),
				 3);
		assert_float_equal(
			cJSON_GetObjectItem(cJSON_GetObjectItem(x, "change"), "confidence")
				->valuedouble,
			0.9, 1e-9);
	}
	assert_int_equal(regressions, 6);
	cJSON_Delete(doc);
	free(t);
	report_run_release(&ra);
	report_run_release(&rb);
	results_free(&a);
	results_free(&b);
}

/* The line of the figure that starts with head; its verdict must be want. */
static void verdict_of(const char *text, const char *head, const char *want)
{
	const char *l = strstr(text, head), *e;

	if (!l)
		fail_msg("no line '%s' in:\n%s", head, text);
	e = strchr(l, '\n');
	assert_non_null(e);
	if ((size_t)(e - l) < strlen(want) || strncmp(e - strlen(want), want, strlen(want)))
		fail_msg("'%.*s': not '%s'", (int)(e - l), l, want);
}

/* The goodput the same, the test processes' CPU per Gbit tripled in B (as
 * between identical real runs, docs/compare.md): not judged by default (0
 * regressions), a regression at --threshold-cpu 10; the goodput noise. */
static void test_diff_cpu_threshold(void **state)
{
	struct results_run a, b;
	struct report_run ra, rb;
	FILE *null;
	char *t;

	(void)state;
	fixture_run(&a);
	fixture_run(&b);
	for (size_t i = 0; i < b.ntrials; i++)
		if (b.trials[i].kind == RESULTS_TRIAL_TCP) {
			b.trials[i].sender_cpu_s_per_gbit *= 3;
			b.trials[i].receiver_cpu_s_per_gbit *= 3;
		}
	assert_int_equal(report_run_prepare(&ra, &a), 0);
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	null = fopen("/dev/null", "w");
	assert_non_null(null);
	assert_int_equal(report_run_diff(null, &ra, &rb, NULL), 0);
	fclose(null);
	t = render(p_diff, &ra, &rb);
	contains(t, "CPU s/Gbit             overlay         1 str               4             12 "
		    "             8  +200.0%  [+200.0, +200.0]%  within threshold\n");
	verdict_of(t, "  CPU s/Gbit             underlay        4 str", "within threshold");
	verdict_of(t, "  ratio CPU s/Gbit       overlay         1 str", "noise");
	verdict_of(t, "  TCP goodput            overlay         1 str", "noise");
	contains(t, "0 regressions, 0 progressions");
	free(t);
	t = render(p_diff_cpu10, &ra, &rb);
	contains(t, "CPU s/Gbit             overlay         1 str               4             12 "
		    "             8  +200.0%  [+200.0, +200.0]%  REGRESSION\n");
	verdict_of(t, "  TCP goodput            overlay         1 str", "noise");
	contains(t, "4 regressions, 0 progressions");
	contains(t, "(CPU per Gbit: 10 %, --threshold-cpu)");
	free(t);
	report_run_release(&ra);
	report_run_release(&rb);
	results_free(&a);
	results_free(&b);
}

/* The underlay passed at max_rate (10 Gbit/s, a lower bound) and the
 * sender fell short of the overlay's knee (generator-limit): every printer
 * carries the marker, a ratio against the bound is a bound, and the CSV
 * says which figures are lower bounds. */
static void bound_run(struct results_run *run)
{
	fixture_run(run);
	snprintf(run->knees[0].ndr_outcome, sizeof(run->knees[0].ndr_outcome), "above-max");
	run->knees[0].ndr_lower_bps = 10000000000ULL;
	run->knees[0].ndr_lower_achieved_bps = 10000000000ULL;
	run->knees[0].ndr_upper_bps = 0;
	snprintf(run->knees[1].ndr_outcome, sizeof(run->knees[1].ndr_outcome), "generator-limit");
	run->knees[1].ndr_lower_bps = 1810000000ULL;
	run->knees[1].ndr_lower_achieved_bps = 1800000000ULL; /* what was sent */
	run->knees[1].ndr_upper_bps = 1830000000ULL;
}

static void test_lower_bound_markers(void **state)
{
	struct results_run run;
	struct report_run rr;
	struct plot_set set = { .n = 0 };
	char *t;

	(void)state;
	bound_run(&run);
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	t = render(p_term, &rr, NULL);
	contains(t, ">= 10G");
	contains(t, ">= 1.8G                x0.18*");
	contains(t, ">= 1.8G (generator-limit; target 1.81G)");
	contains(t, "* a bound, not a ratio");
	free(t);
	t = render(p_md, &rr, &set);
	/* the overhead table: the underlay's figure and everything against it */
	contains(t, "| overlay | UDP NDR | 1400 bytes | >= 10000.0 Mbit/s | >= 1800.0 Mbit/s | "
		    "? 0.180 | ? -8200.0 Mbit/s | ? +82.0 |");
	contains(t, "| underlay | 1400 | >= 10000.0 (above-max) | 10000.0 | - |");
	contains(t, "| overlay | 1400 | >= 1800.0 (generator-limit) | 1810.0 | 1830.0 (sender's "
		    "limit) |");
	assert_null(strstr(t, "| 10000.0 Mbit/s"));
	free(t);
	t = render(p_csv, &rr, NULL);
	contains(t, ",cost_pct,bound,underlay_bound,ratio_bound,cost_bound,limit\n");
	contains(t, "udp_ndr_bps,underlay,underlay,,1400,,1,10000000000,10000000000,10000000000,,,,"
		    "lower_bound,,,,max rate\n");
	contains(t, "udp_ndr_bps,overlay,builtin,,1400,,1,1800000000,1800000000,1800000000,"
		    "10000000000,0.18,82,lower_bound,lower_bound,unknown,unknown,generator\n");
	contains(t, "udp_ndr_target_bps,overlay,builtin,,1400,,1,1810000000,");
	free(t);
	/* only the underlay a bound: the ratio is at most, the cost at least */
	snprintf(run.knees[1].ndr_outcome, sizeof(run.knees[1].ndr_outcome), "found");
	report_run_release(&rr);
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	t = render(p_md, &rr, &set);
	contains(t,
		 "| >= 10000.0 Mbit/s | 1800.0 Mbit/s | <= 0.180 | <= -8200.0 Mbit/s | >= +82.0 |");
	free(t);
	t = render(p_csv, &rr, NULL);
	contains(t, "10000000000,0.18,82,exact,lower_bound,at_most,at_least,unknown\n");
	free(t);
	report_run_release(&rr);
	results_free(&run);
}

/* `ovlperf report A B`: a lower bound is no exact difference, a knee below
 * the search's minimum is a figure (not "only in A"), and runs that differ
 * in what they measured are flagged. */
static void test_diff_bounds(void **state)
{
	struct results_run a, b;
	struct report_run ra, rb;
	char *t;

	(void)state;
	fixture_run(&a);
	bound_run(&b);
	/* B's overlay PDR is below the search's minimum */
	b.knees[1].pdr_found = false;
	snprintf(b.knees[1].pdr_outcome, sizeof(b.knees[1].pdr_outcome), "below-min");
	b.knees[1].pdr_upper_bps = 1000000;
	b.pdr_goal_pct = 2.0;
	a.pdr_goal_pct = 0.5;
	b.trials[b.ntrials - 1].duration_s = 5.0;
	assert_int_equal(report_run_prepare(&ra, &a), 0);
	assert_int_equal(report_run_prepare(&rb, &b), 0);
	t = render(p_diff, &ra, &rb);
	contains(t, "warning: the PDR loss goals differ: A 0.5 %, B 2 %");
	contains(t, "warning: the delay trial durations differ: A 1.0s, B 1.0s 5.0s");
	/* underlay NDR: 800 exact in A, >= 10 G in B: the change is a lower bound */
	contains(t, "800 Mbit/s   >= 10 Gbit/s  >= 9.2 Gbit/s >= +1150.0%");
	/* both ratios of the NDR rest on a bound in B: no difference */
	contains(t, "0.25         ? 0.18              ?        ?");
	/* overlay PDR: <= 1 Mbit/s in B, a bound, not "only in A" */
	contains(t, "UDP PDR                overlay        1400 B      220 Mbit/s    <= 1 Mbit/s "
		    "<= -219 Mbit/s <= -99.5%");
	/* nor is its ratio to the underlay: it is an upper bound */
	contains(t, "ratio UDP PDR          overlay        1400 B          0.2619     <= 0.00119");
	assert_null(strstr(t, "only in A"));
	free(t);
	t = render(p_csv, &rb, NULL);
	contains(t, "udp_pdr_bps,overlay,builtin,,1400,,1,1000000,1000000,1000000,840000000,"
		    "0.00119048,99.88,upper_bound,exact,at_most,at_least,\n");
	free(t);
	t = render(p_md, &rb, NULL);
	contains(t, "| overlay | UDP PDR | 1400 bytes | 840.0 Mbit/s | <= 1.0 Mbit/s | <= 0.001 |");
	free(t);
	report_run_release(&ra);
	report_run_release(&rb);
	results_free(&a);
	results_free(&b);
}

static bool have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* The first marker gnuplot drew for plot element no (1, 2 ...) of an SVG:
 * its symbol ("#gpPt7") and colour ("rgb( 31, 119, 180)"). */
static void first_marker(const char *svg, unsigned no, char *pt, char *color, size_t len)
{
	char id[48];
	const char *g, *end, *u, *c;

	snprintf(id, sizeof(id), "<g id=\"gnuplot_plot_%u\"", no);
	g = strstr(svg, id);
	assert_non_null(g);
	snprintf(id, sizeof(id), "<g id=\"gnuplot_plot_%u\"", no + 1);
	end = strstr(g, id);
	u = strstr(g, "<use xlink:href='");
	assert_true(u && (!end || u < end));
	u += strlen("<use xlink:href='");
	snprintf(pt, len, "%.*s", (int)strcspn(u, "'"), u);
	c = strstr(u, "color='");
	assert_non_null(c);
	c += strlen("color='");
	snprintf(color, len, "%.*s", (int)strcspn(c, "'"), c);
}

/* Every plot names its run; the loss plot draws the goal; the paths'
 * markers differ in shape and colour in every plot that has both. */
static void plot_checks(const char *file, const char *buf)
{
	char pt[2][32], color[2][32];

	contains(buf, "scenario fixture, started 2026-11-30T09:00:00Z");
	if (!strcmp(file, "delivered.svg")) {
		contains(buf, "Loss vs offered load");
		contains(buf, "loss goal 0.5 % (PDR)");
		contains(buf, ">none<");
	}
	/* the first two elements are the two paths' (underlay, then overlay) */
	for (unsigned i = 0; i < 2; i++)
		first_marker(buf, 1 + i * (strcmp(file, "delay.svg") ? 1 : 2), pt[i], color[i],
			     sizeof(pt[i]));
	if (!strcmp(pt[0], pt[1]) || !strcmp(color[0], color[1]))
		fail_msg("%s: both paths drawn as %s %s / %s %s", file, pt[0], color[0], pt[1],
			 color[1]);
}

static void test_plots(void **state)
{
	struct results_run run;
	struct report_run rr;
	struct plot_set set;
	char dir[] = "/tmp/test_plot_XXXXXX", path[128], cmd[256];

	(void)state;
	if (!have_gnuplot())
		skip();
	assert_non_null(mkdtemp(dir));
	fixture_run(&run);
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	assert_int_equal(report_run_plot(&rr, dir, &set), 0);
	assert_int_equal(set.n, 3);
	for (unsigned i = 0; i < set.n; i++) {
		FILE *f;
		char *buf = calloc(1, 1 << 20);
		size_t n;

		snprintf(path, sizeof(path), "%s/%s", dir, set.file[i]);
		f = fopen(path, "r");
		assert_non_null(f);
		n = fread(buf, 1, (1 << 20) - 1, f);
		fclose(f);
		assert_true(n > 100);
		contains(buf, "<svg");
		contains(buf, "</svg>");
		if (!strcmp(set.file[i], "delivered.svg"))
			contains(buf, "NDR overlay 1400 B: 200 Mbit/s");
		if (!strcmp(set.file[i], "delivered.svg"))
			contains(buf, "drawn at this edge");
		plot_checks(set.file[i], buf);
		free(buf);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	report_run_release(&rr);
	results_free(&run);
}

/* A full disk: every file of the results directory is /dev/full, whose
 * writes fail with ENOSPC at the flush. report_run_out_write() must name each
 * file (with the run.json the caller could not write), return the error,
 * and the summary must not point at them as written. */
static void test_output_full_disk(void **state)
{
	static const char *const files[] = { "summary.csv", "report.md", "report.html",
					     "delivered.gp" };
	struct results_run run;
	char dir[] = "/tmp/test_full_XXXXXX", path[128], cmd[256];
	char unwritten[512] = "run.json";
	char *buf = NULL;
	size_t len = 0;
	FILE *term;
	int rc;

	(void)state;
	if (access("/dev/full", W_OK))
		skip();
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		assert_int_equal(symlink("/dev/full", path), 0);
	}
	fixture_run(&run);
	term = open_memstream(&buf, &len);
	assert_non_null(term);
	rc = report_run_out_write(&run, dir, have_gnuplot(), term, unwritten, sizeof(unwritten));
	fclose(term);
	assert_true(rc < 0);
	contains(unwritten, "run.json");
	contains(unwritten, "summary.csv");
	contains(unwritten, "report.md");
	contains(unwritten, "report.html");
	if (have_gnuplot())
		contains(unwritten, "delivered.gp");
	contains(buf, "INCOMPLETE: could not write run.json");
	assert_null(strstr(buf, "(run.json, summary.csv, report.md"));
	free(buf);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	results_free(&run);
}

static void test_sweep_summary(void **state)
{
	struct results_run run;
	struct report_run rr;
	char *t;

	(void)state;
	fixture_run(&run);
	/* underlay lossless to 300M, overlay to 100M and at most 150M received */
	fixture_udp(&run, 0, RESULTS_TRIAL_SWEEP, 100, 100.0, 0.1, 0.2);
	fixture_udp(&run, 1, RESULTS_TRIAL_SWEEP, 100, 100.0, 0.1, 0.2);
	fixture_udp(&run, 0, RESULTS_TRIAL_SWEEP, 300, 100.0, 0.1, 0.2);
	fixture_udp(&run, 1, RESULTS_TRIAL_SWEEP, 300, 50.0, 0.1, 0.2);
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	t = render(p_term, &rr, NULL);
	contains(t,
		 "sweep 1400B lossless to 300M                             100M                   "
		 "x0.33");
	contains(t,
		 "sweep 1400B most RX    300M                             150M                   "
		 "x0.50");
	contains(t, "UDP 1400 B (payload; IPv4: ip 1428, frame 1446, line 1466 B), linear sweep");
	free(t);
	report_run_release(&rr);
	results_free(&run);
}

/* The loss above the NDR is what every knee and MRR trial above it
 * counted, not the one trial at its upper bound: there a path that queued
 * lost nothing (its arrivals fell behind), while higher loads lost 15 and
 * 57 %. A trial at the NDR's load is not above it; a knee above every
 * trial has none above it; a queue alone is named as one. */
static void test_knee_above(void **state)
{
	struct results_run run;
	struct report_run rr;
	char b[256];

	(void)state;
	results_init(&run);
	results_add_path(&run, "underlay", RESULTS_PATH_UNDERLAY, "198.18.0.2", 1500);
	results_add_path(&run, "overlay", RESULTS_PATH_BUILTIN, "198.19.0.2", 1420);
	fixture_udp(&run, 1, RESULTS_TRIAL_KNEE, 10000, 43.0, 1, 2);
	fixture_udp(&run, 1, RESULTS_TRIAL_KNEE, 5330, 85.0, 1, 2);
	fixture_udp(&run, 1, RESULTS_TRIAL_KNEE, 4000, 100.0, 1, 2);
	run.trials[run.ntrials - 1].udp.arrival_bps = 3800000000; /* 5 % short */
	fixture_udp(&run, 1, RESULTS_TRIAL_KNEE, 3900, 100.0, 1, 2);
	fixture_udp(&run, 0, RESULTS_TRIAL_KNEE, 3900, 100.0, 1, 2);
	fixture_knee(&run, 0, 3900, 3900);
	fixture_knee(&run, 1, 3900, 3900);
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	assert_int_equal(rr.sum.nknee, 2);
	report_run_knee_above(b, sizeof(b), &rr.sum.knee[0]);
	assert_string_equal(b, "no trial above it");
	report_run_knee_above(b, sizeof(b), &rr.sum.knee[1]);
	assert_int_equal(rr.sum.knee[1].above_trials, 3);
	assert_int_equal(rr.sum.knee[1].above_lossy, 2);
	contains(b, "network 100%: 2 of 3 trials lost ");
	contains(b, "up to 57 % at 10 Gbit/s");
	for (size_t i = 0; i < run.ntrials; i++)
		if (run.trials[i].target_bps > 4000000000) {
			run.trials[i].udp.received = run.trials[i].udp.sent;
			run.trials[i].udp.lost = 0;
		}
	report_run_release(&rr);
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	report_run_knee_above(b, sizeof(b), &rr.sum.knee[1]);
	assert_string_equal(b, "none lost in 3 trials, but queued: arrivals up to 5.0 % below "
			       "the sent rate (at 4 Gbit/s)");
	report_run_release(&rr);
	/* with the queue's growth measured (the receiver's window beyond the
	 * sender's), the load passed on loss alone, for its trial's length */
	for (size_t i = 0; i < run.ntrials; i++)
		if (run.trials[i].target_bps >= 4000000000) {
			run.trials[i].udp.queue_growth_ms = 52.6;
			run.trials[i].duration_s = 1;
		}
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	report_run_knee_above(b, sizeof(b), &rr.sum.knee[1]);
	assert_string_equal(b, "none lost in 3 trials, but lossless for 1 s only at 4 Gbit/s: the "
			       "queue grew 52.6 ms (arrivals 5.0 % below the sent rate)");
	report_run_release(&rr);
	results_free(&run);
}

static void test_fmt(void **state)
{
	char b[64];
	struct loss_attrib none = { 0 }, net = { .network = 5 };

	(void)state;
	report_run_fmt_rate(b, sizeof(b), 812.34e6);
	assert_string_equal(b, "812.3 Mbit/s");
	report_run_fmt_rate(b, sizeof(b), 2.41e9);
	assert_string_equal(b, "2.41 Gbit/s");
	report_run_fmt_time(b, sizeof(b), 151);
	assert_string_equal(b, "2m31s");
	report_run_loss_where(b, sizeof(b), &none);
	assert_string_equal(b, "no loss counted");
	report_run_loss_where(b, sizeof(b), &net);
	assert_string_equal(b, "network 100%");
	net.tunnel = 1;
	net.network = 999;
	report_run_loss_where(b, sizeof(b), &net);
	assert_string_equal(b, "network 100%, tunnel daemons <1%");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_term),
		cmocka_unit_test(test_md_csv),
		cmocka_unit_test(test_outer),
		cmocka_unit_test(test_owd_upper_bound),
		cmocka_unit_test(test_delay_rows),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_diff_verdicts),
		cmocka_unit_test(test_diff_setups),
		cmocka_unit_test(test_diff_cpu_threshold),
		cmocka_unit_test(test_lower_bound_markers),
		cmocka_unit_test(test_diff_bounds),
		cmocka_unit_test(test_plots),
		cmocka_unit_test(test_output_full_disk),
		cmocka_unit_test(test_sweep_summary),
		cmocka_unit_test(test_knee_above),
		cmocka_unit_test(test_fmt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
