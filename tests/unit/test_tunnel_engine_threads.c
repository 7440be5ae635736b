// SPDX-License-Identifier: MIT
/*
 * The tunnel engine (tunnel/engine.c) under its real threading model: A
 * seals in one thread while another thread of A receives handshake
 * responses and flushes, B receives in one thread and sends replies in
 * another, over in-memory queues, with a simulated clock running fast
 * enough for several rekeys (every REKEY_AFTER_TIME). Meant for TSan as well.
 *
 * The outcome depends on nothing the scheduler decides: the clock is
 * simulated and advanced by A's sender only once the receivers have taken
 * every datagram queued before the batch (so no timer fires because a thread
 * was slow), and B's sender holds back while A's queue is half full (so,
 * with A's sender a step ahead at most, no queue fills and no datagram is
 * lost on the way). Checked: every packet B delivers is intact,
 * one that A wrote, and delivered once; every packet A wrote is accounted
 * for: sealed = delivered + dropped by B (by reason, only the reasons a key
 * rotation explains) + still queued, and written = sealed + dropped by A +
 * still staged (at most ENGINE_STAGED_MAX); sessions were renewed and B's
 * replies reached A.
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
#include "tunnel_engine.h"
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
	uint64_t pushed, handled;	/* datagrams in, and fully handled by the receiver */
	uint64_t lost_data, lost_other; /* dropped because full (never, see above) */
	size_t len[QN];
	uint8_t buf[QN][BUF];
};

/* A data message with a packet in it (not a keepalive, not a handshake). */
static bool carries_packet(const uint8_t *msg, size_t len)
{
	return len > WIRE_DATA_MIN_LEN && get_le32(msg) == WIRE_TYPE_DATA;
}

static void q_push(struct queue *q, const uint8_t *msg, size_t len)
{
	pthread_mutex_lock(&q->m);
	if (q->count < QN && len <= BUF) {
		unsigned i = (q->head + q->count++) % QN;

		memcpy(q->buf[i], msg, len);
		q->len[i] = len;
		q->pushed++;
	} else if (carries_packet(msg, len)) {
		q->lost_data++;
	} else {
		q->lost_other++;
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

static uint64_t q_pushed(struct queue *q)
{
	uint64_t n;

	pthread_mutex_lock(&q->m);
	n = q->pushed;
	pthread_mutex_unlock(&q->m);
	return n;
}

/* The receiver is done with the datagram it took (and with what it sent back). */
static void q_handled(struct queue *q)
{
	pthread_mutex_lock(&q->m);
	q->handled++;
	pthread_mutex_unlock(&q->m);
}

/* Until the receiver handled every datagram pushed before `mark`. */
static void q_wait_handled(struct queue *q, uint64_t mark)
{
	for (;;) {
		uint64_t handled;

		pthread_mutex_lock(&q->m);
		handled = q->handled;
		pthread_mutex_unlock(&q->m);
		if (handled >= mark)
			return;
		sched_yield();
	}
}

struct world {
	struct engine *a, *b;
	struct engine_peer *ab, *ba; /* a's view of b, b's view of a */
	struct queue *to_b, *to_a;
	_Atomic uint64_t clock;
	_Atomic bool a_done, b_done;
	_Atomic uint64_t delivered_b, delivered_a, corrupt, dup, sent, sealed, replies;
	/* what became of A's packets at B, and of every datagram at A, by reason */
	_Atomic uint64_t b_data_drops[ENGINE_DROP__COUNT], b_data_done;
	_Atomic uint64_t a_rx_drops[ENGINE_DROP__COUNT];
	uint8_t *seen; /* by sequence number at b */
	uint32_t max_seq;
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
 * batch (1 ms while no session lets retransmits happen). Time moves on only
 * once both receivers handled everything queued before the batch: a
 * datagram is handled within two steps of simulated time, so the engine's
 * timers (REKEY_TIMEOUT is 100 steps) never see a slow thread, only the
 * protocol. The receivers still run concurrently with the sealing.
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
		uint64_t mark_b = q_pushed(w->to_b), mark_a = q_pushed(w->to_a);
		size_t n;

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
		q_wait_handled(w->to_b, mark_b);
		q_wait_handled(w->to_a, mark_a);
		if (n) {
			batches++;
			now = atomic_fetch_add(&w->clock, STEP) + STEP;
		} else {
			now = atomic_fetch_add(&w->clock, NSEC_PER_MSEC) + NSEC_PER_MSEC;
		}
	}
	atomic_store(&w->sent, seq);
	atomic_store(&w->a_done, true);
	return NULL;
}

/* A receiver thread for engine e, feeding answers to `back`. */
struct rx_arg {
	struct world *w;
	struct engine *e;
	struct queue *in, *back;
	_Atomic bool *until; /* stop once this is set and `in` is empty */
	bool is_b;
};

/* At B, one of A's packets came out of the engine as op (res->drop). */
static void b_outcome(struct world *w, const uint8_t *buf, size_t len, enum engine_op op,
		      const struct engine_result *res)
{
	uint32_t seq;

	if (op == ENGINE_DROP) {
		atomic_fetch_add(&w->b_data_drops[res->drop], 1);
		return;
	}
	if (op != ENGINE_TO_TUNNEL) {
		atomic_fetch_add(&w->b_data_done, 1);
		return;
	}
	atomic_fetch_add(&w->delivered_b, 1);
	if (!check_pkt(buf + ENGINE_HEADROOM, len, &seq)) {
		atomic_fetch_add(&w->corrupt, 1);
		return;
	}
	pthread_mutex_lock(&w->seen_lock);
	if (seq >= SEQ_MAX || w->seen[seq]++)
		atomic_fetch_add(&w->dup, 1);
	else if (seq > w->max_seq)
		w->max_seq = seq;
	pthread_mutex_unlock(&w->seen_lock);
}

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
		enum engine_op op;
		bool data;

		if (!q_pop(r->in, buf, &len)) {
			if (atomic_load(r->until) && !q_count(r->in))
				break;
			sched_yield();
			continue;
		}
		data = carries_packet(buf, len);
		pkt = (struct engine_pkt){ .buf = buf, .len = len, .cap = BUF };
		op = engine_receive(r->e, &pkt, (struct sockaddr *)&src, sizeof(src), now, &res);
		if (r->is_b && data) {
			b_outcome(w, buf, pkt.len, op, &res);
		} else if (!r->is_b) {
			if (op == ENGINE_DROP)
				atomic_fetch_add(&w->a_rx_drops[res.drop], 1);
			if (op == ENGINE_TO_TUNNEL)
				atomic_fetch_add(&w->delivered_a, 1);
		}
		send_ctrl(r->back, &res);
		if (res.flush && res.peer)
			flush(w, res.peer, r->back, now);
		q_handled(r->in);
	}
	return NULL;
}

/* B's sender: a reply now and then (held back while A's queue is half full,
 * so that it never fills), and B's timers; on until A is done and one reply
 * at least went out. */
static void *b_tx(void *arg)
{
	struct world *w = arg;
	uint8_t slot[BUF];
	uint32_t seq = 0;

	while (!atomic_load(&w->a_done) || !atomic_load(&w->replies)) {
		uint64_t now = atomic_load(&w->clock);
		struct engine_pkt pkt = { .buf = slot, .len = 100, .cap = BUF };
		struct engine_result res;

		for (int i = 0; i < 20; i++)
			sched_yield();
		if (q_count(w->to_a) > QN / 2)
			continue;
		make_pkt(slot + ENGINE_HEADROOM, 100, seq++);
		if (engine_encapsulate(w->ba, &pkt, 1, now, &res) == 1) {
			q_push(w->to_a, pkt.buf, pkt.len);
			atomic_fetch_add(&w->replies, 1);
		}
		send_ctrl(w->to_a, &res);
		if (res.flush)
			flush(w, w->ba, w->to_a, now);
		engine_update_timers(w->ba, now, &res);
		send_ctrl(w->to_a, &res);
	}
	atomic_store(&w->b_done, true);
	return NULL;
}

/* Datagrams with a packet still in q after every thread ended. */
static uint64_t q_left_data(struct queue *q)
{
	uint8_t buf[BUF];
	uint64_t n = 0;
	size_t len;

	while (q_pop(q, buf, &len))
		n += carries_packet(buf, len);
	return n;
}

static void print_drops(const char *who, _Atomic uint64_t *d)
{
	for (int r = 1; r < ENGINE_DROP__COUNT; r++)
		if (atomic_load(&d[r]))
			print_message("  %s dropped %llu: %s\n", who,
				      (unsigned long long)atomic_load(&d[r]),
				      engine_drop_name((enum engine_drop)r));
}

/* Every packet A wrote is sealed, dropped by A's engine (counted by reason)
 * or still staged; every sealed one is delivered, dropped by B's engine,
 * lost in a queue or still queued. */
static void check_accounting(struct world *w)
{
	struct engine_stats sa;
	uint64_t b_drops = 0, a_tx_drops = 0, left = q_left_data(w->to_b), written, sealed;

	engine_stats(w->a, atomic_load(&w->clock), &sa);
	for (int r = 1; r < ENGINE_DROP__COUNT; r++) {
		b_drops += atomic_load(&w->b_data_drops[r]);
		a_tx_drops += sa.drops[r] - atomic_load(&w->a_rx_drops[r]);
	}
	written = atomic_load(&w->sent);
	sealed = atomic_load(&w->sealed);
	print_message("  A wrote %llu, sealed %llu, dropped %llu; B delivered %llu, dropped "
		      "%llu; queued at the end %llu; lost in queues %llu\n",
		      (unsigned long long)written, (unsigned long long)sealed,
		      (unsigned long long)a_tx_drops,
		      (unsigned long long)atomic_load(&w->delivered_b), (unsigned long long)b_drops,
		      (unsigned long long)left,
		      (unsigned long long)(w->to_b->lost_data + w->to_a->lost_data));
	print_drops("B", w->b_data_drops);
	assert_int_equal(sealed,
			 atomic_load(&w->delivered_b) + b_drops + w->to_b->lost_data + left);
	assert_true(written >= sealed + a_tx_drops);
	assert_true(written - sealed - a_tx_drops <= ENGINE_STAGED_MAX);
	/* the queues never filled: nothing lost on the way */
	assert_int_equal(w->to_b->lost_data + w->to_b->lost_other, 0);
	assert_int_equal(w->to_a->lost_data + w->to_a->lost_other, 0);
	/* no reason a key rotation does not explain: nothing forged, replayed,
	 * malformed or undecryptable in a lossless, in-order-per-thread path */
	for (int r = 1; r < ENGINE_DROP__COUNT; r++)
		if (r != ENGINE_DROP_KEY_EXPIRED && r != ENGINE_DROP_UNKNOWN_INDEX &&
		    atomic_load(&w->b_data_drops[r]))
			fail_msg("B dropped A's packets: %s",
				 engine_drop_name((enum engine_drop)r));
	assert_int_equal(atomic_load(&w->b_data_done), 0);
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
	ra = (struct rx_arg){ .w = w,
			      .e = w->a,
			      .in = w->to_a,
			      .back = w->to_b,
			      .until = &w->b_done,
			      .is_b = false };
	rb = (struct rx_arg){
		.w = w, .e = w->b, .in = w->to_b, .back = w->to_a, .until = &w->a_done, .is_b = true
	};
	pthread_create(&t[0], NULL, rx, &ra);
	pthread_create(&t[1], NULL, rx, &rb);
	pthread_create(&t[2], NULL, b_tx, w);
	pthread_create(&t[3], NULL, a_tx, w);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);

	assert_int_equal(atomic_load(&w->corrupt), 0);
	assert_int_equal(atomic_load(&w->dup), 0);
	/* in window: every packet delivered is one A wrote */
	assert_true(atomic_load(&w->delivered_b) > 0);
	assert_true(w->max_seq < atomic_load(&w->sent));
	assert_true(atomic_load(&w->sealed) >= ITER * 8);
	check_accounting(w);
	print_message(
		"  B -> A: %llu delivered (%llu replies sealed at once, others staged first)\n",
		(unsigned long long)atomic_load(&w->delivered_a),
		(unsigned long long)atomic_load(&w->replies));
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
