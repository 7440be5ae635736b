// SPDX-License-Identifier: MIT
#include <string.h>

#include "rxq.h"

void rxq_record(struct rxq_batch *b, uint64_t sojourn_ns, uint64_t n)
{
	b->hist[codel_hist_bucket(sojourn_ns)] += n;
	b->samples += n;
	b->sum_ns += sojourn_ns * n;
	if (sojourn_ns > b->max_ns)
		b->max_ns = sojourn_ns;
}

void rxq_flush(struct rxq_stats *s, struct rxq_batch *b)
{
	uint64_t max = atomic_load_explicit(&s->max_ns, memory_order_relaxed);

	if (!b->samples)
		return;
	for (unsigned k = 0; k < CODEL_HIST_BUCKETS; k++)
		if (b->hist[k])
			atomic_fetch_add_explicit(&s->hist[k], b->hist[k], memory_order_relaxed);
	atomic_fetch_add_explicit(&s->samples, b->samples, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->sum_ns, b->sum_ns, memory_order_relaxed);
	while (b->max_ns > max &&
	       !atomic_compare_exchange_weak_explicit(&s->max_ns, &max, b->max_ns,
						      memory_order_relaxed, memory_order_relaxed))
		;
	memset(b, 0, sizeof(*b));
}

uint64_t rxq_mean_ns(const struct rxq_stats *s)
{
	uint64_t n = atomic_load_explicit(&s->samples, memory_order_relaxed);

	return n ? atomic_load_explicit(&s->sum_ns, memory_order_relaxed) / n : 0;
}
