// SPDX-License-Identifier: MIT
/*
 * The schema of scenario files (which keys each section takes, their types
 * and ranges; documented in docs/scenarios.md) and the handlers libinih
 * calls for each section header and key: a value is checked and stored into
 * the scenario as it is read, and every problem is reported with its line.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "knee.h"
#include "load_spec.h"
#include "rate.h"
#include "scenario_int.h"
#include "value.h"

#define KEY(n, t, st, f, lo, hi)                                                                   \
	{                                                                                          \
		n, t, offsetof(st, f), sizeof(((st *)0)->f), lo, hi, false                         \
	}
#define KEY0(n, t, f, lo, hi)                                                                      \
	{                                                                                          \
		n, t, offsetof(struct scenario_link, f), sizeof(((struct scenario_link *)0)->f),   \
			lo, hi, true                                                               \
	}
#define REF(n)                                                                                     \
	{                                                                                          \
		n, T_REF, 0, 0, 0, 0, false                                                        \
	}

static const struct keydef scenario_keys[] = {
	KEY("name", T_WORD, struct scenario, name, 0, 0),
	KEY("description", T_TEXT, struct scenario, description, 0, 0),
	KEY("repetitions", T_UINT, struct scenario, repetitions, 1, 100),
	KEY("duration", T_DUR, struct scenario, duration_ns, 0, 0),
	KEY("omit", T_DUR, struct scenario, omit_ns, 0, 0),
	KEY("interleave", T_BOOL, struct scenario, interleave, 0, 0),
	{ 0 }
};
static const struct keydef lab_keys[] = {
	KEY("name", T_LABNAME, struct scenario_lab, name, 0, 0),
	KEY("hosts", T_UINT, struct scenario_lab, hosts, 2, LAB_MAX_HOSTS),
	KEY("client", T_UINT, struct scenario_lab, client, 0, LAB_MAX_HOSTS - 1),
	KEY("server", T_UINT, struct scenario_lab, server, 0, LAB_MAX_HOSTS - 1),
	KEY0("mtu", T_UINT, mtu, 68, 65535),
	KEY0("rate", T_RATE, rate_bps, 1000, 0),
	KEY0("drop_pct", T_PCT, drop_pct, 0, 0),
	KEY0("block_icmp", T_BOOL, block_icmp, 0, 0),
	KEY0("rate_layer", T_LINKLAYER, rate_layer, 0, 0),
	KEY0("delay", T_LINKCOND, cond, 0, 0),
	KEY0("jitter", T_LINKCOND, cond, 0, 0),
	KEY0("loss", T_LINKCOND, cond, 0, 0),
	KEY0("loss_burst", T_LINKCOND, cond, 0, 0),
	KEY0("reorder", T_LINKCOND, cond, 0, 0),
	KEY("link_means", T_MEANS, struct scenario_lab, means, 0, 0),
	KEY("tcp_rmem_max", T_BYTES, struct scenario_lab, tcp_rmem_max, LAB_TCP_MEM_MIN, 1u << 30),
	KEY("tcp_wmem_max", T_BYTES, struct scenario_lab, tcp_wmem_max, LAB_TCP_MEM_MIN, 1u << 30),
	KEY("cpus", T_CPUS, struct scenario_lab, cpus, 0, 0),
	{ 0 }
};
static const struct keydef link_keys[] = {
	KEY("a", T_UINT, struct scenario_link, a, 0, LAB_MAX_HOSTS - 1),
	KEY("b", T_UINT, struct scenario_link, b, 0, LAB_MAX_HOSTS - 1),
	KEY("mtu", T_UINT, struct scenario_link, mtu, 68, 65535),
	KEY("rate", T_RATE, struct scenario_link, rate_bps, 1000, 0),
	KEY("drop_pct", T_PCT, struct scenario_link, drop_pct, 0, 0),
	KEY("block_icmp", T_BOOL, struct scenario_link, block_icmp, 0, 0),
	KEY("rate_layer", T_LINKLAYER, struct scenario_link, rate_layer, 0, 0),
	KEY("delay", T_LINKCOND, struct scenario_link, cond, 0, 0),
	KEY("jitter", T_LINKCOND, struct scenario_link, cond, 0, 0),
	KEY("loss", T_LINKCOND, struct scenario_link, cond, 0, 0),
	KEY("loss_burst", T_LINKCOND, struct scenario_link, cond, 0, 0),
	KEY("reorder", T_LINKCOND, struct scenario_link, cond, 0, 0),
	{ 0 }
};
static const struct keydef host_keys[] = {
	KEY("address", T_WORD, struct scenario_host, address, 0, 0),
	KEY("port", T_UINT, struct scenario_host, port, 1, 65535),
	KEY("cport", T_UINT, struct scenario_host, cport, 1, 65535),
	KEY("psk_file", T_WORD, struct scenario_host, psk_file, 0, 0),
	{ 0 }
};
static const struct keydef path_keys[] = {
	KEY("type", T_PATHTYPE, struct scenario_path, type, 0, 0),
	KEY("family", T_FAMILY, struct scenario_path, family, 0, 0),
	REF("link"),
	REF("host"),
	KEY("address", T_WORD, struct scenario_path, address, 0, 0),
	KEY("port", T_UINT, struct scenario_path, port, 1, 65535),
	KEY("setup", T_TEXT, struct scenario_path, setup, 0, 0),
	KEY("teardown", T_TEXT, struct scenario_path, teardown, 0, 0),
	KEY("mtu", T_UINT, struct scenario_path, mtu, 68, 65535),
	KEY("cipher", T_WORD, struct scenario_path, cipher, 0, 0),
	KEY("underlay_family", T_FAMILY, struct scenario_path, underlay_family, 0, 0),
	KEY("overlay_subnets", T_TEXT, struct scenario_path, overlay_subnets, 0, 0),
	KEY("expect_mtu", T_UINT, struct scenario_path, expect_mtu, 68, 65535),
	KEY("expect_mss", T_UINT, struct scenario_path, expect_mss, 1, 65535),
	KEY("process", T_WORD, struct scenario_path, process, 0, 0),
	{ 0 }
};
static const struct keydef tcp_keys[] = {
	KEY("enabled", T_BOOL, struct scenario_tcp, enabled, 0, 0),
	{ "streams", T_STREAMS, 0, 0, 1, LOAD_MAX_STREAMS, false },
	KEY("duration", T_DUR, struct scenario_tcp, duration_ns, 0, 0),
	KEY("len", T_UINT, struct scenario_tcp, len, 1, 16 << 20),
	KEY("mss", T_UINT, struct scenario_tcp, mss, 88, 65495),
	KEY("reverse", T_BOOL, struct scenario_tcp, reverse, 0, 0),
	{ 0 }
};
static const struct keydef udp_keys[] = {
	KEY("enabled", T_BOOL, struct scenario_udp, enabled, 0, 0),
	{ "sizes", T_SIZES, 0, 0, LOAD_UDP_SHORT_MIN_LEN, LOAD_UDP_MAX_LEN, false },
	KEY("duration", T_DUR, struct scenario_udp, duration_ns, 0, 0),
	KEY("rate", T_RATE, struct scenario_udp, rate_bps, 0, 0),
	KEY("size_layer", T_LAYER, struct scenario_udp, size_layer, 0, LAYER_FRAME),
	KEY("rate_layer", T_LAYER, struct scenario_udp, rate_layer, 0, LAYER_LINE),
	{ "delay_loads", T_LOADS, 0, 0, 0, 0, false },
	{ 0 }
};
static const struct keydef sweep_keys[] = {
	KEY("enabled", T_BOOL, struct scenario_sweep, enabled, 0, 0),
	KEY("from", T_RATE, struct scenario_sweep, from_bps, 1000, 0),
	KEY("to", T_RATE, struct scenario_sweep, to_bps, 1000, 0),
	KEY("step", T_RATE, struct scenario_sweep, step_bps, 1000, 0),
	KEY("duration", T_DUR, struct scenario_sweep, duration_ns, 0, 0),
	KEY("rate_layer", T_LAYER, struct scenario_sweep, rate_layer, 0, LAYER_LINE),
	{ 0 }
};
static const struct keydef knee_keys[] = {
	KEY("enabled", T_BOOL, struct scenario_knee, enabled, 0, 0),
	KEY("min_rate", T_RATE, struct scenario_knee, min_rate_bps, 1000, 0),
	KEY("max_rate", T_RATE, struct scenario_knee, max_rate_bps, 1000, 0),
	KEY("loss_goal", T_RATIO, struct scenario_knee, loss_goal, 0, 0),
	KEY("width_goal", T_RATIO, struct scenario_knee, width_goal, 0, 0),
	KEY("short", T_DUR, struct scenario_knee, short_ns, 0, 0),
	KEY("final", T_DUR, struct scenario_knee, final_ns, 0, 0),
	KEY("exceed_ratio", T_RATIO, struct scenario_knee, exceed_ratio, 0, 0),
	KEY("duration_sum", T_DUR, struct scenario_knee, duration_sum_ns, 0, 0),
	KEY("max_trials", T_UINT, struct scenario_knee, max_trials, 1, KNEE_MAX_TRIALS),
	KEY("fit_trials", T_UINT, struct scenario_knee, fit_trials, 0, KNEE_MAX_TRIALS),
	KEY("max_time", T_DUR, struct scenario_knee, max_time_ns, 0, 0),
	KEY("rate_layer", T_LAYER, struct scenario_knee, rate_layer, 0, LAYER_LINE),
	{ 0 }
};
static const struct keydef mtu_keys[] = {
	KEY("enabled", T_BOOL, struct scenario_mtu, enabled, 0, 0),
	KEY("base", T_UINT, struct scenario_mtu, base, 68, 65535),
	KEY("max", T_UINT, struct scenario_mtu, max, 0, 65535),
	KEY("probes", T_UINT, struct scenario_mtu, probes, 1, 20),
	KEY("timeout", T_DUR, struct scenario_mtu, timeout_ns, 0, 0),
	KEY("mss", T_BOOL, struct scenario_mtu, mss, 0, 0),
	KEY("fragments", T_BOOL, struct scenario_mtu, fragments, 0, 0),
	{ 0 }
};

/* Every table's keys (its sentinel aside) fit a section's key_line[] and
 * the bits of its seen and bad words. */
#define FITS(t) _Static_assert(sizeof(t) / sizeof((t)[0]) - 1 <= MAX_KEYS, #t " has too many keys")
FITS(scenario_keys);
FITS(lab_keys);
FITS(link_keys);
FITS(host_keys);
FITS(path_keys);
FITS(tcp_keys);
FITS(udp_keys);
FITS(sweep_keys);
FITS(knee_keys);
FITS(mtu_keys);
#undef FITS
_Static_assert(MAX_KEYS <= 32, "a section's seen and bad words hold 32 keys");

static const struct {
	const char *name; /* "path." for prefixed kinds */
	enum kind kind;
	bool named;
	const struct keydef *keys;
} kinds[] = {
	{ "scenario", K_SCENARIO, false, scenario_keys },
	{ "lab", K_LAB, false, lab_keys },
	{ "link.", K_LINK, true, link_keys },
	{ "host.", K_HOST, true, host_keys },
	{ "path.", K_PATH, true, path_keys },
	{ "tcp", K_TCP, false, tcp_keys },
	{ "udp", K_UDP, false, udp_keys },
	{ "sweep", K_SWEEP, false, sweep_keys },
	{ "knee", K_KNEE, false, knee_keys },
	{ "mtu", K_MTU, false, mtu_keys },
};

static bool valid_name(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (!n || n >= max)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

void scn_on_section(struct parser *p, const char *name)
{
	struct section *sec, *prev;
	size_t pl;

	p->cur = NULL;
	p->in_section = true;
	if ((prev = scn_find_section(p, name))) {
		scn_error_at(p, p->line, NULL, NULL, "[%s]: section given twice (first at line %u)",
			     name, prev->line);
		return;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		pl = strlen(kinds[i].name);
		if (kinds[i].named ? strncasecmp(name, kinds[i].name, pl)
				   : strcasecmp(name, kinds[i].name))
			continue;
		if (kinds[i].named && !valid_name(name + pl, SCN_NAME_MAX)) {
			scn_error_at(p, p->line, NULL, NULL,
				     "[%s]: '%s' is not a name (1 to %d of A-Z a-z 0-9 _ -)", name,
				     name + pl, SCN_NAME_MAX - 1);
			return;
		}
		if (p->nsecs >= MAX_SECTIONS) {
			scn_error_at(p, p->line, NULL, NULL, "[%s]: too many sections", name);
			return;
		}
		sec = &p->secs[p->nsecs];
		memset(sec, 0, sizeof(*sec));
		snprintf(sec->name, sizeof(sec->name), "%s", name);
		sec->line = p->line;
		sec->kind = kinds[i].kind;
		sec->keys = kinds[i].keys;
		sec->index = scn_count_kind(p, sec->kind);
		if ((sec->kind == K_PATH && sec->index >= SCN_MAX_PATHS) ||
		    (sec->kind == K_HOST && sec->index >= SCN_MAX_HOSTS) ||
		    (sec->kind == K_LINK && sec->index >= LAB_MAX_LINKS)) {
			scn_error_at(p, p->line, NULL, NULL,
				     "[%s]: too many [%s*] sections (at most %d)", name,
				     kinds[i].name,
				     sec->kind == K_PATH   ? SCN_MAX_PATHS
				     : sec->kind == K_HOST ? SCN_MAX_HOSTS
							   : LAB_MAX_LINKS);
			return;
		}
		p->nsecs++;
		p->cur = sec;
		return;
	}
	scn_error_at(p, p->line, NULL, NULL,
		     "[%s]: unknown section (expected scenario, lab, link.NAME, host.NAME, "
		     "path.NAME, tcp, udp, sweep, knee or mtu)",
		     name);
}

/* The object a section's keys write into. */
static void *section_object(struct parser *p, const struct section *sec, bool link0)
{
	struct scenario *s = p->scn;

	switch (sec->kind) {
	case K_SCENARIO:
		return s;
	case K_LAB:
		return link0 ? (void *)&s->lab.links[0] : (void *)&s->lab;
	case K_LINK:
		return &s->lab.links[sec->index];
	case K_HOST:
		return &s->hosts[sec->index];
	case K_PATH:
		return &s->paths[sec->index];
	case K_TCP:
		return &s->tcp;
	case K_UDP:
		return &s->udp;
	case K_SWEEP:
		return &s->sweep;
	case K_KNEE:
		return &s->knee;
	case K_MTU:
		return &s->mtu;
	case K_NONE:
		break;
	}
	return NULL;
}

static void store_uint(void *field, size_t size, uint64_t v)
{
	if (size == sizeof(uint16_t)) {
		uint16_t x = (uint16_t)v;

		memcpy(field, &x, sizeof(x));
	} else if (size == sizeof(uint32_t)) {
		uint32_t x = (uint32_t)v;

		memcpy(field, &x, sizeof(x));
	} else {
		memcpy(field, &v, sizeof(v));
	}
}

static bool set_text(struct parser *p, const struct section *sec, const struct keydef *kd,
		     char *field, const char *v)
{
	bool word = kd->type == T_WORD || kd->type == T_LABNAME;

	for (const char *c = v; *c; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f || (word && (*c == ' ' || *c == '\t'))) {
			scn_error_at(p, p->line, sec, kd->name,
				     word ? "must be one word" : "contains a control character");
			return false;
		}
	}
	if (!*v) {
		scn_error_at(p, p->line, sec, kd->name, "is empty");
		return false;
	}
	if (strlen(v) >= kd->size) {
		scn_error_at(p, p->line, sec, kd->name, "too long (at most %zu characters)",
			     kd->size - 1);
		return false;
	}
	if (kd->type == T_LABNAME && !lab_name_valid(v)) {
		scn_error_at(p, p->line, sec, kd->name,
			     "'%s' is not a lab name (" LAB_NAME_RULE ")", v);
		return false;
	}
	memcpy(field, v, strlen(v) + 1);
	return true;
}

static bool set_list(struct parser *p, const struct section *sec, const struct keydef *kd,
		     const char *v)
{
	uint64_t vals[SCN_MAX_LIST];
	unsigned n = 0;
	char q[64];
	const char *what = kd->type == T_STREAMS ? "stream counts" : "sizes";

	if (kd->type == T_SIZES && !strcasecmp(v, "fit")) {
		p->scn->udp.sizes[0] = SCN_UDP_SIZE_FIT;
		p->scn->udp.nsizes = 1;
		return true;
	}
	if (!value_list(v, vals, SCN_MAX_LIST, &n)) {
		scn_error_at(p, p->line, sec, kd->name,
			     "'%s' is not a list of %s (%llu..%llu, at most %d)%s", scn_quote(v, q),
			     what, (unsigned long long)kd->min, (unsigned long long)kd->max,
			     SCN_MAX_LIST, kd->type == T_SIZES ? ", nor 'fit'" : "");
		return false;
	}
	for (unsigned i = 0; i < n; i++) {
		if (vals[i] < kd->min || vals[i] > kd->max) {
			scn_error_at(p, p->line, sec, kd->name, "%llu is out of range (%llu..%llu)",
				     (unsigned long long)vals[i], (unsigned long long)kd->min,
				     (unsigned long long)kd->max);
			return false;
		}
	}
	if (kd->type == T_STREAMS) {
		for (unsigned i = 0; i < n; i++)
			p->scn->tcp.streams[i] = (unsigned)vals[i];
		p->scn->tcp.nstreams = n;
	} else {
		for (unsigned i = 0; i < n; i++)
			p->scn->udp.sizes[i] = (uint32_t)vals[i];
		p->scn->udp.nsizes = n;
	}
	return true;
}

static bool set_loads(struct parser *p, const struct section *sec, const struct keydef *kd,
		      const char *v)
{
	double pct[SCN_MAX_DELAY_LOADS];
	char why[VALUE_WHY_MAX];
	unsigned n;

	if (scn_parse_pct_list(v, pct, SCN_MAX_DELAY_LOADS, &n, why, sizeof(why))) {
		scn_error_at(p, p->line, sec, kd->name, "%s", why);
		return false;
	}
	memcpy(p->scn->udp.delay_loads_pct, pct, n * sizeof(pct[0]));
	p->scn->udp.ndelay_loads = n;
	return true;
}

static bool set_family(int *field, const char *v)
{
	if (!strcmp(v, "4") || !strcasecmp(v, "ipv4") || !strcasecmp(v, "inet")) {
		*field = AF_INET;
		return true;
	}
	if (!strcmp(v, "6") || !strcasecmp(v, "ipv6") || !strcasecmp(v, "inet6")) {
		*field = AF_INET6;
		return true;
	}
	return false;
}

/* A whole number, a rate or a duration, in the key's range. */
static bool set_number(struct parser *p, const struct section *sec, const struct keydef *kd,
		       char *field, const char *v)
{
	char why[VALUE_WHY_MAX];
	uint64_t u;
	int rc;

	switch (kd->type) {
	case T_UINT:
		rc = value_get(VALUE_UINT, v, kd->min, kd->max, &u, why, sizeof(why));
		if (!rc)
			store_uint(field, kd->size, u);
		break;
	case T_RATE:
		rc = value_get(VALUE_RATE, v, kd->min, kd->max ? kd->max : (uint64_t)RATE_MAX_BPS,
			       &u, why, sizeof(why));
		if (!rc)
			memcpy(field, &u, sizeof(u));
		break;
	case T_DUR:
		rc = value_get(VALUE_DURATION, v, 0, SCN_DURATION_MAX_NS, &u, why, sizeof(why));
		if (!rc)
			memcpy(field, &u, sizeof(u));
		break;
	case T_BYTES:
		rc = value_get(VALUE_SIZE, v, kd->min, kd->max, &u, why, sizeof(why));
		if (!rc)
			store_uint(field, kd->size, u);
		break;
	default:
		return false;
	}
	if (rc)
		scn_error_at(p, p->line, sec, kd->name, "%s", why);
	return !rc;
}

static bool set_path_type(struct parser *p, const struct section *sec, const struct keydef *kd,
			  char *field, const char *v)
{
	enum scenario_path_type t;
	char q[64];

	if (scn_parse_path_type(v, &t)) {
		memcpy(field, &t, sizeof(t));
		return true;
	}
	scn_error_at(p, p->line, sec, kd->name, "'%s' is not underlay, builtin or external",
		     scn_quote(v, q));
	return false;
}

/* The layer sizes or rates count (layer.h); how a shaped link counts: its
 * Ethernet frames or its line (lab.h). */
static bool set_link_layer(struct parser *p, const struct section *sec, const struct keydef *kd,
			   char *field, const char *v)
{
	enum layer l;
	char q[64];

	if (kd->type == T_LAYER) {
		if (!layer_parse(v, &l) || l > (enum layer)kd->max) {
			scn_error_at(p, p->line, sec, kd->name, "'%s' is not %s", scn_quote(v, q),
				     layer_names((enum layer)kd->max));
			return false;
		}
		memcpy(field, &l, sizeof(l));
		return true;
	}
	if (!layer_parse(v, &l) || (l != LAYER_FRAME && l != LAYER_LINE)) {
		scn_error_at(p, p->line, sec, kd->name,
			     "'%s' is not frame or line (the Ethernet frame with FCS, or also "
			     "preamble, SFD and gap: RFC 2544 line rate)",
			     scn_quote(v, q));
		return false;
	}
	memcpy(field, &l, sizeof(l));
	return true;
}

/* A link's WAN condition through the one reader (link.h); the key is the
 * condition's name with '_' for '-' (loss_burst). */
static bool set_cond(struct parser *p, const struct section *sec, const struct keydef *kd,
		     char *field, const char *v)
{
	char key[16], why[LINK_CONF_ERR_MAX];

	snprintf(key, sizeof(key), "%s", kd->name);
	for (char *c = key; *c; c++)
		if (*c == '_')
			*c = '-';
	if (link_conf_set((struct link_conf *)(void *)field, key, v, why, sizeof(why)))
		return true;
	scn_error_at(p, p->line, sec, kd->name, "%s", why);
	return false;
}

static bool set_means(struct parser *p, const struct section *sec, const struct keydef *kd,
		      char *field, const char *v)
{
	enum lab_means m;
	char q[64];

	if (!lab_means_parse(v, &m)) {
		scn_error_at(p, p->line, sec, kd->name, "'%s' is not auto, netem or userspace",
			     scn_quote(v, q));
		return false;
	}
	memcpy(field, &m, sizeof(m));
	return true;
}

/* [lab] cpus: parsed as `lab up --cpus` parses it; the count of lists is
 * checked against hosts once the whole file is read. */
static bool set_cpus(struct parser *p, const struct section *sec, const char *v)
{
	struct scenario_lab *lab = &p->scn->lab;
	struct lab_spec spec;
	char why[160];

	memset(&spec, 0, sizeof(spec));
	if (lab_parse_cpus_opt(v, &spec, why, sizeof(why))) {
		scn_error_at(p, p->line, sec, "cpus", "%s", why);
		return false;
	}
	lab->cpus_hosts = spec.cpus_hosts;
	memcpy(lab->cpus, spec.cpus, sizeof(lab->cpus));
	return true;
}

static bool set_value(struct parser *p, struct section *sec, const struct keydef *kd, const char *v)
{
	void *obj = section_object(p, sec, kd->link0);
	char *field = (char *)obj + kd->off;
	char why[VALUE_WHY_MAX], q[64];
	double d;
	bool b;

	switch (kd->type) {
	case T_TEXT:
	case T_WORD:
	case T_LABNAME:
		return set_text(p, sec, kd, field, v);
	case T_UINT:
	case T_RATE:
	case T_DUR:
	case T_BYTES:
		return set_number(p, sec, kd, field, v);
	case T_BOOL:
		if (value_get_bool(v, &b, why, sizeof(why))) {
			scn_error_at(p, p->line, sec, kd->name, "%s", why);
			return false;
		}
		memcpy(field, &b, sizeof(b));
		return true;
	case T_PCT:
	case T_RATIO:
		if (value_get_percent(v, 0, 100, &d, why, sizeof(why))) {
			scn_error_at(p, p->line, sec, kd->name, "%s", why);
			return false;
		}
		if (kd->type == T_RATIO)
			d /= 100;
		memcpy(field, &d, sizeof(d));
		return true;
	case T_FAMILY:
		if (!set_family((int *)(void *)field, v)) {
			scn_error_at(p, p->line, sec, kd->name, "'%s' is not 4 or 6",
				     scn_quote(v, q));
			return false;
		}
		return true;
	case T_LINKLAYER:
	case T_LAYER:
		return set_link_layer(p, sec, kd, field, v);
	case T_PATHTYPE:
		return set_path_type(p, sec, kd, field, v);
	case T_REF:
		if (!valid_name(v, sizeof(sec->ref))) {
			scn_error_at(p, p->line, sec, kd->name, "'%s' is not a name",
				     scn_quote(v, q));
			return false;
		}
		snprintf(sec->ref, sizeof(sec->ref), "%s", v);
		return true;
	case T_STREAMS:
	case T_SIZES:
		return set_list(p, sec, kd, v);
	case T_LOADS:
		return set_loads(p, sec, kd, v);
	case T_LINKCOND:
		return set_cond(p, sec, kd, field, v);
	case T_MEANS:
		return set_means(p, sec, kd, field, v);
	case T_CPUS:
		return set_cpus(p, sec, v);
	}
	return false;
}

int scn_on_key(void *user, const char *section, const char *name, const char *value)
{
	struct parser *p = user;
	struct section *sec = p->cur;
	const struct keydef *kd;
	char list[200];
	size_t used = 0;
	unsigned i;

	if (!p->in_section) {
		scn_error_at(p, p->line, NULL, name, "key before the first [section]");
		return 1;
	}
	if (!sec || strcasecmp(sec->name, section))
		return 1; /* the section was reported already */
	for (i = 0, kd = sec->keys; kd->name; kd++, i++)
		if (!strcasecmp(kd->name, name))
			break;
	if (!kd->name) {
		list[0] = '\0';
		for (kd = sec->keys; kd->name; kd++) {
			int n = snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "",
					 kd->name);

			if (n < 0 || (size_t)n >= sizeof(list) - used)
				break;
			used += (size_t)n;
		}
		scn_error_at(p, p->line, sec, name, "unknown key (expected one of: %s)", list);
		return 1;
	}
	if (sec->seen & (1u << i)) {
		scn_error_at(p, p->line, sec, kd->name, "given twice (first at line %u)",
			     sec->key_line[i]);
		return 1;
	}
	if (set_value(p, sec, kd, value)) {
		sec->seen |= 1u << i;
		sec->key_line[i] = p->line;
	} else {
		sec->bad |= 1u << i;
	}
	return 1;
}
