// SPDX-License-Identifier: MIT
/*
 * The lab's safety net: a lab scenario may only ever send to the
 * benchmarking ranges 198.18.0.0/15 (RFC 2544) and 2001:2::/48 (RFC 5180).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "scenario.h"

bool scenario_addr_is_benchmark(const char *addr)
{
	unsigned char b[16];

	if (inet_pton(AF_INET, addr, b) == 1)
		return b[0] == 198 && (b[1] & 0xfe) == 18;
	if (inet_pton(AF_INET6, addr, b) == 1)
		return b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x00 && b[3] == 0x02 &&
		       b[4] == 0x00 && b[5] == 0x00;
	return false;
}

int scenario_check_lab_targets(const struct scenario *scn, char *err, size_t errlen)
{
	if (!scn->is_lab)
		return 0;
	for (unsigned i = 0; i < scn->npaths && i < SCN_MAX_PATHS; i++) {
		const struct scenario_path *p = &scn->paths[i];

		if (p->address[0] && !scenario_addr_is_benchmark(p->address)) {
			if (err && errlen)
				snprintf(err, errlen,
					 "%s:%u: [path.%s] address: '%.64s' is outside "
					 "198.18.0.0/15 "
					 "and 2001:2::/48; a lab scenario sends nowhere else",
					 scn->file, p->line, p->name, p->address);
			return -EINVAL;
		}
	}
	return 0;
}
