/* SPDX-License-Identifier: MIT */
/*
 * What the tunnel's files share of a device (device.h): its state, its
 * peers and workers, its counters and the small helpers every thread uses.
 * The data path (send.c, receive.c), the path MTU (pmtu.c) and the printer
 * (status.c) need only this; the device's set-up and tear-down (device.c)
 * fill it.
 */
#ifndef OVLPERF_TUNNEL_DEVICE_STATE_H
#define OVLPERF_TUNNEL_DEVICE_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "allowedips.h"
#include "config.h"
#include "tunnel_engine.h"
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
	unsigned nworkers; /* min(config workers, the CPUs it may run on) */
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

/* A counter's name in `tunnel show` (status.c). */
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

#endif
