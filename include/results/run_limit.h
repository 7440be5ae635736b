/* SPDX-License-Identifier: MIT */
/*
 * What limited each figure of a run: the TCP verdict of a trial
 * (tcp_limit.h) from what the run recorded of it, the verdict most of a
 * TCP point's repetitions got, and what limited a path's NDR (the knee
 * search's outcome, the place that lost most above it, and the
 * CPU of the trial that lost them). Pure: the run model in, verdicts out;
 * the printers, run.json's summary and the mesh render them.
 */
#ifndef OVLPERF_RUN_LIMIT_H
#define OVLPERF_RUN_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "results.h"
#include "tcp_limit.h"

/* The verdict on one TCP trial of run. */
void results_trial_tcp_limit(const struct results_run *run, const struct results_trial *t,
			     struct tcp_limit_verdict *v);

/* Path p's TCP trials with n streams: the verdict most of them got, with
 * the figures of the first that got it (ties: the kind seen first). */
struct results_tcp_limit {
	unsigned path, streams;
	unsigned agree, n; /* repetitions with the verdict, all judged */
	struct tcp_limit_verdict v;
};
/* false when none of them could be judged. */
bool results_tcp_limit_line(const struct results_run *run, unsigned p, unsigned n,
			    struct results_tcp_limit *l);

enum ndr_limit {
	NDR_LIMIT_UNKNOWN,	/* the search did not finish, or nothing was lost */
	NDR_LIMIT_GENERATOR,	/* the sender could not offer more: a lower bound */
	NDR_LIMIT_MAX_RATE,	/* lossless at the search's maximum: a lower bound */
	NDR_LIMIT_NETWORK_RATE, /* a shaper or a full queue on the way (the knee) */
	NDR_LIMIT_NETWORK,	/* lost between the hosts (emulated or real path) */
	NDR_LIMIT_OVERLAY_CPU,	/* an overlay daemon's thread at a full core, or its quota */
	NDR_LIMIT_OVERLAY,	/* the overlay's daemons dropped them (tunnel show) */
	NDR_LIMIT_HOST_CPU,	/* every core of the machine busy */
	NDR_LIMIT_SENDER,	/* the sender's socket buffer or interface */
	NDR_LIMIT_RECEIVER,	/* the receiver's socket, interface or other sockets */
	/* lost past every counter either host keeps, with no evidence of the
	 * network (no emulated link's loss, no shaper's rate reached) */
	NDR_LIMIT_UNACCOUNTED,
};

struct ndr_limit_verdict {
	enum ndr_limit limit;
	uint64_t ndr_bps;  /* the NDR (median lower bound, achieved) */
	uint64_t fail_bps; /* the lowest rate above it that lost (0: none) */
	double fail_loss_pct;
	/* how much that trial's queue grew (ms; knee_trial_loss()'s reading of
	 * the receiver's window beyond the sender's): a load that failed on
	 * its queue with nothing lost */
	double fail_queued_ms;
	/* the NDR's headline where it is a soft knee's fit (results_head):
	 * the fit of every trial, 0: the headline is not a fit */
	uint64_t fit_bps;
	int place;	    /* enum loss_place that lost most there, -1: none */
	double place_share; /* of the datagrams lost there, 0..1 */
	double overlay_cpu; /* busiest overlay thread there, of a core (0: not read) */
	char overlay_thread[16];
	char overlay_process[16]; /* its process (comm), "" unknown */
	char overlay_where[24];	  /* its host: "lab host 1", "the server's host" */
	double machine_busy;	  /* the machine's cores busy there, 0..1 (0: unknown) */
	double throttled_s;	  /* an overlay daemon held at its quota there */
	double quota_cores;	  /* that daemon's quota, cores */
	char quota_where[24];	  /* its host */
	char evidence[384];
	char fix[384];
};

/* What limited path p's NDR at datagram size len (the median repetition's
 * search); false when the path has no knee at that size. */
bool results_ndr_limit(const struct results_run *run, const struct results_summary *sum, unsigned p,
		       uint32_t len, struct ndr_limit_verdict *v);

/* "network rate", "overlay CPU", ... (the JSON's and the reports' name). */
const char *ndr_limit_name(enum ndr_limit l);

#endif
