// SPDX-License-Identifier: MIT
#include <stdio.h>

#include "cmd.h"

int cmd_tunnel(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "ovlperf: 'tunnel' is not in this build yet\n");
	return 1;
}
