// SPDX-License-Identifier: MIT
#include <stdio.h>

#include "cmd.h"

int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "ovlperf: 'report' is not in this build yet\n");
	return 1;
}
