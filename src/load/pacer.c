// SPDX-License-Identifier: MIT
/*
 * Absolute-deadline pacing. All schedule maths is integer: slot n is due
 * floor(n * B / rate) ns after start, with B = unit_bytes * 8 * 1e9, so the
 * n-th deadline is exact however long the test runs.
 */
#include <errno.h>
#include <stdlib.h>

#include "clock.h"
#include "log.h"
#include "pacer.h"

typedef unsigned __int128 u128;

static u128 slot_bits_ns(const struct pacer *p)
{
	return (u128)p->unit_bytes * 8u * NSEC_PER_SEC;
}

/* Number of slots whose deadline is < t: ceil((t - start) * rate / B). */
static uint64_t slots_before(const struct pacer *p, uint64_t t)
{
	u128 b = slot_bits_ns(p), q;

	if (t <= p->start_ns)
		return 0;
	q = ((u128)(t - p->start_ns) * p->rate_bps + b - 1) / b;
	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* TEST ONLY. OVLPERF_TEST_PACER_SHORT=PCT (1..99) makes every pacer's
 * schedule PCT percent slower than asked, as a pacer bug would: the sender
 * falls short of every rate by that share and the pacer never notices (no
 * slot is late, none is skipped). The netns knee tests set it to prove that
 * their sender check fails on such a pacer (tests/netns/test_sweep.sh);
 * nothing else may. Read at each pacer_init(); unset, empty or out of
 * range: no effect. */
static uint64_t test_rate(uint64_t rate_bps)
{
	const char *v = getenv("OVLPERF_TEST_PACER_SHORT");
	unsigned long pct;
	char *end;

	if (!v || !*v || !rate_bps)
		return rate_bps;
	pct = strtoul(v, &end, 10);
	if (*end || pct < 1 || pct > 99)
		return rate_bps;
	log_warn("OVLPERF_TEST_PACER_SHORT=%lu: pacing %lu %% below %llu bit/s (a test's "
		 "crippled pacer, never a measurement)",
		 pct, pct, (unsigned long long)rate_bps);
	return rate_bps - rate_bps / 100 * pct - rate_bps % 100 * pct / 100;
}

int pacer_init(struct pacer *p, uint64_t start_ns, uint64_t duration_ns, uint64_t rate_bps,
	       uint32_t unit_bytes, uint64_t tolerance_ns)
{
	if (unit_bytes == 0 || unit_bytes > PACER_MAX_UNIT || rate_bps > PACER_MAX_RATE)
		return -EINVAL;
	rate_bps = test_rate(rate_bps);
	*p = (struct pacer){
		.start_ns = start_ns,
		.end_ns = UINT64_MAX,
		.rate_bps = rate_bps,
		.unit_bytes = unit_bytes,
		.tolerance_ns = tolerance_ns ? tolerance_ns : PACER_DEFAULT_TOLERANCE_NS,
		.total = UINT64_MAX,
	};
	if (duration_ns) {
		p->end_ns =
			duration_ns > UINT64_MAX - start_ns ? UINT64_MAX : start_ns + duration_ns;
		if (rate_bps)
			p->total = slots_before(p, p->end_ns);
	}
	return 0;
}

uint64_t pacer_deadline(const struct pacer *p, uint64_t n)
{
	u128 off;

	if (p->rate_bps == 0)
		return p->start_ns;
	off = (u128)n * slot_bits_ns(p) / p->rate_bps;
	if (off > UINT64_MAX - p->start_ns)
		return UINT64_MAX;
	return p->start_ns + (uint64_t)off;
}

bool pacer_done(const struct pacer *p)
{
	return p->next_slot >= p->total;
}

uint64_t pacer_next_deadline(const struct pacer *p)
{
	return pacer_done(p) ? UINT64_MAX : pacer_deadline(p, p->next_slot);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Unpaced: everything is due until the end time. */
static uint32_t next_unpaced(struct pacer *p, uint64_t now_ns, uint32_t batch_max,
			     uint64_t *next_ns)
{
	bool over = now_ns >= p->end_ns;

	p->due = over ? 0 : batch_max;
	p->due_now_ns = now_ns;
	if (next_ns)
		*next_ns = over ? UINT64_MAX : now_ns;
	return p->due;
}

uint32_t pacer_next(struct pacer *p, uint64_t now_ns, uint32_t batch_max, uint64_t *next_ns)
{
	uint64_t first_ok, due_end, avail;

	if (p->rate_bps == 0)
		return next_unpaced(p, now_ns, batch_max, next_ns);

	/* Slots later than the tolerance are given up, not sent in a burst. */
	if (now_ns > p->tolerance_ns) {
		first_ok = min_u64(slots_before(p, now_ns - p->tolerance_ns), p->total);
		if (first_ok > p->next_slot) {
			p->skipped += first_ok - p->next_slot;
			p->stalls++;
			p->next_slot = first_ok;
		}
	}
	due_end = min_u64(slots_before(p, now_ns == UINT64_MAX ? now_ns : now_ns + 1), p->total);
	avail = due_end > p->next_slot ? due_end - p->next_slot : 0;
	p->due = (uint32_t)min_u64(avail, batch_max);
	p->due_now_ns = now_ns;
	if (next_ns) {
		if (avail > p->due)
			*next_ns = now_ns;
		else if (p->next_slot + p->due < p->total)
			*next_ns = pacer_deadline(p, p->next_slot + p->due);
		else
			*next_ns = UINT64_MAX;
	}
	return p->due;
}

void pacer_consume(struct pacer *p, uint32_t n)
{
	uint64_t late;

	if (n > p->due)
		n = p->due;
	if (n == 0)
		return;
	if (p->rate_bps) {
		late = p->due_now_ns - pacer_deadline(p, p->next_slot);
		if (late > p->max_late_ns)
			p->max_late_ns = late;
		p->next_slot += n;
	}
	p->sent += n;
	p->due -= n;
}

uint64_t pacer_scheduled(const struct pacer *p, uint64_t now_ns)
{
	if (p->rate_bps == 0)
		return p->sent;
	return min_u64(slots_before(p, now_ns), p->total);
}

uint64_t pacer_shortfall(const struct pacer *p, uint64_t now_ns)
{
	uint64_t s = pacer_scheduled(p, now_ns);

	return s > p->sent ? s - p->sent : 0;
}

uint64_t pacer_rate_bps(uint64_t units, uint32_t unit_bytes, uint64_t elapsed_ns)
{
	u128 r;

	if (elapsed_ns == 0)
		return 0;
	r = (u128)units * unit_bytes * 8u * NSEC_PER_SEC / elapsed_ns;
	return r > UINT64_MAX ? UINT64_MAX : (uint64_t)r;
}

bool pacer_generator_limited(uint64_t target_bps, uint64_t achieved_bps)
{
	if (target_bps == 0)
		return false;
	return (u128)achieved_bps * 1000u < (u128)target_bps * PACER_LIMITED_PERMILLE;
}
