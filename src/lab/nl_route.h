/* SPDX-License-Identifier: MIT */
/*
 * The lab's use of libnl-route-3: veth pairs, link state, addresses, routes,
 * tbf. A socket talks to the namespace its thread was in when nlr_open() ran.
 * libnl's -NLE_* codes stop here: every function returns 0 or -errno and logs
 * nl_geterror() for the failing operation.
 */
#ifndef OVLPERF_NL_ROUTE_H
#define OVLPERF_NL_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "lab.h"

struct nl_sock;
struct nl_msg;
struct rtnl_qdisc;
struct link_dir_conf;

int nlr_open(struct nl_sock **out);
void nlr_close(struct nl_sock *sk);
/* veth NAME here, its peer PEER_NAME created directly in the namespace
 * peer_ns_fd, both with the given MTU and interface index (0: kernel's). */
int nlr_veth_add(struct nl_sock *sk, const char *name, int ifindex, const char *peer_name,
		 int peer_ns_fd, int peer_ifindex, uint32_t mtu);
int nlr_link_up(struct nl_sock *sk, const char *ifname);
/* Polls until the kernel reports the link operationally up (carrier seen
 * by linkwatch, so IPv6 is configured on it); -ETIMEDOUT after timeout_ms. */
int nlr_wait_oper_up(struct nl_sock *sk, const char *ifname, unsigned timeout_ms);
int nlr_addr_add(struct nl_sock *sk, const char *ifname, const struct sockaddr_storage *ss,
		 unsigned prefixlen);
/* Route to dst/prefixlen (host bits are cleared) via gw. */
int nlr_route_add(struct nl_sock *sk, const struct sockaddr_storage *dst, unsigned prefixlen,
		  const struct sockaddr_storage *gw);
/* Interface index of ifname, or -errno. */
int nlr_ifindex(struct nl_sock *sk, const char *ifname);
/* Root tbf on ifname (or, under_netem, the child of the netem qdisc 1: that
 * nlr_netem_add() made, so that the rate applies to what netem lets go): rate in bit/s, bucket and
 * limit in bytes; each packet charged overhead bytes more than its length, and at least mpu (0, 0:
 * the kernel's count). */
int nlr_tbf_add(struct nl_sock *sk, const char *ifname, bool under_netem, uint64_t rate_bps,
		uint32_t burst, uint32_t limit, uint32_t overhead, uint32_t mpu);

/* netem (nl_netem.c). A probability in parts per million as netem's u32. */
uint32_t nlr_netem_prob(uint32_t ppm);
/* The RTM_NEWQDISC request (create or replace) for a netem qdisc, handle 1:,
 * at the root of ifindex, applying d (one direction of a link) with a queue
 * of limit packets: what nlr_netem_add() sends, for the unit test. -EINVAL if
 * d reorders without a delay (netem cannot). The caller frees *out. */
int nlr_netem_msg(int ifindex, const struct link_dir_conf *d, uint32_t limit, struct nl_msg **out);
int nlr_netem_add(struct nl_sock *sk, const char *ifname, const struct link_dir_conf *d,
		  uint32_t limit);
/* 0 if the kernel takes a netem qdisc on ifname (made, then removed again),
 * -ENOENT if it has no netem, or another -errno. */
int nlr_netem_probe(struct nl_sock *sk, const char *ifname);
int nlr_qdisc_del_root(struct nl_sock *sk, const char *ifname);
/* A qdisc object on ifindex under parent with handle (0: none) and kind (NULL:
 * none), for the tbf, netem and removal requests; NULL when out of memory.
 * The caller puts it (rtnl_qdisc_put()). */
struct rtnl_qdisc *nlr_qdisc_new(int ifindex, uint32_t parent, uint32_t handle, const char *kind);
int nlr_interfaces(struct nl_sock *sk, struct lab_if_info *out, size_t max, size_t *n);

#endif
