/* SPDX-License-Identifier: MIT */
/*
 * Least privilege for the tunnel daemon: it parses datagrams from anyone on
 * the network, so once set up it keeps nothing a bug could hand to them.
 *
 * Two steps, because capabilities are per thread and a thread inherits its
 * creator's, while a seccomp filter can be pushed onto running threads:
 *
 *   device_up()           TUN, addresses, MTU, routes, sockets, control socket
 *   sandbox_prepare()     drops every capability (effective, permitted,
 *                         inheritable, ambient, bounding), locks the securebits
 *                         so uid 0 cannot regain them, sets no_new_privs,
 *                         makes the process non-dumpable (no core file; its
 *                         memory unreadable without CAP_SYS_PTRACE; not in
 *                         sanitizer builds) and builds the seccomp allowlist
 *                         (not loaded yet)
 *   device_start()        data-path threads: born without capabilities
 *   sandbox_enter()       checks that no thread kept a capability, then loads
 *                         the allowlist into every thread (TSYNC)
 *   device_run()          timers, control socket, data path
 *
 * No capability is kept: after set-up the daemon only reads and writes the
 * TUN and its sockets, opens UDP sockets for path-MTU look-ups, accepts on
 * its control socket and, at exit, closes the TUN (the kernel removes the
 * device) and unlinks its socket and pid file (the daemon stays uid 0, owner
 * of those directories; the filter allows unlinkat() only with the two
 * directory descriptors sandbox_allow_unlink() opened). Netlink changes
 * things only in device_up(); after it, the same socket only reads the TUN's
 * MTU (a GETLINK request, which needs no capability).
 *
 * The allowlist (sandbox.c, syscalls[]) is what strace -f shows a daemon
 * doing under traffic, `tunnel show`, rekeying and shutdown. Code that runs
 * after sandbox_enter() and needs a new system call must add it there, or
 * the process is killed with SIGSYS (tests/netns/test_tunnel_privilege.sh
 * and the other tunnel tests run sandboxed and would show it).
 *
 * Switches: "sandbox = off" in [interface] skips both steps; the environment
 * variable OVLPERF_SECCOMP=log makes a call outside the list succeed and be
 * logged by the kernel (audit "type=1326" lines in dmesg / journalctl -k)
 * instead of killing the process: that is how to find a missing entry.
 * Sanitizer builds log by default (sandbox_default_action()).
 */
#ifndef OVLPERF_TUNNEL_SANDBOX_H
#define OVLPERF_TUNNEL_SANDBOX_H

#include <stdbool.h>

enum sandbox_action {
	SANDBOX_KILL, /* a syscall outside the list kills the process (SIGSYS) */
	SANDBOX_LOG,  /* it is allowed and logged by the kernel (debugging) */
};

struct sandbox {
	bool enabled;
	enum sandbox_action action;
	void *filter; /* scmp_filter_ctx until loaded */
};

/* SANDBOX_KILL; SANDBOX_LOG in ASan/TSan builds, whose runtimes make calls
 * of their own (a leak check at exit, reports): they keep caps dropped and
 * the filter, and a refused call shows in the kernel log. */
enum sandbox_action sandbox_default_action(void);
/* The action OVLPERF_SECCOMP asks for: "kill", "log", or unset (the default
 * above). -EINVAL for anything else (a typo must not silently weaken it). */
int sandbox_action_from_env(enum sandbox_action *out);

/* Step 1 (see above). enabled = false makes both steps no-ops. 0 or -errno,
 * with the reason logged. */
int sandbox_prepare(struct sandbox *sb, bool enabled);
/* Step 2. 0 or -errno, with the reason logged. Frees the filter either way. */
int sandbox_enter(struct sandbox *sb);
/* Frees a prepared filter that was never entered (error paths). */
void sandbox_release(struct sandbox *sb);
/* Before sandbox_prepare(): PATH (the control socket, the pid file) is to be
 * removed after the filter is in: its directory is opened now and the filter
 * allows unlinkat() in it, and nowhere else. 0 or -errno. */
int sandbox_allow_unlink(const char *path);
/* Removes PATH: through its directory if sandbox_allow_unlink() had it, else
 * unlink(). 0 or -errno. */
int sandbox_unlink(const char *path);
/* false once sandbox_prepare() made the process non-dumpable (`tunnel show`
 * reports it as dumpable=0). */
bool sandbox_dumpable(void);

/* The pieces, for tests. */
/* Drops all capabilities of the calling thread, locks them, sets no_new_privs. */
int sandbox_drop_capabilities(void);
/* Loads the allowlist into the calling thread (and, with all_threads, every
 * thread of the process). */
int sandbox_load_filter(enum sandbox_action action, bool all_threads);
/* Number of threads of this process with a non-zero CapEff/CapPrm, or -errno. */
int sandbox_threads_with_caps(void);

#endif
