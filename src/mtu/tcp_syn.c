// SPDX-License-Identifier: MIT
/*
 * The MSS option of a received SYN, from the headers Linux saves for a
 * listener with TCP_SAVE_SYN: what a middlebox's clamp (or an overlay's,
 * like OpenVPN's mssfix) left of the value the client sent.
 */
#include "tcp_syn.h"

#define IPV4_MIN_HDR 20
#define IPV6_HDR     40
#define TCP_MIN_HDR  20
#define PROTO_TCP    6
#define OPT_END	     0
#define OPT_NOP	     1
#define OPT_MSS	     2
#define OPT_MSS_LEN  4

/* The TCP header's offset in pkt, or 0 when it is not a TCP packet. IPv6
 * extension headers are not followed: a SYN carrying them is rare enough to
 * report the MSS as unknown. */
static size_t tcp_offset(const uint8_t *pkt, size_t len)
{
	size_t ihl;

	if (len < 1)
		return 0;
	switch (pkt[0] >> 4) {
	case 4:
		ihl = (size_t)(pkt[0] & 0x0f) * 4;
		if (ihl < IPV4_MIN_HDR || len < ihl || pkt[9] != PROTO_TCP)
			return 0;
		return ihl;
	case 6:
		if (len < IPV6_HDR || pkt[6] != PROTO_TCP)
			return 0;
		return IPV6_HDR;
	default:
		return 0;
	}
}

bool tcp_syn_mss(const uint8_t *pkt, size_t len, uint32_t *mss)
{
	size_t off = tcp_offset(pkt, len), doff, i;

	if (!off || len - off < TCP_MIN_HDR)
		return false;
	doff = (size_t)(pkt[off + 12] >> 4) * 4;
	if (doff < TCP_MIN_HDR || len - off < doff)
		return false;
	for (i = off + TCP_MIN_HDR; i < off + doff;) {
		uint8_t kind = pkt[i];
		size_t olen;

		if (kind == OPT_END)
			break;
		if (kind == OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= off + doff)
			return false;
		olen = pkt[i + 1];
		if (olen < 2 || i + olen > off + doff)
			return false;
		if (kind == OPT_MSS) {
			if (olen != OPT_MSS_LEN)
				return false;
			*mss = (uint32_t)pkt[i + 2] << 8 | pkt[i + 3];
			return true;
		}
		i += olen;
	}
	return false;
}
