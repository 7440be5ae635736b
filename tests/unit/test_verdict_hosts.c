// SPDX-License-Identifier: MIT
/* A CPU-bound overlay between real hosts, whose cause is known by
 * construction: never "network rate" from a queue alone. Either a host's
 * every core was busy (its host facts: busy cores of how many), or the
 * same run's underlay carried far more over the network the overlay rides
 * on (two plain namespaces: the built-in overlay 5.25 Gbit/s against the
 * underlay's 17.6, no thread at a core, the machine 83 % busy, read
 * "network rate ... fix: none on the hosts"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "run_limit.h"
#include "tcp_limit.h"
#include "verdict_fixture.h"

/* Both ends' facts known, no overlay process read, cores busy on each. */
static void facts(struct hostfacts *f, double cores, double baseline)
{
	memset(f, 0, sizeof(*f));
	f->known = true;
	f->ncpu = 2;
	f->machine_cores = cores;
	f->baseline_cores = baseline;
	f->softirq_busiest = -1;
}

/* Every core of the far host busy, no thread at a core: that host's CPU,
 * named, with other work's share; below 90 % busy less other work's cores
 * at rest, the queue stands. */
static void test_far_machine_busy(void **state)
{
	struct tcp_result t;
	struct tcp_limit_ctx c = { 0 };
	struct tcp_limit_verdict v;
	struct tcp_facts_words w;
	struct hostfacts snd, rcv;

	(void)state;
	tcp(&t, 1.9e9, 2.0, 0.1, 0.0003);
	facts(&snd, 1.2, 0.1);
	facts(&rcv, 1.96, 0.06);
	tcp_limit_from_facts(&snd, &rcv, "this host", "the far host", t.sender.retransmits, &w, &c);
	tcp_limit_judge(&t, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_HOST_CPU);
	assert_non_null(strstr(v.evidence, "the far host's 2 cores were 95 % busy with the test, "
					   "other work's 0.06 cores at rest aside"));
	assert_non_null(strstr(v.fix, "more cores for the far host"));
	assert_null(strstr(v.fix, "lab"));
	/* other work's cores at rest say nothing of what the test needed: a
	 * lab link emulator polling, a build beside it */
	memset(&c, 0, sizeof(c));
	facts(&rcv, 1.96, 0.8);
	tcp_limit_from_facts(&snd, &rcv, "this host", "the far host", t.sender.retransmits, &w, &c);
	tcp_limit_judge(&t, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);
}

/* The run's underlay carried 17.6 Gbit/s, the overlay's flow 5.25 with a
 * queue of 1.94 ms: the overlay's hosts, not the network; the underlay at
 * 6 Gbit/s (within the encapsulation's room of 1.5x) leaves the queue to
 * the network. The underlay's own trial is never held to itself. */
static void test_underlay_carried_more(void **state)
{
	struct results_run run;
	struct results_trial tr[2];
	struct tcp_limit_verdict v;

	(void)state;
	two_paths(&run, tr, RESULTS_PATH_BUILTIN);
	tcp(&tr[0].tcp, 17.6e9, 0.03, 0.007, 0.00018);
	tcp(&tr[1].tcp, 5.25e9, 2.03, 0.091, 0.00461);
	facts(&tr[1].facts_client, 1.65, 0.04);
	facts(&tr[1].facts_server, 1.67, 0.07);
	results_trial_tcp_limit(&run, &tr[1], &v);
	assert_int_equal(v.limit, TCP_LIMIT_HOST_CPU);
	assert_non_null(strstr(v.evidence, "the underlay carried 17.6 Gbit/s over the same "
					   "network, 3.4 times this flow: not the network's rate"));
	assert_non_null(strstr(v.evidence, "the client's host's 2 cores 80 % busy with the test"));
	assert_null(strstr(v.fix, "none on the hosts"));
	tr[0].tcp.goodput_bps = 6000000000ULL;
	results_trial_tcp_limit(&run, &tr[1], &v);
	assert_int_equal(v.limit, TCP_LIMIT_NETWORK_RATE);
	results_trial_tcp_limit(&run, &tr[0], &v);
	assert_null(strstr(v.evidence, "the underlay carried"));
}

/* A drop's reader whose busiest thread used 16 % of a core (wireguard-go
 * between two namespaces, 13,026 drops at its socket) did not lack CPU:
 * it ran too late, and the fix says so; at 60 % it is more CPU. */
static void test_reader_not_busy(void **state)
{
	struct tcp_result t;
	struct tcp_limit_ctx c = { .congestion = "bbr" };
	struct tcp_limit_verdict v;

	(void)state;
	tcp(&t, 462e6, 5.7, 0.26, 0.09);
	c.trial_drop = (struct tcp_limit_drop){
		.kind = TCP_DROP_HOST,
		.count = 13026,
		.place = "the receiving host's UDP port 51820 of wireguard-go (receive buffer "
			 "drops)",
		.process = "wireguard-go",
		.process_cpu = 0.16,
	};
	tcp_limit_judge(&t, &c, &v);
	assert_int_equal(v.limit, TCP_LIMIT_LOSS);
	assert_non_null(strstr(v.fix, "a core of its own for wireguard-go, or a longer queue in "
				      "front of it: its busiest thread used 16 % of a core"));
	assert_null(strstr(v.fix, "more CPU"));
	c.trial_drop.process_cpu = 0.6;
	tcp_limit_judge(&t, &c, &v);
	assert_non_null(strstr(v.fix, "more CPU for wireguard-go"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_far_machine_busy),
		cmocka_unit_test(test_underlay_carried_more),
		cmocka_unit_test(test_reader_not_busy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
