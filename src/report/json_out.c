// SPDX-License-Identifier: MIT
/*
 * A JSON document printed on a stream: shared by the printers that render a
 * result as one document (report_mtu_json.c, report_sweep_json.c), and
 * the pieces they share.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "json_out.h"

int json_out_print(FILE *f, cJSON *root)
{
	char *text;
	int rc = 0;

	if (!root)
		return -ENOMEM;
	text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text)
		return -ENOMEM;
	if (fprintf(f, "%s\n", text) < 0)
		rc = -EIO;
	free(text);
	return rc;
}

static void add_sched(cJSON *o, const char *key, const struct load_sched *s)
{
	char buf[16];

	if (s->policy == LOAD_SCHED_UNKNOWN)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddStringToObject(o, key, load_sched_name(s, buf, sizeof(buf)));
}

cJSON *json_out_sched(const struct load_sched *client, const struct load_sched *server)
{
	cJSON *o = cJSON_CreateObject();

	if (o) {
		add_sched(o, "client", client);
		add_sched(o, "server", server);
	}
	return o;
}
