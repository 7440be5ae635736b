// SPDX-License-Identifier: MIT
/* --size-layer and --rate-layer into the engine's payload units
 * (cli_layer.h). */
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>

#include "addr.h"
#include "cli_layer.h"

bool cli_layer_parse(const char *arg, enum layer upto, enum layer *l, char *why, size_t whylen)
{
	enum layer v;

	if (!layer_parse(arg, &v) || v > upto) {
		snprintf(why, whylen, "'%s' is not a layer (%s)", arg, layer_names(upto));
		return false;
	}
	*l = v;
	return true;
}

/* The destination's family: -4/-6, else what HOST resolves to. */
static int dest_family(const struct load_spec *s, int *family, char *why, size_t whylen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int rc;

	if (s->family != AF_UNSPEC) {
		*family = s->family;
		return 0;
	}
	rc = addr_resolve(s->host, s->port ? s->port : LOAD_DEFAULT_PORT, AF_UNSPEC, false, &ss,
			  &len);
	if (rc < 0) {
		snprintf(why, whylen, "cannot resolve '%s' for its IP family (say -4 or -6)",
			 s->host);
		return rc;
	}
	*family = ss.ss_family;
	return 0;
}

int cli_layer_len(const struct cli_layer *l, struct load_spec *s, int *family, char *why,
		  size_t whylen)
{
	int rc;

	*family = AF_INET;
	if (l->size_layer != LAYER_PAYLOAD || l->rate_layer != LAYER_PAYLOAD) {
		rc = dest_family(s, family, why, whylen);
		if (rc < 0)
			return rc;
	}
	if (!l->len_given)
		return 0;
	if (l->size_layer == LAYER_PAYLOAD) {
		s->len = (uint32_t)l->len;
		return 0;
	}
	return layer_payload_len(l->size_layer, *family, l->len, LOAD_UDP_SHORT_MIN_LEN,
				 LOAD_UDP_MAX_LEN, &s->len, why, whylen);
}

int cli_layer_rate(const struct cli_layer *l, const struct load_spec *s, int family, uint64_t *bps,
		   char *why, size_t whylen)
{
	uint64_t pps, payload_bps;
	int rc;

	if (l->rate_layer == LAYER_PAYLOAD || *bps == 0)
		return 0;
	rc = layer_rate(l->rate_layer, family, s->len ? s->len : LOAD_UDP_DEFAULT_LEN, *bps, &pps,
			&payload_bps, why, whylen);
	if (rc == 0)
		*bps = payload_bps;
	return rc;
}
