// SPDX-License-Identifier: MIT
/* Each end's host facts, briefly (report_facts.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "report_facts.h"

/* Appends to buf at *off, never past len. */
__attribute__((format(printf, 4, 5))) static void add(char *buf, size_t len, size_t *off,
						      const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off += (size_t)n < len - *off ? (size_t)n : len - *off;
}

static void how(char *buf, size_t len, size_t *off, const struct hostfacts_proc *p)
{
	static const char *const ways[] = { "its TUN", "its UDP socket to the far host",
					    "as the built-in overlay's daemon", "the process key" };
	const char *sep = "by ";

	for (unsigned i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
		if (!(p->found_by & (1u << i)))
			continue;
		add(buf, len, off, "%s%s", sep, ways[i]);
		if (i == 0)
			add(buf, len, off, " %s", p->tun);
		sep = " and ";
	}
	if (p->udp_port)
		add(buf, len, off, "%sUDP %u", p->found_by ? ", " : "", p->udp_port);
}

static void proc(char *buf, size_t len, size_t *off, const struct hostfacts_proc *p)
{
	add(buf, len, off, "%s (pid %d, ", p->comm[0] ? p->comm : "?", p->pid);
	how(buf, len, off, p);
	add(buf, len, off, ") %.2f cores", p->cores);
	if (p->busiest[0])
		add(buf, len, off, ", busiest thread %s %.0f %%", p->busiest,
		    p->busiest_cores * 100);
	if (p->cgroup.found && p->cgroup.quota_cores > 0)
		add(buf, len, off, ", cgroup %s quota %.2f cores, throttled %.0f ms",
		    p->cgroup.path, p->cgroup.quota_cores, p->cgroup.throttled_ns / 1e6);
}

static void drops(char *buf, size_t len, size_t *off, const struct hostfacts *f)
{
	for (unsigned i = 0; i < f->nlinks; i++)
		if (f->links[i].rx_drops || f->links[i].tx_drops)
			add(buf, len, off, "; %s%s drops rx %llu tx %llu", f->links[i].name,
			    f->links[i].tun ? " (TUN)" : "",
			    (unsigned long long)f->links[i].rx_drops,
			    (unsigned long long)f->links[i].tx_drops);
	if (f->softnet_known && f->softnet_dropped)
		add(buf, len, off, "; softnet backlog drops %llu",
		    (unsigned long long)f->softnet_dropped);
	for (unsigned i = 0; i < f->nsocks; i++)
		add(buf, len, off, "; UDP %u (%s) dropped %llu", f->socks[i].port,
		    f->socks[i].comm[0] ? f->socks[i].comm : "owner unknown",
		    (unsigned long long)f->socks[i].drops);
}

/* An end that did not report says why, one that found nothing says so
 * (none); false when f has processes to name. */
static bool unknown_or_none(char *buf, size_t len, size_t *off, const struct hostfacts *f,
			    const char *none)
{
	buf[0] = '\0';
	if (!f->known) {
		add(buf, len, off, "unknown (%s)", f->unknown[0] ? f->unknown : "not measured");
		return true;
	}
	if (!f->nprocs)
		add(buf, len, off, "%s", none);
	return false;
}

void report_facts_brief(char *buf, size_t len, const struct hostfacts *f)
{
	size_t off = 0;

	if (unknown_or_none(buf, len, &off, f, "no overlay/VPN process found"))
		return;
	for (unsigned i = 0; i < f->nprocs; i++) {
		add(buf, len, &off, "%s", i ? "; " : "");
		proc(buf, len, &off, &f->procs[i]);
	}
	add(buf, len, &off, "; machine %.2f cores busy", f->machine_cores);
	if (f->baseline_cores >= 0)
		add(buf, len, &off, ", %.2f at rest%s", f->baseline_cores,
		    f->rest_moved ? " (the rest of the machine moved more than the test's own "
				    "share)"
				  : "");
	drops(buf, len, &off, f);
	if (f->cc[0])
		add(buf, len, &off, "; TCP %s", f->cc);
}

/* The first trial of path p with either end's facts known; NULL: none. */
static const struct results_trial *facts_trial(const struct results_run *run, unsigned p)
{
	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];

		if (t->path == p && (t->facts_client.known || t->facts_server.known))
			return t;
	}
	return NULL;
}

/* "wireguard-go by its TUN fawgc" for each process, or "none found" */
static void found(char *buf, size_t len, const struct hostfacts *f)
{
	size_t off = 0;

	if (unknown_or_none(buf, len, &off, f, "none found"))
		return;
	for (unsigned i = 0; i < f->nprocs; i++) {
		add(buf, len, &off, "%s%s ", i ? ", " : "", f->procs[i].comm);
		how(buf, len, &off, &f->procs[i]);
	}
}

void report_facts_run(FILE *out, const struct report_run *rr, bool md)
{
	const struct results_run *run = rr->run;
	bool head = false;
	char c[256], s[256];

	for (unsigned p = 0; p < run->npaths; p++) {
		const struct results_trial *t = facts_trial(run, p);

		if (!t)
			continue;
		if (!head)
			fputs(md ? "\n### The overlay's processes\n\nFound on each host from the "
				   "path's interface (the process holding its TUN device) or the "
				   "scenario's `process` key; the far host's by `ovlperf "
				   "server`.\n\n| path | client host | server host "
				   "|\n|---|---|---|\n"
				 : "Overlay processes found (client host / server host):\n",
			      out);
		head = true;
		found(c, sizeof(c), &t->facts_client);
		found(s, sizeof(s), &t->facts_server);
		if (md)
			fprintf(out, "| %s | %s | %s |\n", run->paths[p].name, c, s);
		else
			fprintf(out, "  %-10s %s / %s\n", run->paths[p].name, c, s);
	}
}
