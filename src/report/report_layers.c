// SPDX-License-Identifier: MIT
/* A UDP result at each layer (report_layers.h). */
#include <string.h>
#include <sys/socket.h>

#include "report_layers.h"

bool report_layers_get(const struct load_result *r, struct report_layers *l)
{
	const struct udp_result *u = &r->udp;
	double secs = r->duration_s;

	memset(l, 0, sizeof(*l));
	if (r->spec.proto != LOAD_UDP || !u->len || u->fragments > 1 ||
	    (r->spec.family != AF_INET && r->spec.family != AF_INET6))
		return false;
	l->family = r->spec.family;
	l->sent_pps = secs > 0 ? (double)u->sent / secs : 0;
	l->received_pps = secs > 0 ? (double)u->received / secs : 0;
	for (unsigned i = 0; i < LAYER_COUNT; i++) {
		l->bytes[i] = layer_bytes((enum layer)i, l->family, u->len);
		l->sent_bytes[i] = u->sent * l->bytes[i];
		l->received_bytes[i] = u->received * l->bytes[i];
	}
	layer_bps(l->family, u->len, l->sent_pps, l->sent_bps);
	layer_bps(l->family, u->len, l->received_pps, l->received_bps);
	return true;
}
