// SPDX-License-Identifier: MIT
/* control_serve: one client's command answered through the caller's handler. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "control_serve.h"

struct fixture {
	char dir[32], path[64];
	int listen_fd;
	int status_calls, stops;
	bool last_show_keys;
};

static size_t fake_status(void *ctx, bool show_keys, char *buf, size_t cap)
{
	struct fixture *f = ctx;
	int n = snprintf(buf, cap, "interface=ht0\nkeys=%s\n", show_keys ? "shown" : "(hidden)");

	f->status_calls++;
	f->last_show_keys = show_keys;
	return (size_t)n;
}

static void fake_stop(void *ctx)
{
	((struct fixture *)ctx)->stops++;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	snprintf(f->dir, sizeof(f->dir), "/tmp/ht-control-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/s.sock", f->dir);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", f->path);
	f->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (f->listen_fd < 0 || bind(f->listen_fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    listen(f->listen_fd, 4) < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	close(f->listen_fd);
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* Connects, sends line (NULL: nothing), lets control_serve() answer, returns the reply. */
static void ask(struct fixture *f, const char *line, char *reply, size_t cap)
{
	const struct control_handler h = { .status = fake_status, .stop = fake_stop, .ctx = f };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	size_t got = 0;
	ssize_t n;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", f->path);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	if (line)
		assert_int_equal(send(fd, line, strlen(line), 0), (ssize_t)strlen(line));
	control_serve(f->listen_fd, &h);
	while (got + 1 < cap && (n = recv(fd, reply + got, cap - 1 - got, 0)) > 0)
		got += (size_t)n;
	reply[got] = '\0';
	close(fd);
}

static void test_commands(void **state)
{
	static const struct {
		const char *line, *reply;
		int status_calls, stops;
		bool show_keys;
	} rows[] = {
		{ "show\n", "interface=ht0\nkeys=(hidden)\n", 1, 0, false },
		{ "show-keys\r\n", "interface=ht0\nkeys=shown\n", 1, 0, true },
		{ "show", "interface=ht0\nkeys=(hidden)\n", 1, 0, false },
		{ "stop\n", "ok=stopping\n", 0, 1, false },
		{ "shows\n", "error=unknown command\n", 0, 0, false },
		{ "\n", "error=unknown command\n", 0, 0, false },
		/* A client that says nothing within the wait is closed unanswered. */
		{ NULL, "", 0, 0, false },
	};
	struct fixture *f = *state;
	char reply[256];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		f->status_calls = f->stops = 0;
		f->last_show_keys = false;
		ask(f, rows[i].line, reply, sizeof(reply));
		assert_string_equal(reply, rows[i].reply);
		assert_int_equal(f->status_calls, rows[i].status_calls);
		assert_int_equal(f->stops, rows[i].stops);
		assert_int_equal(f->last_show_keys, rows[i].show_keys);
	}
}

/* No client waiting: returns at once without calling the handler. */
static void test_no_client(void **state)
{
	struct fixture *f = *state;
	const struct control_handler h = { .status = fake_status, .stop = fake_stop, .ctx = f };

	f->status_calls = f->stops = 0;
	control_serve(f->listen_fd, &h);
	assert_int_equal(f->status_calls + f->stops, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_commands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_client, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
