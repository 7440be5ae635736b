/* SPDX-License-Identifier: MIT */
/*
 * A control connection as the client and the server use it: a non-blocking
 * socket, an incremental message reader (proto.h) and an encode buffer, with
 * two deadlines: how long to wait for a message at all (the caller's), and
 * how long one message may take once its first byte arrived (msg_timeout,
 * so a peer that trickles bytes cannot hold a session).
 */
#ifndef OVLPERF_CTRL_H
#define OVLPERF_CTRL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proto.h"

#define CTRL_DEFAULT_MSG_TIMEOUT_MS 10000u

struct ctrl {
	int fd;
	struct proto_reader rd;
	uint8_t *out; /* PROTO_MAX_MSG bytes for encoders */
	uint64_t msg_timeout_ns;
	int write_timeout_ms;
};

/* Takes ownership of fd (closed by ctrl_free). 0 or -ENOMEM. */
int ctrl_init(struct ctrl *c, int fd, uint32_t msg_timeout_ms);
void ctrl_free(struct ctrl *c);

/* Waits up to wait_ms (< 0: without limit) for one complete message.
 * Returns 1 with *msg (valid until the next call), 0 when wait_ms passed
 * with no complete message, PROTO_E_STALLED when a message started more than
 * msg_timeout ago, -EINTR when interrupt_requested() (and check_intr), or
 * another negative PROTO_E_* / -errno. */
int ctrl_recv(struct ctrl *c, struct proto_msg *msg, int wait_ms, bool check_intr);
/* Sends the n bytes an encoder wrote into c->out (n < 0: the encoder's error). */
int ctrl_send(struct ctrl *c, ssize_t n);
/* TEST_REJECT or ERROR with a reason code and a sentence. */
int ctrl_send_text(struct ctrl *c, uint16_t type, uint16_t code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
