// SPDX-License-Identifier: MIT
/* The built-in overlay daemons' drop and traffic counters (see
 * load_tunnel.h). */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "load_tunnel.h"

#define TUNNEL_MAX_DEVS	   8
#define TUNNEL_REQUEST_MS  1000
#define TUNNEL_DROP_PREFIX "drop."

struct devs {
	unsigned n;
	char name[TUNNEL_MAX_DEVS][IFNAMSIZ];
};

static void add_dev(void *ctx, const char *ifname)
{
	struct devs *d = ctx;

	if (d->n < TUNNEL_MAX_DEVS && strlen(ifname) < IFNAMSIZ)
		snprintf(d->name[d->n++], IFNAMSIZ, "%s", ifname);
}

uint64_t load_tunnel_sum_drops(const char *reply, size_t len)
{
	const size_t plen = strlen(TUNNEL_DROP_PREFIX);
	const char *p = reply, *end = reply + len;
	uint64_t sum = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eq, *e = nl ? nl : end;

		eq = memchr(p, '=', (size_t)(e - p));
		if ((size_t)(e - p) > plen && memcmp(p, TUNNEL_DROP_PREFIX, plen) == 0 && eq) {
			uint64_t v = 0;
			const char *q = eq + 1;

			while (q < e && *q >= '0' && *q <= '9' && v <= (UINT64_MAX - 9) / 10)
				v = v * 10 + (uint64_t)(*q++ - '0');
			if (q == e && q > eq + 1)
				sum += v;
		}
		p = e + 1;
	}
	return sum;
}

/* The number after "KEY=" on a line of its own; false when absent. */
static bool line_value(const char *reply, size_t len, const char *key, uint64_t *v)
{
	size_t klen = strlen(key);

	for (const char *p = reply, *end = reply + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;

		if ((size_t)(e - p) > klen + 1 && memcmp(p, key, klen) == 0 && p[klen] == '=') {
			const char *q = p + klen + 1;
			uint64_t n = 0;

			while (q < e && *q >= '0' && *q <= '9' && n <= (UINT64_MAX - 9) / 10)
				n = n * 10 + (uint64_t)(*q++ - '0');
			if (q == e) {
				*v = n;
				return true;
			}
		}
		p = e + 1;
	}
	return false;
}

/* "endpoint=[2001:2::2]:51820" (IPv6) or "endpoint=198.18.0.2:51820". */
static unsigned endpoint_version(const char *reply, size_t len)
{
	static const char key[] = "\nendpoint=";
	const char *end = reply + len;

	for (const char *p = reply; p + sizeof(key) < end; p++) {
		if (memcmp(p, key, sizeof(key) - 1) != 0)
			continue;
		p += sizeof(key) - 1;
		if (*p == '[')
			return 6;
		if (*p >= '0' && *p <= '9')
			return 4;
	}
	return 0;
}

void load_tunnel_add_traffic(const char *reply, size_t len, struct load_tunnel_traffic *t)
{
	uint64_t v;
	unsigned ver = endpoint_version(reply, len);

	if (line_value(reply, len, "counter.udp_tx_datagrams", &v))
		t->tx_datagrams += v;
	if (line_value(reply, len, "counter.udp_tx_bytes", &v))
		t->tx_bytes += v;
	if (line_value(reply, len, "counter.udp_rx_datagrams", &v))
		t->rx_datagrams += v;
	if (line_value(reply, len, "counter.udp_rx_bytes", &v))
		t->rx_bytes += v;
	if (line_value(reply, len, "queue.rx_waiting_sockets", &v))
		t->rx_waiting += (unsigned)v;
	t->drops += load_tunnel_sum_drops(reply, len);
	if (ver && !t->ip_version)
		t->ip_version = ver;
}

bool load_tunnel_serves(const char *ifname)
{
	struct devs d = { 0 };

	if (!ifname[0] || control_list(0, add_dev, &d) < 0)
		return false;
	for (unsigned i = 0; i < d.n; i++)
		if (strcmp(d.name[i], ifname) == 0)
			return true;
	return false;
}

int load_tunnel_read(struct load_tunnel_traffic *t, unsigned *ndev)
{
	struct devs d = { 0 };
	char path[128], *reply;
	int r;

	*ndev = 0;
	memset(t, 0, sizeof(*t));
	r = control_list(0, add_dev, &d);
	if (r < 0 || d.n == 0)
		return r == -ENOENT ? 0 : r;
	reply = malloc(CONTROL_REPLY_MAX);
	if (!reply)
		return -ENOMEM;
	for (unsigned i = 0; i < d.n; i++) {
		ssize_t n;

		if (control_path(0, d.name[i], path, sizeof(path)) < 0)
			continue;
		n = control_request(path, "show", reply, CONTROL_REPLY_MAX, TUNNEL_REQUEST_MS);
		if (n < 0)
			continue;
		load_tunnel_add_traffic(reply, (size_t)n, t);
		(*ndev)++;
	}
	free(reply);
	return 0;
}
