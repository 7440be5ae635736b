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
	uint64_t most = rise * s->per_skb;
	uint64_t own = gap < most ? gap : most;

	s->last = drops;
	s->skbs += rise;
	s->dgrams += own;
}

void sockloss_end(struct sockloss *s, uint32_t drops, uint64_t gap)
{
	uint32_t rise = drops - s->last;

	sockloss_step(s, drops, gap);
	s->end_rise = gap ? 0 : rise;
}
