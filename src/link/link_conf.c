// SPDX-License-Identifier: MIT
/*
 * The one reader and writer of link conditions (include/link/link.h): "X" or
 * "X/Y" values of the keys delay, jitter, loss, loss-burst, reorder, rate,
 * limit and seed, read with value.h's and rate.h's parsers, and written back
 * in spellings they take.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "link.h"
#include "rate.h"
#include "value.h"

const char *const link_conf_keys[] = { "delay", "jitter", "loss", "loss-burst", "reorder",
				       "rate",	"limit",  "seed", NULL };

#define NS_S  UINT64_C(1000000000)
#define NS_MS UINT64_C(1000000)
#define NS_US UINT64_C(1000)

enum key { K_DELAY, K_JITTER, K_LOSS, K_BURST, K_REORDER, K_RATE, K_LIMIT, K_SEED, K_NONE };

static enum key key_of(const char *key)
{
	for (unsigned k = 0; link_conf_keys[k]; k++)
		if (!strcmp(key, link_conf_keys[k]))
			return (enum key)k;
	return K_NONE;
}

/* A percent into parts per million; 0 < pct < 0.0001 is refused, not read as 0. */
static bool ppm_get(const char *s, uint32_t *ppm, char *err, size_t errlen)
{
	double pct;

	if (value_get_percent(s, 0, 100, &pct, err, errlen))
		return false;
	*ppm = (uint32_t)llround(pct * (LINK_PPM / 100));
	if (pct > 0 && !*ppm) {
		snprintf(err, errlen, "'%s' is finer than the 0.0001 %% a link counts in", s);
		return false;
	}
	return true;
}

/* "P,R" of the Gilbert-Elliott model. */
static bool burst_get(const char *s, struct link_dir_conf *d, char *err, size_t errlen)
{
	const char *comma = strchr(s, ',');
	char p[VALUE_WHY_MAX];
	uint32_t pp, rr;

	if (!comma || (size_t)(comma - s) >= sizeof(p)) {
		snprintf(err, errlen,
			 "'%s' is not P,R (Gilbert-Elliott p and r in percent, e.g. 1%%,20%%)", s);
		return false;
	}
	memcpy(p, s, (size_t)(comma - s));
	p[comma - s] = '\0';
	if (!ppm_get(p, &pp, err, errlen) || !ppm_get(comma + 1, &rr, err, errlen))
		return false;
	if (pp && !rr) {
		snprintf(err, errlen,
			 "'%s': r must be above 0 when p is (else the bad state never ends)", s);
		return false;
	}
	d->ge_p_ppm = pp;
	d->ge_r_ppm = pp ? rr : 0;
	return true;
}

/* One direction's value of a per-direction key into d. */
static bool dir_get(enum key k, const char *s, struct link_dir_conf *d, char *err, size_t errlen)
{
	switch (k) {
	case K_DELAY:
		return !value_get(VALUE_DURATION, s, 0, LINK_DELAY_MAX_NS, &d->delay_ns, err,
				  errlen);
	case K_JITTER:
		return !value_get(VALUE_DURATION, s, 0, LINK_DELAY_MAX_NS, &d->jitter_ns, err,
				  errlen);
	case K_LOSS:
		return ppm_get(s, &d->loss_ppm, err, errlen);
	case K_REORDER:
		return ppm_get(s, &d->reorder_ppm, err, errlen);
	case K_BURST:
		return burst_get(s, d, err, errlen);
	default:
		return !value_get(VALUE_RATE, s, 0, (uint64_t)RATE_MAX_BPS, &d->rate_bps, err,
				  errlen);
	}
}

/* value split at slash into d[0] and d[1]; false with err if a half is bad. */
static bool split_at(enum key k, const char *value, const char *slash, struct link_dir_conf d[2],
		     char *err, size_t errlen)
{
	char x[LINK_CONF_VAL_MAX];

	if ((size_t)(slash - value) >= sizeof(x)) {
		snprintf(err, errlen, "'%s' is too long", value);
		return false;
	}
	memcpy(x, value, (size_t)(slash - value));
	x[slash - value] = '\0';
	return dir_get(k, x, &d[0], err, errlen) && dir_get(k, slash + 1, &d[1], err, errlen);
}

/* "X" or "X/Y". A rate may hold a '/' of its own ("10 Mbit/s"), so the
 * whole value is tried first, then each '/' as the split. */
static bool set_dirs(struct link_conf *c, enum key k, const char *value, char *err, size_t errlen)
{
	struct link_dir_conf d[LINK_DIRS] = { c->dir[0], c->dir[1] };
	const char *slash = strchr(value, '/');
	unsigned nslash = 0;

	if (dir_get(k, value, &d[0], err, errlen)) {
		dir_get(k, value, &d[1], err, errlen); /* it read once: it reads again */
		memcpy(c->dir, d, sizeof(d));
		return true;
	}
	for (const char *p = slash; p; p = strchr(p + 1, '/'))
		nslash++;
	for (const char *p = slash; p; p = strchr(p + 1, '/')) {
		d[0] = c->dir[0];
		d[1] = c->dir[1];
		if (split_at(k, value, p, d, err, errlen)) {
			memcpy(c->dir, d, sizeof(d));
			return true;
		}
	}
	if (nslash > 1)
		snprintf(err, errlen, "'%s' is not X or X/Y (X for a->b, Y for b->a)", value);
	return false;
}

bool link_conf_set(struct link_conf *c, const char *key, const char *value, char *err,
		   size_t errlen)
{
	enum key k = key_of(key ? key : "");
	uint64_t v;

	if (k == K_NONE) {
		snprintf(err, errlen,
			 "'%s' is not a link condition (delay, jitter, loss, loss-burst, reorder, "
			 "rate, limit, seed)",
			 key ? key : "");
		return false;
	}
	if (!value)
		value = "";
	if ((k == K_LIMIT || k == K_SEED) && strchr(value, '/')) {
		snprintf(err, errlen, "'%s': %s takes one value for both directions", value, key);
		return false;
	}
	if (k == K_LIMIT) {
		if (value_get(VALUE_SIZE, value, LINK_LIMIT_MIN, LINK_LIMIT_MAX, &v, err, errlen))
			return false;
		c->limit_bytes = v;
		return true;
	}
	if (k == K_SEED) {
		if (value_get(VALUE_UINT, value, 0, UINT64_MAX, &v, err, errlen))
			return false;
		c->seed = v;
		return true;
	}
	return set_dirs(c, k, value, err, errlen);
}

static bool dir_active(const struct link_dir_conf *d)
{
	return d->delay_ns || d->jitter_ns || d->rate_bps || d->loss_ppm || d->ge_p_ppm ||
	       d->reorder_ppm;
}

bool link_conf_active(const struct link_conf *c)
{
	return dir_active(&c->dir[0]) || dir_active(&c->dir[1]);
}

/* snprintf()'s result: 0 if it fit. */
static int fit(int n, size_t len)
{
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/* A duration in the largest unit that states it exactly. */
static int put_duration(uint64_t ns, char *buf, size_t len)
{
	if (ns && ns % NS_S == 0)
		return fit(snprintf(buf, len, "%" PRIu64 "s", ns / NS_S), len);
	if (ns % NS_MS == 0)
		return fit(snprintf(buf, len, "%" PRIu64 "ms", ns / NS_MS), len);
	if (ns % NS_US == 0)
		return fit(snprintf(buf, len, "%" PRIu64 "us", ns / NS_US), len);
	return fit(snprintf(buf, len, "%" PRIu64 ".%03" PRIu64 "us", ns / NS_US, ns % NS_US), len);
}

static int put_ppm(uint32_t ppm, char *buf, size_t len)
{
	uint32_t whole = ppm / (LINK_PPM / 100), frac = ppm % (LINK_PPM / 100);
	int digits = 4;

	if (!frac)
		return fit(snprintf(buf, len, "%u%%", whole), len);
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	return fit(snprintf(buf, len, "%u.%0*u%%", whole, digits, frac), len);
}

static int put_rate(uint64_t bps, char *buf, size_t len)
{
	static const struct {
		uint64_t mult;
		char prefix;
	} units[] = { { 1000000000000ULL, 'T' },
		      { 1000000000ULL, 'G' },
		      { 1000000ULL, 'M' },
		      { 1000ULL, 'k' } };

	for (size_t i = 0; bps && i < sizeof(units) / sizeof(units[0]); i++)
		if (bps % units[i].mult == 0)
			return fit(snprintf(buf, len, "%" PRIu64 "%c", bps / units[i].mult,
					    units[i].prefix),
				   len);
	return fit(snprintf(buf, len, "%" PRIu64, bps), len);
}

static int put_size(uint64_t bytes, char *buf, size_t len)
{
	static const struct {
		unsigned shift;
		char prefix;
	} units[] = { { 30, 'G' }, { 20, 'M' }, { 10, 'k' } };

	for (size_t i = 0; bytes && i < sizeof(units) / sizeof(units[0]); i++)
		if (bytes % (1ULL << units[i].shift) == 0)
			return fit(snprintf(buf, len, "%" PRIu64 "%c", bytes >> units[i].shift,
					    units[i].prefix),
				   len);
	return fit(snprintf(buf, len, "%" PRIu64, bytes), len);
}
static int put_dir(enum key k, const struct link_dir_conf *d, char *buf, size_t len)
{
	size_t n;

	switch (k) {
	case K_DELAY:
		return put_duration(d->delay_ns, buf, len);
	case K_JITTER:
		return put_duration(d->jitter_ns, buf, len);
	case K_LOSS:
		return put_ppm(d->loss_ppm, buf, len);
	case K_REORDER:
		return put_ppm(d->reorder_ppm, buf, len);
	case K_BURST:
		if (put_ppm(d->ge_p_ppm, buf, len))
			return -ENOSPC;
		n = strlen(buf);
		if (n + 1 >= len)
			return -ENOSPC;
		buf[n++] = ',';
		return put_ppm(d->ge_r_ppm, buf + n, len - n);
	default:
		return put_rate(d->rate_bps, buf, len);
	}
}

int link_conf_get(const struct link_conf *c, const char *key, char *buf, size_t len)
{
	enum key k = key_of(key ? key : "");
	char x[LINK_CONF_VAL_MAX], y[LINK_CONF_VAL_MAX];

	if (k == K_NONE)
		return -ENOENT;
	if (k == K_LIMIT)
		return put_size(c->limit_bytes, buf, len);
	if (k == K_SEED)
		return fit(snprintf(buf, len, "%" PRIu64, c->seed), len);
	if (put_dir(k, &c->dir[0], x, sizeof(x)) || put_dir(k, &c->dir[1], y, sizeof(y)))
		return -ENOSPC;
	if (!strcmp(x, y))
		return snprintf(buf, len, "%s", x) >= (int)len ? -ENOSPC : 0;
	return snprintf(buf, len, "%s/%s", x, y) >= (int)len ? -ENOSPC : 0;
}

bool link_conf_is_set(const struct link_conf *c, const char *key)
{
	const struct link_dir_conf *d = c->dir;

	switch (key_of(key ? key : "")) {
	case K_DELAY:
		return d[0].delay_ns || d[1].delay_ns;
	case K_JITTER:
		return d[0].jitter_ns || d[1].jitter_ns;
	case K_LOSS:
		return d[0].loss_ppm || d[1].loss_ppm;
	case K_BURST:
		return d[0].ge_p_ppm || d[1].ge_p_ppm;
	case K_REORDER:
		return d[0].reorder_ppm || d[1].reorder_ppm;
	case K_RATE:
		return d[0].rate_bps || d[1].rate_bps;
	case K_LIMIT:
		return c->limit_bytes != 0;
	case K_SEED:
		return c->seed != 0;
	default:
		return false;
	}
}

int link_conf_argv(const struct link_conf *c, char **argv, size_t max, char *buf, size_t buflen)
{
	size_t n = 0, used = 0;

	for (unsigned k = 0; link_conf_keys[k]; k++) {
		const char *key = link_conf_keys[k];
		size_t klen = strlen(key) + 3, vlen;

		if (!link_conf_is_set(c, key))
			continue;
		if (n + 2 > max || used + klen > buflen)
			return -ENOSPC;
		argv[n++] = buf + used;
		used += (size_t)snprintf(buf + used, klen, "--%s", key) + 1;
		if (link_conf_get(c, key, buf + used, buflen - used))
			return -ENOSPC;
		argv[n++] = buf + used;
		vlen = strlen(buf + used) + 1;
		used += vlen;
	}
	return (int)n;
}
