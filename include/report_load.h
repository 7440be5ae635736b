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

#include "load.h"

/* One line naming the test, printed before it starts. */
void report_load_term_header(FILE *f, const struct load_spec *spec);
/* One live interval line (fits struct load_hooks' on_interval with f as arg). */
void report_load_term_interval(const struct load_result *res, const struct load_interval *iv,
			       void *file);
/* The summary tables after the test (or after an interrupted one). */
void report_load_term(FILE *f, const struct load_result *res);

/* The whole test as a JSON object (schema LOAD_JSON_SCHEMA); NULL on ENOMEM.
 * The caller owns it (cJSON_Delete). */
cJSON *report_load_json(const struct load_result *res);
/* Writes report_load_json() pretty-printed to f; 0 or a negative errno. */
int report_load_json_print(FILE *f, const struct load_result *res);

#endif
