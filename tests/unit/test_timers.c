// SPDX-License-Identifier: MIT
/*
 * Timer decisions, table-driven: each scenario is a list of events at given
 * times and the actions timers_tick() must report at given times. Plus the
 * keypair age/counter decisions at their exact boundaries.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "timers.h"

#define S  NSEC_PER_SEC
#define MS NSEC_PER_MSEC
#define T0 (100 * S)

enum ev {
	END = 0,
	DATA_SENT,
	DATA_RECV,
	AUTH_SENT,
	AUTH_RECV,
	HS_INIT,
	HS_DONE,
	SESSION,
	TICK, /* expect: actions */
};

struct step {
	enum ev ev;
	uint64_t at; /* offset from T0 */
	unsigned expect;
};

struct scenario {
	const char *name;
	uint64_t persistent;
	struct step steps[16];
};

static const struct scenario scenarios[] = {
	{ "keepalive after receiving data and sending nothing",
	  0,
	  { { DATA_RECV, 0, 0 },
	    { TICK, KEEPALIVE_TIMEOUT_NS - 1, 0 },
	    { TICK, KEEPALIVE_TIMEOUT_NS, TIMERS_SEND_KEEPALIVE },
	    { TICK, 3 * KEEPALIVE_TIMEOUT_NS, 0 } } },
	{ "no keepalive when we sent something",
	  0,
	  { { DATA_RECV, 0, 0 }, { AUTH_SENT, S, 0 }, { TICK, 2 * KEEPALIVE_TIMEOUT_NS, 0 } } },
	{ "another keepalive when data kept coming",
	  0,
	  { { DATA_RECV, 0, 0 },
	    { DATA_RECV, S, 0 },
	    { TICK, KEEPALIVE_TIMEOUT_NS, TIMERS_SEND_KEEPALIVE },
	    { TICK, KEEPALIVE_TIMEOUT_NS + S, 0 },
	    { TICK, 2 * KEEPALIVE_TIMEOUT_NS, TIMERS_SEND_KEEPALIVE },
	    { TICK, 4 * KEEPALIVE_TIMEOUT_NS, 0 } } },
	{ "new handshake when data sent and nothing heard",
	  0,
	  { { DATA_SENT, 0, 0 },
	    { TICK, KEEPALIVE_TIMEOUT_NS + REKEY_TIMEOUT_NS - 1, 0 },
	    { TICK, KEEPALIVE_TIMEOUT_NS + REKEY_TIMEOUT_NS, TIMERS_SEND_INITIATION } } },
	{ "no new handshake when something was heard",
	  0,
	  { { DATA_SENT, 0, 0 }, { AUTH_RECV, 3 * S, 0 }, { TICK, 60 * S, 0 } } },
	{ "retransmits every REKEY_TIMEOUT then gives up",
	  0,
	  { { HS_INIT, 0, 0 },
	    { TICK, REKEY_TIMEOUT_NS - 1, 0 },
	    { TICK, REKEY_TIMEOUT_NS, TIMERS_RETRY_INITIATION },
	    { TICK, REKEY_TIMEOUT_NS + S, 0 },
	    { TICK, 2 * REKEY_TIMEOUT_NS, TIMERS_RETRY_INITIATION } } },
	{ "handshake complete stops retransmits",
	  0,
	  { { HS_INIT, 0, 0 }, { HS_DONE, S, 0 }, { TICK, 10 * REKEY_TIMEOUT_NS, 0 } } },
	{ "keys zeroed 3 * REJECT_AFTER_TIME after the last session",
	  0,
	  { { SESSION, 0, 0 },
	    { TICK, 3 * REJECT_AFTER_TIME_NS - 1, 0 },
	    { TICK, 3 * REJECT_AFTER_TIME_NS, TIMERS_ZERO_KEYS },
	    { TICK, 6 * REJECT_AFTER_TIME_NS, 0 } } },
	{ "a new session pushes zeroing back",
	  0,
	  { { SESSION, 0, 0 },
	    { SESSION, 100 * S, 0 },
	    { TICK, 3 * REJECT_AFTER_TIME_NS, 0 },
	    { TICK, 3 * REJECT_AFTER_TIME_NS + 100 * S, TIMERS_ZERO_KEYS } } },
	{ "persistent keepalive after any traffic",
	  25 * S,
	  { { AUTH_SENT, 0, 0 },
	    { TICK, 25 * S - 1, 0 },
	    { TICK, 25 * S, TIMERS_SEND_KEEPALIVE },
	    { TICK, 60 * S, 0 } } },
};

static void test_scenarios(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		const struct scenario *sc = &scenarios[i];
		struct timers t;

		timers_init(&t, sc->persistent);
		for (const struct step *s = sc->steps; s->ev != END; s++) {
			uint64_t now = T0 + s->at;
			unsigned got;

			switch (s->ev) {
			case DATA_SENT:
				timers_on_data_sent(&t, now, 0);
				break;
			case DATA_RECV:
				timers_on_data_received(&t, now);
				break;
			case AUTH_SENT:
				timers_on_any_authenticated_sent(&t, now);
				timers_on_any_authenticated_traversal(&t, now);
				break;
			case AUTH_RECV:
				timers_on_any_authenticated_received(&t, now);
				timers_on_any_authenticated_traversal(&t, now);
				break;
			case HS_INIT:
				timers_on_handshake_initiated(&t, now, 0);
				break;
			case HS_DONE:
				timers_on_handshake_complete(&t);
				break;
			case SESSION:
				timers_on_session_derived(&t, now);
				break;
			case TICK:
				got = timers_tick(&t, now, 0);
				if (got != s->expect)
					fail_msg("%s: step %td at +%llu ns: got %#x want %#x",
						 sc->name, s - sc->steps, (unsigned long long)s->at,
						 got, s->expect);
				break;
			case END:
				break;
			}
		}
	}
}

static void test_give_up_count(void **state)
{
	struct timers t;
	uint64_t now = T0;
	unsigned retries = 0, act;

	(void)state;
	timers_init(&t, 0);
	timers_on_handshake_initiated(&t, now, 0);
	for (;;) {
		now = timers_next_deadline(&t);
		assert_true(now != UINT64_MAX);
		act = timers_tick(&t, now, 0);
		if (act & TIMERS_GIVE_UP)
			break;
		assert_int_equal(act, TIMERS_RETRY_INITIATION);
		retries++;
	}
	assert_int_equal(retries, MAX_TIMER_HANDSHAKES);
	assert_int_equal(now - T0, (MAX_TIMER_HANDSHAKES + 1) * REKEY_TIMEOUT_NS);
	/* After giving up only key zeroing is left. */
	assert_int_equal(timers_next_deadline(&t), now + 3 * REJECT_AFTER_TIME_NS);
}

static void test_keypair_decisions(void **state)
{
	(void)state;
	assert_true(timers_keypair_valid(T0, T0 + REJECT_AFTER_TIME_NS - 1, 0));
	assert_false(timers_keypair_valid(T0, T0 + REJECT_AFTER_TIME_NS, 0));
	assert_true(timers_keypair_valid(T0, T0, REJECT_AFTER_MESSAGES - 1));
	assert_false(timers_keypair_valid(T0, T0, REJECT_AFTER_MESSAGES));
	assert_int_equal(REJECT_AFTER_MESSAGES, UINT64_MAX - 8192); /* 2^64 - 2^13 - 1 */

	assert_false(timers_want_rekey_on_send(true, T0, T0 + REKEY_AFTER_TIME_NS, 0));
	assert_true(timers_want_rekey_on_send(true, T0, T0 + REKEY_AFTER_TIME_NS + 1, 0));
	assert_false(timers_want_rekey_on_send(false, T0, T0 + REKEY_AFTER_TIME_NS + 1, 0));
	assert_false(timers_want_rekey_on_send(false, T0, T0, REKEY_AFTER_MESSAGES));
	assert_true(timers_want_rekey_on_send(false, T0, T0, REKEY_AFTER_MESSAGES + 1));

	{
		struct timers t;

		timers_init(&t, 0);
		assert_false(timers_want_rekey_on_recv(&t, true, T0, T0 + REKEY_ON_RECV_AGE_NS));
		assert_true(timers_want_rekey_on_recv(&t, true, T0, T0 + REKEY_ON_RECV_AGE_NS + 1));
		assert_false(
			timers_want_rekey_on_recv(&t, false, T0, T0 + REKEY_ON_RECV_AGE_NS + 1));
		t.sent_lastminute_handshake = true;
		assert_false(
			timers_want_rekey_on_recv(&t, true, T0, T0 + REKEY_ON_RECV_AGE_NS + 1));
	}
	assert_true(timers_initiation_allowed(0, T0));
	assert_false(timers_initiation_allowed(T0, T0 + REKEY_TIMEOUT_NS - 1));
	assert_true(timers_initiation_allowed(T0, T0 + REKEY_TIMEOUT_NS));
	for (uint32_t r = 0; r < 100000; r += 997)
		assert_true(timers_jitter(r * 2654435761u) < REKEY_TIMEOUT_JITTER_MAX_NS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenarios),
		cmocka_unit_test(test_give_up_count),
		cmocka_unit_test(test_keypair_decisions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
