// SPDX-License-Identifier: MIT
/* Clock offset between the two ends from timed echoes (include/load/owd_clock.h). */
#include "owd_clock.h"

void owd_clock_init(struct owd_clock *c)
{
	*c = (struct owd_clock){ .shared = true };
}

void owd_clock_add(struct owd_clock *c, const struct owd_clock_sample *s)
{
	uint64_t half;

	if (s->t1 < s->t0)
		return;
	half = (s->t1 - s->t0) / 2;
	c->shared = c->shared && s->peer_ns >= s->t0 && s->peer_ns <= s->t1;
	if (c->samples++ && half >= c->error_ns)
		return;
	/* round the interval outwards: error_ns covers the odd nanosecond */
	c->error_ns = half + ((s->t1 - s->t0) & 1);
	c->offset_ns = (int64_t)(s->peer_ns - (s->t0 + half));
}

bool owd_clock_usable(const struct owd_clock *c)
{
	return c->samples > 0;
}

int64_t owd_clock_shift(const struct owd_clock *c, bool sender)
{
	if (c->shared || !c->samples)
		return 0;
	/* sender: our time t is the peer's t + offset, at least t + offset - error;
	 * receiver: the peer's time t is ours t - offset, at least t - offset - error */
	return sender ? c->offset_ns - (int64_t)c->error_ns : -c->offset_ns - (int64_t)c->error_ns;
}

uint64_t owd_clock_error(const struct owd_clock *c)
{
	return c->shared || !c->samples ? 0 : 2 * c->error_ns;
}
