// SPDX-License-Identifier: MIT
/* Processes by name and by pid file, and their network namespaces, from a
 * /proc tree of our own making. */
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

#include "procfind.h"

static char root[] = "/tmp/ovlperf-procfind-XXXXXX";

static void put(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

/* A process: its comm and its cmdline (argv, NUL-separated; len 0: a
 * kernel thread's empty one). */
static void proc(int pid, const char *comm, const char *cmdline, size_t len)
{
	char p[256], c[64];

	snprintf(p, sizeof(p), "%s/%d", root, pid);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/%d/ns", root, pid);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/%d/ns/net", root, pid);
	put(p, "", 0);
	snprintf(p, sizeof(p), "%s/%d/comm", root, pid);
	snprintf(c, sizeof(c), "%s\n", comm);
	put(p, c, strlen(c));
	snprintf(p, sizeof(p), "%s/%d/cmdline", root, pid);
	put(p, cmdline, len);
}

static int setup(void **state)
{
	static const char wg1[] = "wireguard-go\0-f\0tlwga";
	static const char wg2[] = "/usr/bin/wireguard-go\0-f\0tlwgb";
	static const char renamed[] = "/opt/vpn/bin/vpnd\0--foreground";
	static const char longname[] = "/usr/sbin/a-very-long-vpn-daemon";
	static const char other[] = "wireguard-gopher";

	(void)state;
	assert_non_null(mkdtemp(root));
	proc(310, "wireguard-go", wg2, sizeof(wg2));
	proc(42, "wireguard-go", wg1, sizeof(wg1));
	/* a daemon that renamed itself: found by argv[0], and by its comm */
	proc(77, "vpn-worker", renamed, sizeof(renamed));
	/* comm holds the first 15 bytes of a longer name */
	proc(88, "a-very-long-vpn", longname, sizeof(longname));
	proc(99, "wireguard-gophe", other, sizeof(other));
	/* a kernel thread of the same name is no daemon */
	proc(5, "wireguard-go", "", 0);
	{
		char p[256];

		/* entries of /proc that are not processes */
		snprintf(p, sizeof(p), "%s/self", root);
		assert_int_equal(mkdir(p, 0700), 0);
		snprintf(p, sizeof(p), "%s/stat", root);
		put(p, "cpu 1 2 3\n", 10);
	}
	return 0;
}

static int teardown(void **state)
{
	char cmd[64];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static void test_by_name(void **state)
{
	static const struct {
		const char *name;
		int n, pids[2];
	} cases[] = {
		{ "wireguard-go", 2, { 42, 310 } }, /* ascending; the kernel thread left out */
		{ "vpnd", 1, { 77 } },		    /* argv[0]'s base name */
		{ "vpn-worker", 1, { 77 } },	    /* comm */
		{ "a-very-long-vpn-daemon", 1, { 88 } },
		{ "a-very-long-vpn-daemon-2", 1, { 88 } }, /* its comm is the first 15 */
		{ "wireguard", 0, { 0 } },		   /* no prefix match */
		{ "nothing", 0, { 0 } },
	};
	int pids[4];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = procfind(root, cases[i].name, pids, 4);

		assert_int_equal(n, cases[i].n);
		for (int k = 0; k < n; k++)
			assert_int_equal(pids[k], cases[i].pids[k]);
	}
	/* max bounds what is written */
	assert_int_equal(procfind(root, "wireguard-go", pids, 1), 1);
	assert_int_equal(procfind("/nonexistent-proc", "x", pids, 4), -ENOENT);
}

static void test_by_pidfile(void **state)
{
	char file[300], comm[32];
	int pids[2];
	uint64_t dev, ino, dev2, ino2;

	(void)state;
	assert_true(procfind_is_pidfile("/run/x.pid"));
	assert_false(procfind_is_pidfile("wireguard-go"));
	snprintf(file, sizeof(file), "%s/vpn.pid", root);
	put(file, "310\n", 4);
	assert_int_equal(procfind(root, file, pids, 2), 1);
	assert_int_equal(pids[0], 310);
	/* a stale pid file: no process, no error */
	put(file, "4242\n", 5);
	assert_int_equal(procfind(root, file, pids, 2), 0);
	put(file, "abc\n", 4);
	assert_int_equal(procfind(root, file, pids, 2), -EINVAL);
	put(file, "", 0);
	assert_int_equal(procfind(root, file, pids, 2), -EINVAL);
	snprintf(file, sizeof(file), "%s/missing.pid", root);
	assert_int_equal(procfind(root, file, pids, 2), -ENOENT);

	assert_int_equal(procfind_comm(root, 42, comm, sizeof(comm)), 0);
	assert_string_equal(comm, "wireguard-go");
	assert_int_equal(procfind_comm(root, 4242, comm, sizeof(comm)), -ENOENT);
	assert_string_equal(comm, "");
	/* each process's namespace is its own file here: 42's is not 310's */
	assert_int_equal(procfind_netns(root, 42, &dev, &ino), 0);
	assert_int_equal(procfind_netns(root, 310, &dev2, &ino2), 0);
	assert_true(dev == dev2 && ino != ino2);
	assert_int_equal(procfind_netns(root, 42, &dev2, &ino2), 0);
	assert_true(ino == ino2);
	assert_int_equal(procfind_netns(root, 4242, &dev, &ino), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_name),
		cmocka_unit_test(test_by_pidfile),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
