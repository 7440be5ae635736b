// SPDX-License-Identifier: MIT
/* The run model: construction, host facts, and the aggregates every report
 * derives from the trials (medians over repetitions with min/max spread). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "results_int.h"
#include "version.h"

void results_init(struct results_run *run)
{
	memset(run, 0, sizeof(*run));
	run->schema = RESULTS_SCHEMA;
	run->pdr_goal_pct = 0.5;
	snprintf(run->version, sizeof(run->version), "%s", OVLPERF_VERSION);
}

void results_free(struct results_run *run)
{
	free(run->scenario_text);
	free(run->trials);
	free(run->knees);
	free(run->mtu);
	free(run->heads);
	memset(run, 0, sizeof(*run));
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

void results_fill_host(struct results_run *run)
{
	struct utsname u;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	run->schema = RESULTS_SCHEMA;
	snprintf(run->version, sizeof(run->version), "%s", OVLPERF_VERSION);
	/* A long kernel version string is cut, which is fine for a report. */
	if (uname(&u) == 0 &&
	    snprintf(run->host.kernel, sizeof(run->host.kernel), "%s %s %s %s", u.sysname,
		     u.release, u.version, u.machine) >= (int)sizeof(run->host.kernel))
		run->host.kernel[sizeof(run->host.kernel) - 1] = '\0';
	cpu_model(run->host.cpu, sizeof(run->host.cpu));
	run->host.ncpu = n > 0 ? (unsigned)n : 0;
	if (gethostname(run->host.hostname, sizeof(run->host.hostname)) < 0)
		run->host.hostname[0] = '\0';
	run->host.hostname[sizeof(run->host.hostname) - 1] = '\0';
}

int results_add_path(struct results_run *run, const char *name, enum results_path_kind kind,
		     const char *addr, uint32_t mtu)
{
	struct results_path *p;

	if (run->npaths >= RESULTS_MAX_PATHS)
		return -E2BIG;
	p = &run->paths[run->npaths];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->kind = kind;
	snprintf(p->addr, sizeof(p->addr), "%s", addr ? addr : "");
	p->mtu = mtu;
	return (int)run->npaths++;
}

/* Grows *arr (of elem-sized items) so that one more fits; NULL on ENOMEM. */
static void *grow(void **arr, size_t *n, size_t *cap, size_t elem)
{
	char *p;

	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		void *q = realloc(*arr, ncap * elem);

		if (!q)
			return NULL;
		*arr = q;
		*cap = ncap;
	}
	p = (char *)*arr + *n * elem;
	memset(p, 0, elem);
	(*n)++;
	return p;
}

struct results_trial *results_add_trial(struct results_run *run)
{
	struct results_trial *t =
		grow((void **)&run->trials, &run->ntrials, &run->trials_cap, sizeof(*t));

	if (t)
		t->seq = (unsigned)run->ntrials;
	return t;
}

struct results_knee *results_add_knee(struct results_run *run)
{
	return grow((void **)&run->knees, &run->nknees, &run->knees_cap,
		    sizeof(struct results_knee));
}

struct results_mtu_check *results_add_mtu(struct results_run *run)
{
	return grow((void **)&run->mtu, &run->nmtu, &run->mtu_cap,
		    sizeof(struct results_mtu_check));
}

/* A frame's bytes around a datagram's payload that a tbf counts: IPv6,
 * UDP and Ethernet (the larger family, so a rate is never called reached
 * below it) */
#define SHAPED_HDR_BYTES (40 + 8 + 14)

void results_trial_network_where(const struct results_run *run, struct results_trial *t)
{
	struct loss_attrib *l = &t->udp.loss_at;

	if (!l->network || l->network_where[0])
		return;
	for (unsigned i = 0; i < run->nlinks; i++) {
		const struct results_link *k = &run->links[i];
		bool loses = k->drop_pct > 0;
		char r[32];

		for (unsigned d = 0; d < 2; d++)
			loses |= k->dir[d].loss_pct > 0 || k->dir[d].loss_burst_p_pct > 0;
		if (loses && k->drop_pct > 0)
			snprintf(l->network_where, sizeof(l->network_where),
				 "lab link %u (nftables random drop %.4g %%)", i, k->drop_pct);
		else if (loses)
			snprintf(l->network_where, sizeof(l->network_where), "lab link %u (%s)", i,
				 k->conditions);
		if (loses)
			return;
		if (k->rate_bps && t->len &&
		    (double)t->target_bps >=
			    0.9 * (double)k->rate_bps * t->len / (t->len + SHAPED_HDR_BYTES)) {
			snprintf(l->network_where, sizeof(l->network_where),
				 "lab link %u (its %s shaper, reached)", i,
				 results_fmt_bps(r, sizeof(r), (double)k->rate_bps));
			return;
		}
	}
}

void results_trial_from_load(struct results_trial *t, const struct load_result *res)
{
	t->duration_s = res->duration_s;
	t->udp = res->udp;
	t->tcp = res->tcp;
	t->cpu_sender = res->cpu_sender;
	t->cpu_receiver = res->cpu_receiver;
	t->sender_cpu_s_per_gbit = res->sender_cpu_s_per_gbit;
	t->receiver_cpu_s_per_gbit = res->receiver_cpu_s_per_gbit;
	t->sched_client = res->sched_client;
	t->sched_server = res->sched_server;
	t->reverse = res->spec.proto == LOAD_TCP && res->spec.reverse;
	if (res->spec.proto == LOAD_TCP)
		snprintf(t->congestion, sizeof(t->congestion), "%s",
			 res->spec.reverse ? res->cc_peer : res->cc_local);
	t->facts_client = res->facts_client;
	t->facts_server = res->facts_server;
	if (res->error[0])
		snprintf(t->error, sizeof(t->error), "%s", res->error);
}

bool results_trial_usable(const struct results_trial *t)
{
	return t->status == 0 && t->duration_s > 0;
}

const struct results_knee *results_rep_knee(const struct results_run *run,
					    const struct results_trial *t)
{
	for (size_t i = 0; i < run->nknees; i++) {
		const struct results_knee *k = &run->knees[i];

		if (k->path == t->path && k->len == t->len && k->rep == t->rep)
			return k;
	}
	return NULL;
}

int results_underlay(const struct results_run *run)
{
	for (unsigned i = 0; i < run->npaths; i++)
		if (run->paths[i].kind == RESULTS_PATH_UNDERLAY)
			return (int)i;
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct results_stat results_stat_of(double *v, size_t n)
{
	struct results_stat s = { 0 };

	if (!n)
		return s;
	qsort(v, n, sizeof(*v), cmp_double);
	s.n = (unsigned)n;
	s.min = v[0];
	s.max = v[n - 1];
	s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return s;
}

uint64_t results_delay_basis(const struct results_run *run, uint32_t len)
{
	uint64_t low = 0;
	double v[100]; /* [repetitions] is at most 100 */

	for (unsigned p = 0; p < run->npaths; p++) {
		size_t n = 0;
		uint64_t mid;

		for (size_t i = 0; i < run->nknees && n < sizeof(v) / sizeof(v[0]); i++) {
			const struct results_knee *k = &run->knees[i];
			uint64_t b = k->ndr_lower_bps ? k->ndr_lower_bps : k->pdr_lower_bps;

			if (k->path == p && k->len == len && b)
				v[n++] = (double)b;
		}
		mid = (uint64_t)results_stat_of(v, n).median;
		if (mid && (!low || mid < low))
			low = mid;
	}
	return low;
}

const char *results_fmt_bps(char *buf, size_t len, double bps)
{
	static const char *const unit[] = { "bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s" };
	unsigned u = 0;

	while (bps >= 1000 && u < 4) {
		bps /= 1000;
		u++;
	}
	snprintf(buf, len, "%.3g %s", bps, unit[u]);
	return buf;
}

double results_delivered_pct(const struct udp_result *u)
{
	if (!u->sent)
		return 0;
	/* Duplicates must not lift delivery above what was sent. */
	if (u->received >= u->sent)
		return 100.0;
	return 100.0 * (double)u->received / (double)u->sent;
}

static const char *const path_kinds[] = { NULL, "underlay", "builtin", "external" };
static const char *const trial_kinds[] = { NULL, "tcp", "sweep", "knee", "delay" };
static const char *const verdicts[] = { "OK", "WARN", "FAIL" };

static int parse_name(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && s && !strcmp(names[i], s))
			return (int)i;
	return -EINVAL;
}

const char *results_path_kind_name(enum results_path_kind k)
{
	return k >= RESULTS_PATH_UNDERLAY && k <= RESULTS_PATH_EXTERNAL ? path_kinds[k] : "?";
}

int results_path_kind_parse(const char *s)
{
	return parse_name(path_kinds, 4, s);
}

const char *results_trial_kind_name(enum results_trial_kind k)
{
	return k >= RESULTS_TRIAL_TCP && k <= RESULTS_TRIAL_DELAY ? trial_kinds[k] : "?";
}

int results_trial_kind_parse(const char *s)
{
	return parse_name(trial_kinds, 5, s);
}

const char *results_verdict_name(enum results_verdict v)
{
	return v <= RESULTS_FAIL ? verdicts[v] : "?";
}

int results_verdict_parse(const char *s)
{
	return parse_name(verdicts, 3, s);
}

static const char *const heads[] = { "found", "fit", "changed" };

const char *results_head_name(enum results_head h)
{
	return h <= RESULTS_HEAD_CHANGED ? heads[h] : "?";
}

int results_head_parse(const char *s)
{
	return parse_name(heads, 3, s);
}
