// SPDX-License-Identifier: MIT
#define _GNU_SOURCE /* recvmmsg(), sendmmsg(), struct mmsghdr */
/*
 * What the link does to each packet of one direction, as pure functions of
 * the conditions, a seeded generator and the arrival time:
 *
 *   loss       the Gilbert-Elliott chain as netem's `loss gemodel p r`
 *              (loss 100 % in the bad state, 0 in the good one): in the
 *              good state a packet moves the chain to bad with p and is
 *              kept; in the bad state it moves it to good with r and is
 *              lost. So a burst lasts 1/r packets on average and the chain
 *              loses p/(p+r) of them. Then random loss, independently.
 *   rate       a serialization clock: a frame of L bytes starts when the
 *              previous one is done (or at arrival) and takes 8L/rate.
 *   delay      done + delay + a jitter sample uniform in -jitter..+jitter
 *              (as netem without a distribution table), at least done.
 *   order      without reorder a packet is never due before the one ahead
 *              of it: due = max(sample, previous due). With reorder the
 *              samples stand as drawn (jitter may reorder, as in netem) and
 *              a chosen packet goes out at once, ahead of the delayed ones
 *              (netem's `reorder P` with gap 1).
 */
#include <string.h>

#include "link_int.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void link_rng_seed(struct link_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);

	for (unsigned i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t link_rng_next(struct link_rng *r)
{
	uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

bool link_rng_chance(struct link_rng *r, uint32_t ppm)
{
	/* The top 64 bits of next * 1e6 / 2^64 is uniform in 0..1e6-1 (Lemire). */
	uint64_t x = link_rng_next(r);

	return (uint64_t)(((unsigned __int128)x * LINK_PPM) >> 64) < ppm;
}

void link_model_init(struct link_model *m, const struct link_dir_conf *c, uint64_t seed,
		     unsigned dir, uint64_t backlog_max)
{
	memset(m, 0, sizeof(*m));
	m->conf = *c;
	m->backlog_max = backlog_max;
	link_rng_seed(&m->rng, seed, dir);
}

enum link_loss link_model_loss(struct link_model *m)
{
	const struct link_dir_conf *c = &m->conf;
	bool burst = false, random;

	if (c->ge_p_ppm) {
		if (!m->ge_bad) {
			m->ge_bad = link_rng_chance(&m->rng, c->ge_p_ppm);
		} else {
			burst = true;
			m->ge_bad = !link_rng_chance(&m->rng, c->ge_r_ppm);
		}
	}
	random = c->loss_ppm && link_rng_chance(&m->rng, c->loss_ppm);
	if (burst)
		return LINK_LOST_BURST;
	return random ? LINK_LOST_RANDOM : LINK_KEEP;
}

/* Uniform in -jitter..+jitter around delay, never below 0. */
static uint64_t delay_sample(struct link_model *m)
{
	const struct link_dir_conf *c = &m->conf;
	uint64_t span, r;

	if (!c->jitter_ns)
		return c->delay_ns;
	span = 2 * c->jitter_ns + 1;
	r = (uint64_t)(((unsigned __int128)link_rng_next(&m->rng) * span) >> 64);
	if (r < c->jitter_ns && c->jitter_ns - r > c->delay_ns)
		return 0;
	return c->delay_ns + r - c->jitter_ns;
}

/* Bytes the serializer still has to send at now. */
static uint64_t backlog(const struct link_model *m, uint64_t now_ns)
{
	if (m->ser_free_ns <= now_ns)
		return 0;
	return (uint64_t)((unsigned __int128)(m->ser_free_ns - now_ns) * m->conf.rate_bps /
			  (8ULL * 1000000000ULL));
}

bool link_model_due(struct link_model *m, uint64_t now_ns, size_t len, struct link_due *d)
{
	const struct link_dir_conf *c = &m->conf;
	uint64_t done = now_ns, due;

	if (c->rate_bps) {
		if (backlog(m, now_ns) + len > m->backlog_max)
			return false;
		done = (m->ser_free_ns > now_ns ? m->ser_free_ns : now_ns) +
		       (uint64_t)((unsigned __int128)len * 8 * 1000000000ULL / c->rate_bps);
		m->ser_free_ns = done;
	}
	d->reordered = c->reorder_ppm && link_rng_chance(&m->rng, c->reorder_ppm);
	due = d->reordered ? done : done + delay_sample(m);
	if (!c->reorder_ppm) {
		if (due < m->last_due_ns)
			due = m->last_due_ns;
		m->last_due_ns = due;
	}
	d->due_ns = due;
	d->delayed = due > now_ns;
	return true;
}
