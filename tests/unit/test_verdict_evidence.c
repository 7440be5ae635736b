// SPDX-License-Identifier: MIT
/* Verdicts that follow the evidence: each case's cause known by
 * construction (the figures the real-hosts runs measured), and what the
 * verdict may and may not say about it. A queue is the network's rate only
 * where every CPU on the path was read; a loss verdict says where the
 * segments were dropped and why; a fix never names the state in force. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "loss_place.h"
#include "run_limit.h"
#include "tcp_limit.h"
#include "verdict_fixture.h"

/* macros, not const objects: a static initializer takes only constants
 * (clang holds to the standard there) */
#define SHAPER_DROP                                                                                \
	{                                                                                          \
		.kind = TCP_DROP_SHAPER, .place = "the router's tbf on r0", .count = 812           \
	}

static const struct verdict_case cases[] = {
	/* the built-in overlay's far daemon in a 15 % quota, seen from a
	 * client whose server reports no host facts: a queue of 21 ms */
	{ "far daemon at its quota, not reported",
	  97e6,
	  21.6,
	  0.33,
	  0,
	  { .cpu_unknown = FAR },
	  TCP_LIMIT_UNKNOWN,
	  FAR,
	  "network rate",
	  "process",
	  "network" },
	/* x0.22 on the built-in overlay: 3.9 Gbit/s, its CoDel's queue 6 ms
	 * and 0.4 % resent, its daemon's CPU not read on the far host */
	{ "CPU-bound overlay, queue, no network evidence",
	  3.9e9,
	  6.3,
	  0.09,
	  0.004,
	  { .cpu_unknown = FAR },
	  TCP_LIMIT_UNKNOWN,
	  "which is unknown",
	  "network rate",
	  NULL,
	  "path's rate" },
	/* the same, the far daemon's thread read at a full core */
	{ "CPU-bound overlay, read",
	  3.9e9,
	  6.3,
	  0.09,
	  0.004,
	  { .overlay_cpu = 0.99, .overlay_thread = "ovl-tx0", .overlay_host = "the far host" },
	  TCP_LIMIT_OVERLAY_CPU,
	  "ovl-tx0 on the far host used 99 %",
	  "network rate",
	  NULL,
	  NULL },
	/* wireguard-go, TCP: 12.6 % resent behind a 9 ms queue, the same
	 * path's UDP trials lost 92 % at the sender's TUN */
	{ "TCP loss, UDP found the TUN",
	  640e6,
	  9.5,
	  0.2,
	  0.126,
	  { .udp_drop = TUN_DROP, .congestion = "bbr", .cpu_unknown = FAR },
	  TCP_LIMIT_LOSS,
	  "dropped at the sender's interface (92 % of the drops in this path's UDP trials), "
	  "whose reader wireguard-go's busiest thread used 99 % of a core",
	  "network rate",
	  "wireguard-go",
	  "bbr" },
	/* the same counted over this TCP test itself */
	{ "TCP loss, its own TUN drops",
	  640e6,
	  0.5,
	  0.2,
	  0.126,
	  { .trial_drop = { .kind = TCP_DROP_HOST,
			    .place = "the sender's TUN nebula1",
			    .count = 20544,
			    .process = "nebula",
			    .quota_cores = 0.5 } },
	  TCP_LIMIT_LOSS,
	  "dropped at the sender's TUN nebula1 (20544 packets, counted over this test), whose "
	  "reader nebula was held at its cgroup's quota of 0.50 cores",
	  "network rate",
	  "a larger CPU quota for nebula's cgroup (0.50 cores now",
	  "-C bbr" },
	/* random loss on the wire, BBR in force, far above what a loss-based
	 * control carries at 2 % and a 0.3 ms least round trip (Mathis: about
	 * 333 Mbit/s; the least round trip, not the 4 us the old case had, at
	 * which even that bound is 25 Gbit/s): BBR ran at its bottleneck's
	 * rate, the loss cost bytes */
	{ "random loss, BBR in force",
	  3.8e9,
	  0.39,
	  0.3,
	  0.02,
	  { .udp_drop = WIRE_DROP, .congestion = "bbr" },
	  TCP_LIMIT_NETWORK_RATE,
	  "BBR sent at the bottleneck rate it measured: the 2.0 % of the bytes resent (lost "
	  "between the hosts, by this path's UDP trials) cost their share of the bytes, not the "
	  "rate",
	  "find where",
	  "path's rate",
	  "-C bbr" },
	/* the same under cubic: the loss holds it; -C bbr, with what runs now */
	{ "random loss, cubic",
	  3.8e9,
	  0.39,
	  0.3,
	  0.02,
	  { .udp_drop = WIRE_DROP, .congestion = "cubic" },
	  TCP_LIMIT_LOSS,
	  NULL,
	  "BBR",
	  "-C bbr (cubic now)",
	  NULL },
	/* loss nowhere counted, BBR far above the loss's bound: not the loss,
	 * and no "find where" as the way to a faster flow */
	{ "loss, place unknown, BBR",
	  3.8e9,
	  0.39,
	  0.3,
	  0.02,
	  { .congestion = "bbr" },
	  TCP_LIMIT_NETWORK_RATE,
	  "(no drop counter read over this test)",
	  "find where",
	  NULL,
	  "bbr" },
	/* a 300 Mbit/s tbf on a router: its drops seen, the hosts' CPU not
	 * all read: the shaper's queue is evidence enough */
	{ "shaper's queue seen",
	  287e6,
	  4.7,
	  0.1,
	  0.0003,
	  { .trial_drop = SHAPER_DROP, .cpu_unknown = FAR },
	  TCP_LIMIT_NETWORK_RATE,
	  "dropped at the router's tbf on r0 (812 packets",
	  "no host's thread",
	  "path's rate",
	  NULL },
	/* a shaper seen dropping, 0.5 % resent and no queue left at the end:
	 * its rate, not a host's loss */
	{ "shaper's drops, no queue",
	  195e6,
	  0.15,
	  0.1,
	  0.005,
	  { .trial_drop = SHAPER_DROP, .cpu_unknown = FAR, .congestion = "cubic" },
	  TCP_LIMIT_NETWORK_RATE,
	  "the router's tbf on r0",
	  NULL,
	  "path's rate",
	  "-C bbr" },
	/* the same queue, no drop seen, every CPU read: the network's */
	{ "queue, every CPU read",
	  287e6,
	  4.7,
	  0.1,
	  0.0003,
	  { 0 },
	  TCP_LIMIT_NETWORK_RATE,
	  "no host's thread at a core",
	  NULL,
	  NULL,
	  NULL },
	/* a 953 Mbit/s flow through the lab's 1 Gbit/s tbf (956 Mbit/s of
	 * payload) while other work filled the machine's 2 cores: the link's
	 * rate, not the machine's CPU */
	{ "link rate reached, machine busy",
	  953e6,
	  1.2,
	  0.1,
	  0.0001,
	  { .path_bps = 956400000, .machine_cpus = 2, .machine_busy = 0.97 },
	  TCP_LIMIT_NETWORK_RATE,
	  "the flow reached the link's rate; the path's rate is 956",
	  "no host's thread",
	  "path's rate",
	  "more cores" },
	/* the same with the overlay's thread at a full core beside it */
	{ "link rate reached, overlay thread at a core",
	  953e6,
	  1.2,
	  0.1,
	  0.0001,
	  { .path_bps = 956400000,
	    .overlay_cpu = 0.99,
	    .overlay_thread = "ovl-tx0",
	    .overlay_host = "lab host 0" },
	  TCP_LIMIT_NETWORK_RATE,
	  "the overlay's 99 %",
	  "no host's thread",
	  "path's rate",
	  NULL },
	/* below the link's rate the busy machine is the limit */
	{ "below the link rate, machine busy",
	  600e6,
	  1.2,
	  0.1,
	  0.0001,
	  { .path_bps = 956400000, .machine_cpus = 2, .machine_busy = 0.97 },
	  TCP_LIMIT_HOST_CPU,
	  "cores were 97 % busy",
	  NULL,
	  "more cores",
	  NULL },
	/* ... and the link's rate known: the network's, whatever is unread */
	{ "link rate known",
	  287e6,
	  4.7,
	  0.1,
	  0.0003,
	  { .path_bps = 300000000, .cpu_unknown = FAR },
	  TCP_LIMIT_NETWORK_RATE,
	  "the path's rate is 300",
	  NULL,
	  NULL,
	  NULL },
};

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		verdict_check(&cases[i]);
}

/* A transmit drop at the sender's interface: over an overlay its TUN's
 * reader; elsewhere the interface named with its real queue length, or not
 * named at all where it was not read ("txqueuelen N (now 0)" never). */
static void test_sender_interface_fix(void **state)
{
	struct loss_attrib l;
	char fix[384];

	(void)state;
	memset(&l, 0, sizeof(l));
	loss_place_fix(fix, sizeof(fix), &l, LOSS_PLACE_SENDER_IF);
	assert_null(strstr(fix, "now 0"));
	assert_null(strstr(fix, " IF "));
	assert_non_null(strstr(fix, "ip -s link"));
	snprintf(l.qdisc_if, sizeof(l.qdisc_if), "veth0");
	l.sender_txqlen = 1000;
	loss_place_fix(fix, sizeof(fix), &l, LOSS_PLACE_SENDER_IF);
	assert_non_null(strstr(fix, "ip link set dev veth0 txqueuelen 2000 (now 1000)"));
	loss_place_fix_on(fix, sizeof(fix), &l, LOSS_PLACE_SENDER_IF, true, "wireguard-go", 0);
	assert_non_null(
		strstr(fix, "reading the overlay's TUN on the sending host (wireguard-go)"));
	assert_non_null(strstr(fix, "more CPU for it"));
	assert_null(strstr(fix, "txqueuelen"));
	/* its reader near a core: more CPU for it */
	loss_place_fix_on(fix, sizeof(fix), &l, LOSS_PLACE_SENDER_IF, true, "wireguard-go", 0.97);
	assert_non_null(strstr(fix, "more CPU for it"));
	/* its busiest thread at 19 % of a core (wireguard-go between two
	 * namespaces): it ran too late, not too slowly; no "more CPU" */
	loss_place_fix_on(fix, sizeof(fix), &l, LOSS_PLACE_SENDER_IF, true, "wireguard-go", 0.19);
	assert_non_null(strstr(fix, "a core of its own for wireguard-go, or a longer queue in "
				    "front of it"));
	assert_non_null(strstr(fix, "19 % of a core"));
	assert_null(strstr(fix, "more CPU"));
	assert_null(strstr(fix, "now 0"));
}

/* A run between two hosts (no lab links): wireguard-go's TCP trial with
 * 12.6 % resent behind a 9 ms queue, and its knee's loss above the NDR 92 %
 * at the sender's interface; and the underlay's queue on the same run. */
static void test_run_between_hosts(void **state)
{
	struct results_run run;
	struct results_trial tr[2];
	struct results_knee k;
	struct tcp_limit_verdict v;

	(void)state;
	two_paths(&run, tr, RESULTS_PATH_EXTERNAL);
	memset(&k, 0, sizeof(k));
	tcp(&tr[0].tcp, 287e6, 4.7, 0.1, 0.0003);
	tcp(&tr[1].tcp, 640e6, 9.5, 0.2, 0.126);
	snprintf(tr[1].congestion, sizeof(tr[1].congestion), "bbr");
	results_trial_tcp_limit(&run, &tr[1], &v);
	/* no UDP trial yet: a queue and a host's CPU unread decide nothing */
	assert_int_equal(v.limit, TCP_LIMIT_UNKNOWN);
	assert_non_null(strstr(v.evidence, "far host's CPU not reported"));
	k.path = 1;
	k.loss_at_bps = 700000000;
	k.loss_at.sender_link = 9200;
	k.loss_at.network = 800;
	run.knees = &k;
	run.nknees = 1;
	results_trial_tcp_limit(&run, &tr[1], &v);
	assert_int_equal(v.limit, TCP_LIMIT_LOSS);
	assert_non_null(strstr(v.evidence, "dropped at the sender's interface (92 %"));
	assert_non_null(strstr(v.fix, "TUN"));
	assert_null(strstr(v.fix, "bbr"));
	assert_null(strstr(v.fix, "txqueuelen"));
	/* the underlay's queue: its ends' threads reported, no overlay */
	results_trial_tcp_limit(&run, &tr[0], &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);
}

/* One end's Nebula, found by its TUN: its cores and its busiest thread's. */
static void nebula_at(struct hostfacts_proc *p, int pid, const char *tun, uint16_t port,
		      double cores, double busiest)
{
	*p = (struct hostfacts_proc){ .pid = pid,
				      .comm = "nebula",
				      .found_by = HOSTFACTS_BY_TUN,
				      .udp_port = port,
				      .cores = cores,
				      .busiest = "nebula",
				      .busiest_cores = busiest };
	snprintf(p->tun, sizeof(p->tun), "%s", tun);
}

/* A run between two hosts, Nebula found by its TUN at both ends by their
 * host facts (no lab, no process = key: the trial's own overlay fields
 * empty): 11434 drops at the far Nebula's UDP socket against 11334
 * segments resent. Its reader is the far Nebula, whose CPU the far host
 * read: its busiest thread named with its share, never "not read". */
static void test_run_facts_reader(void **state)
{
	struct results_run run;
	struct results_trial tr;
	struct tcp_limit_verdict v;
	struct hostfacts *snd = &tr.facts_client, *rcv = &tr.facts_server;
	struct results_knee k;

	(void)state;
	memset(&run, 0, sizeof(run));
	memset(&tr, 0, sizeof(tr));
	run.npaths = 1;
	run.paths[0].kind = RESULTS_PATH_EXTERNAL;
	run.ntrials = 1;
	run.trials = &tr;
	tr.kind = RESULTS_TRIAL_TCP;
	tr.streams = 1;
	tr.duration_s = 2;
	tcp(&tr.tcp, 319e6, 1.25, 0.097, 0.15);
	tr.tcp.sender.retransmits = 11334;
	snd->known = rcv->known = true;
	snd->softirq_busiest = rcv->softirq_busiest = -1;
	snd->nprocs = rcv->nprocs = 1;
	nebula_at(&snd->procs[0], 6781, "nbxc", 55494, 0.55, 0.32);
	nebula_at(&rcv->procs[0], 6780, "nbxs", 4242, 0.48, 0.22);
	rcv->nsocks = 1;
	rcv->socks[0] = (struct hostfacts_sock){
		.pid = 6780, .comm = "nebula", .port = 4242, .family = 6, .drops = 11434
	};
	results_trial_tcp_limit(&run, &tr, &v);
	print_message("%s: %s; fix: %s\n", tcp_limit_name(v.limit), v.evidence, v.fix);
	assert_int_equal(v.limit, TCP_LIMIT_LOSS);
	assert_non_null(strstr(v.evidence, "the receiving host's UDP port 4242 of nebula"));
	assert_non_null(strstr(v.evidence, "whose reader nebula's busiest thread nebula used 22 % "
					   "of a core"));
	assert_null(strstr(v.evidence, "not read"));
	assert_null(strstr(v.evidence, "network rate"));
	assert_non_null(strstr(v.fix, "nebula"));
	/* no drop counted over the TCP test, the path's UDP trials lost 92 %
	 * at the sender's TUN: its reader the busiest Nebula the facts read */
	rcv->nsocks = 0;
	memset(&k, 0, sizeof(k));
	k.loss_at_bps = 173000000;
	k.loss_at.sender_link = 9200;
	k.loss_at.network = 800;
	run.knees = &k;
	run.nknees = 1;
	results_trial_tcp_limit(&run, &tr, &v);
	print_message("%s: %s; fix: %s\n", tcp_limit_name(v.limit), v.evidence, v.fix);
	assert_int_equal(v.limit, TCP_LIMIT_LOSS);
	assert_non_null(strstr(v.evidence, "dropped at the sender's interface (92 %"));
	assert_non_null(
		strstr(v.evidence, "whose reader nebula's busiest thread nebula used 32 %"));
	/* at 32 % of a core it ran too late, not too slowly */
	assert_non_null(strstr(v.fix, "a core of its own for nebula, or a longer queue"));
	assert_null(strstr(v.fix, "more CPU"));
}

/* A TCP trial on run's path 0, 2 % resent, none of its own counters
 * risen: its verdict in v, from the path's UDP trials. */
static void tcp_lossy_limit(struct results_run *run, struct tcp_limit_verdict *v)
{
	struct results_trial *t = results_add_trial(run);

	assert_non_null(t);
	t->kind = RESULTS_TRIAL_TCP;
	t->streams = 1;
	t->duration_s = 3;
	tcp(&t->tcp, 3.8e9, 0.39, 0.004, 0.02);
	results_trial_tcp_limit(run, t, v);
}

/* A loss past every counter both hosts keep: the network's only with
 * evidence of it (a lab link whose conditions lose, or whose shaper the
 * trial reached), else unaccounted with what was read; the TCP verdict
 * of the same path says so too. The built-in overlay between two plain
 * namespaces lost 96 % of its datagrams above its NDR past every counter,
 * on veths that cannot lose. */
static const struct {
	const char *name;
	double loss_pct;   /* the lab link's random loss, 0: none */
	uint64_t rate_bps; /* its shaper, 0: none */
	uint64_t fail_bps; /* the first rate that lost */
	enum ndr_limit want;
	const char *says, *fix_says;
	enum tcp_drop_kind tcp;
} unaccounted_cases[] = {
	{ "veths between real hosts", 0, 0, 3200000000, NDR_LIMIT_UNACCOUNTED,
	  "96 % unaccounted: not counted by any counter ovlperf reads on either host",
	  "no link rate reached", TCP_DROP_UNACCOUNTED },
	{ "a lab link's 1 % loss", 1, 0, 3200000000, NDR_LIMIT_NETWORK,
	  "96 % at the network between the hosts", "lab link 0 (loss 1%)", TCP_DROP_NETWORK },
	/* (TCP through a shaper: its rate, not judged here) */
	{ "a 1 Gbit/s shaper below its rate", 0, 1000000000, 300000000, NDR_LIMIT_UNACCOUNTED,
	  "96 % unaccounted", "find where first", TCP_DROP_NONE },
	{ "a 1 Gbit/s shaper reached", 0, 1000000000, 960000000, NDR_LIMIT_NETWORK,
	  "96 % at the network between the hosts", "its 1 Gbit/s shaper, reached", TCP_DROP_NONE },
};

static void test_unaccounted(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(unaccounted_cases) / sizeof(unaccounted_cases[0]); i++) {
		const __typeof__(unaccounted_cases[0]) *u = &unaccounted_cases[i];
		struct results_run run;
		struct results_summary sum;
		struct results_trial *t;
		struct results_knee *k;
		struct ndr_limit_verdict v;
		struct tcp_limit_verdict tv;

		results_init(&run);
		assert_true(results_add_path(&run, "builtin", RESULTS_PATH_BUILTIN, "198.19.0.2",
					     1420) >= 0);
		if (u->loss_pct > 0 || u->rate_bps) {
			run.nlinks = 1;
			run.links[0].rate_bps = u->rate_bps;
			run.links[0].dir[0].loss_pct = u->loss_pct;
			snprintf(run.links[0].conditions, sizeof(run.links[0].conditions),
				 "loss 1%%");
		}
		t = results_add_trial(&run);
		t->kind = RESULTS_TRIAL_KNEE;
		t->len = 1400;
		t->target_bps = u->fail_bps;
		t->duration_s = 1;
		t->udp.sent = u->fail_bps / (1400 * 8);
		t->udp.lost = t->udp.sent / 2;
		t->udp.received = t->udp.sent - t->udp.lost;
		t->udp.loss_at.network = t->udp.lost * 96 / 100;
		t->udp.loss_at.sender_link = t->udp.lost - t->udp.loss_at.network;
		results_trial_network_where(&run, t);
		k = results_add_knee(&run);
		k->len = 1400;
		k->found = k->pdr_found = true;
		snprintf(k->ndr_outcome, sizeof(k->ndr_outcome), "found");
		snprintf(k->pdr_outcome, sizeof(k->pdr_outcome), "found");
		k->ndr_lower_bps = k->ndr_lower_achieved_bps = u->fail_bps * 9 / 10;
		k->pdr_lower_bps = k->pdr_lower_achieved_bps = k->ndr_lower_bps;
		k->ndr_upper_bps = k->loss_at_bps = u->fail_bps;
		k->loss_at = t->udp.loss_at;
		assert_int_equal(results_aggregate(&run, &sum), 0);
		assert_true(results_ndr_limit(&run, &sum, 0, 1400, &v));
		print_message("%s: %s: %s; fix: %s\n", u->name, ndr_limit_name(v.limit), v.evidence,
			      v.fix);
		assert_int_equal(v.limit, u->want);
		assert_non_null(strstr(v.evidence, u->says));
		assert_true(strstr(v.fix, u->fix_says) ||
			    strstr(t->udp.loss_at.network_where, u->fix_says));
		/* a TCP trial of the path, lossy, none of its own counters rose */
		if (u->tcp == TCP_DROP_NONE) {
			results_summary_free(&sum);
			results_free(&run);
			continue;
		}
		tcp_lossy_limit(&run, &tv);
		print_message("  TCP: %s: %s; fix: %s\n", tcp_limit_name(tv.limit), tv.evidence,
			      tv.fix);
		assert_int_equal(tv.limit, TCP_LIMIT_LOSS);
		if (u->tcp == TCP_DROP_UNACCOUNTED) {
			assert_non_null(strstr(tv.evidence, "(unaccounted)"));
			assert_null(strstr(tv.evidence, "between the hosts"));
			assert_null(strstr(tv.fix, "random loss on a link"));
		} else {
			assert_non_null(strstr(tv.evidence, "lost them between the hosts"));
		}
		results_summary_free(&sum);
		results_free(&run);
	}
}

/* The built-in overlay between two plain namespaces: its knee's first
 * lossy rate (2.78 Gbit/s) lost too little to count at any place, the
 * repetition's trials above it lost past every counter. The TCP verdict
 * reads those, never "no UDP trial on this path lost any". */
static void test_udp_drop_above(void **state)
{
	struct results_run run;
	struct results_trial *t;
	struct results_knee *k;
	struct tcp_limit_verdict v;
	const uint64_t rate[2] = { 2777284973, 3200000000 };

	(void)state;
	results_init(&run);
	assert_true(results_add_path(&run, "builtin", RESULTS_PATH_BUILTIN, "198.19.0.2", 1420) >=
		    0);
	for (unsigned i = 0; i < 2; i++) {
		t = results_add_trial(&run);
		t->kind = RESULTS_TRIAL_KNEE;
		t->len = 1200;
		t->target_bps = rate[i];
		t->udp.sent = 100000;
		t->udp.lost = i ? 20000 : 0;
		t->udp.loss_at.network = i ? 19400 : 0;
		t->udp.loss_at.sender_link = i ? 600 : 0;
	}
	k = results_add_knee(&run);
	k->len = 1200;
	k->loss_at_bps = rate[0];
	tcp_lossy_limit(&run, &v);
	print_message("%s: %s; fix: %s\n", tcp_limit_name(v.limit), v.evidence, v.fix);
	assert_int_equal(v.limit, TCP_LIMIT_LOSS);
	assert_non_null(strstr(v.evidence, "(unaccounted)"));
	assert_null(strstr(v.evidence, "lost any"));
	results_free(&run);
}

/* A TCP test's own counters: a host's drops of a tenth of the segments
 * resent or more name the place (over an overlay its TUN and its reader);
 * fewer are other traffic's; a shaper that held packets back is the
 * network's queue, seen, whatever CPU was not read. */
static void test_own_counters(void **state)
{
	struct tcp_result t;
	struct tcp_limit_drop d;
	struct tcp_limit_verdict v;
	struct tcp_limit_ctx c = { .cpu_unknown = FAR, .congestion = "cubic" };
	char place[96];

	(void)state;
	tcp(&t, 640e6, 0.5, 0.2, 0.126);
	t.drops = (struct tcp_drops){ .known = true, .sender_link_tx = 5000 };
	tcp_limit_drop_of(&t, true, "wireguard-go", place, sizeof(place), &d);
	assert_int_equal(d.kind, TCP_DROP_HOST);
	assert_int_equal(d.count, 5000);
	assert_string_equal(d.process, "wireguard-go");
	assert_non_null(strstr(d.place, "its TUN among them: tx drops"));
	c.trial_drop = d;
	tcp_limit_judge(&t, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_LOSS);
	assert_non_null(strstr(v.evidence, "(5000 packets, counted over this test), whose reader "
					   "is wireguard-go (its CPU not read)"));
	assert_non_null(strstr(v.fix, "more CPU for wireguard-go"));
	assert_null(strstr(v.fix, "-C bbr"));
	/* three drops at the receiver against 1000 segments resent: not the
	 * test's; the tbf that held packets back 4000 times is */
	tcp(&t, 195e6, 12.0, 0.1, 0.0002);
	t.drops = (struct tcp_drops){ .known = true,
				      .receiver_udp_drops = 3,
				      .qdisc_read = true,
				      .qdisc_held = 4000,
				      .qdisc_kind = "tbf",
				      .qdisc_if = "ovp0" };
	tcp_limit_drop_of(&t, false, NULL, place, sizeof(place), &d);
	assert_int_equal(d.kind, TCP_DROP_SHAPER);
	assert_non_null(strstr(d.place, "qdisc tbf on ovp0, which held packets back 4000 times"));
	c.trial_drop = d;
	tcp_limit_judge(&t, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);
	/* it held them back and dropped none: queued, not "dropped at" */
	assert_non_null(strstr(v.evidence, "; queued, not dropped, at the sending host's qdisc"));
	assert_null(strstr(v.evidence, "dropped at"));
	/* the same queue, the shaper not seen: undecided */
	t.drops.qdisc_held = 0;
	tcp_limit_drop_of(&t, false, NULL, place, sizeof(place), &c.trial_drop);
	assert_int_equal(c.trial_drop.kind, TCP_DROP_NONE);
	tcp_limit_judge(&t, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_UNKNOWN);
	/* counters not read (an older peer): nothing named */
	t.drops.known = false;
	t.drops.sender_link_tx = 99999;
	tcp_limit_drop_of(&t, false, NULL, place, sizeof(place), &d);
	assert_int_equal(d.kind, TCP_DROP_NONE);
}

/* Both ends' host facts, the real-hosts cases built so the cause
 * is known: wireguard-go found by its TUN at a full core on this host;
 * the far daemon at a 15 % quota; an old server; a tbf with every CPU
 * read and none at a core; a far VPN's UDP socket that dropped. */
static void test_facts(void **state)
{
	struct hostfacts snd, rcv;
	struct tcp_result t;
	struct tcp_facts_words w;
	struct tcp_limit_verdict v;
	struct tcp_limit_ctx c;

	(void)state;
	memset(&snd, 0, sizeof(snd));
	memset(&rcv, 0, sizeof(rcv));
	snd.known = rcv.known = true;
	snd.softirq_busiest = rcv.softirq_busiest = -1;
	snd.sysctl_known = true;
	snprintf(snd.cc, sizeof(snd.cc), "bbr");
	snd.nprocs = 1;
	snd.procs[0] = (struct hostfacts_proc){ .pid = 812,
						.comm = "wireguard-go",
						.found_by = HOSTFACTS_BY_TUN,
						.tun = "wg0",
						.cores = 1.4,
						.busiest = "wireguard-go",
						.busiest_cores = 0.99 };
	snd.nlinks = 1;
	snd.links[0] = (struct hostfacts_link){ .name = "wg0", .tun = true, .tx_drops = 9000 };
	tcp(&t, 640e6, 9.5, 0.2, 0.126);
	memset(&c, 0, sizeof(c));
	tcp_limit_from_facts(&snd, &rcv, "this host", "the far host", t.sender.retransmits, &w, &c);
	assert_null(c.cpu_unknown);
	assert_string_equal(c.congestion, "bbr");
	assert_string_equal(c.trial_drop.place, "the sending host's TUN wg0 (tx drops)");
	assert_string_equal(c.trial_drop.process, "wireguard-go");
	tcp_limit_judge(&t, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_OVERLAY_CPU);
	assert_non_null(strstr(v.evidence, "wireguard-go on this host used 99 % of a core, in "
					   "process wireguard-go"));
	/* below a core, the TUN's drops are the loss's place, its reader why */
	snd.procs[0].busiest_cores = 0.6;
	memset(&c, 0, sizeof(c));
	tcp_limit_from_facts(&snd, &rcv, "this host", "the far host", t.sender.retransmits, &w, &c);
	tcp_limit_judge(&t, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_LOSS);
	assert_non_null(strstr(v.evidence, "dropped at the sending host's TUN wg0 (tx drops) (9000 "
					   "packets, counted over this test), whose reader "
					   "wireguard-go's busiest thread wireguard-go used 60 %"));
	assert_non_null(strstr(v.fix, "more CPU for wireguard-go"));
	assert_null(strstr(v.fix, "bbr"));
	assert_null(strstr(v.fix, "txqueuelen"));

	/* the far daemon held at 15 % of a core: 2.4 s throttled in 3 s */
	memset(&snd, 0, sizeof(snd));
	snd.known = true;
	snd.softirq_busiest = -1;
	rcv.nprocs = 1;
	rcv.procs[0] = (struct hostfacts_proc){
		.comm = "ovlperf",
		.found_by = HOSTFACTS_BY_BUILTIN,
		.cores = 0.15,
		.busiest = "ovl-rx0",
		.busiest_cores = 0.09,
		.cgroup = { .found = true,
			    .version = 1,
			    .quota_cores = 0.15,
			    .throttled_ns = 2401000000 },
	};
	tcp(&t, 97e6, 21.6, 0.33, 0);
	memset(&c, 0, sizeof(c));
	c.duration_s = 3;
	tcp_limit_from_facts(&snd, &rcv, "this host", "the far host", t.sender.retransmits, &w, &c);
	tcp_limit_judge(&t, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_OVERLAY_CPU);
	assert_non_null(strstr(v.evidence,
			       "on the far host was held at its cgroup's CPU quota "
			       "(ovlperf, its busiest thread ovl-rx0 at 9 % of a core)"));
	assert_non_null(strstr(v.evidence, "throttled 2401 ms"));
	assert_non_null(strstr(v.fix, "larger CPU quota"));

	/* an old server: no facts, unknown and why, never the network */
	memset(&rcv, 0, sizeof(rcv));
	hostfacts_unknown(&rcv, "not reported by server ovlperf 0.1.0");
	memset(&c, 0, sizeof(c));
	tcp_limit_from_facts(&snd, &rcv, "this host", "the far host", t.sender.retransmits, &w, &c);
	assert_string_equal(c.cpu_unknown,
			    "the far host's CPU: not reported by server ovlperf 0.1.0");
	tcp_limit_judge(&t, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_UNKNOWN);
	assert_non_null(
		strstr(v.evidence, "the far host's CPU: not reported by server ovlperf 0.1.0"));

	/* a tbf between the hosts: both reported, nothing at a core */
	memset(&rcv, 0, sizeof(rcv));
	rcv.known = true;
	rcv.softirq_busiest = -1;
	tcp(&t, 287e6, 4.7, 0.1, 0.0003);
	memset(&c, 0, sizeof(c));
	tcp_limit_from_facts(&snd, &rcv, "this host", "the far host", t.sender.retransmits, &w, &c);
	tcp_limit_judge(&t, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);

	/* a far VPN's UDP socket that overflowed: its owner named */
	rcv.nsocks = 1;
	rcv.socks[0] = (struct hostfacts_sock){
		.pid = 901, .comm = "nebula", .port = 4242, .family = 4, .drops = 3000
	};
	rcv.nprocs = 1;
	rcv.procs[0] = (struct hostfacts_proc){ .comm = "nebula",
						.found_by = HOSTFACTS_BY_UDP,
						.udp_port = 4242,
						.busiest = "nebula",
						.busiest_cores = 0.97 };
	tcp(&t, 410e6, 0.6, 0.2, 0.11);
	memset(&c, 0, sizeof(c));
	tcp_limit_from_facts(&snd, &rcv, "this host", "the far host", t.sender.retransmits, &w, &c);
	assert_string_equal(c.trial_drop.place,
			    "the receiving host's UDP port 4242 of nebula (receive buffer drops)");
	tcp_limit_judge(&t, &c, &v);
	/* its thread at a core: the overlay's CPU on the far host */
	assert_int_equal(v.limit, TCP_LIMIT_OVERLAY_CPU);
	assert_non_null(strstr(v.evidence, "nebula on the far host used 97 %"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_sender_interface_fix),
		cmocka_unit_test(test_run_between_hosts),
		cmocka_unit_test(test_run_facts_reader),
		cmocka_unit_test(test_unaccounted),
		cmocka_unit_test(test_udp_drop_above),
		cmocka_unit_test(test_own_counters),
		cmocka_unit_test(test_facts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
