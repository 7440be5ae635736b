// SPDX-License-Identifier: MIT
/*
 * The UDP socket table (udpsock.c): /proc/net/udp and udp6 text as the
 * kernel writes it, the socket whose drops rose most with the test's own
 * skipped (new sockets from 0, a counter that wrapped), and the process
 * holding a socket, looked up under a made-up /proc.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "udpsock.h"

static const char udp4[] =
	"   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
	"timeout inode ref pointer drops\n"
	"  282: 00000000:CA6C 00000000:0000 07 00000000:00000000 00:00000000 00000000     0"
	"        0 28543 2 0000000000000000 0\n"
	"  301: 020012C6:145B 010012C6:9C40 01 00000000:00034000 00:00000000 00000000     0"
	"        0 30001 2 0000000000000000 17\n";
static const char udp6[] =
	"  sl  local_address                         remote_address                        st "
	"tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n"
	"   53: 00000000000000000000000000000000:CA6C 00000000000000000000000000000000:0000 07 "
	"00000000:00000000 00:00000000 00000000     0        0 28600 2 0000000000000000 "
	"4294967295\n";

static void test_parse(void **state)
{
	struct udpsock_table t = { 0 };

	(void)state;
	assert_int_equal(udpsock_parse(udp4, 4, &t), 0);
	assert_int_equal(udpsock_parse(udp6, 6, &t), 0);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.e[0].port, 51820);
	assert_int_equal(t.e[0].inode, 28543);
	assert_int_equal(t.e[0].drops, 0);
	assert_int_equal(t.e[1].port, 5211);
	assert_int_equal(t.e[1].drops, 17);
	/* connected to 198.18.0.1:40000; the first socket to none */
	assert_int_equal(t.e[1].rport, 40000);
	assert_true(udpsock_connected_to(&t.e[1], 4, (const uint8_t[]){ 198, 18, 0, 1 }));
	assert_false(udpsock_connected_to(&t.e[1], 4, (const uint8_t[]){ 198, 18, 0, 2 }));
	assert_false(udpsock_connected_to(&t.e[0], 4, (const uint8_t[]){ 0, 0, 0, 0 }));
	assert_int_equal(t.e[2].family, 6);
	assert_int_equal(t.e[2].drops, 4294967295u);
	assert_int_equal(udpsock_parse("garbage\n", 4, &t), -EINVAL);
	assert_int_equal(t.n, 3);
}

static void test_top_riser(void **state)
{
	struct udpsock_table *before = calloc(1, sizeof(*before)),
			     *after = calloc(1, sizeof(*after));
	struct udpsock_owner o;
	uint64_t skip[] = { 30001 }; /* the test's own socket */

	(void)state;
	assert_int_equal(udpsock_parse(udp4, 4, before), 0);
	assert_int_equal(udpsock_parse(udp6, 6, before), 0);
	*after = *before;
	assert_false(udpsock_top_riser(before, after, skip, 1, &o)); /* nothing rose */
	after->e[1].drops += 5000;				     /* the test's: skipped */
	assert_false(udpsock_top_riser(before, after, skip, 1, &o));
	after->e[0].drops = 1200; /* the VPN's */
	after->e[2].drops = 99;	  /* wrapped from 2^32 - 1: 100 */
	assert_true(udpsock_top_riser(before, after, skip, 1, &o));
	assert_int_equal(o.inode, 28543);
	assert_int_equal(o.port, 51820);
	assert_int_equal(o.family, 4);
	assert_int_equal(o.drops, 1200);
	assert_int_equal(udpsock_rises(before, after, skip, 1), 1300);
	/* a socket new since the start counts from 0 */
	after->e[after->n++] =
		(struct udpsock_entry){ .inode = 7, .drops = 2000, .port = 4789, .family = 6 };
	assert_true(udpsock_top_riser(before, after, skip, 1, &o));
	assert_int_equal(o.inode, 7);
	assert_int_equal(o.drops, 2000);
	free(before);
	free(after);
}

static void test_owner_process(void **state)
{
	char root[] = "/tmp/test_udpsock_XXXXXX", path[128];
	struct udpsock_owner o = { .inode = 28543 };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/1", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/1/fd", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/1/fd/3", root);
	assert_int_equal(symlink("socket:[111]", path), 0);
	snprintf(path, sizeof(path), "%s/4242", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/4242/fd", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/4242/fd/7", root);
	assert_int_equal(symlink("socket:[28543]", path), 0);
	snprintf(path, sizeof(path), "%s/4242/comm", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("wireguard-go\n", f);
	fclose(f);
	assert_true(udpsock_owner_process(root, &o));
	assert_int_equal(o.pid, 4242);
	assert_string_equal(o.comm, "wireguard-go");
	o.inode = 5;
	assert_false(udpsock_owner_process(root, &o));
	assert_int_equal(o.pid, 0);
	assert_string_equal(o.comm, "");
	/* this process's own socket, in the real /proc */
	{
		struct udpsock_table t;
		int rc = udpsock_read(&t);

		assert_true(rc == 0 || rc == -ENOENT);
	}
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_top_riser),
		cmocka_unit_test(test_owner_process),
	};

	return cmocka_run_group_tests_name("udpsock", tests, NULL, NULL);
}
