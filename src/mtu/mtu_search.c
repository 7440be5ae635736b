// SPDX-License-Identifier: MIT
/*
 * Packetization-layer path MTU search in the manner of RFC 8899 (DPLPMTUD):
 * confirm a base size, try the interface MTU, then narrow the gap between the
 * largest confirmed size and the smallest failed one. A size is confirmed by
 * one delivered probe; it fails on an ICMP too-big or a local refusal, or
 * when two rounds of probes went unconfirmed, so a single lost probe (or a
 * whole round lost in a burst) is never a verdict. An ICMP too-big is only a hint (RFC 8899 4.6):
 * the size it announces is probed next and the size above it too, so a wrong hint cannot make the
 * answer wrong.
 *
 * Pure: no sockets, no clock. The driver asks mtu_search_next() what to send
 * and feeds the outcome back; tests drive it with simulated paths.
 */
#include <string.h>

#include "mtu.h"

bool mtu_search_init(struct mtu_search *s, const struct mtu_search_cfg *cfg)
{
	memset(s, 0, sizeof(*s));
	if (!cfg || cfg->max < MTU_MIN_SIZE)
		return false;
	s->cfg = *cfg;
	if (s->cfg.max > MTU_MAX_SIZE)
		s->cfg.max = MTU_MAX_SIZE;
	if (s->cfg.base < MTU_MIN_SIZE)
		s->cfg.base = MTU_MIN_SIZE;
	if (s->cfg.base > s->cfg.max)
		s->cfg.base = s->cfg.max;
	if (s->cfg.probes < 1)
		s->cfg.probes = 1;
	if (s->cfg.probes > MTU_MAX_PROBES)
		s->cfg.probes = MTU_MAX_PROBES;
	s->state = MTU_SEARCH_BASE;
	s->hi = s->cfg.max + 1;
	s->cur = s->cfg.base;
	return true;
}

bool mtu_search_next(const struct mtu_search *s, struct mtu_step *step)
{
	if (s->state != MTU_SEARCH_BASE && s->state != MTU_SEARCH_RUNNING)
		return false;
	step->size = s->cur;
	step->count = s->cfg.probes;
	return true;
}

static void set_cur(struct mtu_search *s, uint32_t size)
{
	s->cur = size;
	s->cur_sent = 0;
	s->cur_delivered = 0;
}

/* Chooses the next size, or ends the search when the gap is closed. */
static void choose_next(struct mtu_search *s, bool confirmed_hint)
{
	uint32_t lo = s->lo, hi = s->hi;

	if (hi <= lo + 1) {
		s->state = MTU_SEARCH_DONE;
		return;
	}
	if (confirmed_hint && lo + 1 < hi) {
		/* The hint was right or low: the size just above tells which. */
		set_cur(s, lo + 1);
		return;
	}
	if (s->hint > lo && s->hint < hi) {
		set_cur(s, s->hint);
		return;
	}
	if (hi == s->cfg.max + 1) {
		/* Nothing failed yet: most paths carry the interface MTU. */
		set_cur(s, s->cfg.max);
		return;
	}
	set_cur(s, lo + (hi - lo) / 2);
}

static void confirm(struct mtu_search *s)
{
	bool was_hint = s->hint && s->cur == s->hint;

	if (s->cur_sent > s->cur_delivered)
		s->loss_seen = true;
	if (was_hint)
		s->hint = 0;
	s->lo = s->cur;
	s->state = MTU_SEARCH_RUNNING;
	choose_next(s, was_hint);
}

static void fail(struct mtu_search *s, bool icmp, bool local)
{
	if (s->hint == s->cur)
		s->hint = 0;
	if (icmp)
		s->icmp_failures++;
	else if (!local)
		s->silent_failures++;
	s->hi = s->cur;
	if (s->state == MTU_SEARCH_BASE) {
		s->state = MTU_SEARCH_BASE_FAILED;
		return;
	}
	choose_next(s, false);
}

static void record(struct mtu_search *s, const struct mtu_outcome *o)
{
	struct mtu_probe_record *r;

	if (s->nrecords >= MTU_MAX_RECORDS)
		return;
	r = &s->records[s->nrecords++];
	r->size = o->size;
	r->sent = o->sent;
	r->delivered = o->delivered;
	r->icmp = o->icmp;
	r->icmp_mtu = o->icmp_mtu;
	r->local_too_big = o->local_too_big;
	r->refused = o->refused;
	r->refused_errno = o->refused_errno;
	r->fragmented = o->fragmented;
}

void mtu_search_feed(struct mtu_search *s, const struct mtu_outcome *o)
{
	unsigned needed;

	if (!o || o->size != s->cur ||
	    (s->state != MTU_SEARCH_BASE && s->state != MTU_SEARCH_RUNNING))
		return;
	record(s, o);
	s->rounds++;
	s->probes_sent += o->sent;
	s->probes_delivered += o->delivered < o->sent ? o->delivered : o->sent;
	s->probes_refused += o->refused < o->sent ? o->refused : o->sent;
	if (o->refused)
		s->refused_errno = o->refused_errno;
	s->cur_sent += o->sent;
	s->cur_delivered += o->delivered;
	if (o->icmp) {
		s->icmp_seen = true;
		if (o->icmp_mtu && (!s->icmp_mtu_min || o->icmp_mtu < s->icmp_mtu_min))
			s->icmp_mtu_min = o->icmp_mtu;
	}
	/* A hint (from an ICMP, or the local stack's MTU on EMSGSIZE) is only
	 * worth probing inside the open gap. */
	if ((o->icmp || o->local_too_big) && o->icmp_mtu > s->lo && o->icmp_mtu < o->size &&
	    !o->delivered)
		s->hint = o->icmp_mtu;
	if (o->delivered) {
		confirm(s);
		return;
	}
	if (o->icmp || o->local_too_big) {
		fail(s, o->icmp, o->local_too_big);
		return;
	}
	/* Silence is weaker evidence than an ICMP: a second round before the
	 * size is given up, so a burst of loss is not taken for a limit. */
	needed = s->cfg.probes * 2;
	if (s->cur_sent >= needed || o->sent == 0)
		fail(s, false, false);
}

void mtu_search_result(const struct mtu_search *s, struct mtu_search_result *r)
{
	memset(r, 0, sizeof(*r));
	r->state = s->state;
	r->pmtu = s->lo;
	r->smallest_failed = s->hi <= s->cfg.max ? s->hi : 0;
	r->reached_max = s->lo && s->lo == s->cfg.max;
	r->icmp_seen = s->icmp_seen;
	r->icmp_mtu = s->icmp_mtu_min;
	r->blackhole = s->state == MTU_SEARCH_DONE && r->smallest_failed && !s->icmp_seen &&
		       s->silent_failures > 0;
	r->loss_seen = s->loss_seen;
	r->rounds = s->rounds;
	r->probes_sent = s->probes_sent;
	r->probes_delivered = s->probes_delivered;
	r->probes_refused = s->probes_refused;
	r->refused_errno = s->refused_errno;
	for (unsigned i = 0; i < s->nrecords; i++)
		if (s->records[i].refused &&
		    (!r->smallest_refused || s->records[i].size < r->smallest_refused))
			r->smallest_refused = s->records[i].size;
}

const char *mtu_search_state_name(enum mtu_search_state st)
{
	switch (st) {
	case MTU_SEARCH_BASE:
		return "base";
	case MTU_SEARCH_RUNNING:
		return "searching";
	case MTU_SEARCH_DONE:
		return "done";
	case MTU_SEARCH_BASE_FAILED:
		return "base-failed";
	}
	return "unknown";
}
