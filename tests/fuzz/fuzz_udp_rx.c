// SPDX-License-Identifier: MIT
/*
 * The UDP receiver's packet path (udp_stream_rx_packet) from untrusted
 * bytes: input = u16 segment size (GRO's gso_size, 0: none) + one packet.
 * Whatever arrives, every datagram of the packet is counted exactly once:
 * as a test datagram, a warm-up one, a FIN, a foreign one or a malformed one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "udp_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct udp_stream st;
	static struct rxstats rx;
	size_t seg, len, segs;

	if (size < 2)
		return 0;
	seg = (size_t)data[0] << 8 | data[1];
	data += 2;
	len = size - 2;
	memset(&st, 0, sizeof(st));
	rxstats_init(&rx);
	st.rx = &rx;
	st.id = 1;
	st.test_id = 0x01020304;
	udp_stream_rx_packet(&st, data, len, seg, 1000000);
	if (!len)
		return 0;
	segs = (!seg || seg > len) ? 1 : (len + seg - 1) / seg;
	if (st.rx_segs != segs || st.rx_skbs != 1)
		abort();
	/* greetings of this test are dropped silently; everything else counted */
	if (rx.received + rx.duplicates + rx.late + rx.malformed + st.omitted + st.foreign +
		    (st.fin_count || atomic_load(&st.fin_seen) ? 1 : 0) >
	    segs)
		abort();
	return 0;
}
