// SPDX-License-Identifier: MIT
/*
 * Scenario files are user input: any bytes must give either a valid scenario
 * or -EINVAL with a NUL-terminated error list, never a crash or a read past
 * the input (the parser gets the exact length, no terminator).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scenario s;
	char err[2048], tiny[16];
	char *copy = malloc(size ? size : 1);
	int rc;

	if (!copy)
		return 0;
	memcpy(copy, data, size); /* exact size, so ASan sees any overread */
	rc = scenario_parse("fuzz.ini", copy, size, &s, err, sizeof(err));
	if (rc != 0 && rc != -EINVAL)
		abort();
	if (!memchr(err, '\0', sizeof(err)))
		abort();
	if (rc == -EINVAL && !err[0])
		abort(); /* a refusal always says why */
	if (rc == 0) {
		if (s.npaths < 1 || s.npaths > SCN_MAX_PATHS)
			abort();
		if (s.is_lab && scenario_check_lab_targets(&s, err, sizeof(err)))
			abort(); /* the parser let a real address into a lab */
		for (unsigned i = 0; i < s.npaths; i++)
			if (!memchr(s.paths[i].address, '\0', sizeof(s.paths[i].address)))
				abort();
	}
	if (scenario_parse("fuzz.ini", copy, size, &s, tiny, sizeof(tiny)) != rc)
		abort();
	if (!memchr(tiny, '\0', sizeof(tiny)))
		abort();
	free(copy);
	return 0;
}
