// SPDX-License-Identifier: MIT
/*
 * Device set-up and tear-down: workers, peers, the engine, the underlay
 * sockets (underlay.c opens them), the TUN and its queues, addresses and
 * routes, the control socket; starting and stopping the data-path threads.
 * The data path is in send.c and receive.c (sending one datagram, for every
 * thread, in send.c), path MTU in pmtu.c, the control thread in
 * device_run.c, the control socket's service in control_serve.c, the status
 * text in status.c (its caller gives it to device_run()).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "clock.h"
#include "control.h"
#include "control_serve.h"
#include "device.h"
#include "interrupt.h"
#include "key.h"
#include "log.h"
#include "netlink.h"
#include "pmtu.h"
#include "receive.h"
#include "sandbox.h"
#include "send.h"
#include "underlay.h"

/* Two ends started together must not both initiate: each would answer the
 * other's initiation, replacing its own, and both would sit on unconfirmed
 * responder sessions until a retry 5 s later. The end with the larger public
 * key waits this long and initiates only if no handshake happened meanwhile
 * (a restarted end still initiates, 1 s late). */
#define DEVICE_INITIATE_DEFER_NS    NSEC_PER_SEC
#define DEVICE_DEFAULT_UNDERLAY_MTU 1500

/* workers = min(config, the CPUs this process may run on: its affinity, which
 * taskset, a cpuset or a lab host's CPUs narrow; else the online cores), and
 * 1 when IFF_MULTI_QUEUE is refused. */
static int init_workers(struct device *dev)
{
	cpu_set_t mine;
	long cores = sched_getaffinity(0, sizeof(mine), &mine) == 0 ? CPU_COUNT(&mine)
								    : sysconf(_SC_NPROCESSORS_ONLN);
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
		underlay_socks_init(&dev->workers[k].sock);
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

/* Every worker's underlay sockets; dev->sock are worker 0's. */
static int open_sockets(struct device *dev)
{
	struct underlay_socks *first = &dev->workers[0].sock;
	int r = 0;

	for (unsigned k = 0; k < dev->nworkers && r == 0; k++)
		r = underlay_open(dev->cfg, dev->nworkers, k, first, &dev->workers[k].sock);
	dev->sock = *first;
	if (r == 0 && (first->gro[0] || first->gro[1]))
		log_info("underlay: UDP GRO on (%s%s%s)", first->gro[0] ? "IPv4" : "",
			 first->gro[0] && first->gro[1] ? ", " : "", first->gro[1] ? "IPv6" : "");
	return r;
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
		pmtu_refresh(p);
	}
	return 0;
}

static int create_engine(struct device *dev)
{
	uint8_t *priv = NULL;
	struct engine_config ec = { 0 };
	struct aead_host host;
	char offer[64];
	int r = key_read_file(dev->cfg->private_key_file, &priv);

	if (r < 0) {
		log_err("%s: key 'private_key_file': cannot use %s: %s", dev->cfg->path,
			dev->cfg->private_key_file, strerror(-r));
		return r;
	}
	ec.private_key = priv;
	/* Before the sandbox: OpenSSL loads its provider on first use. */
	r = aead_host_measure(&host);
	if (r < 0) {
		log_err("cannot measure the data ciphers: %s", strerror(-r));
		return r;
	}
	ec.ciphers = dev->cfg->ciphers;
	ec.host = &host;
	ec.mtu = dev->max_mtu;
	ec.max_peers = (uint32_t)dev->npeers;
	dev->private_key = priv;
	r = engine_new(&ec, &dev->engine);
	if (r < 0) {
		log_err("cannot start the tunnel engine: %s%s", strerror(-r),
			r == -ENOTSUP ? " (no listed cipher runs here; key 'cipher')" : "");
		return r;
	}
	negotiate_list_format(engine_offer(dev->engine), offer, sizeof(offer));
	log_info("data ciphers offered: %s (%s; one core: aes256gcm %.1f/%.1f, "
		 "chacha20poly1305 %.1f/%.1f Gbit/s libsodium/openssl)",
		 offer, dev->cfg->ciphers.n ? "configured" : "fastest here first",
		 host.gbps[AEAD_AES256GCM][AEAD_IMPL_LIBSODIUM],
		 host.gbps[AEAD_AES256GCM][AEAD_IMPL_OPENSSL],
		 host.gbps[AEAD_CHACHA20POLY1305][AEAD_IMPL_LIBSODIUM],
		 host.gbps[AEAD_CHACHA20POLY1305][AEAD_IMPL_OPENSSL]);
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
	underlay_socks_init(&dev->sock);
	dev->stop_fd = dev->control_fd = -1;
	dev->tun.fd = -1;
	dev->batch = cfg->batch;
	pthread_mutex_init(&dev->frag_lock, NULL);
	allowedips_init(&dev->table);
	r = init_workers(dev);
	/* The listening sockets first: a peer's path MTU socket (init_peers)
	 * connects from an ephemeral port, which may be the port to listen on
	 * when that lies in ip_local_port_range (51900 does). */
	if (r == 0)
		r = open_sockets(dev);
	if (r == 0)
		r = init_peers(dev);
	if (r == 0) {
		dev->mtu = choose_mtu(dev);
		dev->max_mtu = cfg->max_mtu > dev->mtu ? cfg->max_mtu : dev->mtu;
		dev->slot_size = ENGINE_SLOT_SIZE(dev->max_mtu);
		for (size_t i = 0; i < dev->npeers; i++)
			pmtu_refresh(&dev->peers[i]);
		r = create_engine(dev);
		atomic_store(&dev->link_mtu, dev->mtu);
		for (size_t i = 0; r == 0 && i < dev->npeers; i++)
			pmtu_set_pad(&dev->peers[i]);
	}
	if (r == 0)
		r = underlay_check_endpoints(cfg, &dev->sock);
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

/*
 * pin_workers: worker k's two threads on the k-th CPU this process may run on
 * (its affinity: taskset, a cpuset, a lab host's CPUs), so that a flow's
 * packets stay in one core's cache and its wake-ups do not cross cores. With
 * one worker nothing is pinned. bench/overlay_vs_peers.sh with
 * OVLPERF_BASE, pinned against not, 12 alternating pairs of rounds on 2
 * shared cores: one TCP stream 4.85 against 4.13 Gbit/s (medians), the whole
 * machine's CPU per Gbit 0.36 against 0.48 s (docs/tunnel.md).
 */
static void pin_worker(struct device_worker *w, unsigned k)
{
	cpu_set_t mine, one;
	int want, seen = 0;

	if (sched_getaffinity(0, sizeof(mine), &mine) || CPU_COUNT(&mine) < 2)
		return;
	want = (int)(k % (unsigned)CPU_COUNT(&mine));
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &mine) || seen++ != want)
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		if (w->tx_started)
			pthread_setaffinity_np(w->tx_thread, sizeof(one), &one);
		if (w->rx_started)
			pthread_setaffinity_np(w->rx_thread, sizeof(one), &one);
		return;
	}
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

		char name[16];

		r = pthread_create(&w->tx_thread, NULL, device_tx_thread, w);
		w->tx_started = r == 0;
		if (r == 0) {
			r = pthread_create(&w->rx_thread, NULL, device_rx_thread, w);
			w->rx_started = r == 0;
		}
		/* named, so that a thread's CPU (/proc/PID/task/TID/comm) says
		 * which half of which worker it is: "ovl-tx0", "ovl-rx0" */
		snprintf(name, sizeof(name), "ovl-tx%u", k % 1000);
		if (w->tx_started)
			pthread_setname_np(w->tx_thread, name);
		snprintf(name, sizeof(name), "ovl-rx%u", k % 1000);
		if (w->rx_started)
			pthread_setname_np(w->rx_thread, name);
		if (dev->cfg->pin_workers && dev->nworkers > 1)
			pin_worker(w, k);
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
		device_send_ctrl(dev, p, &res);
	}
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
		underlay_close(&dev->workers[k].sock);
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
