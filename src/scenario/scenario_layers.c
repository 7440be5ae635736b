// SPDX-License-Identifier: MIT
/*
 * [udp] size_layer and rate_layer, [sweep] rate_layer, [knee] rate_layer:
 * sizes and rates a forwarding study states at the IP packet, Ethernet frame
 * or line (RFC 2544), turned into the payload units the engine runs in
 * (layer.h). Sizes are converted once, here, for the one IP family every
 * path shares (the layers count its headers); rates depend on the size, so
 * the suite converts each trial's rate with scenario_rate_payload().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "layer.h"
#include "load_spec.h"
#include "scenario_int.h"

uint64_t scenario_rate_payload(const struct scenario *scn, enum layer l, uint64_t bps, uint32_t len)
{
	uint64_t pps, payload_bps;
	char why[160];

	if (l == LAYER_PAYLOAD || !bps || !len)
		return bps;
	if (layer_rate(l, scn->udp.family, len, bps, &pps, &payload_bps, why, sizeof(why)) < 0)
		return 0; /* validation refused such a rate */
	return payload_bps;
}

/* The section and key of the first layer key given, for errors about them. */
static bool first_layer_key(struct parser *p, struct section **sec, const char **key)
{
	static const struct {
		enum kind kind;
		const char *key;
	} keys[] = { { K_UDP, "size_layer" },
		     { K_UDP, "rate_layer" },
		     { K_SWEEP, "rate_layer" },
		     { K_KNEE, "rate_layer" } };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct section *s = scn_first_of(p, keys[i].kind);

		if (s && scn_given(s, keys[i].key)) {
			*sec = s;
			*key = keys[i].key;
			return true;
		}
	}
	return false;
}

/* The IP family all paths share; false after an error when they differ. */
static bool one_family(struct parser *p, struct section *sec, const char *key, int *family)
{
	const struct scenario *s = p->scn;

	for (unsigned i = 0; i < s->npaths; i++) {
		if (s->paths[i].family == s->paths[0].family)
			continue;
		scn_error_at(p, scn_line_of(sec, key), sec, key,
			     "layers count IP headers, so the paths must share one family "
			     "(path %s is IPv%c, path %s IPv%c)",
			     s->paths[0].name, s->paths[0].family == AF_INET6 ? '6' : '4',
			     s->paths[i].name, s->paths[i].family == AF_INET6 ? '6' : '4');
		return false;
	}
	*family = s->npaths ? s->paths[0].family : AF_INET;
	return true;
}

static void convert_sizes(struct parser *p, struct section *us)
{
	struct scenario_udp *u = &p->scn->udp;
	char why[200];

	if (u->size_layer == LAYER_PAYLOAD)
		return;
	if (!scn_given(us, "sizes")) {
		scn_error_at(p, scn_line_of(us, "size_layer"), us, "size_layer",
			     "says what sizes count: give sizes too");
		return;
	}
	for (unsigned i = 0; i < u->nsizes; i++) {
		if (u->size_given[i] == SCN_UDP_SIZE_FIT) {
			scn_error_at(p, scn_line_of(us, "sizes"), us, "sizes",
				     "fit is a payload size: leave size_layer out");
			return;
		}
		if (layer_payload_len(u->size_layer, u->family, u->size_given[i],
				      LOAD_UDP_SHORT_MIN_LEN, LOAD_UDP_MAX_LEN, &u->sizes[i], why,
				      sizeof(why)) < 0) {
			scn_error_at(p, scn_line_of(us, "sizes"), us, "sizes", "%s", why);
			return;
		}
	}
}

/* A rate the file gives must be at least one datagram a second at every
 * size, so that no trial's rate converts to 0 (the engine's default). */
static void check_rate(struct parser *p, struct section *sec, const char *key, enum layer l,
		       uint64_t bps)
{
	const struct scenario_udp *u = &p->scn->udp;
	uint64_t pps, payload_bps;
	char why[160];

	if (!sec || !scn_given(sec, key) || l == LAYER_PAYLOAD || !bps)
		return;
	for (unsigned i = 0; i < u->nsizes; i++) {
		if (layer_rate(l, u->family, u->sizes[i], bps, &pps, &payload_bps, why,
			       sizeof(why)) < 0) {
			scn_error_at(p, scn_line_of(sec, key), sec, key, "%s", why);
			return;
		}
	}
}

void scn_validate_layers(struct parser *p)
{
	struct scenario *s = p->scn;
	struct section *us = scn_first_of(p, K_UDP), *ws = scn_first_of(p, K_SWEEP);
	struct section *ks = scn_first_of(p, K_KNEE), *sec;
	const char *key;

	s->udp.family = AF_INET;
	memcpy(s->udp.size_given, s->udp.sizes, sizeof(s->udp.size_given));
	if (!first_layer_key(p, &sec, &key) || !one_family(p, sec, key, &s->udp.family))
		return;
	if (us)
		convert_sizes(p, us);
	check_rate(p, us, "rate", s->udp.rate_layer, s->udp.rate_bps);
	check_rate(p, ws, "from", s->sweep.rate_layer, s->sweep.from_bps);
	check_rate(p, ks, "min_rate", s->knee.rate_layer, s->knee.min_rate_bps);
	check_rate(p, ks, "max_rate", s->knee.rate_layer, s->knee.max_rate_bps);
	for (unsigned i = 0; ks && scn_given(ks, "min_rate") && i < s->udp.nsizes; i++) {
		uint32_t len = s->udp.sizes[i];

		if (scenario_rate_payload(s, s->knee.rate_layer, s->knee.min_rate_bps, len) <
		    scenario_rate_payload(s, s->knee.rate_layer, s->knee.max_rate_bps, len))
			continue;
		scn_error_at(p, scn_line_of(ks, "min_rate"), ks, "min_rate",
			     "is the same number of %u-byte datagrams a second as max_rate", len);
		break;
	}
}
