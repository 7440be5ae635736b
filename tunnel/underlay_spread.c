// SPDX-License-Identifier: MIT
/*
 * One outer source port per sending worker, and the receiver's choice of
 * worker by the sender's address and port.
 *
 * Without it all of one peer's data leaves one port for one port: one
 * 4-tuple, which SO_REUSEPORT hashes to one receiving socket, so one RX
 * thread opens everything whatever the number of inner flows. The TUN's
 * queues (IFF_MULTI_QUEUE) keep an inner flow on one TX worker; when each
 * worker sends from its own port the flow keeps one outer 4-tuple too, and
 * a receiver that spreads 4-tuples over its workers reorders no inner flow
 * (UDP GRO merges only datagrams of one 4-tuple as well). Spreading by the
 * receiving CPU instead reordered flows whose sender moved between CPUs.
 *
 * The choice is a classic BPF program on the reuseport group
 * (SO_ATTACH_REUSEPORT_CBPF): (low 16 bits of the source address + source
 * port) mod workers. The kernel's own 4-tuple hash would put two sending
 * ports on one socket half the time with two workers; with the sender's
 * worker k on a port = listen + k (mod workers) they land on distinct
 * workers whenever both ends have as many, and different peers still spread
 * by their addresses.
 */
#include <errno.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "underlay_spread.h"

unsigned underlay_spread_pick(uint16_t addr_low16, uint16_t sport, unsigned nworkers)
{
	return nworkers ? ((unsigned)addr_low16 + sport) % nworkers : 0;
}

bool underlay_spread_port_ok(uint16_t port, uint16_t listen_port, unsigned nworkers, unsigned k)
{
	if (nworkers < 2)
		return true;
	return (port + nworkers - listen_port % nworkers) % nworkers == k % nworkers;
}

/* The program runs with the packet's data at the UDP payload: the headers
 * are read at their offsets from the network header (SKF_NET_OFF). */
#define NET(off) ((uint32_t)(SKF_NET_OFF + (off)))

int underlay_spread_attach(int fd, int family, unsigned nworkers)
{
	/* IPv4: the source address ends at byte 16, the UDP header follows
	 * IHL * 4 bytes of IP header (BPF_MSH loads IHL * 4 into X). */
	struct sock_filter v4[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, NET(14)),
		BPF_STMT(BPF_ST, 0),
		BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, NET(0)),
		BPF_STMT(BPF_LD | BPF_H | BPF_IND, NET(0)),
		BPF_STMT(BPF_LDX | BPF_MEM, 0),
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0),
		BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, nworkers),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	/* IPv6: the source address ends at byte 24, the UDP header at byte 40
	 * (the tunnel sends no extension headers; any other layout still maps
	 * one 4-tuple to one worker, only perhaps not a distinct one). */
	struct sock_filter v6[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, NET(22)),
		BPF_STMT(BPF_ST, 0),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, NET(40)),
		BPF_STMT(BPF_LDX | BPF_MEM, 0),
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0),
		BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, nworkers),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct sock_fprog prog = {
		.len = family == AF_INET6 ? sizeof(v6) / sizeof(v6[0]) : sizeof(v4) / sizeof(v4[0]),
		.filter = family == AF_INET6 ? v6 : v4,
	};

	if (nworkers < 2)
		return -EINVAL;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog, sizeof(prog)) < 0)
		return -errno;
	return 0;
}
