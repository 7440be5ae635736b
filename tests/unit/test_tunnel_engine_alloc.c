// SPDX-License-Identifier: MIT
/*
 * Allocation in the tunnel engine (tunnel/engine.c), with malloc/calloc/
 * realloc/free, sodium_malloc/sodium_free and pthread mutex/rwlock
 * init/destroy interposed:
 *  - no allocation per packet: allocations are counted while two engines
 *    complete handshakes (rekeys included) and move thousands of packets
 *    both ways with staging and flushes; the only ones allowed are at setup
 *    (engine_new, engine_peer_add). Skipped under AddressSanitizer, which
 *    owns malloc.
 *  - engine_new() undoes every step when a later one fails: each resource it
 *    takes fails in turn, and whatever it had taken must be given back. Under
 *    AddressSanitizer the heap is left to LeakSanitizer; the sodium and
 *    pthread resources are checked here in both builds.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "bytes.h"
#include "tunnel_engine.h"
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

/*
 * Resource tracking for the unwind test, single-threaded: while `tracking`,
 * every resource taken is recorded by address and struck off when given back,
 * and the fail_in-th one taken (1 = the next) fails instead.
 */
enum res_kind { RES_HEAP, RES_SODIUM, RES_MUTEX, RES_RWLOCK, RES__COUNT };
static const char *const res_names[RES__COUNT] = { "heap block", "sodium_malloc block", "mutex",
						   "rwlock" };
#define RES_MAX 64
static bool tracking;
static unsigned fail_in;
static const void *live[RES__COUNT][RES_MAX];

/* True when this acquisition must fail. */
static bool take_fails(void)
{
	return tracking && fail_in && --fail_in == 0;
}

static void res_taken(enum res_kind k, const void *p)
{
	if (!tracking || !p)
		return;
	for (int i = 0; i < RES_MAX; i++)
		if (!live[k][i]) {
			live[k][i] = p;
			return;
		}
}

static void res_given(enum res_kind k, const void *p)
{
	for (int i = 0; p && i < RES_MAX; i++)
		if (live[k][i] == p)
			live[k][i] = NULL;
}

static unsigned res_live(enum res_kind k)
{
	unsigned n = 0;

	for (int i = 0; i < RES_MAX; i++)
		n += live[k][i] != NULL;
	return n;
}

static void *next_sym(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f)
		abort();
	return f;
}

#ifndef NO_INTERPOSE
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

void *malloc(size_t n)
{
	void *p;

	if (atomic_load(&counting))
		atomic_fetch_add(&allocations, 1);
	if (take_fails())
		return NULL;
	p = __libc_malloc(n);
	res_taken(RES_HEAP, p);
	return p;
}

void *calloc(size_t n, size_t m)
{
	void *p;

	if (atomic_load(&counting))
		atomic_fetch_add(&allocations, 1);
	if (take_fails())
		return NULL;
	p = __libc_calloc(n, m);
	res_taken(RES_HEAP, p);
	return p;
}

void *realloc(void *p, size_t n)
{
	if (atomic_load(&counting))
		atomic_fetch_add(&allocations, 1);
	return __libc_realloc(p, n);
}

void free(void *p)
{
	res_given(RES_HEAP, p);
	__libc_free(p);
}
#endif

void *sodium_malloc(size_t n)
{
	static void *(*real)(size_t);
	void *p;

	if (!real)
		real = (void *(*)(size_t))next_sym("sodium_malloc");
	if (take_fails())
		return NULL;
	p = real(n);
	res_taken(RES_SODIUM, p);
	return p;
}

void sodium_free(void *p)
{
	static void (*real)(void *);

	if (!real)
		real = (void (*)(void *))next_sym("sodium_free");
	res_given(RES_SODIUM, p);
	real(p);
}

int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
	static int (*real)(pthread_mutex_t *, const pthread_mutexattr_t *);
	int rc;

	if (!real)
		real = (int (*)(pthread_mutex_t *, const pthread_mutexattr_t *))next_sym(
			"pthread_mutex_init");
	if (take_fails())
		return EAGAIN;
	rc = real(m, a);
	if (rc == 0)
		res_taken(RES_MUTEX, m);
	return rc;
}

int pthread_mutex_destroy(pthread_mutex_t *m)
{
	static int (*real)(pthread_mutex_t *);

	if (!real)
		real = (int (*)(pthread_mutex_t *))next_sym("pthread_mutex_destroy");
	res_given(RES_MUTEX, m);
	return real(m);
}

int pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *a)
{
	static int (*real)(pthread_rwlock_t *, const pthread_rwlockattr_t *);
	int rc;

	if (!real)
		real = (int (*)(pthread_rwlock_t *, const pthread_rwlockattr_t *))next_sym(
			"pthread_rwlock_init");
	if (take_fails())
		return EAGAIN;
	rc = real(l, a);
	if (rc == 0)
		res_taken(RES_RWLOCK, l);
	return rc;
}

int pthread_rwlock_destroy(pthread_rwlock_t *l)
{
	static int (*real)(pthread_rwlock_t *);

	if (!real)
		real = (int (*)(pthread_rwlock_t *))next_sym("pthread_rwlock_destroy");
	res_given(RES_RWLOCK, l);
	return real(l);
}

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

		engine_peer_stats(a.p, now, &st);
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

static void assert_all_given_back(unsigned step)
{
	for (int k = 0; k < RES__COUNT; k++)
		if (res_live(k))
			fail_msg("engine_new failing at resource %u: %u %s(s) not given back", step,
				 res_live(k), res_names[k]);
}

/* Every resource engine_new() takes fails in turn (the first, the second, ...)
 * until it succeeds; after each failure nothing it took is still held. */
static void test_new_unwinds(void **state)
{
	uint8_t priv[32];
	struct engine_config cfg = { .private_key = priv, .mtu = 1420 };
	unsigned step, failed = 0;

	(void)state;
	key_generate(priv);
	for (step = 1; step < 100; step++) {
		struct engine *e = NULL;
		int rc;

		memset(live, 0, sizeof(live));
		fail_in = step;
		tracking = true;
		rc = engine_new(&cfg, &e);
		tracking = false;
		if (fail_in == 0 && rc == 0)
			fail_msg("resource %u failed, yet engine_new succeeded", step);
		if (rc == 0) {
			assert_non_null(e);
			tracking = true;
			engine_free(e);
			tracking = false;
			assert_all_given_back(step);
			break;
		}
		assert_true(rc == -ENOMEM || rc == -EAGAIN);
		assert_null(e);
		assert_all_given_back(step);
		failed++;
	}
	fail_in = 0;
	print_message("  engine_new unwound from %u failure points\n", failed);
	/* The sodium blocks, the locks and (without ASan) the heap blocks. */
	assert_true(failed >= 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_allocation),
		cmocka_unit_test(test_new_unwinds),
	};

	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
