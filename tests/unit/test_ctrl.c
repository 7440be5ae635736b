// SPDX-License-Identifier: MIT
/*
 * Control connection I/O (ctrl.c) over a socketpair: a complete message, a
 * wait that times out with nothing sent, a message that starts and stalls
 * (PROTO_E_STALLED, the server's defence against byte-per-second clients),
 * a close between messages and one inside a message, and text replies.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "ctrl.h"

struct pair {
	struct ctrl c;
	int peer;
};

static int setup(void **state)
{
	static struct pair p;
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(ctrl_init(&p.c, sv[0], 50), 0); /* 50 ms per message */
	p.peer = sv[1];
	*state = &p;
	return 0;
}

static int teardown(void **state)
{
	struct pair *p = *state;

	ctrl_free(&p->c);
	if (p->peer >= 0)
		close(p->peer);
	return 0;
}

static void send_hello(int fd, size_t upto)
{
	uint8_t buf[PROTO_HDR_LEN + PROTO_HELLO_LEN];
	struct proto_hello h = { .version = PROTO_VERSION, .caps = 3 };
	ssize_t n;

	strcpy(h.software, "test");
	n = proto_encode_hello(buf, sizeof(buf), &h);
	assert_int_equal(n, sizeof(buf));
	if (upto > (size_t)n)
		upto = (size_t)n;
	assert_int_equal(write(fd, buf, upto), (ssize_t)upto);
}

static void test_complete_message(void **state)
{
	struct pair *p = *state;
	struct proto_hello h;
	struct proto_msg m;

	send_hello(p->peer, SIZE_MAX);
	assert_int_equal(ctrl_recv(&p->c, &m, 1000, false), 1);
	assert_int_equal(m.type, PROTO_HELLO);
	assert_int_equal(proto_decode_hello(m.body, m.len, &h), 0);
	assert_int_equal(h.caps, 3);
	assert_string_equal(h.software, "test");
}

static void test_nothing_times_out(void **state)
{
	struct pair *p = *state;
	struct proto_msg m;

	assert_int_equal(ctrl_recv(&p->c, &m, 20, false), 0);
}

static void test_stalled_message(void **state)
{
	struct pair *p = *state;
	struct proto_msg m;
	int rc;

	send_hello(p->peer, 7); /* part of the header only */
	/* the caller would wait 5 s, but the message deadline is 50 ms */
	rc = ctrl_recv(&p->c, &m, 5000, false);
	assert_int_equal(rc, PROTO_E_STALLED);
}

static void test_eof_between_and_inside(void **state)
{
	struct pair *p = *state;
	struct proto_msg m;

	close(p->peer);
	p->peer = -1;
	assert_int_equal(ctrl_recv(&p->c, &m, 1000, false), PROTO_E_EOF);
}

static void test_eof_inside(void **state)
{
	struct pair *p = *state;
	struct proto_msg m;

	send_hello(p->peer, 20);
	close(p->peer);
	p->peer = -1;
	assert_int_equal(ctrl_recv(&p->c, &m, 1000, false), PROTO_E_EOF_PARTIAL);
}

static void test_oversized_refused(void **state)
{
	struct pair *p = *state;
	struct proto_msg m;
	uint8_t hdr[PROTO_HDR_LEN];

	proto_put_hdr(hdr, PROTO_HELLO, 0);
	hdr[8] = hdr[9] = hdr[10] = hdr[11] = 0xff; /* 4 GiB body */
	assert_int_equal(write(p->peer, hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
	assert_int_equal(ctrl_recv(&p->c, &m, 1000, false), PROTO_E_TOOBIG);
}

static void test_text_reply(void **state)
{
	struct pair *p = *state;
	uint8_t buf[PROTO_MAX_MSG];
	struct proto_text t;
	struct proto_msg m;
	ssize_t n;

	assert_int_equal(ctrl_send_text(&p->c, PROTO_TEST_REJECT, PROTO_R_LIMIT_STREAMS,
					"%u streams asked; at most %u", 100u, 8u),
			 0);
	n = read(p->peer, buf, sizeof(buf));
	assert_true(n > PROTO_HDR_LEN);
	assert_int_equal(proto_parse(buf, (size_t)n, &m), 0);
	assert_int_equal(m.type, PROTO_TEST_REJECT);
	assert_int_equal(proto_decode_text(m.body, m.len, &t), 0);
	assert_int_equal(t.code, PROTO_R_LIMIT_STREAMS);
	assert_string_equal(t.text, "100 streams asked; at most 8");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_complete_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_times_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stalled_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eof_between_and_inside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eof_inside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oversized_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_reply, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
