// SPDX-License-Identifier: MIT
/* The run's OpenMetrics text, its HTML page and the gnuplot scripts of its
 * plots, on the synthetic run of run_fixture.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "report_run.h"
#include "run_fixture.h"

static void contains(const char *text, const char *what)
{
	if (!strstr(text, what))
		fail_msg("'%s' not found in:\n%s", what, text);
}

static char *openmetrics(const struct results_run *run)
{
	struct report_run rr;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report_run_prepare(&rr, run), 0);
	assert_int_equal(report_run_openmetrics(f, &rr), 0);
	fclose(f);
	report_run_release(&rr);
	return buf;
}

/* Figures in base units with the unit as the name's suffix, each
 * statistic over the repetitions a sample, the text ending in # EOF. */
#define SC_ONLY "scenario=\"fixture\""
#define SC	SC_ONLY ","

static void test_openmetrics_figures(void **state)
{
	struct results_run run;
	char *t;
	size_t n;

	(void)state;
	fixture_run(&run);
	t = openmetrics(&run);
	contains(t, "# TYPE ovlperf_tcp_goodput_bytes_per_second gauge\n"
		    "# UNIT ovlperf_tcp_goodput_bytes_per_second bytes_per_second\n");
	/* overlay, 1 stream: 300/200/250 Mbit/s */
	contains(t, "ovlperf_tcp_goodput_bytes_per_second{" SC "path=\"overlay\",kind=\"builtin\","
		    "streams=\"1\",stat=\"median\"} 31250000\n");
	contains(t, "ovlperf_tcp_goodput_bytes_per_second{" SC "path=\"overlay\",kind=\"builtin\","
		    "streams=\"1\",stat=\"min\"} 25000000\n");
	contains(t, "ovlperf_tcp_goodput_bytes_per_second{" SC "path=\"overlay\",kind=\"builtin\","
		    "streams=\"1\",stat=\"max\"} 37500000\n");
	contains(t, "ovlperf_tcp_mss_bytes{" SC
		    "path=\"overlay\",kind=\"builtin\",streams=\"4\"} 1368\n");
	contains(t, "ovlperf_udp_ndr_bytes_per_second{" SC "path=\"underlay\",kind=\"underlay\","
		    "bytes=\"1400\",stat=\"median\"} 100000000\n");
	contains(t, "ovlperf_udp_ndr_bound{" SC "path=\"underlay\",kind=\"underlay\","
		    "bytes=\"1400\",bound=\"exact\"} 1\n");
	contains(t, "ovlperf_udp_ndr_bound{" SC "path=\"underlay\",kind=\"underlay\","
		    "bytes=\"1400\",bound=\"lower_bound\"} 0\n");
	/* the NDR's HELP is its own, not the PDR's */
	contains(t, "# HELP ovlperf_udp_ndr_bytes_per_second UDP no-drop rate (NDR)");
	contains(t, "# HELP ovlperf_udp_pdr_bytes_per_second UDP partial-drop rate (PDR)");
	contains(t, "# TYPE ovlperf_udp_owd_seconds summary\n");
	contains(t,
		 "ovlperf_udp_owd_seconds{" SC "path=\"overlay\",kind=\"builtin\",bytes=\"1400\","
		 "load=\"rate\",quantile=\"0.5\"} 0.00015\n");
	contains(t, "ovlperf_overhead_ratio{" SC "path=\"overlay\",kind=\"builtin\",streams=\"1\","
		    "figure=\"tcp_goodput_bps\"} 0.263157894737\n");
	contains(t, "ovlperf_mtu_check_verdict{" SC "path=\"overlay\",kind=\"builtin\","
		    "check=\"pmtu\"} 1\n");
	contains(t, "ovlperf_run_start_timestamp_seconds{" SC_ONLY "} 1796029200\n");
	/* no label that changes from run to run */
	assert_null(strstr(t, "started_utc="));
	assert_null(strstr(t, "offered_bits_per_second="));
	assert_null(strstr(t, "verdict="));
	assert_null(strstr(t, "per_gigabit"));
	n = strlen(t);
	assert_true(n > 6);
	assert_string_equal(t + n - 6, "# EOF\n");
	free(t);
	results_free(&run);
}

/* A knee that is only a bound says so; a label value is escaped. */
static void test_openmetrics_bounds_escaping(void **state)
{
	struct results_run run;
	char *t;

	(void)state;
	fixture_run(&run);
	snprintf(run.knees[0].ndr_outcome, sizeof(run.knees[0].ndr_outcome), "above-max");
	run.knees[0].ndr_lower_bps = 10000000000ULL;
	run.knees[0].ndr_upper_bps = 0;
	snprintf(run.paths[1].name, sizeof(run.paths[1].name), "a\"b\\c");
	t = openmetrics(&run);
	contains(t, "ovlperf_udp_ndr_bytes_per_second{" SC "path=\"underlay\",kind=\"underlay\","
		    "bytes=\"1400\",stat=\"median\"} 1250000000\n");
	contains(t, "ovlperf_udp_ndr_bound{" SC "path=\"underlay\",kind=\"underlay\","
		    "bytes=\"1400\",bound=\"lower_bound\"} 1\n");
	contains(t, "ovlperf_udp_ndr_bound{" SC "path=\"underlay\",kind=\"underlay\","
		    "bytes=\"1400\",bound=\"exact\"} 0\n");
	contains(t, "path=\"a\\\"b\\\\c\",kind=\"builtin\",");
	free(t);
	results_free(&run);
}

/* Each family's metadata once, before all of its samples. */
static void test_openmetrics_families_contiguous(void **state)
{
	struct results_run run;
	char *t, *line, *save = NULL, fam[128] = "";

	(void)state;
	fixture_run(&run);
	t = openmetrics(&run);
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t l;

		if (!strncmp(line, "# TYPE ", 7)) {
			snprintf(fam, sizeof(fam), "%.*s", (int)strcspn(line + 7, " "), line + 7);
			continue;
		}
		if (line[0] == '#')
			continue;
		l = strlen(fam);
		assert_true(l > 0);
		/* a summary's _sum and _count belong to it (OpenMetrics 1.0) */
		if (!strncmp(line, fam, l) &&
		    (!strncmp(line + l, "_sum{", 5) || !strncmp(line + l, "_count{", 7)))
			continue;
		if (strncmp(line, fam, l) || (line[l] != '{' && line[l] != ' '))
			fail_msg("sample '%s' outside its family %s", line, fam);
	}
	free(t);
	results_free(&run);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);

	assert_non_null(f);
	assert_non_null(buf);
	assert_true(fread(buf, 1, (1 << 20) - 1, f) > 0);
	fclose(f);
	return buf;
}

/* report.html: every section of report.md, escaped, right-aligned number
 * columns, a plot embedded and a missing one said so. */
static void test_html(void **state)
{
	static const char svg[] =
		"<svg xmlns=\"http://www.w3.org/2000/svg\"><text>x</text></svg>\n";
	struct results_run run;
	struct report_run rr;
	struct plot_set set = { .n = 2 };
	char dir[] = "/tmp/test_html_XXXXXX", path[128], *t = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.svg", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(svg, f);
	fclose(f);
	snprintf(set.file[0], sizeof(set.file[0]), "p.svg");
	snprintf(set.title[0], sizeof(set.title[0]), "A plot");
	snprintf(set.file[1], sizeof(set.file[1]), "gone.svg");
	snprintf(set.title[1], sizeof(set.title[1]), "Gone");
	fixture_run(&run);
	free(run.scenario_text);
	run.scenario_text = strdup("[scenario]\nname = <b>&\n");
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	f = open_memstream(&t, &len);
	assert_non_null(f);
	assert_int_equal(report_run_html(f, &rr, &set, dir), 0);
	fclose(f);
	contains(t, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
	contains(t, "<h1 id=\"ovlperf-run-fixture\">ovlperf run: fixture</h1>");
	contains(t, "<li><a href=\"#tcp-goodput\">TCP goodput</a></li>");
	for (const char *const *h =
		     (const char *const[]){ "paths", "overhead-versus-the-underlay", "tcp-goodput",
					    "udp-loss-knee", "one-way-delay-at-common-loads",
					    "mtu-mss-checks", "plots", "every-trial", "scenario",
					    NULL };
	     *h; h++) {
		char want[96];

		snprintf(want, sizeof(want), "<h2 id=\"%s\">", *h);
		contains(t, want);
	}
	contains(t, "<th class=\"r\">streams</th>");
	contains(t, "<td><strong>WARN</strong></td>");
	contains(t, "Test CPU &quot;quoted&quot; model");
	contains(t, "<pre><code>[scenario]\nname = &lt;b&gt;&amp;\n</code></pre>");
	contains(t,
		 "<img src=\"data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAw"
		 "MC9zdmciPjx0ZXh0Png8L3RleHQ+PC9zdmc+Cg==\" alt=\"A plot\">");
	contains(t, "<figcaption>Gone (gone.svg: missing)</figcaption>");
	assert_null(strstr(t, "http")); /* the SVG's namespace is inside the base64 */
	assert_null(strstr(t, "<script"));
	free(t);
	unlink(path);
	rmdir(dir);
	report_run_release(&rr);
	results_free(&run);
}

/* A trial of the fixture changed into a linear sweep point of len bytes at
 * mbit. */
static void sweep_point(struct results_run *run, unsigned path, uint32_t len, uint64_t mbit,
			double delivered)
{
	fixture_udp(run, path, RESULTS_TRIAL_SWEEP, mbit, delivered, 0.1, 0.2);
	run->trials[run->ntrials - 1].len = len;
	run->trials[run->ntrials - 1].udp.len = len;
}

/* delivered.gp: a marker per path and size, a log rate axis over more
 * than a decade, loss on a log axis from "none" (a decade below the goal)
 * with the goal drawn, knees with error bars, a lower bound as an arrow to
 * higher rates. */
static void test_plot_script(void **state)
{
	struct results_run run;
	struct report_run rr;
	struct plot_set set;
	char dir[] = "/tmp/test_plotgp_XXXXXX", path[128], cmd[160], *gp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fixture_run(&run);
	for (unsigned p = 0; p < 2; p++) {
		sweep_point(&run, p, 100, 10, 100);
		sweep_point(&run, p, 100, 100, 100);
		sweep_point(&run, p, 100, 1000, p ? 40 : 100);
	}
	snprintf(run.knees[1].ndr_outcome, sizeof(run.knees[1].ndr_outcome), "generator-limit");
	assert_int_equal(report_run_prepare(&rr, &run), 0);
	report_run_plot(&rr, dir, &set); /* without gnuplot the scripts are there all the same */
	snprintf(path, sizeof(path), "%s/delivered.gp", dir);
	gp = slurp(path);
	contains(gp, "set logscale x\n");
	contains(gp, "set logscale y\n");
	contains(gp, "set ytics add ('none' 0.01)\n");
	contains(gp, "set arrow from graph 0, first 0.5 to graph 1, first 0.5 nohead dt 3");
	contains(gp, "set label 'loss goal 0.5 % (PDR)'");
	/* the underlay's 100 B a filled circle, its 1400 B a triangle; the
	 * overlay's a diamond and an inverted triangle (open: knee trials) */
	contains(gp, "using 1:2 with linespoints pt 7 ps 0.8 lw 2 lc rgb '#1f77b4' title "
		     "\"underlay 100 B sweep\"");
	contains(gp, "using 1:2 with linespoints pt 13 ps 0.8 lw 2 lc rgb '#d62728' title "
		     "\"overlay 100 B sweep\"");
	contains(gp,
		 "using 1:2 with points pt 10 ps 0.8 lc rgb '#d62728' title \"overlay 1400 B\"");
	contains(gp, "$k1 using 1:2:3:4 with xerrorbars pt 11 ps 1.5 lw 1.5 lc rgb '#d62728'");
	/* the overlay's NDR, a lower bound: an arrow to higher rates on "none" */
	contains(gp, "set arrow from first 200, first 0.01 rto graph 0.07, graph 0 head filled");
	contains(gp, "keyentry with vectors head filled");
	free(gp);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	report_run_release(&rr);
	results_free(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openmetrics_figures),
		cmocka_unit_test(test_openmetrics_bounds_escaping),
		cmocka_unit_test(test_openmetrics_families_contiguous),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_plot_script),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
