/* SPDX-License-Identifier: MIT */
/*
 * Lab hosts: network namespaces on this machine joined by veth links, built
 * through libnl-route-3 (never by running `ip`). The lab is the default place
 * where ovlperf runs its loads.
 *
 * Addresses come only from the benchmarking ranges:
 *   link i (0-based) underlay:  198.18.i.0/24,      end a = .1, end b = .2
 *                               2001:2:0:i::/64,    end a = ::1, end b = ::2
 *   built-in overlay:           198.19.0.0/24,      host h = 198.19.0.(h+1)
 *                               2001:2:0:ff::/64,   host h = ::(h+1)
 * Namespaces are named "ovp-<lab>-<h>" (h = 0, 1, ...). A lab records what it
 * created under /run/ovlperf/labs/<lab>; lab_down_by_name() removes only
 * namespaces listed there, so it never touches one it did not create.
 *
 * All functions return 0 or a negative errno.
 */
#ifndef OVLPERF_LAB_H
#define OVLPERF_LAB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#define LAB_NAME_MAX 12
#define LAB_MAX_HOSTS 8
#define LAB_MAX_LINKS 8
#define LAB_DEFAULT_NAME "lab"

struct lab_link_spec {
	unsigned a, b;		/* host indexes */
	uint32_t mtu;		/* 0: 1500 */
	uint64_t rate_bps;	/* 0: unshaped; else a tbf on both ends' egress */
	double drop_pct;	/* 0: none; else nftables "numgen random" drop, a->b and b->a */
	bool block_icmp_too_big; /* drop ICMP frag-needed / packet-too-big on this link */
};

struct lab_spec {
	char name[LAB_NAME_MAX + 1];
	unsigned nhosts;	/* 2..LAB_MAX_HOSTS */
	unsigned nlinks;	/* 1..LAB_MAX_LINKS */
	struct lab_link_spec links[LAB_MAX_LINKS];
};

struct lab;

/* The common case: two hosts, one link with the given MTU (0: 1500). */
void lab_spec_pair(struct lab_spec *spec, const char *name, uint32_t mtu);

/* Creates namespaces, veth pairs, addresses (IPv4 and IPv6, with DAD disabled
 * so IPv6 is usable at once), loopback up, shaping and drop rules. On error
 * everything created so far is removed. */
int lab_up(const struct lab_spec *spec, struct lab **out);

/* Removes everything lab_up created and frees the handle. Idempotent on the
 * system side: a namespace already gone is not an error. */
int lab_down(struct lab *lab);

/* `ovlperf lab down NAME`: removes what the state file of NAME lists. */
int lab_down_by_name(const char *name);

/* Moves the calling thread into host h's namespace, or back to the namespace
 * the process started in. */
int lab_enter(const struct lab *lab, unsigned host);
int lab_leave(const struct lab *lab);

/* Opens a file descriptor for host h's namespace (for setns by a child). */
int lab_netns_fd(const struct lab *lab, unsigned host);
const char *lab_netns_name(const struct lab *lab, unsigned host);

/* Underlay address of host h on link l, AF_INET or AF_INET6, port 0. */
int lab_host_addr(const struct lab *lab, unsigned host, unsigned link, int family,
		  struct sockaddr_storage *ss);
/* Interface name of host h's end of link l (e.g. "ovp0"). */
const char *lab_host_ifname(const struct lab *lab, unsigned host, unsigned link);

/* fork(); the child enters host h's namespace and execv()s argv (argv[0] a
 * path; "/proc/self/exe" runs ovlperf itself). stdout/stderr are inherited
 * unless out_fd/err_fd >= 0. Returns the pid or a negative errno. */
pid_t lab_spawn(const struct lab *lab, unsigned host, char *const argv[], int out_fd,
		int err_fd);

/* Sends SIGTERM, waits up to timeout_ms, then SIGKILL. Returns the exit status. */
int lab_reap(pid_t pid, unsigned timeout_ms);

const struct lab_spec *lab_get_spec(const struct lab *lab);

#endif
