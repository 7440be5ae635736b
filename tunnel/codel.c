// SPDX-License-Identifier: MIT
/* CoDel (RFC 8289, the pseudo-code of its section 5) for one queue,
 * decided per datagram as the queue is served. */
#include <math.h>

#include "codel.h"

void codel_init(struct codel *c, uint64_t target_ns, uint64_t interval_ns, uint64_t limit_ns)
{
	*c = (struct codel){ .target_ns = target_ns,
			     .interval_ns = interval_ns,
			     .limit_ns = limit_ns };
}

/* RFC 8289 5.5: the next drop comes interval/sqrt(count) after t. */
static uint64_t control_law(const struct codel *c, uint64_t t)
{
	return t + (uint64_t)((double)c->interval_ns / sqrt((double)c->count));
}

/* RFC 8289 5.4 (dodequeue): whether the sojourn has been above target for
 * at least an interval. */
static bool standing(struct codel *c, uint64_t sojourn_ns, uint64_t now)
{
	if (sojourn_ns < c->target_ns) {
		c->first_above = 0;
		return false;
	}
	if (!c->first_above) {
		c->first_above = now + c->interval_ns;
		return false;
	}
	return now >= c->first_above;
}

static bool codel_decide(struct codel *c, uint64_t sojourn_ns, uint64_t now)
{
	bool ok_to_drop = standing(c, sojourn_ns, now);

	if (c->dropping) {
		if (!ok_to_drop) {
			c->dropping = false;
			return false;
		}
		if (now < c->drop_next)
			return false;
		c->count++;
		c->drop_next = control_law(c, c->drop_next);
		return true;
	}
	if (!ok_to_drop)
		return false;
	/* RFC 8289 5.6: entering the dropping state soon after leaving it, start
	 * from the rate that controlled the queue last time. */
	uint32_t delta = c->count - c->lastcount;

	c->dropping = true;
	c->count = delta > 1 && now - c->drop_next < 16 * c->interval_ns ? delta : 1;
	c->drop_next = control_law(c, now);
	c->lastcount = c->count;
	return true;
}

unsigned codel_hist_bucket(uint64_t sojourn_ns)
{
	uint64_t us = sojourn_ns / 1000;
	unsigned k = 0;

	while (us > 1 && k < CODEL_HIST_BUCKETS - 1) {
		us >>= 1;
		k++;
	}
	return k;
}

uint64_t codel_hist_upper_us(unsigned k)
{
	return k >= CODEL_HIST_BUCKETS - 1 ? UINT64_MAX : (uint64_t)2 << k;
}

uint64_t codel_hist_quantile_us(const uint64_t h[CODEL_HIST_BUCKETS], double q)
{
	uint64_t total = 0, seen = 0, want;

	for (unsigned k = 0; k < CODEL_HIST_BUCKETS; k++)
		total += h[k];
	if (!total)
		return 0;
	want = (uint64_t)ceil(q * (double)total);
	if (want < 1)
		want = 1;
	for (unsigned k = 0; k < CODEL_HIST_BUCKETS; k++) {
		seen += h[k];
		if (seen >= want)
			return codel_hist_upper_us(k);
	}
	return codel_hist_upper_us(CODEL_HIST_BUCKETS - 1);
}

enum codel_verdict codel_drop(struct codel *c, uint64_t sojourn_ns, uint64_t now)
{
	/* CoDel sees every datagram, the limited ones too: they are part of the
	 * standing queue it measures. */
	bool codel = c->target_ns && codel_decide(c, sojourn_ns, now);

	if (c->limit_ns && sojourn_ns > c->limit_ns)
		return CODEL_DROP_LIMIT;
	return codel ? CODEL_DROP : CODEL_PASS;
}
