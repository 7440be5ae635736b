// SPDX-License-Identifier: MIT
/*
 * The tunnel daemon's sandbox (tunnel/sandbox.h), each case in a forked
 * child so the filter never reaches the test runner:
 *  - a table of calls outside the allowlist: each kills the child with SIGSYS
 *    (execve, open, a TCP/UNIX/netlink/packet socket, fork, ptrace, kill,
 *    tgkill of another process, ioctl, setuid, mount...);
 *  - a child doing what the daemon does after set-up (pipes, poll, time,
 *    malloc, getrandom, a UDP socket connected for a path-MTU look-up,
 *    setsockopt DF, removing a file registered with sandbox_allow_unlink(),
 *    a thread ending) exits 0, while unlink/unlinkat by path and rename kill;
 *  - abort() still ends in SIGABRT (tgkill of itself is allowed);
 *  - OVLPERF_SECCOMP=log: the same forbidden call is let through;
 *  - capabilities: gone (a raw socket is refused), bounding set empty,
 *    no_new_privs set; a thread started before sandbox_prepare() makes
 *    sandbox_enter() refuse; a thread started after it is filtered too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sodium.h>

#include "sandbox.h"

/* Runs fn in a child; returns its wait status. */
static int in_child(int (*fn)(void *), void *arg)
{
	int st = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn(arg));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

static void assert_killed_by(int st, int sig, const char *what)
{
	if (!WIFSIGNALED(st) || WTERMSIG(st) != sig)
		fail_msg("%s: expected signal %d, got %s %d", what, sig,
			 WIFSIGNALED(st) ? "signal" : "exit",
			 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

static void assert_exit_0(int st, const char *what)
{
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("%s: expected exit 0, got %s %d", what,
			 WIFSIGNALED(st) ? "signal" : "exit",
			 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

/* ---- calls outside the list ---- */

struct forbidden {
	const char *name;
	long (*call)(void);
};

static long do_execve(void)
{
	/* A missing file: if execve were allowed, the child would live on. */
	char *argv[] = { "true", NULL }, *envp[] = { NULL };

	return syscall(SYS_execve, "/nonexistent/true", argv, envp);
}
static long do_openat(void)
{
	return syscall(SYS_openat, AT_FDCWD, "/etc/hostname", O_RDONLY);
}
static long do_sock_tcp(void)
{
	return syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
}
static long do_sock_unix(void)
{
	return syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0);
}
static long do_sock_netlink(void)
{
	return syscall(SYS_socket, AF_NETLINK, SOCK_RAW, 0);
}
static long do_sock_raw(void)
{
	return syscall(SYS_socket, AF_INET, SOCK_RAW, IPPROTO_UDP);
}
static long do_sock_packet(void)
{
	return syscall(SYS_socket, AF_PACKET, SOCK_DGRAM, 0);
}
static long do_fork(void)
{
	return syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
}
static long do_ptrace(void)
{
	return syscall(SYS_ptrace, 0 /* TRACEME */, 0, 0, 0);
}
static long do_kill(void)
{
	return syscall(SYS_kill, 1, 0);
}
static long do_tgkill_other(void)
{
	return syscall(SYS_tgkill, 1, 1, 0);
}
static long do_ioctl(void)
{
	return syscall(SYS_ioctl, 0, TUNSETIFF, 0);
}
static long do_setuid(void)
{
	return syscall(SYS_setuid, 0);
}
static long do_mount(void)
{
	return syscall(SYS_mount, "none", "/mnt", "tmpfs", 0, NULL);
}
static long do_bind(void)
{
	return syscall(SYS_bind, 0, NULL, 0);
}
static long do_prctl(void)
{
	return syscall(SYS_prctl, PR_SET_DUMPABLE, 1, 0, 0, 0);
}
static long do_getppid(void)
{
	return syscall(SYS_getppid);
}
/* Removing files: only unlinkat() in a directory sandbox_allow_unlink()
 * opened (the child has none), never by path. */
static long do_unlink(void)
{
	return syscall(SYS_unlink, "/nonexistent/ovlperf");
}
static long do_unlinkat_cwd(void)
{
	return syscall(SYS_unlinkat, AT_FDCWD, "/nonexistent/x", 0);
}
static long do_rename(void)
{
	return syscall(SYS_rename, "/nonexistent/a", "/nonexistent/b");
}

static const struct forbidden forbidden[] = {
	{ "execve", do_execve },
	{ "openat", do_openat },
	{ "socket TCP", do_sock_tcp },
	{ "socket UNIX", do_sock_unix },
	{ "socket netlink", do_sock_netlink },
	{ "socket raw", do_sock_raw },
	{ "socket packet", do_sock_packet },
	{ "clone (fork)", do_fork },
	{ "ptrace", do_ptrace },
	{ "kill", do_kill },
	{ "tgkill other", do_tgkill_other },
	{ "ioctl", do_ioctl },
	{ "setuid", do_setuid },
	{ "mount", do_mount },
	{ "bind", do_bind },
	{ "prctl", do_prctl },
	{ "getppid", do_getppid },
	{ "unlink", do_unlink },
	{ "unlinkat AT_FDCWD", do_unlinkat_cwd },
	{ "rename", do_rename },
};

static int child_forbidden(void *arg)
{
	const struct forbidden *f = arg;

	if (sandbox_load_filter(SANDBOX_KILL, false) < 0)
		return 3;
	f->call();
	return 4; /* still alive: the filter let it through */
}

static void test_forbidden_calls_kill(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(forbidden) / sizeof(forbidden[0]); i++)
		assert_killed_by(in_child(child_forbidden, (void *)&forbidden[i]), SIGSYS,
				 forbidden[i].name);
}

/* Sanitizer runtimes make calls of their own (sandbox.c): the cases that
 * need a child to live on under a killing filter only run in release builds. */
static void skip_if_sanitized(void)
{
	if (sandbox_default_action() != SANDBOX_KILL)
		skip();
}

/* ---- what the daemon does after set-up ---- */

static void *thread_ends(void *arg)
{
	return arg;
}

static int child_allowed(void *arg)
{
	char path[] = "/tmp/ovlperf-sandbox-XXXXXX";
	int p[2], fd = mkstemp(path), pmtu = IP_PMTUDISC_DO, mtu = 0;
	socklen_t sl = sizeof(mtu);
	struct sockaddr_in lo = { .sin_family = AF_INET,
				  .sin_port = htons(9),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timespec ts = { 0, 1000 };
	uint8_t rnd[32];
	char c = 'x';
	pthread_t t;
	void *big;
	struct pollfd pfd;
	int s;

	(void)arg;
	if (fd < 0 || pipe(p) < 0 || pthread_create(&t, NULL, thread_ends, NULL) != 0)
		return 2;
	close(fd);
	if (sandbox_allow_unlink(path) < 0)
		return 4;
	if (sandbox_load_filter(SANDBOX_KILL, true) < 0)
		return 3;
	if (pthread_join(t, NULL) != 0)
		return 10;
	if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
		return 11;
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	if (poll(&pfd, 1, 1) != 0)
		return 12;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	clock_nanosleep(CLOCK_MONOTONIC, 0, &(struct timespec){ 0, 1000 }, NULL);
	big = malloc(8 << 20); /* mmap */
	if (!big)
		return 13;
	memset(big, 1, 8 << 20);
	free(big);
	randombytes_buf(rnd, sizeof(rnd));
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&lo, sizeof(lo)) < 0 ||
	    setsockopt(s, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)) < 0 ||
	    getsockopt(s, IPPROTO_IP, IP_MTU, &mtu, &sl) < 0 || mtu <= 0)
		return 14;
	if (send(s, &c, 1, 0) != 1)
		return 15;
	close(s);
	if (sandbox_unlink(path) < 0)
		return 16;
	return 0;
}

static void test_allowed_calls_live(void **state)
{
	(void)state;
	skip_if_sanitized();
	assert_exit_0(in_child(child_allowed, NULL), "the daemon's calls under the filter");
}

static int child_abort(void *arg)
{
	(void)arg;
	if (sandbox_load_filter(SANDBOX_KILL, false) < 0)
		return 3;
	abort();
}

static void test_abort_is_sigabrt(void **state)
{
	(void)state;
	skip_if_sanitized();
	assert_killed_by(in_child(child_abort, NULL), SIGABRT, "abort() under the filter");
}

static int child_log_mode(void *arg)
{
	(void)arg;
	if (sandbox_load_filter(SANDBOX_LOG, false) < 0)
		return 3;
	return do_getppid() > 0 ? 0 : 5;
}

static void test_log_mode_lets_through(void **state)
{
	(void)state;
	assert_exit_0(in_child(child_log_mode, NULL), "getppid() in log mode");
}

static void test_env_switch(void **state)
{
	enum sandbox_action a;

	(void)state;
	unsetenv("OVLPERF_SECCOMP");
	assert_int_equal(sandbox_action_from_env(&a), 0);
	assert_int_equal(a, sandbox_default_action());
	setenv("OVLPERF_SECCOMP", "log", 1);
	assert_int_equal(sandbox_action_from_env(&a), 0);
	assert_int_equal(a, SANDBOX_LOG);
	setenv("OVLPERF_SECCOMP", "kill", 1);
	assert_int_equal(sandbox_action_from_env(&a), 0);
	assert_int_equal(a, SANDBOX_KILL);
	setenv("OVLPERF_SECCOMP", "lgo", 1);
	assert_int_equal(sandbox_action_from_env(&a), -EINVAL);
	assert_int_equal(a, sandbox_default_action());
	unsetenv("OVLPERF_SECCOMP");
}

/* ---- capabilities ---- */

static int child_caps(void *arg)
{
	int s;

	(void)arg;
	if (geteuid() == 0) {
		/* Root can open a raw socket before: the check below can fail. */
		s = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);
		if (s < 0)
			return 20;
		close(s);
	}
	if (sandbox_drop_capabilities() < 0)
		return 21;
	s = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);
	if (s >= 0 || errno != EPERM)
		return 22;
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return 23;
	if (geteuid() == 0 && prctl(PR_CAPBSET_READ, 12 /* CAP_NET_ADMIN */, 0, 0, 0) != 0)
		return 24;
	if (sandbox_threads_with_caps() != 0)
		return 25;
	return 0;
}

static void test_capabilities_dropped(void **state)
{
	(void)state;
	assert_exit_0(in_child(child_caps, NULL), "capabilities dropped");
}

static int block_fd = -1;

static void *thread_blocks(void *arg)
{
	char c;

	(void)arg;
	if (read(block_fd, &c, 1) == 1 && c == 'f')
		syscall(SYS_getppid); /* outside the list */
	return NULL;
}

/* A thread born before sandbox_prepare() keeps root's capabilities:
 * sandbox_enter() must refuse rather than leave it privileged. */
static int child_early_thread(void *arg)
{
	struct sandbox sb;
	pthread_t t;
	int p[2], r;

	(void)arg;
	if (pipe(p) < 0)
		return 2;
	block_fd = p[0];
	if (pthread_create(&t, NULL, thread_blocks, NULL) != 0)
		return 2;
	if (sandbox_prepare(&sb, true) < 0)
		return 30;
	r = sandbox_enter(&sb);
	return r == -EPERM ? 0 : 31;
}

static void test_early_thread_refused(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* without capabilities there is nothing to keep */
	assert_exit_0(in_child(child_early_thread, NULL), "a thread with capabilities");
}

/* The daemon's order: prepare, threads, enter; a thread's forbidden call
 * kills the whole process. */
static int child_daemon_order(void *arg)
{
	struct sandbox sb;
	pthread_t t;
	int p[2];
	char c = 'f';

	(void)arg;
	setenv("OVLPERF_SECCOMP", "kill", 1); /* also in sanitizer builds */
	if (pipe(p) < 0)
		return 2;
	block_fd = p[0];
	if (sandbox_prepare(&sb, true) < 0)
		return 40;
	if (pthread_create(&t, NULL, thread_blocks, NULL) != 0)
		return 41;
	if (sandbox_enter(&sb) < 0)
		return 42;
	if (write(p[1], &c, 1) != 1)
		return 43;
	pthread_join(t, NULL);
	return 44; /* the thread's call was let through */
}

static void test_thread_filtered(void **state)
{
	(void)state;
	assert_killed_by(in_child(child_daemon_order, NULL), SIGSYS, "forbidden call in a thread");
}

static int child_off(void *arg)
{
	struct sandbox sb;

	(void)arg;
	if (sandbox_prepare(&sb, false) < 0 || sandbox_enter(&sb) < 0)
		return 50;
	return do_getppid() > 0 && prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0 ? 0 : 51;
}

static void test_sandbox_off(void **state)
{
	(void)state;
	assert_exit_0(in_child(child_off, NULL), "sandbox = off");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forbidden_calls_kill),
		cmocka_unit_test(test_allowed_calls_live),
		cmocka_unit_test(test_abort_is_sigabrt),
		cmocka_unit_test(test_log_mode_lets_through),
		cmocka_unit_test(test_env_switch),
		cmocka_unit_test(test_capabilities_dropped),
		cmocka_unit_test(test_early_thread_refused),
		cmocka_unit_test(test_thread_filtered),
		cmocka_unit_test(test_sandbox_off),
	};

	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
