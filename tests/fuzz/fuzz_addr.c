// SPDX-License-Identifier: MIT
/*
 * Addresses as users write them (addr_split(), addr_literal_family()) from
 * untrusted text: a success yields a non-empty host without brackets that
 * fits its buffer, the port is 0 or 1..65535, and a host that came out of
 * brackets is an IPv6 literal; splitting the host again changes nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "addr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[300], host[64], again[64];
	uint16_t port = 0, port2 = 0;
	int rc;

	if (size >= sizeof(in))
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	addr_literal_family(in);
	rc = addr_split(in, host, sizeof(host), &port);
	if (rc)
		return 0;
	if (!host[0] || strlen(host) >= sizeof(host) || strchr(host, '[') || strchr(host, ']'))
		abort();
	if (in[0] == '[' && addr_literal_family(host) != AF_INET6)
		abort();
	/* a host with a colon is an IPv6 literal and carries no port of its own */
	if (addr_split(host, again, sizeof(again), &port2) || strcmp(host, again) || port2)
		abort();
	return 0;
}
