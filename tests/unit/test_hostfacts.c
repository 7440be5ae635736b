// SPDX-License-Identifier: MIT
/* One host's facts: the readers against /proc trees of our own making
 * (the TUN's holder by fdinfo's iff:, a process's sockets, softnet_stat,
 * the TCP sysctls) and the idle baseline's bookkeeping. */
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

#include "hostfacts.h"
#include "procfind.h"
#include "softnet.h"

static char root[] = "/tmp/ovlperf-hostfacts-XXXXXX";

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* root/PID/sub ("" for root/PID itself) */
static void dir(int pid, const char *sub)
{
	char p[300];

	snprintf(p, sizeof(p), "%s/%d%s%s", root, pid, sub[0] ? "/" : "", sub);
	assert_int_equal(mkdir(p, 0700), 0);
}

/* Process pid with one fd 3 linking to target and, when iff is set, its
 * fdinfo naming that TUN device as the kernel prints it. */
static void proc(int pid, const char *target, const char *iff)
{
	char p[300], t[128];

	dir(pid, "");
	dir(pid, "fd");
	dir(pid, "fdinfo");
	snprintf(p, sizeof(p), "%s/%d/comm", root, pid);
	put(p, "vpnd\n");
	snprintf(p, sizeof(p), "%s/%d/fd/3", root, pid);
	assert_int_equal(symlink(target, p), 0);
	snprintf(p, sizeof(p), "%s/%d/fdinfo/3", root, pid);
	snprintf(t, sizeof(t), "pos:\t0\nflags:\t0104002\nmnt_id:\t25\nino:\t1057\n%s%s%s",
		 iff ? "iff:\t" : "", iff ? iff : "", iff ? "\n" : "");
	put(p, t);
}

static int setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(root));
	proc(300, "/dev/net/tun", "fawg1");
	proc(42, "/dev/net/tun", "fawg0");
	proc(77, "/dev/net/tun", "fawg0x"); /* a longer name, not a prefix match */
	proc(88, "socket:[555]", NULL);
	proc(99, "/dev/null", "fawg0"); /* not a TUN fd, whatever fdinfo says */
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static void test_tun_holder(void **state)
{
	int pids[4];

	(void)state;
	assert_int_equal(procfind_tun(root, "fawg0", pids, 4), 1);
	assert_int_equal(pids[0], 42);
	assert_int_equal(procfind_tun(root, "fawg1", pids, 4), 1);
	assert_int_equal(pids[0], 300);
	assert_int_equal(procfind_tun(root, "fawg9", pids, 4), 0);
	assert_int_equal(procfind_tun(root, "", pids, 4), 0);
	assert_int_equal(procfind_tun("/nonexistent-proc", "fawg0", pids, 4), -ENOENT);
}

static void test_sockets(void **state)
{
	uint64_t ino[4];

	(void)state;
	assert_int_equal(procfind_sockets(root, 88, ino, 4), 1);
	assert_int_equal(ino[0], 555);
	assert_int_equal(procfind_sockets(root, 42, ino, 4), 0);
	assert_int_equal(procfind_sockets(root, 12345, ino, 4), -ENOENT);
}

static void test_softnet(void **state)
{
	/* two CPUs of a 6.x kernel: processed dropped time_squeeze, then
	 * columns this reader does not use */
	static const char text[] =
		"0001e240 00000002 00000010 00000000 00000000 00000000 00000000 00000000 "
		"00000000 00000000 00000000 00000000 00000000 00000000\n"
		"000003e8 00000001 00000001 00000000 00000000 00000000 00000000 00000000 "
		"00000000 00000000 00000000 00000000 00000000 00000001\n";
	struct softnet sn;

	(void)state;
	assert_int_equal(softnet_parse(text, sizeof(text) - 1, &sn), 0);
	assert_int_equal(sn.ncpu, 2);
	assert_int_equal(sn.processed, 123456 + 1000);
	assert_int_equal(sn.dropped, 3);
	assert_int_equal(sn.squeezed, 17);
	assert_int_equal(softnet_parse("cpu 1 2\n", 8, &sn), -EINVAL);
	assert_int_equal(softnet_parse("", 0, &sn), -EINVAL);
}

static void test_sysctls(void **state)
{
	char p[300];
	struct hostfacts f;

	(void)state;
	snprintf(p, sizeof(p), "%s/sys", root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/sys/net", root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/sys/net/ipv4", root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/sys/net/core", root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/sys/net/ipv4/tcp_rmem", root);
	put(p, "4096\t131072\t6291456\n");
	snprintf(p, sizeof(p), "%s/sys/net/ipv4/tcp_wmem", root);
	put(p, "4096\t16384\t4194304\n");
	snprintf(p, sizeof(p), "%s/sys/net/core/rmem_max", root);
	put(p, "212992\n");
	snprintf(p, sizeof(p), "%s/sys/net/core/wmem_max", root);
	put(p, "212993\n");
	snprintf(p, sizeof(p), "%s/sys/net/ipv4/tcp_congestion_control", root);
	put(p, "bbr\n");
	hostfacts_unknown(&f, NULL);
	snprintf(p, sizeof(p), "%s/sys", root);
	hostfacts_read_sysctls(p, &f);
	assert_true(f.sysctl_known);
	assert_string_equal(f.cc, "bbr");
	assert_int_equal(f.tcp_rmem[0], 4096);
	assert_int_equal(f.tcp_rmem[1], 131072);
	assert_int_equal(f.tcp_rmem[2], 6291456);
	assert_int_equal(f.tcp_wmem[2], 4194304);
	assert_int_equal(f.rmem_max, 212992);
	assert_int_equal(f.wmem_max, 212993);
	hostfacts_unknown(&f, "server ovlperf 0.1.0");
	hostfacts_read_sysctls("/nonexistent-sys", &f);
	assert_false(f.sysctl_known);
	assert_string_equal(f.cc, "");
	assert_string_equal(f.unknown, "server ovlperf 0.1.0");
	assert_false(f.known);
}

/* A process found by the TUN it holds, read over a window: the probe
 * against this process's own /proc (it holds no TUN: none found). */
static void test_probe_self(void **state)
{
	struct hostfacts_where w = { .path_if = "fanotun0", .baseline_cores = -1 };
	struct hostfacts f;
	struct hostfacts_probe *p;

	(void)state;
	p = hostfacts_begin(&w);
	assert_non_null(p);
	hostfacts_end(p, &f);
	assert_true(f.known);
	assert_int_equal(f.nprocs, 0);
	assert_int_equal(f.test.pid, getpid());
	assert_true(f.window_s >= 0);
	assert_true(f.baseline_cores < 0);
	assert_false(f.rest_moved);
	hostfacts_end(NULL, &f);
	assert_false(f.known);
	assert_string_equal(f.unknown, "not read (the test did not start, or no memory)");
}

static void test_net_cores(void **state)
{
	struct hostfacts f;

	(void)state;
	hostfacts_unknown(&f, NULL);
	assert_true(hostfacts_net_cores(&f) < 0); /* not reported */
	f.known = true;
	f.machine_cores = 1.75;
	assert_true(hostfacts_net_cores(&f) < 0); /* no baseline */
	f.baseline_cores = 0.25;
	assert_true(hostfacts_net_cores(&f) == 1.5);
	f.rest_moved = true;
	assert_true(hostfacts_net_cores(&f) < 0);
	f.rest_moved = false;
	f.baseline_cores = 1.8; /* the machine quieter than at rest: nothing to book */
	assert_true(hostfacts_net_cores(&f) < 0);
}

static void test_idle(void **state)
{
	struct hostfacts_idle i;

	(void)state;
	hostfacts_idle_init(&i, NULL);
	/* a gap shorter than HOSTFACTS_IDLE_MIN_NS measures nothing */
	assert_true(hostfacts_idle_start(&i) < 0);
	hostfacts_idle_stop(&i);
	usleep(120000);
	assert_true(hostfacts_idle_start(&i) >= 0);
	/* a second test at once: no gap closed, the baseline stays */
	assert_true(hostfacts_idle_start(&i) >= 0);
	hostfacts_idle_stop(&i);
	assert_int_equal(i.running, 1);
	hostfacts_idle_stop(&i);
	assert_true(i.marked);
	hostfacts_idle_destroy(&i);
	assert_true(hostfacts_idle_sample(NULL, 1000000) >= 0);
	assert_true(hostfacts_idle_sample("/nonexistent-proc", 1000) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tun_holder), cmocka_unit_test(test_sockets),
		cmocka_unit_test(test_softnet),	   cmocka_unit_test(test_sysctls),
		cmocka_unit_test(test_probe_self), cmocka_unit_test(test_net_cores),
		cmocka_unit_test(test_idle),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
