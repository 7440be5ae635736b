/* SPDX-License-Identifier: MIT */
/*
 * The built-in overlay between two real hosts. `ovlperf server --overlay`
 * serves it (overlay_server_*), `ovlperf run` asks for it for a [host.*]
 * path of type builtin (overlay_client_*). Over the PSK-authenticated
 * control session both ends generate fresh keys, exchange the public keys
 * and the overlay addresses (proto_overlay.h), and each runs an
 * `ovlperf tunnel up` daemon (the lab's tunnel code, sandbox and offloads)
 * on a UDP socket connected to the other end's observed address through the
 * server's port. The overlay lives as long as the control session: the
 * server takes it down when the client says so, hangs up, or goes silent
 * for OVERLAY_DEAD_S seconds (TCP keepalive), and when it stops; a state
 * file lets a restarted server remove what a crashed one left.
 *
 * Overlay subnets default to 198.19.(128 + slot).0/24 and
 * 2001:2:0:(80 + slot)::/64 (the lab uses 198.18.<link>.0/24,
 * 2001:2:0:<link>::/64 and 198.19.0.0/24, 2001:2:0:ff::/64); the server is
 * host 1 of each subnet, the client host 2. Functions return 0 or -errno.
 */
#ifndef OVLPERF_OVERLAY_H
#define OVLPERF_OVERLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "proto_overlay.h"

/* TCP keepalive on the control socket: first probe after OVERLAY_KEEPIDLE_S
 * of silence, then every OVERLAY_KEEPINTVL_S, dead after OVERLAY_KEEPCNT
 * unanswered: OVERLAY_DEAD_S in all (also TCP_USER_TIMEOUT for unacked data). */
#define OVERLAY_KEEPIDLE_S  5
#define OVERLAY_KEEPINTVL_S 5
#define OVERLAY_KEEPCNT	    3
#define OVERLAY_DEAD_S	    (OVERLAY_KEEPIDLE_S + OVERLAY_KEEPINTVL_S * OVERLAY_KEEPCNT)
#define OVERLAY_MAX_SLOTS   64 /* --overlay-max upper bound */
#define OVERLAY_DEFAULT_MAX 4

/* ---- addresses and routes (overlay_net.c) ---- */

/* The default subnets of slot (0..OVERLAY_MAX_SLOTS-1). */
void overlay_net_default(unsigned slot, struct proto_overlay_nets *nets);
/* "198.19.210.0/24, 2001:2:0:fa::/64" (either or both; a missing family
 * keeps length 0). False with a sentence in why; both must lie in
 * 198.18.0.0/15 and 2001:2::/48. */
bool overlay_net_parse(const char *s, struct proto_overlay_nets *nets, char *why, size_t wl);
/* Host 1 (server) and host 2 (client) of each subnet. */
void overlay_net_hosts(const struct proto_overlay_nets *nets, struct proto_overlay_accept *acc);
/* The subnets an OVERLAY_ACCEPT's addresses lie in. */
void overlay_net_of(const struct proto_overlay_accept *acc, struct proto_overlay_nets *nets);
/* Whether two prefixes overlap (family AF_INET or AF_INET6, addresses in
 * network byte order). */
bool overlay_prefix_overlap(int family, const uint8_t *a, unsigned alen, const uint8_t *b,
			    unsigned blen);

/* One route of the host, as far as collisions go. */
struct overlay_route {
	int family;
	uint8_t dst[16];
	uint8_t len;
	char desc[128]; /* "198.19.128.0/24 via 198.18.0.1 dev eth1 table main" */
};
/* The first route that overlaps one of the subnets (default routes and
 * link-local/multicast ones do not count), or NULL. Pure. */
const struct overlay_route *overlay_net_collision(const struct proto_overlay_nets *nets,
						  const struct overlay_route *routes, size_t n);
/* This host's IPv4 and IPv6 routes of every table (libnl-route). The caller
 * frees *out. */
int overlay_routes_read(struct overlay_route **out, size_t *n);
/* Reads the routes and checks nets: -EADDRINUSE with "overlay subnet X
 * collides with the route Y on <host>" in why (host: "this host", "the
 * server"). */
int overlay_net_check_host(const struct proto_overlay_nets *nets, const char *host, char *why,
			   size_t wl);

/* ---- server side (overlay_serve.c, overlay_state.c) ---- */

struct overlay_server;
/* Removes what the state file lists from an earlier server that is gone
 * (its daemons, whose TUN devices go with them), then serves at most max
 * overlays at once. state_path "":
 * OVERLAY_STATE_DIR/server-<netns inode>-<port>.state. */
int overlay_server_open(const char *state_path, uint16_t port, unsigned max,
			struct overlay_server **out);
void overlay_server_close(struct overlay_server *os);

struct ctrl;
struct proto_msg;
struct data_registry;
/* Serves an OVERLAY_REQUEST on an authenticated session, holds the overlay
 * until it ends and takes it down. Returns 0 when the request was refused
 * (TEST_REJECT sent; the session goes on), PROTO_E_EOF when the session
 * ended with the overlay, or a negative error (the session ends). */
int overlay_serve(struct overlay_server *os, struct ctrl *c, struct data_registry *reg,
		  const struct sockaddr_storage *peer, const struct sockaddr_storage *local,
		  const char *name, const struct proto_msg *request);

#define OVERLAY_STATE_DIR "/run/ovlperf"

/* ---- client side (overlay_client.c) ---- */

struct overlay_client_spec {
	const char *host; /* the server's address or name */
	uint16_t port;
	int family; /* AF_UNSPEC: the address's */
	const char *psk_file;
	struct proto_overlay_nets nets; /* lengths 0: the server's defaults */
	uint16_t mtu;			/* 0: the daemons' default */
	uint8_t cipher;			/* enum proto_overlay_cipher */
};
struct overlay_client;
/* Brings the overlay up; on failure a sentence in err. */
int overlay_client_up(const struct overlay_client_spec *spec, struct overlay_client **out,
		      char *err, size_t errlen);
/* The server's overlay address (family AF_INET or AF_INET6) as text. */
int overlay_client_server_addr(const struct overlay_client *oc, int family, char *buf, size_t len);
/* The local TUN device's name. */
const char *overlay_client_ifname(const struct overlay_client *oc);
/* False once the local daemon exited or the server said OVERLAY_DOWN. */
bool overlay_client_alive(struct overlay_client *oc);
/* Says OVERLAY_DOWN, stops the local daemon, closes the session. */
int overlay_client_down(struct overlay_client *oc);

#endif
