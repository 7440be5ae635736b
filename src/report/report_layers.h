/* SPDX-License-Identifier: MIT */
/*
 * Private to the printers (src/report/): a UDP result at every layer of
 * layer.h (payload, IP packet, Ethernet frame, line), derived from the
 * datagrams counted, their size and the data path's IP family. Derived in
 * the printers, so the engine and its result stay in payload units.
 */
#ifndef OVLPERF_REPORT_LAYERS_H
#define OVLPERF_REPORT_LAYERS_H

#include <stdbool.h>
#include <stdint.h>

#include "layer.h"
#include "load_result.h"

struct report_layers {
	int family;			  /* AF_INET or AF_INET6 */
	double sent_pps, received_pps;	  /* datagrams (= packets, = frames) a second */
	uint64_t bytes[LAYER_COUNT];	  /* one datagram */
	uint64_t sent_bytes[LAYER_COUNT]; /* sent * bytes */
	uint64_t received_bytes[LAYER_COUNT];
	double sent_bps[LAYER_COUNT], received_bps[LAYER_COUNT];
};

/* Fills l and returns true for a UDP result whose datagrams were one packet
 * each (not fragmented) over a known family; false otherwise (no layers:
 * the frame count of a fragmented datagram is not one). */
bool report_layers_get(const struct load_result *r, struct report_layers *l);
/* The same from counts: datagrams of len bytes over family (AF_INET or
 * AF_INET6), one packet each. */
void report_layers_of(int family, uint32_t len, uint64_t sent, uint64_t received, double sent_pps,
		      double received_pps, struct report_layers *l);
/* l as JSON, the client's udp.layers layout (docs/json.md); NULL without
 * memory. */
struct cJSON;
struct cJSON *report_layers_json(const struct report_layers *l);
/* The built-in overlay's outer datagrams (load_result.h) at every layer over secs
 * seconds, with the mean line bytes of one beside a test datagram's
 * (inner_line): null when no daemon counted them. */
struct cJSON *report_outer_json(const struct udp_outer *o, uint64_t inner_line, double secs);

#endif
