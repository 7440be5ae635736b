// SPDX-License-Identifier: MIT
/*
 * What the server's port tells a connection it refuses before any session
 * would (contract in server_refuse.h): one ERROR sent without waiting, the
 * refusal counted, the connection closed; and the words for a greeting the
 * registry refused.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "log.h"
#include "server_refuse.h"

void server_refuse(struct server_shared *sh, int fd, const struct sockaddr_storage *peer,
		   uint16_t reason, const char *fmt, ...)
{
	uint8_t buf[PROTO_HDR_LEN + PROTO_TEXT_FIXED_LEN + PROTO_TEXT_MAX];
	char text[PROTO_TEXT_MAX + 1], who[80];
	va_list ap;
	ssize_t n;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	addr_format(peer, true, who, sizeof(who));
	log_warn("%s: %s", who, text);
	n = proto_encode_text(buf, sizeof(buf), PROTO_ERROR, reason, text);
	if (n > 0 && send(fd, buf, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		log_debug("reply not sent: %s", strerror(errno));
	server_stats_refused(&sh->stats, reason);
	close(fd);
}

void server_refuse_busy(struct server_shared *sh, int fd)
{
	uint8_t buf[PROTO_HDR_LEN + PROTO_TEXT_FIXED_LEN + PROTO_TEXT_MAX];
	unsigned max = sh->cfg->max_sessions;
	char text[96];
	ssize_t n;

	log_warn("refusing a connection: %u sessions running", max);
	server_stats_refused(&sh->stats, PROTO_R_BUSY);
	snprintf(text, sizeof(text), "server busy: %u sessions already running", max);
	n = proto_encode_text(buf, sizeof(buf), PROTO_ERROR, PROTO_R_BUSY, text);
	if (n > 0 && send(fd, buf, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		log_debug("busy reply not sent: %s", strerror(errno));
	close(fd);
}

const char *server_claim_strerror(int rc)
{
	switch (rc) {
	case -ENOENT:
		return "no test or MTU session expects it (unknown test id or token)";
	case -EACCES:
		return "wrong cookie";
	case -EPERM:
		return "from another host than the test's control connection";
	case -ERANGE:
		return "no such stream in the test";
	case -EALREADY:
		return "its stream is already connected";
	case -EPROTO:
		return "a greeting for another kind of test (TCP/UDP)";
	case -EBADMSG:
		return "malformed greeting";
	case -EADDRNOTAVAIL:
		return "no destination address with the datagram";
	case -ENOBUFS:
		return "the test does not take its connections";
	default:
		return strerror(-rc);
	}
}
