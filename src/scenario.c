// SPDX-License-Identifier: MIT
/*
 * Scenario files (schema in scenario.h). libinih splits lines into section,
 * key and value; a line reader of our own feeds it, so that we know the line
 * number of every key and section (the handler of the system's libinih gets
 * none), and so that lines libinih would reject or silently glue together
 * (too long, no '=', indented continuations, NUL bytes) are reported here
 * with their line. After the last line, scenario_validate() (below) checks
 * what needs the whole file: required keys, references and contradictions.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "knee.h"
#include "load.h"
#include "scenario.h"

#define MAX_SECTIONS 48
#define MAX_KEYS     16 /* per section kind */
#define MAX_ERRORS   24
#define SCN_FILE_MAX (1 << 20)

enum kind {
	K_NONE,
	K_SCENARIO,
	K_LAB,
	K_LINK,
	K_HOST,
	K_PATH,
	K_TCP,
	K_UDP,
	K_SWEEP,
	K_KNEE,
	K_MTU
};

enum vtype {
	T_TEXT, /* printable text, no control characters */
	T_WORD, /* text without blanks (addresses, names) */
	T_LABNAME,
	T_UINT, /* stored by the field's size */
	T_RATE,
	T_DUR,
	T_BOOL,
	T_PCT,	 /* percent, stored as percent */
	T_RATIO, /* percent, stored as a ratio */
	T_FAMILY,
	T_PATHTYPE,
	T_REF, /* a link or host name, resolved after parsing */
	T_STREAMS,
	T_SIZES,
};

struct keydef {
	const char *name;
	enum vtype type;
	size_t off, size;
	uint64_t min, max;
	bool link0; /* [lab]'s keys for its implicit single link */
};

#define KEY(n, t, st, f, lo, hi)                                                                   \
	{                                                                                          \
		n, t, offsetof(st, f), sizeof(((st *)0)->f), lo, hi, false                         \
	}
#define KEY0(n, t, f, lo, hi)                                                                      \
	{                                                                                          \
		n, t, offsetof(struct scenario_link, f), sizeof(((struct scenario_link *)0)->f),   \
		    lo, hi, true                                                                   \
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
    {0}};
static const struct keydef lab_keys[] = {
    KEY("name", T_LABNAME, struct scenario_lab, name, 0, 0),
    KEY("hosts", T_UINT, struct scenario_lab, hosts, 2, LAB_MAX_HOSTS),
    KEY("client", T_UINT, struct scenario_lab, client, 0, LAB_MAX_HOSTS - 1),
    KEY("server", T_UINT, struct scenario_lab, server, 0, LAB_MAX_HOSTS - 1),
    KEY0("mtu", T_UINT, mtu, 68, 65535),
    KEY0("rate", T_RATE, rate_bps, 1000, 0),
    KEY0("drop_pct", T_PCT, drop_pct, 0, 0),
    KEY0("block_icmp", T_BOOL, block_icmp, 0, 0),
    {0}};
static const struct keydef link_keys[] = {
    KEY("a", T_UINT, struct scenario_link, a, 0, LAB_MAX_HOSTS - 1),
    KEY("b", T_UINT, struct scenario_link, b, 0, LAB_MAX_HOSTS - 1),
    KEY("mtu", T_UINT, struct scenario_link, mtu, 68, 65535),
    KEY("rate", T_RATE, struct scenario_link, rate_bps, 1000, 0),
    KEY("drop_pct", T_PCT, struct scenario_link, drop_pct, 0, 0),
    KEY("block_icmp", T_BOOL, struct scenario_link, block_icmp, 0, 0),
    {0}};
static const struct keydef host_keys[] = {
    KEY("address", T_WORD, struct scenario_host, address, 0, 0),
    KEY("port", T_UINT, struct scenario_host, port, 1, 65535),
    KEY("psk_file", T_WORD, struct scenario_host, psk_file, 0, 0),
    {0}};
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
    KEY("expect_mtu", T_UINT, struct scenario_path, expect_mtu, 68, 65535),
    KEY("expect_mss", T_UINT, struct scenario_path, expect_mss, 1, 65535),
    {0}};
static const struct keydef tcp_keys[] = {
    KEY("enabled", T_BOOL, struct scenario_tcp, enabled, 0, 0),
    {"streams", T_STREAMS, 0, 0, 1, LOAD_MAX_STREAMS, false},
    KEY("duration", T_DUR, struct scenario_tcp, duration_ns, 0, 0),
    KEY("len", T_UINT, struct scenario_tcp, len, 1, 16 << 20),
    KEY("mss", T_UINT, struct scenario_tcp, mss, 88, 65495),
    KEY("reverse", T_BOOL, struct scenario_tcp, reverse, 0, 0),
    {0}};
static const struct keydef udp_keys[] = {
    KEY("enabled", T_BOOL, struct scenario_udp, enabled, 0, 0),
    {"sizes", T_SIZES, 0, 0, LOAD_UDP_MIN_LEN, LOAD_UDP_MAX_LEN, false},
    KEY("duration", T_DUR, struct scenario_udp, duration_ns, 0, 0),
    KEY("rate", T_RATE, struct scenario_udp, rate_bps, 0, 0),
    {0}};
static const struct keydef sweep_keys[] = {
    KEY("enabled", T_BOOL, struct scenario_sweep, enabled, 0, 0),
    KEY("from", T_RATE, struct scenario_sweep, from_bps, 1000, 0),
    KEY("to", T_RATE, struct scenario_sweep, to_bps, 1000, 0),
    KEY("step", T_RATE, struct scenario_sweep, step_bps, 1000, 0),
    KEY("duration", T_DUR, struct scenario_sweep, duration_ns, 0, 0),
    {0}};
static const struct keydef knee_keys[] = {
    KEY("enabled", T_BOOL, struct scenario_knee, enabled, 0, 0),
    KEY("min_rate", T_RATE, struct scenario_knee, min_rate_bps, 1000, 0),
    KEY("max_rate", T_RATE, struct scenario_knee, max_rate_bps, 1000, 0),
    KEY("loss_goal", T_RATIO, struct scenario_knee, loss_goal, 0, 0),
    KEY("width_goal", T_RATIO, struct scenario_knee, width_goal, 0, 0),
    KEY("short", T_DUR, struct scenario_knee, short_ns, 0, 0),
    KEY("final", T_DUR, struct scenario_knee, final_ns, 0, 0),
    KEY("max_trials", T_UINT, struct scenario_knee, max_trials, 1, KNEE_MAX_TRIALS),
    {0}};
static const struct keydef mtu_keys[] = {
    KEY("enabled", T_BOOL, struct scenario_mtu, enabled, 0, 0),
    KEY("base", T_UINT, struct scenario_mtu, base, 68, 65535),
    KEY("max", T_UINT, struct scenario_mtu, max, 0, 65535),
    KEY("probes", T_UINT, struct scenario_mtu, probes, 1, 20),
    KEY("timeout", T_DUR, struct scenario_mtu, timeout_ns, 0, 0),
    KEY("mss", T_BOOL, struct scenario_mtu, mss, 0, 0),
    KEY("fragments", T_BOOL, struct scenario_mtu, fragments, 0, 0),
    {0}};

static const struct {
	const char *name; /* "path." for prefixed kinds */
	enum kind kind;
	bool named;
	const struct keydef *keys;
} kinds[] = {
    {"scenario", K_SCENARIO, false, scenario_keys},
    {"lab", K_LAB, false, lab_keys},
    {"link.", K_LINK, true, link_keys},
    {"host.", K_HOST, true, host_keys},
    {"path.", K_PATH, true, path_keys},
    {"tcp", K_TCP, false, tcp_keys},
    {"udp", K_UDP, false, udp_keys},
    {"sweep", K_SWEEP, false, sweep_keys},
    {"knee", K_KNEE, false, knee_keys},
    {"mtu", K_MTU, false, mtu_keys},
};

struct section {
	char name[SCN_NAME_MAX + 16];
	unsigned line;
	enum kind kind;
	unsigned index; /* link/host/path index */
	const struct keydef *keys;
	uint32_t seen; /* bit i: keys[i] given */
	uint32_t bad;  /* bit i: keys[i] given with a bad value */
	unsigned key_line[MAX_KEYS];
	char ref[SCN_NAME_MAX]; /* [path.*] link = / host = */
};

struct parser {
	struct scenario *scn;
	const char *text;
	size_t len, pos;
	unsigned line;
	struct section secs[MAX_SECTIONS];
	unsigned nsecs;
	struct section *cur; /* NULL: keys are ignored (bad section) */
	bool in_section;
	char *err;
	size_t errlen, errused;
	unsigned nerr;
	unsigned line_errors; /* errors before validate(): skip whole-file checks */
	bool lab_ok;	      /* validate_lab() found nothing wrong */
};

__attribute__((format(printf, 5, 0))) static void verror(struct parser *p, unsigned line,
							 const struct section *sec, const char *key,
							 const char *fmt, va_list ap)
{
	char msg[256], where[96] = "", full[640];
	size_t room, n;

	p->nerr++;
	if (!p->err || !p->errlen || p->nerr > MAX_ERRORS + 1)
		return;
	if (p->nerr == MAX_ERRORS + 1) {
		snprintf(full, sizeof(full), "%s: too many errors, the list stops here\n",
			 p->scn->file);
	} else {
		vsnprintf(msg, sizeof(msg), fmt, ap);
		if (sec && key)
			snprintf(where, sizeof(where), "[%s] %s: ", sec->name, key);
		else if (sec)
			snprintf(where, sizeof(where), "[%s]: ", sec->name);
		else if (key)
			snprintf(where, sizeof(where), "%s: ", key);
		if (line)
			snprintf(full, sizeof(full), "%s:%u: %s%s\n", p->scn->file, line, where,
				 msg);
		else
			snprintf(full, sizeof(full), "%s: %s%s\n", p->scn->file, where, msg);
	}
	room = p->errlen - p->errused;
	n = strlen(full);
	if (room <= 1)
		return;
	if (n >= room)
		n = room - 1;
	memcpy(p->err + p->errused, full, n);
	p->errused += n;
	p->err[p->errused] = '\0';
}

static void __attribute__((format(printf, 5, 6)))
error_at(struct parser *p, unsigned line, const struct section *sec, const char *key,
	 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(p, line, sec, key, fmt, ap);
	va_end(ap);
}

/* A value quoted in a message: printable, at most 60 characters. */
static const char *quote(const char *v, char buf[static 64])
{
	size_t i = 0;

	for (; v[i] && i < 60; i++)
		buf[i] = isprint((unsigned char)v[i]) ? v[i] : '?';
	buf[i] = '\0';
	if (v[i])
		memcpy(buf + 57, "...", 4);
	return buf;
}

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

static struct section *find_section(struct parser *p, const char *name)
{
	for (unsigned i = 0; i < p->nsecs; i++)
		if (!strcasecmp(p->secs[i].name, name))
			return &p->secs[i];
	return NULL;
}

static unsigned count_kind(const struct parser *p, enum kind kind)
{
	unsigned n = 0;

	for (unsigned i = 0; i < p->nsecs; i++)
		n += p->secs[i].kind == kind;
	return n;
}

static void on_section(struct parser *p, const char *name)
{
	struct section *sec, *prev;
	size_t pl;

	p->cur = NULL;
	p->in_section = true;
	if ((prev = find_section(p, name))) {
		error_at(p, p->line, NULL, NULL, "[%s]: section given twice (first at line %u)",
			 name, prev->line);
		return;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		pl = strlen(kinds[i].name);
		if (kinds[i].named ? strncasecmp(name, kinds[i].name, pl)
				   : strcasecmp(name, kinds[i].name))
			continue;
		if (kinds[i].named && !valid_name(name + pl, SCN_NAME_MAX)) {
			error_at(p, p->line, NULL, NULL,
				 "[%s]: '%s' is not a name (1 to %d of A-Z a-z 0-9 _ -)", name,
				 name + pl, SCN_NAME_MAX - 1);
			return;
		}
		if (p->nsecs >= MAX_SECTIONS) {
			error_at(p, p->line, NULL, NULL, "[%s]: too many sections", name);
			return;
		}
		sec = &p->secs[p->nsecs];
		memset(sec, 0, sizeof(*sec));
		snprintf(sec->name, sizeof(sec->name), "%s", name);
		sec->line = p->line;
		sec->kind = kinds[i].kind;
		sec->keys = kinds[i].keys;
		sec->index = count_kind(p, sec->kind);
		if ((sec->kind == K_PATH && sec->index >= SCN_MAX_PATHS) ||
		    (sec->kind == K_HOST && sec->index >= SCN_MAX_HOSTS) ||
		    (sec->kind == K_LINK && sec->index >= LAB_MAX_LINKS)) {
			error_at(p, p->line, NULL, NULL,
				 "[%s]: too many [%s*] sections (at most %d)", name, kinds[i].name,
				 sec->kind == K_PATH   ? SCN_MAX_PATHS
				 : sec->kind == K_HOST ? SCN_MAX_HOSTS
						       : LAB_MAX_LINKS);
			return;
		}
		p->nsecs++;
		p->cur = sec;
		return;
	}
	error_at(p, p->line, NULL, NULL,
		 "[%s]: unknown section (expected scenario, lab, link.NAME, host.NAME, "
		 "path.NAME, tcp, udp, sweep, knee or mtu)",
		 name);
}

/* Looks at one raw line before libinih does; returns false to replace it by
 * an empty line (after reporting what is wrong with it). */
static bool screen_line(struct parser *p, const char *line, size_t len)
{
	size_t i = 0, end;
	char name[SCN_NAME_MAX + 16];

	if (memchr(line, '\0', len)) {
		error_at(p, p->line, NULL, NULL, "line contains a NUL byte");
		return false;
	}
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == len || line[i] == ';' || line[i] == '#')
		return true;
	if (i > 0) {
		error_at(p, p->line, NULL, NULL,
			 "indented line (continuation lines are not supported)");
		return false;
	}
	if (line[0] == '[') {
		const char *close = memchr(line, ']', len);

		if (!close) {
			error_at(p, p->line, NULL, NULL, "section header without ']'");
			p->cur = NULL;
			p->in_section = true;
			return false;
		}
		end = (size_t)(close - line);
		for (size_t j = end + 1; j < len; j++) {
			if (line[j] == ';' || line[j] == '#')
				break;
			if (line[j] != ' ' && line[j] != '\t') {
				error_at(p, p->line, NULL, NULL, "text after the section header");
				break;
			}
		}
		if (end - 1 >= sizeof(name) || end < 2) {
			error_at(p, p->line, NULL, NULL, "section name empty or too long");
			p->cur = NULL;
			p->in_section = true;
			return false;
		}
		memcpy(name, line + 1, end - 1);
		name[end - 1] = '\0';
		on_section(p, name);
		return true;
	}
	/* libinih stops at an inline comment (';' after a blank) before '='. */
	for (end = 0; end < len && line[end] != '=' && line[end] != ':'; end++)
		if (line[end] == ';' && end && (line[end - 1] == ' ' || line[end - 1] == '\t'))
			end = len - 1;
	if (end == len) {
		error_at(p, p->line, NULL, NULL, "expected 'key = value'");
		return false;
	}
	if (end == 0) {
		error_at(p, p->line, NULL, NULL, "a key is missing before '%c'", line[end]);
		return false;
	}
	return true;
}

/* libinih's fgets-like reader over the text in memory. */
static char *read_line(char *str, int num, void *stream)
{
	struct parser *p = stream;
	const char *start, *nl;
	size_t len, take;

	if (p->pos >= p->len || num < 4)
		return NULL;
	start = p->text + p->pos;
	nl = memchr(start, '\n', p->len - p->pos);
	len = nl ? (size_t)(nl - start) : p->len - p->pos;
	p->pos += len + (nl ? 1 : 0);
	p->line++;
	/* A UTF-8 byte order mark is allowed before the first line. */
	if (p->line == 1 && len >= 3 && !memcmp(start, "\xef\xbb\xbf", 3)) {
		start += 3;
		len -= 3;
	}
	take = len;
	if (take && start[take - 1] == '\r')
		take--;
	if (take > SCN_LINE_MAX || take + 2 > (size_t)num) {
		error_at(p, p->line, NULL, NULL, "line longer than %d characters",
			 take + 2 > (size_t)num && num - 2 < SCN_LINE_MAX ? num - 2 : SCN_LINE_MAX);
		strcpy(str, "\n");
		return str;
	}
	if (!screen_line(p, start, take)) {
		strcpy(str, "\n");
		return str;
	}
	memcpy(str, start, take);
	str[take] = '\n';
	str[take + 1] = '\0';
	return str;
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
			error_at(p, p->line, sec, kd->name,
				 word ? "must be one word" : "contains a control character");
			return false;
		}
	}
	if (!*v) {
		error_at(p, p->line, sec, kd->name, "is empty");
		return false;
	}
	if (strlen(v) >= kd->size) {
		error_at(p, p->line, sec, kd->name, "too long (at most %zu characters)",
			 kd->size - 1);
		return false;
	}
	if (kd->type == T_LABNAME) {
		for (const char *c = v; *c; c++) {
			if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) &&
			    *c != '-') {
				error_at(p, p->line, sec, kd->name,
					 "'%s' is not a lab name (1 to %d of a-z 0-9 -)", v,
					 LAB_NAME_MAX);
				return false;
			}
		}
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

	if (!scenario_parse_list(v, 0, UINT32_MAX, vals, SCN_MAX_LIST, &n)) {
		error_at(p, p->line, sec, kd->name, "'%s' is not a list of %s (at most %d)",
			 quote(v, q), what, SCN_MAX_LIST);
		return false;
	}
	for (unsigned i = 0; i < n; i++) {
		if (vals[i] < kd->min || vals[i] > kd->max) {
			error_at(p, p->line, sec, kd->name, "%llu is out of range (%llu..%llu)",
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

static bool set_value(struct parser *p, struct section *sec, const struct keydef *kd, const char *v)
{
	void *obj = section_object(p, sec, kd->link0);
	char *field = (char *)obj + kd->off;
	uint64_t u;
	double d;
	bool b;
	char q[64];

	switch (kd->type) {
	case T_TEXT:
	case T_WORD:
	case T_LABNAME:
		return set_text(p, sec, kd, field, v);
	case T_UINT:
		if (!scenario_parse_uint(v, 0, UINT64_MAX, &u)) {
			error_at(p, p->line, sec, kd->name, "'%s' is not a whole number",
				 quote(v, q));
			return false;
		}
		if (u < kd->min || u > kd->max) {
			error_at(p, p->line, sec, kd->name, "%llu is out of range (%llu..%llu)",
				 (unsigned long long)u, (unsigned long long)kd->min,
				 (unsigned long long)kd->max);
			return false;
		}
		store_uint(field, kd->size, u);
		return true;
	case T_RATE:
		if (!scenario_parse_rate(v, &u)) {
			error_at(p, p->line, sec, kd->name,
				 "'%s' is not a rate (bit/s, e.g. 500k, 100M, 1.5G)", quote(v, q));
			return false;
		}
		if (u < kd->min) {
			error_at(p, p->line, sec, kd->name, "%s is too low (at least %llu bit/s)",
				 quote(v, q), (unsigned long long)kd->min);
			return false;
		}
		memcpy(field, &u, sizeof(u));
		return true;
	case T_DUR:
		if (!scenario_parse_duration(v, &u)) {
			error_at(p, p->line, sec, kd->name,
				 "'%s' is not a duration (e.g. 500ms, 10s, 2m)", quote(v, q));
			return false;
		}
		memcpy(field, &u, sizeof(u));
		return true;
	case T_BOOL:
		if (!scenario_parse_bool(v, &b)) {
			error_at(p, p->line, sec, kd->name, "'%s' is not yes or no", quote(v, q));
			return false;
		}
		memcpy(field, &b, sizeof(b));
		return true;
	case T_PCT:
	case T_RATIO:
		if (!scenario_parse_percent(v, &d)) {
			error_at(p, p->line, sec, kd->name,
				 "'%s' is not a percentage (0 to 100, e.g. 0.5 or 0.5%%)",
				 quote(v, q));
			return false;
		}
		if (kd->type == T_RATIO)
			d /= 100;
		memcpy(field, &d, sizeof(d));
		return true;
	case T_FAMILY:
		if (!set_family((int *)(void *)field, v)) {
			error_at(p, p->line, sec, kd->name, "'%s' is not 4 or 6", quote(v, q));
			return false;
		}
		return true;
	case T_PATHTYPE: {
		static const char *const names[] = {"underlay", "builtin", "external"};

		for (int i = 0; i < 3; i++) {
			if (!strcasecmp(v, names[i])) {
				enum scenario_path_type t = (enum scenario_path_type)(i + 1);

				memcpy(field, &t, sizeof(t));
				return true;
			}
		}
		error_at(p, p->line, sec, kd->name, "'%s' is not underlay, builtin or external",
			 quote(v, q));
		return false;
	}
	case T_REF:
		if (!valid_name(v, sizeof(sec->ref))) {
			error_at(p, p->line, sec, kd->name, "'%s' is not a name", quote(v, q));
			return false;
		}
		snprintf(sec->ref, sizeof(sec->ref), "%s", v);
		return true;
	case T_STREAMS:
	case T_SIZES:
		return set_list(p, sec, kd, v);
	}
	return false;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct parser *p = user;
	struct section *sec = p->cur;
	const struct keydef *kd;
	char list[200];
	size_t used = 0;
	unsigned i;

	if (!p->in_section) {
		error_at(p, p->line, NULL, name, "key before the first [section]");
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
		error_at(p, p->line, sec, name, "unknown key (expected one of: %s)", list);
		return 1;
	}
	if (sec->seen & (1u << i)) {
		error_at(p, p->line, sec, kd->name, "given twice (first at line %u)",
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

/* --- after the last line: what needs the whole file --- */

static int key_index(const struct section *sec, const char *key)
{
	int i = 0;

	for (const struct keydef *kd = sec->keys; kd->name; kd++, i++)
		if (!strcmp(kd->name, key))
			return i;
	return -1;
}

static bool given(const struct section *sec, const char *key)
{
	int i = sec ? key_index(sec, key) : -1;

	return i >= 0 && (sec->seen & (1u << i));
}

/* The line of a key, or of its section when the key is absent. */
static unsigned line_of(const struct section *sec, const char *key)
{
	int i = key_index(sec, key);

	return i >= 0 && (sec->seen & (1u << i)) ? sec->key_line[i] : sec->line;
}

static struct section *first_of(struct parser *p, enum kind kind)
{
	for (unsigned i = 0; i < p->nsecs; i++)
		if (p->secs[i].kind == kind)
			return &p->secs[i];
	return NULL;
}

static void require(struct parser *p, const struct section *sec, const char *key, const char *why)
{
	int i = key_index(sec, key);

	/* a key given with a bad value was reported already */
	if (i >= 0 && (sec->bad & (1u << i)))
		return;
	if (!given(sec, key))
		error_at(p, sec->line, sec, NULL, "missing required key '%s'%s", key, why);
}

static void validate_lab(struct parser *p)
{
	struct scenario *s = p->scn;
	struct scenario_lab *lab = &s->lab;
	struct section *ls = first_of(p, K_LAB);
	unsigned nlinks = count_kind(p, K_LINK), j = 0;

	if (ls)
		lab->line = ls->line;
	if (nlinks) {
		static const char *const link0[] = {"mtu", "rate", "drop_pct", "block_icmp"};

		for (int k = 0; ls && k < 4; k++)
			if (given(ls, link0[k]))
				error_at(
				    p, line_of(ls, link0[k]), ls, link0[k],
				    "link settings go in the [link.*] sections when there are any");
		for (unsigned i = 0; i < p->nsecs; i++) {
			struct section *sec = &p->secs[i];
			struct scenario_link *l = &lab->links[sec->index];

			if (sec->kind != K_LINK)
				continue;
			/* section_object() wrote the keys there already: keep them */
			snprintf(l->name, sizeof(l->name), "%s", sec->name + 5);
			l->line = sec->line;
			require(p, sec, "a", " (host index of one end)");
			require(p, sec, "b", " (host index of the other end)");
			j++;
		}
		lab->nlinks = j;
	} else {
		/* like `ovlperf lab up --hosts N`: a chain 0-1, 1-2, ... whose
		 * links all carry [lab]'s link settings */
		struct scenario_link l0 = lab->links[0];

		lab->nlinks = lab->hosts - 1;
		for (unsigned i = 0; i < lab->nlinks; i++) {
			lab->links[i] = l0;
			lab->links[i].a = i;
			lab->links[i].b = i + 1;
		}
	}
	for (unsigned i = 0; i < p->nsecs; i++) {
		struct section *sec = &p->secs[i];
		struct scenario_link *l;

		if (sec->kind != K_LINK)
			continue;
		l = &lab->links[sec->index];
		if (given(sec, "a") && l->a >= lab->hosts)
			error_at(p, line_of(sec, "a"), sec, "a",
				 "host %u does not exist (hosts = %u)", l->a, lab->hosts);
		if (given(sec, "b") && l->b >= lab->hosts)
			error_at(p, line_of(sec, "b"), sec, "b",
				 "host %u does not exist (hosts = %u)", l->b, lab->hosts);
		if (given(sec, "a") && given(sec, "b") && l->a == l->b)
			error_at(p, line_of(sec, "b"), sec, "b",
				 "a link joins two different hosts");
	}
	if (lab->client >= lab->hosts)
		error_at(p, line_of(ls, "client"), ls, "client",
			 "host %u does not exist (hosts = %u)", lab->client, lab->hosts);
	else if (lab->server >= lab->hosts)
		error_at(p, line_of(ls, "server"), ls, "server",
			 "host %u does not exist (hosts = %u)", lab->server, lab->hosts);
	else if (lab->client == lab->server)
		error_at(p, line_of(ls, "server"), ls, "server",
			 "the server must not be the client");
}

static bool touches(const struct scenario_link *l, unsigned host)
{
	return l->a == host || l->b == host;
}

/* Index of the link named (or numbered) ref; when ref is empty, of the first
 * link joining client and server, else of the first link of the server (the
 * lab routes between hosts); -1 if none. */
static int find_link(const struct scenario_lab *lab, const char *ref)
{
	uint64_t idx;

	for (unsigned i = 0; i < lab->nlinks; i++) {
		const struct scenario_link *l = &lab->links[i];

		if (ref[0] ? !strcmp(l->name, ref)
			   : touches(l, lab->client) && touches(l, lab->server))
			return (int)i;
	}
	if (ref[0])
		return scenario_parse_uint(ref, 0, lab->nlinks - 1, &idx) ? (int)idx : -1;
	for (unsigned i = 0; i < lab->nlinks; i++)
		if (touches(&lab->links[i], lab->server))
			return (int)i;
	return -1;
}

static int numeric_family(const char *addr)
{
	unsigned char b[16];

	if (inet_pton(AF_INET, addr, b) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, addr, b) == 1)
		return AF_INET6;
	return AF_UNSPEC;
}

static void validate_path_keys(struct parser *p, struct section *sec, struct scenario_path *ps)
{
	static const char *const builtin_only[] = {"mtu", "cipher", "underlay_family"};
	static const char *const external_only[] = {"setup", "teardown"};
	int fam = numeric_family(ps->address);

	for (int k = 0; k < 3; k++)
		if (ps->type != SCN_PATH_BUILTIN && given(sec, builtin_only[k]))
			error_at(p, line_of(sec, builtin_only[k]), sec, builtin_only[k],
				 "only for builtin paths (this one is %s)",
				 scenario_path_type_name(ps->type));
	for (int k = 0; k < 2; k++)
		if (ps->type != SCN_PATH_EXTERNAL && given(sec, external_only[k]))
			error_at(p, line_of(sec, external_only[k]), sec, external_only[k],
				 "only for external paths (this one is %s)",
				 scenario_path_type_name(ps->type));
	if (ps->type == SCN_PATH_EXTERNAL)
		require(p, sec, "address", " (the far end's overlay address)");
	if (!given(sec, "family") && fam != AF_UNSPEC)
		ps->family = fam;
	else if (fam != AF_UNSPEC && fam != ps->family)
		error_at(p, line_of(sec, "address"), sec, "address", "is IPv%c but family = %c",
			 fam == AF_INET ? '4' : '6', ps->family == AF_INET ? '4' : '6');
}

static void validate_paths(struct parser *p)
{
	struct scenario *s = p->scn;

	s->npaths = count_kind(p, K_PATH);
	if (!s->npaths && !p->line_errors)
		error_at(p, 0, NULL, NULL,
			 "no [path.NAME] section: name at least one path to measure "
			 "(e.g. [path.native] type = underlay)");
	for (unsigned i = 0; i < p->nsecs; i++) {
		struct section *sec = &p->secs[i];
		struct scenario_path *ps = &s->paths[sec->index];
		char q[64];

		if (sec->kind != K_PATH)
			continue;
		snprintf(ps->name, sizeof(ps->name), "%s", sec->name + 5);
		ps->line = sec->line;
		if (!given(sec, "type")) {
			require(p, sec, "type", " (underlay, builtin or external)");
			continue;
		}
		validate_path_keys(p, sec, ps);
		if (s->is_lab) {
			int l = find_link(&s->lab, sec->ref);

			if (given(sec, "host"))
				error_at(p, line_of(sec, "host"), sec, "host",
					 "only for scenarios with [host.*] sections");
			else if (l < 0 && given(sec, "link"))
				error_at(p, line_of(sec, "link"), sec, "link",
					 "no [link.%s] section", sec->ref);
			else if (l < 0 && p->lab_ok)
				error_at(p, sec->line, sec, NULL,
					 "no link reaches server host %u (client host %u)",
					 s->lab.server, s->lab.client);
			else
				ps->link = (unsigned)l;
			if (ps->address[0] && !scenario_addr_is_benchmark(ps->address))
				error_at(p, line_of(sec, "address"), sec, "address",
					 "'%s' is not in 198.18.0.0/15 or 2001:2::/48: a lab "
					 "scenario sends nowhere else",
					 quote(ps->address, q));
			continue;
		}
		if (ps->type == SCN_PATH_BUILTIN)
			error_at(p, line_of(sec, "type"), sec, "type",
				 "builtin paths need a lab: ovlperf starts its own overlay only in "
				 "lab hosts (use external for a tunnel you run)");
		if (given(sec, "link"))
			error_at(p, line_of(sec, "link"), sec, "link", "only for lab scenarios");
		if (sec->ref[0] && given(sec, "host")) {
			struct section *hs = NULL;
			char hname[SCN_NAME_MAX + 8];

			snprintf(hname, sizeof(hname), "host.%s", sec->ref);
			hs = find_section(p, hname);
			if (!hs || hs->kind != K_HOST)
				error_at(p, line_of(sec, "host"), sec, "host",
					 "no [host.%s] section", sec->ref);
			else
				ps->host = hs->index;
		} else if (s->nhosts > 1) {
			error_at(p, sec->line, sec, NULL,
				 "name its host (host = NAME): the scenario has %u hosts",
				 s->nhosts);
		}
	}
}

static void validate_durations(struct parser *p, struct section *sec, const char *key, uint64_t *ns,
			       uint64_t dflt)
{
	if (sec && given(sec, key)) {
		if (!*ns)
			error_at(p, line_of(sec, key), sec, key, "must be above 0");
	} else {
		*ns = dflt;
	}
}

static bool enabled_by_section(struct section *sec, bool *enabled)
{
	if (sec && !given(sec, "enabled"))
		*enabled = true;
	return sec && *enabled;
}

static void validate_sweep(struct parser *p, struct section *sec)
{
	struct scenario_sweep *sw = &p->scn->sweep;
	require(p, sec, "from", " (lowest offered rate, e.g. 100M)");
	require(p, sec, "to", " (highest offered rate)");
	require(p, sec, "step", "");
	if (!given(sec, "from") || !given(sec, "to") || !given(sec, "step"))
		return;
	if (sw->from_bps > sw->to_bps) {
		error_at(p, line_of(sec, "to"), sec, "to", "is below from");
		return;
	}
	if ((sw->to_bps - sw->from_bps) / sw->step_bps + 1 > SCN_SWEEP_MAX_POINTS)
		error_at(p, line_of(sec, "step"), sec, "step",
			 "makes more than %d trials from 'from' to 'to'", SCN_SWEEP_MAX_POINTS);
}

static void validate_knee(struct parser *p, struct section *sec)
{
	struct scenario_knee *k = &p->scn->knee;

	require(p, sec, "max_rate", " (the first trial's offered rate, e.g. 1G)");
	if (given(sec, "min_rate") && given(sec, "max_rate") && k->min_rate_bps >= k->max_rate_bps)
		error_at(p, line_of(sec, "min_rate"), sec, "min_rate", "must be below max_rate");
	if (k->loss_goal >= 1)
		error_at(p, line_of(sec, "loss_goal"), sec, "loss_goal", "must be below 100%%");
	if (k->width_goal <= 0 || k->width_goal >= 0.5)
		error_at(p, line_of(sec, "width_goal"), sec, "width_goal",
			 "must be above 0 and below 50%%");
	if (!k->short_ns)
		error_at(p, line_of(sec, "short"), sec, "short", "must be above 0");
	else if (k->final_ns < k->short_ns)
		error_at(p, line_of(sec, "final"), sec, "final",
			 "must not be shorter than short (%.3g s)", (double)k->short_ns / 1e9);
}

static void validate_loads(struct parser *p)
{
	struct scenario *s = p->scn;
	struct section *ss = first_of(p, K_SCENARIO), *ts = first_of(p, K_TCP);
	struct section *us = first_of(p, K_UDP), *ws = first_of(p, K_SWEEP);
	struct section *ks = first_of(p, K_KNEE), *ms = first_of(p, K_MTU);
	bool sweep = enabled_by_section(ws, &s->sweep.enabled);
	bool knee = enabled_by_section(ks, &s->knee.enabled);

	validate_durations(p, ss, "duration", &s->duration_ns, SCN_DEFAULT_DURATION_NS);
	if (ss && given(ss, "omit") && s->omit_ns >= s->duration_ns)
		error_at(p, line_of(ss, "omit"), ss, "omit", "must be shorter than the duration");
	enabled_by_section(ts, &s->tcp.enabled);
	if (ts)
		s->tcp.line = ts->line;
	validate_durations(p, ts, "duration", &s->tcp.duration_ns, s->duration_ns);
	if (!s->tcp.nstreams) {
		s->tcp.nstreams = 1;
		s->tcp.streams[0] = 1;
	}
	if (us && given(us, "enabled") && !s->udp.enabled && (sweep || knee))
		error_at(p, line_of(us, "enabled"), us, "enabled", "is no, but [%s] sweeps UDP",
			 sweep ? "sweep" : "knee");
	if (!enabled_by_section(us, &s->udp.enabled) && (sweep || knee))
		s->udp.enabled = true;
	if (us)
		s->udp.line = us->line;
	validate_durations(p, us, "duration", &s->udp.duration_ns, s->duration_ns);
	if (!s->udp.nsizes) {
		s->udp.nsizes = 1;
		s->udp.sizes[0] = SCN_DEFAULT_UDP_LEN;
	}
	if (ws)
		s->sweep.line = ws->line;
	validate_durations(p, ws, "duration", &s->sweep.duration_ns, s->udp.duration_ns);
	if (sweep)
		validate_sweep(p, ws);
	if (ks)
		s->knee.line = ks->line;
	if (knee)
		validate_knee(p, ks);
	if (ms)
		s->mtu.line = ms->line;
	if (enabled_by_section(ms, &s->mtu.enabled) && s->mtu.max && s->mtu.max < s->mtu.base)
		error_at(p, line_of(ms, "max"), ms, "max", "is below base (%u)", s->mtu.base);
	if (!s->tcp.enabled && !s->udp.enabled && !s->mtu.enabled && !p->line_errors)
		error_at(
		    p, ss ? ss->line : 0, ss, NULL,
		    "nothing to measure: add a [tcp], [udp], [sweep], [knee] or [mtu] section");
}

static void validate(struct parser *p)
{
	struct scenario *s = p->scn;
	struct section *hs = first_of(p, K_HOST), *ls = first_of(p, K_LAB);
	struct section *lks = first_of(p, K_LINK);

	if (!s->name[0]) {
		const char *base = strrchr(s->file, '/');
		size_t n = 0;

		for (base = base ? base + 1 : s->file; *base && n < SCN_NAME_MAX - 1; base++) {
			if (!strcmp(base, ".ini"))
				break;
			s->name[n++] = isalnum((unsigned char)*base) || *base == '-' ? *base : '_';
		}
		s->name[n] = '\0';
	}
	p->line_errors = p->nerr;
	s->nhosts = count_kind(p, K_HOST);
	if (hs && (ls || lks)) {
		struct section *lab = ls ? ls : lks;

		error_at(p, hs->line, hs, NULL,
			 "a scenario runs either in a lab ([lab], [link.*]) or on real hosts "
			 "([host.*]), not both ([%s] at line %u)",
			 lab->name, lab->line);
		return;
	}
	s->is_lab = !hs;
	if (s->is_lab) {
		unsigned before = p->nerr;

		validate_lab(p);
		p->lab_ok = p->nerr == before;
	} else {
		for (unsigned i = 0; i < p->nsecs; i++) {
			struct section *sec = &p->secs[i];

			if (sec->kind != K_HOST)
				continue;
			snprintf(s->hosts[sec->index].name, SCN_NAME_MAX, "%s", sec->name + 5);
			s->hosts[sec->index].line = sec->line;
			require(p, sec, "address", " (the server's name or address)");
		}
	}
	validate_paths(p);
	validate_loads(p);
}

void scenario_defaults(struct scenario *scn)
{
	memset(scn, 0, sizeof(*scn));
	scn->repetitions = SCN_DEFAULT_REPETITIONS;
	scn->duration_ns = SCN_DEFAULT_DURATION_NS;
	scn->interleave = true;
	scn->is_lab = true;
	snprintf(scn->lab.name, sizeof(scn->lab.name), "%s", LAB_DEFAULT_NAME);
	scn->lab.hosts = 2;
	scn->lab.client = 0;
	scn->lab.server = 1;
	scn->lab.nlinks = 1;
	scn->lab.links[0].a = 0;
	scn->lab.links[0].b = 1;
	for (int i = 0; i < SCN_MAX_PATHS; i++) {
		scn->paths[i].family = AF_INET;
		scn->paths[i].underlay_family = AF_INET;
	}
	scn->knee.loss_goal = KNEE_DEFAULT_LOSS_GOAL;
	scn->knee.width_goal = KNEE_DEFAULT_WIDTH_GOAL;
	scn->knee.short_ns = KNEE_DEFAULT_SHORT_NS;
	scn->knee.final_ns = KNEE_DEFAULT_FINAL_NS;
	scn->knee.max_trials = KNEE_DEFAULT_MAX_TRIALS;
	scn->mtu.base = 1200;
	scn->mtu.probes = 3;
	scn->mtu.timeout_ns = 1000000000ULL;
	scn->mtu.mss = true;
	scn->mtu.fragments = true;
}

int scenario_parse(const char *name, const char *text, size_t len, struct scenario *scn, char *err,
		   size_t errlen)
{
	struct parser *p;
	int rc;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	scenario_defaults(scn);
	snprintf(scn->file, sizeof(scn->file), "%s", name);
	p->scn = scn;
	p->text = text;
	p->len = len;
	p->err = err;
	p->errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
	rc = ini_parse_stream(read_line, p, on_key, p);
	if (rc < 0) {
		free(p);
		return -ENOMEM;
	}
	if (rc > 0 && !p->nerr)
		error_at(p, (unsigned)rc, NULL, NULL, "syntax error");
	validate(p);
	rc = p->nerr ? -EINVAL : 0;
	free(p);
	return rc;
}

int scenario_load(const char *file, struct scenario *scn, char *err, size_t errlen)
{
	struct stat st;
	char *text = NULL;
	size_t got = 0;
	int fd, rc = 0;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > SCN_FILE_MAX) {
		rc = fd < 0 ? -errno : !S_ISREG(st.st_mode) ? -EISDIR : -EFBIG;
		if (err && errlen)
			snprintf(err, errlen, "%s: cannot read: %s\n", file,
				 rc == -EFBIG ? "larger than 1 MiB" : strerror(-rc));
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		rc = -ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, text + got, (size_t)st.st_size - got);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		got += (size_t)n;
	}
	rc = scenario_parse(file, text, got, scn, err, errlen);
out:
	free(text);
	if (fd >= 0)
		close(fd);
	return rc;
}

void scenario_lab_spec(const struct scenario *scn, struct lab_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	snprintf(spec->name, sizeof(spec->name), "%s", scn->lab.name);
	spec->nhosts = scn->lab.hosts;
	spec->nlinks = scn->lab.nlinks;
	for (unsigned i = 0; i < scn->lab.nlinks && i < LAB_MAX_LINKS; i++) {
		const struct scenario_link *l = &scn->lab.links[i];

		spec->links[i] = (struct lab_link_spec){.a = l->a,
							.b = l->b,
							.mtu = l->mtu,
							.rate_bps = l->rate_bps,
							.drop_pct = l->drop_pct,
							.block_icmp_too_big = l->block_icmp};
	}
}

int scenario_find_path(const struct scenario *scn, const char *name)
{
	for (unsigned i = 0; i < scn->npaths && i < SCN_MAX_PATHS; i++)
		if (!strcmp(scn->paths[i].name, name))
			return (int)i;
	return -1;
}

const char *scenario_path_type_name(enum scenario_path_type type)
{
	switch (type) {
	case SCN_PATH_UNDERLAY:
		return "underlay";
	case SCN_PATH_BUILTIN:
		return "builtin";
	case SCN_PATH_EXTERNAL:
		return "external";
	}
	return "?";
}
