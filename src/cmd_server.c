// SPDX-License-Identifier: MIT
#include <stdio.h>

#include "cmd.h"

int cmd_server(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "ovlperf: 'server' is not in this build yet\n");
	return 1;
}
