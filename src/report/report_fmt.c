// SPDX-License-Identifier: MIT
/* The formatting helpers every printer of a run shares (report_run.h): a
 * rate, a packet rate, a duration and where lost datagrams went, each as
 * short text. Only formatting: they read no run, so any printer may use
 * them without using another printer. */
#include <math.h>
#include <stdio.h>

#include "loss_place.h"
#include "report_run.h"

void report_run_fmt_rate(char *buf, size_t len, double bps)
{
	if (bps >= 1e9)
		snprintf(buf, len, "%.3g Gbit/s", bps / 1e9);
	else if (bps >= 1e6)
		snprintf(buf, len, "%.4g Mbit/s", bps / 1e6);
	else if (bps >= 1e3)
		snprintf(buf, len, "%.4g kbit/s", bps / 1e3);
	else
		snprintf(buf, len, "%.0f bit/s", bps);
}

void report_run_fmt_pps(char *buf, size_t len, double pps)
{
	if (pps >= 1e6)
		snprintf(buf, len, "%.3gM", pps / 1e6);
	else if (pps >= 1e4)
		snprintf(buf, len, "%.0fk", pps / 1e3);
	else
		snprintf(buf, len, "%.0f", pps);
}

void report_run_fmt_time(char *buf, size_t len, double s)
{
	if (s >= 60)
		snprintf(buf, len, "%um%02us", (unsigned)(s / 60), (unsigned)fmod(s, 60));
	else
		snprintf(buf, len, "%.1fs", s);
}

void report_run_loss_where(char *buf, size_t len, const struct loss_attrib *l)
{
	const struct {
		const char *name;
		uint64_t n;
	} at[] = {
		/* the rest: the network's only where it has evidence */
		{ loss_place_network_seen(l) ? "network" : "unaccounted", l->network },
		{ "receiver socket buffer", l->receiver_socket },
		{ "receiver's other sockets", l->receiver_rcvbuf },
		{ "receiver UDP errors", l->receiver_inerrors },
		{ "receiver interface", l->receiver_link },
		{ "sender socket buffer", l->sender_sndbuf },
		{ "sender qdisc (shaper)", l->sender_qdisc },
		{ "sender interface", l->sender_link },
		{ "tunnel daemons", l->tunnel },
		{ "a CPU's backlog", l->backlog },
	};
	enum { N = sizeof(at) / sizeof(at[0]) };
	bool used[N] = { false };
	uint64_t total = 0;
	size_t off = 0;

	for (size_t i = 0; i < N; i++)
		total += at[i].n;
	buf[0] = '\0';
	if (!total) {
		snprintf(buf, len, "no loss counted");
		return;
	}
	for (size_t k = 0; k < N; k++) {
		size_t best = N;
		double share;
		char pct[8];
		int w;

		for (size_t i = 0; i < N; i++)
			if (!used[i] && at[i].n && (best == N || at[i].n > at[best].n))
				best = i;
		if (best == N)
			break;
		used[best] = true;
		share = 100.0 * (double)at[best].n / (double)total;
		/* a place that lost something never reads 0 % */
		if (share < 0.5)
			snprintf(pct, sizeof(pct), "<1%%");
		else
			snprintf(pct, sizeof(pct), "%.0f%%", share);
		w = snprintf(buf + off, len - off, "%s%s %s", off ? ", " : "", at[best].name, pct);
		if (w < 0 || (size_t)w >= len - off)
			break;
		off += (size_t)w;
	}
}
