/* SPDX-License-Identifier: MIT */
/*
 * Private to src/link/: the pieces of the forwarder. link_model.c decides
 * each packet's fate (pure), link_queue.c holds packets until they are due,
 * link_gso.c cuts super-packets into wire packets (pure), link_io.c moves
 * frames through AF_PACKET sockets, link_counters.c keeps the counter file,
 * link_run.c runs one thread per direction.
 */
#ifndef OVLPERF_LINK_INT_H
#define OVLPERF_LINK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>
#include <linux/virtio_net.h>

#include "link.h"

#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5 /* Linux 4.18 kernels report it; older headers lack it */
#endif

#define LINK_VNET_LEN	 ((size_t)sizeof(struct virtio_net_hdr)) /* 10 bytes */
#define LINK_ETH_HLEN	 14
#define LINK_FRAME_EXTRA (LINK_ETH_HLEN + 4)	    /* Ethernet header and one VLAN tag */
#define LINK_SUPER_MAX	 (65536 + LINK_FRAME_EXTRA) /* the largest frame a veth hands over */
#define LINK_BATCH	 32			    /* frames per recvmmsg / sendmmsg */
#define LINK_AUTO_BPS	 10000000000ULL		    /* the line rate an automatic limit assumes */
#define LINK_AUTO_MIN	 (1ULL << 20)		    /* an automatic limit holds 1 MiB at least */
#define LINK_BACKLOG_NS	 (20ULL * 1000000ULL)	    /* automatic rate backlog: 20 ms ... */
#define LINK_BACKLOG_MIN (64ULL << 10)		    /* ... and 64 KiB at least */
#define LINK_SLOT_BYTES	 256			    /* a queue has a slot per 256 bytes it holds */
#define LINK_SLOTS_MIN	 1024u
#define LINK_SLOTS_MAX	 (1u << 20)

/* xoshiro256** (Blackman and Vigna), seeded through splitmix64. */
struct link_rng {
	uint64_t s[4];
};

void link_rng_seed(struct link_rng *r, uint64_t seed, uint64_t stream);
uint64_t link_rng_next(struct link_rng *r);
/* true with probability ppm / 1e6 */
bool link_rng_chance(struct link_rng *r, uint32_t ppm);

/* What one direction does to its packets. */
struct link_model {
	struct link_dir_conf conf;
	struct link_rng rng;
	bool ge_bad;	      /* Gilbert-Elliott state */
	uint64_t ser_free_ns; /* when the rate's serializer is free */
	uint64_t last_due_ns; /* the latest due time given without reorder */
	uint64_t backlog_max; /* bytes the serializer may have waiting (with a rate) */
};

enum link_loss { LINK_KEEP, LINK_LOST_RANDOM, LINK_LOST_BURST };

struct link_due {
	uint64_t due_ns;
	bool reordered; /* chosen by reorder: no delay */
	bool delayed;	/* due later than it arrived */
};

void link_model_init(struct link_model *m, const struct link_dir_conf *c, uint64_t seed,
		     unsigned dir, uint64_t backlog_max);
/* Whether the next packet is lost: the burst chain, then random loss; both
 * generators advance for every packet, so a seed gives one sequence. */
enum link_loss link_model_loss(struct link_model *m);
/* The due time of a kept frame of len bytes arriving at now_ns; false when
 * the rate's backlog cannot take it (nothing changes then). */
bool link_model_due(struct link_model *m, uint64_t now_ns, size_t len, struct link_due *d);

/* The queue's byte bound and the rate backlog's for one direction (pure). */
struct link_bounds {
	uint64_t queue_bytes;	/* everything held: delay line and backlog */
	uint64_t backlog_bytes; /* waiting for the serializer (rate set); else 0 */
	uint32_t slots;
};

void link_bounds_get(const struct link_dir_conf *c, uint64_t limit_bytes, struct link_bounds *b);

/* A queued frame: its virtio_net_hdr and its bytes. */
struct link_slot {
	uint64_t due_ns;
	uint64_t seq;
	uint32_t len;
	uint8_t vnet[LINK_VNET_LEN];
	uint8_t data[];
};

struct link_queue {
	uint8_t *mem;
	size_t mem_len, slot_size, frame_max;
	uint32_t nslots, nfree, n;
	uint32_t *free; /* a stack: the slot freed last is used first (warm memory) */
	uint32_t *heap; /* min-heap of slot numbers by (due_ns, seq) */
	uint64_t bytes, cap_bytes, seq;
	uint64_t max_bytes, max_packets;
	uint64_t overflows; /* frames refused: full (bytes or slots) or too long */
};

/* 0 or -ENOMEM; frame_max is the longest frame a slot holds. */
int link_queue_init(struct link_queue *q, uint64_t cap_bytes, uint32_t nslots, size_t frame_max);
void link_queue_free(struct link_queue *q);
/* A free slot to write a frame into (frame_max bytes), or NULL when every
 * slot is taken; it is the queue's again unless pushed. */
struct link_slot *link_queue_reserve(struct link_queue *q);
/* Whether the frame of len bytes in s (from link_queue_reserve(), or NULL
 * when there was none) may be queued; a refusal is counted in overflows. */
bool link_queue_admit(struct link_queue *q, const struct link_slot *s, size_t len);
/* Queues a reserved slot, len set, due at due_ns. */
void link_queue_push(struct link_queue *q, struct link_slot *s, uint64_t due_ns);
/* The earliest due slot, or NULL. */
struct link_slot *link_queue_head(const struct link_queue *q);
/* Takes the head out of the queue; it stays the caller's until released. */
struct link_slot *link_queue_pop(struct link_queue *q);
void link_queue_release(struct link_queue *q, struct link_slot *s);

/* Super-packets (link_gso.c): how many wire packets the frame with vnet
 * header h stands for (1 without GSO), or -EINVAL (drop it). */
int link_gso_count(const struct virtio_net_hdr *h, const uint8_t *frame, size_t len);
/* Writes wire packet i of the frame into out[cap] and its header into
 * *oh; returns its length or -EINVAL / -ENOSPC. */
int link_gso_segment(const struct virtio_net_hdr *h, const uint8_t *frame, size_t len, unsigned i,
		     uint8_t *out, size_t cap, struct virtio_net_hdr *oh);

/* One end of the link (link_io.c): a receiving and a sending socket. */
struct link_port {
	char name[IF_NAMESIZE];
	int ifindex;
	unsigned mtu;
	int rx_fd, tx_fd;
};

/* 0, -ENODEV (no such interface) or -errno of the socket calls. */
int link_port_open(struct link_port *p, const char *ifname);
void link_port_close(struct link_port *p);
/* Frames the kernel dropped on the receiving socket (its buffer full). */
uint64_t link_port_rx_drops(const struct link_port *p);

#define LINK_CMSG_LEN 64 /* room for one SCM_TIMESTAMPNS */

struct link_rx_batch {
	uint8_t *buf; /* LINK_BATCH buffers of LINK_SUPER_MAX */
	struct virtio_net_hdr vnet[LINK_BATCH];
	uint8_t cmsg[LINK_BATCH][LINK_CMSG_LEN] __attribute__((aligned(8)));
	struct iovec iov[LINK_BATCH][2];
	struct mmsghdr msg[LINK_BATCH];
};

int link_rx_batch_init(struct link_rx_batch *b);
void link_rx_batch_free(struct link_rx_batch *b);
/* Frames waiting on p (without blocking): count, 0 or -errno. */
int link_io_recv(const struct link_port *p, struct link_rx_batch *b);
/* When frame i reached the interface (the kernel's stamp, CLOCK_REALTIME),
 * on CLOCK_MONOTONIC given real_to_mono (monotonic - realtime now) and
 * never after now_ns; now_ns when the frame carries no stamp. */
uint64_t link_rx_arrival(const struct link_rx_batch *b, unsigned i, int64_t real_to_mono,
			 uint64_t now_ns);
static inline uint8_t *link_rx_frame(struct link_rx_batch *b, unsigned i)
{
	return b->buf + (size_t)i * LINK_SUPER_MAX;
}
/* Sends n slots through p; ok[i] tells which went out. */
void link_io_send(const struct link_port *p, struct link_slot *const *slots, unsigned n, bool *ok);

/* The counter file (link_counters.c). */
struct link_counters_file;

/* Creates path's contents under a temporary name; 0 or -errno. */
int link_counters_create(const char *path, struct link_counters_file **out);
/* Gives the file its name: the forwarder is ready. 0 or -errno. */
int link_counters_ready(struct link_counters_file *f);
void link_counters_publish(struct link_counters_file *f, unsigned dir,
			   const struct link_dir_counters *c, uint64_t now_ns);
/* Marks the forwarder gone and unmaps (the file stays). */
void link_counters_close(struct link_counters_file *f);

#endif
