/* SPDX-License-Identifier: MIT */
/*
 * Printers of one load test (struct load_result). The terminal printer writes
 * iperf3-like tables to a FILE (stdout); the JSON printer builds the versioned
 * document described in docs/json.md, so that a suite can embed a trial.
 */
#ifndef OVLPERF_REPORT_LOAD_H
#define OVLPERF_REPORT_LOAD_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "load_result.h"
#include "load_spec.h"

/* -f: the units rates are shown in, as iperf3 takes them: k, m, g for
 * kbit/s, Mbit/s, Gbit/s; K, M, G for kB/s, MB/s, GB/s (decimal, 10^3). */
#define REPORT_UNITS "kmgKMG"

/* Where the terminal printer writes, and how. */
struct report_term {
	FILE *f;
	char units;	 /* 0: each rate scaled to fit; else one of REPORT_UNITS */
	const char *tag; /* NULL, or a direction ("TX-C") before each interval
			  * line and the summary, as iperf3 --bidir marks them */
};

/* One line naming the test, printed before it starts. */
void report_load_term_header(const struct report_term *t, const struct load_spec *spec);
/* One live interval line (fits struct load_hooks' on_interval with a
 * struct report_term as arg). */
void report_load_term_interval(const struct load_result *res, const struct load_interval *iv,
			       void *term);
/* The summary tables after the test (or after an interrupted one). */
void report_load_term(const struct report_term *t, const struct load_result *res);
/* --get-server-output: the test as the server's end measured it (its
 * interval reports, each stream's bytes over its own time, its CPU), from
 * the RESULTS it sent; as iperf3's server prints its side. */
void report_load_term_server(const struct report_term *t, const struct load_result *res);
/* The same as one malloc'd string (NULL on ENOMEM); the caller frees it. */
char *report_load_server_text(const struct load_result *res, char units);

/* The whole test as a JSON object (schema LOAD_JSON_SCHEMA); NULL on ENOMEM.
 * The caller owns it (cJSON_Delete). */
cJSON *report_load_json(const struct load_result *res);
/* Writes report_load_json() pretty-printed to f; 0 or a negative errno. */
int report_load_json_print(FILE *f, const struct load_result *res);
/* --bidir: {"schema": "ovlperf.bidir", "schema_version": 1, "forward":
 * <the test the client sent>, "reverse": <the one the server sent>}. */
#define REPORT_BIDIR_SCHEMA "ovlperf.bidir"
int report_load_json_bidir_print(FILE *f, const struct load_result *fwd,
				 const struct load_result *rev, const char *server_text);

#endif
