// SPDX-License-Identifier: MIT
/*
 * Printers of the link's counters (`ovlperf link show`, and the lab's show):
 * a table with a column per direction, or one JSON object. Names come from
 * link_counter_fields[], so a new counter shows up in both.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "link.h"

static uint64_t field(const struct link_dir_counters *d, size_t i)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)d + link_counter_fields[i].offset, sizeof(v));
	return v;
}

static uint64_t age_ns(const struct link_counters *c)
{
	return c->updated_ns > c->started_ns ? c->updated_ns - c->started_ns : 0;
}

int link_counters_print(FILE *f, const struct link_counters *c)
{
	fprintf(f, "link forwarder pid %" PRIu32 ", %s, counters of %.3f s\n", c->pid,
		c->running ? "running" : "exited", (double)age_ns(c) / 1e9);
	fprintf(f, "  %-18s %20s %20s\n", "", "a->b", "b->a");
	for (size_t i = 0; i < link_counter_nfields; i++)
		fprintf(f, "  %-18s %20" PRIu64 " %20" PRIu64 "\n", link_counter_fields[i].name,
			field(&c->dir[LINK_AB], i), field(&c->dir[LINK_BA], i));
	return ferror(f) ? -EIO : 0;
}

static void dir_json(FILE *f, const char *name, const struct link_dir_counters *d)
{
	fprintf(f, "\"%s\":{", name);
	for (size_t i = 0; i < link_counter_nfields; i++)
		fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", link_counter_fields[i].name,
			field(d, i));
	fprintf(f, "}");
}

int link_counters_print_json(FILE *f, const struct link_counters *c)
{
	fprintf(f,
		"{\"version\":%" PRIu32 ",\"pid\":%" PRIu32
		",\"running\":%s,\"elapsed_ns\":%" PRIu64 ",",
		c->version, c->pid, c->running ? "true" : "false", age_ns(c));
	dir_json(f, "a_to_b", &c->dir[LINK_AB]);
	fprintf(f, ",");
	dir_json(f, "b_to_a", &c->dir[LINK_BA]);
	fprintf(f, "}\n");
	return ferror(f) ? -EIO : 0;
}
