// SPDX-License-Identifier: MIT
/* What the server served and refused (contract in server_stats.h). */
#include <inttypes.h>
#include <stdio.h>

#include "log.h"
#include "server_stats.h"

void server_stats_refused(struct server_stats *st, uint16_t reason)
{
	atomic_fetch_add(&st->refused[reason < SERVER_REASONS ? reason : PROTO_R_UNSPEC], 1);
}

void server_stats_log(struct server_stats *st)
{
	/* keys for the log line, one per enum proto_reason */
	static const char *const keys[SERVER_REASONS] = {
		[PROTO_R_UNSPEC] = "other",
		[PROTO_R_BUSY] = "busy",
		[PROTO_R_LIMIT_DURATION] = "limit_duration",
		[PROTO_R_LIMIT_RATE] = "limit_rate",
		[PROTO_R_LIMIT_STREAMS] = "limit_streams",
		[PROTO_R_UNSUPPORTED] = "unsupported",
		[PROTO_R_AUTH] = "auth",
		[PROTO_R_BAD_MESSAGE] = "bad_message",
		[PROTO_R_TIMEOUT] = "timeout",
		[PROTO_R_INTERNAL] = "internal",
		[PROTO_R_INTERRUPTED] = "interrupted",
		[PROTO_R_VERSION] = "version",
	};
	char line[512];
	size_t n = 0;
	uint_fast64_t any = atomic_load(&st->foreign_data);

	for (unsigned r = 0; r < SERVER_REASONS && n < sizeof(line); r++) {
		uint_fast64_t v = atomic_load(&st->refused[r]);
		int k = snprintf(line + n, sizeof(line) - n, " %s=%" PRIuFAST64, keys[r], v);

		if (k < 0)
			break;
		n += (size_t)k;
		any += r == PROTO_R_INTERRUPTED ? 0 : v;
	}
	/* shown by default when a client was refused: what an operator must see */
	log_msg(any ? LOG_WARN : LOG_INFO, __func__,
		"stats: sessions=%" PRIuFAST64 " tests=%" PRIuFAST64 " foreign_data=%" PRIuFAST64
		" refused:%s",
		atomic_load(&st->sessions), atomic_load(&st->tests), atomic_load(&st->foreign_data),
		line);
}
