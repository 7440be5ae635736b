/* SPDX-License-Identifier: MIT */
/*
 * TUN offloads (IFF_VNET_HDR): the virtio_net_hdr in front of each packet,
 * and segmentation of a TSO super-packet (up to 64 KiB of one TCP flow) into
 * packets of the tunnel MTU, done in userspace as a NIC would: per segment
 * the IPv4 total length, identification (+1 each) and header checksum, the
 * IPv6 payload length, the TCP sequence number, FIN/PSH only on the last
 * segment, CWR only on the first, and a full TCP checksum. A UDP super-packet
 * (USO, VIRTIO_NET_HDR_GSO_UDP_L4) becomes datagrams of gso_size payload
 * bytes, each with its IP and UDP length and a full UDP checksum. A packet without
 * GSO but with VIRTIO_NET_HDR_F_NEEDS_CSUM gets its checksum completed.
 * Pure functions over caller buffers: no allocation, no system call.
 */
#ifndef OVLPERF_TUNNEL_GSO_H
#define OVLPERF_TUNNEL_GSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/virtio_net.h>

#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5 /* Linux 6.2; older headers lack it */
#endif

#define GSO_VNET_HDR_LEN 10    /* struct virtio_net_hdr, little-endian on x86 */
#define GSO_MAX_PACKET	 65535 /* largest super-packet the TUN hands over */
#define GSO_MAX_SEGS	 256   /* segments of one super-packet we accept */

struct gso_hdr {
	uint8_t flags;	  /* VIRTIO_NET_HDR_F_* */
	uint8_t gso_type; /* VIRTIO_NET_HDR_GSO_* (ECN bit included) */
	uint16_t hdr_len, gso_size, csum_start, csum_offset;
};

void gso_hdr_parse(const uint8_t b[static GSO_VNET_HDR_LEN], struct gso_hdr *h);
/* A header for a packet written to the TUN: no GSO; data_valid tells the
 * kernel not to verify the checksum again (the packet authenticated). */
void gso_hdr_put_plain(uint8_t b[static GSO_VNET_HDR_LEN], bool data_valid);

/*
 * Splits the packet pkt/len that came with header h into bufs[0..n), each of
 * cap bytes, lens[i] the length of packet i. Returns n (1 for a packet
 * without GSO), -EINVAL for a malformed or unsupported packet (drop it), or
 * -ENOSPC when a segment does not fit cap or there are more than nbufs.
 */
int gso_split(const struct gso_hdr *h, const uint8_t *pkt, size_t len, uint8_t *const *bufs,
	      size_t cap, size_t nbufs, size_t *lens);

/* The Internet checksum's folded ones'-complement sum (not complemented). */
uint16_t gso_csum_fold(uint32_t sum);
uint32_t gso_csum_add(const uint8_t *buf, size_t len, uint32_t sum);

#endif
