// SPDX-License-Identifier: MIT
/* TAI64N timestamps for handshake initiations (replay protection). */
#include <string.h>

#include "bytes.h"
#include "clock.h"
#include "noise.h"
#include "ratelimit.h"

/* TAI64 label of the Unix epoch: 2^62 + 10 leap seconds (as WireGuard). */
#define TAI64_EPOCH 0x400000000000000aULL

void tai64n_from_ns(uint8_t out[static WIRE_TAI64N_LEN], uint64_t realtime_ns)
{
	put_be64(out, TAI64_EPOCH + realtime_ns / NSEC_PER_SEC);
	put_be32(out + 8, (uint32_t)(realtime_ns % NSEC_PER_SEC));
}

void tai64n_now(uint8_t out[static WIRE_TAI64N_LEN])
{
	uint64_t ns = clock_realtime_ns();
	/* Largest power of two below 1 s / RATELIMIT_PEER_PER_SEC: 2^24 ns. */
	uint64_t grain = 1ULL << 24;

	_Static_assert((1ULL << 24) <= NSEC_PER_SEC / RATELIMIT_PEER_PER_SEC, "grain");
	ns -= (ns % NSEC_PER_SEC) % grain;
	tai64n_from_ns(out, ns);
}

bool tai64n_after(const uint8_t a[static WIRE_TAI64N_LEN], const uint8_t b[static WIRE_TAI64N_LEN])
{
	return memcmp(a, b, WIRE_TAI64N_LEN) > 0;
}
