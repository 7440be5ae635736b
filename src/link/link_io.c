// SPDX-License-Identifier: MIT
#define _GNU_SOURCE /* recvmmsg(), sendmmsg(), struct mmsghdr */
/*
 * The link's two ends as AF_PACKET sockets (packet(7)), two per interface:
 *
 *   rx  bound to every protocol of the interface, in promiscuous mode (the
 *       frames are the hosts', addressed to each other), PACKET_VNET_HDR so
 *       a GSO super-packet comes with what it takes to cut it, and
 *       PACKET_IGNORE_OUTGOING so it does not read the link's own sends on
 *       that interface; read in batches with recvmmsg(2).
 *   tx  bound to the interface with protocol 0 (it receives nothing),
 *       PACKET_VNET_HDR so a partial checksum travels on as the hosts left
 *       it, PACKET_QDISC_BYPASS (the link is the queue: no qdisc between it
 *       and the veth); written in batches with sendmmsg(2).
 *
 * The promiscuous membership belongs to the socket and ends with it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "link_int.h"
#include "log.h"

#define RCVBUF_BYTES (16 << 20)
#define SNDBUF_BYTES (4 << 20)
#define SEND_WAIT_MS 10

static int setopt(int fd, int level, int name, int v)
{
	return setsockopt(fd, level, name, &v, sizeof(v)) ? -errno : 0;
}

static int if_mtu(const char *name, unsigned *mtu)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, SIOCGIFMTU, &ifr))
		rc = -errno;
	else
		*mtu = (unsigned)ifr.ifr_mtu;
	close(fd);
	return rc;
}

/* A packet socket on ifindex; protocol 0 until bound, so it queues no frame
 * of another interface in between. */
static int packet_socket(int ifindex, uint16_t proto, int *out)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(proto),
				   .sll_ifindex = ifindex };
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return -errno;
	rc = setopt(fd, SOL_PACKET, PACKET_VNET_HDR, 1);
	if (!rc && bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		rc = -errno;
	if (rc) {
		close(fd);
		return rc;
	}
	*out = fd;
	return 0;
}

static int open_rx(struct link_port *p)
{
	struct packet_mreq mr = { .mr_ifindex = p->ifindex, .mr_type = PACKET_MR_PROMISC };
	int rc = packet_socket(p->ifindex, ETH_P_ALL, &p->rx_fd);

	if (rc)
		return rc;
	rc = setopt(p->rx_fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, 1);
	/* The kernel's arrival stamp: a packet's delay counts from when it
	 * reached the interface, not from when this thread got to it. */
	if (!rc)
		rc = setopt(p->rx_fd, SOL_SOCKET, SO_TIMESTAMPNS, 1);
	if (!rc && setsockopt(p->rx_fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)))
		rc = -errno;
	/* A bigger buffer than the default absorbs a host's burst while the
	 * thread sends; the forced size needs CAP_NET_ADMIN, which we have. */
	if (!rc && setopt(p->rx_fd, SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF_BYTES))
		rc = setopt(p->rx_fd, SOL_SOCKET, SO_RCVBUF, RCVBUF_BYTES);
	return rc;
}

static int open_tx(struct link_port *p)
{
	int rc = packet_socket(p->ifindex, 0, &p->tx_fd);

	if (rc)
		return rc;
	if (setopt(p->tx_fd, SOL_PACKET, PACKET_QDISC_BYPASS, 1))
		log_warn("%s: no PACKET_QDISC_BYPASS; sending through the qdisc", p->name);
	if (setopt(p->tx_fd, SOL_SOCKET, SO_SNDBUFFORCE, SNDBUF_BYTES))
		setopt(p->tx_fd, SOL_SOCKET, SO_SNDBUF, SNDBUF_BYTES);
	return 0;
}

int link_port_open(struct link_port *p, const char *ifname)
{
	int rc;

	memset(p, 0, sizeof(*p));
	p->rx_fd = p->tx_fd = -1;
	if (snprintf(p->name, sizeof(p->name), "%s", ifname) >= (int)sizeof(p->name))
		return -ENODEV;
	p->ifindex = (int)if_nametoindex(ifname);
	if (!p->ifindex)
		return -ENODEV;
	rc = if_mtu(ifname, &p->mtu);
	if (!rc)
		rc = open_rx(p);
	if (!rc)
		rc = open_tx(p);
	if (rc)
		link_port_close(p);
	return rc;
}

void link_port_close(struct link_port *p)
{
	if (p->rx_fd >= 0)
		close(p->rx_fd);
	if (p->tx_fd >= 0)
		close(p->tx_fd);
	p->rx_fd = p->tx_fd = -1;
}

uint64_t link_port_rx_drops(const struct link_port *p)
{
	struct tpacket_stats st = { 0 };
	socklen_t len = sizeof(st);

	/* The kernel resets these on each read: the caller adds them up. */
	if (getsockopt(p->rx_fd, SOL_PACKET, PACKET_STATISTICS, &st, &len))
		return 0;
	return st.tp_drops;
}

int link_rx_batch_init(struct link_rx_batch *b)
{
	memset(b, 0, sizeof(*b));
	b->buf = mmap(NULL, (size_t)LINK_BATCH * LINK_SUPER_MAX, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->buf == MAP_FAILED) {
		b->buf = NULL;
		return -ENOMEM;
	}
	for (unsigned i = 0; i < LINK_BATCH; i++) {
		b->iov[i][0] = (struct iovec){ &b->vnet[i], LINK_VNET_LEN };
		b->iov[i][1] = (struct iovec){ link_rx_frame(b, i), LINK_SUPER_MAX };
		b->msg[i].msg_hdr.msg_iov = b->iov[i];
		b->msg[i].msg_hdr.msg_iovlen = 2;
	}
	return 0;
}

void link_rx_batch_free(struct link_rx_batch *b)
{
	if (b->buf)
		munmap(b->buf, (size_t)LINK_BATCH * LINK_SUPER_MAX);
	b->buf = NULL;
}

int link_io_recv(const struct link_port *p, struct link_rx_batch *b)
{
	int n;

	for (unsigned i = 0; i < LINK_BATCH; i++) {
		b->msg[i].msg_hdr.msg_flags = 0;
		b->msg[i].msg_hdr.msg_control = b->cmsg[i];
		b->msg[i].msg_hdr.msg_controllen = LINK_CMSG_LEN;
	}
	n = recvmmsg(p->rx_fd, b->msg, LINK_BATCH, MSG_DONTWAIT, NULL);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	return n;
}

uint64_t link_rx_arrival(const struct link_rx_batch *b, unsigned i, int64_t real_to_mono,
			 uint64_t now_ns)
{
	struct msghdr *m = (struct msghdr *)&b->msg[i].msg_hdr;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		struct timespec ts;
		int64_t t;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS ||
		    c->cmsg_len < CMSG_LEN(sizeof(ts)))
			continue;
		memcpy(&ts, CMSG_DATA(c), sizeof(ts));
		t = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec + real_to_mono;
		return t > 0 && (uint64_t)t < now_ns ? (uint64_t)t : now_ns;
	}
	return now_ns;
}

void link_io_send(const struct link_port *p, struct link_slot *const *slots, unsigned n, bool *ok)
{
	struct mmsghdr msg[LINK_BATCH];
	struct iovec iov[LINK_BATCH][2];
	unsigned done = 0;
	bool waited = false;

	for (unsigned i = 0; i < n && i < LINK_BATCH; i++) {
		iov[i][0] = (struct iovec){ slots[i]->vnet, LINK_VNET_LEN };
		iov[i][1] = (struct iovec){ slots[i]->data, slots[i]->len };
		msg[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = iov[i], .msg_iovlen = 2 } };
		ok[i] = false;
	}
	/* sendmmsg() stops at a frame the device refused; that frame is lost
	 * (counted by the caller), the rest go on. */
	while (done < n) {
		int r = sendmmsg(p->tx_fd, msg + done, n - done, 0);

		if (r > 0) {
			for (int i = 0; i < r; i++)
				ok[done + (unsigned)i] = true;
			done += (unsigned)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN && !waited) {
			struct pollfd pfd = { .fd = p->tx_fd, .events = POLLOUT };

			/* The socket's send buffer is full: wait for room once. */
			waited = poll(&pfd, 1, SEND_WAIT_MS) > 0;
			if (waited)
				continue;
		}
		waited = false;
		done++;
	}
}
