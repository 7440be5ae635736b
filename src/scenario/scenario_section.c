// SPDX-License-Identifier: MIT
/*
 * Queries on the sections the scenario parser has seen: which section has
 * a name or a kind, whether and on which line a key was given.
 */
#include <strings.h>
#include <string.h>

#include "scenario_int.h"

struct section *scn_find_section(struct parser *p, const char *name)
{
	for (unsigned i = 0; i < p->nsecs; i++)
		if (!strcasecmp(p->secs[i].name, name))
			return &p->secs[i];
	return NULL;
}

unsigned scn_count_kind(const struct parser *p, enum kind kind)
{
	unsigned n = 0;

	for (unsigned i = 0; i < p->nsecs; i++)
		n += p->secs[i].kind == kind;
	return n;
}

static int key_index(const struct section *sec, const char *key)
{
	int i = 0;

	for (const struct keydef *kd = sec->keys; kd->name; kd++, i++)
		if (!strcmp(kd->name, key))
			return i;
	return -1;
}

bool scn_given(const struct section *sec, const char *key)
{
	int i = sec ? key_index(sec, key) : -1;

	return i >= 0 && (sec->seen & (1u << i));
}

unsigned scn_line_of(const struct section *sec, const char *key)
{
	int i = key_index(sec, key);

	return i >= 0 && (sec->seen & (1u << i)) ? sec->key_line[i] : sec->line;
}

struct section *scn_first_of(struct parser *p, enum kind kind)
{
	for (unsigned i = 0; i < p->nsecs; i++)
		if (p->secs[i].kind == kind)
			return &p->secs[i];
	return NULL;
}

void scn_require(struct parser *p, const struct section *sec, const char *key, const char *why)
{
	int i = key_index(sec, key);

	/* a key given with a bad value was reported already */
	if (i >= 0 && (sec->bad & (1u << i)))
		return;
	if (!scn_given(sec, key))
		scn_error_at(p, sec->line, sec, NULL, "missing required key '%s'%s", key, why);
}
