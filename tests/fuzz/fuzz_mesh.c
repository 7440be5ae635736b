// SPDX-License-Identifier: MIT
/*
 * The mesh matrix from an untrusted run.json (`ovlperf report --matrix`
 * reads whatever the pairs' directories hold: another version's file, a
 * hand edit, a copy cut short by a full disk). A run the reader accepts
 * becomes two pairs of a mesh (a -> b, b -> a), beside a pair that failed;
 * deriving their figures, naming the slowest pair and the costliest overlay
 * and every printer (terminal, Markdown, CSV, JSON) must cope with whatever
 * it holds, and the JSON must parse.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "mesh.h"
#include "report_mesh.h"

static FILE *sink(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

static void check_json(const struct mesh *m, const struct mesh_verdicts *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cJSON *root;

	if (!f)
		return;
	if (report_mesh_json(f, m, v)) {
		fclose(f);
		free(buf);
		return;
	}
	fclose(f);
	root = cJSON_Parse(buf);
	if (!root || cJSON_GetArraySize(cJSON_GetObjectItem(root, "pairs")) != (int)m->npairs)
		abort();
	cJSON_Delete(root);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct results_run run;
	struct mesh_verdicts v;
	struct mesh m;
	char err[256], *text;

	if (size > 1 << 16)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (results_from_json(text, &run, err, sizeof(err)) == 0) {
		mesh_init(&m);
		if (mesh_add_pair(&m, "a", "b", &run, MESH_OK, "", "a-b") == 0 &&
		    mesh_add_pair(&m, "b", "a", &run, run.complete ? MESH_OK : MESH_INCOMPLETE,
				  run.stop_reason, "b-a") == 0 &&
		    mesh_add_pair(&m, "c", "a", NULL, MESH_UNREACHABLE, "gone", "c-a") == 0) {
			mesh_sort(&m);
			mesh_verdicts(&m, &v);
			report_mesh_term(sink(), &m, &v);
			report_mesh_md(sink(), &m, &v, NULL);
			report_mesh_csv(sink(), &m);
			check_json(&m, &v);
		}
		mesh_free(&m);
		results_free(&run);
	}
	free(text);
	return 0;
}
