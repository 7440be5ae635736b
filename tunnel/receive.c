// SPDX-License-Identifier: MIT
/*
 * RX: UDP -> TUN. recvmmsg() a batch from each underlay socket; the engine
 * dispatches each datagram (handshake, cookie, data) and opens data in
 * place. With UDP_GRO on a socket (udp_gro = on) each batch entry is a
 * 64 KiB buffer that may hold many datagrams of one sender cut every
 * gso_size bytes (control message; gro.h splits it): each is opened in
 * place inside the buffer, so a run of TCP segments from one super-datagram
 * goes on to be coalesced (gro.c) into one TUN write. Decrypted packets are checked against the
 * sending peer's allowed IPs (cryptokey routing: a peer may only send from addresses it owns) and
 * written to the TUN. A peer's endpoint moves to a datagram's source only
 * when that datagram authenticated (roaming), and on data only to another
 * address (roam() says why).
 *
 * The socket's queue is the one place on this path where datagrams wait
 * unseen: each carries its kernel receive time (SO_TIMESTAMPNS), so its
 * wait is known when it is taken, recorded (rxq.h, `tunnel show`), and
 * bounded by the queue policy (codel.h): a data datagram that waited too
 * long is dropped here, before any cipher work, and the rest keep their
 * order.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "bytes.h"
#include "clock.h"
#include "device_state.h"
#include "gro.h"
#include "gso.h"
#include "log.h"
#include "pagemem.h"
#include "receive.h"
#include "send.h"
#include "sockopt.h"
#include "wire.h"

/* A datagram buffer with UDP_GRO: the largest UDP payload, rounded to 64. */
#define RX_GRO_BUF_SIZE ((size_t)65536)
/* UDP_GRO buffers per recvmmsg: up to about 360 datagrams of 1440 bytes,
 * opened in a few hundred microseconds, still hundreds per system call. */
#define RX_GRO_BATCH 8u
/* CMSG_SPACE(sizeof(int)) for UDP_GRO plus the receive timestamp. */
#define RX_CTRL_SIZE 64
_Static_assert(RX_CTRL_SIZE >= 24 + RXQ_CTRL_SPACE, "control room for GRO and timestamp");

struct rx {
	struct device *dev;
	struct device_worker *w; /* this thread's TUN queue and sockets */
	unsigned batch;
	size_t buf_size; /* per entry: slot_size, or RX_GRO_BUF_SIZE with UDP_GRO */
	bool udp_gro;	 /* some socket has UDP_GRO */
	bool stamps;	 /* the sockets timestamp datagrams (rxq.h, codel.h) */
	struct codel codel;
	struct rxq_batch rxq;	  /* the queue's figures, flushed once per batch */
	struct rxq_batch hold;	  /* device.h: rx_hold */
	uint64_t batch_datagrams; /* in the batch being handled */
	uint8_t *mem;		  /* mmap()ed: batch entries, then the scratch slot */
	size_t mem_len;
	uint8_t *ctrl;	  /* batch * RX_CTRL_SIZE control bytes (UDP_GRO, timestamps) */
	uint8_t *scratch; /* one slot for staged packets flushed after a handshake */
	struct mmsghdr *msgs;
	struct iovec *iov;
	struct sockaddr_storage *names;
	struct gro gro; /* with IFF_VNET_HDR: the super-packet being built */
	uint8_t *gro_buf;
};

/* Receive timestamps on this worker's sockets: the queue's statistics
 * always, its policy as configured (target and limit 0: never drops). */
static bool enable_stamps(struct rx *rx)
{
	const struct config *cfg = rx->dev->cfg;
	bool any = false;

	for (int s = 0; s < 4; s++) {
		int fd = s < 2 ? rx->w->sock.fd[s] : rx->w->sock.txfd[s - 2];

		if (fd < 0)
			continue;
		int r = sockopt_rx_timestamps(fd);

		if (r < 0)
			log_warn("RX: no receive timestamps (%s): no queue delay, no queue policy",
				 strerror(-r));
		else
			any = true;
	}
	codel_init(&rx->codel, (uint64_t)cfg->queue_target_us * 1000,
		   (uint64_t)cfg->queue_interval_us * 1000, (uint64_t)cfg->queue_limit_us * 1000);
	return any;
}

static int rx_init(struct rx *rx, struct device_worker *w)
{
	struct device *dev = w->dev;
	bool udp_gro = w->sock.gro[0] || w->sock.gro[1];
	/* A UDP_GRO buffer holds up to 64 KiB of datagrams: `batch` of them
	 * would make the first datagram wait for thousands to be opened. */
	unsigned b = udp_gro && dev->batch > RX_GRO_BATCH ? RX_GRO_BATCH : dev->batch;

	memset(rx, 0, sizeof(*rx));
	rx->dev = dev;
	rx->w = w;
	rx->batch = b;
	rx->udp_gro = udp_gro;
	rx->stamps = enable_stamps(rx);
	rx->buf_size =
		rx->udp_gro && dev->slot_size < RX_GRO_BUF_SIZE ? RX_GRO_BUF_SIZE : dev->slot_size;
	rx->mem_len = rx->buf_size * b + dev->slot_size;
	rx->mem = pagemem_alloc(rx->mem_len);
	if (rx->udp_gro || rx->stamps)
		rx->ctrl = aligned_alloc(64, (size_t)b * RX_CTRL_SIZE);
	rx->msgs = calloc(b, sizeof(*rx->msgs));
	rx->iov = calloc(b, sizeof(*rx->iov));
	rx->names = calloc(b, sizeof(*rx->names));
	if (dev->tun.vnet_hdr) {
		rx->gro_buf = pagemem_alloc(GSO_VNET_HDR_LEN + GSO_MAX_PACKET);
		gro_init(&rx->gro, rx->gro_buf, device_coalesce_udp(dev));
	}
	if (!rx->mem || !rx->msgs || !rx->iov || !rx->names ||
	    (dev->tun.vnet_hdr && !rx->gro_buf) || ((rx->udp_gro || rx->stamps) && !rx->ctrl))
		return -ENOMEM;
	rx->scratch = rx->mem + (size_t)b * rx->buf_size;
	return 0;
}

static void rx_free(struct rx *rx)
{
	pagemem_free(rx->mem, rx->mem_len);
	free(rx->ctrl);
	free(rx->msgs);
	free(rx->iov);
	free(rx->names);
	pagemem_free(rx->gro_buf, GSO_VNET_HDR_LEN + GSO_MAX_PACKET);
}

/*
 * The TUN queue a packet is written to. A multi-queue TUN remembers, per
 * flow, the queue its packets were last written to and sends that flow's
 * packets out through the same queue (tun automq). Written from this
 * worker's queue, every flow of a peer (whose datagrams all reach one
 * SO_REUSEPORT socket) would come back to this worker's TX thread; written
 * to the queue picked by a symmetric hash of the inner addresses and ports,
 * the flows spread over the workers' TX threads, each flow on one (in order).
 */
static const struct tun *tun_for(struct rx *rx, const uint8_t *p, size_t len)
{
	struct device *dev = rx->dev;
	uint32_t h = 0;
	size_t l4 = 0, alen = 0, aoff = 0;
	unsigned proto = 0;

	if (dev->nworkers < 2 || !len)
		return &rx->w->tun;
	if (p[0] >> 4 == 4 && len >= 20) {
		aoff = 12, alen = 4, proto = p[9];
		l4 = (size_t)(p[0] & 15) * 4;
		if (get_be16(p + 6) & 0x3fff)
			proto = 0; /* fragments: addresses only */
	} else if (p[0] >> 4 == 6 && len >= 40) {
		aoff = 8, alen = 16, proto = p[6], l4 = 40;
	} else {
		return &rx->w->tun;
	}
	for (size_t i = 0; i < alen; i += 4) /* symmetric: a sum over both addresses */
		h += get_be32(p + aoff + i) + get_be32(p + aoff + alen + i);
	if ((proto == 6 || proto == 17) && len >= l4 + 4)
		h += (uint32_t)get_be16(p + l4) + get_be16(p + l4 + 2);
	h ^= h >> 16;
	h *= 0x45d9f3bu;
	h ^= h >> 16;
	return &dev->workers[h % dev->nworkers].tun;
}

static void gro_write(struct rx *rx)
{
	const uint8_t *out;
	size_t n = gro_flush(&rx->gro, &out);

	if (!n)
		return;
	if (tun_write(tun_for(rx, out + GSO_VNET_HDR_LEN, n - GSO_VNET_HDR_LEN), out, n) < 0) {
		device_count(rx->dev, DEV_DROP_TUN_WRITE, 1);
	} else {
		device_count(rx->dev, DEV_TUN_TX_WRITES, 1);
		device_count(rx->dev, DEV_TUN_TX_BYTES, n - GSO_VNET_HDR_LEN);
	}
}

/* With IFF_VNET_HDR: coalesce TCP segments of one flow, write the rest as is. */
static void to_tun_vnet(struct rx *rx, uint8_t *inner, size_t len)
{
	struct device *dev = rx->dev;

	if (dev->cfg->coalesce && gro_append(&rx->gro, inner, len))
		return;
	gro_write(rx);
	if (dev->cfg->coalesce && gro_start(&rx->gro, inner, len))
		return;
	/* The engine leaves ENGINE_HEADROOM free bytes before the plaintext. */
	gso_hdr_put_plain(inner - GSO_VNET_HDR_LEN, true);
	if (tun_write(tun_for(rx, inner, len), inner - GSO_VNET_HDR_LEN, len + GSO_VNET_HDR_LEN) <
	    0) {
		device_count(dev, DEV_DROP_TUN_WRITE, 1);
	} else {
		device_count(dev, DEV_TUN_TX_WRITES, 1);
		device_count(dev, DEV_TUN_TX_BYTES, len);
	}
}

static void arm(struct rx *rx)
{
	for (unsigned i = 0; i < rx->batch; i++) {
		rx->iov[i].iov_base = rx->mem + (size_t)i * rx->buf_size;
		rx->iov[i].iov_len = rx->buf_size;
		memset(&rx->msgs[i].msg_hdr, 0, sizeof(rx->msgs[i].msg_hdr));
		rx->msgs[i].msg_hdr.msg_name = &rx->names[i];
		rx->msgs[i].msg_hdr.msg_namelen = sizeof(rx->names[i]);
		rx->msgs[i].msg_hdr.msg_iov = &rx->iov[i];
		rx->msgs[i].msg_hdr.msg_iovlen = 1;
		if (rx->ctrl) {
			rx->msgs[i].msg_hdr.msg_control = rx->ctrl + (size_t)i * RX_CTRL_SIZE;
			rx->msgs[i].msg_hdr.msg_controllen = RX_CTRL_SIZE;
		}
	}
}

/* Whether a and b are one address (and, with port, one port). */
static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b, bool port)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

		return (!port || x->sin_port == y->sin_port) &&
		       x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

	return (!port || x->sin6_port == y->sin6_port) &&
	       !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr));
}

/*
 * The peer's endpoint moves to src, the source of an authenticated datagram.
 * A peer's workers send data from ports of their own (underlay_spread.h), so
 * data moves it only to another address; handshake messages, which a peer
 * sends from its listening port, move it to another port as well (a peer
 * that came back on another port, a NAT's new mapping: its next handshake).
 * With one worker only this thread writes endpoints, so comparing without
 * the lock is safe; with several, RX threads compare under the lock.
 */
static void roam(struct device *dev, struct device_peer *peer, const struct sockaddr_storage *src,
		 bool data)
{
	if (dev->nworkers > 1) {
		bool same;

		pthread_mutex_lock(&peer->lock);
		same = peer->has_endpoint && same_addr(&peer->endpoint, src, !data);
		pthread_mutex_unlock(&peer->lock);
		if (same)
			return;
	} else if (peer->has_endpoint && same_addr(&peer->endpoint, src, !data)) {
		return;
	}
	pthread_mutex_lock(&peer->lock);
	peer->endpoint = *src;
	peer->has_endpoint = true;
	pthread_mutex_unlock(&peer->lock);
	atomic_store(&peer->pmtu_stale, true);
	device_count(dev, DEV_ROAMED, 1);
}

/* Whether the decrypted packet's source address belongs to peer. */
static bool source_allowed(struct device *dev, struct device_peer *peer, const uint8_t *pkt,
			   size_t len)
{
	unsigned v = len ? pkt[0] >> 4 : 0;

	if (v == 4 && len >= 20)
		return allowedips_lookup(&dev->table, AF_INET, pkt + 12) == peer;
	if (v == 6 && len >= 40)
		return allowedips_lookup(&dev->table, AF_INET6, pkt + 8) == peer;
	return false;
}

static void flush_staged(struct rx *rx, struct device_peer *peer, uint64_t now)
{
	struct engine_pkt pkt = { .buf = rx->scratch, .cap = rx->dev->slot_size };
	struct sockaddr_storage ep;

	while (engine_flush(peer->ep, &pkt, now)) {
		if (device_peer_endpoint(peer, &ep))
			device_send_one(rx->dev, peer, pkt.buf, pkt.len, &ep, false);
		else
			device_count(rx->dev, DEV_DROP_NO_ENDPOINT, 1);
		pkt.buf = rx->scratch;
		pkt.cap = rx->dev->slot_size;
	}
}

/* One underlay datagram of len bytes at buf (a slot, or a segment inside a
 * UDP_GRO buffer: opened in place, the plaintext stays inside it). */
static void handle_one(struct rx *rx, uint8_t *buf, size_t len, const struct sockaddr_storage *src,
		       socklen_t srclen, uint64_t now)
{
	struct device *dev = rx->dev;
	struct engine_pkt pkt = { .buf = buf, .len = len, .cap = len };
	struct engine_result res;
	struct device_peer *peer = NULL;
	enum engine_op op;

	/* Read before the engine opens the datagram in place. */
	bool data = wire_msg_type(buf, len) == WIRE_TYPE_DATA;

	memset(&res, 0, sizeof(res));
	op = engine_receive(dev->engine, &pkt, (const struct sockaddr *)src, srclen, now, &res);
	if (res.peer) {
		peer = engine_peer_user(res.peer);
		roam(dev, peer, src, data);
	}
	if (res.ctrl_len) {
		struct sockaddr_storage ep;

		if (res.ctrl_to_source || !peer)
			device_send_one(dev, peer, res.ctrl, res.ctrl_len, src, false);
		else if (device_peer_endpoint(peer, &ep))
			device_send_one(dev, peer, res.ctrl, res.ctrl_len, &ep, false);
	}
	if (op == ENGINE_TO_TUNNEL && peer) {
		uint8_t *inner = pkt.buf + ENGINE_HEADROOM;

		if (!source_allowed(dev, peer, inner, pkt.len)) {
			device_count(dev, DEV_DROP_SOURCE_NOT_ALLOWED, 1);
		} else if (dev->tun.vnet_hdr) {
			device_count(dev, DEV_TUN_TX_PACKETS, 1);
			to_tun_vnet(rx, inner, pkt.len);
		} else if (tun_write(tun_for(rx, inner, pkt.len), inner, pkt.len) < 0) {
			device_count(dev, DEV_DROP_TUN_WRITE, 1);
		} else {
			device_count(dev, DEV_TUN_TX_PACKETS, 1);
			device_count(dev, DEV_TUN_TX_WRITES, 1);
			device_count(dev, DEV_TUN_TX_BYTES, pkt.len);
		}
	}
	if (res.flush && peer)
		flush_staged(rx, peer, now);
}

/* The queue policy for entry i (n datagrams received at once): how many
 * of them to drop from the front, before any cipher work. Only data
 * messages: a handshake is never dropped for waiting. */
static size_t queue_drops(struct rx *rx, unsigned i, const uint8_t *buf, size_t n, uint64_t now,
			  uint64_t now_real)
{
	struct msghdr *h = &rx->msgs[i].msg_hdr;
	uint64_t stamp, sojourn;

	if (!rx->stamps || !sockopt_rx_stamp(h->msg_control, h->msg_controllen, &stamp))
		return 0;
	sojourn = now_real > stamp ? now_real - stamp : 0;
	rxq_record(&rx->rxq, sojourn, n);
	if (rx->msgs[i].msg_len < 1 || buf[0] != WIRE_TYPE_DATA)
		return 0;
	switch (codel_drop(&rx->codel, sojourn, now)) {
	case CODEL_DROP:
		device_count(rx->dev, DEV_DROP_QUEUE_STANDING, 1);
		return 1;
	case CODEL_DROP_LIMIT:
		device_count(rx->dev, DEV_DROP_QUEUE_LIMIT, n);
		return n; /* all of them waited as long */
	case CODEL_PASS:
		break;
	}
	return 0;
}

/* Entry i of the batch: one datagram, or with UDP_GRO possibly many. */
static void handle(struct rx *rx, unsigned i, uint64_t now, uint64_t now_real)
{
	struct device *dev = rx->dev;
	struct msghdr *h = &rx->msgs[i].msg_hdr;
	uint8_t *buf = rx->iov[i].iov_base;
	size_t len = rx->msgs[i].msg_len, n = 1, off;
	int gs = 0;

	if (h->msg_flags & MSG_TRUNC) {
		device_count(dev, DEV_DROP_TRUNCATED, 1);
		return;
	}
	if (rx->udp_gro) {
		gs = (h->msg_flags & MSG_CTRUNC)
			     ? -EINVAL
			     : gro_udp_gso_size(h->msg_control, h->msg_controllen);
		if (gs < 0) {
			device_count(dev, DEV_DROP_BAD_GRO, 1);
			return;
		}
		n = gro_udp_count(len, (size_t)gs);
		if (n > 1)
			device_count(dev, DEV_UDP_RX_GRO_BUFFERS, 1);
	}
	device_count(dev, DEV_UDP_RX_DATAGRAMS, n);
	rx->batch_datagrams += n;
	device_count(dev, DEV_UDP_RX_BYTES, len);
	atomic_fetch_add_explicit(&rx->w->udp_rx_datagrams, n, memory_order_relaxed);
	for (size_t k = queue_drops(rx, i, buf, n, now, now_real); k < n; k++) {
		size_t l = gro_udp_segment(len, (size_t)gs, k, &off);

		handle_one(rx, buf + off, l, &rx->names[i], h->msg_namelen, now);
	}
}

static void drain(struct rx *rx, int fd)
{
	struct device *dev = rx->dev;

	for (unsigned round = 0; round < 8 && !atomic_load(&dev->stopping); round++) {
		int n;
		uint64_t now, now_real;

		arm(rx);
		n = recvmmsg(fd, rx->msgs, rx->batch, MSG_DONTWAIT, NULL);
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				log_debug("recvmmsg: %s", strerror(errno));
			return;
		}
		device_count(dev, DEV_UDP_RX_CALLS, 1);
		now = clock_now_ns();
		now_real = rx->stamps ? clock_realtime_ns() : 0;
		rx->batch_datagrams = 0;
		for (int i = 0; i < n; i++)
			handle(rx, (unsigned)i, now, now_real);
		rxq_flush(&dev->rxq, &rx->rxq);
		if (dev->tun.vnet_hdr)
			gro_write(rx); /* never hold a segment past its batch */
		rxq_record(&rx->hold, clock_now_ns() - now, rx->batch_datagrams);
		rxq_flush(&dev->rx_hold, &rx->hold);
		if ((unsigned)n < rx->batch)
			return;
	}
}

void *device_rx_thread(void *arg)
{
	struct device_worker *w = arg;
	struct device *dev = w->dev;
	struct rx rx;

	if (rx_init(&rx, w) < 0) {
		log_err("RX: out of memory for %u buffers", dev->batch);
		rx_free(&rx);
		return NULL;
	}
	while (!atomic_load(&dev->stopping)) {
		/* The listening sockets, then this worker's own port's (a peer
		 * may have learnt it as our endpoint). */
		struct pollfd p[5] = { { .fd = w->sock.fd[0], .events = POLLIN },
				       { .fd = w->sock.fd[1], .events = POLLIN },
				       { .fd = w->sock.txfd[0], .events = POLLIN },
				       { .fd = w->sock.txfd[1], .events = POLLIN },
				       { .fd = dev->stop_fd, .events = POLLIN } };

		if (poll(p, 5, -1) < 0 && errno != EINTR)
			break;
		if (p[4].revents)
			break;
		for (int s = 0; s < 4; s++)
			if (p[s].revents & POLLIN)
				drain(&rx, p[s].fd);
	}
	rx_free(&rx);
	return NULL;
}
