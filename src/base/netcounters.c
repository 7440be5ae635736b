// SPDX-License-Identifier: MIT
/*
 * /proc/net/{snmp,snmp6,dev} parsers, deltas and loss attribution (see
 * netcounters.h). The parsers work on (text, len) that need not be
 * NUL-terminated and may hold anything: they are fuzzed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netcounters.h"

struct field {
	const char *name;
	size_t off;
};

#define UDP_F(n, m)                                                                                \
	{                                                                                          \
		n, offsetof(struct netcounters_udp, m)                                             \
	}
static const struct field udp_fields[] = {
	UDP_F("InDatagrams", in_datagrams),    UDP_F("NoPorts", no_ports),
	UDP_F("InErrors", in_errors),	       UDP_F("OutDatagrams", out_datagrams),
	UDP_F("RcvbufErrors", rcvbuf_errors),  UDP_F("SndbufErrors", sndbuf_errors),
	UDP_F("InCsumErrors", in_csum_errors),
};

#define IP_F(n, m)                                                                                 \
	{                                                                                          \
		n, offsetof(struct netcounters_ip, m)                                              \
	}
static const struct field ip_fields[] = {
	IP_F("ReasmReqds", reasm_reqds),    IP_F("ReasmOKs", reasm_oks),
	IP_F("ReasmFails", reasm_fails),    IP_F("FragOKs", frag_oks),
	IP_F("FragFails", frag_fails),	    IP_F("FragCreates", frag_creates),
	IP_F("OutNoRoutes", out_no_routes), IP_F("InDiscards", in_discards),
	IP_F("OutDiscards", out_discards),
};

#define NFIELDS(t) (sizeof(t) / sizeof((t)[0]))

/* ---- tokens -------------------------------------------------------------- */

struct span {
	const char *p;
	size_t n;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Next line of (text, len) from *pos, without its '\n'. */
static bool next_line(const char *text, size_t len, size_t *pos, struct span *line)
{
	const char *nl;

	if (*pos >= len)
		return false;
	line->p = text + *pos;
	nl = memchr(line->p, '\n', len - *pos);
	line->n = nl ? (size_t)(nl - line->p) : len - *pos;
	*pos += line->n + (nl ? 1 : 0);
	return true;
}

/* Next whitespace-separated token of *s, consuming it. */
static bool next_token(struct span *s, struct span *tok)
{
	while (s->n && is_space(*s->p)) {
		s->p++;
		s->n--;
	}
	if (s->n == 0)
		return false;
	tok->p = s->p;
	while (s->n && !is_space(*s->p)) {
		s->p++;
		s->n--;
	}
	tok->n = (size_t)(s->p - tok->p);
	return true;
}

static bool span_eq(struct span s, const char *str)
{
	size_t n = strlen(str);

	return s.n == n && memcmp(s.p, str, n) == 0;
}

/* Decimal digits only; 0, -EINVAL or -ERANGE. */
static int parse_u64(struct span s, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (s.n == 0)
		return -EINVAL;
	for (i = 0; i < s.n; i++) {
		unsigned d = (unsigned char)s.p[i] - '0';

		if (d > 9)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static const struct field *find_field(const struct field *f, size_t nf, struct span name)
{
	size_t i;

	for (i = 0; i < nf; i++)
		if (span_eq(name, f[i].name))
			return &f[i];
	return NULL;
}

/* Stores value text into the field of base named name, if there is one. */
static int store(void *base, const struct field *f, size_t nf, struct span name, struct span val)
{
	const struct field *fd = find_field(f, nf, name);
	uint64_t v;
	int ret;

	if (!fd)
		return 0; /* a field we do not need: any text (Tcp MaxConn is -1) */
	ret = parse_u64(val, &v);
	if (ret < 0)
		return ret;
	memcpy((char *)base + fd->off, &v, sizeof(v));
	return 0;
}

/* ---- /proc/net/snmp ------------------------------------------------------ */

/* "Udp:" -> span "Udp"; false when the line has no "Word:" prefix. */
static bool line_prefix(struct span line, struct span *prefix, struct span *rest)
{
	const char *colon = memchr(line.p, ':', line.n);

	if (!colon || colon == line.p)
		return false;
	prefix->p = line.p;
	prefix->n = (size_t)(colon - line.p);
	rest->p = colon + 1;
	rest->n = line.n - prefix->n - 1;
	return true;
}

/* Pairs a header line's names with a value line's numbers. */
static int parse_pair(struct span names, struct span vals, void *base, const struct field *f,
		      size_t nf)
{
	struct span n, v;
	int ret;

	for (;;) {
		bool hn = next_token(&names, &n), hv = next_token(&vals, &v);

		if (hn != hv)
			return -EINVAL; /* counts differ */
		if (!hn)
			return 0;
		ret = store(base, f, nf, n, v);
		if (ret < 0)
			return ret;
	}
}

int netcounters_parse_snmp(const char *text, size_t len, struct netcounters *nc)
{
	struct span line, prefix, rest, hdr_prefix = { NULL, 0 }, hdr_rest = { NULL, 0 };
	bool pending = false, any = false;
	size_t pos = 0;
	int ret;

	while (next_line(text, len, &pos, &line)) {
		if (line.n == 0)
			continue;
		if (!line_prefix(line, &prefix, &rest))
			return -EINVAL;
		if (!pending) {
			hdr_prefix = prefix;
			hdr_rest = rest;
			pending = true;
			continue;
		}
		if (prefix.n != hdr_prefix.n || memcmp(prefix.p, hdr_prefix.p, prefix.n) != 0)
			return -EINVAL; /* a header without its value line */
		pending = false;
		any = true;
		if (span_eq(prefix, "Udp")) {
			ret = parse_pair(hdr_rest, rest, &nc->udp, udp_fields, NFIELDS(udp_fields));
			nc->udp.valid = ret == 0;
		} else if (span_eq(prefix, "Ip")) {
			ret = parse_pair(hdr_rest, rest, &nc->ip, ip_fields, NFIELDS(ip_fields));
			nc->ip.valid = ret == 0;
		} else {
			ret = 0;
		}
		if (ret < 0)
			return ret;
	}
	return pending || !any ? -EINVAL : 0;
}

/* ---- /proc/net/snmp6 ------------------------------------------------------ */

/* If name starts with prefix, the rest goes to *tail. */
static bool strip_prefix(struct span name, const char *prefix, struct span *tail)
{
	size_t n = strlen(prefix);

	if (name.n <= n || memcmp(name.p, prefix, n) != 0)
		return false;
	tail->p = name.p + n;
	tail->n = name.n - n;
	return true;
}

int netcounters_parse_snmp6(const char *text, size_t len, struct netcounters *nc)
{
	struct span line, name, val, tail, extra;
	bool any = false;
	size_t pos = 0;
	int ret = 0;

	while (next_line(text, len, &pos, &line)) {
		if (!next_token(&line, &name))
			continue;
		if (!next_token(&line, &val) || next_token(&line, &extra))
			return -EINVAL; /* every line is "Name value" */
		any = true;
		if (strip_prefix(name, "Udp6", &tail)) {
			ret = store(&nc->udp6, udp_fields, NFIELDS(udp_fields), tail, val);
			nc->udp6.valid = true;
		} else if (strip_prefix(name, "Ip6", &tail)) {
			ret = store(&nc->ip6, ip_fields, NFIELDS(ip_fields), tail, val);
			nc->ip6.valid = true;
		}
		if (ret < 0)
			return ret;
	}
	return any ? 0 : -EINVAL;
}

/* ---- /proc/net/dev --------------------------------------------------------- */

static int parse_dev_line(struct span rest, struct netcounters_link *l)
{
	uint64_t *const f[] = {
		&l->rx_bytes, &l->rx_packets, &l->rx_errs,    &l->rx_drop,
		&l->rx_fifo,  &l->rx_frame,   NULL,	      NULL,
		&l->tx_bytes, &l->tx_packets, &l->tx_errs,    &l->tx_drop,
		&l->tx_fifo,  &l->tx_colls,   &l->tx_carrier, NULL,
	};
	struct span tok;
	uint64_t v;
	size_t i;
	int ret;

	for (i = 0; i < NFIELDS(f); i++) {
		if (!next_token(&rest, &tok))
			return -EINVAL;
		ret = parse_u64(tok, &v);
		if (ret < 0)
			return ret;
		if (f[i])
			*f[i] = v;
	}
	return next_token(&rest, &tok) ? -EINVAL : 0;
}

int netcounters_parse_dev(const char *text, size_t len, struct netcounters *nc)
{
	struct span line, name, rest;
	struct netcounters_link l;
	unsigned headers = 0;
	size_t pos = 0;
	int ret;

	while (next_line(text, len, &pos, &line)) {
		if (memchr(line.p, '|', line.n)) {
			headers++;
			continue;
		}
		if (line.n == 0)
			continue;
		if (!line_prefix(line, &name, &rest))
			return -EINVAL;
		while (name.n && is_space(*name.p)) {
			name.p++;
			name.n--;
		}
		if (name.n == 0 || name.n >= IFNAMSIZ)
			return -EINVAL;
		memset(&l, 0, sizeof(l));
		memcpy(l.name, name.p, name.n);
		if (memchr(l.name, '\0', name.n))
			return -EINVAL;
		ret = parse_dev_line(rest, &l);
		if (ret < 0)
			return ret;
		if (nc->nlinks == NETCOUNTERS_MAX_LINKS) {
			nc->links_truncated = true;
			continue;
		}
		nc->links[nc->nlinks++] = l;
	}
	return headers == 2 ? 0 : -EINVAL;
}

/* Hex digits only (softnet_stat's columns); 0, -EINVAL or -ERANGE. */
static int parse_hex(struct span s, uint64_t *out)
{
	uint64_t v = 0;

	if (s.n == 0 || s.n > 16)
		return s.n ? -ERANGE : -EINVAL;
	for (size_t i = 0; i < s.n; i++) {
		char c = s.p[i];
		unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
						    : 16;

		if (d > 15)
			return -EINVAL;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

int netcounters_parse_softnet(const char *text, size_t len, struct netcounters *nc)
{
	struct span line, processed, dropped;
	uint64_t p, d, sum = 0;
	size_t pos = 0;
	int ret;

	while (next_line(text, len, &pos, &line)) {
		if (!next_token(&line, &processed))
			continue;
		if (!next_token(&line, &dropped))
			return -EINVAL;
		if ((ret = parse_hex(processed, &p)) < 0 || (ret = parse_hex(dropped, &d)) < 0)
			return ret;
		sum += d;
	}
	nc->softnet_valid = true;
	nc->softnet_dropped = sum;
	return 0;
}

/* ---- reading ---------------------------------------------------------------- */

/* Reads a whole /proc file into a malloc'd buffer. */
static int read_file(const char *path, char **out, size_t *len)
{
	size_t cap = 16384, n = 0;
	char *buf = malloc(cap), *nb;
	ssize_t r;
	int fd, ret = 0;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(buf);
		return ret;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= (16u << 20)) {
				ret = -EFBIG;
				break;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (ret < 0) {
		free(buf);
		return ret;
	}
	*out = buf;
	*len = n;
	return 0;
}

typedef int (*parse_fn)(const char *text, size_t len, struct netcounters *nc);

static int read_one(const char *name, parse_fn parse, struct netcounters *nc)
{
	char path[64], *text = NULL;
	size_t len = 0;
	int ret;

	/* thread-self: the namespace of this thread, which setns() may have changed */
	snprintf(path, sizeof(path), "/proc/thread-self/net/%s", name);
	ret = read_file(path, &text, &len);
	if (ret == -ENOENT) {
		snprintf(path, sizeof(path), "/proc/self/net/%s", name);
		ret = read_file(path, &text, &len);
	}
	if (ret < 0)
		return ret;
	ret = parse(text, len, nc);
	free(text);
	return ret;
}

/* net.core.netdev_max_backlog, 0 when unreadable. */
static uint32_t read_backlog_max(void)
{
	char buf[32] = "";
	FILE *f = fopen("/proc/sys/net/core/netdev_max_backlog", "re");
	unsigned long v = 0;

	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		v = strtoul(buf, NULL, 10);
	fclose(f);
	return v > UINT32_MAX ? 0 : (uint32_t)v;
}

void netcounters_init(struct netcounters *nc)
{
	memset(nc, 0, sizeof(*nc));
}

int netcounters_read(struct netcounters *nc)
{
	int ret;

	netcounters_init(nc);
	ret = read_one("snmp", netcounters_parse_snmp, nc);
	if (ret < 0)
		return ret;
	ret = read_one("dev", netcounters_parse_dev, nc);
	if (ret < 0)
		return ret;
	ret = read_one("snmp6", netcounters_parse_snmp6, nc);
	if (ret < 0 && ret != -ENOENT) /* ENOENT: no IPv6 in this kernel or namespace */
		return ret;
	/* the backlog's drops and length: optional, as old kernels lack them */
	if (read_one("softnet_stat", netcounters_parse_softnet, nc) < 0)
		nc->softnet_valid = false;
	nc->netdev_max_backlog = read_backlog_max();
	return 0;
}

/* ---- deltas ------------------------------------------------------------------ */

static uint64_t sub0(uint64_t b, uint64_t a)
{
	return b > a ? b - a : 0;
}

static void delta_fields(const void *a, const void *b, void *d, const struct field *f, size_t nf)
{
	uint64_t va, vb, vd;
	size_t i;

	for (i = 0; i < nf; i++) {
		memcpy(&va, (const char *)a + f[i].off, sizeof(va));
		memcpy(&vb, (const char *)b + f[i].off, sizeof(vb));
		vd = sub0(vb, va);
		memcpy((char *)d + f[i].off, &vd, sizeof(vd));
	}
}

static const struct netcounters_link *find_link(const struct netcounters *nc, const char *name)
{
	unsigned i;

	for (i = 0; i < nc->nlinks; i++)
		if (strcmp(nc->links[i].name, name) == 0)
			return &nc->links[i];
	return NULL;
}

static void delta_link(const struct netcounters_link *a, const struct netcounters_link *b,
		       struct netcounters_link *d)
{
	static const struct netcounters_link zero;

	if (!a)
		a = &zero;
	memcpy(d->name, b->name, sizeof(d->name));
	d->rx_bytes = sub0(b->rx_bytes, a->rx_bytes);
	d->rx_packets = sub0(b->rx_packets, a->rx_packets);
	d->rx_errs = sub0(b->rx_errs, a->rx_errs);
	d->rx_drop = sub0(b->rx_drop, a->rx_drop);
	d->rx_fifo = sub0(b->rx_fifo, a->rx_fifo);
	d->rx_frame = sub0(b->rx_frame, a->rx_frame);
	d->tx_bytes = sub0(b->tx_bytes, a->tx_bytes);
	d->tx_packets = sub0(b->tx_packets, a->tx_packets);
	d->tx_errs = sub0(b->tx_errs, a->tx_errs);
	d->tx_drop = sub0(b->tx_drop, a->tx_drop);
	d->tx_fifo = sub0(b->tx_fifo, a->tx_fifo);
	d->tx_colls = sub0(b->tx_colls, a->tx_colls);
	d->tx_carrier = sub0(b->tx_carrier, a->tx_carrier);
}

void netcounters_delta(const struct netcounters *before, const struct netcounters *after,
		       struct netcounters *delta)
{
	unsigned i;

	netcounters_init(delta);
	delta->udp.valid = before->udp.valid && after->udp.valid;
	delta->udp6.valid = before->udp6.valid && after->udp6.valid;
	delta->ip.valid = before->ip.valid && after->ip.valid;
	delta->ip6.valid = before->ip6.valid && after->ip6.valid;
	delta_fields(&before->udp, &after->udp, &delta->udp, udp_fields, NFIELDS(udp_fields));
	delta_fields(&before->udp6, &after->udp6, &delta->udp6, udp_fields, NFIELDS(udp_fields));
	delta_fields(&before->ip, &after->ip, &delta->ip, ip_fields, NFIELDS(ip_fields));
	delta_fields(&before->ip6, &after->ip6, &delta->ip6, ip_fields, NFIELDS(ip_fields));
	for (i = 0; i < after->nlinks; i++)
		delta_link(find_link(before, after->links[i].name), &after->links[i],
			   &delta->links[i]);
	delta->nlinks = after->nlinks;
	delta->links_truncated = before->links_truncated || after->links_truncated;
	delta->softnet_valid = before->softnet_valid && after->softnet_valid;
	delta->softnet_dropped =
		delta->softnet_valid ? sub0(after->softnet_dropped, before->softnet_dropped) : 0;
	delta->netdev_max_backlog = after->netdev_max_backlog;
}

void netcounters_link_drops(const struct netcounters *nc, const char *ifname, uint64_t *rx,
			    uint64_t *tx)
{
	const struct netcounters_link *l;
	unsigned i;

	*rx = 0;
	*tx = 0;
	for (i = 0; i < nc->nlinks; i++) {
		l = &nc->links[i];
		if (ifname ? strcmp(l->name, ifname) != 0 : strcmp(l->name, "lo") == 0)
			continue;
		*rx += l->rx_drop + l->rx_fifo;
		*tx += l->tx_drop + l->tx_fifo;
	}
}

/* ---- attribution --------------------------------------------------------------- */

static void udp_of(const struct netcounters *nc, int family, struct netcounters_udp *u)
{
	memset(u, 0, sizeof(*u));
	if (family != AF_INET6 && nc->udp.valid)
		*u = nc->udp;
	if (family != AF_INET && nc->udp6.valid) {
		u->in_datagrams += nc->udp6.in_datagrams;
		u->in_errors += nc->udp6.in_errors;
		u->out_datagrams += nc->udp6.out_datagrams;
		u->rcvbuf_errors += nc->udp6.rcvbuf_errors;
		u->sndbuf_errors += nc->udp6.sndbuf_errors;
		u->no_ports += nc->udp6.no_ports;
		u->in_csum_errors += nc->udp6.in_csum_errors;
	}
}

void netcounters_loss_inputs(const struct netcounters *sender_delta, const char *sender_if,
			     const struct netcounters *receiver_delta, const char *receiver_if,
			     int family, uint64_t rxq_ovfl, uint64_t lost, struct loss_inputs *in)
{
	struct netcounters_udp u;
	uint64_t rx, tx;

	memset(in, 0, sizeof(*in));
	in->lost = lost;
	in->receiver_rxq_ovfl = rxq_ovfl;
	if (sender_delta) {
		udp_of(sender_delta, family, &u);
		in->sender_sndbuf = u.sndbuf_errors;
		netcounters_link_drops(sender_delta, sender_if, &rx, &tx);
		in->sender_link_tx = tx;
	}
	if (receiver_delta) {
		udp_of(receiver_delta, family, &u);
		in->receiver_rcvbuf = u.rcvbuf_errors;
		in->receiver_inerrors = u.in_errors;
		netcounters_link_drops(receiver_delta, receiver_if, &rx, &tx);
		in->receiver_link_rx = rx;
	}
}

static uint64_t take(uint64_t *remaining, uint64_t count)
{
	uint64_t t = count < *remaining ? count : *remaining;

	*remaining -= t;
	return t;
}

/* The sender's qdisc and socket buffer, in datagrams (see netcounters.h). */
static void sender_places(const struct loss_inputs *in, uint64_t *qdisc, uint64_t *sndbuf)
{
	uint64_t known = in->refused_dgrams + in->hidden_dgrams;

	if (!in->has_local) {
		*qdisc = 0;
		*sndbuf = sub0(in->sender_sndbuf, in->sender_send_errors);
		return;
	}
	if (in->qdisc_read && in->qdisc_drops == 0) {
		*qdisc = in->refused_dgrams;
		*sndbuf = in->sndbuf_unseen + in->hidden_dgrams;
		return;
	}
	*qdisc = known;
	if (in->qdisc_read)
		*qdisc += sub0(in->qdisc_drops, in->qdisc_units + in->other_units);
	*sndbuf = in->sndbuf_unseen;
}

void netcounters_attribute(const struct loss_inputs *in, struct loss_attrib *out)
{
	uint64_t left = in->lost;
	uint64_t sock = in->receiver_rxq_ovfl;
	uint64_t rcvbuf_other = sub0(in->receiver_rcvbuf, sock);
	/* InErrors counts RcvbufErrors too, and sk_drops may hold either. */
	uint64_t udp_drops = in->receiver_rcvbuf > sock ? in->receiver_rcvbuf : sock;
	uint64_t qdisc, sndbuf;

	sender_places(in, &qdisc, &sndbuf);
	out->qdisc_datagrams = qdisc;
	out->receiver_socket = take(&left, sock);
	out->sender_qdisc = take(&left, qdisc);
	out->sender_sndbuf = take(&left, sndbuf);
	out->sender_link = take(&left, in->sender_link_tx);
	out->tunnel = take(&left, in->tunnel_drops);
	out->receiver_link = take(&left, in->receiver_link_rx);
	out->receiver_rcvbuf = take(&left, rcvbuf_other);
	out->receiver_inerrors = take(&left, sub0(in->receiver_inerrors, udp_drops));
	/* a CPU's backlog drops before any counter of an interface or a
	 * socket sees the packet: the last place a host keeps, not the path */
	out->backlog = take(&left, in->backlog);
	out->network = left;
}
