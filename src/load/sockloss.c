// SPDX-License-Identifier: MIT
/*
 * Receive socket drops in datagrams, from the drop stamps of the skbs read
 * and the sequence gaps between them (see sockloss.h).
 */
#include "sockloss.h"

void sockloss_init(struct sockloss *s, uint32_t start, bool gro)
{
	*s = (struct sockloss){ .last = start, .per_skb = gro ? SOCKLOSS_GRO_MAX_SEGS : 1 };
}

void sockloss_step(struct sockloss *s, uint32_t drops, uint64_t gap)
{
	/* the counter is 32 bits and wraps; it never goes back */
	uint64_t rise = (uint32_t)(drops - s->last);
	uint64_t own;

	s->last = drops;
	s->skbs += rise;
	/* softirqs on two CPUs may queue a datagram after a later one was
	 * dropped: a rise and its gap can sit a few packets apart, so both
	 * carry over until matched, or until SOCKLOSS_CARRY packets passed
	 * with neither */
	s->pend_gap += gap;
	s->pend_rise += rise;
	own = s->pend_gap < s->pend_rise * s->per_skb ? s->pend_gap : s->pend_rise * s->per_skb;
	s->dgrams += own;
	s->pend_gap -= own;
	/* each dropped packet held one datagram at least (GRO: up to
	 * per_skb, how many is unknown): packets counted beyond the datagrams
	 * matched still have theirs to come (a drop counted on one CPU before
	 * its gap shows on the other); when a gap is left, every packet gave
	 * all it could hold, and none is left */
	s->pend_rise = s->pend_rise > own ? s->pend_rise - own : 0;
	if (gap || rise)
		s->quiet = 0;
	else if (++s->quiet > SOCKLOSS_CARRY)
		s->pend_gap = s->pend_rise = 0;
}

void sockloss_end(struct sockloss *s, uint32_t drops, uint64_t gap)
{
	uint32_t rise = drops - s->last;

	sockloss_step(s, drops, gap);
	s->end_rise = gap ? 0 : rise;
}
