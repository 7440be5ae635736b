// SPDX-License-Identifier: MIT
/*
 * /proc/net/snmp, snmp6 and dev parsing on real-looking samples (current and
 * older kernels, IPv6), malformed text, deltas, and the loss attribution:
 * table cases plus the invariant that the places always add up to the loss.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "netcounters.h"
#include "qdiscstats.h"
#include "loss_place.h"
#include "report_load.h"

/* Linux 6.1: OutTransmits absent, Tcp MaxConn -1, UdpLite after Udp. */
static const char snmp_61[] =
	"Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams "
	"InUnknownProtos InDiscards InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout "
	"ReasmReqds ReasmOKs ReasmFails FragOKs FragFails FragCreates\n"
	"Ip: 1 64 9182736 0 2 0 0 17 9182000 8811223 4 3 0 120 40 2 11 1 33\n"
	"Icmp: InMsgs InErrors InCsumErrors InDestUnreachs InTimeExcds InParmProbs InSrcQuenchs "
	"InRedirects InEchos InEchoReps InTimestamps InTimestampReps InAddrMasks InAddrMaskReps "
	"OutMsgs OutErrors OutRateLimitGlobal OutRateLimitHost OutDestUnreachs OutTimeExcds "
	"OutParmProbs OutSrcQuenchs OutRedirects OutEchos OutEchoReps OutTimestamps "
	"OutTimestampReps OutAddrMasks OutAddrMaskReps\n"
	"Icmp: 45 0 0 45 0 0 0 0 0 0 0 0 0 0 52 0 0 0 52 0 0 0 0 0 0 0 0 0 0\n"
	"IcmpMsg: InType3 OutType3\n"
	"IcmpMsg: 45 52\n"
	"Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails "
	"EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
	"Tcp: 1 200 120000 -1 1533 22 61 7 3 8811000 9122000 1222 0 101 0\n"
	"Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors "
	"IgnoredMulti MemErrors\n"
	"Udp: 7140001 52 4321 7150002 4300 77 21 0 0\n"
	"UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors "
	"InCsumErrors IgnoredMulti MemErrors\n"
	"UdpLite: 0 0 0 0 0 0 0 0 0\n";

/* Linux 3.x: no InCsumErrors/IgnoredMulti in Udp. */
static const char snmp_old[] =
	"Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams "
	"InUnknownProtos InDiscards InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout "
	"ReasmReqds ReasmOKs ReasmFails FragOKs FragFails FragCreates\n"
	"Ip: 2 64 100 0 0 0 0 0 100 90 0 0 0 0 0 0 0 0 0\n"
	"Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\n"
	"Udp: 10 1 2 20 1 3\n";

static const char snmp6_sample[] = "Ip6InReceives                   \t5531\n"
				   "Ip6InHdrErrors                  \t0\n"
				   "Ip6InDiscards                   \t3\n"
				   "Ip6OutDiscards                  \t1\n"
				   "Ip6OutNoRoutes                  \t12\n"
				   "Ip6ReasmTimeout                 \t0\n"
				   "Ip6ReasmReqds                   \t24\n"
				   "Ip6ReasmOKs                     \t8\n"
				   "Ip6ReasmFails                   \t0\n"
				   "Ip6FragOKs                      \t5\n"
				   "Ip6FragFails                    \t2\n"
				   "Ip6FragCreates                  \t15\n"
				   "Ip6InOctets                     \t18446744073709551615\n"
				   "Icmp6InMsgs                     \t14\n"
				   "Icmp6OutType135                 \t3\n"
				   "Udp6InDatagrams                 \t300\n"
				   "Udp6NoPorts                     \t1\n"
				   "Udp6InErrors                    \t9\n"
				   "Udp6OutDatagrams                \t310\n"
				   "Udp6RcvbufErrors                \t8\n"
				   "Udp6SndbufErrors                \t4\n"
				   "Udp6InCsumErrors                \t1\n"
				   "Udp6IgnoredMulti                \t0\n"
				   "Udp6MemErrors                   \t0\n"
				   "UdpLite6InDatagrams             \t0\n"
				   "UdpLite6InErrors                \t77\n";

static const char dev_sample[] =
	"Inter-|   Receive                                                |  Transmit\n"
	" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets "
	"errs drop fifo colls carrier compressed\n"
	"    lo:  104876     912    0    0    0     0          0         0   104876     912    "
	"0    0    0     0       0          0\n"
	"  eth0: 9812736455 7812331    0   42    3     0          0      1203 1827364511 "
	"5123321    0    7    1     0       0          0\n"
	"ovl-u0.5: 1000 10 1 2 0 0 0 0 2000 20 0 5 0 0 0 0\n"
	"veth-lab1: 18446744073709551615 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

static void test_parse_snmp(void **state)
{
	struct netcounters nc;

	(void)state;
	netcounters_init(&nc);
	assert_int_equal(netcounters_parse_snmp(snmp_61, strlen(snmp_61), &nc), 0);
	assert_true(nc.udp.valid);
	assert_int_equal(nc.udp.in_datagrams, 7140001);
	assert_int_equal(nc.udp.no_ports, 52);
	assert_int_equal(nc.udp.in_errors, 4321);
	assert_int_equal(nc.udp.out_datagrams, 7150002);
	assert_int_equal(nc.udp.rcvbuf_errors, 4300);
	assert_int_equal(nc.udp.sndbuf_errors, 77);
	assert_int_equal(nc.udp.in_csum_errors, 21);
	assert_true(nc.ip.valid);
	assert_int_equal(nc.ip.reasm_reqds, 120);
	assert_int_equal(nc.ip.reasm_oks, 40);
	assert_int_equal(nc.ip.reasm_fails, 2);
	assert_int_equal(nc.ip.frag_oks, 11);
	assert_int_equal(nc.ip.frag_fails, 1);
	assert_int_equal(nc.ip.frag_creates, 33);
	assert_int_equal(nc.ip.out_no_routes, 3);
	assert_int_equal(nc.ip.in_discards, 17);
	assert_int_equal(nc.ip.out_discards, 4);
	assert_false(nc.udp6.valid);

	netcounters_init(&nc);
	assert_int_equal(netcounters_parse_snmp(snmp_old, strlen(snmp_old), &nc), 0);
	assert_int_equal(nc.udp.sndbuf_errors, 3);
	assert_int_equal(nc.udp.in_csum_errors, 0);
	/* not NUL-terminated: only len bytes count (cut inside the Udp values) */
	netcounters_init(&nc);
	assert_int_equal(netcounters_parse_snmp(snmp_old, strlen(snmp_old) - 4, &nc), -EINVAL);
}

static void test_parse_snmp_malformed(void **state)
{
	static const struct {
		const char *text;
		int err;
	} cases[] = {
		{ "", -EINVAL },
		{ "\n\n", -EINVAL },
		{ "Udp: InDatagrams NoPorts\n", -EINVAL },		      /* no value line */
		{ "Udp: InDatagrams NoPorts\nIp: 1 2\n", -EINVAL },	      /* wrong pair */
		{ "Udp: InDatagrams NoPorts\nUdp: 1\n", -EINVAL },	      /* count */
		{ "Udp: InDatagrams NoPorts\nUdp: 1 2 3\n", -EINVAL },	      /* count */
		{ "Udp: InDatagrams NoPorts\nUdp: 1 x\n", -EINVAL },	      /* number */
		{ "Udp: InDatagrams NoPorts\nUdp: -1 2\n", -EINVAL },	      /* negative */
		{ "Udp: InDatagrams\nUdp: 18446744073709551616\n", -ERANGE }, /* 2^64 */
		{ "Udp: InDatagrams\nUdp: 18446744073709551615\n", 0 },
		{ "garbage without colon\n", -EINVAL },
		{ ": x\n: 1\n", -EINVAL },
		{ "Tcp: MaxConn\nTcp: -1\n", 0 }, /* fields we don't use may be anything */
	};
	struct netcounters nc;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		netcounters_init(&nc);
		print_message("case %zu: %s", i, cases[i].text);
		assert_int_equal(netcounters_parse_snmp(cases[i].text, strlen(cases[i].text), &nc),
				 cases[i].err);
	}
}

static void test_parse_snmp6(void **state)
{
	static const char *const bad[] = {
		"",
		"Udp6InDatagrams\n",
		"Udp6InDatagrams 1 2\n",
		"Udp6InDatagrams x\n",
		"Udp6InDatagrams 99999999999999999999\n",
	};
	struct netcounters nc;
	size_t i;

	(void)state;
	netcounters_init(&nc);
	assert_int_equal(netcounters_parse_snmp6(snmp6_sample, strlen(snmp6_sample), &nc), 0);
	assert_true(nc.udp6.valid);
	assert_true(nc.ip6.valid);
	assert_int_equal(nc.udp6.in_datagrams, 300);
	assert_int_equal(nc.udp6.no_ports, 1);
	assert_int_equal(nc.udp6.in_errors, 9); /* not UdpLite6InErrors */
	assert_int_equal(nc.udp6.out_datagrams, 310);
	assert_int_equal(nc.udp6.rcvbuf_errors, 8);
	assert_int_equal(nc.udp6.sndbuf_errors, 4);
	assert_int_equal(nc.udp6.in_csum_errors, 1);
	assert_int_equal(nc.ip6.reasm_reqds, 24);
	assert_int_equal(nc.ip6.reasm_oks, 8);
	assert_int_equal(nc.ip6.frag_oks, 5);
	assert_int_equal(nc.ip6.frag_fails, 2);
	assert_int_equal(nc.ip6.frag_creates, 15);
	assert_int_equal(nc.ip6.in_discards, 3);
	assert_int_equal(nc.ip6.out_no_routes, 12);
	assert_false(nc.udp.valid);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		netcounters_init(&nc);
		assert_true(netcounters_parse_snmp6(bad[i], strlen(bad[i]), &nc) < 0);
	}
}

static void test_parse_dev(void **state)
{
	struct netcounters nc;
	uint64_t rx, tx;
	char big[64 * 100 + 512];
	size_t off;
	int i;

	(void)state;
	netcounters_init(&nc);
	assert_int_equal(netcounters_parse_dev(dev_sample, strlen(dev_sample), &nc), 0);
	assert_int_equal(nc.nlinks, 4);
	assert_string_equal(nc.links[0].name, "lo");
	assert_string_equal(nc.links[1].name, "eth0");
	assert_int_equal(nc.links[1].rx_bytes, 9812736455ULL);
	assert_int_equal(nc.links[1].rx_packets, 7812331);
	assert_int_equal(nc.links[1].rx_drop, 42);
	assert_int_equal(nc.links[1].rx_fifo, 3);
	assert_int_equal(nc.links[1].tx_bytes, 1827364511ULL);
	assert_int_equal(nc.links[1].tx_drop, 7);
	assert_int_equal(nc.links[1].tx_fifo, 1);
	assert_string_equal(nc.links[2].name, "ovl-u0.5");
	assert_int_equal(nc.links[2].rx_errs, 1);
	assert_int_equal(nc.links[3].rx_bytes, UINT64_MAX);
	/* all but lo; or one by name */
	netcounters_link_drops(&nc, NULL, &rx, &tx);
	assert_int_equal(rx, 42 + 3 + 2);
	assert_int_equal(tx, 7 + 1 + 5);
	netcounters_link_drops(&nc, "ovl-u0.5", &rx, &tx);
	assert_int_equal(rx, 2);
	assert_int_equal(tx, 5);
	netcounters_link_drops(&nc, "nope", &rx, &tx);
	assert_int_equal(rx + tx, 0);

	/* more interfaces than we keep: flagged, not an error */
	off = (size_t)snprintf(big, sizeof(big), "Inter-|\n face |\n");
	for (i = 0; i < NETCOUNTERS_MAX_LINKS + 3; i++)
		off += (size_t)snprintf(big + off, sizeof(big) - off,
					"v%d: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", i);
	netcounters_init(&nc);
	assert_int_equal(netcounters_parse_dev(big, off, &nc), 0);
	assert_int_equal(nc.nlinks, NETCOUNTERS_MAX_LINKS);
	assert_true(nc.links_truncated);
}

static void test_parse_dev_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"lo: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", /* no header */
		"Inter-|\n face |\nlo: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n",
		"Inter-|\n face |\nlo: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n",
		"Inter-|\n face |\nlo 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n",
		"Inter-|\n face |\nabcdefghijklmnop: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n",
		"Inter-|\n face |\n: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n",
		"Inter-|\n face |\nlo: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 x\n",
	};
	struct netcounters nc;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		netcounters_init(&nc);
		print_message("case %zu\n", i);
		assert_true(netcounters_parse_dev(bad[i], strlen(bad[i]), &nc) < 0);
	}
	/* a name of 15 characters is the longest there is */
	static const char ok[] =
		"Inter-|\n face |\nabcdefghijklmno: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n";
	netcounters_init(&nc);
	assert_int_equal(netcounters_parse_dev(ok, strlen(ok), &nc), 0);
	assert_string_equal(nc.links[0].name, "abcdefghijklmno");
}

static void test_delta(void **state)
{
	struct netcounters a, b, d;

	(void)state;
	netcounters_init(&a);
	netcounters_init(&b);
	a.udp.valid = b.udp.valid = true;
	a.udp.rcvbuf_errors = 100;
	b.udp.rcvbuf_errors = 350;
	a.udp.in_errors = 10;
	b.udp.in_errors = 5; /* went backwards (namespace recreated): 0 */
	b.udp6.valid = true; /* only after: invalid delta */
	b.udp6.in_errors = 4;
	a.ip.valid = b.ip.valid = true;
	a.ip.frag_creates = 1;
	b.ip.frag_creates = 9;
	a.nlinks = 2;
	strcpy(a.links[0].name, "eth0");
	a.links[0].rx_drop = 5;
	strcpy(a.links[1].name, "gone0");
	b.nlinks = 2;
	strcpy(b.links[0].name, "new0");
	b.links[0].tx_drop = 3;
	strcpy(b.links[1].name, "eth0");
	b.links[1].rx_drop = 12;
	netcounters_delta(&a, &b, &d);
	assert_true(d.udp.valid);
	assert_false(d.udp6.valid);
	assert_int_equal(d.udp.rcvbuf_errors, 250);
	assert_int_equal(d.udp.in_errors, 0);
	assert_int_equal(d.ip.frag_creates, 8);
	assert_int_equal(d.nlinks, 2);
	assert_string_equal(d.links[0].name, "new0");
	assert_int_equal(d.links[0].tx_drop, 3);
	assert_string_equal(d.links[1].name, "eth0");
	assert_int_equal(d.links[1].rx_drop, 7);
}

/* The real files of this namespace parse. */
static void test_read_live(void **state)
{
	struct netcounters a, b, d;

	(void)state;
	assert_int_equal(netcounters_read(&a), 0);
	assert_true(a.udp.valid);
	assert_true(a.ip.valid);
	assert_true(a.nlinks >= 1);
	assert_non_null(memchr(a.links[0].name, '\0', sizeof(a.links[0].name)));
	assert_int_equal(netcounters_read(&b), 0);
	netcounters_delta(&a, &b, &d);
	assert_true(d.udp.valid);
}

struct attrib_case {
	const char *name;
	struct loss_inputs in;
	struct loss_attrib want;
};

static const struct attrib_case attrib_cases[] = {
	{ "nothing lost", { .lost = 0, .sender_sndbuf = 5, .receiver_rcvbuf = 9 }, { 0 } },
	{ "all on the path", { .lost = 100 }, { .network = 100 } },
	{ "socket overflow, counted twice by the host",
	  { .lost = 100, .receiver_rxq_ovfl = 60, .receiver_rcvbuf = 60, .receiver_inerrors = 60 },
	  { .receiver_socket = 60, .network = 40 } },
	{ "host rcvbuf without SO_RXQ_OVFL",
	  { .lost = 100, .receiver_rcvbuf = 70, .receiver_inerrors = 75 },
	  { .receiver_rcvbuf = 70, .receiver_inerrors = 5, .network = 25 } },
	{ "socket drops beyond rcvbuf (checksum, filter)",
	  { .lost = 100, .receiver_rxq_ovfl = 10, .receiver_rcvbuf = 4, .receiver_inerrors = 12 },
	  { .receiver_socket = 10, .receiver_inerrors = 2, .network = 88 } },
	{ "sender qdisc drops, visible errors excluded",
	  { .lost = 50, .sender_sndbuf = 30, .sender_send_errors = 10 },
	  { .sender_sndbuf = 20, .network = 30 } },
	{ "visible send errors explain nothing",
	  { .lost = 50, .sender_sndbuf = 10, .sender_send_errors = 12 },
	  { .network = 50 } },
	{ "links",
	  { .lost = 20, .sender_link_tx = 5, .receiver_link_rx = 7 },
	  { .sender_link = 5, .receiver_link = 7, .network = 8 } },
	{ "counters with other traffic: capped in path order",
	  { .lost = 10,
	    .receiver_rxq_ovfl = 4,
	    .sender_sndbuf = 3,
	    .sender_link_tx = 100,
	    .receiver_link_rx = 100,
	    .receiver_rcvbuf = 1000,
	    .receiver_inerrors = 5000 },
	  { .receiver_socket = 4, .sender_sndbuf = 3, .sender_link = 3 } },
	{ "everything at once",
	  { .lost = 1000,
	    .receiver_rxq_ovfl = 100,
	    .sender_sndbuf = 50,
	    .sender_link_tx = 25,
	    .receiver_link_rx = 25,
	    .receiver_rcvbuf = 300,
	    .receiver_inerrors = 350 },
	  { .receiver_socket = 100,
	    .sender_sndbuf = 50,
	    .sender_link = 25,
	    .receiver_link = 25,
	    .receiver_rcvbuf = 200,
	    .receiver_inerrors = 50,
	    .network = 550 } },
	{ "shaper without offloads: refused and skipped messages, one datagram each",
	  { .lost = 40,
	    .sender_sndbuf = 40, /* each dropped call counted: not the socket buffer */
	    .has_local = true,
	    .qdisc_read = true,
	    .qdisc_drops = 40,
	    .refused_dgrams = 10,
	    .hidden_dgrams = 30,
	    .qdisc_units = 40 },
	  { .sender_qdisc = 40 } },
	{ "shaper with GSO: 5 messages of 54 dropped whole, 20 datagrams of split ones",
	  { .lost = 300,
	    .has_local = true,
	    .qdisc_read = true,
	    .qdisc_drops = 25,
	    .refused_dgrams = 270,
	    .qdisc_units = 5 },
	  { .sender_qdisc = 290, .network = 10 } },
	{ "split messages refused whole: the qdisc counted each datagram",
	  { .lost = 108,
	    .has_local = true,
	    .qdisc_read = true,
	    .qdisc_drops = 108,
	    .refused_dgrams = 108,
	    .qdisc_units = 108 },
	  { .sender_qdisc = 108 } },
	{ "warm-up and FIN drops in the qdisc lose no test datagram",
	  { .lost = 10,
	    .has_local = true,
	    .qdisc_read = true,
	    .qdisc_drops = 15,
	    .refused_dgrams = 10,
	    .qdisc_units = 10,
	    .other_units = 5 },
	  { .sender_qdisc = 10 } },
	{ "skipped messages with an idle qdisc: the socket buffer (EAGAIN)",
	  { .lost = 30,
	    .has_local = true,
	    .qdisc_read = true,
	    .hidden_dgrams = 20,
	    .sndbuf_unseen = 2 },
	  { .sender_sndbuf = 22, .network = 8 } },
	{ "the overlay daemons' drops",
	  { .lost = 30, .tunnel_drops = 12, .receiver_link_rx = 3 },
	  { .tunnel = 12, .receiver_link = 3, .network = 15 } },
	{ "qdisc counters unreadable: refused and skipped are the qdisc's",
	  { .lost = 30, .has_local = true, .refused_dgrams = 8, .hidden_dgrams = 4 },
	  { .sender_qdisc = 12, .network = 18 } },
};

static uint64_t attrib_sum(const struct loss_attrib *a)
{
	return a->sender_sndbuf + a->sender_qdisc + a->sender_link + a->tunnel +
	       a->receiver_rcvbuf + a->receiver_socket + a->receiver_inerrors + a->receiver_link +
	       a->network;
}

static void test_attribution_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(attrib_cases) / sizeof(attrib_cases[0]); i++) {
		const struct attrib_case *c = &attrib_cases[i];
		struct loss_attrib got;

		print_message("case: %s\n", c->name);
		memset(&got, 0xff, sizeof(got));
		netcounters_attribute(&c->in, &got);
		assert_int_equal(got.receiver_socket, c->want.receiver_socket);
		assert_int_equal(got.sender_sndbuf, c->want.sender_sndbuf);
		assert_int_equal(got.sender_qdisc, c->want.sender_qdisc);
		assert_int_equal(got.sender_link, c->want.sender_link);
		assert_int_equal(got.tunnel, c->want.tunnel);
		assert_int_equal(got.receiver_link, c->want.receiver_link);
		assert_int_equal(got.receiver_rcvbuf, c->want.receiver_rcvbuf);
		assert_int_equal(got.receiver_inerrors, c->want.receiver_inerrors);
		assert_int_equal(got.network, c->want.network);
		assert_int_equal(attrib_sum(&got), c->in.lost);
	}
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* Whatever the counters say, the places add up to the loss and none exceeds
 * its counter. */
static void test_attribution_invariants(void **state)
{
	uint64_t s = 42;
	int k;

	(void)state;
	for (k = 0; k < 100000; k++) {
		uint64_t m = k % 2 ? 1000 : UINT64_MAX;
		struct loss_inputs in = {
			.lost = rng(&s) % m,
			.sender_sndbuf = rng(&s) % m,
			.sender_send_errors = rng(&s) % m,
			.sender_link_tx = rng(&s) % m,
			.receiver_rcvbuf = rng(&s) % m,
			.receiver_inerrors = rng(&s) % m,
			.receiver_rxq_ovfl = rng(&s) % m,
			.receiver_link_rx = rng(&s) % m,
		};
		struct loss_attrib a;

		netcounters_attribute(&in, &a);
		assert_int_equal(attrib_sum(&a), in.lost);
		assert_true(a.receiver_socket <= in.receiver_rxq_ovfl);
		assert_true(a.sender_sndbuf <= in.sender_sndbuf);
		assert_true(a.sender_link <= in.sender_link_tx);
		assert_true(a.receiver_link <= in.receiver_link_rx);
		assert_true(a.receiver_rcvbuf <= in.receiver_rcvbuf);
		assert_true(a.receiver_inerrors <= in.receiver_inerrors);
	}
}

static void test_loss_inputs(void **state)
{
	struct netcounters snd, rcv;
	struct loss_inputs in;

	(void)state;
	netcounters_init(&snd);
	netcounters_init(&rcv);
	assert_int_equal(netcounters_parse_snmp(snmp_61, strlen(snmp_61), &snd), 0);
	assert_int_equal(netcounters_parse_snmp6(snmp6_sample, strlen(snmp6_sample), &snd), 0);
	assert_int_equal(netcounters_parse_dev(dev_sample, strlen(dev_sample), &snd), 0);
	rcv = snd;
	netcounters_loss_inputs(&snd, NULL, &rcv, "eth0", AF_INET, 11, 500, &in);
	assert_int_equal(in.lost, 500);
	assert_int_equal(in.receiver_rxq_ovfl, 11);
	assert_int_equal(in.sender_sndbuf, 77);
	assert_int_equal(in.sender_link_tx, 13);
	assert_int_equal(in.receiver_rcvbuf, 4300);
	assert_int_equal(in.receiver_inerrors, 4321);
	assert_int_equal(in.receiver_link_rx, 45);
	assert_int_equal(in.sender_send_errors, 0);
	netcounters_loss_inputs(&snd, NULL, &rcv, NULL, AF_INET6, 0, 500, &in);
	assert_int_equal(in.sender_sndbuf, 4);
	assert_int_equal(in.receiver_rcvbuf, 8);
	assert_int_equal(in.receiver_inerrors, 9);
	netcounters_loss_inputs(&snd, NULL, &rcv, NULL, AF_UNSPEC, 0, 500, &in);
	assert_int_equal(in.sender_sndbuf, 81);
	/* one side unknown */
	netcounters_loss_inputs(NULL, NULL, &rcv, NULL, AF_INET, 0, 500, &in);
	assert_int_equal(in.sender_sndbuf, 0);
	assert_int_equal(in.sender_link_tx, 0);
	assert_int_equal(in.receiver_rcvbuf, 4300);
}

/* Root qdisc deltas: matched by interface and kind, a new or replaced
 * qdisc counts from 0, a counter that went back counts nothing, and the
 * interface with the most drops names the place. */
static void test_qdisc_delta(void **state)
{
	struct qdiscstats a = { .n = 3,
				.ifs = { { "ovp0", "tbf", 1000, 100, 25000 },
					 { "ovp1", "fq_codel", 500, 7, 0 },
					 { "eth0", "mq", 1000, 50, 0 } } };
	struct qdiscstats b = { .n = 4,
				.ifs = { { "ovp0", "tbf", 1000, 160, 25000 },
					 { "ovp1", "pfifo", 500, 3, 0 },
					 { "eth0", "mq", 1000, 40, 0 },
					 { "ovl0", "fq_codel", 500, 2, 0 } } };
	struct qdiscstats_if top;

	(void)state;
	assert_int_equal(qdiscstats_delta(&a, &b, &top), 60 + 3 + 0 + 2);
	assert_string_equal(top.ifname, "ovp0");
	assert_string_equal(top.kind, "tbf");
	assert_int_equal(top.drops, 60);
	assert_int_equal(top.split_above, 25000);
	assert_int_equal(qdiscstats_delta(&a, &a, &top), 0);
	assert_string_equal(top.ifname, "");
	/* the shaper that held packets back most (overlimits), with its drops */
	a.ifs[0].overlimits = 10;
	b.ifs[0].overlimits = 4010;
	b.ifs[2].overlimits = 30;
	assert_int_equal(qdiscstats_held(&a, &b, &top), 4000 + 30);
	assert_string_equal(top.ifname, "ovp0");
	assert_int_equal(top.overlimits, 4000);
	assert_int_equal(top.drops, 60);
	assert_int_equal(qdiscstats_held(&b, &b, &top), 0);
	assert_string_equal(top.ifname, "");
}

/* /proc/net/softnet_stat: the second hex column of each CPU's line is its
 * backlog's drops; the machine's sum goes between two reads as any other
 * counter; a lost datagram the backlog dropped is the backlog's, not the
 * network's, and its fix names the backlog's length now. */
static void test_softnet(void **state)
{
	static const char t0[] = "004c57ea 00000000 00000003 00000000\n"
				 "004a22d9 0000000a 00000000 00000000\n";
	static const char t1[] = "004c67ea 000001f4 00000003 00000000\n"
				 "004a32d9 0000000a 00000000 00000000\n";
	struct netcounters a, b, d;
	struct loss_inputs in = { .lost = 600, .backlog = 500 };
	struct loss_attrib l;
	char fix[384];

	(void)state;
	netcounters_init(&a);
	netcounters_init(&b);
	assert_int_equal(netcounters_parse_softnet(t0, sizeof(t0) - 1, &a), 0);
	assert_int_equal(netcounters_parse_softnet(t1, sizeof(t1) - 1, &b), 0);
	assert_true(a.softnet_valid);
	assert_int_equal(a.softnet_dropped, 10);
	netcounters_delta(&a, &b, &d);
	assert_int_equal(d.softnet_dropped, 500);
	assert_int_equal(netcounters_parse_softnet("004c57ea\n", 9, &a), -EINVAL);
	assert_int_equal(netcounters_parse_softnet("004c57ea zz\n", 12, &a), -EINVAL);
	memset(&l, 0, sizeof(l));
	netcounters_attribute(&in, &l);
	assert_int_equal(l.backlog, 500);
	assert_int_equal(l.network, 100);
	assert_int_equal(loss_place_count(&l, LOSS_PLACE_BACKLOG), 500);
	assert_string_equal(loss_place_key(LOSS_PLACE_BACKLOG), "backlog");
	l.backlog_max = 1000;
	loss_place_fix(fix, sizeof(fix), &l, LOSS_PLACE_BACKLOG);
	assert_non_null(strstr(fix, "net.core.netdev_max_backlog 1000"));
	assert_non_null(strstr(fix, "net.core.netdev_max_backlog=4000"));
}

/* Each place has a key, a name and a fix; the socket's fix is the -w that
 * holds the overflow (half the SO_RCVBUF the kernel reports), or none when
 * the receiver fell behind throughout. */
static void test_loss_fixes(void **state)
{
	struct loss_attrib l = { .qdisc_kind = "tbf",
				 .qdisc_if = "ovp0",
				 .rcvbuf_bytes = 8192,
				 .rcvbuf_need_bytes = 8192 + 100 * 2168 };
	char fix[256];

	(void)state;
	for (int p = 0; p < LOSS_PLACE_COUNT; p++) {
		assert_string_not_equal(loss_place_key((enum loss_place)p), "?");
		assert_string_not_equal(loss_place_name((enum loss_place)p), "?");
		loss_place_fix(fix, sizeof(fix), &l, (enum loss_place)p);
		assert_true(strlen(fix) > 10);
	}
	loss_place_fix(fix, sizeof(fix), &l, LOSS_PLACE_SENDER_QDISC);
	assert_non_null(strstr(fix, "the configured rate is the limit (qdisc tbf on ovp0)"));
	loss_place_fix(fix, sizeof(fix), &l, LOSS_PLACE_RECEIVER_SOCKET);
	assert_non_null(strstr(fix, "-w 110K")); /* (8192 + 216800) / 2 rounded up */
	l.rcvbuf_need_bytes = 0;
	loss_place_fix(fix, sizeof(fix), &l, LOSS_PLACE_RECEIVER_SOCKET);
	assert_non_null(strstr(fix, "fell behind"));
	l.sender_qdisc = 3;
	assert_int_equal(loss_place_count(&l, LOSS_PLACE_SENDER_QDISC), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_snmp),
		cmocka_unit_test(test_parse_snmp_malformed),
		cmocka_unit_test(test_parse_snmp6),
		cmocka_unit_test(test_parse_dev),
		cmocka_unit_test(test_parse_dev_malformed),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_read_live),
		cmocka_unit_test(test_attribution_table),
		cmocka_unit_test(test_attribution_invariants),
		cmocka_unit_test(test_loss_inputs),
		cmocka_unit_test(test_qdisc_delta),
		cmocka_unit_test(test_softnet),
		cmocka_unit_test(test_loss_fixes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
