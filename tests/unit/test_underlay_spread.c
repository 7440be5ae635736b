// SPDX-License-Identifier: MIT
/*
 * One port per sending worker and the receiver's pick: the port rule for
 * each worker count (a table), and the kernel running the reuseport
 * program on loopback: a group of n sockets, datagrams from ports the rule
 * chose for each sending worker, each read on the socket
 * underlay_spread_pick() names, and distinct sending workers on distinct
 * receiving sockets (IPv4 and, where the host has it, IPv6).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "underlay_spread.h"

struct port_case {
	uint16_t port, listen;
	unsigned n, k;
	bool ok;
};

static const struct port_case port_cases[] = {
	{ 51900, 51900, 2, 0, true }, { 51901, 51900, 2, 1, true }, { 51902, 51900, 2, 1, false },
	{ 40001, 51900, 2, 1, true }, { 40001, 51901, 2, 0, true }, { 51903, 51900, 3, 0, true },
	{ 51904, 51900, 3, 1, true }, { 51905, 51900, 3, 2, true }, { 51905, 51900, 3, 1, false },
	{ 12345, 51900, 1, 0, true }, { 1, 65535, 4, 2, true },	    { 0, 65535, 4, 1, true },
};

static void test_port_rule(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(port_cases) / sizeof(port_cases[0]); i++) {
		const struct port_case *c = &port_cases[i];

		if (underlay_spread_port_ok(c->port, c->listen, c->n, c->k) != c->ok)
			fail_msg("port %u, listen %u, %u workers, worker %u: expected %s", c->port,
				 c->listen, c->n, c->k, c->ok ? "ok" : "refused");
	}
}

/* A sender whose address ends in a on ports the rule chose: a receiver with
 * as many workers picks each worker once. */
static void test_pick_distinct(void **state)
{
	(void)state;
	for (unsigned n = 2; n <= 8; n++)
		for (unsigned a = 0; a < 70000; a += 4099) {
			unsigned seen = 0;
			uint16_t listen = (uint16_t)(51900 + a);

			for (unsigned k = 0; k < n; k++) {
				uint16_t p = (uint16_t)(listen + k);

				assert_true(underlay_spread_port_ok(p, listen, n, k));
				seen |= 1u << underlay_spread_pick((uint16_t)a, p, n);
			}
			assert_int_equal(seen, (1u << n) - 1);
		}
}

static socklen_t fill(struct sockaddr_storage *ss, int family, uint16_t port)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*s4);
	}
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(port);
	s6->sin6_addr = in6addr_loopback;
	return sizeof(*s6);
}

static uint16_t port_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);

	assert_int_equal(getsockname(fd, (struct sockaddr *)&ss, &l), 0);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

#define GROUP 3

/* The receiving group on loopback: n sockets on one port; 0 or -errno. */
static int open_group(int family, int fd[GROUP], unsigned n, uint16_t *port)
{
	struct sockaddr_storage ss;
	int one = 1;

	*port = 0;
	for (unsigned i = 0; i < n; i++) {
		socklen_t l = fill(&ss, family, *port);

		fd[i] = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd[i] < 0)
			return -errno;
		if (family == AF_INET6)
			setsockopt(fd[i], IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		setsockopt(fd[i], SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
		if (bind(fd[i], (struct sockaddr *)&ss, l) < 0)
			return -errno;
		*port = port_of(fd[i]);
		if (i == 0 && underlay_spread_attach(fd[0], family, n) < 0)
			return -errno;
	}
	return 0;
}

/* Sending worker k's socket: an ephemeral loopback port the rule takes. */
static int open_sender(int family, uint16_t listen, unsigned n, unsigned k)
{
	struct sockaddr_storage ss;

	for (int t = 0; t < 256; t++) {
		socklen_t l = fill(&ss, family, 0);
		int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		if (fd < 0 || bind(fd, (struct sockaddr *)&ss, l) < 0)
			fail_msg("sender socket: %s", strerror(errno));
		if (underlay_spread_port_ok(port_of(fd), listen, n, k))
			return fd;
		close(fd);
	}
	fail_msg("no port for worker %u of %u in 256 tries", k, n);
	return -1;
}

/* The socket of the group that holds a datagram, -1 if none within 1 s. */
static int reader(const int fd[GROUP], unsigned n)
{
	struct pollfd p[GROUP];
	char b[16];

	for (unsigned i = 0; i < n; i++)
		p[i] = (struct pollfd){ .fd = fd[i], .events = POLLIN };
	if (poll(p, n, 1000) <= 0)
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (p[i].revents & POLLIN) {
			assert_true(recv(fd[i], b, sizeof(b), 0) > 0);
			return (int)i;
		}
	return -1;
}

static void kernel_picks(int family, unsigned n)
{
	int grp[GROUP] = { -1, -1, -1 }, r;
	uint16_t port, low16 = 0x0001; /* 127.0.0.1 and ::1 end in 0x0001 */
	unsigned seen = 0;
	struct sockaddr_storage to;
	socklen_t tl;

	r = open_group(family, grp, n, &port);
	if (r < 0) {
		for (unsigned i = 0; i < n; i++)
			if (grp[i] >= 0)
				close(grp[i]);
		if (family == AF_INET6 && (r == -EAFNOSUPPORT || r == -EADDRNOTAVAIL))
			return; /* no IPv6 loopback here */
		fail_msg("reuseport group (%s): %s", family == AF_INET ? "IPv4" : "IPv6",
			 strerror(-r));
	}
	tl = fill(&to, family, port);
	for (unsigned k = 0; k < n; k++) {
		int s = open_sender(family, port, n, k), got;

		for (int d = 0; d < 4; d++) {
			assert_int_equal(sendto(s, "x", 1, 0, (struct sockaddr *)&to, tl), 1);
			got = reader(grp, n);
			if (got != (int)underlay_spread_pick(low16, port_of(s), n))
				fail_msg("%s, %u workers: worker %u's datagram %d from port %u on "
					 "socket %d, expected %u",
					 family == AF_INET ? "IPv4" : "IPv6", n, k, d, port_of(s),
					 got, underlay_spread_pick(low16, port_of(s), n));
			seen |= 1u << got;
		}
		close(s);
	}
	assert_int_equal(seen, (1u << n) - 1);
	for (unsigned i = 0; i < n; i++)
		close(grp[i]);
}

static void test_kernel_v4(void **state)
{
	(void)state;
	kernel_picks(AF_INET, 2);
	kernel_picks(AF_INET, 3);
}

static void test_kernel_v6(void **state)
{
	(void)state;
	kernel_picks(AF_INET6, 2);
	kernel_picks(AF_INET6, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_rule),
		cmocka_unit_test(test_pick_distinct),
		cmocka_unit_test(test_kernel_v4),
		cmocka_unit_test(test_kernel_v6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
