// SPDX-License-Identifier: MIT
/* A UDP result at each layer (report_layers.h). */
#include <string.h>
#include <sys/socket.h>

#include <cjson/cJSON.h>

#include "report_layers.h"

void report_layers_of(int family, uint32_t len, uint64_t sent, uint64_t received, double sent_pps,
		      double received_pps, struct report_layers *l)
{
	memset(l, 0, sizeof(*l));
	l->family = family;
	l->sent_pps = sent_pps;
	l->received_pps = received_pps;
	for (unsigned i = 0; i < LAYER_COUNT; i++) {
		l->bytes[i] = layer_bytes((enum layer)i, family, len);
		l->sent_bytes[i] = sent * l->bytes[i];
		l->received_bytes[i] = received * l->bytes[i];
	}
	layer_bps(family, len, sent_pps, l->sent_bps);
	layer_bps(family, len, received_pps, l->received_bps);
}

bool report_layers_get(const struct load_result *r, struct report_layers *l)
{
	const struct udp_result *u = &r->udp;
	double secs = r->duration_s;

	memset(l, 0, sizeof(*l));
	if (r->spec.proto != LOAD_UDP || !u->len || u->fragments > 1 ||
	    (r->spec.family != AF_INET && r->spec.family != AF_INET6))
		return false;
	report_layers_of(r->spec.family, u->len, u->sent, u->received,
			 secs > 0 ? (double)u->sent / secs : 0,
			 secs > 0 ? (double)u->received / secs : 0, l);
	return true;
}

cJSON *report_layers_json(const struct report_layers *l)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "family", l->family == AF_INET6 ? "ipv6" : "ipv4");
	cJSON_AddNumberToObject(o, "sent_pps", l->sent_pps);
	cJSON_AddNumberToObject(o, "received_pps", l->received_pps);
	for (unsigned i = 0; i < LAYER_COUNT; i++) {
		cJSON *e = cJSON_AddObjectToObject(o, layer_name((enum layer)i));

		if (!e) {
			cJSON_Delete(o);
			return NULL;
		}
		cJSON_AddNumberToObject(e, "datagram_bytes", (double)l->bytes[i]);
		cJSON_AddNumberToObject(e, "sent_bytes", (double)l->sent_bytes[i]);
		cJSON_AddNumberToObject(e, "sent_bps", l->sent_bps[i]);
		cJSON_AddNumberToObject(e, "received_bytes", (double)l->received_bytes[i]);
		cJSON_AddNumberToObject(e, "received_bps", l->received_bps[i]);
	}
	return o;
}

cJSON *report_outer_json(const struct udp_outer *o, uint64_t inner_line, double secs)
{
	int family = o->ip_version == 6 ? AF_INET6 : AF_INET;
	cJSON *j;

	if (o->ip_version != 4 && o->ip_version != 6)
		return cJSON_CreateNull();
	j = cJSON_CreateObject();
	if (!j)
		return NULL;
	cJSON_AddNumberToObject(j, "family", o->ip_version);
	cJSON_AddBoolToObject(j, "received", o->received);
	cJSON_AddNumberToObject(j, "datagrams", (double)o->datagrams);
	cJSON_AddNumberToObject(
		j, "line_bytes_per_datagram",
		o->datagrams ? (double)layer_bytes_of(LAYER_LINE, family, o->datagrams, o->bytes) /
				       (double)o->datagrams
			     : 0);
	cJSON_AddNumberToObject(j, "inner_line_bytes_per_datagram", (double)inner_line);
	for (unsigned i = 0; i < LAYER_COUNT; i++) {
		cJSON *e = cJSON_AddObjectToObject(j, layer_name((enum layer)i));
		uint64_t b = layer_bytes_of((enum layer)i, family, o->datagrams, o->bytes);

		if (!e) {
			cJSON_Delete(j);
			return NULL;
		}
		cJSON_AddNumberToObject(e, "bytes", (double)b);
		cJSON_AddNumberToObject(e, "bps", secs > 0 ? 8.0 * (double)b / secs : 0);
	}
	return j;
}
