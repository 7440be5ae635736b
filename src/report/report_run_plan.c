// SPDX-License-Identifier: MIT
/* `ovlperf run --dry-run`: the plan of a scenario (run_plan_build, run.h). */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "report_run.h"
#include "report_suite.h"

static void phase_row(FILE *f, const char *what, const struct run_plan_phase *ph)
{
	char t[32];

	report_run_fmt_time(t, sizeof(t), (double)ph->time_ns / 1e9);
	fprintf(f, "  %-46s %5llu trials  ~%s\n", what, (unsigned long long)ph->trials, t);
}

/* "UDP one-way delay at 50, 90 % of NDR", or at the one fixed rate. */
static void delay_what(char *buf, size_t len, const struct run_plan *plan)
{
	size_t n;

	if (!plan->delay_nloads) {
		snprintf(buf, len, "UDP one-way delay at a common load");
		return;
	}
	snprintf(buf, len, "UDP one-way delay at");
	for (unsigned i = 0; i < plan->delay_nloads; i++) {
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s %g", i ? "," : "", plan->delay_loads_pct[i]);
	}
	n = strlen(buf);
	snprintf(buf + n, len - n, " %% of NDR");
}

static void topology(FILE *f, const struct run_plan *plan)
{
	char rate[32];

	fprintf(f, "scenario '%s' (%s): %s\n", plan->name, plan->file, plan->description);
	if (plan->lab) {
		fprintf(f, "  lab '%s': %u hosts, client host %u, server host %u\n", plan->lab_name,
			plan->hosts, plan->client, plan->server);
		if (plan->cpus_hosts) {
			fprintf(f, "  hosts on CPUs of their own:");
			for (unsigned h = 0; h < plan->cpus_hosts; h++)
				fprintf(f, "%s host %u on CPUs %s", h ? "," : "", h, plan->cpus[h]);
			fputc('\n', f);
		}
		for (unsigned i = 0; i < plan->nlinks; i++) {
			const struct run_plan_link *l = &plan->links[i];

			report_run_fmt_rate(rate, sizeof(rate), (double)l->rate_bps);
			fprintf(f, "  link %u: hosts %u-%u, MTU %u%s%s%s%s%s, drop %g%%%s", i, l->a,
				l->b, l->mtu, l->rate_bps ? ", tbf " : "", l->rate_bps ? rate : "",
				l->rate_bps && l->rate_layer ? " at " : "",
				l->rate_bps && l->rate_layer ? l->rate_layer : "",
				l->rate_bps && l->rate_layer ? " rate (Ethernet)" : "", l->drop_pct,
				l->block_icmp ? ", ICMP too-big blocked" : "");
			if (l->conditions[0])
				fprintf(f, ", %s (means: %s)", l->conditions, l->means);
			fputc('\n', f);
		}
	}
	for (unsigned i = 0; i < plan->npaths; i++)
		fprintf(f, "  path %-12s %-8s %s%s\n", plan->paths[i].name,
			scenario_path_type_name(plan->paths[i].type),
			plan->paths[i].family == AF_INET6 ? "IPv6 " : "IPv4 ",
			plan->paths[i].address);
}

void report_run_plan(FILE *f, const struct run_plan *plan)
{
	const struct run_plan_phase *ph = plan->phase;
	char what[96], a[32], b[32];

	topology(f, plan);
	fprintf(f, "plan: %u repetition%s, paths %s\n", plan->reps, plan->reps > 1 ? "s" : "",
		plan->interleave ? "interleaved" : "one after the other");
	if (ph[RUN_PHASE_TCP].enabled) {
		snprintf(what, sizeof(what), "TCP, %u stream count%s", plan->tcp_nstreams,
			 plan->tcp_nstreams > 1 ? "s" : "");
		phase_row(f, what, &ph[RUN_PHASE_TCP]);
	}
	if (ph[RUN_PHASE_SWEEP].enabled) {
		report_run_fmt_rate(a, sizeof(a), (double)plan->sweep_from_bps);
		report_run_fmt_rate(b, sizeof(b), (double)plan->sweep_to_bps);
		snprintf(what, sizeof(what), "UDP linear sweep %s..%s, %u points", a, b,
			 plan->sweep_points);
		phase_row(f, what, &ph[RUN_PHASE_SWEEP]);
	}
	if (ph[RUN_PHASE_KNEE].enabled) {
		report_run_fmt_rate(a, sizeof(a), (double)plan->knee_max_rate_bps);
		snprintf(what, sizeof(what), "UDP knee search up to %s (estimate)", a);
		phase_row(f, what, &ph[RUN_PHASE_KNEE]);
		/* a soft knee takes more: what the searches never exceed */
		report_run_fmt_time(a, sizeof(a), (double)plan->knee_max_time_ns / 1e9);
		report_run_fmt_time(b, sizeof(b),
				    (double)plan->knee_max_time_ns / 1e9 *
					    (double)plan->knee_searches);
		fprintf(f,
			"    (a search at most %u trials and %s, max_trials and max_time: %llu "
			"searches at most %s)\n",
			plan->knee_max_trials, a, (unsigned long long)plan->knee_searches, b);
	}
	if (ph[RUN_PHASE_DELAY].enabled) {
		delay_what(what, sizeof(what), plan);
		phase_row(f, what, &ph[RUN_PHASE_DELAY]);
	}
	phase_row(f, "total (without setup and gaps)",
		  &(struct run_plan_phase){
			  .enabled = true, .trials = plan->trials, .time_ns = plan->time_ns });
}
