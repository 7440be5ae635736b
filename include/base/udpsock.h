/* SPDX-License-Identifier: MIT */
/*
 * The UDP sockets of this network namespace and their drop counters, from
 * /proc/net/udp and /proc/net/udp6 (the "drops" column: sk_drops, what the
 * kernel refused that socket, RcvbufErrors among them), and who holds one:
 * when another socket of the receiving host overflowed during a test (a
 * VPN daemon's, whose outer datagrams carry the test's), the report names
 * it (its process, family and port) instead of "other sockets".
 */
#ifndef OVLPERF_UDPSOCK_H
#define OVLPERF_UDPSOCK_H

#include <stdbool.h>
#include <stdint.h>

#define UDPSOCK_MAX	 256
#define UDPSOCK_COMM_LEN 16 /* TASK_COMM_LEN */

struct udpsock_entry {
	uint64_t inode;
	uint32_t drops;
	uint16_t port;	/* local */
	uint8_t family; /* 4 or 6 */
	/* the connected peer (network byte order: 4 bytes for family 4, 16
	 * for 6), rport 0: not connected */
	uint8_t raddr[16];
	uint16_t rport;
};

struct udpsock_table {
	unsigned n;
	bool truncated; /* more than UDPSOCK_MAX sockets */
	struct udpsock_entry e[UDPSOCK_MAX];
};

/* Who overflowed: the socket whose drops rose most, and its process. */
struct udpsock_owner {
	uint64_t inode;
	uint64_t drops; /* its rise */
	uint16_t port;
	uint8_t family;
	int pid;		     /* 0: not found */
	char comm[UDPSOCK_COMM_LEN]; /* "" with pid 0 */
};

/* Appends the sockets of one /proc/net/udp{,6} text (family 4 or 6) to t.
 * Returns 0, or -EINVAL when the text is not that format (no header). */
int udpsock_parse(const char *text, uint8_t family, struct udpsock_table *t);

/* Whether e is connected to addr (4 or 16 bytes, network byte order, of
 * family 4 or 6; an IPv4 address also as a v4-mapped IPv6 peer). */
bool udpsock_connected_to(const struct udpsock_entry *e, uint8_t family, const uint8_t *addr);

/* Both tables of this namespace into t (emptied first); 0 or -errno. */
int udpsock_read(struct udpsock_table *t);

/* Of the sockets in after but none of skip's inodes, the one whose drops
 * rose most since before (a socket new since then counts from 0). false
 * when no such socket's drops rose. */
bool udpsock_top_riser(const struct udpsock_table *before, const struct udpsock_table *after,
		       const uint64_t *skip, unsigned nskip, struct udpsock_owner *o);

/* The rises of the drops of every socket in after but skip's, summed. */
uint64_t udpsock_rises(const struct udpsock_table *before, const struct udpsock_table *after,
		       const uint64_t *skip, unsigned nskip);

/* The process holding socket inode o->inode: the first /proc/PID/fd entry
 * that links to "socket:[inode]" under proc_root ("/proc"). Fills pid and
 * comm; false when none is found (another namespace's PID view, or gone). */
bool udpsock_owner_process(const char *proc_root, struct udpsock_owner *o);

#endif
