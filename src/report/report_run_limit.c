// SPDX-License-Identifier: MIT
/* "limited by" for each path's TCP trials of a run. */
#include <stdio.h>
#include <string.h>

#include "report_run_limit.h"
#include "tcp_limit.h"

struct limit_line {
	unsigned path, streams;
	unsigned agree, n; /* repetitions with the verdict, all judged */
	struct tcp_limit_verdict v;
};

static void judge(const struct results_run *run, const struct results_trial *t,
		  struct tcp_limit_verdict *v)
{
	char host[24], qhost[24];
	unsigned ncpu = run->host.ncpu;
	struct tcp_limit_ctx c = {
		.rate_bps = t->target_bps,
		.machine_cpus = t->host_cpu_s > 0 ? ncpu : 0,
		.machine_busy =
			ncpu && t->duration_s > 0 ? t->host_cpu_s / t->duration_s / ncpu : 0,
		.snd_host = "the sending host",
		.rcv_host = "the receiving host",
		.overlay_cpu = t->overlay_thread[0] ? t->overlay_thread_cpu : 0,
		.overlay_thread = t->overlay_thread[0] ? t->overlay_thread : NULL,
		.overlay_host = host,
		.overlay_quota_cores = t->overlay_quota_cores,
		.overlay_quota_used = t->overlay_quota_used,
		.overlay_throttled_s = t->overlay_throttled_s,
		.overlay_quota_host = qhost,
		.overlay_process = t->overlay_process[0] ? t->overlay_process : NULL,
		.overlay_quota_process =
			t->overlay_quota_process[0] ? t->overlay_quota_process : NULL,
		.overlay_quota_thread = t->overlay_quota_thread[0] ? t->overlay_quota_thread : NULL,
		.overlay_quota_thread_cpu = t->overlay_quota_thread_cpu,
		.duration_s = t->duration_s,
	};

	snprintf(host, sizeof(host), "lab host %u", t->overlay_thread_host);
	snprintf(qhost, sizeof(qhost), "lab host %u", t->overlay_quota_host);
	/* the CPU busiest in softirq (the machine's, every lab host's) */
	for (unsigned i = 0; i < t->softirq_ncpu; i++)
		if (t->softirq[i] > c.softirq_share) {
			c.softirq_share = t->softirq[i];
			c.softirq_cpu = i;
		}
	tcp_limit_judge(&t->tcp, &c, v);
}

/* The verdict most of path p's TCP trials with n streams got, with the
 * sentences of the first trial that got it (ties: the kind seen first);
 * false when none of them could be judged. */
static bool line_of(const struct results_run *run, unsigned p, unsigned n, struct limit_line *l)
{
	static struct tcp_limit_verdict first[TCP_LIMIT_HOST_CPU + 1];
	unsigned count[TCP_LIMIT_HOST_CPU + 1] = { 0 }, order[TCP_LIMIT_HOST_CPU + 1], nk = 0;
	struct tcp_limit_verdict v;

	memset(l, 0, sizeof(*l));
	l->path = p;
	l->streams = n;
	for (size_t i = 0; i < run->ntrials; i++) {
		const struct results_trial *t = &run->trials[i];

		if (t->kind != RESULTS_TRIAL_TCP || t->path != p || t->streams != n || t->status)
			continue;
		judge(run, t, &v);
		if (v.limit == TCP_LIMIT_UNKNOWN)
			continue;
		l->n++;
		if (!count[v.limit]++) {
			first[v.limit] = v;
			order[nk++] = v.limit;
		}
	}
	for (unsigned k = 0; k < nk; k++)
		if (count[order[k]] > l->agree) {
			l->agree = count[order[k]];
			l->v = first[order[k]];
		}
	return l->n > 0;
}

/* Terminal lines, or report.md's table (md). */
static void limits(FILE *f, const struct report_run *rr, bool md)
{
	bool head = false;
	struct limit_line l;

	for (size_t i = 0; i < rr->sum.ntcp; i++) {
		const struct results_tcp_point *p = &rr->sum.tcp[i];
		const char *name = rr->run->paths[p->path].name;

		if (!line_of(rr->run, p->path, p->streams, &l))
			continue;
		if (!head)
			fputs(md ? "\n### What limited TCP\n\nFrom the sender's TCP_INFO "
				   "chronographs, both ends' buffers and their maxima, the stream "
				   "threads' CPU and the round trip; the verdict most repetitions "
				   "got, with the figures of the first that got it.\n\n"
				   "| path | streams | limited by | evidence | fix |\n"
				   "|---|---:|---|---|---|\n"
				 : "TCP limited by (the verdict most repetitions got):\n",
			      f);
		head = true;
		if (md) {
			fprintf(f, "| %s | %u | %s (%u of %u) | %s | %s |\n", name, p->streams,
				tcp_limit_name(l.v.limit), l.agree, l.n, l.v.evidence,
				l.v.fix[0] ? l.v.fix : "-");
			continue;
		}
		fprintf(f, "  %s, %u stream%s: %s (%u of %u): %s\n", name, p->streams,
			p->streams > 1 ? "s" : "", tcp_limit_name(l.v.limit), l.agree, l.n,
			l.v.evidence);
		if (l.v.fix[0])
			fprintf(f, "    fix: %s\n", l.v.fix);
	}
}

void report_run_limits_term(FILE *f, const struct report_run *rr)
{
	limits(f, rr, false);
}

void report_run_limits_md(FILE *f, const struct report_run *rr)
{
	limits(f, rr, true);
}
