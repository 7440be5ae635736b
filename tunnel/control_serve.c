// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sodium.h>

#include "control.h"
#include "control_serve.h"

/* The reply to cmd into reply (CONTROL_REPLY_MAX bytes); its length. */
static size_t answer(const char *cmd, const struct control_handler *h, char *reply)
{
	if (!strcmp(cmd, "show") || !strcmp(cmd, "show-keys"))
		return h->status(h->ctx, !strcmp(cmd, "show-keys"), reply, CONTROL_REPLY_MAX);
	if (!strcmp(cmd, "stop")) {
		h->stop(h->ctx);
		return (size_t)snprintf(reply, CONTROL_REPLY_MAX, "ok=stopping\n");
	}
	return (size_t)snprintf(reply, CONTROL_REPLY_MAX, "error=unknown command\n");
}

static void send_all(int fd, const char *buf, size_t len)
{
	for (size_t off = 0; off < len;) {
		ssize_t w = send(fd, buf + off, len - off, MSG_NOSIGNAL);

		if (w <= 0)
			break;
		off += (size_t)w;
	}
}

void control_serve(int listen_fd, const struct control_handler *h)
{
	char cmd[CONTROL_CMD_MAX + 1];
	char *reply;
	struct pollfd pfd;
	ssize_t n;
	size_t len;
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	pfd.fd = fd;
	pfd.events = POLLIN;
	n = poll(&pfd, 1, CONTROL_SERVE_WAIT_MS) == 1 ? recv(fd, cmd, sizeof(cmd) - 1, 0) : -1;
	if (n <= 0)
		goto out;
	cmd[n] = '\0';
	cmd[strcspn(cmd, "\r\n")] = '\0';
	reply = malloc(CONTROL_REPLY_MAX); /* control path, not the data path */
	if (!reply)
		goto out;
	len = answer(cmd, h, reply);
	send_all(fd, reply, len);
	sodium_memzero(reply, len); /* may have held keys (show-keys) */
	free(reply);
out:
	close(fd);
}
