// SPDX-License-Identifier: MIT
/*
 * The counter file: what the forwarder publishes is what
 * link_counters_read() returns, the file has its name only once ready,
 * close marks it exited, a file that is not one is refused, and a reader
 * racing a writer never sees a torn snapshot (rx = tx + drops + queued in
 * every one it accepts). The printers name every field.
 */
#define _GNU_SOURCE /* link_int.h: struct mmsghdr */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "link_int.h"

static char dir[] = "/tmp/test_link_counters.XXXXXX";
static char path[128];

static void fill(struct link_dir_counters *c, uint64_t base)
{
	uint64_t *w = (uint64_t *)c;

	for (size_t i = 0; i < sizeof(*c) / sizeof(uint64_t); i++)
		w[i] = base + i;
}

static void test_round_trip(void **state)
{
	struct link_counters_file *f;
	struct link_dir_counters ab, ba;
	struct link_counters got;

	(void)state;
	assert_int_equal(link_counters_create(path, &f), 0);
	assert_int_equal(link_counters_read(path, &got), -ENOENT); /* not ready yet */
	assert_int_equal(link_counters_ready(f), 0);
	fill(&ab, 1000);
	fill(&ba, 5000);
	link_counters_publish(f, LINK_AB, &ab, 111);
	link_counters_publish(f, LINK_BA, &ba, 222);
	assert_int_equal(link_counters_read(path, &got), 0);
	assert_int_equal(got.version, LINK_COUNTERS_VERSION);
	assert_int_equal(got.pid, getpid());
	assert_true(got.running);
	assert_int_equal(got.updated_ns, 222);
	assert_memory_equal(&got.dir[LINK_AB], &ab, sizeof(ab));
	assert_memory_equal(&got.dir[LINK_BA], &ba, sizeof(ba));
	link_counters_close(f);
	assert_int_equal(link_counters_read(path, &got), 0);
	assert_false(got.running);
	assert_memory_equal(&got.dir[LINK_BA], &ba, sizeof(ba)); /* kept after exit */
	unlink(path);
}

static void test_not_a_file(void **state)
{
	struct link_counters got;
	FILE *f;

	(void)state;
	assert_int_equal(link_counters_read("/nonexistent/x", &got), -ENOENT);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("not counters\n", f);
	fclose(f);
	assert_int_equal(link_counters_read(path, &got), -EPROTO);
	unlink(path);
}

struct race {
	struct link_counters_file *f;
	volatile int stop;
};

static void *writer(void *arg)
{
	struct race *r = arg;
	struct link_dir_counters c = { 0 };

	while (!r->stop) {
		/* rx = tx + drop_loss + queue_packets, always */
		c.rx_packets += 3;
		c.tx_packets += 1;
		c.drop_loss += 1;
		c.queue_packets += 1;
		c.rx_bytes = c.rx_packets * 100;
		link_counters_publish(r->f, LINK_AB, &c, c.rx_packets);
	}
	return NULL;
}

static void test_no_torn_reads(void **state)
{
	struct race r = { 0 };
	struct link_counters got;
	pthread_t t;
	unsigned ok = 0;

	(void)state;
	assert_int_equal(link_counters_create(path, &r.f), 0);
	assert_int_equal(link_counters_ready(r.f), 0);
	assert_int_equal(pthread_create(&t, NULL, writer, &r), 0);
	for (int i = 0; i < 20000; i++) {
		const struct link_dir_counters *d = &got.dir[LINK_AB];
		int rc = link_counters_read(path, &got);

		if (rc == -EAGAIN)
			continue;
		assert_int_equal(rc, 0);
		assert_int_equal(d->rx_packets, d->tx_packets + d->drop_loss + d->queue_packets);
		assert_int_equal(d->rx_bytes, d->rx_packets * 100);
		ok++;
	}
	r.stop = 1;
	pthread_join(t, NULL);
	assert_true(ok > 0);
	link_counters_close(r.f);
	unlink(path);
}

static void test_printers(void **state)
{
	struct link_counters c = { .version = 1, .pid = 7, .running = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	fill(&c.dir[0], 10);
	fill(&c.dir[1], 20);
	f = open_memstream(&buf, &len);
	assert_int_equal(link_counters_print_json(f, &c), 0);
	assert_int_equal(link_counters_print(f, &c), 0);
	fclose(f);
	for (size_t i = 0; i < link_counter_nfields; i++)
		assert_non_null(strstr(buf, link_counter_fields[i].name));
	assert_non_null(strstr(buf, "\"a_to_b\":{\"rx_packets\":10,\"rx_bytes\":11,"));
	assert_non_null(strstr(buf, "\"b_to_a\":{\"rx_packets\":20,"));
	free(buf);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/c", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_not_a_file),
		cmocka_unit_test(test_no_torn_reads),
		cmocka_unit_test(test_printers),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
