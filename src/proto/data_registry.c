// SPDX-License-Identifier: MIT
/* Tests expecting data on the server's one port (contract in data_registry.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "data_registry.h"

struct data_reg_entry {
	struct data_reg_entry *next;
	enum data_reg_kind kind;
	uint32_t test_id;
	uint8_t secret[PROTO_COOKIE_LEN];
	unsigned streams;
	bool *taken; /* per stream: its connection was handed over */
	struct sockaddr_storage peer;
	int pipe[2]; /* [0] the owner reads, [1] the accept thread writes */
};

struct data_registry {
	pthread_mutex_t lock;
	struct data_reg_entry *head;
	unsigned n;
	uint16_t port;
};

_Static_assert(sizeof(struct data_handoff) <= PIPE_BUF, "a handoff must be written atomically");

int data_registry_new(uint16_t port, struct data_registry **out)
{
	struct data_registry *reg = calloc(1, sizeof(*reg));

	if (!reg)
		return -ENOMEM;
	pthread_mutex_init(&reg->lock, NULL);
	reg->port = port;
	*out = reg;
	return 0;
}

void data_registry_free(struct data_registry *reg)
{
	if (!reg)
		return;
	while (reg->head)
		data_registry_remove(reg, reg->head);
	pthread_mutex_destroy(&reg->lock);
	free(reg);
}

uint16_t data_registry_port(const struct data_registry *reg)
{
	return reg->port;
}

/* The entry of c's kind and id (MTU: of its token); NULL when none. The
 * secret is compared in constant time: only its match is learnt, never
 * how close a guess came. */
static struct data_reg_entry *find(struct data_registry *reg, const struct data_claim *c,
				   bool *wrong_secret, bool *wrong_kind)
{
	for (struct data_reg_entry *e = reg->head; e; e = e->next) {
		if (c->kind == DATA_REG_MTU || e->kind == DATA_REG_MTU) {
			if (c->kind != e->kind ||
			    sodium_memcmp(e->secret, c->secret, PROTO_COOKIE_LEN) != 0)
				continue;
			return e;
		}
		if (e->test_id != c->test_id)
			continue;
		*wrong_kind = e->kind != c->kind;
		*wrong_secret = sodium_memcmp(e->secret, c->secret, PROTO_COOKIE_LEN) != 0;
		return e;
	}
	return NULL;
}

int data_registry_add(struct data_registry *reg, const struct data_claim *c, unsigned streams,
		      const struct sockaddr_storage *peer, struct data_reg_entry **out)
{
	struct data_reg_entry *e = calloc(1, sizeof(*e));
	bool ws = false, wk = false;
	int rc = 0;

	if (!e)
		return -ENOMEM;
	e->kind = c->kind;
	e->test_id = c->test_id;
	memcpy(e->secret, c->secret, sizeof(e->secret));
	e->streams = streams ? streams : 1;
	e->peer = *peer;
	addr_unmap(&e->peer);
	e->taken = calloc(e->streams, sizeof(*e->taken));
	if (!e->taken || pipe2(e->pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		rc = e->taken ? -errno : -ENOMEM;
		free(e->taken);
		free(e);
		return rc;
	}
	pthread_mutex_lock(&reg->lock);
	if (reg->n >= DATA_REGISTRY_MAX)
		rc = -ENOSPC;
	else if (find(reg, c, &ws, &wk) && !wk)
		rc = -EEXIST;
	if (rc == 0) {
		e->next = reg->head;
		reg->head = e;
		reg->n++;
	}
	pthread_mutex_unlock(&reg->lock);
	if (rc < 0) {
		close(e->pipe[0]);
		close(e->pipe[1]);
		free(e->taken);
		free(e);
		return rc;
	}
	*out = e;
	return 0;
}

void data_registry_remove(struct data_registry *reg, struct data_reg_entry *e)
{
	struct data_handoff h;

	if (!e)
		return;
	pthread_mutex_lock(&reg->lock);
	for (struct data_reg_entry **pp = &reg->head; *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			reg->n--;
			break;
		}
	}
	pthread_mutex_unlock(&reg->lock);
	/* out of the list: nothing is written to the pipe any more */
	while (data_reg_entry_take(e, &h) == 1)
		if (h.fd >= 0)
			close(h.fd);
	close(e->pipe[0]);
	close(e->pipe[1]);
	free(e->taken);
	free(e);
}

int data_reg_entry_pollfd(const struct data_reg_entry *e)
{
	return e->pipe[0];
}

int data_reg_entry_take(struct data_reg_entry *e, struct data_handoff *h)
{
	ssize_t n = read(e->pipe[0], h, sizeof(*h));

	if (n == (ssize_t)sizeof(*h))
		return 1;
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return -errno;
	return 0;
}

/* Called with the lock held. */
static int check_locked(struct data_registry *reg, const struct data_claim *c, bool conn,
			struct data_reg_entry **out)
{
	bool wrong_secret = false, wrong_kind = false;
	struct data_reg_entry *e = find(reg, c, &wrong_secret, &wrong_kind);
	struct sockaddr_storage from = c->from;

	if (!e)
		return -ENOENT;
	if (wrong_kind)
		return -EPROTO;
	if (wrong_secret)
		return -EACCES;
	addr_unmap(&from);
	if (!addr_same_host(&from, &e->peer))
		return -EPERM;
	if (c->stream >= e->streams)
		return -ERANGE;
	if (conn && e->taken[c->stream])
		return -EALREADY;
	*out = e;
	return 0;
}

int data_registry_check(struct data_registry *reg, const struct data_claim *c)
{
	struct data_reg_entry *e;
	int rc;

	pthread_mutex_lock(&reg->lock);
	/* an MTU session takes any number of probes but one TCP connection */
	rc = check_locked(reg, c, c->kind != DATA_REG_MTU, &e);
	pthread_mutex_unlock(&reg->lock);
	return rc;
}

int data_registry_claim(struct data_registry *reg, const struct data_claim *c,
			const struct data_handoff *h)
{
	struct data_reg_entry *e;
	int rc;

	pthread_mutex_lock(&reg->lock);
	rc = check_locked(reg, c, h->fd >= 0, &e);
	if (rc == 0 && write(e->pipe[1], h, sizeof(*h)) != (ssize_t)sizeof(*h))
		rc = -ENOBUFS; /* the owner stopped reading: a full pipe */
	if (rc == 0 && h->fd >= 0)
		e->taken[c->stream] = true;
	pthread_mutex_unlock(&reg->lock);
	return rc;
}
