// SPDX-License-Identifier: MIT
/*
 * INI configuration of the tunnel. libinih does the tokenising; our reader
 * feeds it one line per call so that we always know the line number and the
 * section a key belongs to (several [peer] sections look the same to inih).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <netinet/in.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "codel.h"
#include "config.h"

enum section { SECT_NONE, SECT_INTERFACE, SECT_PEER, SECT_UNKNOWN };

struct parse {
	struct config *cfg;
	const char *name;
	char dir[PATH_MAX];
	char *err;
	size_t errlen;
	int rc;
	const char *buf;
	size_t len, pos;
	unsigned line;
	enum section sect;
	unsigned sect_line, iface_line;
	bool seen_interface;
	bool set_tso, set_coalesce, set_udp_gso, set_udp_gro,
		set_uso; /* else they follow 'offload' */
};

static void perr(struct parse *p, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void perr(struct parse *p, const char *key, const char *fmt, ...)
{
	char msg[CONFIG_ERR_LEN];
	va_list ap;

	if (p->rc)
		return; /* keep the first error */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (key)
		snprintf(p->err, p->errlen, "%s:%u: key '%s': %s", p->name, p->line, key, msg);
	else
		snprintf(p->err, p->errlen, "%s:%u: %s", p->name, p->line, msg);
	p->rc = -EINVAL;
}

static bool parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

static bool parse_addr(const char *s, int *family, uint8_t addr[16])
{
	if (inet_pton(AF_INET, s, addr) == 1) {
		*family = AF_INET;
		return true;
	}
	if (inet_pton(AF_INET6, s, addr) == 1) {
		*family = AF_INET6;
		return true;
	}
	return false;
}

bool config_parse_prefix(const char *s, struct config_prefix *p)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *slash = strchr(s, '/');
	size_t hl = slash ? (size_t)(slash - s) : strlen(s);
	uint32_t cidr;

	if (hl == 0 || hl >= sizeof(host))
		return false;
	memcpy(host, s, hl);
	host[hl] = '\0';
	memset(p, 0, sizeof(*p));
	if (!parse_addr(host, &p->family, p->addr))
		return false;
	cidr = p->family == AF_INET ? 32 : 128;
	if (slash && !parse_u32(slash + 1, 0, cidr, &cidr))
		return false;
	p->cidr = (uint8_t)cidr;
	return true;
}

static void prefix_mask(struct config_prefix *p)
{
	unsigned bytes = p->family == AF_INET ? 4 : 16;

	for (unsigned i = 0; i < bytes; i++) {
		unsigned bit = i * 8;

		if (bit >= p->cidr)
			p->addr[i] = 0;
		else if (p->cidr - bit < 8)
			p->addr[i] &= (uint8_t)(0xff << (8 - (p->cidr - bit)));
	}
}

static bool parse_port(const char *s, uint16_t *port)
{
	uint32_t v;

	if (!parse_u32(s, 1, 65535, &v))
		return false;
	*port = (uint16_t)v;
	return true;
}

bool config_parse_endpoint(const char *s, struct sockaddr_storage *ss)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *colon, *hs = s;
	size_t hl;
	uint16_t port;

	memset(ss, 0, sizeof(*ss));
	if (*s == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return false;
		hs = s + 1;
		hl = (size_t)(close - hs);
		colon = close + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon || strchr(s, ':') != colon)
			return false; /* IPv6 needs brackets */
		hl = (size_t)(colon - s);
	}
	if (hl == 0 || hl >= sizeof(host) || !parse_port(colon + 1, &port))
		return false;
	memcpy(host, hs, hl);
	host[hl] = '\0';
	if (*s != '[') {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
			return false;
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1)
			return false;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
	}
	return true;
}

int config_format_endpoint(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];
	int n;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
		n = snprintf(buf, len, "%s:%u", host, ntohs(sin->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host));
		n = snprintf(buf, len, "[%s]:%u", host, ntohs(sin6->sin6_port));
	} else {
		n = snprintf(buf, len, "(none)");
	}
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/* A listen value: "addr:port", "[v6]:port" or a bare port (all addresses). */
static bool parse_listen(const char *s, struct sockaddr_storage *ss)
{
	uint16_t port;

	if (parse_port(s, &port)) {
		memset(ss, 0, sizeof(*ss));
		ss->ss_family = AF_UNSPEC;
		((struct sockaddr_in *)ss)->sin_port = htons(port);
		return true;
	}
	return config_parse_endpoint(s, ss);
}

/* "auto" or a list of up to three cipher names, any case. */
static void parse_ciphers(struct parse *p, const char *key, const char *val,
			  struct cipher_list *out)
{
	char low[128];
	const char *bad = NULL;
	size_t n = strlen(val);

	if (n >= sizeof(low)) {
		perr(p, key, "'%s' is too long for a cipher list", val);
		return;
	}
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)tolower((unsigned char)val[i]);
	if (!negotiate_list_parse(low, out, &bad))
		perr(p, key,
		     "'%s': at '%s': expected auto, or a comma list of aes256gcm and "
		     "chacha20poly1305 without repeats",
		     val, val + (bad - low));
}

static void resolve_path(struct parse *p, const char *key, const char *val, char out[PATH_MAX])
{
	int n;

	if (!*val) {
		perr(p, key, "empty path");
		return;
	}
	if (val[0] == '/' || !p->dir[0])
		n = snprintf(out, PATH_MAX, "%s", val);
	else
		n = snprintf(out, PATH_MAX, "%s/%s", p->dir, val);
	if (n < 0 || n >= PATH_MAX)
		perr(p, key, "path too long");
}

/* Calls fn for each comma-separated, blank-trimmed item of val. */
static void for_each_item(struct parse *p, const char *key, const char *val,
			  void (*fn)(struct parse *, const char *, const char *))
{
	char item[128];
	const char *s = val;

	while (!p->rc) {
		const char *comma = strchr(s, ',');
		size_t n = comma ? (size_t)(comma - s) : strlen(s);

		while (n && (*s == ' ' || *s == '\t')) {
			s++;
			n--;
		}
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		if (n == 0 || n >= sizeof(item)) {
			perr(p, key, n ? "item too long" : "empty item in list");
			return;
		}
		memcpy(item, s, n);
		item[n] = '\0';
		fn(p, key, item);
		if (!comma)
			return;
		s = comma + 1;
	}
}

static void add_address(struct parse *p, const char *key, const char *item)
{
	struct config *cfg = p->cfg;
	struct config_prefix pf;

	if (!config_parse_prefix(item, &pf) || !strchr(item, '/')) {
		perr(p, key, "'%s' is not an address/prefix (e.g. 198.19.0.1/24)", item);
		return;
	}
	if (cfg->naddresses >= CONFIG_MAX_ADDRESSES) {
		perr(p, key, "more than %d addresses", CONFIG_MAX_ADDRESSES);
		return;
	}
	cfg->addresses[cfg->naddresses++] = pf;
}

static void add_allowed(struct parse *p, const char *key, const char *item)
{
	struct config *cfg = p->cfg;
	struct config_prefix pf, *grown;

	if (!config_parse_prefix(item, &pf)) {
		perr(p, key, "'%s' is not a prefix (e.g. 198.19.0.2/32)", item);
		return;
	}
	if (cfg->nallowed >= CONFIG_MAX_ALLOWED) {
		perr(p, key, "more than %d allowed prefixes", CONFIG_MAX_ALLOWED);
		return;
	}
	prefix_mask(&pf);
	grown = realloc(cfg->allowed, (cfg->nallowed + 1) * sizeof(*grown));
	if (!grown) {
		perr(p, key, "out of memory");
		p->rc = -ENOMEM;
		return;
	}
	cfg->allowed = grown;
	cfg->allowed[cfg->nallowed++] = pf;
	cfg->peers[cfg->npeers - 1].nallowed++;
}

static void parse_switch(struct parse *p, const char *name, const char *val, bool *out)
{
	if (!strcasecmp(val, "on") || !strcasecmp(val, "yes") || !strcmp(val, "1"))
		*out = true;
	else if (!strcasecmp(val, "off") || !strcasecmp(val, "no") || !strcmp(val, "0"))
		*out = false;
	else
		perr(p, name, "'%s' is not on or off", val);
}

static bool key_is(const char *name, const char *want)
{
	return !strcasecmp(name, want);
}

/* [interface]'s keys of the device and its addresses: its key, listen,
 * underlay_fd, address, mtu, max_mtu, cipher, name. Whether name was one. */
static bool interface_device_key(struct parse *p, const char *name, const char *val)
{
	struct config *cfg = p->cfg;
	uint32_t v;

	if (key_is(name, "private_key_file")) {
		resolve_path(p, name, val, cfg->private_key_file);
	} else if (key_is(name, "listen")) {
		if (!parse_listen(val, &cfg->listen))
			perr(p, name, "'%s' is not ADDRESS:PORT, [IPV6]:PORT or PORT", val);
		cfg->has_listen = true;
	} else if (key_is(name, "underlay_fd")) {
		if (!parse_u32(val, 3, CONFIG_MAX_UNDERLAY_FD, &v))
			perr(p, name, "'%s' is not a descriptor number in 3..%d", val,
			     CONFIG_MAX_UNDERLAY_FD);
		else
			cfg->underlay_fd = (int)v;
		cfg->underlay_fd_line = p->line;
	} else if (key_is(name, "address")) {
		for_each_item(p, name, val, add_address);
	} else if (key_is(name, "mtu")) {
		if (!parse_u32(val, CONFIG_MIN_MTU, CONFIG_MAX_MTU, &cfg->mtu))
			perr(p, name, "'%s' is not a number in %d..%d", val, CONFIG_MIN_MTU,
			     CONFIG_MAX_MTU);
	} else if (key_is(name, "max_mtu")) {
		if (!parse_u32(val, CONFIG_MIN_MTU, CONFIG_MAX_MTU, &cfg->max_mtu))
			perr(p, name, "'%s' is not a number in %d..%d", val, CONFIG_MIN_MTU,
			     CONFIG_MAX_MTU);
	} else if (key_is(name, "cipher")) {
		parse_ciphers(p, name, val, &cfg->ciphers);
	} else if (key_is(name, "name")) {
		size_t n = strlen(val);

		if (n == 0 || n >= IFNAMSIZ || strchr(val, '/') || strchr(val, ' '))
			perr(p, name, "'%s' is not an interface name (1..%d characters)", val,
			     IFNAMSIZ - 1);
		else
			memcpy(cfg->ifname, val, n + 1);
	} else {
		return false;
	}
	return true;
}

/* [interface]'s offload switches: offload, tso, coalesce, udp_gso, uso,
 * udp_gro (each one set is remembered: docs/tunnel.md, their defaults
 * follow offload). Whether name was one. */
static bool interface_offload_key(struct parse *p, const char *name, const char *val)
{
	struct config *cfg = p->cfg;

	if (key_is(name, "offload")) {
		parse_switch(p, name, val, &cfg->offload);
	} else if (key_is(name, "tso")) {
		parse_switch(p, name, val, &cfg->tso);
		p->set_tso = true;
	} else if (key_is(name, "coalesce")) {
		parse_switch(p, name, val, &cfg->coalesce);
		p->set_coalesce = true;
	} else if (key_is(name, "udp_gso")) {
		parse_switch(p, name, val, &cfg->udp_gso);
		p->set_udp_gso = true;
	} else if (key_is(name, "uso")) {
		parse_switch(p, name, val, &cfg->uso);
		p->set_uso = true;
	} else if (key_is(name, "udp_gro")) {
		parse_switch(p, name, val, &cfg->udp_gro);
		p->set_udp_gro = true;
	} else {
		return false;
	}
	return true;
}

/* [interface]'s keys of the data path: socket_buffer, sandbox,
 * txqueuelen, the queue's target, interval and limit, batch, workers,
 * worker_ports, pin_workers.
 * Whether name was one. */
static bool interface_datapath_key(struct parse *p, const char *name, const char *val)
{
	struct config *cfg = p->cfg;
	uint32_t v;

	if (key_is(name, "socket_buffer")) {
		if (!parse_u32(val, 65536, 1U << 30, &cfg->sock_buf))
			perr(p, name, "'%s' is not a byte count in 65536..1073741824", val);
	} else if (key_is(name, "sandbox")) {
		bool on = !cfg->sandbox_off;

		parse_switch(p, name, val, &on);
		cfg->sandbox_off = !on;
	} else if (key_is(name, "txqueuelen")) {
		if (!parse_u32(val, 16, 100000, &cfg->txqueuelen))
			perr(p, name, "'%s' is not a number in 16..100000", val);
	} else if (key_is(name, "queue_target_us")) {
		if (!parse_u32(val, 0, 1000000, &cfg->queue_target_us))
			perr(p, name, "'%s' is not a time in us in 0..1000000 (0: off)", val);
	} else if (key_is(name, "queue_interval_us")) {
		if (!parse_u32(val, 1000, 10000000, &cfg->queue_interval_us))
			perr(p, name, "'%s' is not a time in us in 1000..10000000", val);
	} else if (key_is(name, "queue_limit_us")) {
		if (!parse_u32(val, 0, 10000000, &cfg->queue_limit_us))
			perr(p, name, "'%s' is not a time in us in 0..10000000 (0: off)", val);
	} else if (key_is(name, "batch")) {
		if (!parse_u32(val, 1, CONFIG_MAX_BATCH, &v))
			perr(p, name, "'%s' is not a number in 1..%d", val, CONFIG_MAX_BATCH);
		else
			cfg->batch = v;
	} else if (key_is(name, "workers")) {
		if (!parse_u32(val, 1, CONFIG_MAX_WORKERS, &v))
			perr(p, name, "'%s' is not a number in 1..%d", val, CONFIG_MAX_WORKERS);
		else
			cfg->workers = v;
	} else if (key_is(name, "worker_ports")) {
		parse_switch(p, name, val, &cfg->worker_ports);
	} else if (key_is(name, "pin_workers")) {
		parse_switch(p, name, val, &cfg->pin_workers);
	} else {
		return false;
	}
	return true;
}

static void interface_key(struct parse *p, const char *name, const char *val)
{
	if (!interface_device_key(p, name, val) && !interface_offload_key(p, name, val) &&
	    !interface_datapath_key(p, name, val))
		perr(p, name, "unknown key in [interface]");
}

static void peer_key(struct parse *p, const char *name, const char *val)
{
	struct config_peer *peer = &p->cfg->peers[p->cfg->npeers - 1];
	uint32_t v;

	if (key_is(name, "public_key")) {
		size_t n = 0;

		if (sodium_base642bin(peer->public_key, sizeof(peer->public_key), val, strlen(val),
				      " \t", &n, NULL, sodium_base64_VARIANT_ORIGINAL) ||
		    n != CONFIG_KEY_LEN)
			perr(p, name, "not a base64 32-byte key");
		else
			peer->has_public_key = true;
	} else if (key_is(name, "endpoint")) {
		if (!config_parse_endpoint(val, &peer->endpoint))
			perr(p, name, "'%s' is not ADDRESS:PORT or [IPV6]:PORT", val);
		peer->has_endpoint = true;
	} else if (key_is(name, "allowed_ips")) {
		for_each_item(p, name, val, add_allowed);
	} else if (key_is(name, "preshared_key_file")) {
		resolve_path(p, name, val, peer->psk_file);
	} else if (key_is(name, "persistent_keepalive")) {
		if (!parse_u32(val, 0, 65535, &v))
			perr(p, name, "'%s' is not seconds in 0..65535", val);
		else
			peer->keepalive_s = v;
	} else {
		perr(p, name, "unknown key in [peer]");
	}
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;

	(void)section; /* the reader tracks sections, including empty ones */
	if (p->rc)
		return 0;
	if (!name || !value)
		return 1;
	switch (p->sect) {
	case SECT_INTERFACE:
		interface_key(p, name, value);
		break;
	case SECT_PEER:
		peer_key(p, name, value);
		break;
	default:
		perr(p, name, "key outside of an [interface] or [peer] section");
	}
	return p->rc ? 0 : 1;
}

static void begin_section(struct parse *p, const char *line)
{
	struct config *cfg = p->cfg;
	const char *s = line + 1;
	const char *close = strchr(s, ']');
	size_t n = close ? (size_t)(close - s) : 0;

	p->sect_line = p->line;
	if (n == 9 && !strncasecmp(s, "interface", 9)) {
		if (p->seen_interface)
			perr(p, NULL, "second [interface] section");
		p->seen_interface = true;
		p->iface_line = p->line;
		p->sect = SECT_INTERFACE;
	} else if (n == 4 && !strncasecmp(s, "peer", 4)) {
		struct config_peer *grown;

		if (cfg->npeers >= CONFIG_MAX_PEERS) {
			perr(p, NULL, "more than %d [peer] sections", CONFIG_MAX_PEERS);
			return;
		}
		grown = realloc(cfg->peers, (cfg->npeers + 1) * sizeof(*grown));
		if (!grown) {
			perr(p, NULL, "out of memory");
			p->rc = -ENOMEM;
			return;
		}
		cfg->peers = grown;
		memset(&cfg->peers[cfg->npeers], 0, sizeof(*grown));
		cfg->peers[cfg->npeers].line = p->line;
		cfg->peers[cfg->npeers].first_allowed = cfg->nallowed;
		cfg->npeers++;
		p->sect = SECT_PEER;
	} else if (close) {
		perr(p, NULL, "unknown section '[%.*s]' (expected [interface] or [peer])",
		     (int)(n > 40 ? 40 : n), s);
		p->sect = SECT_UNKNOWN;
	}
}

/* inih's reader: exactly one line per call, so inih's line numbers and ours agree. */
static char *reader(char *str, int num, void *stream)
{
	struct parse *p = stream;
	size_t n = 0, max = num > 1 ? (size_t)num - 2 : 0;
	size_t i = p->pos;
	const char *s;

	if (p->pos >= p->len)
		return NULL;
	p->line++;
	while (i < p->len && p->buf[i] != '\n')
		i++;
	n = i - p->pos;
	s = p->buf + p->pos;
	p->pos = i < p->len ? i + 1 : i;
	if (memchr(s, '\0', n)) {
		perr(p, NULL, "NUL byte in line");
		n = 0;
	} else if (n > max) {
		perr(p, NULL, "line longer than %zu characters (split lists over repeated keys)",
		     max);
		n = 0;
	}
	memcpy(str, s, n);
	str[n] = '\n';
	str[n + 1] = '\0';
	/* Look at the terminated copy: the input buffer has no NUL at its end. */
	s = str;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '[' && !p->rc)
		begin_section(p, s);
	return str;
}

static void check_peer(struct parse *p, struct config_peer *peer, size_t idx)
{
	struct config *cfg = p->cfg;

	p->line = peer->line;
	if (!peer->has_public_key)
		perr(p, "public_key", "missing in this [peer] section");
	else if (peer->nallowed == 0)
		perr(p, "allowed_ips", "missing in this [peer] section (nothing would be routed)");
	for (size_t j = 0; j < idx && !p->rc; j++)
		if (!sodium_memcmp(cfg->peers[j].public_key, peer->public_key, CONFIG_KEY_LEN))
			perr(p, "public_key", "same key as the [peer] at line %u",
			     cfg->peers[j].line);
}

static void check_config(struct parse *p)
{
	struct config *cfg = p->cfg;

	if (p->rc)
		return;
	if (!p->seen_interface) {
		p->line = 1;
		perr(p, NULL, "no [interface] section");
		return;
	}
	p->line = p->iface_line;
	if (!cfg->private_key_file[0])
		perr(p, "private_key_file", "missing in [interface]");
	else if (!cfg->naddresses)
		perr(p, "address", "missing in [interface]");
	else if (!cfg->npeers)
		perr(p, NULL, "no [peer] section");
	else if (cfg->underlay_fd >= 0 && cfg->has_listen)
		perr(p, "underlay_fd", "excludes 'listen' (the inherited socket is bound already)");
	for (size_t i = 0; i < cfg->npeers && !p->rc; i++)
		check_peer(p, &cfg->peers[i], i);
}

int config_parse(const char *name, const char *text, size_t len, struct config *cfg, char *err,
		 size_t errlen)
{
	struct parse p = {
		.cfg = cfg, .name = name, .err = err, .errlen = errlen, .buf = text, .len = len
	};
	const char *slash = strrchr(name, '/');
	int r;

	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->path, sizeof(cfg->path), "%s", name);
	cfg->sock_buf = CONFIG_DEFAULT_SOCKBUF;
	cfg->batch = CONFIG_DEFAULT_BATCH;
	cfg->workers = CONFIG_DEFAULT_WORKERS;
	cfg->worker_ports = true;
	cfg->pin_workers = true;
	cfg->txqueuelen = CONFIG_DEFAULT_TXQUEUELEN;
	cfg->queue_target_us = CODEL_DEFAULT_TARGET_NS / 1000;
	cfg->queue_interval_us = CODEL_DEFAULT_INTERVAL_NS / 1000;
	cfg->queue_limit_us = CODEL_DEFAULT_LIMIT_NS / 1000;
	cfg->offload = CONFIG_DEFAULT_OFFLOAD;
	cfg->underlay_fd = -1;
	if (slash && (size_t)(slash - name) < sizeof(p.dir))
		snprintf(p.dir, sizeof(p.dir), "%.*s", (int)(slash - name), name);
	if (err && errlen)
		err[0] = '\0';
	r = ini_parse_stream(reader, &p, handler, &p);
	/* Our first error wins; otherwise inih's own (a line it could not parse). */
	if (!p.rc && r > 0) {
		p.line = (unsigned)r;
		perr(&p, NULL, "syntax error (expected '[section]' or 'key = value')");
	} else if (!p.rc && r < 0) {
		p.line = 0;
		perr(&p, NULL, "cannot parse (out of memory)");
		p.rc = -ENOMEM;
	}
	if (!p.set_tso)
		cfg->tso = cfg->offload;
	if (!p.set_coalesce)
		cfg->coalesce = cfg->offload;
	if (!p.set_udp_gso)
		cfg->udp_gso = cfg->offload;
	if (!p.set_udp_gro)
		cfg->udp_gro = cfg->offload;
	if (!p.set_uso)
		cfg->uso = cfg->offload;
	check_config(&p);
	return p.rc;
}

int config_load(const char *path, struct config *cfg, char *err, size_t errlen)
{
	FILE *f;
	char *text;
	size_t n;
	int r;

	memset(cfg, 0, sizeof(*cfg));
	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(-r));
		return r;
	}
	text = malloc(CONFIG_MAX_FILE + 1);
	if (!text) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	n = fread(text, 1, CONFIG_MAX_FILE + 1, f);
	if (ferror(f) || n > CONFIG_MAX_FILE) {
		snprintf(err, errlen, "%s: %s", path,
			 ferror(f) ? "read error" : "larger than 1 MiB");
		r = ferror(f) ? -EIO : -EFBIG;
	} else {
		r = config_parse(path, text, n, cfg, err, errlen);
	}
	fclose(f);
	free(text);
	return r;
}

void config_free(struct config *cfg)
{
	free(cfg->peers);
	free(cfg->allowed);
	cfg->peers = NULL;
	cfg->allowed = NULL;
	cfg->npeers = cfg->nallowed = 0;
}
