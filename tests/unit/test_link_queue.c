// SPDX-License-Identifier: MIT
/*
 * link_queue.c: frames come out in due order (ties in arrival order), the
 * byte bound and the slot bound refuse frames and count each refusal,
 * released slots are used again, and the high-water marks are kept.
 */
#define _GNU_SOURCE /* link_int.h: struct mmsghdr */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "link_int.h"
#include "test_seed.h"

static struct link_slot *put(struct link_queue *q, size_t len, uint64_t due, uint8_t tag)
{
	struct link_slot *s = link_queue_reserve(q);

	if (!link_queue_admit(q, s, len))
		return NULL;
	memset(s->data, tag, len);
	s->len = (uint32_t)len;
	link_queue_push(q, s, due);
	return s;
}

static void test_due_order(void **state)
{
	struct link_queue q;
	uint64_t prev_due = 0, prev_seq = 0;
	unsigned n = 5000;

	(void)state;
	assert_int_equal(link_queue_init(&q, 1 << 30, 8192, 1518), 0);
	for (unsigned i = 0; i < n; i++)
		assert_non_null(put(&q, 100, test_rand_below(1000), (uint8_t)i)); /* many ties */
	assert_int_equal(q.n, n);
	assert_int_equal(q.bytes, 100ULL * n);
	for (unsigned i = 0; i < n; i++) {
		struct link_slot *h = link_queue_head(&q), *s = link_queue_pop(&q);

		assert_ptr_equal(h, s);
		assert_true(s->due_ns > prev_due || (s->due_ns == prev_due && s->seq > prev_seq) ||
			    i == 0);
		prev_due = s->due_ns;
		prev_seq = s->seq;
		link_queue_release(&q, s);
	}
	assert_null(link_queue_pop(&q));
	assert_null(link_queue_head(&q));
	assert_int_equal(q.bytes, 0);
	assert_int_equal(q.overflows, 0);
	assert_int_equal(q.max_packets, n);
	link_queue_free(&q);
}

static void test_byte_limit(void **state)
{
	struct link_queue q;
	struct link_slot *s;

	(void)state;
	assert_int_equal(link_queue_init(&q, 4000, 1024, 1518), 0);
	assert_non_null(put(&q, 1500, 10, 1));
	assert_non_null(put(&q, 1500, 20, 2));
	assert_null(put(&q, 1500, 30, 3)); /* 4500 > 4000 */
	assert_int_equal(q.overflows, 1);
	assert_non_null(put(&q, 1000, 30, 4)); /* 4000 fits exactly */
	assert_null(put(&q, 1, 40, 5));
	assert_null(put(&q, 1519, 40, 6)); /* longer than a slot */
	assert_int_equal(q.overflows, 3);
	assert_int_equal(q.max_bytes, 4000);
	s = link_queue_pop(&q);
	assert_int_equal(s->data[0], 1);
	link_queue_release(&q, s);
	assert_non_null(put(&q, 1500, 5, 7)); /* room again */
	assert_int_equal(link_queue_pop(&q)->data[0], 7);
	link_queue_free(&q);
}

static void test_slot_limit(void **state)
{
	struct link_slot *out[16];
	struct link_queue q;

	(void)state;
	assert_int_equal(link_queue_init(&q, 1 << 20, 16, 1518), 0);
	for (unsigned i = 0; i < 16; i++)
		assert_non_null(put(&q, 64, i, (uint8_t)i));
	assert_null(put(&q, 64, 99, 99));
	assert_int_equal(q.overflows, 1);
	/* popped but not yet released slots are not free */
	for (unsigned i = 0; i < 16; i++)
		out[i] = link_queue_pop(&q);
	assert_null(put(&q, 64, 99, 99));
	assert_int_equal(q.overflows, 2);
	for (unsigned i = 0; i < 16; i++) {
		assert_int_equal(out[i]->data[0], i);
		link_queue_release(&q, out[i]);
	}
	assert_non_null(put(&q, 64, 99, 99));
	assert_int_equal(q.max_packets, 16);
	link_queue_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_due_order),
		cmocka_unit_test(test_byte_limit),
		cmocka_unit_test(test_slot_limit),
	};

	test_seed_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
