/* SPDX-License-Identifier: MIT */
/*
 * Private to the subcommands (src/cli/): --size-layer and --rate-layer of
 * `ovlperf client` and `ovlperf sweep`. -l and the rates are read as given
 * and turned into the engine's payload units here, at the edge (layer.h),
 * once the options are all read: the IP family, which the IP and Ethernet
 * sizes depend on, is the destination's (-4/-6, else the address HOST
 * resolves to).
 */
#ifndef OVLPERF_CLI_LAYER_H
#define OVLPERF_CLI_LAYER_H

#include <stdbool.h>
#include <stdint.h>

#include "layer.h"
#include "load_spec.h"

struct cli_layer {
	enum layer size_layer; /* of -l */
	enum layer rate_layer; /* of -b, --from/--to/--step/--max/--min */
	bool len_given;	       /* -l was given (else the payload default stands) */
	uint64_t len;	       /* -l as given, at size_layer */
};

/* --size-layer (upto LAYER_FRAME) or --rate-layer (upto LAYER_LINE); false
 * with why naming the allowed values. */
bool cli_layer_parse(const char *arg, enum layer upto, enum layer *l, char *why, size_t whylen);

/* Sets s->len from l->len and returns 0, or -EINVAL with why ("-l" is the
 * option to blame). Resolves s->host for the family only when a layer
 * needs it; *family receives it (AF_INET when none was needed). */
int cli_layer_len(const struct cli_layer *l, struct load_spec *s, int *family, char *why,
		  size_t whylen);

/* *bps (at l->rate_layer, for datagrams of s->len) into payload bit/s; 0
 * stays 0. 0 or -ERANGE with why. */
int cli_layer_rate(const struct cli_layer *l, const struct load_spec *s, int family, uint64_t *bps,
		   char *why, size_t whylen);

#endif
