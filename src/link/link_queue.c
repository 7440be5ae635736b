// SPDX-License-Identifier: MIT
#define _GNU_SOURCE /* recvmmsg(), sendmmsg(), struct mmsghdr */
/*
 * The due-time queue of one direction: frames in fixed slots (one mapping,
 * touched only as slots are used), a min-heap of them by due time and
 * arrival order, a byte bound and a slot bound. It holds at least the
 * bandwidth-delay product (link_bounds_get()); a frame that finds it full
 * is refused, and the caller counts it (drop_queue).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "link_int.h"

static uint64_t bdp(uint64_t bps, uint64_t ns)
{
	return (uint64_t)((unsigned __int128)bps * ns / (8ULL * 1000000000ULL));
}

void link_bounds_get(const struct link_dir_conf *c, uint64_t limit_bytes, struct link_bounds *b)
{
	uint64_t line = bdp(c->rate_bps ? c->rate_bps : LINK_AUTO_BPS, c->delay_ns + c->jitter_ns);
	uint64_t slots;

	if (c->rate_bps) {
		/* The backlog waits for the serializer, the delay line holds what it
		 * sent for delay + jitter: a bandwidth-delay product at the rate. */
		b->backlog_bytes = limit_bytes ? limit_bytes : bdp(c->rate_bps, LINK_BACKLOG_NS);
		if (b->backlog_bytes < LINK_BACKLOG_MIN && !limit_bytes)
			b->backlog_bytes = LINK_BACKLOG_MIN;
		b->queue_bytes = b->backlog_bytes + line + LINK_BACKLOG_MIN;
	} else {
		/* No rate: the line is assumed at LINK_AUTO_BPS, twice its BDP. */
		b->backlog_bytes = 0;
		b->queue_bytes = limit_bytes ? limit_bytes : 2 * line;
		if (!limit_bytes && b->queue_bytes < LINK_AUTO_MIN)
			b->queue_bytes = LINK_AUTO_MIN;
	}
	if (b->queue_bytes > LINK_LIMIT_MAX)
		b->queue_bytes = LINK_LIMIT_MAX;
	slots = b->queue_bytes / LINK_SLOT_BYTES;
	b->slots = slots < LINK_SLOTS_MIN   ? LINK_SLOTS_MIN
		   : slots > LINK_SLOTS_MAX ? LINK_SLOTS_MAX
					    : (uint32_t)slots;
}

int link_queue_init(struct link_queue *q, uint64_t cap_bytes, uint32_t nslots, size_t frame_max)
{
	memset(q, 0, sizeof(*q));
	q->slot_size = (sizeof(struct link_slot) + frame_max + 63) & ~(size_t)63;
	q->mem_len = q->slot_size * nslots;
	q->mem = mmap(NULL, q->mem_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (q->mem == MAP_FAILED) {
		q->mem = NULL;
		return -ENOMEM;
	}
	q->free = calloc(nslots, sizeof(*q->free));
	q->heap = calloc(nslots, sizeof(*q->heap));
	if (!q->free || !q->heap) {
		link_queue_free(q);
		return -ENOMEM;
	}
	q->nslots = q->nfree = nslots;
	for (uint32_t i = 0; i < nslots; i++)
		q->free[i] = nslots - 1 - i; /* slot 0 on top */
	q->cap_bytes = cap_bytes;
	q->frame_max = frame_max;
	return 0;
}

void link_queue_free(struct link_queue *q)
{
	if (q->mem)
		munmap(q->mem, q->mem_len);
	free(q->free);
	free(q->heap);
	memset(q, 0, sizeof(*q));
}

static struct link_slot *slot(const struct link_queue *q, uint32_t i)
{
	return (struct link_slot *)(q->mem + (size_t)i * q->slot_size);
}

static uint32_t slot_no(const struct link_queue *q, const struct link_slot *s)
{
	return (uint32_t)(((const uint8_t *)s - q->mem) / q->slot_size);
}

struct link_slot *link_queue_reserve(struct link_queue *q)
{
	if (!q->nfree)
		return NULL;
	return slot(q, q->free[q->nfree - 1]);
}

bool link_queue_admit(struct link_queue *q, const struct link_slot *s, size_t len)
{
	if (s && len <= q->frame_max && q->bytes + len <= q->cap_bytes)
		return true;
	q->overflows++;
	return false;
}

static bool before(const struct link_queue *q, uint32_t a, uint32_t b)
{
	const struct link_slot *x = slot(q, a), *y = slot(q, b);

	return x->due_ns < y->due_ns || (x->due_ns == y->due_ns && x->seq < y->seq);
}

static void swap(uint32_t *h, uint32_t i, uint32_t j)
{
	uint32_t t = h[i];

	h[i] = h[j];
	h[j] = t;
}

void link_queue_push(struct link_queue *q, struct link_slot *s, uint64_t due_ns)
{
	uint32_t i = q->n++;

	/* s is the top of the free stack (link_queue_reserve()). */
	q->nfree--;
	s->due_ns = due_ns;
	s->seq = q->seq++;
	q->heap[i] = slot_no(q, s);
	while (i && before(q, q->heap[i], q->heap[(i - 1) / 2])) {
		swap(q->heap, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	q->bytes += s->len;
	if (q->bytes > q->max_bytes)
		q->max_bytes = q->bytes;
	if (q->n > q->max_packets)
		q->max_packets = q->n;
}

struct link_slot *link_queue_head(const struct link_queue *q)
{
	return q->n ? slot(q, q->heap[0]) : NULL;
}

struct link_slot *link_queue_pop(struct link_queue *q)
{
	struct link_slot *s;
	uint32_t i = 0;

	if (!q->n)
		return NULL;
	s = slot(q, q->heap[0]);
	q->heap[0] = q->heap[--q->n];
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < q->n && before(q, q->heap[l], q->heap[m]))
			m = l;
		if (r < q->n && before(q, q->heap[r], q->heap[m]))
			m = r;
		if (m == i)
			break;
		swap(q->heap, i, m);
		i = m;
	}
	q->bytes -= s->len;
	return s;
}

void link_queue_release(struct link_queue *q, struct link_slot *s)
{
	q->free[q->nfree++] = slot_no(q, s);
}
