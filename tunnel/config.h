/* SPDX-License-Identifier: MIT */
/*
 * The tunnel's INI configuration (libinih):
 *
 *   [interface]
 *   private_key_file = a.key          ; 0600, relative to the config's directory
 *   listen = 198.18.0.1:51900         ; or [2001:2::1]:51900, or a bare port
 *   underlay_fd = 3                   ; instead of listen: an inherited UDP socket
 *                                     ; (bound, usually connected), shared by workers
 *   address = 198.19.0.1/24           ; repeatable / comma list; IPv4 and IPv6
 *   mtu = 1420                        ; default: underlay MTU minus overhead
 *   cipher = auto                     ; auto, or a list of aes256gcm, chacha20poly1305
 *   name = ovl0                       ; device name (default ovl%d)
 *   socket_buffer = 8388608           ; SO_SNDBUF/SO_RCVBUF request
 *   batch = 64                        ; packets per recvmmsg/sendmmsg
 *   workers = 2                       ; TUN queues / SO_REUSEPORT sockets / thread pairs (<= cores)
 *   worker_ports = on                 ; workers send from ports of their own (underlay_spread.h)
 *   pin_workers = on                  ; worker k's threads on the k-th CPU it may run on
 *   txqueuelen = 1000                 ; TUN queue length (packets)
 *   queue_target_us = 5000            ; RX queue: CoDel target sojourn (0: off)
 *   queue_interval_us = 100000        ; RX queue: CoDel interval
 *   queue_limit_us = 50000            ; RX queue: drop what waited longer (0: off)
 *   offload = on                      ; default of the five below (default on)
 *   tso = on                          ; TUN hands over TSO super-packets + partial checksums
 *   uso = on                          ; ... and UDP super-packets (with tso; kernel 6.2+)
 *   coalesce = on                     ; RX writes TCP (with uso: UDP) super-packets to the TUN
 *   udp_gso = on                      ; TX sends runs of datagrams with UDP_SEGMENT
 *   udp_gro = on                      ; RX takes UDP_GRO super-datagrams, split by segment size
 *   sandbox = on                      ; after set-up: no capabilities, seccomp (sandbox.h)
 *
 *   [peer]                            ; one or more
 *   public_key = <base64>
 *   endpoint = 198.18.0.2:51900       ; optional; learned from authenticated packets
 *   allowed_ips = 198.19.0.2/32, 2001:2:0:ff::2/128
 *   preshared_key_file = psk.key      ; optional, 0600
 *   persistent_keepalive = 25         ; seconds, optional
 *
 * Every error names the file, the line and the key.
 */
#ifndef OVLPERF_TUNNEL_CONFIG_H
#define OVLPERF_TUNNEL_CONFIG_H

#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "negotiate.h"

#define CONFIG_KEY_LEN	       32
#define CONFIG_MAX_PEERS       256
#define CONFIG_MAX_ADDRESSES   8
#define CONFIG_MAX_ALLOWED     1024 /* allowed-IP prefixes over all peers */
#define CONFIG_MAX_FILE	       (1024 * 1024)
#define CONFIG_DEFAULT_SOCKBUF (8 * 1024 * 1024)
#define CONFIG_DEFAULT_BATCH   64
#define CONFIG_MAX_BATCH       256
#define CONFIG_DEFAULT_WORKERS 2
#define CONFIG_MAX_WORKERS     64
/* The TUN's queue towards the daemon: 500 (the kernel's) drops bursts while
 * the TX thread waits for a core, and TCP takes every drop as congestion. */
#define CONFIG_DEFAULT_TXQUEUELEN 1000
#define CONFIG_DEFAULT_OFFLOAD	  true
#define CONFIG_MIN_MTU		  576
#define CONFIG_MAX_MTU		  65000
#define CONFIG_ERR_LEN		  512
#define CONFIG_MAX_UNDERLAY_FD	  1023

struct config_prefix {
	int family;	  /* AF_INET or AF_INET6 */
	uint8_t addr[16]; /* network byte order; host bits cleared for allowed_ips */
	uint8_t cidr;
};

struct config_peer {
	uint8_t public_key[CONFIG_KEY_LEN];
	bool has_public_key;
	char psk_file[PATH_MAX]; /* "" : none */
	bool has_endpoint;
	struct sockaddr_storage endpoint;
	unsigned keepalive_s;		/* 0: off */
	size_t first_allowed, nallowed; /* slice of config.allowed */
	unsigned line;			/* of its [peer] header */
};

struct config {
	char path[PATH_MAX];
	char private_key_file[PATH_MAX];
	struct sockaddr_storage listen; /* port 0 until set; family AF_UNSPEC = any */
	bool has_listen;
	int underlay_fd;	   /* -1: none; else an inherited UDP socket used
				    * instead of binding 'listen' */
	unsigned underlay_fd_line; /* for messages */
	struct config_prefix addresses[CONFIG_MAX_ADDRESSES];
	size_t naddresses;
	uint32_t mtu;		    /* 0: underlay MTU minus overhead */
	uint32_t max_mtu;	    /* highest MTU the TUN may be raised to while up
				     * (buffers are sized for it); 0: the start MTU */
	struct cipher_list ciphers; /* n = 0: auto (fastest here first) */
	char ifname[IFNAMSIZ];	    /* "" : ovl%d */
	uint32_t sock_buf;
	unsigned batch;
	unsigned workers;  /* asked for; the device uses min(this, the CPUs it may run on) */
	bool worker_ports; /* each worker sends from a port of its own (default on) */
	bool pin_workers;  /* worker k's threads on the k-th CPU it may run on (default on) */
	uint32_t txqueuelen;
	/* The underlay receive queue's policy (codel.h), in us; target and
	 * limit 0: off. */
	uint32_t queue_target_us, queue_interval_us, queue_limit_us;
	bool offload;		     /* default of tso, coalesce, udp_gso, udp_gro */
	bool tso, coalesce, udp_gso; /* each on its own, to isolate one that misbehaves */
	bool udp_gro, uso;
	bool sandbox_off; /* "sandbox = off": keep privileges (debugging) */
	struct config_peer *peers;
	size_t npeers;
	struct config_prefix *allowed;
	size_t nallowed;
};

/* Parses a file. On error returns a negative errno and leaves a sentence
 * naming file, line and key in err. The caller frees with config_free()
 * in both cases. */
int config_load(const char *path, struct config *cfg, char *err, size_t errlen);
/* Same from memory; name is used in messages and to resolve relative key paths. */
int config_parse(const char *name, const char *text, size_t len, struct config *cfg, char *err,
		 size_t errlen);
void config_free(struct config *cfg);

/* "198.18.0.2:51900", "[2001:2::2]:51900"; port required. */
bool config_parse_endpoint(const char *s, struct sockaddr_storage *ss);
/* "198.19.0.0/24", "2001:2::/48"; a bare address means /32 or /128. */
bool config_parse_prefix(const char *s, struct config_prefix *p);
/* Formats an address with its port ("[v6]:port" for IPv6) into buf. */
int config_format_endpoint(const struct sockaddr_storage *ss, char *buf, size_t len);

#endif
