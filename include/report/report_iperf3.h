/* SPDX-License-Identifier: MIT */
/*
 * One load test (struct load_result) as iperf3's -J document, or as
 * iperf3's --json-stream lines (one JSON object per event: start, each
 * interval, error, end), with ovlperf's own figures under the key
 * "ovlperf" (schema REPORT_IPERF3_SCHEMA). docs/json.md says which iperf3
 * key comes from which ovlperf figure.
 */
#ifndef OVLPERF_REPORT_IPERF3_H
#define OVLPERF_REPORT_IPERF3_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "load_result.h"

#define REPORT_IPERF3_SCHEMA	     "ovlperf.iperf3"
#define REPORT_IPERF3_SCHEMA_VERSION 1

/* The parts of the document; NULL on ENOMEM, the caller owns them. */
cJSON *report_iperf3_start(const struct load_result *r);
cJSON *report_iperf3_interval(const struct load_result *r, unsigned idx); /* r->local[idx] */
cJSON *report_iperf3_end(const struct load_result *r);
/* The whole document. */
cJSON *report_iperf3_json(const struct load_result *r);
/* Pretty-printed on f, with iperf3's "server_output_text" when server_text
 * is not NULL (--get-server-output); 0 or a negative errno. */
int report_iperf3_print(FILE *f, const struct load_result *r, const char *server_text);

/* --json-stream: set f, started = false; pass report_iperf3_stream_local as
 * load_hooks.on_local with the struct as arg, and call
 * report_iperf3_stream_end after the test. */
struct report_iperf3_stream {
	FILE *f;
	bool started;		 /* the "start" event is out */
	const char *server_text; /* an event "server_output_text" before "end" */
};
void report_iperf3_stream_local(const struct load_result *r, unsigned idx, void *arg);
int report_iperf3_stream_end(struct report_iperf3_stream *st, const struct load_result *r);
/* One --json-stream line {"event": name, "data": data}; takes data. */
int report_iperf3_event(FILE *f, const char *name, cJSON *data);

/* The pieces --bidir (report_iperf3_bidir.c) shares: the "ovlperf" object
 * (reverse: the second test, or NULL) and cpu_utilization_percent. */
cJSON *report_iperf3_extra(const struct load_result *r, const struct load_result *reverse);
cJSON *report_iperf3_cpu(const struct cpu_use *host, const struct cpu_use *remote,
			 bool remote_known);

/* --bidir: two tests at once, fwd (the client sends) and rev (the server
 * sends), as iperf3 --bidir reports them: each interval's and the end's
 * streams of both, the reverse's sums under *_bidir_reverse. */
cJSON *report_iperf3_bidir_json(const struct load_result *fwd, const struct load_result *rev);
/* One interval of both from each test's report_iperf3_interval() (takes
 * both; NULL on ENOMEM). */
cJSON *report_iperf3_bidir_interval(cJSON *fwd, cJSON *rev);
cJSON *report_iperf3_bidir_end(const struct load_result *fwd, const struct load_result *rev);
int report_iperf3_bidir_print(FILE *f, const struct load_result *fwd, const struct load_result *rev,
			      const char *server_text);

#endif
