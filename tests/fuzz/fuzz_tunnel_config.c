// SPDX-License-Identifier: MIT
/* libFuzzer: the tunnel's INI config parser on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[CONFIG_ERR_LEN];
	struct config c;
	int r = config_parse("fuzz.conf", (const char *)data, size, &c, err, sizeof(err));

	/* Every failure leaves a message naming the file; every success is complete. */
	if (r < 0 && strncmp(err, "fuzz.conf:", 10))
		__builtin_trap();
	if (r == 0 && (!c.npeers || !c.naddresses || !c.private_key_file[0]))
		__builtin_trap();
	for (size_t i = 0; r == 0 && i < c.npeers; i++)
		if (c.peers[i].first_allowed + c.peers[i].nallowed > c.nallowed)
			__builtin_trap();
	config_free(&c);
	return 0;
}
