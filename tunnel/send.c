// SPDX-License-Identifier: MIT
/*
 * TX: TUN -> UDP. Reads up to a batch of packets (one read() each; with
 * offloads a read may bring a TSO super-packet, which gso.c segments into
 * slots), finds each packet's peer by its destination, answers too-big
 * packets with ICMP through the TUN, has the engine seal each run of packets
 * for one peer in one call, and sends them with one sendmmsg(). Without
 * offloads packets are read straight into their slot after the header room;
 * either way sealing happens in place. Also sending one datagram on the
 * underlay, for every thread (device_send_one(), device_send_ctrl()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/udp.h>
#include <unistd.h>

#include "clock.h"
#include "device_state.h"
#include "gso.h"
#include "icmp.h"
#include "log.h"
#include "pagemem.h"
#include "pmtu.h"
#include "send.h"
#include "underlay.h"

struct tx_slot {
	uint8_t *buf;		  /* slot_size bytes; the packet at buf + ENGINE_HEADROOM */
	size_t len;		  /* plaintext length */
	struct device_peer *peer; /* NULL: handled or dropped */
	bool frag;		  /* larger than the path: outer may fragment */
};

struct tx {
	struct device *dev;
	struct device_worker *w; /* this thread's TUN queue and sockets */
	unsigned batch;		 /* TUN reads per round */
	unsigned nslots;	 /* batch, plus room for one super-packet's segments */
	uint8_t *mem;
	uint8_t *super;	   /* vnet header + a TSO super-packet, or NULL */
	uint8_t **segbufs; /* gso_split() targets: slot + ENGINE_HEADROOM */
	size_t *seglens;
	struct tx_slot *slots;
	struct engine_pkt *pkts;
	struct mmsghdr *msgs;
	struct iovec *iov;
	uint8_t icmp[GSO_VNET_HDR_LEN + ICMP_REPLY_MAX];
	struct rxq_batch hold; /* device.h: tx_hold */
};

static int tx_init(struct tx *tx, struct device_worker *w)
{
	struct device *dev = w->dev;
	unsigned b = dev->tun.vnet_hdr ? dev->batch + GSO_MAX_SEGS : dev->batch;

	memset(tx, 0, sizeof(*tx));
	tx->dev = dev;
	tx->w = w;
	tx->batch = dev->batch;
	tx->nslots = b;
	tx->mem = pagemem_alloc(dev->slot_size * b);
	tx->slots = calloc(b, sizeof(*tx->slots));
	tx->pkts = calloc(b, sizeof(*tx->pkts));
	tx->msgs = calloc(b, sizeof(*tx->msgs));
	tx->iov = calloc(b, sizeof(*tx->iov));
	tx->segbufs = calloc(b, sizeof(*tx->segbufs));
	tx->seglens = calloc(b, sizeof(*tx->seglens));
	if (dev->tun.vnet_hdr)
		tx->super = pagemem_alloc(GSO_VNET_HDR_LEN + GSO_MAX_PACKET);
	if (!tx->mem || !tx->slots || !tx->pkts || !tx->msgs || !tx->iov || !tx->segbufs ||
	    !tx->seglens || (dev->tun.vnet_hdr && !tx->super))
		return -ENOMEM;
	for (unsigned i = 0; i < b; i++) {
		tx->slots[i].buf = tx->mem + (size_t)i * dev->slot_size;
		tx->segbufs[i] = tx->slots[i].buf + ENGINE_HEADROOM;
	}
	return 0;
}

static void tx_free(struct tx *tx)
{
	pagemem_free(tx->mem, tx->dev->slot_size * tx->nslots);
	free(tx->slots);
	free(tx->pkts);
	free(tx->msgs);
	free(tx->iov);
	free(tx->segbufs);
	free(tx->seglens);
	pagemem_free(tx->super, GSO_VNET_HDR_LEN + GSO_MAX_PACKET);
}

/* With IFF_VNET_HDR: each read may be a TSO super-packet, segmented into slots. */
static unsigned read_batch_vnet(struct tx *tx)
{
	struct device *dev = tx->dev;
	size_t room = dev->slot_size - ENGINE_HEADROOM - ENGINE_TAILROOM;
	unsigned n = 0, reads = 0;
	uint64_t bytes = 0;

	while (reads < tx->batch && n + GSO_MAX_SEGS <= tx->nslots) {
		ssize_t r = tun_read(&tx->w->tun, tx->super, GSO_VNET_HDR_LEN + GSO_MAX_PACKET);
		struct gso_hdr h;
		int k;

		if (r <= 0)
			break;
		reads++;
		if (r < GSO_VNET_HDR_LEN) {
			device_count(dev, DEV_DROP_BAD_TUN_PACKET, 1);
			continue;
		}
		bytes += (uint64_t)r - GSO_VNET_HDR_LEN;
		gso_hdr_parse(tx->super, &h);
		k = gso_split(&h, tx->super + GSO_VNET_HDR_LEN, (size_t)r - GSO_VNET_HDR_LEN,
			      tx->segbufs + n, room, tx->nslots - n, tx->seglens + n);
		if (k < 0) {
			device_count(dev, DEV_DROP_BAD_TUN_PACKET, 1);
			continue;
		}
		for (int i = 0; i < k; i++)
			tx->slots[n + i].len = tx->seglens[n + i];
		n += (unsigned)k;
	}
	device_count(dev, DEV_TUN_RX_READS, reads);
	device_count(dev, DEV_TUN_RX_PACKETS, n);
	device_count(dev, DEV_TUN_RX_BYTES, bytes);
	atomic_fetch_add_explicit(&tx->w->tun_rx_packets, n, memory_order_relaxed);
	return n;
}

/* Reads up to a batch; returns how many packets, 0 if none was waiting. */
static unsigned read_batch(struct tx *tx)
{
	struct device *dev = tx->dev;
	size_t room = dev->slot_size - ENGINE_HEADROOM - ENGINE_TAILROOM;
	unsigned n = 0;
	uint64_t bytes = 0;

	while (n < tx->batch) {
		ssize_t r = tun_read(&tx->w->tun, tx->slots[n].buf + ENGINE_HEADROOM, room);

		if (r <= 0) {
			if (r < 0 && r != -EINTR)
				log_debug("TUN read: %s", strerror((int)-r));
			break;
		}
		tx->slots[n].len = (size_t)r;
		bytes += (uint64_t)r;
		n++;
	}
	device_count(dev, DEV_TUN_RX_READS, n);
	device_count(dev, DEV_TUN_RX_PACKETS, n);
	device_count(dev, DEV_TUN_RX_BYTES, bytes);
	atomic_fetch_add_explicit(&tx->w->tun_rx_packets, n, memory_order_relaxed);
	return n;
}

/* Too big for the peer's path: an ICMP reply into the TUN, or a fragmented outer packet.
 * The reply comes "from" the inner destination: a local source would be dropped
 * by the kernel as a martian. */
static void too_big(struct tx *tx, struct tx_slot *s, uint32_t limit)
{
	struct device *dev = tx->dev;
	const uint8_t *pkt = s->buf + ENGINE_HEADROOM;
	ssize_t n;

	if (!icmp_needs_too_big(pkt, s->len, limit)) {
		s->frag = true; /* IPv4 without DF (or IPv6 up to 1280): outer fragments */
		return;
	}
	s->peer = NULL;
	n = icmp_build_too_big(pkt, s->len, limit, NULL, 0, tx->icmp + GSO_VNET_HDR_LEN,
			       sizeof(tx->icmp) - GSO_VNET_HDR_LEN);
	if (n > 0 && dev->tun.vnet_hdr) {
		gso_hdr_put_plain(tx->icmp, false);
		n += GSO_VNET_HDR_LEN;
	}
	if (n <= 0 ||
	    tun_write(&tx->w->tun, dev->tun.vnet_hdr ? tx->icmp : tx->icmp + GSO_VNET_HDR_LEN,
		      (size_t)n) < 0) {
		device_count(dev, DEV_DROP_TOO_BIG, 1);
		return;
	}
	device_count(dev, DEV_TOO_BIG_ICMP, 1);
}

static void classify(struct tx *tx, unsigned n)
{
	struct device *dev = tx->dev;

	for (unsigned i = 0; i < n; i++) {
		struct tx_slot *s = &tx->slots[i];
		const uint8_t *pkt = s->buf + ENGINE_HEADROOM;
		unsigned v = s->len ? pkt[0] >> 4 : 0;
		uint32_t limit;

		s->peer = NULL;
		s->frag = false;
		if ((v == 4 && s->len >= 20) || (v == 6 && s->len >= 40)) {
			s->peer = allowedips_lookup(&dev->table, v == 4 ? AF_INET : AF_INET6,
						    v == 4 ? pkt + 16 : pkt + 24);
			if (!s->peer)
				device_count(dev, DEV_DROP_NO_ROUTE, 1);
		} else {
			device_count(dev, DEV_DROP_BAD_TUN_PACKET, 1);
		}
		if (!s->peer)
			continue;
		limit = atomic_load_explicit(&s->peer->send_limit, memory_order_relaxed);
		if (limit && s->len > limit)
			too_big(tx, s, limit);
	}
}

static struct tx_slot *slot_of(struct tx *tx, const uint8_t *buf)
{
	return &tx->slots[(size_t)(buf - tx->mem) / tx->dev->slot_size];
}

/* Waits until the socket can take more (a full send buffer); false on stop. */
static bool wait_writable(struct device *dev, int fd)
{
	struct pollfd p[2] = { { .fd = fd, .events = POLLOUT },
			       { .fd = dev->stop_fd, .events = POLLIN } };

	return poll(p, 2, 100) >= 0 && !atomic_load(&dev->stopping);
}

static uint64_t iov_bytes(const struct tx *tx, unsigned from, unsigned to)
{
	uint64_t b = 0;

	for (unsigned i = from; i < to; i++)
		b += tx->iov[i].iov_len;
	return b;
}

/* Sends msgs[0..n) with sendmmsg; a message refused for its size goes out fragmented. */
static void send_mmsg(struct tx *tx, struct device_peer *peer, const struct sockaddr_storage *ep,
		      unsigned off, unsigned n)
{
	struct device *dev = tx->dev;
	int fd = underlay_tx_sock_for(&tx->w->sock, ep->ss_family);

	while (off < n) {
		int r = sendmmsg(fd, tx->msgs + off, n - off, 0);

		device_count(dev, DEV_UDP_TX_CALLS, 1);
		if (r > 0) {
			device_count(dev, DEV_UDP_TX_DATAGRAMS, (uint64_t)r);
			device_count(dev, DEV_UDP_TX_BYTES, iov_bytes(tx, off, off + (unsigned)r));
			off += (unsigned)r;
			continue;
		}
		if (r < 0 && (errno == EAGAIN || errno == ENOBUFS) && wait_writable(dev, fd))
			continue;
		if (r < 0 && errno == EMSGSIZE) {
			/* The underlay learned a smaller path MTU: this one goes out
			 * fragmented, the packets after it get the new inner limit. */
			device_send_one(dev, peer, tx->iov[off].iov_base, tx->iov[off].iov_len, ep,
					true);
			pmtu_refresh(peer);
		} else {
			device_count(dev, DEV_DROP_SEND, 1);
		}
		off++;
	}
}

/* One sendmsg() with UDP_SEGMENT for iov[j..k): equal sizes, the last may be
 * shorter. False when the kernel refuses (the caller falls back to sendmmsg). */
static bool send_gso(struct tx *tx, const struct sockaddr_storage *ep, unsigned j, unsigned k,
		     size_t size)
{
	struct device *dev = tx->dev;
	int fd = underlay_tx_sock_for(&tx->w->sock, ep->ss_family);
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} ctrl;
	struct msghdr mh = { .msg_name = (void *)ep,
			     .msg_namelen = underlay_sockaddr_len(ep),
			     .msg_iov = tx->iov + j,
			     .msg_iovlen = k - j,
			     .msg_control = ctrl.buf,
			     .msg_controllen = sizeof(ctrl.buf) };
	struct cmsghdr *cm;
	uint16_t gs = (uint16_t)size;

	memset(&ctrl, 0, sizeof(ctrl));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(gs));
	memcpy(CMSG_DATA(cm), &gs, sizeof(gs));
	for (;;) {
		ssize_t r = sendmsg(fd, &mh, 0);

		device_count(dev, DEV_UDP_TX_CALLS, 1);
		if (r >= 0) {
			device_count(dev, DEV_UDP_TX_DATAGRAMS, k - j);
			device_count(dev, DEV_UDP_TX_BYTES, iov_bytes(tx, j, k));
			return true;
		}
		if ((errno == EAGAIN || errno == ENOBUFS) && wait_writable(dev, fd))
			continue;
		if (errno == EIO || errno == EOPNOTSUPP || errno == ENOPROTOOPT) {
			/* No UDP GSO on this path (e.g. no checksum offload): stop trying. */
			log_info("UDP GSO refused (%s): sendmmsg from now on", strerror(errno));
			atomic_store(&dev->udp_gso, false);
		}
		return false; /* EMSGSIZE, EINVAL (segment over the MTU) ...: per datagram */
	}
}

/* Sends msgs[0..n): runs of equal-size datagrams with UDP GSO where it works,
 * the rest with sendmmsg. */
static void send_run(struct tx *tx, struct device_peer *peer, const struct sockaddr_storage *ep,
		     unsigned n)
{
	/* UDP_MAX_SEGMENTS on older kernels; the payload of one IPv6 UDP datagram. */
	const unsigned max_segs = 64;
	const size_t max_bytes = 65535 - 40 - 8;
	unsigned j = 0, plain = 0;

	if (!atomic_load_explicit(&tx->dev->udp_gso, memory_order_relaxed)) {
		send_mmsg(tx, peer, ep, 0, n);
		return;
	}
	while (j < n) {
		size_t size = tx->iov[j].iov_len, total = size;
		unsigned k = j + 1;

		while (k < n && k - j < max_segs && tx->iov[k].iov_len == size &&
		       total + size <= max_bytes)
			total += tx->iov[k++].iov_len;
		if (k < n && k - j < max_segs && tx->iov[k].iov_len < size &&
		    total + tx->iov[k].iov_len <= max_bytes)
			k++; /* a shorter last segment */
		if (k - j < 2) {
			j = k; /* left for sendmmsg, with its neighbours */
			continue;
		}
		if (plain < j)
			send_mmsg(tx, peer, ep, plain, j);
		if (!send_gso(tx, ep, j, k, size))
			send_mmsg(tx, peer, ep, j, k);
		j = plain = k;
	}
	if (plain < n)
		send_mmsg(tx, peer, ep, plain, n);
}

/* Sends pkts[0..n) (sealed for peer): runs of sendmmsg, fragmentable ones alone. */
static void send_sealed(struct tx *tx, struct device_peer *peer, size_t n)
{
	struct device *dev = tx->dev;
	struct sockaddr_storage ep;
	unsigned m = 0;

	if (!device_peer_endpoint(peer, &ep) || underlay_sock_for(&dev->sock, ep.ss_family) < 0) {
		device_count(dev, DEV_DROP_NO_ENDPOINT, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct engine_pkt *p = &tx->pkts[i];

		if (slot_of(tx, p->buf)->frag) {
			send_run(tx, peer, &ep, m);
			m = 0;
			device_send_one(dev, peer, p->buf, p->len, &ep, true);
			continue;
		}
		tx->iov[m].iov_base = p->buf;
		tx->iov[m].iov_len = p->len;
		memset(&tx->msgs[m], 0, sizeof(tx->msgs[m]));
		tx->msgs[m].msg_hdr.msg_name = &ep;
		tx->msgs[m].msg_hdr.msg_namelen = underlay_sockaddr_len(&ep);
		tx->msgs[m].msg_hdr.msg_iov = &tx->iov[m];
		tx->msgs[m].msg_hdr.msg_iovlen = 1;
		m++;
	}
	send_run(tx, peer, &ep, m);
}

static void ctrl_to_endpoint(struct device *dev, struct device_peer *peer,
			     const struct engine_result *res)
{
	struct sockaddr_storage ep;

	if (!res->ctrl_len)
		return;
	if (device_peer_endpoint(peer, &ep))
		device_send_one(dev, peer, res->ctrl, res->ctrl_len, &ep, false);
	else
		device_count(dev, DEV_DROP_NO_ENDPOINT, 1);
}

/* Seals and sends each run of consecutive packets for the same peer. */
static void encrypt_and_send(struct tx *tx, unsigned n)
{
	uint64_t now = clock_now_ns();
	unsigned i = 0;

	while (i < n) {
		struct device_peer *peer = tx->slots[i].peer;
		struct engine_result res;
		size_t k = 0, sealed;

		if (!peer) {
			i++;
			continue;
		}
		for (; i < n && (tx->slots[i].peer == peer || !tx->slots[i].peer); i++) {
			if (!tx->slots[i].peer)
				continue;
			tx->pkts[k].buf = tx->slots[i].buf;
			tx->pkts[k].len = tx->slots[i].len;
			tx->pkts[k].cap = tx->dev->slot_size;
			k++;
		}
		memset(&res, 0, sizeof(res));
		sealed = engine_encapsulate(peer->ep, tx->pkts, k, now, &res);
		ctrl_to_endpoint(tx->dev, peer, &res);
		if (sealed)
			send_sealed(tx, peer, sealed);
	}
}

void *device_tx_thread(void *arg)
{
	struct device_worker *w = arg;
	struct device *dev = w->dev;
	struct tx tx;

	if (tx_init(&tx, w) < 0) {
		log_err("TX: out of memory for %u buffers", dev->batch);
		tx_free(&tx);
		return NULL;
	}
	while (!atomic_load(&dev->stopping)) {
		struct pollfd p[2] = { { .fd = w->tun.fd, .events = POLLIN },
				       { .fd = dev->stop_fd, .events = POLLIN } };
		/* Read first, sleep only on an empty queue: under load the read that
		 * ends a batch with EAGAIN replaces a poll() per batch. */
		uint64_t start = clock_now_ns();
		unsigned n = dev->tun.vnet_hdr ? read_batch_vnet(&tx) : read_batch(&tx);

		if (n) {
			classify(&tx, n);
			encrypt_and_send(&tx, n);
			rxq_record(&tx.hold, clock_now_ns() - start, n);
			rxq_flush(&dev->tx_hold, &tx.hold);
			continue;
		}
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;
	}
	tx_free(&tx);
	return NULL;
}

int device_send_one(struct device *dev, struct device_peer *peer, const void *buf, size_t len,
		    const struct sockaddr_storage *dst, bool allow_frag)
{
	int fd = underlay_sock_for(&dev->sock, dst->ss_family);
	int v6 = dst->ss_family == AF_INET6;
	int lvl = v6 ? IPPROTO_IPV6 : IPPROTO_IP, opt = v6 ? IPV6_MTU_DISCOVER : IP_MTU_DISCOVER;
	int dont = v6 ? IPV6_PMTUDISC_DONT : IP_PMTUDISC_DONT,
	    doit = v6 ? IPV6_PMTUDISC_DO : IP_PMTUDISC_DO;
	ssize_t n;

	if (fd < 0) {
		device_count(dev, DEV_DROP_NO_ENDPOINT, 1);
		return -EAFNOSUPPORT;
	}
	device_count(dev, DEV_UDP_TX_CALLS, 1);
	n = allow_frag ? -1
		       : sendto(fd, buf, len, 0, (const struct sockaddr *)dst,
				underlay_sockaddr_len(dst));
	if (allow_frag || (n < 0 && errno == EMSGSIZE)) {
		/* Too big for the path: deliver it with the outer packet fragmented. */
		if (peer && !allow_frag)
			atomic_store(&peer->pmtu_stale, true);
		pthread_mutex_lock(&dev->frag_lock);
		setsockopt(fd, lvl, opt, &dont, sizeof(dont));
		n = sendto(fd, buf, len, 0, (const struct sockaddr *)dst,
			   underlay_sockaddr_len(dst));
		setsockopt(fd, lvl, opt, &doit, sizeof(doit));
		pthread_mutex_unlock(&dev->frag_lock);
		if (n >= 0)
			device_count(dev, DEV_OUTER_FRAGMENTED, 1);
	}
	if (n < 0) {
		int r = -errno;

		device_count(dev, DEV_DROP_SEND, 1);
		log_debug("sendto: %s", strerror(-r));
		return r;
	}
	device_count(dev, DEV_UDP_TX_DATAGRAMS, 1);
	device_count(dev, DEV_UDP_TX_BYTES, len);
	return 0;
}

/* Sends a control message (initiation, keepalive) to the peer's endpoint. */
void device_send_ctrl(struct device *dev, struct device_peer *peer, const struct engine_result *res)
{
	struct sockaddr_storage ep;

	if (!res->ctrl_len)
		return;
	if (!device_peer_endpoint(peer, &ep)) {
		device_count(dev, DEV_DROP_NO_ENDPOINT, 1);
		return;
	}
	device_send_one(dev, peer, res->ctrl, res->ctrl_len, &ep, false);
}
