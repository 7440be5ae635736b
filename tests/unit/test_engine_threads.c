// SPDX-License-Identifier: MIT
/*
 * The engine under its real threading model: A seals in one thread while
 * another thread of A receives handshake responses and flushes, B receives
 * in one thread and sends replies in another, over lossy in-memory queues,
 * with a simulated clock running fast enough for several rekeys (every
 * REKEY_AFTER_TIME) and key expiries. Checks: no packet delivered corrupted
 * or twice, most packets delivered, sessions renewed. No timing assertion:
 * the clock is simulated, advanced by the sender. Meant for TSan as well.
 */
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "bytes.h"
#include "engine.h"
#include "key.h"
#include "timers.h"

#define QN	1024
#define BUF	1600
#define ITER	6000 /* batches of 8; 50 ms of simulated time each: 300 s */
#define STEP	(50 * NSEC_PER_MSEC)
#define SEQ_MAX (ITER * 8 * 4)

struct queue {
	pthread_mutex_t m;
	unsigned head, count;
	size_t len[QN];
	uint8_t buf[QN][BUF];
};

static void q_push(struct queue *q, const uint8_t *msg, size_t len)
{
	pthread_mutex_lock(&q->m);
	if (q->count < QN && len <= BUF) { /* else lost, like a full link */
		unsigned i = (q->head + q->count++) % QN;

		memcpy(q->buf[i], msg, len);
		q->len[i] = len;
	}
	pthread_mutex_unlock(&q->m);
}

static bool q_pop(struct queue *q, uint8_t *msg, size_t *len)
{
	bool ok = false;

	pthread_mutex_lock(&q->m);
	if (q->count) {
		memcpy(msg, q->buf[q->head], q->len[q->head]);
		*len = q->len[q->head];
		q->head = (q->head + 1) % QN;
		q->count--;
		ok = true;
	}
	pthread_mutex_unlock(&q->m);
	return ok;
}

static unsigned q_count(struct queue *q)
{
	unsigned n;

	pthread_mutex_lock(&q->m);
	n = q->count;
	pthread_mutex_unlock(&q->m);
	return n;
}

struct world {
	struct engine *a, *b;
	struct engine_peer *ab, *ba; /* a's view of b, b's view of a */
	struct queue *to_b, *to_a;
	_Atomic uint64_t clock;
	_Atomic bool done;
	_Atomic uint64_t delivered_b, delivered_a, corrupt, dup, sent, sealed;
	uint8_t *seen; /* by sequence number at b */
	pthread_mutex_t seen_lock;
};

static void make_pkt(uint8_t *ip, size_t len, uint32_t seq)
{
	memset(ip, (uint8_t)seq, len);
	ip[0] = 0x45;
	put_be16(ip + 2, (uint16_t)len);
	put_be32(ip + 20, seq);
}

/* Whole packet consistent with the sequence number it carries. */
static bool check_pkt(const uint8_t *ip, size_t len, uint32_t *seq)
{
	if (len < 24 || ip[0] != 0x45 || get_be16(ip + 2) != len)
		return false;
	*seq = get_be32(ip + 20);
	for (size_t i = 24; i < len; i++)
		if (ip[i] != (uint8_t)*seq)
			return false;
	return true;
}

static void send_ctrl(struct queue *q, const struct engine_result *res)
{
	if (res->ctrl_len)
		q_push(q, res->ctrl, res->ctrl_len);
}

static void flush(struct world *w, struct engine_peer *p, struct queue *q, uint64_t now)
{
	uint8_t buf[BUF];
	struct engine_pkt pkt = { .buf = buf, .cap = BUF };

	while (engine_flush(p, &pkt, now)) {
		q_push(q, pkt.buf, pkt.len);
		if (p == w->ab)
			atomic_fetch_add(&w->sealed, 1);
		pkt = (struct engine_pkt){ .buf = buf, .cap = BUF };
	}
}

/*
 * A's sender: batches of 8, the simulated clock advancing STEP per sealed
 * batch; while there is no session (handshake in flight) it waits, letting
 * time pass slowly so retransmits still happen.
 */
static void *a_tx(void *arg)
{
	struct world *w = arg;
	static uint8_t slots[8][BUF];
	struct engine_pkt pkts[8];
	struct engine_result res;
	uint32_t seq = 0, batches = 0;
	uint64_t now = atomic_load(&w->clock);

	while (batches < ITER && seq + 8 <= SEQ_MAX) {
		size_t n;

		while (q_count(w->to_b) > QN / 2)
			sched_yield(); /* let b catch up; b never blocks */
		for (uint32_t j = 0; j < 8; j++) {
			pkts[j] = (struct engine_pkt){ .buf = slots[j],
						       .len = 60 + j * 150,
						       .cap = BUF };
			make_pkt(slots[j] + ENGINE_HEADROOM, pkts[j].len, seq++);
		}
		n = engine_encapsulate(w->ab, pkts, 8, now, &res);
		send_ctrl(w->to_b, &res);
		if (res.flush)
			flush(w, w->ab, w->to_b, now);
		for (size_t j = 0; j < n; j++)
			q_push(w->to_b, pkts[j].buf, pkts[j].len);
		atomic_fetch_add(&w->sealed, n);
		engine_update_timers(w->ab, now, &res);
		send_ctrl(w->to_b, &res);
		if (n) {
			batches++;
			now = atomic_fetch_add(&w->clock, STEP) + STEP;
		} else {
			for (int i = 0; i < 50; i++)
				sched_yield();
			now = atomic_fetch_add(&w->clock, NSEC_PER_MSEC) + NSEC_PER_MSEC;
		}
	}
	atomic_store(&w->sent, seq);
	atomic_store(&w->done, true);
	return NULL;
}

/* A receiver thread for engine e, feeding answers to `back`. */
struct rx_arg {
	struct world *w;
	struct engine *e;
	struct queue *in, *back;
	bool is_b;
};

static void *rx(void *arg)
{
	struct rx_arg *r = arg;
	struct world *w = r->w;
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_port = htons(1) };
	uint8_t buf[BUF];
	size_t len;

	for (;;) {
		struct engine_result res;
		struct engine_pkt pkt;
		uint64_t now = atomic_load(&w->clock);
		uint32_t seq;

		if (!q_pop(r->in, buf, &len)) {
			if (atomic_load(&w->done) && !q_count(r->in))
				break;
			sched_yield();
			continue;
		}
		pkt = (struct engine_pkt){ .buf = buf, .len = len, .cap = BUF };
		if (engine_receive(r->e, &pkt, (struct sockaddr *)&src, sizeof(src), now, &res) ==
		    ENGINE_TO_TUNNEL) {
			if (!check_pkt(buf + ENGINE_HEADROOM, pkt.len, &seq)) {
				atomic_fetch_add(&w->corrupt, 1);
			} else if (r->is_b) {
				pthread_mutex_lock(&w->seen_lock);
				if (seq >= SEQ_MAX || w->seen[seq]++)
					atomic_fetch_add(&w->dup, 1);
				pthread_mutex_unlock(&w->seen_lock);
				atomic_fetch_add(&w->delivered_b, 1);
			} else {
				atomic_fetch_add(&w->delivered_a, 1);
			}
		}
		send_ctrl(r->back, &res);
		if (res.flush && res.peer)
			flush(w, res.peer, r->back, now);
	}
	return NULL;
}

/* B's sender: a reply now and then, and B's timers. */
static void *b_tx(void *arg)
{
	struct world *w = arg;
	uint8_t slot[BUF];
	uint32_t seq = 0;

	while (!atomic_load(&w->done)) {
		uint64_t now = atomic_load(&w->clock);
		struct engine_pkt pkt = { .buf = slot, .len = 100, .cap = BUF };
		struct engine_result res;

		make_pkt(slot + ENGINE_HEADROOM, 100, seq++);
		if (engine_encapsulate(w->ba, &pkt, 1, now, &res) == 1)
			q_push(w->to_a, pkt.buf, pkt.len);
		send_ctrl(w->to_a, &res);
		if (res.flush)
			flush(w, w->ba, w->to_a, now);
		engine_update_timers(w->ba, now, &res);
		send_ctrl(w->to_a, &res);
		for (int i = 0; i < 20; i++)
			sched_yield();
	}
	return NULL;
}

static void test_threads(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	uint8_t ka[32], kb[32], pa[32], pb[32];
	struct engine_config ca = { .private_key = ka, .mtu = 1420 },
			     cb = { .private_key = kb, .mtu = 1420 };
	struct engine_peer_stats st;
	struct rx_arg ra, rb;
	pthread_t t[4];

	(void)state;
	w->to_a = calloc(1, sizeof(*w->to_a));
	w->to_b = calloc(1, sizeof(*w->to_b));
	w->seen = calloc(SEQ_MAX, 1);
	pthread_mutex_init(&w->to_a->m, NULL);
	pthread_mutex_init(&w->to_b->m, NULL);
	pthread_mutex_init(&w->seen_lock, NULL);
	atomic_store(&w->clock, clock_now_ns());
	key_generate(ka);
	key_generate(kb);
	assert_int_equal(engine_new(&ca, &w->a), 0);
	assert_int_equal(engine_new(&cb, &w->b), 0);
	engine_public_key(w->a, pa);
	engine_public_key(w->b, pb);
	assert_int_equal(
		engine_peer_add(w->a, &(struct engine_peer_config){ .public_key = pb }, &w->ab), 0);
	assert_int_equal(
		engine_peer_add(w->b, &(struct engine_peer_config){ .public_key = pa }, &w->ba), 0);
	ra = (struct rx_arg){ .w = w, .e = w->a, .in = w->to_a, .back = w->to_b, .is_b = false };
	rb = (struct rx_arg){ .w = w, .e = w->b, .in = w->to_b, .back = w->to_a, .is_b = true };
	pthread_create(&t[0], NULL, rx, &ra);
	pthread_create(&t[1], NULL, rx, &rb);
	pthread_create(&t[2], NULL, b_tx, w);
	pthread_create(&t[3], NULL, a_tx, w);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);

	print_message("  delivered to b %llu of %llu sealed (%llu written), to a %llu\n",
		      (unsigned long long)atomic_load(&w->delivered_b),
		      (unsigned long long)atomic_load(&w->sealed),
		      (unsigned long long)atomic_load(&w->sent),
		      (unsigned long long)atomic_load(&w->delivered_a));
	assert_int_equal(atomic_load(&w->corrupt), 0);
	assert_int_equal(atomic_load(&w->dup), 0);
	/* Sealed packets arrive, except a few caught in a key rotation. */
	assert_true(atomic_load(&w->delivered_b) >= atomic_load(&w->sealed) * 9 / 10);
	assert_true(atomic_load(&w->sealed) >= ITER * 8);
	assert_true(atomic_load(&w->delivered_a) > 0);
	engine_peer_stats(w->ab, atomic_load(&w->clock), &st);
	print_message("  a: %llu sessions\n", (unsigned long long)st.handshakes);
	/* 300 simulated seconds: the first session and at least one rekey. */
	assert_true(st.handshakes >= 2);
	engine_free(w->a);
	engine_free(w->b);
	free(w->to_a);
	free(w->to_b);
	free(w->seen);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
	};

	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
