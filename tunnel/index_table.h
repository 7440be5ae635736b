/* SPDX-License-Identifier: MIT */
/*
 * Receiver-index table: our random 32-bit sender indexes mapped to what they
 * name (a pending handshake or a keypair). Open addressing with linear
 * probing and backward-shift deletion in a table sized once at init: no
 * allocation per packet or per handshake.
 *
 * Locking is the caller's: index_table_find() under index_table_rdlock()
 * (receive path, per datagram), insert/remove under index_table_wrlock()
 * (handshakes). Lock order: a peer's mutex before the table's lock.
 */
#ifndef OVLPERF_TUNNEL_INDEX_TABLE_H
#define OVLPERF_TUNNEL_INDEX_TABLE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

enum index_kind {
	INDEX_EMPTY = 0,
	INDEX_HANDSHAKE,
	INDEX_KEYPAIR,
};

struct index_entry {
	uint32_t index;
	enum index_kind kind;
	void *ptr;
};

struct index_table {
	pthread_rwlock_t lock;
	struct index_entry *slots;
	size_t mask; /* slots - 1 */
	size_t count;
	size_t max; /* count never exceeds this (half the slots) */
};

/* Room for at least max_entries live entries. 0 or -errno. */
int index_table_init(struct index_table *t, size_t max_entries);
void index_table_destroy(struct index_table *t);

static inline void index_table_rdlock(struct index_table *t)
{
	pthread_rwlock_rdlock(&t->lock);
}

static inline void index_table_wrlock(struct index_table *t)
{
	pthread_rwlock_wrlock(&t->lock);
}

static inline void index_table_unlock(struct index_table *t)
{
	pthread_rwlock_unlock(&t->lock);
}

/* The live entry for index, or NULL. Read lock held. */
const struct index_entry *index_table_find(const struct index_table *t, uint32_t index);

/*
 * Inserts ptr under a fresh random index not in use (rng(ctx, buf, 4)).
 * Write lock held. 0 (*index set) or -ENOSPC.
 */
int index_table_insert(struct index_table *t, enum index_kind kind, void *ptr,
		       void (*rng)(void *ctx, void *buf, size_t len), void *ctx, uint32_t *index);
/* Points an existing index at something else. Write lock held. 0 or -ENOENT. */
int index_table_replace(struct index_table *t, uint32_t index, enum index_kind kind, void *ptr);
/* Removes index if present. Write lock held. */
void index_table_remove(struct index_table *t, uint32_t index);

#endif
