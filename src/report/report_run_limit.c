// SPDX-License-Identifier: MIT
/* "limited by" for each path's TCP trials and NDRs of a run. */
#include <stdio.h>
#include <string.h>

#include "report_run_limit.h"
#include "run_limit.h"

/* run --confirm's rerun of path p's TCP figure with n streams: its words
 * into buf, "" when it was not rerun. */
static const char *confirm_of(const struct results_run *run, unsigned p, unsigned n, char *buf,
			      size_t len)
{
	buf[0] = '\0';
	for (unsigned i = 0; i < run->nconfirms; i++)
		if (run->confirms[i].path == p && run->confirms[i].streams == n)
			confirm_words(&run->confirms[i], buf, len);
	return buf;
}

/* Terminal lines, or report.md's table (md). */
static void tcp_limits(FILE *f, const struct report_run *rr, bool md)
{
	bool head = false;
	struct results_tcp_limit l;
	char cf[256];

	for (size_t i = 0; i < rr->sum.ntcp; i++) {
		const struct results_tcp_point *p = &rr->sum.tcp[i];
		const char *name = rr->run->paths[p->path].name;

		if (!results_tcp_limit_line(rr->run, p->path, p->streams, &l))
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
		confirm_of(rr->run, p->path, p->streams, cf, sizeof(cf));
		if (md) {
			fprintf(f, "| %s | %u | %s (%u of %u) | %s | %s%s%s%s |\n", name,
				p->streams, tcp_limit_name(l.v.limit), l.agree, l.n, l.v.evidence,
				l.v.fix[0] ? l.v.fix : "-", cf[0] ? " (rerun: " : "", cf,
				cf[0] ? ")" : "");
			continue;
		}
		fprintf(f, "  %s, %u stream%s: %s (%u of %u): %s\n", name, p->streams,
			p->streams > 1 ? "s" : "", tcp_limit_name(l.v.limit), l.agree, l.n,
			l.v.evidence);
		if (l.v.fix[0])
			fprintf(f, "    fix: %s\n", l.v.fix);
		if (cf[0])
			fprintf(f, "    rerun with the fix (--confirm): %s\n", cf);
	}
}

static void ndr_limits(FILE *f, const struct report_run *rr, bool md)
{
	bool head = false;
	struct ndr_limit_verdict v;

	for (size_t i = 0; i < rr->sum.nknee; i++) {
		const struct results_knee_point *k = &rr->sum.knee[i];
		const char *name = rr->run->paths[k->path].name;

		if (!results_ndr_limit(rr->run, &rr->sum, k->path, k->len, &v))
			continue;
		if (!head)
			fputs(md ? "\n### What limited the NDR\n\nThe knee search's outcome, the "
				   "place that lost most in the first trial above the NDR that "
				   "lost, and the CPU of that trial (of the median "
				   "repetition).\n\n"
				   "| path | datagram | limited by | evidence | fix |\n"
				   "|---|---:|---|---|---|\n"
				 : "NDR limited by (the median repetition's search):\n",
			      f);
		head = true;
		if (md) {
			fprintf(f, "| %s | %u B | %s | %s | %s |\n", name, k->len,
				ndr_limit_name(v.limit), v.evidence, v.fix[0] ? v.fix : "-");
			continue;
		}
		fprintf(f, "  %s, %u B: %s: %s\n", name, k->len, ndr_limit_name(v.limit),
			v.evidence);
		if (v.fix[0])
			fprintf(f, "    fix: %s\n", v.fix);
	}
}

void report_run_limits_term(FILE *f, const struct report_run *rr)
{
	tcp_limits(f, rr, false);
	ndr_limits(f, rr, false);
}

void report_run_limits_md(FILE *f, const struct report_run *rr)
{
	tcp_limits(f, rr, true);
	ndr_limits(f, rr, true);
}
