/* SPDX-License-Identifier: MIT */
/*
 * The MSS option of a SYN as it arrived (Linux TCP_SAVED_SYN hands over the
 * network and TCP headers of the SYN that opened a connection). Private to
 * src/mtu/.
 */
#ifndef OVLPERF_TCP_SYN_H
#define OVLPERF_TCP_SYN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parses an IPv4 or IPv6 packet holding a TCP SYN and gives the value of its
 * MSS option (RFC 9293 3.7.1). Every length is checked before a field is
 * read. False when the packet is malformed, not TCP, or has no MSS option. */
bool tcp_syn_mss(const uint8_t *pkt, size_t len, uint32_t *mss);

#endif
