// SPDX-License-Identifier: MIT
/* Connections not yet classified (contract in server_pending.h). */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "server_pending.h"

int pending_init(struct pending_set *ps, unsigned max)
{
	ps->v = calloc(max, sizeof(*ps->v));
	ps->n = 0;
	ps->max = ps->v ? max : 0;
	return ps->v ? 0 : -ENOMEM;
}

void pending_free(struct pending_set *ps)
{
	for (unsigned i = 0; i < ps->n; i++)
		close(ps->v[i].fd);
	free(ps->v);
	ps->v = NULL;
	ps->n = 0;
}

int pending_add(struct pending_set *ps, int fd, const struct sockaddr_storage *peer,
		uint64_t now_ns)
{
	if (ps->n >= ps->max)
		return -ENOSPC;
	ps->v[ps->n++] = (struct pending_conn){ .fd = fd, .peer = *peer, .since_ns = now_ns };
	return 0;
}

void pending_drop(struct pending_set *ps, unsigned i)
{
	if (i >= ps->n)
		return;
	ps->v[i] = ps->v[--ps->n];
}

enum pending_state pending_check(const struct pending_conn *p, uint64_t now_ns, uint64_t idle_ns,
				 uint64_t msg_ns)
{
	/* the same two deadlines a control session has: idle before a
	 * message, msg_ns from a message's first byte to its end */
	if (p->first_ns)
		return now_ns - p->first_ns > msg_ns ? PENDING_STALLED : PENDING_LIVE;
	return now_ns - p->since_ns > idle_ns ? PENDING_SILENT : PENDING_LIVE;
}
