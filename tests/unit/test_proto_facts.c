// SPDX-License-Identifier: MIT
/* HOST_FACTS on the wire: every field through an encode and a decode, the
 * length checked against the counts, a later version's tail skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hostfacts_fixture.h"
#include "proto.h"

static uint8_t buf[PROTO_MAX_MSG];

/* f as HOST_FACTS in buf, parsed into m */
static void encoded(const struct hostfacts *f, struct proto_msg *m)
{
	ssize_t n = proto_encode_host_facts(buf, sizeof(buf), f);

	assert_true(n > 0);
	assert_int_equal(proto_parse(buf, (size_t)n, m), 0);
	assert_int_equal(m->type, PROTO_HOST_FACTS);
}

static void test_round_trip(void **state)
{
	struct hostfacts f, g;
	struct proto_msg m;

	(void)state;
	sample(&f);
	encoded(&f, &m);
	assert_int_equal(m.len, PROTO_FACTS_FIXED_LEN + 3 * PROTO_FACTS_PROC_LEN +
					PROTO_FACTS_LINK_LEN + PROTO_FACTS_SOCK_LEN + 2 * 4);
	assert_int_equal(proto_decode_host_facts(m.body, m.len, &g), 0);
	assert_true(g.known);
	assert_string_equal(g.unknown, "");
	assert_float_equal(g.window_s, 10.000123, 1e-6);
	assert_int_equal(g.test.pid, 4242);
	assert_float_equal(g.test.cores, 0.987654, 1e-6);
	assert_int_equal(g.nprocs, 2);
	assert_int_equal(g.procs[1].pid, 77);
	assert_int_equal(g.procs[1].found_by, HOSTFACTS_BY_TUN | HOSTFACTS_BY_PROCESS);
	assert_string_equal(g.procs[1].comm, "wireguard-go");
	assert_string_equal(g.procs[1].tun, "fawg0");
	assert_int_equal(g.procs[1].udp_port, 51820);
	assert_float_equal(g.procs[1].cores, 1.5, 1e-6);
	assert_string_equal(g.procs[1].busiest, "wireguard-go");
	assert_int_equal(g.procs[1].busiest_tid, 80);
	assert_float_equal(g.procs[1].busiest_cores, 0.999, 1e-6);
	assert_true(g.procs[1].cgroup.found);
	assert_int_equal(g.procs[1].cgroup.version, 1);
	assert_float_equal(g.procs[1].cgroup.quota_cores, 0.15, 1e-6);
	assert_int_equal(g.procs[1].cgroup.throttled_ns, 2401000000ULL);
	assert_int_equal(g.procs[1].cgroup.nr_periods, 100);
	assert_int_equal(g.procs[1].cgroup.nr_throttled, 34);
	assert_string_equal(g.procs[1].cgroup.path, "/fa-quota");
	assert_false(g.procs[0].cgroup.found);
	assert_float_equal(g.machine_cores, 1.75, 1e-6);
	assert_float_equal(g.baseline_cores, 0.25, 1e-6);
	assert_true(g.rest_moved);
	assert_int_equal(g.ncpu, 2);
	assert_float_equal(g.softirq[1], 0.97, 1e-6);
	assert_int_equal(g.softirq_busiest, 1);
	assert_true(g.softnet_known);
	assert_int_equal(g.softnet_dropped, 12);
	assert_int_equal(g.softnet_squeezed, 1ULL << 40);
	assert_int_equal(g.nlinks, 1);
	assert_string_equal(g.links[0].name, "fawg0");
	assert_true(g.links[0].tun);
	assert_int_equal(g.links[0].txqlen, 500);
	assert_int_equal(g.links[0].tx_drops, 9876);
	assert_int_equal(g.nsocks, 1);
	assert_int_equal(g.socks[0].port, 51820);
	assert_int_equal(g.socks[0].family, 6);
	assert_string_equal(g.socks[0].comm, "wireguard-go");
	assert_true(g.sysctl_known);
	assert_string_equal(g.cc, "bbr");
	assert_int_equal(g.tcp_rmem[2], 6291456);
	assert_int_equal(g.tcp_wmem[2], 4194304);
	assert_int_equal(g.rmem_max, 212992);
}

/* No baseline measured, no softirq CPU: they stay unknown, not 0. */
static void test_unknowns(void **state)
{
	struct hostfacts f, g;
	struct proto_msg m;

	(void)state;
	hostfacts_unknown(&f, NULL);
	f.known = true;
	encoded(&f, &m);
	assert_int_equal(m.len, PROTO_FACTS_FIXED_LEN + PROTO_FACTS_PROC_LEN);
	assert_int_equal(proto_decode_host_facts(m.body, m.len, &g), 0);
	assert_true(g.baseline_cores < 0);
	assert_int_equal(g.softirq_busiest, -1);
	assert_false(g.sysctl_known);
	assert_false(g.softnet_known);
}

static void test_lengths(void **state)
{
	struct hostfacts f, g;
	struct proto_msg m;

	(void)state;
	sample(&f);
	encoded(&f, &m);
	/* one byte short, one too many: refused */
	assert_int_equal(proto_decode_host_facts(m.body, m.len - 1, &g), PROTO_E_LENGTH);
	assert_false(g.known);
	assert_int_equal(proto_decode_host_facts(m.body, m.len + 1, &g), PROTO_E_LENGTH);
	assert_int_equal(proto_decode_host_facts(m.body, 10, &g), PROTO_E_LENGTH);
	/* a later version may carry a tail */
	buf[PROTO_HDR_LEN + 1] = 2;
	assert_int_equal(proto_decode_host_facts(m.body, m.len + 1, &g), 0);
	assert_int_equal(g.procs[1].udp_port, 51820);
	/* version 0, or a count above the maxima: refused */
	buf[PROTO_HDR_LEN + 1] = 0;
	assert_int_equal(proto_decode_host_facts(m.body, m.len, &g), PROTO_E_VALUE);
	buf[PROTO_HDR_LEN + 1] = 1;
	buf[PROTO_HDR_LEN + 4] = HOSTFACTS_MAX_PROCS + 1;
	assert_int_equal(proto_decode_host_facts(m.body, m.len, &g), PROTO_E_VALUE);
	assert_string_equal(proto_type_name(PROTO_HOST_FACTS), "HOST_FACTS");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_unknowns),
		cmocka_unit_test(test_lengths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
