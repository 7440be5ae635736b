// SPDX-License-Identifier: MIT
/* An overlay's cost, part by part, in the terminal and report.md. */
#include <math.h>
#include <stdio.h>

#include "breakdown.h"
#include "report_run_breakdown.h"

/* "TCP 1 stream" or "NDR 1400 B" */
static void figure(char *buf, size_t len, const struct breakdown_row *r)
{
	if (r->kind == BREAKDOWN_TCP)
		snprintf(buf, len, "TCP %u stream%s", r->key, r->key == 1 ? "" : "s");
	else
		snprintf(buf, len, "NDR %u B", r->key);
}

static void factor(char *buf, size_t len, const struct breakdown_part *p)
{
	if (p->sub || !isfinite(p->factor))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "x%.3g", p->factor);
}

static void print(FILE *f, const struct report_run *rr, bool md)
{
	struct breakdown b;
	char fig[32], fac[24];

	if (breakdown_of(rr->run, &rr->sum, &b) || !b.n) {
		breakdown_free(&b);
		return;
	}
	fputs(md ? "\n### What each overlay costs, part by part\n\nThe ratio against the "
		   "underlay is the product of the parts' factors; each part's points (its "
		   "share of the ratio's logarithm, times the change in %) add up to the "
		   "change. Bytes on the wire: the overlay's encapsulation and MSS, what a "
		   "link of fixed rate would cost. CPU per wire bit and the CPU the run got: "
		   "what a CPU-bound overlay costs, split by whose CPU it was (indented). "
		   "Otherwise the rest is named by what limited the overlay.\n"
		 : "\nWhat each overlay costs, part by part (the points add up to the change):\n",
	      f);
	for (size_t i = 0; i < b.n; i++) {
		const struct breakdown_row *r = &b.rows[i];
		const char *name = rr->run->paths[r->path].name;

		figure(fig, sizeof(fig), r);
		if (!r->ok) {
			fprintf(f, md ? "\n**%s, %s**: %s.\n" : "  %s, %s: %s\n", name, fig,
				r->note);
			continue;
		}
		if (md)
			fprintf(f,
				"\n**%s, %s: x%.3g (%+.1f %%)**, limited by %s\n\n"
				"| part | factor | points | figures |\n|---|---:|---:|---|\n",
				name, fig, r->ratio, (r->ratio - 1) * 100,
				r->limit[0] ? r->limit : "unknown");
		else
			fprintf(f, "  %s, %s: x%.3g (%+.1f %%), limited by %s\n", name, fig,
				r->ratio, (r->ratio - 1) * 100, r->limit[0] ? r->limit : "unknown");
		for (unsigned j = 0; j < r->nparts; j++) {
			const struct breakdown_part *p = &r->part[j];

			factor(fac, sizeof(fac), p);
			if (md)
				fprintf(f, "| %s%s | %s | %+.1f | %s |\n",
					p->sub ? "&nbsp;&nbsp;" : "", p->name, fac, p->points,
					p->detail);
			else
				fprintf(f, "    %s%-*s %7s %+7.1f pts  %s\n", p->sub ? "  " : "",
					p->sub ? 20 : 22, p->name, fac, p->points, p->detail);
		}
	}
	breakdown_free(&b);
}

void report_run_breakdown_term(FILE *f, const struct report_run *rr)
{
	print(f, rr, false);
}

void report_run_breakdown_md(FILE *f, const struct report_run *rr)
{
	print(f, rr, true);
}
