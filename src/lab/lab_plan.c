// SPDX-License-Identifier: MIT
/*
 * The pure part of the lab: spec construction and checks, the address plan,
 * routes between hosts, rate parsing. No system calls, so all of it is
 * unit-tested without namespaces.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "lab_int.h"
#include "rate.h"
#include "value.h"

void lab_spec_chain(struct lab_spec *spec, const char *name, unsigned nhosts, uint32_t mtu)
{
	memset(spec, 0, sizeof(*spec));
	snprintf(spec->name, sizeof(spec->name), "%s", name ? name : LAB_DEFAULT_NAME);
	spec->nhosts = nhosts;
	spec->nlinks = nhosts > 1 ? nhosts - 1 : 0;
	for (unsigned i = 0; i < spec->nlinks && i < LAB_MAX_LINKS; i++) {
		spec->links[i].a = i;
		spec->links[i].b = i + 1;
		spec->links[i].mtu = mtu;
	}
}

void lab_spec_pair(struct lab_spec *spec, const char *name, uint32_t mtu)
{
	lab_spec_chain(spec, name, 2, mtu);
}

bool lab_name_valid(const char *name)
{
	size_t len;

	if (!name)
		return false;
	len = strlen(name);
	if (len == 0 || len > LAB_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');

		if (!alnum && (i == 0 || c != '-'))
			return false;
	}
	return true;
}

static int link_check(const struct lab_spec *spec, unsigned i, char *err, size_t errlen)
{
	const struct lab_link_spec *l = &spec->links[i];

	if (l->a >= spec->nhosts || l->b >= spec->nhosts)
		return lab_fail(err, errlen,
				"link %u joins host %u and %u, but the lab has hosts 0..%u", i,
				l->a, l->b, spec->nhosts - 1);
	if (l->a == l->b)
		return lab_fail(err, errlen, "link %u joins host %u to itself", i, l->a);
	if (l->mtu && (l->mtu < LAB_MTU_MIN || l->mtu > LAB_MTU_MAX))
		return lab_fail(err, errlen, "link %u: MTU %u out of range %u..%u", i, l->mtu,
				LAB_MTU_MIN, LAB_MTU_MAX);
	if (l->rate_bps && (l->rate_bps < LAB_RATE_MIN_BPS || l->rate_bps > LAB_RATE_MAX_BPS))
		return lab_fail(err, errlen, "link %u: rate %llu bit/s out of range %llu..%llu", i,
				(unsigned long long)l->rate_bps, LAB_RATE_MIN_BPS,
				LAB_RATE_MAX_BPS);
	if ((l->rate_layer == LAYER_FRAME || l->rate_layer == LAYER_LINE) && !l->rate_bps)
		return lab_fail(err, errlen, "link %u: rate-layer %s needs a rate", i,
				layer_name(l->rate_layer));
	if (!(l->drop_pct >= 0.0 && l->drop_pct <= 100.0))
		return lab_fail(err, errlen, "link %u: drop %g%% out of range 0..100", i,
				l->drop_pct);
	if (l->drop_pct > 0.0 && lab_plan_drop_threshold(l->drop_pct) == 0)
		return lab_fail(err, errlen, "link %u: drop %g%% is below the 0.01%% resolution", i,
				l->drop_pct);
	for (unsigned d = 0; d < LINK_DIRS; d++) {
		const struct link_dir_conf *c = &l->cond.dir[d];

		/* netem has one loss model at a time: random or Gilbert-Elliott */
		if (c->loss_ppm && c->ge_p_ppm)
			return lab_fail(err, errlen,
					"link %u: loss and loss-burst: one or the other (one loss "
					"model per direction)",
					i);
		if (c->rate_bps)
			return lab_fail(err, errlen,
					"link %u: the link's rate is its rate (tbf), "
					"not a condition",
					i);
	}
	return 0;
}

int lab_spec_check(const struct lab_spec *spec, char *err, size_t errlen)
{
	int rc;

	if (!lab_name_valid(spec->name))
		return lab_fail(
			err, errlen,
			"lab name '%.*s' invalid: 1..%d of A-Z a-z 0-9 - _, starting alphanumeric",
			LAB_NAME_MAX + 1, spec->name, LAB_NAME_MAX);
	if (spec->nhosts < 2 || spec->nhosts > LAB_MAX_HOSTS)
		return lab_fail(err, errlen, "%u hosts: a lab has 2..%d", spec->nhosts,
				LAB_MAX_HOSTS);
	if (spec->nlinks < 1 || spec->nlinks > LAB_MAX_LINKS)
		return lab_fail(err, errlen, "%u links: a lab has 1..%d", spec->nlinks,
				LAB_MAX_LINKS);
	for (unsigned i = 0; i < spec->nlinks; i++) {
		rc = link_check(spec, i, err, errlen);
		if (rc)
			return rc;
	}
	if ((spec->tcp_rmem_max && spec->tcp_rmem_max < LAB_TCP_MEM_MIN) ||
	    (spec->tcp_wmem_max && spec->tcp_wmem_max < LAB_TCP_MEM_MIN))
		return lab_fail(err, errlen, "TCP buffer maximum %u B: at least %u B",
				spec->tcp_rmem_max && spec->tcp_rmem_max < LAB_TCP_MEM_MIN
					? spec->tcp_rmem_max
					: spec->tcp_wmem_max,
				LAB_TCP_MEM_MIN);
	if (spec->cpus_hosts && spec->cpus_hosts != spec->nhosts)
		return lab_fail(err, errlen,
				"CPU lists for %u hosts: the lab has %u (one list per host, "
				"separated by |: \"0|1\")",
				spec->cpus_hosts, spec->nhosts);
	for (unsigned h = 0; h < spec->cpus_hosts && h < LAB_MAX_HOSTS; h++) {
		char why[160];

		if (lab_cpus_parse(spec->cpus[h], NULL, why, sizeof(why)))
			return lab_fail(err, errlen, "host %u: %s", h, why);
	}
	return 0;
}

bool lab_parse_pct(const char *s, double *pct)
{
	return s && value_percent(s, pct);
}

/* The WAN conditions a lab link takes: link_conf_set()'s keys but rate
 * (the link's rate is its tbf), limit and seed. */
static const char *const cond_keys[] = { "delay", "jitter", "loss", "loss-burst", "reorder", NULL };

static bool is_cond_key(const char *key)
{
	for (size_t i = 0; cond_keys[i]; i++)
		if (!strcmp(key, cond_keys[i]))
			return true;
	return false;
}

static int link_cond(struct lab_link_spec *l, const char *key, const char *val, char *err,
		     size_t errlen)
{
	char why[LINK_CONF_ERR_MAX];

	if (link_conf_set(&l->cond, key, val, why, sizeof(why)))
		return 0;
	return lab_fail(err, errlen, "%s: %s", key, why);
}

int lab_spec_cond(struct lab_spec *spec, const char *key, const char *value, char *err,
		  size_t errlen)
{
	if (!is_cond_key(key))
		return lab_fail(err, errlen, "%s is not a link condition", key);
	for (unsigned l = 0; l < spec->nlinks && l < LAB_MAX_LINKS; l++)
		if (link_cond(&spec->links[l], key, value, err, errlen))
			return -EINVAL;
	return 0;
}

int lab_link_cond_str(const struct lab_link_spec *k, char *buf, size_t len)
{
	size_t n = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (size_t i = 0; link_conf_keys[i]; i++) {
		char v[LINK_CONF_VAL_MAX];
		int w;

		if (!link_conf_is_set(&k->cond, link_conf_keys[i]))
			continue;
		if (link_conf_get(&k->cond, link_conf_keys[i], v, sizeof(v)))
			return -ENOSPC;
		w = snprintf(buf + n, len - n, "%s%s %s", n ? " " : "", link_conf_keys[i], v);
		if (w < 0 || (size_t)w >= len - n)
			return -ENOSPC;
		n += (size_t)w;
	}
	return 0;
}

bool lab_means_parse(const char *s, enum lab_means *m)
{
	for (int i = LAB_MEANS_AUTO; i <= LAB_MEANS_USERSPACE; i++)
		if (s && !strcmp(s, lab_means_name((enum lab_means)i))) {
			*m = (enum lab_means)i;
			return true;
		}
	return false;
}

const char *lab_means_name(enum lab_means m)
{
	switch (m) {
	case LAB_MEANS_NETEM:
		return "netem";
	case LAB_MEANS_USERSPACE:
		return "userspace";
	case LAB_MEANS_AUTO:
		break;
	}
	return "auto";
}

/* One "key=value" (or bare "block-icmp") of a --link option. */
static int link_kv(const char *kv, size_t len, struct lab_link_spec *l, char *err, size_t errlen)
{
	char key[16], val[LINK_CONF_VAL_MAX];
	const char *eq = memchr(kv, '=', len);
	size_t klen = eq ? (size_t)(eq - kv) : len, vlen = eq ? len - klen - 1 : 0;
	char range[48];
	uint64_t n;

	if (klen == 0 || klen >= sizeof(key) || vlen >= sizeof(val))
		return lab_fail(err, errlen, "bad --link item '%.*s'", (int)len, kv);
	memcpy(key, kv, klen);
	key[klen] = '\0';
	memcpy(val, eq ? eq + 1 : "", vlen);
	val[vlen] = '\0';
	if (!strcmp(key, "block-icmp") && (!eq || !strcmp(val, "1") || !strcmp(val, "0"))) {
		l->block_icmp_too_big = !eq || val[0] == '1';
		return 0;
	}
	if (!eq)
		return lab_fail(err, errlen, "--link: '%s' needs a value", key);
	if (!strcmp(key, "mtu")) {
		if (!value_uint(val, &n))
			return lab_fail(err, errlen,
					"--link: mtu '%s' is not a whole number (%u..%u)", val,
					LAB_MTU_MIN, LAB_MTU_MAX);
		if ((n && n < LAB_MTU_MIN) || n > LAB_MTU_MAX) /* 0: the default, as --mtu's */
			return lab_fail(err, errlen, "--link: mtu '%s' is out of range (%u..%u)",
					val, LAB_MTU_MIN, LAB_MTU_MAX);
		l->mtu = (uint32_t)n;
		return 0;
	}
	if (!strcmp(key, "rate")) {
		if (rate_parse(val, &l->rate_bps))
			return 0;
		value_range_str(VALUE_RATE, LAB_RATE_MIN_BPS, LAB_RATE_MAX_BPS, range,
				sizeof(range));
		return lab_fail(err, errlen,
				"--link: rate '%s' is not a rate (%s, e.g. 100M, 1.5G)", val,
				range);
	}
	if (!strcmp(key, "rate-layer")) {
		if (layer_parse(val, &l->rate_layer) &&
		    (l->rate_layer == LAYER_FRAME || l->rate_layer == LAYER_LINE))
			return 0;
		l->rate_layer = LAYER_PAYLOAD;
		return lab_fail(
			err, errlen,
			"--link: rate-layer '%s' is not frame or line (a tbf counts the frame "
			"without FCS unless told)",
			val);
	}
	if (is_cond_key(key))
		return link_cond(l, key, val, err, errlen);
	if (!strcmp(key, "drop"))
		return lab_parse_pct(val, &l->drop_pct)
			       ? 0
			       : lab_fail(err, errlen,
					  "--link: drop '%s' is not a percentage 0..100", val);
	return lab_fail(err, errlen,
			"--link: unknown key '%s' (mtu, rate, rate-layer, drop, block-icmp, delay, "
			"jitter, loss, loss-burst, reorder)",
			key);
}

/* Length of the item at p: up to the next comma, except that loss-burst's
 * value "P,R" (or "P,R/P,R") keeps its commas: a piece without '=' that
 * follows it is part of it. */
static size_t item_len(const char *p)
{
	size_t len = strcspn(p, ",");

	if (strncmp(p, "loss-burst=", 11))
		return len;
	while (p[len] == ',' && p[len + 1] && !memchr(p + len + 1, '=', strcspn(p + len + 1, ",")))
		len += 1 + strcspn(p + len + 1, ",");
	return len;
}

int lab_parse_link_opt(const char *s, struct lab_spec *spec, char *err, size_t errlen)
{
	const char *p;
	unsigned long link;
	char *end;
	int rc;

	errno = 0;
	link = strtoul(s, &end, 10);
	if (errno || end == s || *end != ':' || s[0] == '-')
		return lab_fail(err, errlen, "--link '%s': expected L:key=value[,key=value...]", s);
	if (link >= spec->nlinks)
		return lab_fail(err, errlen, "--link '%s': the lab has links 0..%u", s,
				spec->nlinks ? spec->nlinks - 1 : 0);
	p = end + 1;
	if (!*p)
		return lab_fail(err, errlen, "--link '%s': nothing to set", s);
	while (*p) {
		size_t len = item_len(p);

		rc = link_kv(p, len, &spec->links[link], err, errlen);
		if (rc)
			return rc;
		p += len + (p[len] == ',');
	}
	return 0;
}

int lab_plan_addr(unsigned link, unsigned end, int family, struct sockaddr_storage *ss,
		  unsigned *prefixlen)
{
	if (link >= LAB_MAX_LINKS || end > 1)
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		/* 198.18.<link>.<end + 1> */
		sin->sin_addr.s_addr = htonl((198u << 24) | (18u << 16) | (link << 8) | (end + 1));
		if (prefixlen)
			*prefixlen = 24;
		return 0;
	}
	if (family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
		uint8_t *a = sin6->sin6_addr.s6_addr;

		sin6->sin6_family = AF_INET6;
		/* 2001:2:0:<link>::<end + 1> */
		a[0] = 0x20;
		a[1] = 0x01;
		a[3] = 0x02;
		a[6] = (uint8_t)(link >> 8);
		a[7] = (uint8_t)link;
		a[15] = (uint8_t)(end + 1);
		if (prefixlen)
			*prefixlen = 64;
		return 0;
	}
	return -EAFNOSUPPORT;
}

int lab_plan_netns_name(const char *lab, unsigned host, char *buf, size_t len)
{
	int n = snprintf(buf, len, "ovp-%s-%u", lab, host);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int lab_plan_link_netns_name(const char *lab, unsigned link, char *buf, size_t len)
{
	int n = snprintf(buf, len, "ovp-%s-l%u", lab, link);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

uint32_t lab_plan_netem_limit(const struct link_dir_conf *d, uint64_t rate_bps, uint32_t mtu)
{
	uint64_t bps = rate_bps ? rate_bps : LAB_RATE_MAX_BPS;
	uint64_t frame = (mtu ? mtu : LAB_DEFAULT_MTU) + 14;
	/* bytes in flight over delay + jitter, in ns * bit/s / 8e9 */
	double bytes = (double)(d->delay_ns + d->jitter_ns) * (double)bps / 8e9;
	double pkts = 2.0 * bytes / (double)frame;

	if (pkts < 1000)
		return 1000;
	return pkts > 1e9 ? 1000000000u : (uint32_t)pkts;
}

static bool on_link(const struct lab_spec *spec, unsigned host, unsigned link)
{
	return spec->links[link].a == host || spec->links[link].b == host;
}

/* Breadth-first search over hosts from `host`; first[] is the link taken
 * first on the shortest path to each host, firstend[] the far end of it. */
static void bfs(const struct lab_spec *spec, unsigned host, int first[], unsigned firstend[])
{
	unsigned queue[LAB_MAX_HOSTS], qh = 0, qt = 0;
	bool seen[LAB_MAX_HOSTS] = { false };

	for (unsigned h = 0; h < LAB_MAX_HOSTS; h++)
		first[h] = -1;
	seen[host] = true;
	queue[qt++] = host;
	while (qh < qt) {
		unsigned u = queue[qh++];

		for (unsigned l = 0; l < spec->nlinks; l++) {
			unsigned v, vend;

			if (!on_link(spec, u, l))
				continue;
			vend = spec->links[l].a == u ? 1 : 0;
			v = vend ? spec->links[l].b : spec->links[l].a;
			if (v >= LAB_MAX_HOSTS || seen[v])
				continue;
			seen[v] = true;
			first[v] = u == host ? (int)l : first[u];
			firstend[v] = u == host ? vend : firstend[u];
			queue[qt++] = v;
		}
	}
}

int lab_plan_route(const struct lab_spec *spec, unsigned host, unsigned link, unsigned *via_link,
		   unsigned *via_end)
{
	int first[LAB_MAX_HOSTS];
	unsigned firstend[LAB_MAX_HOSTS] = { 0 };
	unsigned ends[2], best = 0;
	int found = -1;

	if (host >= spec->nhosts || link >= spec->nlinks || spec->nhosts > LAB_MAX_HOSTS)
		return -EINVAL;
	if (on_link(spec, host, link))
		return 0;
	bfs(spec, host, first, firstend);
	ends[0] = spec->links[link].a;
	ends[1] = spec->links[link].b;
	/* Either end of the link will do; the BFS order makes ends[0] first
	 * when both are at the same distance, which keeps the plan stable. */
	for (unsigned e = 0; e < 2; e++) {
		if (ends[e] >= LAB_MAX_HOSTS || first[ends[e]] < 0)
			continue;
		if (found < 0) {
			found = (int)e;
			best = ends[e];
		}
	}
	if (found < 0)
		return -EHOSTUNREACH;
	*via_link = (unsigned)first[best];
	*via_end = firstend[best];
	return 1;
}

unsigned lab_plan_drop_threshold(double drop_pct)
{
	if (!(drop_pct > 0.0))
		return 0;
	if (drop_pct >= 100.0)
		return 10000;
	return (unsigned)lround(drop_pct * 100.0);
}

uint32_t lab_plan_tbf_burst(uint64_t rate_bps, uint32_t mtu)
{
	uint64_t per_ms = rate_bps / 8 / 1000;
	uint64_t frames = 4ULL * ((mtu ? mtu : LAB_DEFAULT_MTU) + 14);

	return (uint32_t)(per_ms > frames ? per_ms : frames);
}

void lab_plan_tbf_overhead(enum layer rate_layer, uint32_t *overhead, uint32_t *mpu)
{
	/* the tbf sees skb->len: the Ethernet header is in it, the FCS is not */
	*overhead = *mpu = 0;
	if (rate_layer == LAYER_FRAME) {
		*overhead = LAYER_ETH_FCS;
		*mpu = LAYER_ETH_MIN;
	} else if (rate_layer == LAYER_LINE) {
		*overhead = LAYER_ETH_FCS + LAYER_ETH_WIRE;
		*mpu = LAYER_ETH_LINE_MIN;
	}
}

const char *lab_rate_layer_name(const struct lab_link_spec *k)
{
	if (k->rate_layer == LAYER_FRAME || k->rate_layer == LAYER_LINE)
		return layer_name(k->rate_layer);
	return "kernel";
}
