// SPDX-License-Identifier: MIT
/*
 * Device set-up and tear-down, sending on the underlay, path MTU bookkeeping,
 * and the control thread (timers + control socket). The data path is in
 * send.c and receive.c, opening the underlay sockets in underlay.c, the
 * control socket's service in control_serve.c, the status text in status.c
 * (its caller gives it to device_run()).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "control.h"
#include "control_serve.h"
#include "device.h"
#include "interrupt.h"
#include "key.h"
#include "log.h"
#include "netlink.h"
#include "sandbox.h"
#include "underlay.h"

#define DEVICE_PMTU_REFRESH_NS NSEC_PER_SEC
/* Two ends started together must not both initiate: each would answer the
 * other's initiation, replacing its own, and both would sit on unconfirmed
 * responder sessions until a retry 5 s later. The end with the larger public
 * key waits this long and initiates only if no handshake happened meanwhile
 * (a restarted end still initiates, 1 s late). */
#define DEVICE_INITIATE_DEFER_NS    NSEC_PER_SEC
#define DEVICE_DEFAULT_UNDERLAY_MTU 1500

const char *device_counter_name(enum device_counter c)
{
	static const char *const names[DEV_C__COUNT] = {
		[DEV_TUN_RX_PACKETS] = "tun_rx_packets",
		[DEV_TUN_RX_READS] = "tun_rx_reads",
		[DEV_TUN_TX_PACKETS] = "tun_tx_packets",
		[DEV_TUN_TX_WRITES] = "tun_tx_writes",
		[DEV_UDP_TX_DATAGRAMS] = "udp_tx_datagrams",
		[DEV_UDP_TX_CALLS] = "udp_tx_calls",
		[DEV_UDP_RX_DATAGRAMS] = "udp_rx_datagrams",
		[DEV_UDP_RX_CALLS] = "udp_rx_calls",
		[DEV_UDP_RX_GRO_BUFFERS] = "udp_rx_gro_buffers",
		[DEV_TUN_RX_BYTES] = "tun_rx_bytes",
		[DEV_TUN_TX_BYTES] = "tun_tx_bytes",
		[DEV_UDP_TX_BYTES] = "udp_tx_bytes",
		[DEV_UDP_RX_BYTES] = "udp_rx_bytes",
		[DEV_TOO_BIG_ICMP] = "too_big_icmp_sent",
		[DEV_OUTER_FRAGMENTED] = "outer_fragmented",
		[DEV_PMTU_UPDATES] = "pmtu_updates",
		[DEV_ROAMED] = "endpoint_changes",
		[DEV_DROP_NO_ROUTE] = "no_route",
		[DEV_DROP_NO_ENDPOINT] = "no_endpoint",
		[DEV_DROP_BAD_TUN_PACKET] = "bad_tun_packet",
		[DEV_DROP_TOO_BIG] = "too_big_no_reply",
		[DEV_DROP_SOURCE_NOT_ALLOWED] = "source_not_allowed",
		[DEV_DROP_TRUNCATED] = "truncated",
		[DEV_DROP_BAD_GRO] = "bad_gro_segment_size",
		[DEV_DROP_TUN_WRITE] = "tun_write",
		[DEV_DROP_SEND] = "send_error",
		[DEV_DROP_QUEUE_STANDING] = "queue_standing",
		[DEV_DROP_QUEUE_LIMIT] = "queue_limit",
	};

	return c < DEV_C__COUNT && names[c] ? names[c] : "?";
}

void *device_mem_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* Plaintext packets pass through here: never into a core file (the
	 * sandbox makes the whole process non-dumpable; this also holds with
	 * "sandbox = off"). Best effort: a kernel without it still works. */
	madvise(p, len, MADV_DONTDUMP);
	return p;
}

void device_mem_free(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

socklen_t device_sockaddr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

int device_sock_for(const struct device *dev, int family)
{
	return dev->sock[family == AF_INET6 ? 1 : 0];
}

static unsigned overhead_for(int family)
{
	return family == AF_INET6 ? WIRE_UNDERLAY_OVERHEAD_V6 : WIRE_UNDERLAY_OVERHEAD_V4;
}

bool device_peer_endpoint(struct device_peer *peer, struct sockaddr_storage *out)
{
	bool has;

	pthread_mutex_lock(&peer->lock);
	has = peer->has_endpoint;
	if (has)
		*out = peer->endpoint;
	pthread_mutex_unlock(&peer->lock);
	return has;
}

/* Path MTU towards ep: connect() a spare UDP socket (a fresh route lookup, so a
 * PMTU learned from ICMP since the last call is seen) and read IP_MTU. */
static int path_mtu(int *fd, const struct sockaddr_storage *ep)
{
	int family = ep->ss_family;
	int mtu = 0;
	socklen_t sl = sizeof(mtu);

	if (*fd < 0) {
		*fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (*fd < 0)
			return -errno;
	}
	if (connect(*fd, (const struct sockaddr *)ep, device_sockaddr_len(ep)) < 0)
		return -errno;
	if (getsockopt(*fd, family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP,
		       family == AF_INET6 ? IPV6_MTU : IP_MTU, &mtu, &sl) < 0)
		return -errno;
	return mtu;
}

/* The engine's padding cap for peer: min(link MTU, inner path MTU). */
static void device_peer_set_pad(struct device_peer *peer)
{
	uint32_t link = atomic_load(&peer->dev->link_mtu), inner = atomic_load(&peer->inner_mtu);
	uint32_t cap = link;

	if (inner && (!cap || inner < cap))
		cap = inner;
	if (peer->ep)
		engine_peer_set_pad_mtu(peer->ep, cap);
}

void device_peer_refresh_pmtu(struct device_peer *peer)
{
	struct sockaddr_storage ep;
	uint32_t inner, old, limit;
	int mtu;

	atomic_store(&peer->pmtu_stale, false);
	pthread_mutex_lock(&peer->lock);
	if (!peer->has_endpoint) {
		pthread_mutex_unlock(&peer->lock);
		return;
	}
	ep = peer->endpoint;
	if (peer->pmtu_fd >= 0) {
		/* A socket of the other family cannot connect to the new endpoint. */
		struct sockaddr_storage cur;
		socklen_t cl = sizeof(cur);

		if (getsockname(peer->pmtu_fd, (struct sockaddr *)&cur, &cl) == 0 &&
		    cur.ss_family != ep.ss_family) {
			close(peer->pmtu_fd);
			peer->pmtu_fd = -1;
		}
	}
	mtu = path_mtu(&peer->pmtu_fd, &ep);
	pthread_mutex_unlock(&peer->lock);
	if (mtu <= 0) {
		log_debug("peer %u: cannot read path MTU: %s", peer->id, strerror(-mtu));
		return;
	}
	inner = (uint32_t)mtu > overhead_for(ep.ss_family)
			? (uint32_t)mtu - overhead_for(ep.ss_family)
			: 0;
	/* Padding stops at the smaller of the device's current MTU and the path's
	 * inner MTU, so a packet that fits the path still fits once padded. */
	limit = inner;
	old = atomic_exchange(&peer->inner_mtu, inner);
	device_peer_set_pad(peer);
	atomic_store(&peer->send_limit, limit);
	if (old != inner) {
		if (old)
			device_count(peer->dev, DEV_PMTU_UPDATES, 1);
		log_info("peer %u: underlay path MTU %d, inner packets up to %u", peer->id, mtu,
			 inner);
	}
}

int device_send_one(struct device *dev, struct device_peer *peer, const void *buf, size_t len,
		    const struct sockaddr_storage *dst, bool allow_frag)
{
	int fd = device_sock_for(dev, dst->ss_family);
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
				device_sockaddr_len(dst));
	if (allow_frag || (n < 0 && errno == EMSGSIZE)) {
		/* Too big for the path: deliver it with the outer packet fragmented. */
		if (peer && !allow_frag)
			atomic_store(&peer->pmtu_stale, true);
		pthread_mutex_lock(&dev->frag_lock);
		setsockopt(fd, lvl, opt, &dont, sizeof(dont));
		n = sendto(fd, buf, len, 0, (const struct sockaddr *)dst, device_sockaddr_len(dst));
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

/* workers = min(config, online cores), and 1 when IFF_MULTI_QUEUE is refused. */
static int init_workers(struct device *dev)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n = dev->cfg->workers ? dev->cfg->workers : 1;

	if (cores > 0 && (unsigned long)cores < n)
		n = (unsigned)cores;
	dev->workers = calloc(n, sizeof(*dev->workers));
	if (!dev->workers)
		return -ENOMEM;
	dev->nworkers = n;
	for (unsigned k = 0; k < n; k++) {
		dev->workers[k].dev = dev;
		dev->workers[k].id = k;
		dev->workers[k].sock[0] = dev->workers[k].sock[1] = -1;
		dev->workers[k].tun.fd = -1;
	}
	return 0;
}

/* Queues 1..n-1 of the multi-queue TUN (queue 0 is dev->tun). */
static int open_queues(struct device *dev)
{
	dev->workers[0].tun = dev->tun;
	for (unsigned k = 1; k < dev->nworkers; k++) {
		int fd = tun_open_queue(&dev->tun);

		if (fd < 0) {
			log_err("%s: cannot open TUN queue %u: %s", dev->tun.name, k,
				strerror(-fd));
			return fd;
		}
		dev->workers[k].tun = dev->tun;
		dev->workers[k].tun.fd = fd;
	}
	if (dev->nworkers > 1)
		log_info("%s: %u workers (TUN queues, SO_REUSEPORT sockets, thread pairs)",
			 dev->tun.name, dev->nworkers);
	return 0;
}

/* The TUN MTU: configured, else the smallest path MTU to a peer less overhead. */
static uint32_t choose_mtu(struct device *dev)
{
	uint32_t best = 0;

	if (dev->cfg->mtu)
		return dev->cfg->mtu;
	for (size_t i = 0; i < dev->npeers; i++) {
		uint32_t m = atomic_load(&dev->peers[i].inner_mtu);

		if (m && (!best || m < best))
			best = m;
	}
	if (!best)
		best = DEVICE_DEFAULT_UNDERLAY_MTU - WIRE_UNDERLAY_OVERHEAD_V6;
	if (best < CONFIG_MIN_MTU)
		best = CONFIG_MIN_MTU;
	log_info("tunnel MTU %u (underlay path MTU minus overhead)", best);
	return best;
}

static enum aead_cipher cipher_of(enum config_cipher c)
{
	return c == CONFIG_CIPHER_AES256GCM	     ? AEAD_AES256GCM
	       : c == CONFIG_CIPHER_CHACHA20POLY1305 ? AEAD_CHACHA20POLY1305
						     : AEAD_AUTO;
}

static int add_peers(struct device *dev)
{
	struct config *cfg = dev->cfg;
	int r;

	for (size_t i = 0; i < cfg->npeers; i++) {
		struct config_peer *cp = &cfg->peers[i];
		struct device_peer *p = &dev->peers[i];
		uint8_t *psk = NULL;
		struct engine_peer_config pc = { .public_key = cp->public_key,
						 .persistent_keepalive_s = cp->keepalive_s,
						 .user = p };

		if (cp->psk_file[0] && (r = key_read_file(cp->psk_file, &psk)) < 0) {
			log_err("%s:%u: key 'preshared_key_file': cannot use %s: %s", cfg->path,
				cp->line, cp->psk_file, strerror(-r));
			return r;
		}
		pc.psk = psk;
		p->psk = psk;
		r = engine_peer_add(dev->engine, &pc, &p->ep);
		if (r < 0) {
			log_err("%s:%u: [peer]: %s", cfg->path, cp->line,
				r == -EEXIST ? "same public key as another peer or as this host"
					     : strerror(-r));
			return r;
		}
		for (size_t k = 0; k < cp->nallowed; k++) {
			struct config_prefix *pf = &cfg->allowed[cp->first_allowed + k];

			r = allowedips_insert(&dev->table, pf->family, pf->addr, pf->cidr, p);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int init_peers(struct device *dev)
{
	struct config *cfg = dev->cfg;

	dev->peers = calloc(cfg->npeers, sizeof(*dev->peers));
	if (!dev->peers)
		return -ENOMEM;
	dev->npeers = cfg->npeers;
	for (size_t i = 0; i < cfg->npeers; i++) {
		struct device_peer *p = &dev->peers[i];

		p->dev = dev;
		p->id = (unsigned)i;
		p->pmtu_fd = -1;
		pthread_mutex_init(&p->lock, NULL);
		memcpy(p->public_key, cfg->peers[i].public_key, WIRE_KEY_LEN);
		p->keepalive_s = cfg->peers[i].keepalive_s;
		p->has_endpoint = cfg->peers[i].has_endpoint;
		p->endpoint = cfg->peers[i].endpoint;
		device_peer_refresh_pmtu(p);
	}
	return 0;
}

static int create_engine(struct device *dev)
{
	uint8_t *priv = NULL;
	struct engine_config ec = { 0 };
	int r = key_read_file(dev->cfg->private_key_file, &priv);

	if (r < 0) {
		log_err("%s: key 'private_key_file': cannot use %s: %s", dev->cfg->path,
			dev->cfg->private_key_file, strerror(-r));
		return r;
	}
	ec.private_key = priv;
	ec.cipher = cipher_of(dev->cfg->cipher);
	ec.mtu = dev->max_mtu;
	ec.max_peers = (uint32_t)dev->npeers;
	dev->private_key = priv;
	r = engine_new(&ec, &dev->engine);
	if (r < 0) {
		log_err("cannot start the tunnel engine: %s%s", strerror(-r),
			r == -ENOTSUP ? " (cipher aes256gcm needs AES-NI; use auto)" : "");
		return r;
	}
	engine_public_key(dev->engine, dev->public_key);
	return add_peers(dev);
}

static int setup_link(struct device *dev)
{
	struct config *cfg = dev->cfg;
	int r = netlink_open(&dev->nl);

	if (r < 0)
		return r;
	for (size_t i = 0; i < cfg->naddresses && r == 0; i++) {
		struct config_prefix *a = &cfg->addresses[i];

		r = netlink_add_address(dev->nl, dev->tun.ifindex, a->family, a->addr, a->cidr);
	}
	if (r == 0)
		r = netlink_link_up(dev->nl, dev->tun.ifindex, dev->mtu, cfg->txqueuelen);
	for (size_t i = 0; i < cfg->nallowed && r == 0; i++) {
		struct config_prefix *a = &cfg->allowed[i];

		r = netlink_add_route(dev->nl, dev->tun.ifindex, a->family, a->addr, a->cidr);
	}
	return r;
}

int device_up(struct config *cfg, const char *ifname, struct device **out)
{
	struct device *dev;
	int r;

	*out = NULL;
	if (sodium_init() < 0)
		return -EIO;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->cfg = cfg;
	dev->sock[0] = dev->sock[1] = dev->stop_fd = dev->control_fd = -1;
	dev->tun.fd = -1;
	dev->batch = cfg->batch;
	pthread_mutex_init(&dev->frag_lock, NULL);
	allowedips_init(&dev->table);
	r = init_workers(dev);
	if (r == 0)
		r = init_peers(dev);
	if (r == 0) {
		dev->mtu = choose_mtu(dev);
		dev->max_mtu = cfg->max_mtu > dev->mtu ? cfg->max_mtu : dev->mtu;
		dev->slot_size = ENGINE_SLOT_SIZE(dev->max_mtu);
		for (size_t i = 0; i < dev->npeers; i++)
			device_peer_refresh_pmtu(&dev->peers[i]);
		r = create_engine(dev);
		atomic_store(&dev->link_mtu, dev->mtu);
		for (size_t i = 0; r == 0 && i < dev->npeers; i++)
			device_peer_set_pad(&dev->peers[i]);
	}
	if (r == 0)
		r = underlay_open(dev);
	if (r == 0)
		r = underlay_check_endpoints(dev);
	if (r == 0)
		r = tun_open(&dev->tun, ifname && *ifname ? ifname : cfg->ifname,
			     (cfg->tso || cfg->coalesce ? TUN_F_WANT_VNET_HDR : 0) |
				     (cfg->tso ? TUN_F_WANT_TSO : 0) |
				     (cfg->tso && cfg->uso ? TUN_F_WANT_USO : 0) |
				     (dev->nworkers > 1 ? TUN_F_WANT_MULTI_QUEUE : 0));
	if (r == 0)
		r = open_queues(dev);
	if (r == 0 && (r = control_path(0, dev->tun.name, dev->control_path,
					sizeof(dev->control_path))) == 0) {
		dev->control_fd = control_listen(dev->control_path);
		if (dev->control_fd < 0) {
			r = dev->control_fd;
			log_err("control socket %s: %s", dev->control_path, strerror(-r));
			dev->control_path[0] = '\0';
		}
	}
	if (r == 0)
		r = setup_link(dev);
	atomic_store(&dev->udp_gso, cfg->udp_gso);
	if (r == 0) {
		dev->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (dev->stop_fd < 0)
			r = -errno;
	}
	if (r < 0) {
		device_down(dev);
		return r;
	}
	*out = dev;
	return 0;
}

/* Sends a control message (initiation, keepalive) to the peer's endpoint. */
static void send_ctrl(struct device *dev, struct device_peer *peer, const struct engine_result *res)
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

static void stop_threads(struct device *dev)
{
	uint64_t one = 1;

	if (!dev->threads_started)
		return;
	atomic_store(&dev->stopping, true);
	if (write(dev->stop_fd, &one, sizeof(one)) < 0)
		log_warn("cannot wake the data-path threads");
	for (unsigned k = 0; k < dev->nworkers; k++) {
		struct device_worker *w = &dev->workers[k];

		if (w->tx_started)
			pthread_join(w->tx_thread, NULL);
		if (w->rx_started)
			pthread_join(w->rx_thread, NULL);
		w->tx_started = w->rx_started = false;
	}
	dev->threads_started = false;
}

int device_start(struct device *dev)
{
	sigset_t all, old;
	uint64_t now = clock_now_ns();
	int r;

	/* The data path must never take SIGINT/SIGTERM: device_run's poll does. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = 0;
	for (unsigned k = 0; k < dev->nworkers && r == 0; k++) {
		struct device_worker *w = &dev->workers[k];

		r = pthread_create(&w->tx_thread, NULL, device_tx_thread, w);
		w->tx_started = r == 0;
		if (r == 0) {
			r = pthread_create(&w->rx_thread, NULL, device_rx_thread, w);
			w->rx_started = r == 0;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	dev->threads_started = true;
	if (r != 0) {
		stop_threads(dev);
		return -r;
	}
	for (size_t i = 0; i < dev->npeers; i++) {
		struct device_peer *p = &dev->peers[i];
		struct engine_result res;
		struct sockaddr_storage ep;

		if (!device_peer_endpoint(p, &ep))
			continue;
		if (memcmp(dev->public_key, p->public_key, WIRE_KEY_LEN) > 0) {
			p->initiate_at = now + DEVICE_INITIATE_DEFER_NS;
			continue;
		}
		memset(&res, 0, sizeof(res));
		engine_initiate(p->ep, now, &res);
		send_ctrl(dev, p, &res);
	}
	return 0;
}

/* `ip link set DEV mtu N` since start-up: padding must follow it (a packet
 * of the new MTU must not grow past it on the wire). Up to max_mtu the
 * buffers hold the larger packets; above it they are dropped (too big). */
static void check_link_mtu(struct device *dev)
{
	struct netlink_link l;

	if (netlink_get_link(dev->nl, dev->tun.ifindex, &l) < 0 || l.mtu == 0 ||
	    l.mtu == atomic_load(&dev->link_mtu))
		return;
	if (l.mtu > dev->max_mtu)
		log_warn("%s: MTU now %u, above max_mtu %u: packets larger than %u are dropped "
			 "(set max_mtu in [interface] of %s)",
			 dev->tun.name, l.mtu, dev->max_mtu, dev->max_mtu, dev->cfg->path);
	else
		log_info("%s: MTU now %u", dev->tun.name, l.mtu);
	atomic_store(&dev->link_mtu, l.mtu);
	for (size_t i = 0; i < dev->npeers; i++)
		device_peer_set_pad(&dev->peers[i]);
}

static void run_timers(struct device *dev, uint64_t now, uint64_t *next_pmtu)
{
	bool pmtu_due = now >= *next_pmtu;

	if (pmtu_due && dev->nl)
		check_link_mtu(dev);

	for (size_t i = 0; i < dev->npeers; i++) {
		struct device_peer *p = &dev->peers[i];
		struct engine_result res;

		memset(&res, 0, sizeof(res));
		engine_update_timers(p->ep, now, &res);
		send_ctrl(dev, p, &res);
		if (p->initiate_at && now >= p->initiate_at) {
			struct engine_peer_stats st;

			p->initiate_at = 0;
			engine_peer_stats(p->ep, now, &st);
			memset(&res, 0, sizeof(res));
			if (!st.last_handshake_realtime_ns)
				engine_initiate(p->ep, now, &res);
			send_ctrl(dev, p, &res);
		}
		if (pmtu_due || atomic_load(&p->pmtu_stale))
			device_peer_refresh_pmtu(p);
	}
	if (pmtu_due)
		*next_pmtu = now + DEVICE_PMTU_REFRESH_NS;
}

struct run_ctl {
	struct device *dev;
	device_status_fn status;
};

static size_t ctl_status(void *ctx, bool show_keys, char *buf, size_t cap)
{
	struct run_ctl *c = ctx;

	return c->status(c->dev, show_keys, buf, cap);
}

static void ctl_stop(void *ctx)
{
	struct run_ctl *c = ctx;

	atomic_store(&c->dev->stop_requested, true);
}

int device_run(struct device *dev, device_status_fn status)
{
	uint64_t next_pmtu = clock_now_ns() + DEVICE_PMTU_REFRESH_NS;
	struct run_ctl c = { .dev = dev, .status = status };
	const struct control_handler ctl = { .status = ctl_status, .stop = ctl_stop, .ctx = &c };

	while (!interrupt_requested() && !atomic_load(&dev->stop_requested)) {
		struct pollfd pfd = { .fd = dev->control_fd, .events = POLLIN };
		int r = poll(&pfd, 1, (int)(ENGINE_TICK_NS / NSEC_PER_MSEC));

		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0 && (pfd.revents & POLLIN))
			control_serve(dev->control_fd, &ctl);
		run_timers(dev, clock_now_ns(), &next_pmtu);
	}
	log_info("%s: stopping (%s)", dev->tun.name,
		 interrupt_requested() ? "signal" : "control socket");
	return 0;
}

void device_down(struct device *dev)
{
	if (!dev)
		return;
	stop_threads(dev);
	/* Closing the last descriptor of a non-persistent TUN removes the device;
	 * the control socket goes last, so "gone" means the device is gone too. */
	for (unsigned k = 1; k < dev->nworkers; k++)
		tun_close(&dev->workers[k].tun);
	tun_close(&dev->tun);
	netlink_close(dev->nl);
	for (unsigned k = 0; k < dev->nworkers; k++)
		for (int i = 0; i < 2; i++)
			if (dev->workers[k].sock[i] >= 0)
				close(dev->workers[k].sock[i]);
	free(dev->workers);
	if (dev->stop_fd >= 0)
		close(dev->stop_fd);
	if (dev->engine)
		engine_free(dev->engine);
	for (size_t i = 0; i < dev->npeers; i++) {
		if (dev->peers[i].pmtu_fd >= 0)
			close(dev->peers[i].pmtu_fd);
		key_free(dev->peers[i].psk);
		pthread_mutex_destroy(&dev->peers[i].lock);
	}
	free(dev->peers);
	key_free(dev->private_key);
	if (dev->control_fd >= 0) {
		close(dev->control_fd);
		sandbox_unlink(dev->control_path); /* unlinkat() under the filter */
	}
	allowedips_free(&dev->table);
	pthread_mutex_destroy(&dev->frag_lock);
	free(dev);
}
