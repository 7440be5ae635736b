/* SPDX-License-Identifier: MIT */
/*
 * The TUN device: a layer-3 interface whose packets this process reads and
 * writes. Not persistent, so the device disappears when the last descriptor
 * closes (a crashed daemon leaves nothing behind).
 */
#ifndef OVLPERF_TUNNEL_TUN_H
#define OVLPERF_TUNNEL_TUN_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define TUN_F_WANT_VNET_HDR    0x1 /* IFF_VNET_HDR: a virtio_net_hdr per read/write */
#define TUN_F_WANT_MULTI_QUEUE 0x2
#define TUN_F_WANT_TSO	       0x4 /* TUNSETOFFLOAD CSUM|TSO4|TSO6|TSO_ECN (needs VNET_HDR) */
#define TUN_F_WANT_USO	       0x8 /* and USO4|USO6 where the kernel has them (6.2+) */

struct tun {
	int fd;
	char name[IFNAMSIZ];
	int ifindex;
	bool vnet_hdr;	   /* every read and write starts with a virtio_net_hdr */
	unsigned offloads; /* TUN_F_* the kernel accepted (linux/if_tun.h values) */
};

/* Opens /dev/net/tun as IFF_TUN|IFF_NO_PI, non-blocking, with a name pattern
 * ("ovl%d" when name is NULL or empty). Returns 0 or a negative errno. */
int tun_open(struct tun *tun, const char *name, unsigned flags);
/* Another queue of a multi-queue device (one per worker thread). */
int tun_open_queue(const struct tun *tun);
void tun_close(struct tun *tun);

/* Whether the kernel took UDP segmentation offload (USO4/USO6): it then
 * hands over UDP super-packets, and takes them (GSO_UDP_L4) on write. */
bool tun_has_uso(const struct tun *tun);

/* One packet; 0 when none is waiting (EAGAIN), else length or -errno. */
ssize_t tun_read(const struct tun *tun, void *buf, size_t len);
/* One packet; returns 0 or -errno. */
int tun_write(const struct tun *tun, const void *buf, size_t len);

#endif
