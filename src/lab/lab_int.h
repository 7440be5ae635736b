/* SPDX-License-Identifier: MIT */
/* Inside the lab module: the state file and the nftables rules. */
#ifndef OVLPERF_LAB_INT_H
#define OVLPERF_LAB_INT_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "lab.h"

#define LAB_NETNS_NAME_MAX 32

struct nl_sock;

/* Appends printf-style text to buf (len bytes, n used so far, both in scope)
 * inside a function that returns -ENOSPC when the text does not fit. */
#define LAB_APPEND(...)                                                                            \
	do {                                                                                       \
		int k_ = snprintf(buf + n, len - n, __VA_ARGS__);                                  \
		if (k_ < 0 || (size_t)k_ >= len - n)                                               \
			return -ENOSPC;                                                            \
		n += (size_t)k_;                                                                   \
	} while (0)

/* What /run/ovlperf/labs/<name> records: the spec, and each namespace made,
 * with the inode it had (0 while only its name was claimed). */
struct lab_state {
	struct lab_spec spec;
	pid_t pid;
	enum lab_owner owner;
	unsigned nns;
	struct {
		char name[LAB_NETNS_NAME_MAX];
		uint64_t ino;
	} ns[LAB_MAX_HOSTS];
	/* Link namespaces of userspace emulators, in the order made. */
	unsigned nlns;
	struct {
		unsigned link;
		char name[LAB_NETNS_NAME_MAX];
		uint64_t ino;
	} lns[LAB_MAX_LINKS];
};

/* The handle behind struct lab (lab.c, lab_spawn.c). */
struct lab {
	struct lab_state st;	       /* st.spec is the lab's spec; st.ns[h] host h */
	int nsfd[LAB_MAX_HOSTS];       /* O_CLOEXEC, one per host */
	int lnsfd[LAB_MAX_LINKS];      /* link l's emulator namespace, or -1 */
	pid_t link_pid[LAB_MAX_LINKS]; /* link l's emulator, if this process started it */
	int orig_fd;		       /* namespace of the thread that made/opened the lab */
	char ifname[LAB_MAX_LINKS][16];
};

/* Writes the printf-style reason into err (errlen bytes; err may be NULL)
 * and returns -EINVAL: the pure checks' one way to say why (lab_plan.c,
 * lab_cpus.c). Here, not in either of them, so neither uses the other for it. */
static inline __attribute__((format(printf, 3, 4))) int lab_fail(char *err, size_t errlen,
								 const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Host h's CPUs into set (a cpu_set_t): 1, or 0 when the lab gives its hosts
 * none (set untouched), or -EINVAL (lab_cpus.c). */
int lab_host_cpu_set(const struct lab *lab, unsigned host, void *set);

/* lab_spawn() for a process that outlives the caller: the child also
 * starts a session of its own (setsid), away from the caller's terminal. */
pid_t lab_spawn_detached(const struct lab *lab, unsigned host, char *const argv[], int out_fd,
			 int err_fd);

/* lab_spawn() into the namespace nsfd (a link namespace). */
pid_t lab_spawn_ns(int nsfd, char *const argv[], int out_fd, int err_fd, bool detach);

/* Claims the lab's name: -EEXIST if a state file is already there. */
int lab_state_create(const struct lab_state *st);
/* Rewrites the state file atomically. */
int lab_state_save(const struct lab_state *st);
/* -ENOENT if there is no such lab, -EBADMSG if the file is not ours. */
int lab_state_load(const char *name, struct lab_state *st);
int lab_state_remove(const char *name);
/* Removes link l's log and counter file (lab_link_log_path(),
 * lab_link_counters_path()) from /run/ovlperf/labs. */
void lab_link_remove_files(const char *lab_name, unsigned link);
/* Serialization (pure, for the unit tests): returns bytes written or -errno. */
int lab_state_format(const struct lab_state *st, char *buf, size_t len);
int lab_state_parse(const char *text, struct lab_state *st);

/* Installs table inet ovlperf in the calling thread's namespace for the
 * links of `host` that have drop_pct or block_icmp_too_big. 0 if none. */
int lab_nft_apply(const struct lab_spec *spec, unsigned host);
/* The ruleset text for that host ("" when nothing is needed). */
int lab_nft_ruleset(const struct lab_spec *spec, unsigned host, char *buf, size_t len);

/* A link's WAN conditions (lab_link.c). lab_link_probe() settles
 * spec->links[].means (netem where the kernel has it, for AUTO); the host
 * socket sk[h] talks to host h's namespace. */
int lab_link_probe(struct lab *lab, struct nl_sock *sk0);
/* Link l's veths: a direct pair, or for userspace the emulator's namespace
 * between two pairs, recorded in the state before it is made. */
int lab_link_veths(struct lab *lab, struct nl_sock **sk, unsigned l, uint32_t mtu);
/* netem on end's ovp<l> (egress: a -> b at end 0), with the tbf below it if
 * the link has a rate; false if the end has no netem to set (then the caller
 * adds its plain tbf). */
int lab_link_netem(struct lab *lab, struct nl_sock *sk, unsigned l, unsigned end, bool *done);
/* Starts every link's emulator (detached: in a session of its own, logging
 * to lab_link_log_path(), for `lab up`) and waits for its counter file. */
int lab_link_start(struct lab *lab, bool detach);

/* TSO, GSO and GRO off on ifname in the calling thread's namespace. */
int lab_offload_off(const char *ifname);

#endif
