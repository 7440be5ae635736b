// SPDX-License-Identifier: MIT
/* Per-stream interval samples taken by the client at its own ticks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "load_local.h"
#include "sockopt.h"

void load_local_init(struct load_local *l)
{
	memset(l, 0, sizeof(*l));
}

static void sample_stream(const struct load_streams *ls, unsigned i, struct proto_interval *cum)
{
	if (ls->udp)
		udp_streams_sample(&ls->us[i], 1, ls->sender, cum);
	else
		tcp_streams_sample(&ls->tcp[i], 1, ls->sender, cum);
}

static void one_stream(struct load_local *l, const struct load_streams *ls, unsigned i,
		       struct load_stream_interval *s)
{
	struct proto_interval cum;
	struct tcp_info_summary ts;

	s->socket = ls->udp ? ls->us[i].fd : ls->tcp[i].fd;
	sample_stream(ls, i, &cum);
	s->bytes = cum.bytes - l->prev[i].bytes;
	s->packets = cum.packets - l->prev[i].packets;
	s->lost = cum.lost >= l->prev[i].lost ? cum.lost - l->prev[i].lost : 0;
	s->retransmits = cum.retransmits >= l->prev[i].retransmits
				 ? cum.retransmits - l->prev[i].retransmits
				 : 0;
	l->prev[i] = cum;
	if (ls->udp && !ls->sender)
		s->jitter_ms = (double)atomic_load_explicit(&ls->us[i].rx_jitter_ns,
							    memory_order_relaxed) /
			       1e6;
	if (ls->udp || !ls->sender || sockopt_tcp_info(ls->tcp[i].fd, &ts) < 0)
		return;
	s->tcp_info = true;
	s->snd_cwnd_bytes = ts.snd_cwnd * ts.snd_mss;
	s->snd_wnd = ts.snd_wnd;
	s->snd_wnd_known = ts.snd_wnd_known;
	s->rtt_us = ts.rtt_us;
	s->rttvar_us = ts.rttvar_us;
	s->pmtu = ts.pmtu;
}

int load_local_sample(struct load_local *l, const struct load_streams *ls,
		      const struct proto_interval *iv, uint64_t omit_ns, unsigned max,
		      struct load_result *res)
{
	struct load_local_interval *a, *v;
	double omit = (double)omit_ns / 1e9;

	if (res->nlocal >= max)
		return -ENOSPC;
	a = realloc(res->local, (res->nlocal + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	res->local = a;
	v = &a[res->nlocal];
	memset(v, 0, sizeof(*v));
	v->streams = calloc(ls->n ? ls->n : 1, sizeof(*v->streams));
	if (!v->streams)
		return -ENOMEM;
	/* contiguous, as the bytes are: each starts where the last one was
	 * sampled (a tick is served a little after it is due) */
	v->start_s = res->nlocal ? a[res->nlocal - 1].end_s : (double)iv->start_ns / 1e9 - omit;
	v->end_s = (double)iv->end_ns / 1e9 - omit;
	v->omitted = iv->end_ns <= omit_ns;
	for (unsigned i = 0; i < ls->n && i < LOAD_MAX_STREAMS; i++)
		one_stream(l, ls, i, &v->streams[i]);
	res->nlocal++;
	return 0;
}

void load_local_free(struct load_result *res)
{
	for (unsigned i = 0; i < res->nlocal; i++)
		free(res->local[i].streams);
	free(res->local);
	res->local = NULL;
	res->nlocal = 0;
}
