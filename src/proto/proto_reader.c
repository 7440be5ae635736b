// SPDX-License-Identifier: MIT
/*
 * Framing of the control protocol on a stream fd: one message at a time,
 * never reading past its end, with the time its first byte came so that a
 * server can drop a client that stalls in the middle of a message.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bytes.h"
#include "clock.h"
#include "interrupt.h"
#include "proto.h"

int proto_reader_init(struct proto_reader *r)
{
	*r = (struct proto_reader){ 0 };
	r->buf = malloc(PROTO_MAX_MSG);
	return r->buf ? 0 : -ENOMEM;
}

void proto_reader_free(struct proto_reader *r)
{
	free(r->buf);
	r->buf = NULL;
}

static size_t reader_need(const struct proto_reader *r)
{
	return r->have < PROTO_HDR_LEN ? PROTO_HDR_LEN - r->have : r->want - r->have;
}

/* Accounts for n bytes just placed at buf + have (n <= reader_need()). */
static int reader_advance(struct proto_reader *r, size_t n, uint64_t now_ns, struct proto_msg *msg)
{
	struct proto_hdr h;
	int ret;

	if (r->have == 0 && n > 0)
		r->start_ns = now_ns;
	r->have += n;
	/* Reject a stranger (e.g. an HTTP request) after 4 bytes, not 12. */
	if (r->have >= 4 && r->have - n < 4 && get_be32(r->buf) != PROTO_MAGIC)
		return PROTO_E_MAGIC;
	if (r->have == PROTO_HDR_LEN && r->want == 0) {
		ret = proto_decode_hdr(r->buf, r->have, &h);
		if (ret < 0)
			return ret;
		r->want = PROTO_HDR_LEN + h.len;
	}
	if (r->want == 0 || r->have < r->want)
		return 0;
	r->ready = true;
	msg->type = get_be16(r->buf + 6);
	msg->body = r->buf + PROTO_HDR_LEN;
	msg->len = (uint32_t)(r->want - PROTO_HDR_LEN);
	return 1;
}

static void reader_reset_if_ready(struct proto_reader *r)
{
	if (r->ready) {
		r->ready = false;
		r->have = 0;
		r->want = 0;
	}
}

int proto_reader_push(struct proto_reader *r, const uint8_t *data, size_t len, size_t *used,
		      uint64_t now_ns, struct proto_msg *msg)
{
	size_t n;
	int ret = 0;

	*used = 0;
	reader_reset_if_ready(r);
	while (*used < len) {
		n = reader_need(r);
		if (n > len - *used)
			n = len - *used;
		memcpy(r->buf + r->have, data + *used, n);
		*used += n;
		ret = reader_advance(r, n, now_ns, msg);
		if (ret != 0)
			return ret;
	}
	return 0;
}

int proto_reader_read(struct proto_reader *r, int fd, uint64_t now_ns, struct proto_msg *msg)
{
	ssize_t n;
	int ret;

	reader_reset_if_ready(r);
	for (;;) {
		n = read(fd, r->buf + r->have, reader_need(r));
		if (n < 0) {
			if (errno == EINTR && !interrupt_requested())
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -errno;
		}
		if (n == 0)
			return r->have == 0 ? PROTO_E_EOF : PROTO_E_EOF_PARTIAL;
		ret = reader_advance(r, (size_t)n, now_ns, msg);
		if (ret != 0)
			return ret;
	}
}

bool proto_reader_partial(const struct proto_reader *r)
{
	return r->have > 0 && !r->ready;
}

bool proto_reader_stalled(const struct proto_reader *r, uint64_t now_ns, uint64_t timeout_ns)
{
	return proto_reader_partial(r) && now_ns > r->start_ns && now_ns - r->start_ns > timeout_ns;
}

static int wait_writable(int fd, uint64_t deadline_ns)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	uint64_t now;
	int ret;

	for (;;) {
		now = clock_now_ns();
		if (now >= deadline_ns)
			return -ETIMEDOUT;
		ret = poll(&pfd, 1, (int)((deadline_ns - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC));
		if (ret > 0)
			return 0;
		if (ret < 0 && (errno != EINTR || interrupt_requested()))
			return -errno;
	}
}

int proto_write_all(int fd, const uint8_t *buf, size_t len, int timeout_ms)
{
	uint64_t deadline =
		clock_now_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * NSEC_PER_MSEC;
	size_t off = 0;
	ssize_t n;
	int ret;

	while (off < len) {
		n = send(fd, buf + off, len - off, MSG_NOSIGNAL);
		if (n < 0 && errno == ENOTSOCK)
			n = write(fd, buf + off, len - off);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n == 0)
			return -EPIPE;
		if (errno == EINTR && !interrupt_requested())
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		ret = wait_writable(fd, deadline);
		if (ret < 0)
			return ret;
	}
	return 0;
}
