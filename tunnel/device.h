/* SPDX-License-Identifier: MIT */
/*
 * The tunnel device: a TUN interface, UDP sockets on the underlay and the
 * protocol engine (tunnel_engine.h) between them. Set-up and tear-down in device.c,
 * the sockets in underlay.c, each peer's path MTU in pmtu.c, the control
 * thread in device_run.c, the data path in send.c and receive.c. What
 * they all share of a device (its state, peers, workers, counters) is in
 * device_state.h, so the data path needs nothing of the set-up's; send.h
 * and receive.h are the data path's threads.
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

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "device_state.h"

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

#endif
