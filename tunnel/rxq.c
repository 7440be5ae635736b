// SPDX-License-Identifier: MIT
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "rxq.h"

bool rxq_stamp(const void *control, size_t len, uint64_t *realtime_ns)
{
	const uint8_t *c = control;
	size_t off = 0;

	while (control && len - off >= sizeof(struct cmsghdr)) {
		struct cmsghdr h;

		memcpy(&h, c + off, sizeof(h));
		if (h.cmsg_len < CMSG_LEN(0) || h.cmsg_len > len - off)
			return false;
		if (h.cmsg_level == SOL_SOCKET && h.cmsg_type == SCM_TIMESTAMPNS &&
		    h.cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
			struct timespec ts;

			memcpy(&ts, c + off + CMSG_LEN(0), sizeof(ts));
			if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
				return false;
			*realtime_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
			return true;
		}
		off += CMSG_ALIGN(h.cmsg_len);
		if (off > len)
			return false;
	}
	return false;
}

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
