// SPDX-License-Identifier: MIT
/*
 * Per-core seal/open throughput of the tunnel's data path for 1420-byte
 * packets, both ciphers, measured three ways in one run so they can be read
 * as ratios: libsodium's one-shot AEAD, aead_seal/aead_open (in place, with
 * each implementation: libsodium's and OpenSSL's), and the engine itself
 * (with the implementation the start-up measurement, aead_host.c, picks)
 * (engine_encapsulate in batches of 64 and engine_receive per datagram:
 * header, padding, counter, index lookup, replay window, inner-length check).
 * Not a test: prints numbers, asserts nothing.
 *
 * Build and run (from the repository root):
 *   cc -O2 -std=gnu11 -Iinclude -Iinclude/base -Iinclude/tunnel -Itunnel \
 *      bench/tunnel_crypto.c \
 *      tunnel/{aead,aead_ossl,aead_host,negotiate,replay,tai64n,timers,ratelimit,key,noise,cookie,\
 *      index_table,tunnel_engine,tunnel_engine_tx,tunnel_engine_rx}.c src/base/log.c \
 *      $(pkg-config --cflags --libs libsodium libcrypto) -lpthread -o /tmp/tunnel_crypto
 *   /tmp/tunnel_crypto [seconds per line, default 1]
 */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "aead.h"
#include "bytes.h"
#include "clock.h"
#include "tunnel_engine.h"
#include "key.h"

#define PKT   1420
#define BATCH 64
#define SLOT  2048

/*
 * Durations are this thread's CPU time, not wall time: the machine is shared,
 * and CPU time is what "per core" means. Loop ends use the same clock.
 */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static double gbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 8 / (double)ns : 0;
}

static void bench_oneshot(enum aead_cipher c, double secs)
{
	static uint8_t m[PKT], out[PKT + 16], ad[16];
	uint8_t key[32], nonce[12] = { 0 };
	uint64_t start = cpu_ns(), end = start + (uint64_t)(secs * 1e9), n = 0, now;
	unsigned long long olen;

	randombytes_buf(key, sizeof(key));
	do {
		for (int i = 0; i < 64; i++, n++) {
			put_le64(nonce + 4, n);
			if (c == AEAD_AES256GCM)
				crypto_aead_aes256gcm_encrypt(out, &olen, m, PKT, ad, 16, NULL,
							      nonce, key);
			else
				crypto_aead_chacha20poly1305_ietf_encrypt(out, &olen, m, PKT, ad,
									  16, NULL, nonce, key);
		}
		now = cpu_ns();
	} while (now < end);
	printf("%-17s libsodium one-shot seal   %6.2f Gbit/s  %7.0f kpps\n", aead_cipher_name(c),
	       gbps(n * PKT, now - start), (double)n * 1e6 / (double)(now - start));
}

static void bench_aead(enum aead_cipher c, enum aead_impl impl, double secs)
{
	struct aead_key *k = sodium_malloc(sizeof(*k));
	static uint8_t buf[PKT + 16], ad[16];
	uint8_t key[32];
	uint64_t start, end, n = 0, now, sealed_ns;
	int bad = 0;

	randombytes_buf(key, sizeof(key));
	if (aead_key_init(k, c, impl, key) < 0) {
		printf("%-17s %-9s not here\n", aead_cipher_name(c), aead_impl_name(impl));
		aead_key_wipe(k);
		sodium_free(k);
		return;
	}
	start = cpu_ns();
	end = start + (uint64_t)(secs * 1e9);
	do {
		for (int i = 0; i < 64; i++, n++)
			aead_seal(k, n, ad, 16, buf, PKT, buf + PKT);
		now = cpu_ns();
	} while (now < end);
	sealed_ns = now - start;
	printf("%-17s aead_seal %-9s       %6.2f Gbit/s  %7.0f kpps\n", aead_cipher_name(c),
	       aead_impl_name(impl), gbps(n * PKT, sealed_ns), (double)n * 1e6 / (double)sealed_ns);
	/* Open: seal one, open it repeatedly (same cost, restore the ciphertext). */
	{
		static uint8_t ct[PKT + 16];

		aead_seal(k, 1, ad, 16, buf, PKT, buf + PKT);
		memcpy(ct, buf, sizeof(ct));
		n = 0;
		start = cpu_ns();
		end = start + (uint64_t)(secs * 1e9);
		do {
			for (int i = 0; i < 64; i++, n++) {
				memcpy(buf, ct, PKT);
				bad |= aead_open(k, 1, ad, 16, buf, PKT, ct + PKT);
			}
			now = cpu_ns();
		} while (now < end);
		printf("%-17s aead_open %-9s       %6.2f Gbit/s  %7.0f kpps%s\n",
		       aead_cipher_name(c), aead_impl_name(impl), gbps(n * PKT, now - start),
		       (double)n * 1e6 / (double)(now - start), bad ? "  (OPEN FAILED)" : "");
	}
	aead_key_wipe(k);
	sodium_free(k);
}

/* Two engines in one process, a handshake, then sealed batches and opened datagrams. */
static void bench_engine(enum aead_cipher c, const struct aead_host *host, double secs)
{
	uint8_t pa[32], pb[32], puba[32], pubb[32];
	struct cipher_list cl = { .n = 1, .c = { c } };
	struct engine_config ca = { .private_key = pa, .ciphers = cl, .host = host, .mtu = PKT };
	struct engine_config cb = { .private_key = pb, .ciphers = cl, .host = host, .mtu = PKT };
	struct engine *a, *b;
	struct engine_peer *ab, *ba;
	struct engine_result res;
	struct engine_pkt pkts[BATCH], p;
	static uint8_t slots[BATCH][SLOT], tmp[SLOT];
	struct sockaddr_in src = { .sin_family = AF_INET };
	uint64_t seal_ns = 0, open_ns = 0, n = 0, dropped = 0, t0, t1, t2, stop;

	key_generate(pa);
	key_generate(pb);
	if (engine_new(&ca, &a) || engine_new(&cb, &b))
		exit(1);
	engine_public_key(a, puba);
	engine_public_key(b, pubb);
	if (engine_peer_add(a, &(struct engine_peer_config){ .public_key = pubb }, &ab) ||
	    engine_peer_add(b, &(struct engine_peer_config){ .public_key = puba }, &ba))
		exit(1);
	t0 = clock_now_ns();
	engine_initiate(ab, t0, &res);
	memcpy(tmp, res.ctrl, res.ctrl_len);
	p = (struct engine_pkt){ .buf = tmp, .len = res.ctrl_len, .cap = SLOT };
	engine_receive(b, &p, (struct sockaddr *)&src, sizeof(src), t0, &res);
	memcpy(tmp, res.ctrl, res.ctrl_len);
	p = (struct engine_pkt){ .buf = tmp, .len = res.ctrl_len, .cap = SLOT };
	engine_receive(a, &p, (struct sockaddr *)&src, sizeof(src), t0, &res);
	memcpy(tmp, res.ctrl, res.ctrl_len); /* keepalive confirms b's side */
	p = (struct engine_pkt){ .buf = tmp, .len = res.ctrl_len, .cap = SLOT };
	engine_receive(b, &p, (struct sockaddr *)&src, sizeof(src), t0, &res);

	stop = cpu_ns() + (uint64_t)(2 * secs * 1e9);
	while (cpu_ns() < stop) {
		for (int i = 0; i < BATCH; i++) {
			pkts[i] = (struct engine_pkt){ .buf = slots[i], .len = PKT, .cap = SLOT };
			slots[i][16] = 0x45;
			put_be16(slots[i] + 18, PKT);
		}
		uint64_t wall = clock_now_ns();

		t0 = cpu_ns();
		if (engine_encapsulate(ab, pkts, BATCH, wall, &res) != BATCH)
			exit(1);
		t1 = cpu_ns();
		for (int i = 0; i < BATCH; i++) {
			p = pkts[i];
			if (engine_receive(b, &p, (struct sockaddr *)&src, sizeof(src), wall,
					   &res) != ENGINE_TO_TUNNEL)
				dropped++;
		}
		t2 = cpu_ns();
		seal_ns += t1 - t0;
		open_ns += t2 - t1;
		n += BATCH;
	}
	printf("%-17s engine_encapsulate x%-3d   %6.2f Gbit/s  %7.0f kpps  (%s)\n",
	       aead_cipher_name(c), BATCH, gbps(n * PKT, seal_ns),
	       (double)n * 1e6 / (double)seal_ns, aead_impl_name(host->impl[c]));
	printf("%-17s engine_receive            %6.2f Gbit/s  %7.0f kpps%s\n", aead_cipher_name(c),
	       gbps(n * PKT, open_ns), (double)n * 1e6 / (double)open_ns,
	       dropped ? "  (DROPS!)" : "");
	engine_free(a);
	engine_free(b);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	struct aead_host host;

	if (sodium_init() < 0 || aead_host_measure(&host) < 0)
		return 1;
	printf("start-up measurement (seal+open, Gbit/s): aes256gcm libsodium %.2f openssl %.2f, "
	       "chacha20poly1305 libsodium %.2f openssl %.2f; offer order %s,%s\n",
	       host.gbps[AEAD_AES256GCM][AEAD_IMPL_LIBSODIUM],
	       host.gbps[AEAD_AES256GCM][AEAD_IMPL_OPENSSL],
	       host.gbps[AEAD_CHACHA20POLY1305][AEAD_IMPL_LIBSODIUM],
	       host.gbps[AEAD_CHACHA20POLY1305][AEAD_IMPL_OPENSSL],
	       aead_cipher_name(host.order.c[0]),
	       host.order.n > 1 ? aead_cipher_name(host.order.c[1]) : "-");
	printf("1420-byte packets, per core (thread CPU time), %.1f s per line, plaintext Gbit/s\n",
	       secs);
	for (int c = AEAD_AES256GCM; c <= AEAD_CHACHA20POLY1305; c++) {
		if (c != AEAD_AES256GCM || aead_aes_available())
			bench_oneshot((enum aead_cipher)c, secs);
		bench_aead((enum aead_cipher)c, AEAD_IMPL_LIBSODIUM, secs);
		bench_aead((enum aead_cipher)c, AEAD_IMPL_OPENSSL, secs);
		bench_engine((enum aead_cipher)c, &host, secs);
	}
	return 0;
}
