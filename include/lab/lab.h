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
 * Link l's interface is "ovp<l>" on both ends, with interface index
 * LAB_IFINDEX_BASE + 2l on end a and + 2l + 1 on end b; lab_up() returns once
 * every one of them is operationally up.
 * Namespaces are named "ovp-<lab>-<h>" (h = 0, 1, ...). A lab records what it
 * created under /run/ovlperf/labs/<lab> (a text file, "ovlperf-lab 1" then
 * "name", "pid" of the creator, "owner" (who made it: `lab up` or a run),
 * "hosts", one "link" and one "netns NAME INODE" line each);
 * lab_down_by_name() removes only namespaces listed there, and only while
 * they still have the recorded inode, so it never touches one it did not
 * create.
 *
 * A host on two or more links forwards (IPv4 and IPv6) and every host gets
 * routes to every link's subnets along the shortest path, so a chain
 * h0 - h1 - h2 is routed end to end.
 *
 * All functions return 0 or a negative errno unless stated otherwise.
 */
#ifndef OVLPERF_LAB_H
#define OVLPERF_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "layer.h"
#include "link.h"

#define LAB_NAME_MAX	 12
#define LAB_MAX_HOSTS	 8
#define LAB_MAX_LINKS	 8
#define LAB_CPUS_MAX	 48 /* a host's CPU list as text, with its NUL */
#define LAB_DEFAULT_NAME "lab"
#define LAB_MTU_MIN	 68
#define LAB_MTU_MAX	 65535
#define LAB_DEFAULT_MTU	 1500
/* tbf via libnl takes a 32-bit byte rate: 2^31-1 B/s is about 17 Gbit/s. */
#define LAB_RATE_MIN_BPS 8000ULL
#define LAB_RATE_MAX_BPS 17000000000ULL
/* Queue a tbf may hold, as the time to drain it at the shaped rate. */
#define LAB_TBF_LATENCY_US 50000
/* Interface index of link l's ends: a = BASE + 2l, b = BASE + 2l + 1. */
#define LAB_IFINDEX_BASE 100
#define LAB_STATE_DIR	 "/run/ovlperf/labs"
#define LAB_NETNS_DIR	 "/run/netns"

/* How a link's WAN conditions (struct link_conf: delay, jitter, loss, loss
 * bursts, reorder) are made. Asked for a lab (--link-means): AUTO is netem
 * where the kernel has it, else userspace. On a link after lab_up(): AUTO
 * means nothing to emulate, else the means in use. */
enum lab_means {
	LAB_MEANS_AUTO = 0,
	LAB_MEANS_NETEM = 1,	 /* a netem qdisc on each end's ovp<l> egress */
	LAB_MEANS_USERSPACE = 2, /* `ovlperf link run` in namespace ovp-<lab>-l<l> */
};

struct lab_link_spec {
	unsigned a, b;		 /* host indexes */
	uint32_t mtu;		 /* 0: 1500 */
	uint64_t rate_bps;	 /* 0: unshaped; else a tbf on both ends' egress */
	double drop_pct;	 /* 0: none; else random drop (nftables numgen) both ways */
	bool block_icmp_too_big; /* drop ICMP frag-needed / packet-too-big on this link */
	/* What the tbf charges a packet: LAYER_FRAME its Ethernet frame (FCS
	 * added, at least 64 bytes) or LAYER_LINE what the frame takes on the
	 * line (also preamble, SFD and gap: at least 84), so that rate is an
	 * Ethernet line's (RFC 2544); anything else (0): what the kernel counts,
	 * the frame without its FCS (skb->len). */
	enum layer rate_layer;
	/* WAN conditions: dir[0] host a -> b, dir[1] b -> a. The rate of the
	 * link is rate_bps (the tbf): cond's own rate stays 0 in a lab. */
	struct link_conf cond;
	enum lab_means means; /* lab_up() sets it: how cond is made */
};

struct lab_spec {
	char name[LAB_NAME_MAX + 1];
	unsigned nhosts;      /* 2..LAB_MAX_HOSTS */
	unsigned nlinks;      /* 1..LAB_MAX_LINKS */
	enum lab_means means; /* asked for the links with conditions */
	struct lab_link_spec links[LAB_MAX_LINKS];
	/* every host's net.ipv4.tcp_rmem / tcp_wmem maximum (their third
	 * values: TCP autotuning's ceilings), bytes; 0: the kernel's */
	uint32_t tcp_rmem_max, tcp_wmem_max;
	/* Each host's CPUs (`--cpus`, [lab] cpus: "0|1"), as taskset -c lists
	 * them ("0-3,8"): every process the lab starts in host h, and a run's
	 * own loads when h is its client, run on cpus[h] only, as on a machine
	 * of their own. cpus_hosts: how many hosts have a list (0: none, every
	 * process on any CPU; else nhosts). */
	unsigned cpus_hosts;
	char cpus[LAB_MAX_HOSTS][LAB_CPUS_MAX];
};
/* The smallest maximum a host's TCP buffers may be given. */
#define LAB_TCP_MEM_MIN 4096u

/* Who made a lab. A lab made by `ovlperf lab up` is the user's: what runs in
 * it (their VPN daemons, servers, shells) is theirs, and a run never removes
 * it unless told to. A lab a run made for itself is the run's: once that
 * run's process is gone (killed), the next run may remove what it left. A
 * state file without an owner line (an older ovlperf) counts as the user's,
 * the side that never loses anything. */
enum lab_owner {
	LAB_OWNER_USER = 0, /* `ovlperf lab up` */
	LAB_OWNER_RUN = 1,  /* `ovlperf run`, for the run's own use */
};

struct lab;

/* The common case: two hosts, one link with the given MTU (0: 1500). */
void lab_spec_pair(struct lab_spec *spec, const char *name, uint32_t mtu);
/* nhosts (2..LAB_MAX_HOSTS) in a chain: link i joins host i and host i+1. */
void lab_spec_chain(struct lab_spec *spec, const char *name, unsigned nhosts, uint32_t mtu);

/* Pure checks and the address plan (no system calls; unit-tested). */

/* The one rule for lab names, wherever a name is given (`lab up NAME`,
 * `lab down NAME`, a scenario's [lab] name): 1..LAB_NAME_MAX of a-z 0-9 and
 * '-', starting with a letter or digit. Lower case only, as interface names
 * derived from it are, so that "Lab" and "lab" can never be two labs. */
#define LAB_NAME_RULE "1 to 12 of a-z 0-9 and -, starting with a letter or digit"
bool lab_name_valid(const char *name);
/* 0, or -EINVAL with a one-line reason in err (may be NULL). */
int lab_spec_check(const struct lab_spec *spec, char *err, size_t errlen);
/* "0.5", "5%": a drop percentage 0..100. */
bool lab_parse_pct(const char *s, double *pct);
/* Applies one `--link` option, "L:key=value[,key=value...]" with keys mtu,
 * rate, rate-layer (frame or line), drop, block-icmp (alone, or =0/=1) and
 * the WAN conditions delay, jitter, loss, loss-burst ("P,R", its comma kept),
 * reorder (link_conf_set()), to spec->links[L]. 0, or
 * -EINVAL with the reason in err. The spec is checked as a whole later. */
int lab_parse_link_opt(const char *s, struct lab_spec *spec, char *err, size_t errlen);
/* One WAN condition (link_conf_set()'s delay, jitter, loss, loss-burst,
 * reorder) for every link of spec; 0 or -EINVAL with the reason in err. */
int lab_spec_cond(struct lab_spec *spec, const char *key, const char *value, char *err,
		  size_t errlen);
/* Link k's WAN conditions as their keys spell them, "delay 40ms/10ms loss
 * 1%" ("" when none); 0 or -ENOSPC. */
int lab_link_cond_str(const struct lab_link_spec *k, char *buf, size_t len);
/* "auto", "netem", "userspace" and back. */
bool lab_means_parse(const char *s, enum lab_means *m);
const char *lab_means_name(enum lab_means m);
/* Address of end (0 = a, 1 = b) of link l and its prefix length. */
int lab_plan_addr(unsigned link, unsigned end, int family, struct sockaddr_storage *ss,
		  unsigned *prefixlen);
/* "ovp-<lab>-<h>"; -ENAMETOOLONG if it does not fit in len. */
int lab_plan_netns_name(const char *lab, unsigned host, char *buf, size_t len);
/* "ovp-<lab>-l<l>": the namespace of link l's userspace emulator. */
int lab_plan_link_netns_name(const char *lab, unsigned link, char *buf, size_t len);
/* netem's queue in packets for one direction: room for what the tbf rate
 * (or, unshaped, LAB_RATE_MAX_BPS) carries in the delay plus jitter, in
 * frames of the MTU, twice over, and at least netem's default 1000. */
uint32_t lab_plan_netem_limit(const struct link_dir_conf *d, uint64_t rate_bps, uint32_t mtu);
/* How host h reaches link l's subnet: 0 if h is on l (directly connected),
 * 1 with *via_link and *via_end (the next hop is end via_end of via_link),
 * -EHOSTUNREACH if l is not reachable from h. */
int lab_plan_route(const struct lab_spec *spec, unsigned host, unsigned link, unsigned *via_link,
		   unsigned *via_end);
/* numgen threshold out of 10000 for a drop percentage (0.01 % resolution). */
unsigned lab_plan_drop_threshold(double drop_pct);
/* tbf bucket in bytes for a rate and MTU: max(1 ms of rate, 4 frames). */
uint32_t lab_plan_tbf_burst(uint64_t rate_bps, uint32_t mtu);
/* What a tbf counting at rate_layer adds to each packet's length (skb->len,
 * the frame without FCS) and the least it charges one: 0 and 0 for the
 * kernel's own count. */
void lab_plan_tbf_overhead(enum layer rate_layer, uint32_t *overhead, uint32_t *mpu);
/* "frame", "line" or "kernel" (the frame without FCS): how link k's tbf
 * counts. */
const char *lab_rate_layer_name(const struct lab_link_spec *k);

/* Creates namespaces, veth pairs, addresses (IPv4 and IPv6, with DAD disabled
 * so IPv6 is usable at once), loopback up, routes, shaping and drop rules.
 * On error, or when interrupt_requested() turns true between steps (-EINTR),
 * everything created so far is removed. -EEXIST if lab spec->name exists or
 * one of its namespace names is taken (nothing is touched then). Lossy links
 * (drop_pct) have their veths' segmentation offloads off, so the drop hits
 * single packets rather than 64 KB aggregates. */
int lab_up(const struct lab_spec *spec, struct lab **out);
/* lab_up() recording owner (lab_up() itself records LAB_OWNER_USER). */
int lab_up_owned(const struct lab_spec *spec, enum lab_owner owner, struct lab **out);

/* Removes everything lab_up created and frees the handle: every process still
 * inside a host is sent SIGTERM, then SIGKILL after 2 s (tunnel daemons,
 * servers). Idempotent on the system side: a namespace already gone is not an
 * error. */
int lab_down(struct lab *lab);

/* `ovlperf lab down NAME`: removes what the state file of NAME lists.
 * -ENOENT if there is no such lab; -EPERM (after removing the rest) when a
 * listed namespace is no longer the one ovlperf created: it is left alone. */
int lab_down_by_name(const char *name);

/* Who made lab NAME and its process (the "owner" and "pid" lines of its
 * state file), to tell the user's lab from a run's, and a run's lab in use
 * from one left behind. -ENOENT if there is no such lab. */
int lab_creator(const char *name, enum lab_owner *owner, pid_t *pid);
/* "lab up" or "run": for messages and `lab show --json`. */
const char *lab_owner_name(enum lab_owner owner);

/* Attaches to a lab another process created (from its state file) without
 * taking ownership: lab_close() frees the handle and leaves the lab up;
 * lab_down() on it removes the lab. */
int lab_open(const char *name, struct lab **out);
void lab_close(struct lab *lab);

/* Names of the labs recorded under LAB_STATE_DIR: calls fn for each. */
int lab_list(int (*fn)(const char *name, void *arg), void *arg);

/* What the kernel says about one interface of a host (for `lab show`). */
#define LAB_IF_MAX_ADDRS 8
struct lab_if_info {
	char name[16];
	unsigned ifindex;
	uint32_t mtu;
	bool up;
	bool carrier;
	char qdisc[16];
	unsigned naddrs;
	char addrs[LAB_IF_MAX_ADDRS][48]; /* "198.18.0.1/24" */
};
/* Fills up to max entries; *n is the number found (may exceed max). */
int lab_host_interfaces(const struct lab *lab, unsigned host, struct lab_if_info *out, size_t max,
			size_t *n);

/* Moves the calling thread into host h's namespace, or back to the namespace
 * of the thread that made (lab_up) or opened (lab_open) the lab. Sockets keep
 * the namespace they were created in after lab_leave(). */
int lab_enter(const struct lab *lab, unsigned host);
int lab_leave(const struct lab *lab);

/* Host h's net.ipv4.tcp_rmem (rmem) or tcp_wmem maximum set to max in its
 * namespace (its default lowered to it when above; max 0: only read), the
 * maximum it had in *was: a confirming rerun's fix, put back with *was. Leaves the calling
 * thread in the namespace lab_leave() returns to. 0 or -errno. */
int lab_host_tcp_max(const struct lab *lab, unsigned h, bool rmem, uint32_t max, uint32_t *was);

/* Opens a file descriptor for host h's namespace (for setns by a child). */
int lab_netns_fd(const struct lab *lab, unsigned host);
const char *lab_netns_name(const struct lab *lab, unsigned host);

/* Underlay address of host h on link l, AF_INET or AF_INET6, port 0. */
int lab_host_addr(const struct lab *lab, unsigned host, unsigned link, int family,
		  struct sockaddr_storage *ss);
/* Interface name of host h's end of link l (e.g. "ovp0"). */
const char *lab_host_ifname(const struct lab *lab, unsigned host, unsigned link);

/* fork(); the child enters host h's namespace, takes its CPUs (lab_spec's
 * cpus) and execv()s argv (argv[0] a path; "/proc/self/exe" runs ovlperf
 * itself). stdout/stderr are inherited
 * unless out_fd/err_fd >= 0. Returns the pid or a negative errno. */
pid_t lab_spawn(const struct lab *lab, unsigned host, char *const argv[], int out_fd, int err_fd);

/* A CPU list as taskset -c takes it ("2", "0-3", "0,2,4-7"; CPU numbers below
 * CPU_SETSIZE) into set (a cpu_set_t; NULL: only checked). 0, or -EINVAL
 * with why in err. Pure. */
int lab_cpus_parse(const char *list, void *set, char *err, size_t errlen);
/* "LIST|LIST|...", one list per host in host order (`--cpus`, [lab] cpus),
 * into spec->cpus and spec->cpus_hosts. 0, or -EINVAL with why in err.
 * lab_spec_check() then wants a list for every host. Pure. */
int lab_parse_cpus_opt(const char *s, struct lab_spec *spec, char *err, size_t errlen);
/* Whether every CPU the spec gives a host is one this process may run on
 * (its own affinity: the machine's CPUs, or a container's). 0, or -EINVAL
 * with which host and CPU, and the CPUs there are, in err. */
int lab_cpus_available(const struct lab_spec *spec, char *err, size_t errlen);
/* Moves every thread of this process onto host h's CPUs (nothing when the
 * lab gives its hosts none); threads made later inherit them. */
int lab_pin_self(const struct lab *lab, unsigned host);
/* Host h's CPU list ("" when the lab gives none). */
const char *lab_host_cpus(const struct lab *lab, unsigned host);

/* Sends SIGTERM, waits up to timeout_ms, then SIGKILL. Returns the exit
 * status (0..255), 128 + signal if it died of a signal, or a negative errno. */
int lab_reap(pid_t pid, unsigned timeout_ms);

const struct lab_spec *lab_get_spec(const struct lab *lab);

/* Files of link l's userspace emulator: /run/ovlperf/labs/<lab>.link-<l>.log
 * and .counters (lab_down() removes them). */
int lab_link_log_path(const char *lab_name, unsigned link, char *buf, size_t len);
int lab_link_counters_path(const char *lab_name, unsigned link, char *buf, size_t len);
/* The counters of link l's userspace emulator; -ENOENT if the link has none. */
int lab_link_counters(const struct lab *lab, unsigned link, struct link_counters *out);
/* When the calling thread is in a lab host and traffic to host (a numeric
 * address: 198.18.l.x or 2001:2:0:l::x on link l, the built-in overlay's
 * 198.19.0.x or 2001:2:0:ff::x on link 0) crosses a link with WAN
 * conditions: "lab NAME link L (MEANS: CONDITIONS)" into buf for the loss
 * places. -ENOENT otherwise (buf then ""). */
int lab_where(const char *host, char *buf, size_t len);
/* Namespace of link l's emulator, or NULL if it has none. */
const char *lab_link_netns_name(const struct lab *lab, unsigned link);

/* `lab show --json` text (schema "ovlperf-lab", LAB_JSON_VERSION); the
 * caller frees *out. */
#define LAB_JSON_VERSION 1
int lab_json(const struct lab *lab, char **out);

#endif
