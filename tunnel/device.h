/* SPDX-License-Identifier: MIT */
/*
 * The tunnel device: a TUN interface, UDP sockets on the underlay and the
 * protocol engine (engine.h) between them. Set-up and tear-down in device.c,
 * the sockets in underlay.c, each peer's path MTU in pmtu.c, the control
 * thread in device_run.c, the data path in send.c and receive.c.
 *
 * Threads, per worker (struct device_worker; one with workers = 1): TX
 * (send.c) reads batches from its TUN queue, finds each packet's peer
 * by allowed IPs, has the engine seal them and sends them with sendmmsg; RX
 * (receive.c) reads batches with recvmmsg, has the engine open them, checks
 * the inner source against the sending peer's allowed IPs and writes them to
 * the TUN; the caller's thread (device_run) runs the timers, re-reads the
 * TUN's MTU (padding follows it) and serves the control socket. Buffers are
 * allocated once at start-up: nothing is allocated per packet.
 *
 * Too-big inner packets (RFC 1191/8201 through the overlay): each peer knows
 * the largest inner packet that fits its underlay path (path MTU of the
 * endpoint minus 60 or 80 bytes). A bigger IPv4 packet with DF, or IPv6
 * packet, is answered through the TUN with ICMP "fragmentation needed" /
 * ICMPv6 "packet too big" (icmp.h); a bigger one without DF is sent with the
 * outer packet allowed to fragment. The underlay sockets set DF on
 * everything else (IP_PMTUDISC_DO), so a path MTU drop shows up as EMSGSIZE:
 * that packet goes out fragmented and the peer's path MTU is re-read.
 *
 * Buffers. Each data-path thread owns `batch` slots (TX: plus GSO_MAX_SEGS
 * with offloads) of slot_size = ENGINE_SLOT_SIZE(mtu) bytes, 64-byte aligned:
 * [16 header | plaintext | pad + tag]. TX puts a packet at slot + 16 and the
 * engine seals it in place; RX receives a datagram at slot + 0 and the engine
 * leaves the plaintext at slot + 16.
 *
 * Offloads (offload = on, the default): the TUN has
 * IFF_VNET_HDR with TSO4/TSO6/CSUM. TX reads a super-packet (virtio_net_hdr +
 * up to 64 KiB) into one per-thread buffer and gso.c segments it straight
 * into consecutive slots, so sealing and sendmmsg stay as they are. RX
 * coalesces consecutive TCP segments of a flow (gro.c) and writes one
 * super-packet per run; with USO on the TUN, UDP datagrams of a flow too.
 * TX sends runs of equal-size datagrams with UDP_SEGMENT (udp_gso). RX
 * with UDP_GRO (udp_gro): each recvmmsg entry is a 64 KiB buffer (mmap()ed
 * once) that may hold many datagrams of one sender, split by the gso_size
 * control message (gro.h) and opened in place. Multi-core (workers = N):
 * IFF_MULTI_QUEUE, one TUN queue, one SO_REUSEPORT socket per family and
 * one TX/RX thread pair per worker (struct device_worker).
 */
#ifndef OVLPERF_TUNNEL_DEVICE_H
#define OVLPERF_TUNNEL_DEVICE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "allowedips.h"
#include "config.h"
#include "engine.h"
#include "rxq.h"
#include "tun.h"
#include "underlay.h"

/* Device-side counters (the engine counts its own drops). */
enum device_counter {
	DEV_TUN_RX_PACKETS, /* read from the TUN */
	DEV_TUN_RX_READS,   /* read() calls that returned a packet */
	DEV_TUN_TX_PACKETS, /* written to the TUN */
	DEV_TUN_TX_WRITES,  /* write() calls (fewer with coalescing) */
	DEV_UDP_TX_DATAGRAMS,
	DEV_UDP_TX_CALLS,	/* sendmmsg/sendto calls */
	DEV_UDP_RX_DATAGRAMS,	/* after splitting UDP_GRO buffers */
	DEV_UDP_RX_CALLS,	/* recvmmsg calls that returned datagrams */
	DEV_UDP_RX_GRO_BUFFERS, /* UDP_GRO buffers holding more than one datagram */
	DEV_TUN_RX_BYTES,	/* inner bytes read from the TUN (vnet headers not counted) */
	DEV_TUN_TX_BYTES,	/* inner bytes written to the TUN */
	DEV_UDP_TX_BYTES,	/* UDP payload bytes sent on the underlay */
	DEV_UDP_RX_BYTES,	/* UDP payload bytes received on the underlay */
	DEV_TOO_BIG_ICMP,	/* too-big replies written to the TUN */
	DEV_OUTER_FRAGMENTED,	/* sent with the outer packet allowed to fragment */
	DEV_PMTU_UPDATES,	/* a peer's path MTU changed */
	DEV_ROAMED,		/* a peer's endpoint changed (authenticated packet) */
	/* drops */
	DEV_DROP_NO_ROUTE,	     /* TUN packet to an address no peer is allowed for */
	DEV_DROP_NO_ENDPOINT,	     /* peer's endpoint unknown yet */
	DEV_DROP_BAD_TUN_PACKET,     /* not IPv4/IPv6 from the TUN */
	DEV_DROP_TOO_BIG,	     /* too big and no ICMP reply allowed / possible */
	DEV_DROP_SOURCE_NOT_ALLOWED, /* decrypted source not in the sender's allowed IPs */
	DEV_DROP_TRUNCATED,	     /* underlay datagram larger than a buffer */
	DEV_DROP_BAD_GRO,	     /* UDP_GRO buffer with a truncated or zero segment size */
	DEV_DROP_TUN_WRITE,	     /* TUN write failed */
	DEV_DROP_SEND,		     /* sendmmsg/sendto failed */
	DEV_DROP_QUEUE_STANDING,     /* RX queue: CoDel drained a standing queue */
	DEV_DROP_QUEUE_LIMIT,	     /* RX queue: waited longer than queue_limit_us */
	DEV_C__COUNT
};
#define DEV_C_FIRST_DROP DEV_DROP_NO_ROUTE

struct device;

struct device_peer {
	struct device *dev;
	struct engine_peer *ep;
	unsigned id;
	uint8_t public_key[WIRE_KEY_LEN];
	unsigned keepalive_s;
	uint8_t *psk; /* key_alloc() copy for show-keys, or NULL */
	/* Endpoint: written by RX (roaming) under lock, read by everyone under lock. */
	pthread_mutex_t lock;
	bool has_endpoint;
	struct sockaddr_storage endpoint;
	int pmtu_fd;		    /* UDP socket connected to the endpoint: IP_MTU */
	_Atomic uint32_t inner_mtu; /* path MTU minus overhead (shown) */
	/* Largest inner packet sent unfragmented: inner_mtu (the engine's padding
	 * stops at min(link_mtu, inner_mtu): engine_peer_set_pad_mtu()). */
	_Atomic uint32_t send_limit;
	_Atomic bool pmtu_stale;
	uint64_t initiate_at; /* deferred first handshake (device_run), 0: none */
};

struct device_batch; /* per-thread buffers (send.c / receive.c) */

/* One worker: a TUN queue, a UDP socket per family (one SO_REUSEPORT group
 * per family across workers) and a TX and an RX thread. Worker 0 uses the
 * device's own TUN descriptor and sockets. The kernel picks the TUN queue by
 * flow hash and the reuseport socket by 4-tuple hash: one inner flow stays
 * on one TX thread, and all traffic from one peer endpoint on one RX thread
 * (several peers, or several inner flows on TX, spread). */
struct device_worker {
	struct device *dev;
	unsigned id;
	struct tun tun; /* copy of dev->tun with this queue's fd */
	struct underlay_socks sock;
	pthread_t tx_thread, rx_thread;
	bool tx_started, rx_started;
	_Atomic uint64_t tun_rx_packets, udp_rx_datagrams; /* this worker's share */
};

struct device {
	struct config *cfg;
	struct engine *engine;
	struct tun tun;
	struct netlink *nl;
	struct underlay_socks sock; /* worker 0's */
	pthread_mutex_t frag_lock;  /* DF toggling on the sockets */
	int stop_fd;		    /* eventfd: wakes the data-path threads */
	_Atomic bool stopping;
	_Atomic bool stop_requested; /* "stop" on the control socket */
	_Atomic bool udp_gso;	     /* send runs with UDP_SEGMENT (offload = on) */
	int control_fd;
	char control_path[128];
	struct allowedips table;
	struct device_peer *peers;
	size_t npeers;
	uint32_t mtu;		   /* TUN MTU at start-up */
	uint32_t max_mtu;	   /* buffers (and the engine) are sized for it:
				    * max(mtu, configured max_mtu) */
	_Atomic uint32_t link_mtu; /* TUN MTU now (re-read every second): padding cap */
	size_t slot_size;
	unsigned batch;
	uint8_t public_key[WIRE_KEY_LEN];
	uint8_t *private_key; /* key_alloc() copy for show-keys */
	struct device_worker *workers;
	unsigned nworkers; /* min(config workers, online cores) */
	bool threads_started;
	_Atomic uint64_t counters[DEV_C__COUNT];
	struct rxq_stats rxq; /* sojourn in the underlay's receive queues */
	/* How long packets stay inside the daemon, per packet (rxq.h's
	 * histogram, an upper bound: the whole batch's time): TX from reading
	 * a batch's first packet off the TUN until its last datagram went to the
	 * kernel; RX from taking a batch off the socket until its last packet
	 * was written to the TUN. With rxq's sojourn they tell what of a delay
	 * is in the daemon and what is outside it (TUN ring, scheduling). */
	struct rxq_stats tx_hold, rx_hold;
};

/* Loads keys, creates the engine, the TUN device (name: ifname, else the
 * config's, else ovl%d), addresses, MTU, routes, sockets and the control
 * socket. On error everything is undone and a reason logged. */
int device_up(struct config *cfg, const char *ifname, struct device **out);
/* Starts the two data-path threads and the first handshakes. */
int device_start(struct device *dev);
/* The control socket's "show" text (status_format()); device_run() takes it
 * from its caller, so that the device does not depend on its own printer. */
typedef size_t (*device_status_fn)(struct device *dev, bool show_keys, char *buf, size_t cap);
/* Timers and control socket until a signal (interrupt.h) or "stop"
 * (device_run.c). */
int device_run(struct device *dev, device_status_fn status);
/* Stops threads, closes the TUN (the device disappears), frees everything. */
void device_down(struct device *dev);

const char *device_counter_name(enum device_counter c);
static inline void device_count(struct device *dev, enum device_counter c, uint64_t n)
{
	atomic_fetch_add_explicit(&dev->counters[c], n, memory_order_relaxed);
}

/* Copies the peer's endpoint; false if it has none. */
static inline bool device_peer_endpoint(struct device_peer *peer, struct sockaddr_storage *out)
{
	bool has;

	pthread_mutex_lock(&peer->lock);
	has = peer->has_endpoint;
	if (has)
		*out = peer->endpoint;
	pthread_mutex_unlock(&peer->lock);
	return has;
}

/* RX coalesces UDP datagrams too (gro.h): coalescing on and a TUN with USO. */
static inline bool device_coalesce_udp(const struct device *dev)
{
	return dev->tun.vnet_hdr && dev->cfg->coalesce && tun_has_uso(&dev->tun);
}

/* Sending on the underlay, from any thread (send.c). Sends one datagram,
 * with the outer packet allowed to fragment when allow_frag; on EMSGSIZE
 * re-sends it that way and marks the peer's path MTU stale (a drop of the
 * path MTU must not lose the packet). 0 or -errno. */
int device_send_one(struct device *dev, struct device_peer *peer, const void *buf, size_t len,
		    const struct sockaddr_storage *dst, bool allow_frag);
/* Sends a control message (initiation, keepalive) to the peer's endpoint;
 * nothing when res has none. */
void device_send_ctrl(struct device *dev, struct device_peer *peer,
		      const struct engine_result *res);

/* arg: a struct device_worker. */
void *device_tx_thread(void *arg);
void *device_rx_thread(void *arg);

#endif
