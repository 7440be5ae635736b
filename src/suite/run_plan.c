// SPDX-License-Identifier: MIT
/*
 * The plan of a run before it starts: what `ovlperf run --dry-run` shows and
 * what the progress events count down from. Pure: it reads the scenario and
 * the knee search's own estimate (knee.h), and touches nothing else.
 */
#include <string.h>

#include "knee.h"
#include "run_int.h"
#include "sweep.h"

/* The lab's default link MTU (lab.h builds veths with it). */
#define PLAN_DEFAULT_MTU 1500

static uint64_t dur_or(uint64_t a, uint64_t b)
{
	return a ? a : b;
}

void run_knee_config(const struct scenario *scn, struct knee_config *cfg)
{
	knee_config_defaults(cfg);
	cfg->min_rate_bps = scn->knee.min_rate_bps;
	cfg->max_rate_bps = scn->knee.max_rate_bps;
	cfg->loss_goal = scn->knee.loss_goal;
	cfg->width_goal = scn->knee.width_goal;
	cfg->short_ns = scn->knee.short_ns;
	cfg->final_ns = scn->knee.final_ns;
	cfg->exceed_ratio = scn->knee.exceed_ratio;
	cfg->duration_sum_ns = scn->knee.duration_sum_ns;
	cfg->max_trials = scn->knee.max_trials;
	cfg->fit_trials = scn->knee.fit_trials;
	cfg->max_time_ns = scn->knee.max_time_ns;
}

static void plan_phase(struct run_plan *plan, enum run_phase ph, uint64_t trials, uint64_t ns)
{
	plan->phase[ph].enabled = true;
	plan->phase[ph].trials = trials;
	plan->phase[ph].time_ns = ns;
	plan->trials += trials;
	plan->time_ns += ns;
}

static void plan_topology(const struct scenario *scn, struct run_plan *plan)
{
	plan->name = scn->name;
	plan->file = scn->file;
	plan->description = scn->description;
	plan->lab = scn->is_lab;
	if (scn->is_lab) {
		plan->lab_name = scn->lab.name;
		plan->hosts = scn->lab.hosts;
		plan->cpus_hosts = scn->lab.cpus_hosts;
		plan->cpus = scn->lab.cpus;
		plan->client = scn->lab.client;
		plan->server = scn->lab.server;
		plan->nlinks = scn->lab.nlinks;
		for (unsigned i = 0; i < scn->lab.nlinks; i++) {
			const struct scenario_link *l = &scn->lab.links[i];

			plan->links[i] = (struct run_plan_link){
				.a = l->a,
				.b = l->b,
				.mtu = l->mtu ? l->mtu : PLAN_DEFAULT_MTU,
				.rate_bps = l->rate_bps,
				.drop_pct = l->drop_pct,
				.block_icmp = l->block_icmp,
				.rate_layer =
					l->rate_layer == LAYER_FRAME || l->rate_layer == LAYER_LINE
						? layer_name(l->rate_layer)
						: NULL,
				.means = lab_means_name(scn->lab.means),
			};
			if (lab_link_cond_str(&(struct lab_link_spec){ .cond = l->cond },
					      plan->links[i].conditions,
					      sizeof(plan->links[i].conditions)))
				plan->links[i].conditions[0] = '\0';
		}
	}
	plan->npaths = scn->npaths;
	for (unsigned i = 0; i < scn->npaths; i++)
		plan->paths[i] = (struct run_plan_path){
			.name = scn->paths[i].name,
			.type = scn->paths[i].type,
			.family = scn->paths[i].family,
			/* where the loads go: the path's own address, else its host's;
			 * between hosts a builtin path's comes from the server */
			.address = !scn->is_lab && scn->paths[i].type == SCN_PATH_BUILTIN
					   ? "(overlay address from the server)"
				   : scn->paths[i].address[0] || scn->is_lab
					   ? scn->paths[i].address
					   : scn->hosts[scn->paths[i].host].address,
		};
}

void run_plan_build(const struct scenario *scn, unsigned reps, struct run_plan *plan)
{
	unsigned nsizes = scn->udp.nsizes ? scn->udp.nsizes : 1;
	uint64_t udp_ns = dur_or(scn->udp.duration_ns, scn->duration_ns), per, n;

	memset(plan, 0, sizeof(*plan));
	plan_topology(scn, plan);
	plan->reps = reps ? reps : scn->repetitions ? scn->repetitions : SCN_DEFAULT_REPETITIONS;
	plan->interleave = scn->interleave;
	per = (uint64_t)plan->reps * scn->npaths;
	/* The MTU checks are probes, not trials: the phase is listed, not timed. */
	plan->phase[RUN_PHASE_MTU].enabled = scn->mtu.enabled;
	if (scn->tcp.enabled) {
		n = per * scn->tcp.nstreams;
		plan->tcp_nstreams = scn->tcp.nstreams;
		plan_phase(plan, RUN_PHASE_TCP, n,
			   n * dur_or(scn->tcp.duration_ns, scn->duration_ns));
	}
	if (scn->sweep.enabled) {
		plan->sweep_points = sweep_linear_count(scn->sweep.from_bps, scn->sweep.to_bps,
							scn->sweep.step_bps);
		plan->sweep_from_bps = scn->sweep.from_bps;
		plan->sweep_to_bps = scn->sweep.to_bps;
		n = per * nsizes * plan->sweep_points;
		plan_phase(plan, RUN_PHASE_SWEEP, n, n * dur_or(scn->sweep.duration_ns, udp_ns));
	}
	if (scn->knee.enabled) {
		struct knee_config cfg;

		/* One search per path, size and repetition, each as the search
		 * estimates itself (its trials have several durations). */
		run_knee_config(scn, &cfg);
		n = per * nsizes;
		plan->knee_max_rate_bps = cfg.max_rate_bps;
		plan->knee_searches = n;
		plan->knee_max_trials = knee_max_trials(&cfg);
		/* max_time, or max_trials of the final duration if that is less */
		plan->knee_max_time_ns = knee_max_time_ns(&cfg);
		if ((uint64_t)plan->knee_max_trials * cfg.final_ns < plan->knee_max_time_ns)
			plan->knee_max_time_ns = (uint64_t)plan->knee_max_trials * cfg.final_ns;
		plan_phase(plan, RUN_PHASE_KNEE, n * knee_estimate_trials(&cfg),
			   n * knee_estimate_ns(&cfg));
	}
	if (scn->udp.enabled) {
		/* One round per load: the [udp] rate, or each delay_loads share. */
		if (!scn->udp.rate_bps) {
			plan->delay_nloads = scn->udp.ndelay_loads;
			memcpy(plan->delay_loads_pct, scn->udp.delay_loads_pct,
			       sizeof(plan->delay_loads_pct));
		}
		n = per * nsizes * (scn->udp.rate_bps ? 1 : scn->udp.ndelay_loads);
		plan_phase(plan, RUN_PHASE_DELAY, n, n * udp_ns);
	}
}
