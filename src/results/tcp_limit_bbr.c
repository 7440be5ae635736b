// SPDX-License-Identifier: MIT
/* A BBR sender's loss against what a loss-based control could carry at
 * it: BBR (the model-based control, Cardwell et al. 2016) paces at the
 * bottleneck rate and round trip it measured and does not read random
 * loss of a few percent as congestion, so a flow far above the loss-based
 * bound was not held back by that loss; it paid for it in bytes resent. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results.h"
#include "tcp_limit.h"
#include "tcp_limit_int.h"

/* How far above the loss-based bound a flow must run before the loss is
 * called no limit: the response function's constant (1.22) stands for
 * periodic loss and reno's halving; cubic's gentler backoff and a few
 * round trips of slow start carry a loss-based control up to about twice
 * it, so four times it is out of any loss-based control's reach. */
#define BBR_ABOVE_LOSS_BOUND 4.0

bool tcp_limit_is_bbr(const struct tcp_limit_ctx *c)
{
	return c->congestion && !strcmp(c->congestion, "bbr");
}

/* The round trip the bound is taken at: the flow's own, smoothed, as the
 * response function takes it; the least only where no smoothed one was
 * reported. Not the least alone: on a LAN it is tens of microseconds
 * (16 us through a router between two namespaces), which puts the bound
 * in Tbit/s, so a BBR flow at a 300 Mbit/s shaper on the router, 3.3 %
 * resent by the shaper's drops and its queue 4.2 ms, read "loss ...
 * find where". */
static double bound_rtt_s(const struct tcp_result *t)
{
	uint32_t us = t->sender.rtt_us ? t->sender.rtt_us : t->sender_limits.min_rtt_us;

	return us / 1e6;
}

/* Mathis, Semke, Mahdavi, Ott 1997 ("The macroscopic behavior of the TCP
 * congestion avoidance algorithm"), the response function RFC 3649 1
 * takes for standard TCP: rate = MSS * 8 / RTT * 1.22 / sqrt(p), with p
 * the share of segments lost (here the share of bytes resent). */
double tcp_limit_loss_bound_bps(const struct tcp_result *t, double p)
{
	double rtt_s = bound_rtt_s(t);

	if (p <= 0 || rtt_s <= 0 || !t->sender.snd_mss)
		return 0;
	return t->sender.snd_mss * 8.0 / rtt_s * 1.22 / sqrt(p);
}

bool tcp_limit_bbr_unslowed(const struct tcp_result *t, const struct tcp_limit_ctx *c,
			    const struct tcp_limit_verdict *v)
{
	double bound = tcp_limit_loss_bound_bps(t, v->retrans_ratio);

	return tcp_limit_is_bbr(c) && v->retrans_ratio >= 1e-4 && bound > 0 &&
	       (double)t->goodput_bps >= BBR_ABOVE_LOSS_BOUND * bound;
}

/* Where the loss BBR paid for was seen. A host's drop never comes here:
 * a host that drops is the bottleneck itself, and its verdict is loss. */
static const char *loss_place(const struct tcp_result *t, const struct tcp_limit_ctx *c)
{
	if (c->trial_drop.kind == TCP_DROP_NETWORK)
		return "lost between the hosts: no host's counter rose over this test";
	if (c->udp_drop.kind == TCP_DROP_NETWORK)
		return "lost between the hosts, by this path's UDP trials";
	if (c->udp_drop.kind == TCP_DROP_UNACCOUNTED)
		return "lost where no counter on either host looks, by this path's UDP trials";
	if (c->udp_drop.kind == TCP_DROP_SHAPER)
		return "dropped at a shaper, by this path's UDP trials";
	return t->drops.known ? "no host's counter read over this test saw them"
			      : "no drop counter read over this test";
}

void tcp_limit_bbr_words(char *buf, size_t len, const struct tcp_result *t,
			 const struct tcp_limit_ctx *c, const struct tcp_limit_verdict *v)
{
	double bound = tcp_limit_loss_bound_bps(t, v->retrans_ratio);
	char a[32], b[32];

	snprintf(buf, len,
		 "BBR sent at the bottleneck rate it measured: the %.1f %% of the bytes resent "
		 "(%s) cost their share of the bytes, not the rate (a loss-based control would "
		 "carry about %s at that loss and a %.2f ms round trip; this flow %s)",
		 v->retrans_ratio * 100, loss_place(t, c), results_fmt_bps(a, sizeof(a), bound),
		 bound_rtt_s(t) * 1e3, results_fmt_bps(b, sizeof(b), (double)t->goodput_bps));
}
