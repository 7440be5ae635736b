// SPDX-License-Identifier: MIT
/*
 * Receiver statistics (see rxstats.h): sequence window, RFC 3550 jitter and
 * a log-linear one-way-delay histogram, all in fixed memory per stream.
 */
#include <math.h>
#include <string.h>

#include "clock.h"
#include "rxstats.h"

_Static_assert((RXSTATS_WINDOW & (RXSTATS_WINDOW - 1)) == 0, "window is a power of two");
_Static_assert(RXSTATS_WINDOW % 64 == 0, "window is whole words");

/* ---- histogram ----------------------------------------------------------- */

unsigned rxstats_hist_index(uint64_t v)
{
	unsigned e, shift;

	if (v < RXSTATS_SUB_BUCKETS)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	shift = e - RXSTATS_SUB_BITS;
	return RXSTATS_SUB_BUCKETS + shift * RXSTATS_SUB_BUCKETS +
	       (unsigned)((v >> shift) - RXSTATS_SUB_BUCKETS);
}

uint64_t rxstats_hist_bucket_low(unsigned i)
{
	unsigned shift, sub;

	if (i < RXSTATS_SUB_BUCKETS)
		return i;
	shift = (i - RXSTATS_SUB_BUCKETS) / RXSTATS_SUB_BUCKETS;
	sub = (i - RXSTATS_SUB_BUCKETS) % RXSTATS_SUB_BUCKETS;
	return (uint64_t)(RXSTATS_SUB_BUCKETS + sub) << shift;
}

uint64_t rxstats_hist_bucket_high(unsigned i)
{
	unsigned shift;

	if (i < RXSTATS_SUB_BUCKETS)
		return i;
	shift = (i - RXSTATS_SUB_BUCKETS) / RXSTATS_SUB_BUCKETS;
	return rxstats_hist_bucket_low(i) + ((1ULL << shift) - 1);
}

void rxstats_hist_init(struct rxstats_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void rxstats_hist_add(struct rxstats_hist *h, uint64_t v)
{
	h->buckets[rxstats_hist_index(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void rxstats_hist_merge(struct rxstats_hist *dst, const struct rxstats_hist *src)
{
	unsigned i;

	if (src->count == 0)
		return;
	for (i = 0; i < RXSTATS_OWD_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t rxstats_hist_quantile(const struct rxstats_hist *h, double q)
{
	uint64_t rank, seen = 0, lo, hi, mid;
	unsigned i;

	if (h->count == 0)
		return 0;
	if (!(q > 0.0))
		return h->min;
	if (q >= 1.0)
		return h->max;
	rank = (uint64_t)ceil(q * (double)h->count);
	if (rank == 0)
		rank = 1;
	for (i = 0; i < RXSTATS_OWD_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	if (i == RXSTATS_OWD_BUCKETS)
		return h->max;
	lo = rxstats_hist_bucket_low(i);
	hi = rxstats_hist_bucket_high(i);
	mid = lo + (hi - lo) / 2;
	if (mid < h->min)
		mid = h->min;
	if (mid > h->max)
		mid = h->max;
	return mid;
}

/* ---- sequence window ----------------------------------------------------- */

static bool seen(const struct rxstats *st, uint64_t seq)
{
	uint64_t bit = seq & (RXSTATS_WINDOW - 1);

	return st->bitmap[bit / 64] >> (bit % 64) & 1;
}

static void mark(struct rxstats *st, uint64_t seq)
{
	uint64_t bit = seq & (RXSTATS_WINDOW - 1);

	st->bitmap[bit / 64] |= 1ULL << (bit % 64);
}

/* Forgets sequences from..to (inclusive, to - from < WINDOW): their bits
 * belonged to sequences a whole window earlier. */
static void clear_range(struct rxstats *st, uint64_t from, uint64_t to)
{
	uint64_t seq = from, bit;

	while (seq <= to) {
		bit = seq & (RXSTATS_WINDOW - 1);
		if (bit % 64 == 0 && to - seq >= 63) {
			st->bitmap[bit / 64] = 0;
			seq += 64;
		} else {
			st->bitmap[bit / 64] &= ~(1ULL << (bit % 64));
			seq++;
		}
		if (seq == 0) /* wrapped at UINT64_MAX */
			break;
	}
}

/* Moves the window's top to seq (> highest). */
static void advance(struct rxstats *st, uint64_t seq)
{
	if (seq - st->highest >= RXSTATS_WINDOW)
		memset(st->bitmap, 0, sizeof(st->bitmap));
	else
		clear_range(st, st->highest + 1, seq);
	st->highest = seq;
}

/* ---- records ------------------------------------------------------------- */

void rxstats_init(struct rxstats *st)
{
	memset(st, 0, sizeof(*st));
	rxstats_hist_init(&st->owd);
	rxstats_hist_init(&st->wait);
}

void rxstats_wait_add(struct rxstats *st, uint64_t wait_ns)
{
	rxstats_hist_add(&st->wait, wait_ns);
}

static void count_arrival(struct rxstats *st, uint64_t send_ns, uint64_t recv_ns,
			  uint64_t arrive_ns, uint32_t len)
{
	int64_t transit = (int64_t)(recv_ns - send_ns);
	double d;

	st->received++;
	st->bytes += len;
	if (st->received == 1 || arrive_ns < st->first_recv_ns)
		st->first_recv_ns = arrive_ns;
	if (arrive_ns > st->last_recv_ns)
		st->last_recv_ns = arrive_ns;
	if (st->have_prev) {
		d = (double)transit - (double)st->prev_transit;
		st->jitter_ns += (fabs(d) - st->jitter_ns) / 16.0;
		st->jitter_samples++;
	}
	st->prev_transit = transit;
	st->have_prev = true;
	if (recv_ns >= send_ns) {
		rxstats_hist_add(&st->owd, recv_ns - send_ns);
	} else {
		st->owd_negative++;
		rxstats_hist_add(&st->owd, 0);
	}
}

void rxstats_add(struct rxstats *st, uint64_t seq, uint64_t send_ns, uint64_t recv_ns,
		 uint64_t arrive_ns, uint32_t len)
{
	if (!st->any) {
		st->any = true;
		st->highest = seq;
		st->seq_span = seq == UINT64_MAX ? UINT64_MAX : seq + 1;
		mark(st, seq);
	} else if (seq > st->highest) {
		advance(st, seq);
		st->seq_span = seq == UINT64_MAX ? UINT64_MAX : seq + 1;
		mark(st, seq);
	} else if (st->highest - seq >= RXSTATS_WINDOW) {
		st->late++;
		return;
	} else if (seen(st, seq)) {
		st->duplicates++;
		return;
	} else {
		mark(st, seq);
		st->reordered++;
	}
	count_arrival(st, send_ns, recv_ns, arrive_ns, len);
}

void rxstats_malformed(struct rxstats *st)
{
	st->malformed++;
}

/* ---- results ------------------------------------------------------------- */

void rxstats_snapshot(const struct rxstats *st, struct rxstats_snapshot *snap)
{
	snap->received = st->received;
	snap->bytes = st->bytes;
	snap->duplicates = st->duplicates;
	snap->reordered = st->reordered;
	snap->late = st->late;
	snap->malformed = st->malformed;
	snap->lost_so_far = st->seq_span > st->received ? st->seq_span - st->received : 0;
	snap->jitter_ns = st->jitter_ns;
}

static uint64_t sub0(uint64_t b, uint64_t a)
{
	return b > a ? b - a : 0;
}

void rxstats_snapshot_delta(const struct rxstats_snapshot *a, const struct rxstats_snapshot *b,
			    struct rxstats_snapshot *d)
{
	d->received = sub0(b->received, a->received);
	d->bytes = sub0(b->bytes, a->bytes);
	d->duplicates = sub0(b->duplicates, a->duplicates);
	d->reordered = sub0(b->reordered, a->reordered);
	d->late = sub0(b->late, a->late);
	d->malformed = sub0(b->malformed, a->malformed);
	d->lost_so_far = sub0(b->lost_so_far, a->lost_so_far);
	d->jitter_ns = b->jitter_ns;
}

uint64_t rxstats_lost(const struct rxstats *st, uint64_t sent)
{
	uint64_t expected = sent > st->seq_span ? sent : st->seq_span;

	return sub0(expected, st->received);
}

void rxstats_merge(struct rxstats *dst, const struct rxstats *src)
{
	uint64_t w = dst->jitter_samples + src->jitter_samples;

	if (w)
		dst->jitter_ns = (dst->jitter_ns * (double)dst->jitter_samples +
				  src->jitter_ns * (double)src->jitter_samples) /
				 (double)w;
	dst->jitter_samples = w;
	dst->received += src->received;
	dst->bytes += src->bytes;
	dst->duplicates += src->duplicates;
	dst->reordered += src->reordered;
	dst->late += src->late;
	dst->malformed += src->malformed;
	dst->owd_negative += src->owd_negative;
	dst->seq_span += src->seq_span;
	if (src->received) {
		if (dst->first_recv_ns == 0 || src->first_recv_ns < dst->first_recv_ns)
			dst->first_recv_ns = src->first_recv_ns;
		if (src->last_recv_ns > dst->last_recv_ns)
			dst->last_recv_ns = src->last_recv_ns;
	}
	rxstats_hist_merge(&dst->owd, &src->owd);
	rxstats_hist_merge(&dst->wait, &src->wait);
	/* A summary has no window: further rxstats_add() would be meaningless. */
	dst->any = false;
	dst->have_prev = false;
}

static void summary_of(const struct rxstats_hist *h, struct owd_summary *out)
{
	memset(out, 0, sizeof(*out));
	if (h->count == 0)
		return;
	out->valid = true;
	out->min_ns = h->min;
	out->max_ns = h->max;
	out->mean_ns = (uint64_t)(h->sum / h->count);
	out->p50_ns = rxstats_hist_quantile(h, 0.50);
	out->p99_ns = rxstats_hist_quantile(h, 0.99);
}

void rxstats_owd(const struct rxstats *st, struct owd_summary *out)
{
	summary_of(&st->owd, out);
}

void rxstats_wait(const struct rxstats *st, struct owd_summary *out)
{
	summary_of(&st->wait, out);
}

uint64_t rxstats_window_ns(const struct rxstats *st)
{
	return st->received >= 2 && st->last_recv_ns > st->first_recv_ns
		       ? st->last_recv_ns - st->first_recv_ns
		       : 0;
}

uint64_t rxstats_window_bps(uint64_t received, uint32_t len, uint64_t window_ns)
{
	if (!window_ns || received < 2)
		return 0;
	return (uint64_t)((unsigned __int128)(received - 1) * len * 8u * NSEC_PER_SEC / window_ns);
}

uint64_t rxstats_window_pps(uint64_t received, uint64_t window_ns)
{
	if (!window_ns || received < 2)
		return 0;
	return (uint64_t)((unsigned __int128)(received - 1) * NSEC_PER_SEC / window_ns);
}

void rxstats_result(const struct rxstats *st, uint64_t sent, uint64_t duration_ns,
		    struct udp_result *out)
{

	out->received = st->received;
	out->lost = rxstats_lost(st, sent);
	out->duplicates = st->duplicates;
	out->reordered = st->reordered;
	out->malformed = st->malformed;
	out->jitter_ms = st->jitter_ns / 1e6;
	if (duration_ns) {
		out->received_bps =
			(uint64_t)((unsigned __int128)st->bytes * 8u * NSEC_PER_SEC / duration_ns);
		out->received_pps =
			(uint64_t)((unsigned __int128)st->received * NSEC_PER_SEC / duration_ns);
	} else {
		out->received_bps = 0;
		out->received_pps = 0;
	}
	rxstats_owd(st, &out->owd);
}
