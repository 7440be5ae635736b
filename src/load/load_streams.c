// SPDX-License-Identifier: MIT
/* One end's data streams of a test: start, sample, finish, results. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "load_sched.h"
#include "load_streams.h"
#include "log.h"
#include "sockopt.h"

static void close_fds(int *fds, unsigned from, unsigned n)
{
	for (unsigned i = from; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static int start_tcp(struct load_streams *ls, const struct load_spec *spec, int *fds)
{
	uint64_t rate = spec->rate_bps / ls->n;

	ls->tcp = calloc(ls->n, sizeof(*ls->tcp));
	if (!ls->tcp)
		return -ENOMEM;
	for (unsigned i = 0; i < ls->n; i++)
		ls->tcp[i].fd = -1;
	for (unsigned i = 0; i < ls->n; i++) {
		struct tcp_stream *st = &ls->tcp[i];
		int rc;

		st->fd = fds[i];
		fds[i] = -1;
		st->sender = ls->sender;
		st->len = spec->len ? spec->len : LOAD_TCP_DEFAULT_LEN;
		st->rate_bps = rate;
		st->start_ns = ls->start_ns;
		st->omit_end_ns = ls->omit_end_ns;
		st->end_ns = ls->end_ns;
		st->stop = &ls->stop;
		rc = tcp_stream_start(st);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int start_udp(struct load_streams *ls, const struct load_spec *spec, int *fds,
		     uint32_t test_id, int64_t clock_shift_ns)
{
	uint64_t rate = spec->rate_bps / ls->n;

	ls->us = calloc(ls->n, sizeof(*ls->us));
	if (!ls->us)
		return -ENOMEM;
	for (unsigned i = 0; i < ls->n; i++)
		ls->us[i].fd = -1;
	for (unsigned i = 0; i < ls->n; i++) {
		struct udp_stream *st = &ls->us[i];
		int rc;

		st->fd = fds[i];
		fds[i] = -1;
		st->sender = ls->sender;
		st->id = (uint16_t)i;
		st->test_id = test_id;
		st->len = spec->len ? spec->len : LOAD_UDP_DEFAULT_LEN;
		st->rate_bps = rate;
		st->gso = spec->udp_gso;
		st->gro = spec->udp_gro;
		st->dont_fragment = spec->dont_fragment;
		st->realtime = spec->realtime;
		st->start_ns = ls->start_ns;
		st->omit_end_ns = ls->omit_end_ns;
		st->end_ns = ls->end_ns;
		st->stop = &ls->stop;
		st->clock_shift_ns = clock_shift_ns;
		rc = udp_stream_start(st, spec->sock_buf ? spec->sock_buf
							 : sockopt_udp_default_buf(ls->n));
		if (rc < 0)
			return rc;
	}
	return 0;
}

int load_streams_start(struct load_streams *ls, const struct load_spec *spec, int *fds, bool sender,
		       uint32_t test_id, int64_t clock_shift_ns)
{
	int rc;

	memset(ls, 0, sizeof(*ls));
	atomic_init(&ls->stop, false);
	ls->udp = spec->proto == LOAD_UDP;
	ls->sender = sender;
	ls->n = spec->streams;
	load_side_begin(&ls->side, spec->family);
	/* Every stream starts at the same moment, a little ahead, once all
	 * threads are up: with many streams, thread start-up would otherwise
	 * eat the first slots of the last ones. */
	ls->start_ns = clock_now_ns() + LOAD_STREAMS_START_DELAY_NS +
		       (uint64_t)ls->n * LOAD_STREAMS_START_PER_STREAM_NS;
	ls->omit_end_ns = ls->start_ns + spec->omit_ns;
	ls->end_ns = ls->omit_end_ns + spec->duration_ns;
	ls->interval_ns = spec->interval_ns;
	ls->next_tick_ns = spec->interval_ns ? ls->omit_end_ns + spec->interval_ns : UINT64_MAX;
	rc = ls->udp ? start_udp(ls, spec, fds, test_id, clock_shift_ns) : start_tcp(ls, spec, fds);
	if (rc < 0) {
		close_fds(fds, 0, ls->n);
		load_streams_stop(ls);
	}
	return rc;
}

uint64_t load_streams_next_tick(const struct load_streams *ls)
{
	return ls->next_tick_ns;
}

/* The streams' figures of the measured phase so far, summed. */
static void cumulative(const struct load_streams *ls, struct proto_interval *cum)
{
	if (ls->udp)
		udp_streams_sample(ls->us, ls->n, ls->sender, cum);
	else
		tcp_streams_sample(ls->tcp, ls->n, ls->sender, cum);
}

void load_streams_interval(struct load_streams *ls, uint64_t now, struct proto_interval *iv)
{
	struct proto_interval cum;
	uint64_t from = ls->next_tick_ns - ls->interval_ns;

	cumulative(ls, &cum);
	memset(iv, 0, sizeof(*iv));
	iv->index = ls->index++;
	iv->start_ns = from - ls->start_ns;
	iv->end_ns = (now < ls->end_ns ? now : ls->end_ns) - ls->start_ns;
	iv->bytes = cum.bytes - ls->prev.bytes;
	iv->packets = cum.packets - ls->prev.packets;
	iv->lost = cum.lost >= ls->prev.lost ? cum.lost - ls->prev.lost : 0;
	iv->retransmits = cum.retransmits - ls->prev.retransmits;
	ls->prev = cum;
	ls->next_tick_ns += ls->interval_ns;
	if (ls->next_tick_ns > ls->end_ns + ls->interval_ns / 2)
		ls->next_tick_ns = UINT64_MAX;
	else if (ls->next_tick_ns > ls->end_ns)
		ls->next_tick_ns = ls->end_ns;
}

bool load_streams_sender_done(const struct load_streams *ls)
{
	for (unsigned i = 0; i < ls->n; i++) {
		bool f = ls->udp ? atomic_load(&ls->us[i].finished)
				 : atomic_load(&ls->tcp[i].finished);

		if (!f)
			return false;
	}
	return true;
}

bool load_streams_receiver_done(const struct load_streams *ls, uint64_t now,
				uint64_t sender_done_ns)
{
	uint64_t last_rx = 0;
	bool all_fin = true;

	if (!ls->udp)
		return load_streams_sender_done(ls); /* every stream saw its EOF */
	if (!sender_done_ns)
		return false;
	for (unsigned i = 0; i < ls->n; i++) {
		uint64_t t = atomic_load(&ls->us[i].last_rx_ns);

		all_fin = all_fin && atomic_load(&ls->us[i].fin_seen);
		last_rx = t > last_rx ? t : last_rx;
	}
	/* After the FINs, a little quiet: a datagram the sender sent just
	 * before its FIN from another CPU may arrive just after it. */
	if (all_fin && now >= last_rx + LOAD_STREAMS_FIN_QUIET_NS)
		return true;
	if (now >= sender_done_ns + LOAD_STREAMS_DRAIN_MAX_NS)
		return true;
	return now >= sender_done_ns + LOAD_STREAMS_QUIET_NS &&
	       now >= last_rx + LOAD_STREAMS_QUIET_NS;
}

void load_streams_stop(struct load_streams *ls)
{
	atomic_store(&ls->stop, true);
	for (unsigned i = 0; i < ls->n; i++) {
		if (ls->tcp)
			tcp_stream_join(&ls->tcp[i]);
		if (ls->us)
			udp_stream_join(&ls->us[i]);
	}
}

void load_streams_results(struct load_streams *ls, struct proto_results *out)
{
	struct load_sched sched;

	if (ls->udp)
		load_side_udp(&ls->side, ls->us, ls->n, ls->sender, out);
	else
		load_side_tcp(&ls->side, ls->tcp, ls->n, ls->sender, out);
	/* after load_side_*: the PROTO_RES_ flags stay out of total.flags */
	load_sched_of(ls->udp ? ls->us : NULL, ls->n, &sched);
	load_sched_put(&sched, out);
}

void load_streams_outer(const struct load_streams *ls, struct udp_outer *out)
{
	*out = ls->udp ? ls->side.outer : (struct udp_outer){ 0 };
}

uint32_t load_streams_path_mtu(const struct load_streams *ls)
{
	uint32_t mtu = 0;

	for (unsigned i = 0; ls->udp && ls->us && i < ls->n; i++)
		if (ls->us[i].path_mtu && (!mtu || ls->us[i].path_mtu < mtu))
			mtu = ls->us[i].path_mtu;
	return mtu;
}

void load_streams_sender_diag(const struct load_streams *ls, uint64_t *late_wakeup,
			      uint64_t *slow_send, uint64_t *blocked_send, uint64_t *refused)
{
	*late_wakeup = *slow_send = *blocked_send = *refused = 0;
	for (unsigned i = 0; ls->udp && ls->sender && ls->us && i < ls->n; i++) {
		*late_wakeup += ls->us[i].skipped_late_wakeup;
		*slow_send += ls->us[i].skipped_slow_send;
		*blocked_send += ls->us[i].skipped_blocked_send;
		*refused += ls->us[i].send_refused;
	}
}

int load_streams_error(const struct load_streams *ls)
{
	for (unsigned i = 0; i < ls->n; i++) {
		int e = ls->udp ? (ls->us ? ls->us[i].err : 0) : (ls->tcp ? ls->tcp[i].err : 0);

		if (e)
			return e;
	}
	return 0;
}

void load_streams_free(struct load_streams *ls)
{
	load_streams_stop(ls);
	for (unsigned i = 0; i < ls->n; i++) {
		if (ls->tcp && ls->tcp[i].fd >= 0)
			close(ls->tcp[i].fd);
		if (ls->us) {
			if (ls->us[i].fd >= 0)
				close(ls->us[i].fd);
			udp_stream_free(&ls->us[i]);
		}
	}
	free(ls->tcp);
	free(ls->us);
	ls->tcp = NULL;
	ls->us = NULL;
}
