// SPDX-License-Identifier: MIT
/*
 * No allocation per packet: malloc/calloc/realloc/free are interposed and
 * counted while two engines complete handshakes (rekeys included) and move
 * thousands of packets both ways with staging and flushes. The only
 * allocations allowed are at setup (engine_new, engine_peer_add).
 * Skipped under AddressSanitizer, which owns malloc.
 */
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "bytes.h"
#include "engine.h"
#include "key.h"
#include "timers.h"

#if defined(__SANITIZE_ADDRESS__)
#define NO_INTERPOSE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
	__has_feature(memory_sanitizer)
#define NO_INTERPOSE 1
#endif
#endif

static _Atomic long allocations;
static _Atomic bool counting;

#ifndef NO_INTERPOSE
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);

void *malloc(size_t n)
{
	if (atomic_load(&counting))
		atomic_fetch_add(&allocations, 1);
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	if (atomic_load(&counting))
		atomic_fetch_add(&allocations, 1);
	return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	if (atomic_load(&counting))
		atomic_fetch_add(&allocations, 1);
	return __libc_realloc(p, n);
}
#endif

#define BUF 2048

struct side {
	struct engine *e;
	struct engine_peer *p;
	uint8_t pub[32];
};

static void deliver(struct side *to, uint8_t *msg, size_t len, uint64_t now, struct side *back,
		    int *delivered)
{
	static uint8_t buf[BUF], out[BUF];
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct engine_pkt pkt = { .buf = buf, .len = len, .cap = BUF };
	struct engine_result res;

	memcpy(buf, msg, len);
	if (engine_receive(to->e, &pkt, (struct sockaddr *)&src, sizeof(src), now, &res) ==
	    ENGINE_TO_TUNNEL)
		(*delivered)++;
	if (res.ctrl_len) {
		uint8_t ctrl[WIRE_CTRL_MAX_LEN];

		memcpy(ctrl, res.ctrl, res.ctrl_len);
		deliver(back, ctrl, res.ctrl_len, now, to, delivered);
	}
	if (res.flush) {
		struct engine_pkt o = { .buf = out, .cap = BUF };

		while (engine_flush(to->p, &o, now)) {
			deliver(back, o.buf, o.len, now, to, delivered);
			o = (struct engine_pkt){ .buf = out, .cap = BUF };
		}
	}
}

static void test_no_allocation(void **state)
{
	struct side a, b;
	uint8_t ka[32], kb[32];
	struct engine_config ca = { .private_key = ka, .mtu = 1420 },
			     cb = { .private_key = kb, .mtu = 1420 };
	static uint8_t slots[16][BUF];
	struct engine_pkt pkts[16];
	struct engine_result res;
	uint64_t now = clock_now_ns();
	int delivered = 0, sent = 0;

	(void)state;
#ifdef NO_INTERPOSE
	skip();
#endif
	key_generate(ka);
	key_generate(kb);
	assert_int_equal(engine_new(&ca, &a.e), 0);
	assert_int_equal(engine_new(&cb, &b.e), 0);
	engine_public_key(a.e, a.pub);
	engine_public_key(b.e, b.pub);
	assert_int_equal(
		engine_peer_add(a.e, &(struct engine_peer_config){ .public_key = b.pub }, &a.p), 0);
	assert_int_equal(
		engine_peer_add(b.e, &(struct engine_peer_config){ .public_key = a.pub }, &b.p), 0);

	atomic_store(&counting, true);
	for (int round = 0; round < 4000; round++, now += 100 * NSEC_PER_MSEC) {
		size_t n;

		for (int i = 0; i < 16; i++) {
			pkts[i] = (struct engine_pkt){ .buf = slots[i],
						       .len = 40 + (size_t)i * 80,
						       .cap = BUF };
			memset(slots[i] + ENGINE_HEADROOM, i, pkts[i].len);
			slots[i][ENGINE_HEADROOM] = 0x45;
			put_be16(slots[i] + ENGINE_HEADROOM + 2, (uint16_t)pkts[i].len);
		}
		n = engine_encapsulate(round % 2 ? b.p : a.p, pkts, 16, now, &res);
		if (res.ctrl_len) {
			uint8_t ctrl[WIRE_CTRL_MAX_LEN];

			memcpy(ctrl, res.ctrl, res.ctrl_len);
			deliver(round % 2 ? &a : &b, ctrl, res.ctrl_len, now, round % 2 ? &b : &a,
				&delivered);
		}
		for (size_t i = 0; i < n; i++, sent++)
			deliver(round % 2 ? &a : &b, pkts[i].buf, pkts[i].len, now,
				round % 2 ? &b : &a, &delivered);
		engine_update_timers(a.p, now, &res);
		if (res.ctrl_len)
			deliver(&b, res.ctrl, res.ctrl_len, now, &a, &delivered);
		engine_update_timers(b.p, now, &res);
		if (res.ctrl_len)
			deliver(&a, res.ctrl, res.ctrl_len, now, &b, &delivered);
	}
	atomic_store(&counting, false);
	{
		struct engine_peer_stats st;

		engine_peer_stats(a.p, &st);
		print_message("  %d sealed, %d delivered, %llu sessions, %ld allocations\n", sent,
			      delivered, (unsigned long long)st.handshakes,
			      atomic_load(&allocations));
		/* 400 simulated seconds: several rekeys happened inside the window. */
		assert_true(st.handshakes >= 3);
	}
	assert_true(delivered >= sent);
	assert_int_equal(atomic_load(&allocations), 0);
	engine_free(a.e);
	engine_free(b.e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_allocation),
	};

	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
