// SPDX-License-Identifier: MIT
/*
 * A JSON document printed on a stream: shared by the printers that render a
 * result as one document (report_mtu_json.c, report_sweep_json.c).
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
