// SPDX-License-Identifier: MIT
/*
 * UDP test datagrams from untrusted bytes: the input is a train of
 * datagrams, each prefixed by one length byte. Each is parsed; what parses
 * goes into receiver statistics with its (hostile) sequence and timestamp,
 * what does not is counted as malformed. The statistics must stay
 * consistent whatever arrives, and a parsed header must write back the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "rxstats.h"

static struct rxstats st, sum;

static void check(const struct rxstats *s, uint64_t arrivals, uint64_t bad)
{
	struct udp_result r = { 0 };
	struct rxstats_snapshot snap;

	if (s->received + s->duplicates + s->late != arrivals || s->malformed != bad)
		abort();
	if (s->reordered > s->received || s->owd.count != s->received)
		abort();
	if (s->any && s->received > s->seq_span)
		abort();
	rxstats_result(s, arrivals, 1000000000ULL, &r);
	if (r.received + r.lost < arrivals && r.received + r.lost < s->seq_span)
		abort();
	if (r.owd.valid && (r.owd.min_ns > r.owd.p50_ns || r.owd.p50_ns > r.owd.p99_ns ||
			    r.owd.p99_ns > r.owd.max_ns))
		abort();
	rxstats_snapshot(s, &snap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t arrivals = 0, bad = 0, now = 1000000;
	size_t off = 0;

	rxstats_init(&st);
	while (off < size) {
		size_t len = data[off++];
		struct dgram_hdr h, h2;
		uint8_t copy[256];

		if (len > size - off)
			len = size - off;
		if (dgram_parse(data + off, len, &h)) {
			memcpy(copy, data + off, len);
			if (dgram_put(copy, len, &h) != 0 || !dgram_parse(copy, len, &h2) ||
			    h2.seq != h.seq || h2.send_ns != h.send_ns || h2.stream != h.stream ||
			    h2.flags != h.flags || h2.test_id != h.test_id)
				abort();
			/* as the receiver does: a short header's fields made whole */
			dgram_widen(&h, st.any ? st.highest : 0, now);
			rxstats_add(&st, h.seq, h.send_ns, now, now, (uint32_t)len);
			arrivals++;
		} else {
			rxstats_malformed(&st);
			bad++;
		}
		now += 1000 + (len ? data[off] : 0);
		off += len;
	}
	check(&st, arrivals, bad);
	rxstats_init(&sum);
	rxstats_merge(&sum, &st);
	rxstats_merge(&sum, &st);
	if (sum.received != 2 * st.received || sum.owd.count != 2 * st.owd.count)
		abort();
	return 0;
}
