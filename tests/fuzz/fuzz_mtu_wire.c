// SPDX-License-Identifier: MIT
/*
 * The MTU_PROBE_* bodies and UDP probe datagrams as a peer (or anyone on the
 * path) may send them: every decoder on arbitrary bytes. A body that decodes
 * must encode back to the same bytes (fields are fixed-width, no slack).
 * Also the parser of a saved SYN's headers (the MSS option as it arrived).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtu_wire.h"
#include "tcp_syn.h"

#define ROUNDTRIP(T, GET, PUT, LEN)                                                                \
	do {                                                                                       \
		struct T v;                                                                        \
		uint8_t out[LEN];                                                                  \
		if (GET(body, len, &v)) {                                                          \
			PUT(out, &v);                                                              \
			if (len != LEN || memcmp(out, body, LEN))                                  \
				abort();                                                           \
		}                                                                                  \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mtu_wire_probe pr;
	enum mtu_wire_op op;
	const uint8_t *body;
	size_t len;

	(void)mtu_wire_get_probe(data, size, &pr);
	{
		uint32_t mss;

		(void)tcp_syn_mss(data, size, &mss);
	}
	if (!mtu_wire_get_op(data, size, &op))
		return 0;
	body = data + MTU_WIRE_OP_LEN;
	len = size - MTU_WIRE_OP_LEN;
	ROUNDTRIP(mtu_wire_request, mtu_wire_get_request, mtu_wire_put_request,
		  MTU_WIRE_REQUEST_LEN);
	ROUNDTRIP(mtu_wire_ready, mtu_wire_get_ready, mtu_wire_put_ready, MTU_WIRE_READY_LEN);
	ROUNDTRIP(mtu_wire_query, mtu_wire_get_query, mtu_wire_put_query, MTU_WIRE_QUERY_LEN);
	{
		/* The current report round-trips; one of the first version
		 * (without syn_mss) reads as syn_mss 0 and its prefix. */
		struct mtu_wire_tcp_report v;
		uint8_t out[MTU_WIRE_TCP_REPORT_LEN];

		if (mtu_wire_get_tcp_report(body, len, &v)) {
			mtu_wire_put_tcp_report(out, &v);
			if (len == MTU_WIRE_TCP_REPORT_V1_LEN
				    ? v.syn_mss != 0 || memcmp(out, body, len)
				    : len != MTU_WIRE_TCP_REPORT_LEN || memcmp(out, body, len))
				abort();
		}
	}
	{
		/* the report has 4 reserved bytes that decode ignores */
		struct mtu_wire_report v;

		if (mtu_wire_get_report(body, len, &v) &&
		    (v.received > 32 || v.reassembled > v.received))
			abort();
	}
	return 0;
}
