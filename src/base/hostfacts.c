// SPDX-License-Identifier: MIT
/*
 * One host's facts over a test (hostfacts.h).
 */
#include <stdio.h>
#include <string.h>

#include "hostfacts.h"

void hostfacts_unknown(struct hostfacts *f, const char *why)
{
	memset(f, 0, sizeof(*f));
	f->baseline_cores = -1;
	f->softirq_busiest = -1;
	snprintf(f->unknown, sizeof(f->unknown), "%s", why ? why : "");
}
