// SPDX-License-Identifier: MIT
/*
 * mtu_serve() over loopback, driven message by message: OPEN/READY, probes
 * counted per round (a wrong token or an old round ignored), QUERY waiting
 * for missing probes, the TCP check's report, DONE; and every malformed or
 * out-of-order message ends the session with -EPROTO. On the server's one
 * port (a registry), probes and the TCP connection come through it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "bytes.h"
#include "clock.h"
#include "data_registry.h"
#include "mtu_serve.h"
#include "mtu_wire.h"
#include "proto.h"

struct fixture {
	int client; /* the test's end of the control connection */
	int server; /* mtu_serve's end */
	pthread_t thread;
	int rc;			   /* mtu_serve's return */
	struct data_registry *reg; /* the server's port (NULL: sockets of its own) */
	bool joined;
	struct proto_reader rd;
};

static void *serve(void *arg)
{
	struct fixture *f = arg;

	f->rc = f->reg ? mtu_serve_port(f->server, NULL, f->reg)
		       : mtu_serve(f->server, NULL, NULL, 0);
	return NULL;
}

static int setup_with(void **state, bool port)
{
	static struct fixture f;
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sin);
	int lsn = socket(AF_INET, SOCK_STREAM, 0);

	memset(&f, 0, sizeof(f));
	if (port)
		assert_int_equal(data_registry_new(5211, &f.reg), 0);
	assert_true(lsn >= 0);
	assert_int_equal(bind(lsn, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(lsn, 1), 0);
	assert_int_equal(getsockname(lsn, (struct sockaddr *)&sin, &sl), 0);
	f.client = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(f.client, (struct sockaddr *)&sin, sizeof(sin)), 0);
	f.server = accept(lsn, NULL, NULL);
	assert_true(f.server >= 0);
	close(lsn);
	assert_int_equal(proto_reader_init(&f.rd), 0);
	assert_int_equal(pthread_create(&f.thread, NULL, serve, &f), 0);
	*state = &f;
	return 0;
}

static int setup(void **state)
{
	return setup_with(state, false);
}

static int setup_port(void **state)
{
	return setup_with(state, true);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	close(f->client);
	if (!f->joined)
		pthread_join(f->thread, NULL);
	data_registry_free(f->reg);
	close(f->server);
	proto_reader_free(&f->rd);
	return 0;
}

static void send_body(struct fixture *f, uint16_t type, const uint8_t *body, size_t len)
{
	uint8_t msg[PROTO_HDR_LEN + 64];
	ssize_t n = proto_encode_opaque(msg, sizeof(msg), type, body, len);

	assert_true(n > 0);
	assert_int_equal(proto_write_all(f->client, msg, (size_t)n, 2000), 0);
}

static void send_op(struct fixture *f, enum mtu_wire_op op, const uint8_t *body, size_t len)
{
	uint8_t b[MTU_WIRE_OP_LEN + 32];

	mtu_wire_put_op(b, op);
	if (len)
		memcpy(b + MTU_WIRE_OP_LEN, body, len);
	send_body(f, PROTO_MTU_PROBE_REQUEST, b, MTU_WIRE_OP_LEN + len);
}

/* The next reply's body past the op header (asserting its op). */
static const uint8_t *recv_op(struct fixture *f, enum mtu_wire_op want, size_t *len)
{
	struct proto_msg m;
	enum mtu_wire_op op;
	struct pollfd p = { .fd = f->client, .events = POLLIN };

	for (;;) {
		int rc = proto_reader_read(&f->rd, f->client, clock_now_ns(), &m);

		if (rc == 1)
			break;
		assert_int_equal(rc, 0);
		assert_int_equal(poll(&p, 1, 5000), 1);
	}
	assert_int_equal(m.type, PROTO_MTU_PROBE_REPLY);
	assert_true(mtu_wire_get_op(m.body, m.len, &op));
	assert_int_equal(op, want);
	*len = m.len - MTU_WIRE_OP_LEN;
	return m.body + MTU_WIRE_OP_LEN;
}

static struct mtu_wire_ready open_flags(struct fixture *f, uint64_t token, uint8_t flags)
{
	bool tcp = flags & MTU_WIRE_F_TCP;
	struct mtu_wire_request rq = { MTU_WIRE_VERSION, flags, 4, token };
	struct mtu_wire_ready ready;
	uint8_t b[MTU_WIRE_REQUEST_LEN];
	const uint8_t *body;
	size_t len;

	mtu_wire_put_request(b, &rq);
	send_op(f, MTU_OP_OPEN, b, sizeof(b));
	body = recv_op(f, MTU_OP_READY, &len);
	assert_true(mtu_wire_get_ready(body, len, &ready));
	assert_true(ready.udp_port != 0);
	assert_int_equal(ready.tcp_port != 0, tcp);
	return ready;
}

static struct mtu_wire_ready open_session(struct fixture *f, uint64_t token, bool tcp)
{
	return open_flags(f, token, tcp ? MTU_WIRE_F_TCP : 0);
}

static void probe(int udp, uint16_t port, uint64_t token, uint32_t round, uint16_t index)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct mtu_wire_probe p = { token, round, index, 1000 };
	uint8_t buf[1000 - 28];

	memset(buf, 0, sizeof(buf));
	mtu_wire_put_probe(buf, &p);
	assert_int_equal(sendto(udp, buf, sizeof(buf), 0, (struct sockaddr *)&sin, sizeof(sin)),
			 (ssize_t)sizeof(buf));
}

static struct mtu_wire_report query(struct fixture *f, uint32_t round, uint16_t sent,
				    uint16_t wait_ms)
{
	struct mtu_wire_query q = { round, sent, wait_ms };
	struct mtu_wire_report rep;
	uint8_t b[MTU_WIRE_QUERY_LEN];
	const uint8_t *body;
	size_t len;

	mtu_wire_put_query(b, &q);
	send_op(f, MTU_OP_QUERY, b, sizeof(b));
	body = recv_op(f, MTU_OP_REPORT, &len);
	assert_true(mtu_wire_get_report(body, len, &rep));
	assert_int_equal(rep.round, round);
	return rep;
}

static void finish(struct fixture *f, int want)
{
	pthread_join(f->thread, NULL);
	f->joined = true;
	assert_int_equal(f->rc, want);
}

static void test_rounds(void **state)
{
	struct fixture *f = *state;
	struct mtu_wire_ready ready = open_session(f, 0x1234, false);
	struct mtu_wire_report rep;
	int udp = socket(AF_INET, SOCK_DGRAM, 0);

	assert_true(udp >= 0);
	/* round 1: probes 0 and 2 arrive; a wrong token does not count */
	probe(udp, ready.udp_port, 0x1234, 1, 0);
	probe(udp, ready.udp_port, 0x9999, 1, 1);
	probe(udp, ready.udp_port, 0x1234, 1, 2);
	rep = query(f, 1, 3, 50); /* one missing: the server waits 50 ms */
	assert_int_equal(rep.received, 2);
	assert_int_equal(rep.mask, 0x5);
	assert_int_equal(rep.reassembled, 0);
	/* round 2: all three; a late probe of round 1 does not leak in */
	probe(udp, ready.udp_port, 0x1234, 1, 1);
	for (uint16_t i = 0; i < 3; i++)
		probe(udp, ready.udp_port, 0x1234, 2, i);
	rep = query(f, 2, 3, 2000); /* complete: answered without waiting */
	assert_int_equal(rep.received, 3);
	assert_int_equal(rep.mask, 0x7);
	/* a round nobody sent to */
	rep = query(f, 3, 3, 10);
	assert_int_equal(rep.received, 0);
	/* no TCP listener asked for: an empty TCP report */
	send_op(f, MTU_OP_TCP_QUERY, NULL, 0);
	{
		struct mtu_wire_tcp_report tr;
		size_t len;
		const uint8_t *b = recv_op(f, MTU_OP_TCP_REPORT, &len);

		assert_true(mtu_wire_get_tcp_report(b, len, &tr));
		assert_int_equal(tr.snd_mss, 0);
	}
	send_op(f, MTU_OP_DONE, NULL, 0);
	finish(f, 0);
	close(udp);
}

static void test_tcp_check(void **state)
{
	struct fixture *f = *state;
	struct mtu_wire_ready ready = open_session(f, 7, true);
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(ready.tcp_port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct mtu_wire_tcp_report tr;
	uint8_t buf[65536];
	uint64_t got = 0;
	const uint8_t *b;
	size_t len;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(send(fd, buf, 1000, 0), 1000);
	while (got < MTU_WIRE_TCP_SERVER_BYTES) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		assert_true(n > 0);
		got += (uint64_t)n;
	}
	assert_int_equal(got, MTU_WIRE_TCP_SERVER_BYTES);
	send_op(f, MTU_OP_TCP_QUERY, NULL, 0);
	b = recv_op(f, MTU_OP_TCP_REPORT, &len);
	assert_true(mtu_wire_get_tcp_report(b, len, &tr));
	assert_true(tr.snd_mss > 0);
	assert_true(tr.pmtu > 0);
	{
		/* The SYN's MSS option as it arrived at the server: on loopback
		 * nothing clamps it, so it is the client's own (tcpi_advmss is
		 * net of the agreed timestamps). */
		struct tcp_info ti;
		socklen_t sl = sizeof(ti);

		assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &sl), 0);
		assert_int_equal(tr.syn_mss,
				 ti.tcpi_advmss + (ti.tcpi_options & TCPI_OPT_TIMESTAMPS ? 12 : 0));
	}
	close(fd);
	send_op(f, MTU_OP_DONE, NULL, 0);
	finish(f, 0);
}

static void test_query_before_open(void **state)
{
	struct fixture *f = *state;
	uint8_t b[MTU_WIRE_QUERY_LEN] = { 0 };

	send_op(f, MTU_OP_QUERY, b, sizeof(b));
	finish(f, -EPROTO);
}

static void test_wrong_type(void **state)
{
	struct fixture *f = *state;
	uint8_t b[MTU_WIRE_OP_LEN];

	mtu_wire_put_op(b, MTU_OP_DONE);
	send_body(f, PROTO_MTU_PROBE_REPLY, b, sizeof(b)); /* a reply from the client */
	finish(f, -EPROTO);
}

static void test_bad_bodies(void **state)
{
	struct fixture *f = *state;
	uint8_t b[MTU_WIRE_QUERY_LEN + 1] = { 0 };

	open_session(f, 1, false);
	send_op(f, MTU_OP_QUERY, b, sizeof(b)); /* one byte too long */
	finish(f, -EPROTO);
}

static void test_second_open(void **state)
{
	struct fixture *f = *state;
	struct mtu_wire_request rq = { MTU_WIRE_VERSION, 0, 4, 5 };
	uint8_t b[MTU_WIRE_REQUEST_LEN];

	open_session(f, 5, false);
	mtu_wire_put_request(b, &rq);
	send_op(f, MTU_OP_OPEN, b, sizeof(b));
	finish(f, -EPROTO);
}

static void test_client_leaves(void **state)
{
	struct fixture *f = *state;

	open_session(f, 9, false);
	shutdown(f->client, SHUT_WR); /* EOF between messages: a normal end */
	finish(f, 0);
}

/* What the server's accept thread does with a probe or the MSS check's
 * connection that names token: claim it in the registry. */
static int port_claim(struct fixture *f, uint64_t token, const struct data_handoff *h)
{
	struct data_claim c = { .kind = DATA_REG_MTU };
	struct sockaddr_in *sin = (struct sockaddr_in *)&c.from;

	put_be64(c.secret, token);
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return data_registry_claim(f->reg, &c, h);
}

static void test_one_port(void **state)
{
	struct fixture *f = *state;
	struct mtu_wire_ready ready = open_flags(f, 0x77, MTU_WIRE_F_TCP | MTU_WIRE_F_ONE_PORT);
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sin);
	struct mtu_wire_report rep;
	struct mtu_wire_tcp_report tr;
	uint8_t buf[65536];
	uint64_t got = 0;
	const uint8_t *b;
	size_t len;
	int lsn = socket(AF_INET, SOCK_STREAM, 0), fd, conn;

	/* both announced on the server's port */
	assert_int_equal(ready.udp_port, 5211);
	assert_int_equal(ready.tcp_port, 5211);
	assert_int_equal(port_claim(f, 0x77, &(struct data_handoff){ .fd = -1, .round = 1 }), 0);
	assert_int_equal(
		port_claim(f, 0x77, &(struct data_handoff){ .fd = -1, .round = 1, .index = 2 }), 0);
	assert_int_equal(port_claim(f, 0x78, &(struct data_handoff){ .fd = -1, .round = 1 }),
			 -ENOENT);
	rep = query(f, 1, 2, 2000);
	assert_int_equal(rep.received, 2);
	assert_int_equal(rep.mask, 0x5);
	/* the MSS check's connection, as the listener accepted it */
	assert_int_equal(bind(lsn, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(lsn, 1), 0);
	assert_int_equal(getsockname(lsn, (struct sockaddr *)&sin, &sl), 0);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	conn = accept(lsn, NULL, NULL);
	assert_int_equal(port_claim(f, 0x77, &(struct data_handoff){ .fd = conn }), 0);
	assert_int_equal(port_claim(f, 0x77, &(struct data_handoff){ .fd = conn }), -EALREADY);
	while (got < MTU_WIRE_TCP_SERVER_BYTES) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		assert_true(n > 0);
		got += (uint64_t)n;
	}
	send_op(f, MTU_OP_TCP_QUERY, NULL, 0);
	b = recv_op(f, MTU_OP_TCP_REPORT, &len);
	assert_true(mtu_wire_get_tcp_report(b, len, &tr));
	assert_true(tr.snd_mss > 0);
	send_op(f, MTU_OP_DONE, NULL, 0);
	finish(f, 0);
	/* the session is gone from the registry */
	assert_int_equal(port_claim(f, 0x77, &(struct data_handoff){ .fd = -1 }), -ENOENT);
	close(fd);
	close(lsn);
}

/* A client that does not ask for the port gets sockets of its own. */
static void test_port_not_asked(void **state)
{
	struct fixture *f = *state;
	struct mtu_wire_ready ready = open_session(f, 0x79, false);

	assert_int_not_equal(ready.udp_port, 5211);
	assert_int_equal(port_claim(f, 0x79, &(struct data_handoff){ .fd = -1 }), -ENOENT);
	send_op(f, MTU_OP_DONE, NULL, 0);
	finish(f, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tcp_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_query_before_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_type, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_bodies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_client_leaves, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_port, setup_port, teardown),
		cmocka_unit_test_setup_teardown(test_port_not_asked, setup_port, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
