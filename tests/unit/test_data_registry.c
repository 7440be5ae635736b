// SPDX-License-Identifier: MIT
/*
 * The one port's decisions without a server: what first bytes are
 * (control, data greeting, MTU, a prefix to wait on, garbage), which claims
 * the registry accepts (unknown test id, wrong cookie, another host, a
 * stream out of range or already connected, another kind) and that an
 * accepted one reaches its owner, that nothing handed over leaks when the
 * owner goes, and the pending connections' limit and deadlines.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bytes.h"
#include "clock.h"
#include "data_registry.h"
#include "mtu_wire.h"
#include "server_pending.h"

static struct sockaddr_storage v4(const char *a, uint16_t port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	assert_int_equal(inet_pton(AF_INET, a, &sin->sin_addr), 1);
	return ss;
}

static void test_classify(void **state)
{
	static const struct {
		const char *bytes;
		size_t len;
		enum data_demux want;
		size_t need;
	} cases[] = {
		{ "OVLC\x00\x01", 6, DATA_DEMUX_CONTROL, 0 },
		{ "OVLC", 4, DATA_DEMUX_CONTROL, 0 },
		{ "OVLS", 4, DATA_DEMUX_DATA, PROTO_DATA_HELLO_LEN },
		{ "OVMP", 4, DATA_DEMUX_MTU, MTU_WIRE_PROBE_HDR_LEN },
		{ "", 0, DATA_DEMUX_MORE, 4 },
		{ "O", 1, DATA_DEMUX_MORE, 4 },
		{ "OVL", 3, DATA_DEMUX_MORE, 4 },
		{ "OVM", 3, DATA_DEMUX_MORE, 4 },
		/* garbage as soon as a byte rules every magic out */
		{ "G", 1, DATA_DEMUX_GARBAGE, 0 },
		{ "OX", 2, DATA_DEMUX_GARBAGE, 0 },
		{ "GET / HTTP/1.1\r\n", 16, DATA_DEMUX_GARBAGE, 0 },
		{ "OVLD", 4, DATA_DEMUX_GARBAGE, 0 }, /* a test datagram is no greeting */
		{ "ovlc", 4, DATA_DEMUX_GARBAGE, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t need = 99;

		assert_int_equal(
			data_demux_classify((const uint8_t *)cases[i].bytes, cases[i].len, &need),
			cases[i].want);
		assert_int_equal(need, cases[i].need);
	}
}

static void test_claim_from_bytes(void **state)
{
	struct proto_data_hello h = { .test_id = 7, .stream = 3 };
	struct sockaddr_storage from = v4("127.0.0.1", 4000);
	uint8_t buf[PROTO_DATA_HELLO_LEN], probe[MTU_WIRE_PROBE_HDR_LEN], secret[16] = { 0 };
	struct data_claim c;

	(void)state;
	memset(h.cookie, 0xab, sizeof(h.cookie));
	assert_int_equal(proto_encode_data_hello(buf, sizeof(buf), &h), PROTO_DATA_HELLO_LEN);
	assert_true(data_demux_claim(DATA_DEMUX_DATA, false, buf, sizeof(buf), &from, &c));
	assert_int_equal(c.kind, DATA_REG_TCP);
	assert_int_equal(c.test_id, 7);
	assert_int_equal(c.stream, 3);
	assert_memory_equal(c.secret, h.cookie, PROTO_COOKIE_LEN);
	assert_true(data_demux_claim(DATA_DEMUX_DATA, true, buf, sizeof(buf), &from, &c));
	assert_int_equal(c.kind, DATA_REG_UDP);
	/* a greeting is exactly its length */
	assert_false(data_demux_claim(DATA_DEMUX_DATA, false, buf, sizeof(buf) - 1, &from, &c));
	mtu_wire_put_probe(probe, &(struct mtu_wire_probe){ .token = 0x0102030405060708ull });
	assert_true(data_demux_claim(DATA_DEMUX_MTU, false, probe, sizeof(probe), &from, &c));
	assert_int_equal(c.kind, DATA_REG_MTU);
	put_be64(secret, 0x0102030405060708ull);
	assert_memory_equal(c.secret, secret, sizeof(secret));
	assert_false(data_demux_claim(DATA_DEMUX_GARBAGE, false, buf, sizeof(buf), &from, &c));
}

struct fixture {
	struct data_registry *reg;
	struct data_reg_entry *e;
	struct sockaddr_storage peer;
	struct data_claim key;
};

static int setup(void **state)
{
	static struct fixture f;

	memset(&f, 0, sizeof(f));
	assert_int_equal(data_registry_new(5211, &f.reg), 0);
	f.peer = v4("127.0.0.1", 40000);
	f.key = (struct data_claim){ .kind = DATA_REG_TCP, .test_id = 42 };
	memset(f.key.secret, 0x5a, sizeof(f.key.secret));
	assert_int_equal(data_registry_add(f.reg, &f.key, 2, &f.peer, &f.e), 0);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	data_registry_free(f->reg);
	return 0;
}

/* A claim as the accept thread makes it: the key, from port 50000. */
static struct data_claim claim_of(const struct fixture *f, uint16_t stream)
{
	struct data_claim c = f->key;

	c.stream = stream;
	c.from = v4("127.0.0.1", 50000);
	return c;
}

static void test_refusals(void **state)
{
	struct fixture *f = *state;
	struct data_handoff h = { .fd = -1 }, got;
	struct data_claim c = claim_of(f, 0);

	assert_int_equal(data_registry_port(f->reg), 5211);
	c.test_id = 43;
	assert_int_equal(data_registry_check(f->reg, &c), -ENOENT);
	c = claim_of(f, 0);
	c.secret[15] ^= 1;
	assert_int_equal(data_registry_check(f->reg, &c), -EACCES);
	c = claim_of(f, 0);
	c.from = v4("127.0.0.2", 50000);
	assert_int_equal(data_registry_check(f->reg, &c), -EPERM);
	c = claim_of(f, 2);
	assert_int_equal(data_registry_check(f->reg, &c), -ERANGE);
	c = claim_of(f, 0);
	c.kind = DATA_REG_UDP;
	assert_int_equal(data_registry_check(f->reg, &c), -EPROTO);
	c.kind = DATA_REG_MTU;
	assert_int_equal(data_registry_check(f->reg, &c), -ENOENT);
	/* a refused claim hands nothing over */
	c = claim_of(f, 0);
	c.secret[0] ^= 1;
	h.fd = dup(0);
	assert_int_equal(data_registry_claim(f->reg, &c, &h), -EACCES);
	assert_int_equal(data_reg_entry_take(f->e, &got), 0);
	close(h.fd);
	/* a second entry for the same test */
	assert_int_equal(
		data_registry_add(f->reg, &f->key, 1, &f->peer, &(struct data_reg_entry *){ NULL }),
		-EEXIST);
}

static void test_handoff(void **state)
{
	struct fixture *f = *state;
	struct data_claim c = claim_of(f, 1);
	struct data_handoff h = { .fd = dup(0), .stream = 1 }, got;
	int left;

	assert_int_equal(data_registry_check(f->reg, &c), 0);
	assert_int_equal(data_registry_claim(f->reg, &c, &h), 0);
	/* the stream is taken: its greeting again is refused */
	assert_int_equal(data_registry_check(f->reg, &c), -EALREADY);
	assert_int_equal(data_reg_entry_take(f->e, &got), 1);
	assert_int_equal(got.fd, h.fd);
	assert_int_equal(got.stream, 1);
	assert_int_equal(data_reg_entry_take(f->e, &got), 0);
	close(got.fd);
	/* handed over, never taken: removing the entry closes it */
	c = claim_of(f, 0);
	left = dup(0);
	h = (struct data_handoff){ .fd = left, .stream = 0 };
	assert_int_equal(data_registry_claim(f->reg, &c, &h), 0);
	data_registry_remove(f->reg, f->e);
	assert_int_equal(fcntl(left, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
	/* and the test is gone */
	assert_int_equal(data_registry_check(f->reg, &c), -ENOENT);
}

static void test_mtu(void **state)
{
	struct fixture *f = *state;
	struct data_claim key = { .kind = DATA_REG_MTU }, c;
	struct data_reg_entry *e;
	struct data_handoff h = { .fd = -1, .round = 3, .index = 5 }, got;

	put_be64(key.secret, 99);
	assert_int_equal(data_registry_add(f->reg, &key, 1, &f->peer, &e), 0);
	c = key;
	c.from = v4("127.0.0.1", 1);
	/* probe records: as many as come */
	assert_int_equal(data_registry_claim(f->reg, &c, &h), 0);
	assert_int_equal(data_registry_claim(f->reg, &c, &h), 0);
	assert_int_equal(data_reg_entry_take(e, &got), 1);
	assert_int_equal(got.fd, -1);
	assert_int_equal(got.round, 3);
	assert_int_equal(got.index, 5);
	/* one TCP connection */
	h.fd = dup(0);
	assert_int_equal(data_registry_claim(f->reg, &c, &h), 0);
	assert_int_equal(data_registry_claim(f->reg, &c, &h), -EALREADY);
	/* another token */
	c.secret[7] ^= 1;
	assert_int_equal(data_registry_check(f->reg, &c), -ENOENT);
	data_registry_remove(f->reg, e); /* closes the connection still queued */
	assert_int_equal(fcntl(h.fd, F_GETFD), -1);
}

static void test_pending(void **state)
{
	struct sockaddr_storage peer = v4("127.0.0.1", 1);
	struct pending_set ps;
	const uint64_t idle = 3 * NSEC_PER_SEC, msg = NSEC_PER_SEC, t0 = 100 * NSEC_PER_SEC;

	(void)state;
	assert_int_equal(pending_init(&ps, 3), 0);
	assert_int_equal(pending_add(&ps, dup(0), &peer, t0), 0);
	assert_int_equal(pending_add(&ps, dup(0), &peer, t0), 0);
	assert_int_equal(pending_add(&ps, dup(0), &peer, t0), 0);
	/* the limit: the caller refuses the fourth */
	assert_int_equal(pending_add(&ps, 0, &peer, t0), -ENOSPC);
	assert_int_equal(ps.n, 3);
	/* silent: the idle deadline */
	assert_int_equal(pending_check(&ps.v[0], t0 + idle, idle, msg), PENDING_LIVE);
	assert_int_equal(pending_check(&ps.v[0], t0 + idle + 1, idle, msg), PENDING_SILENT);
	/* a message begun: the message deadline from its first bytes */
	ps.v[1].first_ns = t0 + 2500 * NSEC_PER_MSEC;
	assert_int_equal(pending_check(&ps.v[1], t0 + idle + 1, idle, msg), PENDING_LIVE);
	assert_int_equal(pending_check(&ps.v[1], ps.v[1].first_ns + msg + 1, idle, msg),
			 PENDING_STALLED);
	/* dropping one makes room; the last takes its place */
	{
		int last = ps.v[2].fd, first = ps.v[0].fd;

		pending_drop(&ps, 0);
		close(first);
		assert_int_equal(ps.n, 2);
		assert_int_equal(ps.v[0].fd, last);
	}
	assert_int_equal(pending_add(&ps, dup(0), &peer, t0), 0);
	pending_free(&ps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_claim_from_bytes),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mtu, setup, teardown),
		cmocka_unit_test(test_pending),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
