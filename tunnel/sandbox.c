// SPDX-License-Identifier: MIT
/*
 * Capabilities (libcap-ng) and the seccomp allowlist (libseccomp) of the
 * tunnel daemon after set-up. See sandbox.h for the order and the switches.
 */
#define _GNU_SOURCE
#include <cap-ng.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "log.h"
#include "sandbox.h"

/* Sanitizer runtimes make system calls of their own at any time: a new
 * thread's set-up, LeakSanitizer's exit check (clone, ptrace, /proc),
 * spawning the symbolizer for a report. Killing the process there would
 * lose the report, so sanitizer builds log by default (OVLPERF_SECCOMP=kill
 * still kills); release builds kill. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANDBOX_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANDBOX_SANITIZER 1
#endif
#endif
#ifndef SANDBOX_SANITIZER
#define SANDBOX_SANITIZER 0
#endif

/* Everything the daemon's threads call after sandbox_enter(), found with
 * strace -f -c on a daemon under TCP/UDP traffic, `tunnel show`, rekeys,
 * roaming and shutdown (SIGTERM, "stop"), with offloads on and off. Calls
 * with arguments worth restricting are added in add_restricted(). */
static const char *const syscalls[] = {
	/* data path: TUN and UDP batches, the stop eventfd */
	"read",
	"write",
	"readv",
	"writev",
	"recvmmsg",
	"sendmmsg",
	"recvmsg",
	"sendmsg",
	"recvfrom",
	"sendto",
	"poll",
	"ppoll",
	/* control socket (accept4, then recv/send above) */
	"accept4",
	/* path MTU look-ups: a UDP socket (socket() in add_restricted) connected
	 * to the endpoint; DF toggling for outer fragmentation */
	"connect",
	"getsockname",
	"getsockopt",
	"setsockopt",
	/* time, locks, threads ending */
	"clock_gettime",
	"clock_nanosleep",
	"nanosleep",
	"gettimeofday",
	"futex",
	"sched_yield",
	"getpid",
	"gettid",
	"rt_sigprocmask",
	"madvise",
	"exit",
	/* a thread created just before the filter registers itself after it */
	"rseq",
	"set_robust_list",
	/* glibc malloc in the control path (status replies); libsodium random */
	"mmap",
	"munmap",
	"mremap",
	"mprotect",
	"brk",
	"getrandom",
	/* shutdown: close the TUN (the kernel removes the device) and sockets,
	 * sodium_free() the keys; removing the control socket and the pid file
	 * is unlinkat() in their directories only (add_restricted()) */
	"close",
	"munlock",
	"exit_group",
	/* signals (SIGINT/SIGTERM set the interrupt flag) */
	"rt_sigreturn",
	"restart_syscall",
};

enum sandbox_action sandbox_default_action(void)
{
	return SANDBOX_SANITIZER ? SANDBOX_LOG : SANDBOX_KILL;
}

int sandbox_action_from_env(enum sandbox_action *out)
{
	const char *v = getenv("OVLPERF_SECCOMP");

	*out = sandbox_default_action();
	if (!v || !*v)
		return 0;
	if (!strcmp(v, "kill")) {
		*out = SANDBOX_KILL;
		return 0;
	}
	if (!strcmp(v, "log")) {
		*out = SANDBOX_LOG;
		return 0;
	}
	log_err("OVLPERF_SECCOMP='%s': expected 'kill' (default) or 'log'", v);
	return -EINVAL;
}

int sandbox_drop_capabilities(void)
{
	capng_select_t sel = CAPNG_SELECT_CAPS;

	if (capng_get_caps_process() < 0)
		return -EIO;
	/* Bounding set and securebits need CAP_SETPCAP: we have it as root. */
	if (capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP)) {
		if (capng_lock() < 0) {
			log_err("sandbox: cannot lock the securebits (uid 0 could regain "
				"capabilities)");
			return -EPERM;
		}
		sel = CAPNG_SELECT_ALL;
	}
	capng_clear(CAPNG_SELECT_ALL);
	if (capng_apply(sel) < 0) {
		log_err("sandbox: cannot drop capabilities");
		return -EPERM;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		int r = -errno;

		log_err("sandbox: no_new_privs: %s", strerror(-r));
		return r;
	}
	if (capng_get_caps_process() < 0 ||
	    capng_have_capabilities(CAPNG_SELECT_CAPS) != CAPNG_NONE) {
		log_err("sandbox: capabilities still present after dropping them");
		return -EPERM;
	}
	return 0;
}

/* Files the daemon removes at exit (its control socket, its pid file): the
 * directory of each is opened (O_PATH) before the filter, and the filter
 * allows unlinkat() with exactly those directory descriptors, so a
 * compromised daemon cannot remove anything outside them (plain unlink()
 * and unlinkat(AT_FDCWD, ...) are refused). */
#define SANDBOX_MAX_UNLINK 4
/* Globals, against the house rule: the filter they feed is process-wide, and
 * the exit paths that remove the files (device_down, cmd_up) hold no sandbox
 * handle. Written before the filter and threads exist, read-only after. */
static struct {
	char path[256];
	const char *base; /* into path */
	int dirfd;
} unlinkable[SANDBOX_MAX_UNLINK];
static size_t nunlinkable;

int sandbox_allow_unlink(const char *path)
{
	char dir[256];
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) : 0;
	int fd;

	if (nunlinkable == SANDBOX_MAX_UNLINK)
		return -ENOSPC;
	if (!*path || strlen(path) >= sizeof(unlinkable[0].path) || (slash && !slash[1]))
		return -EINVAL;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (dl == 0)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)dl, path);
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(unlinkable[nunlinkable].path, sizeof(unlinkable[0].path), "%s", path);
	unlinkable[nunlinkable].base = unlinkable[nunlinkable].path + (slash ? dl + 1 : 0);
	unlinkable[nunlinkable].dirfd = fd;
	nunlinkable++;
	return 0;
}

int sandbox_unlink(const char *path)
{
	for (size_t i = 0; i < nunlinkable; i++)
		if (!strcmp(unlinkable[i].path, path))
			return unlinkat(unlinkable[i].dirfd, unlinkable[i].base, 0) < 0 ? -errno
											: 0;
	return unlink(path) < 0 ? -errno : 0;
}

/* socket(): only UDP over IPv4/IPv6 (path-MTU look-ups); tgkill(): only to
 * this process (abort() must still end in SIGABRT, e.g. a FORTIFY check);
 * unlinkat(): only in the directories sandbox_allow_unlink() opened. */
static int add_restricted(scmp_filter_ctx ctx)
{
	static const int families[] = { AF_INET, AF_INET6 };
	static const int protos[] = { 0, IPPROTO_UDP };
	int r;

	for (size_t i = 0; i < nunlinkable; i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(unlinkat), 1,
				     SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)unlinkable[i].dirfd));
		if (r < 0)
			return r;
	}

	for (size_t f = 0; f < 2; f++)
		for (size_t p = 0; p < 2; p++) {
			r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 3,
					     SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)families[f]),
					     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_DGRAM),
					     SCMP_A2(SCMP_CMP_EQ, (scmp_datum_t)protos[p]));
			if (r < 0)
				return r;
		}
	return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
				SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid()));
}

static int build_filter(enum sandbox_action action, bool all_threads, scmp_filter_ctx *out)
{
	uint32_t deny = SCMP_ACT_KILL_PROCESS;
	scmp_filter_ctx ctx;
	int r = 0;

	/* API level 3: kernel and library know KILL_PROCESS and LOG. Before that,
	 * SIGSYS (whose default action ends the whole process). */
	if (seccomp_api_get() < 3)
		deny = SCMP_ACT_TRAP;
	if (action == SANDBOX_LOG)
		deny = seccomp_api_get() >= 3 ? SCMP_ACT_LOG : SCMP_ACT_ALLOW;
	ctx = seccomp_init(deny);
	if (!ctx)
		return -ENOMEM;
	if (all_threads)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	/* The kernel logs every refused call, not only in log mode. */
	if (r == 0 && seccomp_api_get() >= 3)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_LOG, 1);
	for (size_t i = 0; r == 0 && i < sizeof(syscalls) / sizeof(syscalls[0]); i++) {
		int nr = seccomp_syscall_resolve_name(syscalls[i]);

		if (nr == __NR_SCMP_ERROR)
			continue; /* not on this architecture (poll on arm64...) */
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
	}
	if (r == 0)
		r = add_restricted(ctx);
	if (r < 0) {
		log_err("sandbox: cannot build the seccomp filter: %s", strerror(-r));
		seccomp_release(ctx);
		return r;
	}
	*out = ctx;
	return 0;
}

int sandbox_load_filter(enum sandbox_action action, bool all_threads)
{
	scmp_filter_ctx ctx;
	int r = build_filter(action, all_threads, &ctx);

	if (r < 0)
		return r;
	r = seccomp_load(ctx);
	seccomp_release(ctx);
	return r;
}

/* Capability masks of one /proc/self/task/TID/status: true if any is set. */
static int task_has_caps(const char *tid)
{
	char path[64], line[256];
	FILE *f;
	int has = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%s/status", tid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno; /* a thread that just ended */
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "CapEff:", 7) || !strncmp(line, "CapPrm:", 7) ||
		    !strncmp(line, "CapAmb:", 7))
			has |= strtoull(line + 7, NULL, 16) != 0;
	}
	fclose(f);
	return has;
}

int sandbox_threads_with_caps(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0, r;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		r = task_has_caps(de->d_name);
		if (r < 0) {
			n = r;
			break;
		}
		n += r;
	}
	closedir(d);
	return n;
}

/* Set once sandbox_prepare() made the process non-dumpable. A global, against
 * the house rule, because it mirrors process-wide kernel state that the
 * filter forbids asking for again (prctl) when `tunnel show` reports it. */
static bool not_dumpable;

/* No core dump, and no reading of the daemon's memory (/proc/PID/mem,
 * environ, ptrace) by a process without CAP_SYS_PTRACE, even one running as
 * the same uid: keys live in guarded pages, but plaintext packets pass
 * through ordinary buffers. Not in sanitizer builds, whose LeakSanitizer
 * attaches to the threads with ptrace at exit from a capability-less
 * helper and would fail. */
static int no_dump(void)
{
	if (SANDBOX_SANITIZER) {
		log_info("sandbox: sanitizer build, the process stays dumpable (LeakSanitizer "
			 "needs ptrace)");
		return 0;
	}
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
		int r = -errno;

		log_err("sandbox: PR_SET_DUMPABLE: %s", strerror(-r));
		return r;
	}
	not_dumpable = true;
	return 0;
}

bool sandbox_dumpable(void)
{
	return !not_dumpable;
}

int sandbox_prepare(struct sandbox *sb, bool enabled)
{
	scmp_filter_ctx ctx;
	int r;

	memset(sb, 0, sizeof(*sb));
	if (!enabled) {
		log_warn("sandbox = off: the daemon keeps its capabilities and has no seccomp "
			 "filter");
		return 0;
	}
	r = sandbox_action_from_env(&sb->action);
	if (r == 0 && prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
		r = -errno;
		log_err("sandbox: this kernel has no seccomp (%s); set 'sandbox = off' to run "
			"anyway",
			strerror(-r));
	}
	if (r == 0)
		r = sandbox_drop_capabilities();
	if (r == 0)
		r = no_dump();
	if (r == 0)
		r = build_filter(sb->action, true, &ctx);
	if (r < 0)
		return r;
	sb->filter = ctx;
	sb->enabled = true;
	return 0;
}

int sandbox_enter(struct sandbox *sb)
{
	int r;

	if (!sb->enabled)
		return 0;
	r = sandbox_threads_with_caps();
	if (r != 0) {
		log_err("sandbox: %s", r > 0 ? "a thread still holds capabilities (started before "
					       "sandbox_prepare?)"
					     : strerror(-r));
		sandbox_release(sb);
		return r > 0 ? -EPERM : r;
	}
	r = seccomp_load(sb->filter);
	sandbox_release(sb);
	if (r < 0) {
		log_err("sandbox: cannot load the seccomp filter: %s", strerror(-r));
		return r;
	}
	log_info("sandbox: no capabilities, seccomp allowlist of %zu system calls (%s)",
		 sizeof(syscalls) / sizeof(syscalls[0]) + 2,
		 sb->action == SANDBOX_LOG ? "others logged" : "others kill the process");
	return 0;
}

void sandbox_release(struct sandbox *sb)
{
	if (sb->filter)
		seccomp_release(sb->filter);
	sb->filter = NULL;
}
