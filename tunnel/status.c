// SPDX-License-Identifier: MIT
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sodium.h>

#include "clock.h"
#include "config.h"
#include "device_state.h"
#include "key.h"
#include "netlink.h"
#include "sandbox.h"
#include "status.h"

struct out {
	char *buf;
	size_t cap, len;
};

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

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len + 1 >= o->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len = o->len + (size_t)n < o->cap ? o->len + (size_t)n : o->cap - 1;
}

static void put_prefix(void *ctx, int family, const uint8_t *addr, unsigned cidr)
{
	struct out *o = ctx;
	char s[64];

	inet_ntop(family, addr, s, sizeof(s));
	put(o, "allowed_ip=%s/%u\n", s, cidr);
}

/* "per.NAME=N.NN": num/den with two decimals, 0.00 when den is 0. */
static void put_ratio(struct out *o, const char *name, uint64_t num, uint64_t den)
{
	uint64_t hundredths = den ? (num * 100 + den / 2) / den : 0;

	put(o, "per.%s=%" PRIu64 ".%02u\n", name, hundredths / 100, (unsigned)(hundredths % 100));
}

/* A delay histogram (rxq.h) as NAME_mean_us, NAME_p50_le_us, NAME_p99_le_us
 * (the upper bound of their histogram bucket), NAME_max_us and NAME_hist_us
 * (upper-bound:count), after its count as SAMPLES. */
static void put_delay(struct out *o, const char *samples, const char *name,
		      const struct rxq_stats *st)
{
	uint64_t h[CODEL_HIST_BUCKETS];

	for (unsigned k = 0; k < CODEL_HIST_BUCKETS; k++)
		h[k] = atomic_load(&st->hist[k]);
	put(o, "%s=%" PRIu64 "\n%s_mean_us=%" PRIu64 "\n", samples, atomic_load(&st->samples), name,
	    rxq_mean_ns(st) / 1000);
	put(o, "%s_p50_le_us=%" PRIu64 "\n%s_p99_le_us=%" PRIu64 "\n", name,
	    codel_hist_quantile_us(h, 0.5), name, codel_hist_quantile_us(h, 0.99));
	put(o, "%s_max_us=%" PRIu64 "\n", name, atomic_load(&st->max_ns) / 1000);
	put(o, "%s_hist_us=", name);
	for (unsigned k = 0; k < CODEL_HIST_BUCKETS; k++) {
		if (k < CODEL_HIST_BUCKETS - 1)
			put(o, "%s%" PRIu64 ":%" PRIu64, k ? "," : "", codel_hist_upper_us(k),
			    h[k]);
		else
			put(o, ",inf:%" PRIu64, h[k]);
	}
	put(o, "\n");
}

/* The underlay receive queue: its policy and how long datagrams waited in
 * it; then how long packets stayed in the daemon after it (RX) and before
 * the underlay (TX). */
static void put_queue(struct out *o, struct device *dev)
{
	const struct config *cfg = dev->cfg;
	unsigned waiting = 0;

	for (unsigned k = 0; k < dev->nworkers; k++)
		waiting += underlay_rx_waiting(&dev->workers[k].sock);

	put(o, "queue.rx_target_us=%u\nqueue.rx_interval_us=%u\nqueue.rx_limit_us=%u\n",
	    cfg->queue_target_us, cfg->queue_interval_us, cfg->queue_limit_us);
	put(o, "queue.rx_waiting_sockets=%u\n", waiting);
	put_delay(o, "queue.rx_samples", "queue.rx_delay", &dev->rxq);
	put_delay(o, "queue.rx_hold_samples", "queue.rx_hold", &dev->rx_hold);
	put_delay(o, "queue.tx_hold_samples", "queue.tx_hold", &dev->tx_hold);
}

/* The sending side's queue is the TUN's ring, which the kernel keeps: its
 * length and what it dropped when full (the daemon sees neither the wait
 * there nor the drops otherwise). */
static void put_tun_queue(struct out *o, struct device *dev)
{
	struct netlink_link l;

	if (!dev->nl || netlink_get_link(dev->nl, dev->tun.ifindex, &l) < 0)
		return;
	put(o, "queue.tx_tun_len=%u\nqueue.tx_tun_dropped=%" PRIu64 "\n", l.txqlen, l.tx_dropped);
}

/*
 * What we offer and why, and what the start-up measurement saw (one core,
 * seal and open of 1440-byte messages): `cipher` is our first choice; the
 * cipher each session runs is per peer.
 */
static void put_ciphers(struct out *o, struct device *dev)
{
	const struct aead_host *h = engine_host(dev->engine);
	char offer[64];

	negotiate_list_format(engine_offer(dev->engine), offer, sizeof(offer));
	put(o, "cipher=%s\nciphers=%s\ncipher_order=%s\n",
	    aead_cipher_name(engine_cipher(dev->engine)), offer,
	    dev->cfg->ciphers.n ? "configured" : "measured");
	for (int c = 1; c <= AEAD_CIPHERS; c++) {
		const char *name = aead_cipher_name((enum aead_cipher)c);

		put(o, "aead.%s.impl=%s\n", name, aead_impl_name(h->impl[c]));
		for (int i = 1; i <= AEAD_IMPLS; i++)
			put(o, "aead.%s.%s_gbps=%.2f\n", name, aead_impl_name((enum aead_impl)i),
			    h->gbps[c][i]);
	}
}

static void put_interface(struct out *o, struct device *dev, uint64_t now, bool show_keys)
{
	struct engine_stats es;
	char b64[KEY_B64_LEN + 1];
	char listen[80];
	unsigned with_hs = 0;
	uint64_t c[DEV_C__COUNT];

	for (size_t i = 0; i < dev->npeers; i++) {
		struct engine_peer_stats ps;

		engine_peer_stats(dev->peers[i].ep, now, &ps);
		with_hs += ps.last_handshake_realtime_ns != 0;
	}
	engine_stats(dev->engine, now, &es);
	config_format_endpoint(&dev->cfg->listen, listen, sizeof(listen));
	key_to_base64(b64, dev->public_key);
	put(o, "interface=%s\npid=%d\npublic_key=%s\n", dev->tun.name, (int)getpid(), b64);
	put(o, "private_key=%s\n", key_display(b64, dev->private_key, show_keys));
	put(o, "listen=%s\n", dev->cfg->listen.ss_family == AF_UNSPEC ? "*" : listen);
	put(o, "listen_port=%u\n", ntohs(((struct sockaddr_in *)&dev->cfg->listen)->sin_port));
	put(o, "link_mtu=%u\n", atomic_load(&dev->link_mtu));
	put(o, "max_mtu=%u\n", dev->max_mtu);
	put(o, "mtu=%u\nbatch=%u\n", dev->mtu, dev->batch);
	put_ciphers(o, dev);
	put(o, "tso=%s\ncoalesce=%s\nudp_gso=%s\nudp_gro=%s\n", dev->tun.offloads ? "on" : "off",
	    dev->tun.vnet_hdr && dev->cfg->coalesce ? "on" : "off",
	    atomic_load(&dev->udp_gso) ? "on" : "off",
	    dev->workers[0].sock.gro[0] || dev->workers[0].sock.gro[1] ? "on" : "off");
	put(o, "uso=%s\n", tun_has_uso(&dev->tun) ? "on" : "off");
	put(o, "coalesce_udp=%s\n", device_coalesce_udp(dev) ? "on" : "off");
	put(o, "dumpable=%d\n", sandbox_dumpable());
	put(o, "workers=%u\n", dev->nworkers);
	for (unsigned k = 0; k < dev->nworkers; k++) {
		const struct underlay_socks *ws = &dev->workers[k].sock;

		put(o,
		    "worker.%u.tun_rx_packets=%" PRIu64 "\nworker.%u.udp_rx_datagrams=%" PRIu64
		    "\n",
		    k, atomic_load(&dev->workers[k].tun_rx_packets), k,
		    atomic_load(&dev->workers[k].udp_rx_datagrams));
		/* The port its data leaves from (worker_ports): IPv4's, else IPv6's. */
		put(o, "worker.%u.tx_port=%u\n", k,
		    underlay_port(ws->txfd[0] >= 0 || ws->fd[0] >= 0
					  ? underlay_tx_sock_for(ws, AF_INET)
					  : underlay_tx_sock_for(ws, AF_INET6)));
	}
	put(o, "worker_ports=%s\n", dev->cfg->worker_ports && dev->nworkers > 1 ? "on" : "off");
	put(o, "pin_workers=%s\n", dev->cfg->pin_workers && dev->nworkers > 1 ? "on" : "off");
	put(o, "peers=%zu\npeers_with_handshake=%u\n", dev->npeers, with_hs);
	put(o, "under_load=%d\ncookies_sent=%" PRIu64 "\n", es.under_load, es.cookies_sent);
	for (int k = 0; k < DEV_C__COUNT; k++)
		c[k] = atomic_load(&dev->counters[k]);
	for (int k = 0; k < DEV_C_FIRST_DROP; k++)
		put(o, "counter.%s=%" PRIu64 "\n", device_counter_name(k), c[k]);
	/* What batching buys: data-moving system calls and packets per call, per
	 * direction (TX: TUN -> UDP, RX: UDP -> TUN). */
	put_ratio(o, "tx_tun_packets_per_read", c[DEV_TUN_RX_PACKETS], c[DEV_TUN_RX_READS]);
	put_ratio(o, "tx_udp_datagrams_per_call", c[DEV_UDP_TX_DATAGRAMS], c[DEV_UDP_TX_CALLS]);
	put_ratio(o, "rx_udp_datagrams_per_call", c[DEV_UDP_RX_DATAGRAMS], c[DEV_UDP_RX_CALLS]);
	put_ratio(o, "rx_tun_packets_per_write", c[DEV_TUN_TX_PACKETS], c[DEV_TUN_TX_WRITES]);
	put(o, "syscalls.tx=%" PRIu64 "\nsyscalls.rx=%" PRIu64 "\n",
	    c[DEV_TUN_RX_READS] + c[DEV_UDP_TX_CALLS], c[DEV_UDP_RX_CALLS] + c[DEV_TUN_TX_WRITES]);
	put_queue(o, dev);
	put_tun_queue(o, dev);
	for (int k = DEV_C_FIRST_DROP; k < DEV_C__COUNT; k++)
		put(o, "drop.%s=%" PRIu64 "\n", device_counter_name(k), c[k]);
	for (int d = ENGINE_DROP_NONE + 1; d < ENGINE_DROP__COUNT; d++)
		put(o, "drop.%s=%" PRIu64 "\n", engine_drop_name(d), es.drops[d]);
	sodium_memzero(b64, sizeof(b64)); /* held the private key with show_keys */
}

static void put_peer(struct out *o, struct device_peer *p, uint64_t now, bool show_keys)
{
	struct engine_peer_stats ps;
	struct sockaddr_storage ep;
	char b64[KEY_B64_LEN + 1], s[80];

	engine_peer_stats(p->ep, now, &ps);
	key_to_base64(b64, p->public_key);
	put(o, "peer=%s\n", b64);
	put(o, "preshared_key=%s\n", p->psk ? key_display(b64, p->psk, show_keys) : "(none)");
	if (device_peer_endpoint(p, &ep)) {
		config_format_endpoint(&ep, s, sizeof(s));
		put(o, "endpoint=%s\n", s);
	} else {
		put(o, "endpoint=(none)\n");
	}
	allowedips_walk_peer(&p->dev->table, p, put_prefix, o);
	put(o, "latest_handshake_ns=%" PRIu64 "\nhandshakes=%" PRIu64 "\nhas_session=%d\n",
	    ps.last_handshake_realtime_ns, ps.handshakes, ps.has_session);
	/* The current session's cipher, and how it was agreed. */
	put(o, "session_cipher=%s\nsession_cipher_impl=%s\nsession_cipher_by=%s\n",
	    ps.cipher ? aead_cipher_name(ps.cipher) : "none", aead_impl_name(ps.impl),
	    !ps.cipher	    ? "none"
	    : ps.negotiated ? "negotiated"
			    : "peer_without_negotiation");
	put(o, "rx_bytes=%" PRIu64 "\nrx_packets=%" PRIu64 "\n", ps.rx_bytes, ps.rx_packets);
	put(o, "tx_bytes=%" PRIu64 "\ntx_packets=%" PRIu64 "\n", ps.tx_bytes, ps.tx_packets);
	put(o, "path_inner_mtu=%u\nsend_limit=%u\npad_mtu=%u\npersistent_keepalive=%u\n",
	    atomic_load(&p->inner_mtu), atomic_load(&p->send_limit), engine_peer_pad_mtu(p->ep),
	    p->keepalive_s);
	sodium_memzero(b64, sizeof(b64)); /* held the preshared key with show_keys */
}

size_t status_format(struct device *dev, bool show_keys, char *buf, size_t cap)
{
	struct out o = { .buf = buf, .cap = cap };
	uint64_t now = clock_now_ns();

	if (cap)
		buf[0] = '\0';
	put_interface(&o, dev, now, show_keys);
	for (size_t i = 0; i < dev->npeers; i++)
		put_peer(&o, &dev->peers[i], now, show_keys);
	return o.len;
}
