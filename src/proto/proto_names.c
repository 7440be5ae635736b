// SPDX-License-Identifier: MIT
/*
 * Names of control message types, reject reasons and codec errors, for
 * logs and messages.
 */
#include <string.h>

#include "proto.h"

/* ---- names --------------------------------------------------------------- */

const char *proto_type_name(uint16_t type)
{
	static const char *const names[] = {
		[PROTO_HELLO] = "HELLO",
		[PROTO_AUTH_CHALLENGE] = "AUTH_CHALLENGE",
		[PROTO_AUTH_RESPONSE] = "AUTH_RESPONSE",
		[PROTO_AUTH_OK] = "AUTH_OK",
		[PROTO_TEST_REQUEST] = "TEST_REQUEST",
		[PROTO_TEST_ACCEPT] = "TEST_ACCEPT",
		[PROTO_TEST_REJECT] = "TEST_REJECT",
		[PROTO_START] = "START",
		[PROTO_INTERVAL] = "INTERVAL",
		[PROTO_STOP] = "STOP",
		[PROTO_RESULTS] = "RESULTS",
		[PROTO_ERROR] = "ERROR",
		[PROTO_MTU_PROBE_REQUEST] = "MTU_PROBE_REQUEST",
		[PROTO_MTU_PROBE_REPLY] = "MTU_PROBE_REPLY",
		[PROTO_OVERLAY_REQUEST] = "OVERLAY_REQUEST",
		[PROTO_OVERLAY_ACCEPT] = "OVERLAY_ACCEPT",
		[PROTO_OVERLAY_READY] = "OVERLAY_READY",
		[PROTO_OVERLAY_DOWN] = "OVERLAY_DOWN",
		[PROTO_HOST_FACTS] = "HOST_FACTS",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}

const char *proto_reason_str(uint16_t code)
{
	static const char *const reasons[] = {
		[PROTO_R_UNSPEC] = "unspecified",
		[PROTO_R_BUSY] = "server busy",
		[PROTO_R_LIMIT_DURATION] = "duration above the server's limit",
		[PROTO_R_LIMIT_RATE] = "rate above the server's limit",
		[PROTO_R_LIMIT_STREAMS] = "streams above the server's limit",
		[PROTO_R_UNSUPPORTED] = "not supported by the server",
		[PROTO_R_AUTH] = "authentication failed",
		[PROTO_R_BAD_MESSAGE] = "malformed or unexpected message",
		[PROTO_R_TIMEOUT] = "message timed out",
		[PROTO_R_INTERNAL] = "internal error",
		[PROTO_R_INTERRUPTED] = "interrupted",
		[PROTO_R_VERSION] = "protocol version mismatch",
	};

	if (code < sizeof(reasons) / sizeof(reasons[0]) && reasons[code])
		return reasons[code];
	return "unknown reason";
}

const char *proto_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case PROTO_E_TRUNCATED:
		return "message truncated";
	case PROTO_E_LENGTH:
		return "message length does not match its type";
	case PROTO_E_TOOBIG:
		return "message larger than the protocol allows";
	case PROTO_E_MAGIC:
		return "not an ovlperf control connection (bad magic)";
	case PROTO_E_VERSION:
		return "unsupported protocol version";
	case PROTO_E_TYPE:
		return "unknown message type";
	case PROTO_E_VALUE:
		return "field out of range";
	case PROTO_E_EOF:
		return "peer closed the connection";
	case PROTO_E_EOF_PARTIAL:
		return "peer closed the connection in the middle of a message";
	case PROTO_E_STALLED:
		return "message not completed before its deadline";
	case PROTO_E_NOSPACE:
		return "buffer too small for message";
	default:
		return err < 0 ? strerror(-err) : "unknown error";
	}
}
