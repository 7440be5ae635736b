// SPDX-License-Identifier: MIT
/* Protocol timers as pure state transitions over deadlines (see timers.h). */
#include <string.h>

#include "timers.h"

void timers_init(struct timers *t, uint64_t persistent_keepalive_ns)
{
	memset(t, 0, sizeof(*t));
	t->persistent_interval = persistent_keepalive_ns;
}

uint64_t timers_jitter(uint32_t random)
{
	return (uint64_t)random % REKEY_TIMEOUT_JITTER_MAX_NS;
}

void timers_on_data_sent(struct timers *t, uint64_t now, uint64_t jitter)
{
	if (!t->new_handshake_at)
		t->new_handshake_at = now + KEEPALIVE_TIMEOUT_NS + REKEY_TIMEOUT_NS + jitter;
}

void timers_on_data_received(struct timers *t, uint64_t now)
{
	if (!t->keepalive_at)
		t->keepalive_at = now + KEEPALIVE_TIMEOUT_NS;
	else
		t->need_another_keepalive = true;
}

void timers_on_any_authenticated_sent(struct timers *t, uint64_t now)
{
	(void)now;
	t->keepalive_at = 0;
}

void timers_on_any_authenticated_received(struct timers *t, uint64_t now)
{
	(void)now;
	t->new_handshake_at = 0;
}

void timers_on_any_authenticated_traversal(struct timers *t, uint64_t now)
{
	if (t->persistent_interval)
		t->persistent_at = now + t->persistent_interval;
}

void timers_on_handshake_initiated(struct timers *t, uint64_t now, uint64_t jitter)
{
	t->retransmit_at = now + REKEY_TIMEOUT_NS + jitter;
}

void timers_on_handshake_complete(struct timers *t)
{
	t->retransmit_at = 0;
	t->handshake_attempts = 0;
	t->sent_lastminute_handshake = false;
}

void timers_on_session_derived(struct timers *t, uint64_t now)
{
	t->zero_keys_at = now + 3 * REJECT_AFTER_TIME_NS;
}

static bool due(uint64_t deadline, uint64_t now)
{
	return deadline && deadline <= now;
}

unsigned timers_tick(struct timers *t, uint64_t now, uint64_t jitter)
{
	unsigned act = 0;

	if (due(t->retransmit_at, now)) {
		if (t->handshake_attempts >= MAX_TIMER_HANDSHAKES) {
			/* Gave up after REKEY_ATTEMPT_TIME: stop retrying and keepalives. */
			t->retransmit_at = 0;
			t->keepalive_at = 0;
			t->handshake_attempts = 0;
			act |= TIMERS_GIVE_UP;
			if (!t->zero_keys_at)
				t->zero_keys_at = now + 3 * REJECT_AFTER_TIME_NS;
		} else {
			t->handshake_attempts++;
			t->retransmit_at = now + REKEY_TIMEOUT_NS + jitter;
			act |= TIMERS_RETRY_INITIATION;
		}
	}
	if (due(t->keepalive_at, now)) {
		act |= TIMERS_SEND_KEEPALIVE;
		t->keepalive_at = 0;
		if (t->need_another_keepalive) {
			t->need_another_keepalive = false;
			t->keepalive_at = now + KEEPALIVE_TIMEOUT_NS;
		}
	}
	if (due(t->new_handshake_at, now)) {
		t->new_handshake_at = 0;
		act |= TIMERS_SEND_INITIATION;
	}
	if (due(t->persistent_at, now)) {
		t->persistent_at = 0;
		act |= TIMERS_SEND_KEEPALIVE;
	}
	if (due(t->zero_keys_at, now)) {
		t->zero_keys_at = 0;
		act |= TIMERS_ZERO_KEYS;
	}
	return act;
}

uint64_t timers_next_deadline(const struct timers *t)
{
	uint64_t d[] = { t->retransmit_at, t->keepalive_at, t->new_handshake_at, t->zero_keys_at,
			 t->persistent_at };
	uint64_t best = UINT64_MAX;

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (d[i] && d[i] < best)
			best = d[i];
	return best;
}

bool timers_keypair_valid(uint64_t created, uint64_t now, uint64_t counter)
{
	return counter < REJECT_AFTER_MESSAGES && timers_age(now, created) < REJECT_AFTER_TIME_NS;
}

bool timers_want_rekey_on_send(bool initiator, uint64_t created, uint64_t now, uint64_t counter)
{
	return counter > REKEY_AFTER_MESSAGES ||
	       (initiator && timers_age(now, created) > REKEY_AFTER_TIME_NS);
}

bool timers_want_rekey_on_recv(const struct timers *t, bool initiator, uint64_t created,
			       uint64_t now)
{
	return initiator && !t->sent_lastminute_handshake &&
	       timers_age(now, created) > REKEY_ON_RECV_AGE_NS;
}

bool timers_initiation_allowed(uint64_t last_initiation_sent, uint64_t now)
{
	return last_initiation_sent == 0 ||
	       (now >= last_initiation_sent && now - last_initiation_sent >= REKEY_TIMEOUT_NS);
}
