// SPDX-License-Identifier: MIT
/* A UDP trial of a run at every layer (results.h): derived from the
 * datagrams the trial counted, so run.json records payload units only and
 * every printer states the same layers. */
#include <string.h>
#include <sys/socket.h>

#include "results.h"

int results_path_family(const struct results_path *p)
{
	if (p->family == AF_INET || p->family == AF_INET6)
		return p->family;
	return strchr(p->addr, ':') ? AF_INET6 : AF_INET;
}

uint64_t results_layer_bytes(const struct results_run *run, unsigned path, uint32_t len,
			     enum layer l)
{
	int family = path < run->npaths ? results_path_family(&run->paths[path]) : AF_INET;

	return layer_bytes(l, family, len);
}

double results_layer_bps(const struct results_run *run, unsigned path, uint32_t len, double pps,
			 enum layer l)
{
	return pps * 8.0 * (double)results_layer_bytes(run, path, len, l);
}

/* The overlay's outer datagrams, as its daemon counted them. */
static void outer_layers(const struct results_trial *t, struct results_layers *out)
{
	const struct udp_outer *o = &t->udp.outer;

	if (o->ip_version != 4 && o->ip_version != 6)
		return;
	out->outer = true;
	out->outer_family = o->ip_version == 6 ? AF_INET6 : AF_INET;
	out->outer_datagrams = o->datagrams;
	for (unsigned i = 0; i < LAYER_COUNT; i++) {
		out->outer_bytes[i] =
			layer_bytes_of((enum layer)i, out->outer_family, o->datagrams, o->bytes);
		out->outer_bps[i] =
			t->duration_s > 0 ? 8.0 * (double)out->outer_bytes[i] / t->duration_s : 0;
	}
	out->inner_line_per_datagram = (double)out->bytes[LAYER_LINE];
	/* per outer datagram, not per test datagram: a tunnel that drops
	 * some of the test's sends fewer, and each still costs this much */
	out->outer_line_per_datagram =
		o->datagrams ? (double)out->outer_bytes[LAYER_LINE] / (double)o->datagrams : 0;
}

bool results_trial_layers(const struct results_run *run, const struct results_trial *t,
			  struct results_layers *out)
{
	const struct udp_result *u = &t->udp;

	memset(out, 0, sizeof(*out));
	if (t->kind == RESULTS_TRIAL_TCP || !t->len || u->fragments > 1 || t->path >= run->npaths)
		return false;
	out->family = results_path_family(&run->paths[t->path]);
	out->sent_pps = (double)u->sent_pps;
	out->received_pps = (double)u->received_pps;
	for (unsigned i = 0; i < LAYER_COUNT; i++) {
		enum layer l = (enum layer)i;

		out->bytes[i] = layer_bytes(l, out->family, t->len);
		out->sent_bytes[i] = u->sent * out->bytes[i];
		out->received_bytes[i] = u->received * out->bytes[i];
		out->sent_bps[i] = out->sent_pps * 8.0 * (double)out->bytes[i];
		out->received_bps[i] = out->received_pps * 8.0 * (double)out->bytes[i];
	}
	outer_layers(t, out);
	return true;
}
