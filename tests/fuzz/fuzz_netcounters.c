// SPDX-License-Identifier: MIT
/*
 * /proc/net/snmp, snmp6 and dev parsers from untrusted text (the first byte
 * picks the parser; the rest is the text, not NUL-terminated), then a delta
 * against a parse of the same text and the loss attribution of what came
 * out, whose places must add up to the loss.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "netcounters.h"

static struct netcounters a, b, d;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int (*parse[])(const char *, size_t, struct netcounters *) = {
		netcounters_parse_snmp,
		netcounters_parse_snmp6,
		netcounters_parse_dev,
	};
	struct loss_inputs in;
	struct loss_attrib at;
	const char *text;
	unsigned i, which;
	size_t len;
	int ret;

	if (size < 1)
		return 0;
	which = data[0] % 3;
	text = (const char *)data + 1;
	len = size - 1;
	netcounters_init(&a);
	ret = parse[which](text, len, &a);
	if (ret > 0)
		abort();
	if (a.nlinks > NETCOUNTERS_MAX_LINKS)
		abort();
	for (i = 0; i < a.nlinks; i++)
		if (!memchr(a.links[i].name, '\0', sizeof(a.links[i].name)) || !a.links[i].name[0])
			abort();
	netcounters_init(&b);
	netcounters_delta(&b, &a, &d);
	netcounters_loss_inputs(&d, NULL, &a, a.nlinks ? a.links[0].name : NULL, AF_UNSPEC,
				a.udp.rcvbuf_errors, a.udp.in_datagrams ^ a.udp6.in_errors, &in);
	netcounters_attribute(&in, &at);
	if (at.sender_sndbuf + at.sender_link + at.receiver_rcvbuf + at.receiver_socket +
		    at.receiver_inerrors + at.receiver_link + at.network !=
	    in.lost)
		abort();
	return 0;
}
