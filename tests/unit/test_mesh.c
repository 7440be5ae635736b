// SPDX-License-Identifier: MIT
/*
 * The mesh matrix on canned pair directories (tests/unit/mesh/: hosts a, b,
 * c; five runs with an underlay and a builtin path whose figures are set by
 * hand, c -> b's underlay NDR only a lower bound and its delays upper
 * bounds, and c -> a unreachable with no run.json), and the refusals of
 * malformed pair directories.
 *
 *   TCP goodput, 1 stream (underlay / builtin, Mbit/s): a->b 900/300,
 *   a->c 1000/500, b->a 950/380, b->c 400/350, c->b 800/400.
 *   UDP NDR 1400 B: a->b 800/200, a->c 820/400, b->a 790/300, b->c 390/330,
 *   c->b >= 700/350. Delay p50: underlay 0.05 ms, builtin 0.15 ms.
 *   So the slowest pair is b -> c, the builtin's TCP cost per pair 66.7,
 *   50, 60, 12.5, 50 %: median 50 %, most at a -> b.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "mesh.h"
#include "report_plot.h"
#include "report_mesh.h"

static const char *const pairs[] = { "a-b", "a-c", "b-a", "b-c", "c-a", "c-b" };

static void canned_dir(char *buf, size_t len, const char *pair)
{
	const char *slash = strrchr(__FILE__, '/');

	snprintf(buf, len, "%.*smesh/%s", slash ? (int)(slash - __FILE__ + 1) : 0, __FILE__, pair);
}

static void load_canned(struct mesh *m)
{
	char dir[512], err[512];

	mesh_init(m);
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		canned_dir(dir, sizeof(dir), pairs[i]);
		err[0] = '\0';
		if (mesh_load_dir(m, dir, err, sizeof(err)))
			fail_msg("%s: %s", dir, err);
	}
	mesh_sort(m);
}

static const struct mesh_pair *pair_of(const struct mesh *m, const char *c, const char *s)
{
	int ci = -1, si = -1;

	for (unsigned i = 0; i < m->nhosts; i++) {
		if (!strcmp(m->hosts[i], c))
			ci = (int)i;
		if (!strcmp(m->hosts[i], s))
			si = (int)i;
	}
	assert_true(ci >= 0 && si >= 0);
	return mesh_find(m, (unsigned)ci, (unsigned)si);
}

static char *render(void (*fn)(FILE *, const struct mesh *, const struct mesh_verdicts *),
		    const struct mesh *m, const struct mesh_verdicts *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, m, v);
	fclose(f);
	return buf;
}

static void test_figures(void **state)
{
	const struct mesh_pair *p;
	struct mesh m;

	(void)state;
	load_canned(&m);
	assert_int_equal(m.nhosts, 3);
	assert_string_equal(m.hosts[0], "a");
	assert_string_equal(m.hosts[2], "c");
	assert_int_equal(m.npairs, 6);
	assert_int_equal(m.npaths, 2);
	assert_string_equal(m.paths[1].name, "builtin");
	assert_int_equal(m.tcp_streams, 1);
	assert_int_equal(m.udp_len, 1400);
	assert_int_equal(mesh_count(&m, MESH_OK), 5);
	assert_int_equal(mesh_count(&m, MESH_UNREACHABLE), 1);
	p = pair_of(&m, "a", "b");
	assert_non_null(p);
	assert_true(p->fig[0][MESH_TCP_GOODPUT].present);
	assert_true(fabs(p->fig[0][MESH_TCP_GOODPUT].v - 900e6) < 1);
	assert_true(fabs(p->fig[1][MESH_TCP_RATIO].v - 1.0 / 3) < 1e-9);
	assert_false(p->fig[0][MESH_TCP_RATIO].present); /* the underlay has no ratio */
	assert_true(fabs(p->fig[1][MESH_NDR_RATIO].v - 0.25) < 1e-9);
	assert_int_equal(p->fig[1][MESH_MTU].v, RESULTS_WARN);
	assert_int_equal(p->fig[1][MESH_MTU].detail, 1420);
	assert_int_equal(p->fig[0][MESH_OWD_P50].bound, OVERHEAD_EXACT);
	p = pair_of(&m, "c", "b");
	assert_int_equal(p->fig[0][MESH_UDP_NDR].bound, OVERHEAD_AT_LEAST);
	assert_int_equal(p->fig[1][MESH_NDR_RATIO].bound, OVERHEAD_AT_MOST);
	assert_int_equal(p->fig[0][MESH_OWD_P50].bound, OVERHEAD_AT_MOST);
	p = pair_of(&m, "c", "a");
	assert_int_equal(p->status, MESH_UNREACHABLE);
	assert_non_null(strstr(p->reason, "Connection timed out"));
	assert_false(p->fig[0][MESH_TCP_GOODPUT].present);
	assert_null(pair_of(&m, "a", "a"));
	mesh_free(&m);
}

static void test_cells(void **state)
{
	struct mesh m;
	char cell[64];

	(void)state;
	load_canned(&m);
	report_mesh_cell(cell, sizeof(cell), &m, 0, 0, 0, MESH_TCP_GOODPUT);
	assert_string_equal(cell, "-");
	report_mesh_cell(cell, sizeof(cell), &m, 0, 1, 0, MESH_TCP_GOODPUT);
	assert_string_equal(cell, "900 Mbit/s");
	report_mesh_cell(cell, sizeof(cell), &m, 2, 1, 0, MESH_UDP_NDR);
	assert_string_equal(cell, ">= 700 Mbit/s");
	report_mesh_cell(cell, sizeof(cell), &m, 2, 1, 0, MESH_OWD_P50);
	assert_string_equal(cell, "<= 0.050 ms");
	report_mesh_cell(cell, sizeof(cell), &m, 2, 0, 1, MESH_TCP_RATIO);
	assert_string_equal(cell, "UNREACHABLE");
	report_mesh_cell(cell, sizeof(cell), &m, 0, 1, 1, MESH_TCP_RATIO);
	assert_string_equal(cell, "0.333");
	report_mesh_cell(cell, sizeof(cell), &m, 0, 1, 0, MESH_MTU);
	assert_string_equal(cell, "n/a");
	report_mesh_cell(cell, sizeof(cell), &m, 0, 1, 1, MESH_MTU);
	assert_string_equal(cell, "WARN 1420");
	mesh_free(&m);
}

static void test_verdicts(void **state)
{
	struct mesh_verdicts v;
	struct mesh m;
	char *out;

	(void)state;
	load_canned(&m);
	mesh_verdicts(&m, &v);
	assert_true(v.has_slowest);
	assert_string_equal(m.hosts[m.pairs[v.slowest].client], "b");
	assert_string_equal(m.hosts[m.pairs[v.slowest].server], "c");
	assert_int_equal(v.slowest_fig, MESH_TCP_GOODPUT);
	assert_true(v.has_costliest);
	assert_int_equal(v.costliest_path, 1);
	assert_int_equal(v.costliest_n, 5);
	assert_true(fabs(v.costliest_median_pct - 50.0) < 1e-9);
	assert_true(fabs(v.costliest_worst_pct - 200.0 / 3) < 1e-9);
	assert_string_equal(m.hosts[m.pairs[v.costliest_worst].server], "b");
	out = render(report_mesh_term, &m, &v);
	assert_non_null(strstr(out, "Slowest pair: b -> c, TCP goodput 400 Mbit/s over underlay"));
	assert_non_null(strstr(out, "Most expensive overlay: builtin, TCP goodput costs a median "
				    "50.0% over 5 pairs (most: 66.7%, a -> b)"));
	assert_non_null(strstr(out, "c -> a: unreachable: c: ssh: connect to host"));
	assert_non_null(strstr(out, ">= 700 Mbit/s"));
	assert_non_null(strstr(out, "5 ok, 0 incomplete, 0 failed, 1 unreachable"));
	free(out);
	mesh_free(&m);
}

static const cJSON *get(const cJSON *o, const char *k)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);

	if (!it)
		fail_msg("no \"%s\"", k);
	return it;
}

static void test_json(void **state)
{
	const cJSON *pair, *fig;
	struct mesh_verdicts v;
	char *buf = NULL;
	size_t len = 0;
	struct mesh m;
	cJSON *root;
	FILE *f;

	(void)state;
	load_canned(&m);
	mesh_verdicts(&m, &v);
	f = open_memstream(&buf, &len);
	assert_int_equal(report_mesh_json(f, &m, &v), 0);
	fclose(f);
	root = cJSON_Parse(buf);
	assert_non_null(root);
	assert_string_equal(get(root, "schema")->valuestring, "ovlperf-matrix");
	assert_int_equal(get(root, "schema_version")->valueint, MESH_SCHEMA);
	assert_int_equal(cJSON_GetArraySize(get(root, "pairs")), 6);
	assert_int_equal(get(get(root, "counts"), "unreachable")->valueint, 1);
	assert_string_equal(get(get(root, "slowest_pair"), "client")->valuestring, "b");
	assert_string_equal(get(get(root, "most_expensive_overlay"), "path")->valuestring,
			    "builtin");
	/* sorted: a-b a-c b-a b-c c-a c-b */
	pair = cJSON_GetArrayItem(get(root, "pairs"), 4);
	assert_string_equal(get(pair, "status")->valuestring, "unreachable");
	assert_int_equal(cJSON_GetArraySize(get(pair, "paths")), 0);
	pair = cJSON_GetArrayItem(get(root, "pairs"), 5);
	fig = get(get(get(pair, "paths"), "underlay"), "udp_ndr_bps");
	assert_string_equal(get(fig, "bound")->valuestring, "lower_bound");
	assert_true(fabs(get(fig, "value")->valuedouble - 700e6) < 1);
	fig = get(get(get(pair, "paths"), "builtin"), "mtu_verdict");
	assert_string_equal(get(fig, "verdict")->valuestring, "WARN");
	cJSON_Delete(root);
	free(buf);
	mesh_free(&m);
}

static void test_csv_md(void **state)
{
	struct mesh_verdicts v;
	char *buf = NULL;
	size_t len = 0;
	struct mesh m;
	FILE *f;

	(void)state;
	load_canned(&m);
	mesh_verdicts(&m, &v);
	f = open_memstream(&buf, &len);
	assert_int_equal(report_mesh_csv(f, &m), 0);
	fclose(f);
	assert_non_null(strstr(buf, "client,server,status,path,figure,value,bound,unit,detail,"
				    "reason,limit\n"));
	assert_non_null(strstr(buf, "\"a\",\"b\",ok,\"underlay\",tcp_goodput_bps,900000000,exact,"
				    "bit/s,0,\"\",\"\"\n"));
	assert_non_null(strstr(buf, "\"c\",\"b\",ok,\"underlay\",udp_ndr_bps,700000000,at_least,"));
	assert_non_null(strstr(buf, "\"c\",\"a\",unreachable,\"\",\"\",,,,,\"c: ssh: connect"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(report_mesh_md(f, &m, &v, NULL), 0);
	fclose(f);
	assert_non_null(strstr(buf, "| client \\ server | a | b | c |\n|---|---:|---:|---:|\n"
				    "| **a** | - | 900 Mbit/s | 1 Gbit/s |\n"));
	assert_non_null(strstr(buf, "| c | a | unreachable | c: ssh: connect"));
	assert_non_null(strstr(buf, "- Slowest pair: b -> c"));
	free(buf);
	/* what limited each pair's figure, each limit once with its pairs */
	buf = NULL;
	for (size_t i = 0; i < m.npairs; i++)
		if (m.pairs[i].status == MESH_OK)
			snprintf(m.pairs[i].fig[0][MESH_TCP_GOODPUT].limit,
				 sizeof(m.pairs[i].fig[0][MESH_TCP_GOODPUT].limit), "%s",
				 m.hosts[m.pairs[i].client][0] == 'a' ? "receive window" : "loss");
	f = open_memstream(&buf, &len);
	assert_int_equal(report_mesh_md(f, &m, &v, NULL), 0);
	fclose(f);
	assert_non_null(strstr(buf, "Limited by: receive window (a -> b, a -> c); loss (b -> a"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(report_mesh_csv(f, &m), 0);
	fclose(f);
	assert_non_null(
		strstr(buf, "tcp_goodput_bps,900000000,exact,bit/s,0,\"\",\"receive window\"\n"));
	free(buf);
	mesh_free(&m);
}

/* OpenMetrics: base units (bit/s / 8, ms / 1000), a lower bound labelled
 * so, every pair's status (an unreachable one as 0), the verdicts, # EOF
 * last; promtool checks the text in tests/netns/test_report_formats.sh. */
static void test_openmetrics(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	struct mesh m;
	FILE *f;

	(void)state;
	load_canned(&m);
	f = open_memstream(&buf, &len);
	assert_int_equal(report_mesh_openmetrics(f, &m), 0);
	fclose(f);
	assert_non_null(strstr(buf, "# TYPE ovlperf_mesh_tcp_goodput_bytes_per_second gauge\n"
				    "# UNIT ovlperf_mesh_tcp_goodput_bytes_per_second "
				    "bytes_per_second\n"));
	assert_non_null(strstr(buf, "ovlperf_mesh_tcp_goodput_bytes_per_second{client=\"a\","
				    "server=\"b\",path=\"underlay\",kind=\"underlay\"} "
				    "112500000\n"));
	assert_non_null(strstr(buf, "ovlperf_mesh_udp_ndr_bytes_per_second{client=\"c\","
				    "server=\"b\",path=\"underlay\",kind=\"underlay\"} "
				    "87500000\n"));
	assert_non_null(strstr(buf, "ovlperf_mesh_udp_ndr_bytes_per_second_bound{client=\"c\","
				    "server=\"b\",path=\"underlay\",kind=\"underlay\","
				    "bound=\"at_least\"} 1\n"));
	assert_non_null(strstr(buf, "ovlperf_mesh_pair_complete{client=\"c\",server=\"a\"} 0\n"));
	assert_non_null(strstr(buf, "ovlperf_mesh_pair_status{client=\"c\",server=\"a\","
				    "status=\"unreachable\"} 1\n"));
	assert_non_null(strstr(buf, "ovlperf_mesh_pair_status{client=\"c\",server=\"a\","
				    "status=\"ok\"} 0\n"));
	assert_non_null(strstr(buf, "ovlperf_mesh_pair_complete{client=\"a\",server=\"b\"} 1\n"));
	assert_non_null(strstr(buf, "# TYPE ovlperf_mesh_mtu_verdict gauge\n"));
	assert_null(strstr(buf, "client=\"c\",server=\"a\",path="));
	assert_int_equal(strcmp(buf + len - 6, "# EOF\n"), 0);
	free(buf);
	mesh_free(&m);
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Each malformed pair directory is refused with the file and what is wrong;
 * a pair whose playbook said ok but whose run.json is missing is failed. */
static void test_refusals(void **state)
{
	static const struct {
		const char *pair_json, *msg;
		int rc;
	} bad[] = {
		{ "[1, 2]", "pair.json: not a JSON object", -EINVAL },
		{ "{\"server\": \"b\"}", "\"client\" must be a non-empty string", -EINVAL },
		{ "{\"client\": \"a\", \"server\": \"b\", \"status\": \"maybe\"}",
		  "\"status\": 'maybe' is not ok, failed or unreachable", -EINVAL },
		{ "{\"client\": \"a\", \"server\": \"a\"}", "client and server are both 'a'",
		  -EINVAL },
		{ NULL, "neither pair.json nor a readable run.json", -ENOENT },
	};
	char dir[] = "/tmp/ovl-test-mesh-XXXXXX", err[512], path[600];
	const struct mesh_pair *p;
	struct mesh m;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/pair.json", dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unlink(path);
		if (bad[i].pair_json)
			write_text(dir, "pair.json", bad[i].pair_json);
		mesh_init(&m);
		assert_int_equal(mesh_load_dir(&m, dir, err, sizeof(err)), bad[i].rc);
		if (!strstr(err, bad[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].msg);
		mesh_free(&m);
	}
	write_text(dir, "pair.json", "{\"client\": \"a\", \"server\": \"b\", \"status\": \"ok\"}");
	mesh_init(&m);
	assert_int_equal(mesh_load_dir(&m, dir, err, sizeof(err)), 0);
	p = mesh_find(&m, 0, 1);
	assert_non_null(p);
	assert_int_equal(p->status, MESH_FAILED);
	assert_non_null(strstr(p->reason, "run.json"));
	assert_int_equal(mesh_load_dir(&m, dir, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "the pair a -> b is already in the matrix"));
	mesh_free(&m);
	unlink(path);
	rmdir(dir);
}

/* Heatmaps: one per path and numeric figure with values (the MTU verdict
 * has none), each a complete SVG. */
static void test_heatmaps(void **state)
{
	char dir[] = "/tmp/ovl-test-mesh-XXXXXX", cmd[128];
	struct mesh_plot_set set;
	struct mesh m;

	(void)state;
	if (system("command -v gnuplot >/dev/null 2>&1")) {
		skip();
		return;
	}
	load_canned(&m);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(report_mesh_plot(&m, dir, &set), 0);
	/* TCP, NDR, delay on 2 paths; 2 ratios on the overlay */
	assert_int_equal(set.n, 8);
	assert_string_equal(set.unwritten, "");
	for (unsigned i = 0; i < set.n; i++) {
		char name[MESH_PLOT_FILE_MAX];

		char path[600], buf[1 << 16] = "";
		FILE *f;

		snprintf(name, sizeof(name), "%.*s", (int)strlen(set.file[i]) - 4, set.file[i]);
		assert_true(report_plot_svg_complete(dir, name));
		/* every heatmap names the scenario its pairs ran and when */
		snprintf(path, sizeof(path), "%s/%s", dir, set.file[i]);
		f = fopen(path, "r");
		assert_non_null(f);
		buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
		fclose(f);
		if (!strstr(buf, "scenario ") || !strstr(buf, "started 20"))
			fail_msg("%s: no scenario and start in the title", set.file[i]);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	mesh_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_figures),	 cmocka_unit_test(test_cells),
		cmocka_unit_test(test_verdicts), cmocka_unit_test(test_json),
		cmocka_unit_test(test_csv_md),	 cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_heatmaps), cmocka_unit_test(test_openmetrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
