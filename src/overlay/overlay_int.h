/* SPDX-License-Identifier: MIT */
/*
 * Private to src/overlay/: one `ovlperf tunnel up` daemon on an inherited
 * underlay socket (overlay_daemon.c), the server's state file of the
 * daemons it runs (overlay_state.c), and the keepalive of a control socket.
 */
#ifndef OVLPERF_OVERLAY_INT_H
#define OVLPERF_OVERLAY_INT_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "overlay.h"

#define OVERLAY_READY_TIMEOUT_MS 15000
#define OVERLAY_STOP_TIMEOUT_MS	 3000
/* The client keeps the NAT's UDP mapping of an idle overlay alive (a
 * masquerading conntrack forgets an unreplied flow after 30 s). */
#define OVERLAY_PERSISTENT_KEEPALIVE_S 15

/* What one end's daemon needs; addresses as OVERLAY_ACCEPT carries them. */
struct ovl_daemon_spec {
	const char *ifname;
	const uint8_t *private_key; /* KEY_LEN bytes (key_alloc memory) */
	const uint8_t *peer_key;    /* the other end's public key */
	bool is_server;
	const struct proto_overlay_accept *acc;
	uint16_t mtu;
	uint8_t cipher;
	int underlay_fd;		  /* inherited by the daemon */
	struct sockaddr_storage endpoint; /* the other end, as the socket sees it */
	unsigned keepalive_s;		  /* 0: none */
};

struct ovl_daemon {
	pid_t pid;
	char ifname[IF_NAMESIZE];
	uint64_t netns_ino;
	uint64_t start_time; /* /proc/PID/stat field 22: names this process, not a reused pid */
};

/* Hands the daemon its key and config as memory files and the underlay
 * socket, spawns it (it dies with the calling thread: PR_SET_PDEATHSIG),
 * waits until its control socket answers, empties the key's file. */
int ovl_daemon_start(const struct ovl_daemon_spec *spec, struct ovl_daemon *d);
/* Waits until the daemon completed a handshake with its peer. */
int ovl_daemon_wait_handshake(struct ovl_daemon *d, unsigned timeout_ms);
bool ovl_daemon_alive(struct ovl_daemon *d);
/* SIGTERM, then SIGKILL after OVERLAY_STOP_TIMEOUT_MS; reaps it. */
int ovl_daemon_stop(struct ovl_daemon *d);
/* /proc/PID/stat's start time, 0 if the process is gone. */
uint64_t ovl_proc_start_time(pid_t pid);

/* Packets that arrive on ifname are not forwarded (IPv4: the per-interface
 * 'forwarding' switch): the overlay reaches this host, not its networks. */
int ovl_no_forwarding(const char *ifname);
/* The inode of this process's network namespace. */
int ovl_netns_ino(uint64_t *ino);

/* TCP keepalive and TCP_USER_TIMEOUT of OVERLAY_DEAD_S on a control socket. */
void ovl_keepalive(int fd);

/* The server's state file: one line per daemon it runs. */
struct ovl_state;
int ovl_state_open(const char *path, struct ovl_state **out);
int ovl_state_add(struct ovl_state *st, const struct ovl_daemon *d);
int ovl_state_remove(struct ovl_state *st, pid_t pid);
void ovl_state_close(struct ovl_state *st);

#endif
