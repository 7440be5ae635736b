// SPDX-License-Identifier: MIT
/* Receiver-index table: linear probing, backward-shift deletion (see index_table.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "index_table.h"

/* Indexes are random, but a multiplicative mix keeps clustering low anyway. */
static size_t home(const struct index_table *t, uint32_t index)
{
	return (size_t)((index * 0x9E3779B1u) >> 7) & t->mask;
}

int index_table_init(struct index_table *t, size_t max_entries)
{
	size_t slots = 16;
	int rc;

	memset(t, 0, sizeof(*t));
	while (slots < 2 * max_entries)
		slots <<= 1;
	t->slots = calloc(slots, sizeof(*t->slots));
	if (!t->slots)
		return -ENOMEM;
	t->mask = slots - 1;
	t->max = slots / 2;
	rc = pthread_rwlock_init(&t->lock, NULL);
	if (rc) {
		free(t->slots);
		t->slots = NULL;
		return -rc;
	}
	return 0;
}

void index_table_destroy(struct index_table *t)
{
	if (!t->slots)
		return;
	pthread_rwlock_destroy(&t->lock);
	free(t->slots);
	t->slots = NULL;
}

static struct index_entry *find(const struct index_table *t, uint32_t index)
{
	size_t i = home(t, index);

	for (;;) {
		struct index_entry *e = &t->slots[i];

		if (e->kind == INDEX_EMPTY)
			return NULL;
		if (e->index == index)
			return e;
		i = (i + 1) & t->mask;
	}
}

const struct index_entry *index_table_find(const struct index_table *t, uint32_t index)
{
	return find(t, index);
}

int index_table_insert(struct index_table *t, enum index_kind kind, void *ptr,
		       void (*rng)(void *ctx, void *buf, size_t len), void *ctx, uint32_t *index)
{
	uint32_t idx;
	size_t i;
	int tries;

	if (t->count >= t->max || kind == INDEX_EMPTY)
		return -ENOSPC;
	for (tries = 0; tries < 64; tries++) {
		rng(ctx, &idx, sizeof(idx));
		if (!find(t, idx))
			break;
	}
	if (tries == 64)
		return -ENOSPC;
	i = home(t, idx);
	while (t->slots[i].kind != INDEX_EMPTY)
		i = (i + 1) & t->mask;
	t->slots[i] = (struct index_entry){ .index = idx, .kind = kind, .ptr = ptr };
	t->count++;
	*index = idx;
	return 0;
}

int index_table_replace(struct index_table *t, uint32_t index, enum index_kind kind, void *ptr)
{
	struct index_entry *e = find(t, index);

	if (!e || kind == INDEX_EMPTY)
		return -ENOENT;
	e->kind = kind;
	e->ptr = ptr;
	return 0;
}

void index_table_remove(struct index_table *t, uint32_t index)
{
	struct index_entry *e = find(t, index);
	size_t hole, j, h;

	if (!e)
		return;
	hole = (size_t)(e - t->slots);
	j = hole;
	/* Backward shift: move later entries of the run into the hole when allowed. */
	for (;;) {
		j = (j + 1) & t->mask;
		if (t->slots[j].kind == INDEX_EMPTY)
			break;
		h = home(t, t->slots[j].index);
		/* Entry j may move to hole if its home is not within (hole, j]. */
		if ((j > hole && (h <= hole || h > j)) || (j < hole && h <= hole && h > j)) {
			t->slots[hole] = t->slots[j];
			hole = j;
		}
	}
	t->slots[hole] = (struct index_entry){ 0 };
	t->count--;
}
