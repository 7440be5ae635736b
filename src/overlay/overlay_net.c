// SPDX-License-Identifier: MIT
/*
 * Overlay subnets: the defaults, parsing a user's choice, each end's
 * address, and the check that no route of the host already covers them (a
 * TUN address there would steal or lose that traffic). Addresses stay in
 * the benchmarking ranges, RFC 2544 (198.18.0.0/15) and RFC 5180
 * (2001:2::/48).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overlay.h"

#define DEFAULT_V4_LEN 24
#define DEFAULT_V6_LEN 64

void overlay_net_default(unsigned slot, struct proto_overlay_nets *nets)
{
	memset(nets, 0, sizeof(*nets));
	slot %= OVERLAY_MAX_SLOTS;
	nets->v4_len = DEFAULT_V4_LEN;
	nets->v6_len = DEFAULT_V6_LEN;
	nets->v4[0] = 198; /* 198.19.(128 + slot).0/24 */
	nets->v4[1] = 19;
	nets->v4[2] = (uint8_t)(128 + slot);
	nets->v6[0] = 0x20; /* 2001:2:0:(80 + slot)::/64 */
	nets->v6[1] = 0x01;
	nets->v6[3] = 0x02;
	nets->v6[7] = (uint8_t)(0x80 + slot);
}

bool overlay_prefix_overlap(int family, const uint8_t *a, unsigned alen, const uint8_t *b,
			    unsigned blen)
{
	unsigned bits = alen < blen ? alen : blen, max = family == AF_INET ? 32 : 128;

	if (bits > max)
		bits = max;
	for (unsigned i = 0; i < bits / 8; i++)
		if (a[i] != b[i])
			return false;
	if (bits % 8) {
		uint8_t m = (uint8_t)(0xff << (8 - bits % 8));

		return (a[bits / 8] & m) == (b[bits / 8] & m);
	}
	return true;
}

static bool in_bench_range(int family, const uint8_t *a, unsigned len)
{
	static const uint8_t v4[4] = { 198, 18, 0, 0 };
	static const uint8_t v6[16] = { 0x20, 0x01, 0x00, 0x02 };

	if (family == AF_INET)
		return len >= 15 && overlay_prefix_overlap(AF_INET, a, 15, v4, 15);
	return len >= 48 && overlay_prefix_overlap(AF_INET6, a, 48, v6, 48);
}

/* The host bits of a subnet must be clear, and the subnet hold hosts 1 and 2. */
static bool host_bits_clear(const uint8_t *a, unsigned len, unsigned bytes)
{
	for (unsigned bit = len; bit < bytes * 8; bit++)
		if (a[bit / 8] & (0x80 >> (bit % 8)))
			return false;
	return true;
}

static bool parse_one(const char *item, struct proto_overlay_nets *nets, char *why, size_t wl)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *slash = strchr(item, '/');
	uint8_t a[16] = { 0 };
	size_t hl = slash ? (size_t)(slash - item) : 0;
	char *end;
	long len;

	if (!slash || hl == 0 || hl >= sizeof(host)) {
		snprintf(why, wl, "'%s' is not a subnet (e.g. 198.19.210.0/24)", item);
		return false;
	}
	memcpy(host, item, hl);
	host[hl] = '\0';
	len = strtol(slash + 1, &end, 10);
	if (*end || end == slash + 1) {
		snprintf(why, wl, "'%s': the prefix length is not a number", item);
		return false;
	}
	if (inet_pton(AF_INET, host, a) == 1) {
		if (len < 8 || len > 30 || !host_bits_clear(a, (unsigned)len, 4) ||
		    !in_bench_range(AF_INET, a, (unsigned)len)) {
			snprintf(why, wl,
				 "'%s': an IPv4 overlay subnet is /8../30 inside "
				 "198.18.0.0/15 with its host bits clear",
				 item);
			return false;
		}
		nets->v4_len = (uint8_t)len;
		memcpy(nets->v4, a, 4);
		return true;
	}
	if (inet_pton(AF_INET6, host, a) == 1) {
		if (len < 64 || len > 126 || !host_bits_clear(a, (unsigned)len, 16) ||
		    !in_bench_range(AF_INET6, a, (unsigned)len)) {
			snprintf(why, wl,
				 "'%s': an IPv6 overlay subnet is /64../126 inside "
				 "2001:2::/48 with its host bits clear",
				 item);
			return false;
		}
		nets->v6_len = (uint8_t)len;
		memcpy(nets->v6, a, 16);
		return true;
	}
	snprintf(why, wl, "'%s' is not an IPv4 or IPv6 subnet", item);
	return false;
}

bool overlay_net_parse(const char *s, struct proto_overlay_nets *nets, char *why, size_t wl)
{
	char buf[256], *save = NULL, *tok;

	memset(nets, 0, sizeof(*nets));
	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf)) {
		snprintf(why, wl, "overlay subnets: too long");
		return false;
	}
	for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save))
		if (!parse_one(tok, nets, why, wl))
			return false;
	if (!nets->v4_len && !nets->v6_len) {
		snprintf(why, wl,
			 "overlay subnets: none given (e.g. 198.19.210.0/24, "
			 "2001:2:0:fa::/64)");
		return false;
	}
	return true;
}

void overlay_net_hosts(const struct proto_overlay_nets *nets, struct proto_overlay_accept *acc)
{
	acc->v4_len = nets->v4_len;
	acc->v6_len = nets->v6_len;
	memcpy(acc->server_v4, nets->v4, 4);
	memcpy(acc->client_v4, nets->v4, 4);
	memcpy(acc->server_v6, nets->v6, 16);
	memcpy(acc->client_v6, nets->v6, 16);
	acc->server_v4[3] |= 1;
	acc->client_v4[3] |= 2;
	acc->server_v6[15] |= 1;
	acc->client_v6[15] |= 2;
}

static void clear_host_bits(uint8_t *a, unsigned len, unsigned bytes)
{
	for (unsigned bit = len; bit < bytes * 8; bit++)
		a[bit / 8] &= (uint8_t) ~(0x80 >> (bit % 8));
}

void overlay_net_of(const struct proto_overlay_accept *acc, struct proto_overlay_nets *nets)
{
	memset(nets, 0, sizeof(*nets));
	nets->v4_len = acc->v4_len;
	nets->v6_len = acc->v6_len;
	memcpy(nets->v4, acc->server_v4, 4);
	memcpy(nets->v6, acc->server_v6, 16);
	clear_host_bits(nets->v4, nets->v4_len, 4);
	clear_host_bits(nets->v6, nets->v6_len, 16);
}

const struct overlay_route *overlay_net_collision(const struct proto_overlay_nets *nets,
						  const struct overlay_route *routes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct overlay_route *r = &routes[i];

		if (r->len == 0)
			continue; /* a default route covers everything: no collision */
		if (r->family == AF_INET && nets->v4_len &&
		    overlay_prefix_overlap(AF_INET, r->dst, r->len, nets->v4, nets->v4_len))
			return r;
		if (r->family == AF_INET6 && nets->v6_len &&
		    overlay_prefix_overlap(AF_INET6, r->dst, r->len, nets->v6, nets->v6_len))
			return r;
	}
	return NULL;
}

static void format_nets(const struct proto_overlay_nets *nets, const struct overlay_route *r,
			char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (r->family == AF_INET)
		inet_ntop(AF_INET, nets->v4, a, sizeof(a));
	else
		inet_ntop(AF_INET6, nets->v6, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, r->family == AF_INET ? nets->v4_len : nets->v6_len);
}

int overlay_net_check_host(const struct proto_overlay_nets *nets, const char *host, char *why,
			   size_t wl)
{
	struct overlay_route *routes = NULL;
	const struct overlay_route *hit;
	size_t n = 0;
	char subnet[64];
	int r = overlay_routes_read(&routes, &n);

	if (r < 0) {
		snprintf(why, wl, "cannot read this host's routes: %s", strerror(-r));
		return r;
	}
	hit = overlay_net_collision(nets, routes, n);
	if (hit) {
		format_nets(nets, hit, subnet, sizeof(subnet));
		snprintf(why, wl,
			 "overlay subnet %s collides with the route %s on %s; choose other "
			 "overlay subnets (overlay_subnets)",
			 subnet, hit->desc, host);
		r = -EADDRINUSE;
	}
	free(routes);
	return r;
}
