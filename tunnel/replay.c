// SPDX-License-Identifier: MIT
/*
 * RFC 6479 anti-replay window: bit (counter mod RING_BITS) of a ring of
 * 64-bit words. Moving forward clears only the words the window slides
 * past, so an update costs O(1) amortised, not a shift of the whole bitmap.
 */
#include <string.h>

#include "replay.h"

#define WORD_SHIFT 6 /* log2(REPLAY_WORD_BITS) */

void replay_init(struct replay *r)
{
	memset(r, 0, sizeof(*r));
}

static bool seen(const struct replay *r, uint64_t counter)
{
	uint64_t word = (counter >> WORD_SHIFT) & (REPLAY_WORDS - 1);

	return r->ring[word] >> (counter & (REPLAY_WORD_BITS - 1)) & 1;
}

bool replay_check(const struct replay *r, uint64_t counter, uint64_t limit)
{
	if (counter >= limit)
		return false;
	if (counter + 1 > r->greatest)
		return true;
	if (r->greatest - (counter + 1) >= REPLAY_WINDOW_SIZE)
		return false; /* older than the window */
	return !seen(r, counter);
}

bool replay_update(struct replay *r, uint64_t counter, uint64_t limit)
{
	uint64_t idx, top, cur, diff, i;

	if (!replay_check(r, counter, limit))
		return false;
	idx = counter >> WORD_SHIFT;
	if (counter + 1 > r->greatest) {
		/* Clear the words between the old newest word and this one. */
		cur = r->greatest ? (r->greatest - 1) >> WORD_SHIFT : 0;
		top = idx;
		diff = top - cur;
		if (r->greatest == 0) {
			memset(r->ring, 0, sizeof(r->ring));
		} else {
			if (diff > REPLAY_WORDS)
				diff = REPLAY_WORDS;
			for (i = 1; i <= diff; i++)
				r->ring[(cur + i) & (REPLAY_WORDS - 1)] = 0;
		}
		r->greatest = counter + 1;
	}
	r->ring[idx & (REPLAY_WORDS - 1)] |= 1ULL << (counter & (REPLAY_WORD_BITS - 1));
	return true;
}
