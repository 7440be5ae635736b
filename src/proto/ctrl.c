// SPDX-License-Identifier: MIT
/* Control connection: deadline-bounded message I/O over proto.h framing. */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "clock.h"
#include "ctrl.h"
#include "interrupt.h"
#include "sockopt.h"

#define POLL_SLICE_MS 100

int ctrl_init(struct ctrl *c, int fd, uint32_t msg_timeout_ms)
{
	int rc;

	c->fd = fd;
	c->msg_timeout_ns =
		(uint64_t)(msg_timeout_ms ? msg_timeout_ms : CTRL_DEFAULT_MSG_TIMEOUT_MS) *
		NSEC_PER_MSEC;
	c->write_timeout_ms = (int)(c->msg_timeout_ns / NSEC_PER_MSEC);
	c->out = malloc(PROTO_MAX_MSG);
	if (!c->out)
		return -ENOMEM;
	rc = proto_reader_init(&c->rd);
	if (rc < 0) {
		free(c->out);
		c->out = NULL;
		return rc;
	}
	sockopt_nonblock(fd, true);
	return 0;
}

void ctrl_free(struct ctrl *c)
{
	if (c->out) {
		proto_reader_free(&c->rd);
		free(c->out);
		c->out = NULL;
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

int ctrl_recv(struct ctrl *c, struct proto_msg *msg, int wait_ms, bool check_intr)
{
	uint64_t deadline =
		wait_ms < 0 ? UINT64_MAX : clock_now_ns() + (uint64_t)wait_ms * NSEC_PER_MSEC;

	for (;;) {
		uint64_t now = clock_now_ns(), until = deadline;
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		int rc = proto_reader_read(&c->rd, c->fd, now, msg);

		if (rc != 0)
			return rc;
		if (proto_reader_stalled(&c->rd, now, c->msg_timeout_ns))
			return PROTO_E_STALLED;
		if (check_intr && interrupt_requested())
			return -EINTR;
		if (proto_reader_partial(&c->rd) && c->rd.start_ns + c->msg_timeout_ns < until)
			until = c->rd.start_ns + c->msg_timeout_ns;
		if (now >= deadline)
			return 0;
		uint64_t left_ms =
			until > now ? (until - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC : 0;
		rc = poll(&p, 1, left_ms > POLL_SLICE_MS ? POLL_SLICE_MS : (int)left_ms);
		if (rc < 0 && errno != EINTR)
			return -errno;
	}
}

int ctrl_send(struct ctrl *c, ssize_t n)
{
	if (n < 0)
		return (int)n;
	return proto_write_all(c->fd, c->out, (size_t)n, c->write_timeout_ms);
}

int ctrl_send_text(struct ctrl *c, uint16_t type, uint16_t code, const char *fmt, ...)
{
	char text[PROTO_TEXT_MAX + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return ctrl_send(c, proto_encode_text(c->out, PROTO_MAX_MSG, type, code, text));
}
