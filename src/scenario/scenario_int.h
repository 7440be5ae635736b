/* SPDX-License-Identifier: MIT */
/*
 * Private to the scenario parser (src/scenario*.c): the parser state, the
 * key tables' types and the helpers its files share. The parts:
 *   scenario.c           entry points: defaults, parse, load, lookups
 *   scenario_reader.c    the line-counting reader that feeds libinih
 *   scenario_keys.c      the schema (key tables) and the section/key handlers
 *   scenario_section.c   queries on the sections seen (given, line_of, ...)
 *   scenario_validate.c  after the last line: checks that need the whole file
 *   scenario_error.c     the error list ("FILE:LINE: [SECTION] KEY: ...")
 *   scenario_value.c, scenario_addr.c  value parsers (and path types' names),
 *                        the lab's target check
 */
#ifndef OVLPERF_SCENARIO_INT_H
#define OVLPERF_SCENARIO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario.h"

#define MAX_SECTIONS 48
#define MAX_KEYS     32 /* per section kind: at most the bits of struct section's seen */
#define MAX_ERRORS   24

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
	T_BYTES, /* a size in bytes (4k, 16M: binary), stored by the field's size */
	T_BOOL,
	T_PCT,	 /* percent, stored as percent */
	T_RATIO, /* percent, stored as a ratio */
	T_FAMILY,
	T_LINKLAYER, /* how a link's shaper counts: frame or line (lab.h) */
	T_LAYER,     /* payload, ip, frame (or line, when hi is LAYER_LINE) */
	T_PATHTYPE,
	T_REF, /* a link or host name, resolved after parsing */
	T_STREAMS,
	T_SIZES,
	T_LOADS,    /* [udp] delay_loads: a list of percentages */
	T_LINKCOND, /* a WAN condition of a link: link_conf_set() (link.h) */
	T_MEANS,    /* how the conditions are made: auto, netem, userspace */
	T_CPUS,	    /* [lab] cpus: each host's CPU list, "0|1" (lab.h) */
};

struct keydef {
	const char *name;
	enum vtype type;
	size_t off, size;
	uint64_t min, max;
	bool link0; /* [lab]'s keys for its implicit single link */
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

/* scenario_error.c: appends "FILE:LINE: [SECTION] KEY: message" to the error
 * list (line 0: no line; sec, key: NULL when none). */
void __attribute__((format(printf, 5, 6)))
scn_error_at(struct parser *p, unsigned line, const struct section *sec, const char *key,
	     const char *fmt, ...);
/* A value quoted in a message: printable, at most 60 characters. */
const char *scn_quote(const char *v, char buf[static 64]);

/* scenario_reader.c: libinih's fgets-like reader over the text in memory. */
char *scn_read_line(char *str, int num, void *stream);

/* scenario_keys.c: libinih's handlers for a section header and a key. */
void scn_on_section(struct parser *p, const char *name);
int scn_on_key(void *user, const char *section, const char *name, const char *value);

/* scenario_section.c: the sections seen so far. */
struct section *scn_find_section(struct parser *p, const char *name);
unsigned scn_count_kind(const struct parser *p, enum kind kind);
struct section *scn_first_of(struct parser *p, enum kind kind);
/* scenario_layers.c: the layer keys, sizes into payloads (after the paths
 * and loads are validated). */
void scn_validate_layers(struct parser *p);
bool scn_given(const struct section *sec, const char *key);
/* The line of a key, or of its section when the key is absent. */
unsigned scn_line_of(const struct section *sec, const char *key);
void scn_require(struct parser *p, const struct section *sec, const char *key, const char *why);

/* scenario_validate.c: what needs the whole file (required keys,
 * references, contradictions); fills the derived fields of the scenario. */
void scn_validate(struct parser *p);

/* scenario_value.c: a path's type by its name (underlay, builtin,
 * external; any case). False when s names none. */
bool scn_parse_path_type(const char *s, enum scenario_path_type *type);
/* scenario_value.c: "50%, 90%": 1..max percentages, each above 0 and at most
 * 100, separated by commas, no two alike. 0, or -EINVAL with why (at least
 * VALUE_WHY_MAX) saying which one is wrong and the allowed range. */
int scn_parse_pct_list(const char *s, double *vals, unsigned max, unsigned *n, char *why,
		       size_t whylen);

#endif
