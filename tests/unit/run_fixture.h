/* SPDX-License-Identifier: MIT */
/*
 * A synthetic run for the suite's unit tests: an underlay and a built-in
 * overlay with known figures, so that aggregates, overhead ratios, run.json
 * and the printers can be checked against values computed by hand.
 *
 *   TCP goodput (3 repetitions), underlay: 1 stream 900/1000/950 Mbit/s,
 *   4 streams 1800/2000/1900; overlay: 1 stream 300/200/250, 4 streams
 *   500/600/400. CPU s/Gbit: underlay 1.0, overlay 4.0 (each repetition).
 *   MSS: underlay 1448, overlay 1368.
 *   Knee (1400 B): underlay NDR 800 Mbit/s (PDR 840), overlay NDR 200
 *   (PDR 220); knee trials at 1000 (loss) and 500 (none) on each path.
 *   Delay at 100 Mbit/s: underlay p50 0.05 ms p99 0.2 ms, overlay 0.15 / 0.9.
 *
 * And a recorder of the suite's progress events (run.h), a run_progress_fn
 * that keeps a copy of each event for the tests to check. (static inline:
 * a test that includes this header uses some of the helpers, not all.)
 */
#ifndef RUN_FIXTURE_H
#define RUN_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "results.h"
#include "run.h"

#define FIXTURE_MAX_EVENTS 1024

/* An event as received, its pointers resolved into copies (they are valid
 * during the call only). */
struct fixture_event {
	struct run_progress ev;
	char path_name[64];
	char message[256];
	bool has_trial;
	struct results_trial trial; /* TRIAL_DONE: the trial as recorded */
	size_t nmtu;
};

struct fixture_events {
	unsigned n;
	unsigned dropped; /* beyond FIXTURE_MAX_EVENTS */
	struct fixture_event e[FIXTURE_MAX_EVENTS];
};

static inline void fixture_progress(void *arg, const struct run_progress *ev)
{
	struct fixture_events *fe = arg;
	struct fixture_event *e;

	if (fe->n == FIXTURE_MAX_EVENTS) {
		fe->dropped++;
		return;
	}
	e = &fe->e[fe->n++];
	memset(e, 0, sizeof(*e));
	e->ev = *ev;
	snprintf(e->path_name, sizeof(e->path_name), "%s", ev->path_name ? ev->path_name : "");
	snprintf(e->message, sizeof(e->message), "%s", ev->message ? ev->message : "");
	if (ev->trial) {
		e->has_trial = true;
		e->trial = *ev->trial;
	}
	e->nmtu = ev->nmtu;
	e->ev.path_name = NULL;
	e->ev.message = NULL;
	e->ev.trial = NULL;
	e->ev.mtu = NULL;
}

static inline void fixture_tcp(struct results_run *run, unsigned path, unsigned streams,
			       unsigned rep, double mbit, double cpu, uint32_t mss)
{
	struct results_trial *t = results_add_trial(run);

	t->path = path;
	t->rep = rep;
	t->kind = RESULTS_TRIAL_TCP;
	t->streams = streams;
	t->len = 131072;
	t->duration_s = 2.0;
	t->start_s = t->seq * 2.0;
	t->tcp.goodput_bps = (uint64_t)(mbit * 1e6);
	t->tcp.bytes = (uint64_t)(mbit * 1e6 * 2.0 / 8);
	t->tcp.sender.snd_mss = mss;
	t->tcp.sender.rtt_us = 50 + path * 100;
	t->tcp.sender.retransmits = rep;
	t->sender_cpu_s_per_gbit = cpu / 2;
	t->receiver_cpu_s_per_gbit = cpu / 2;
	t->host_cpu_s = cpu * 2 * (mbit / 1000.0);
	t->cpu_sender.user_s = 0.1;
	t->cpu_sender.sys_s = 0.5;
	t->cpu_sender.wall_s = 2.0;
}

static inline void fixture_udp(struct results_run *run, unsigned path, enum results_trial_kind kind,
			       uint64_t target_mbit, double delivered, double p50_ms, double p99_ms)
{
	struct results_trial *t = results_add_trial(run);
	uint64_t bps = target_mbit * 1000000;

	t->path = path;
	t->kind = kind;
	t->streams = 1;
	t->len = 1400;
	t->target_bps = bps;
	t->duration_s = 1.0;
	t->start_s = t->seq * 2.0;
	t->udp.target_bps = bps;
	t->udp.achieved_bps = bps;
	t->udp.len = 1400;
	t->udp.sent = bps / (1400 * 8);
	t->udp.received = (uint64_t)((double)t->udp.sent * delivered / 100.0);
	t->udp.lost = t->udp.sent - t->udp.received;
	t->udp.received_bps = t->udp.received * 1400 * 8;
	t->udp.sent_pps = t->udp.sent;
	t->udp.received_pps = t->udp.received;
	t->udp.owd.valid = true;
	t->udp.owd.p50_ns = (uint64_t)(p50_ms * 1e6);
	t->udp.owd.p99_ns = (uint64_t)(p99_ms * 1e6);
	t->udp.loss_at.network = t->udp.lost;
	/* the fixture's lab link lost them: the network, with its evidence */
	snprintf(t->udp.loss_at.network_where, sizeof(t->udp.loss_at.network_where),
		 "lab link 0 (its 1 Gbit/s shaper, reached)");
	t->udp.jitter_ms = 0.01;
}

static inline void fixture_knee(struct results_run *run, unsigned path, uint64_t ndr_mbit,
				uint64_t pdr_mbit)
{
	struct results_knee *k = results_add_knee(run);

	k->path = path;
	k->len = 1400;
	k->found = true;
	k->pdr_found = true;
	snprintf(k->ndr_outcome, sizeof(k->ndr_outcome), "found");
	snprintf(k->pdr_outcome, sizeof(k->pdr_outcome), "found");
	k->ndr_lower_bps = ndr_mbit * 1000000;
	k->ndr_upper_bps = ndr_mbit * 1000000 * 101 / 100;
	k->pdr_lower_bps = pdr_mbit * 1000000;
	k->pdr_upper_bps = pdr_mbit * 1000000 * 101 / 100;
	k->pdr_goal_pct = 0.5;
	k->width_goal = 0.01;
	k->trials = 9;
	k->time_s = 12.5;
	k->max_rx_bps = pdr_mbit * 1100000;
	k->loss_at.receiver_rcvbuf = 7;
	k->loss_at.network = 3;
	snprintf(k->loss_at.network_where, sizeof(k->loss_at.network_where),
		 "lab link 0 (its 1 Gbit/s shaper, reached)");
	k->loss_at_bps = k->ndr_upper_bps;
}

/* The fixture's delay trials as 50 % of the NDR, and a second round at
 * 90 % (180 Mbit/s): underlay p50/p99 0.06/0.5 ms, overlay 0.4/12 ms. */
static inline void fixture_two_loads(struct results_run *run)
{
	for (size_t i = 0; i < run->ntrials; i++)
		if (run->trials[i].kind == RESULTS_TRIAL_DELAY)
			run->trials[i].load_pct = 50;
	for (unsigned rep = 0; rep < 3; rep++) {
		for (unsigned p = 0; p < 2; p++) {
			struct results_trial *t;

			fixture_udp(run, p, RESULTS_TRIAL_DELAY, 180, 100.0, p ? 0.4 : 0.06,
				    p ? 12.0 : 0.5);
			t = &run->trials[run->ntrials - 1];
			t->load_pct = 90;
			t->rep = rep;
			/* the overlay's receiver waited 8, 9, 10 ms (p99) of its 12 */
			if (p)
				t->udp.rx_wait =
					(struct owd_summary){ .valid = true,
							      .min_ns = 1000,
							      .p50_ns = 20000,
							      .p99_ns = (8 + rep) * 1000000ull,
							      .max_ns = 11000000,
							      .mean_ns = 50000 };
		}
	}
}

static inline void fixture_run(struct results_run *run)
{
	static const double ul1[] = { 900, 1000, 950 }, ul4[] = { 1800, 2000, 1900 };
	static const double ov1[] = { 300, 200, 250 }, ov4[] = { 500, 600, 400 };
	struct results_mtu_check *m;

	results_init(run);
	snprintf(run->scenario_name, sizeof(run->scenario_name), "fixture");
	snprintf(run->scenario_file, sizeof(run->scenario_file), "tests/fixture.ini");
	run->scenario_text = strdup("[scenario]\nname = fixture\n");
	snprintf(run->started_utc, sizeof(run->started_utc), "2026-11-30T09:00:00Z");
	snprintf(run->host.kernel, sizeof(run->host.kernel), "Linux 6.1.0 #1 SMP x86_64");
	snprintf(run->host.cpu, sizeof(run->host.cpu), "Test CPU \"quoted\" model");
	run->host.ncpu = 2;
	run->complete = true;
	run->duration_s = 99.5;
	run->delay_load_bps = 100000000;
	results_add_path(run, "underlay", RESULTS_PATH_UNDERLAY, "198.18.0.2", 1500);
	results_add_path(run, "overlay", RESULTS_PATH_BUILTIN, "198.19.0.2", 1420);
	/* Interleaved as the run does it: A, B, A, B. */
	for (unsigned rep = 0; rep < 3; rep++) {
		fixture_tcp(run, 0, 1, rep, ul1[rep], 1.0, 1448);
		fixture_tcp(run, 1, 1, rep, ov1[rep], 4.0, 1368);
		fixture_tcp(run, 0, 4, rep, ul4[rep], 1.0, 1448);
		fixture_tcp(run, 1, 4, rep, ov4[rep], 4.0, 1368);
	}
	fixture_udp(run, 0, RESULTS_TRIAL_KNEE, 1000, 84.0, 0.5, 2.0);
	fixture_udp(run, 1, RESULTS_TRIAL_KNEE, 1000, 22.0, 3.0, 9.0);
	fixture_udp(run, 0, RESULTS_TRIAL_KNEE, 500, 100.0, 0.06, 0.25);
	fixture_udp(run, 1, RESULTS_TRIAL_KNEE, 500, 40.0, 2.5, 8.0);
	fixture_udp(run, 1, RESULTS_TRIAL_KNEE, 200, 100.0, 0.2, 1.0);
	fixture_knee(run, 0, 800, 840);
	fixture_knee(run, 1, 200, 220);
	for (unsigned rep = 0; rep < 3; rep++) {
		fixture_udp(run, 0, RESULTS_TRIAL_DELAY, 100, 100.0, 0.05, 0.2);
		fixture_udp(run, 1, RESULTS_TRIAL_DELAY, 100, 100.0, 0.15, 0.9);
	}
	m = results_add_mtu(run);
	m->path = 1;
	snprintf(m->check, sizeof(m->check), "pmtu");
	m->verdict = RESULTS_WARN;
	m->value = 1420;
	snprintf(m->reason, sizeof(m->reason), "overlay MTU 1420 confirmed");
	snprintf(m->fix, sizeof(m->fix), "clamp MSS to 1380 on the overlay interface");
}

#endif
