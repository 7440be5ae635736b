/* SPDX-License-Identifier: MIT */
/*
 * Bit rates as every option and scenario key takes them (`client -b`,
 * `server --max-rate`, `lab --rate` and `--link rate=`, `sweep --rates`,
 * scenario rate keys): one spelling everywhere.
 *
 *   NUMBER [blanks] [PREFIX] [UNIT]
 *   NUMBER  value.h's decimal, as every option and key reads numbers:
 *           "100", "1.5", ".5", with an optional exponent "1e9", "2.5E6";
 *           no sign, hex, "inf" or "nan"
 *   PREFIX  k, M, G, T in any case: powers of 1000 (as iperf3 -b and tc)
 *   UNIT    bit/s, bits/s, bit or bits in any case, or bps, b/s or b with
 *           a lower-case b: all bits per second. "B", "B/s", "Bps", "MiB"
 *           (bytes) are refused, never read as bits.
 *
 * "10M", "10 Mbit/s", "10mbit", "1e7", "10000k" are all 10,000,000 bit/s.
 */
#ifndef OVLPERF_RATE_H
#define OVLPERF_RATE_H

#include <stdbool.h>
#include <stdint.h>

#define RATE_MAX_BPS 100e12 /* 100 Tbit/s: anything above is a typo */

/* The whole string or nothing: false on anything else, NULL or above
 * RATE_MAX_BPS; *bps is set only on success. */
bool rate_parse(const char *s, uint64_t *bps);

#endif
