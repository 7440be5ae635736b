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

#include "load.h"

#define REPORT_IPERF3_SCHEMA	     "ovlperf.iperf3"
#define REPORT_IPERF3_SCHEMA_VERSION 1

/* The parts of the document; NULL on ENOMEM, the caller owns them. */
cJSON *report_iperf3_start(const struct load_result *r);
cJSON *report_iperf3_interval(const struct load_result *r, unsigned idx); /* r->local[idx] */
cJSON *report_iperf3_end(const struct load_result *r);
/* The whole document. */
cJSON *report_iperf3_json(const struct load_result *r);
/* Pretty-printed on f; 0 or a negative errno. */
int report_iperf3_print(FILE *f, const struct load_result *r);

/* --json-stream: set f, started = false; pass report_iperf3_stream_local as
 * load_hooks.on_local with the struct as arg, and call
 * report_iperf3_stream_end after the test. */
struct report_iperf3_stream {
	FILE *f;
	bool started; /* the "start" event is out */
};
void report_iperf3_stream_local(const struct load_result *r, unsigned idx, void *arg);
int report_iperf3_stream_end(struct report_iperf3_stream *st, const struct load_result *r);

#endif
