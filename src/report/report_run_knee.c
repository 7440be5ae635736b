// SPDX-License-Identifier: MIT
/*
 * How repeatable a knee is, as one sentence every run printer shares: the
 * NDR's spread over the repetitions beside the width the search was asked
 * for, and, when the spread is wider, where the trials that disagreed lost
 * their datagrams and what would stop it (loss_place_fix()). A noisy
 * system's NDR is then a property of the system's noise, not of its
 * capacity: the reader is told which place to fix before trusting it. A
 * soft knee (about half the trials between the NDRs lost) is said as such:
 * there more trial time narrows the NDR only slowly, and the load every
 * trial together puts the chance of loss at the exceed ratio is said
 * beside it: the figure to compare such paths by (knee_fit.h).
 */
#include <math.h>
#include <stdio.h>

#include "knee.h"
#include "loss_place.h"
#include "report_load.h"
#include "report_run.h"

/* A load that passed on loss alone: its queue grew through the trial
 * (knee.h's queue tolerance), so it was lossless only for the trial's
 * length. */
static void queued(char *buf, size_t len, const struct results_knee_point *p)
{
	char at[24];

	report_run_fmt_rate(at, sizeof(at), (double)p->above_queued_bps);
	if (p->above_queued_ms > 0 && p->above_queued_s > 0)
		snprintf(buf, len,
			 "lossless for %.3g s only at %s: the queue grew %.3g ms (arrivals "
			 "%.1f %% below the sent rate)",
			 p->above_queued_s, at, p->above_queued_ms, 100 * p->above_queued_ratio);
	else
		snprintf(buf, len, "queued: arrivals up to %.1f %% below the sent rate (at %s)",
			 100 * p->above_queued_ratio, at);
}

double report_run_trial_queued_ms(const struct results_trial *t)
{
	double ms = t->udp.queue_growth_ms, dur_ms = t->duration_s * 1e3;

	/* knee_trial_loss()'s test: the receiver's window beyond the sender's
	 * by more than the tolerance's share of it, and by more than the floor */
	if (t->kind != RESULTS_TRIAL_KNEE || ms * 1e6 <= (double)KNEE_QUEUE_FLOOR_NS ||
	    dur_ms <= 0 || ms <= KNEE_QUEUE_TOLERANCE * (dur_ms + ms))
		return 0;
	return ms;
}

void report_run_knee_above(char *buf, size_t len, const struct results_knee_point *p)
{
	char where[128], lost[16], worst[24], q[160] = "";

	if (!p->above_trials) {
		snprintf(buf, len, "no trial above it");
		return;
	}
	if (p->above_queued_ratio > 0)
		queued(q, sizeof(q), p);
	if (!p->above_lost) {
		if (!q[0])
			snprintf(buf, len, "none lost in %u trials", p->above_trials);
		else
			snprintf(buf, len, "none lost in %u trials, but %s", p->above_trials, q);
		return;
	}
	report_run_loss_where(where, sizeof(where), &p->loss_at);
	report_run_fmt_pps(lost, sizeof(lost), (double)p->above_lost);
	report_run_fmt_rate(worst, sizeof(worst), (double)p->above_worst_bps);
	snprintf(buf, len,
		 "%s: %u of %u trials lost %.2g %% (%s datagrams), up to %.3g %% at %s%s%s", where,
		 p->above_lossy, p->above_trials,
		 100.0 * (double)p->above_lost / (double)p->above_sent, lost,
		 100 * p->above_worst_ratio, worst, q[0] ? "; " : "", q);
}

/* When about half the trials between the lowest and the highest NDR lost
 * (a quarter to three quarters of at least four), loss there came by
 * chance rather than with the load: each repetition's NDR is where its
 * luck ran out, and more trial time narrows that only as its square root.
 * Else nothing. */
static void soft_knee(char *buf, size_t len, const struct results_knee_point *p)
{
	double share = p->band_trials ? (double)p->band_lossy / p->band_trials : 0;

	buf[0] = '\0';
	if (p->band_trials < 4 || share < 0.25 || share > 0.75)
		return;
	snprintf(buf, len,
		 ". A soft knee: %u of the %u trials between those NDRs lost (%.0f %%), so loss "
		 "there came by chance rather than with the load, and each NDR is where a "
		 "search's luck ran out",
		 p->band_lossy, p->band_trials, 100 * share);
}

bool report_run_knee_repeat(char *buf, size_t len, const struct results_knee_point *p)
{
	enum loss_place top = LOSS_PLACE_COUNT;
	uint64_t total = 0, most = 0;
	char lo[24], hi[24], fix[256], soft[224];
	bool wide;

	buf[0] = '\0';
	if (p->ndr_bps.n < 2)
		return false;
	report_run_fmt_rate(lo, sizeof(lo), p->ndr_bps.min);
	report_run_fmt_rate(hi, sizeof(hi), p->ndr_bps.max);
	wide = p->width_goal > 0 && p->ndr_spread > p->width_goal * (1 + 1e-9);
	if (!wide) {
		snprintf(buf, len,
			 "NDR over %u repetitions: %s..%s, spread %.1f %% (width %.1f %%)",
			 p->ndr_bps.n, lo, hi, 100 * p->ndr_spread, 100 * p->width_goal);
		return false;
	}
	soft_knee(soft, sizeof(soft), p);
	for (int i = 0; i < LOSS_PLACE_COUNT; i++) {
		uint64_t n = loss_place_count(&p->disagree_loss, (enum loss_place)i);

		total += n;
		if (n > most) {
			most = n;
			top = (enum loss_place)i;
		}
	}
	if (!total) {
		snprintf(
			buf, len,
			"warning: the NDR varies %.1f %% over %u repetitions (%s..%s), more than "
			"the %.1f %% width, and no counter says where the trials that "
			"disagreed lost: more trial time per load (duration_sum) would steady it%s",
			100 * p->ndr_spread, p->ndr_bps.n, lo, hi, 100 * p->width_goal, soft);
		return true;
	}
	loss_place_fix(fix, sizeof(fix), &p->disagree_loss, top);
	snprintf(buf, len,
		 "warning: the NDR varies %.1f %% over %u repetitions (%s..%s), more than the "
		 "%.1f %% width: %u trials lost at loads another repetition passed, %.0f %% of "
		 "their datagrams at %s; to fix: %s%s",
		 100 * p->ndr_spread, p->ndr_bps.n, lo, hi, 100 * p->width_goal, p->disagree_trials,
		 100.0 * (double)most / (double)total, loss_place_name_at(&p->disagree_loss, top),
		 fix, soft);
	return true;
}

/* Whether the repetitions' knees differ beyond their trials' luck, and
 * the one farthest from the pooled figure. */
static void fit_reps_said(char *buf, size_t len, const struct results_knee_point *p)
{
	const struct knee_fit_reps *fr = &p->ndr_fit_reps;
	const struct knee_fit_rep *far = NULL;
	char at[24];

	buf[0] = '\0';
	if (!fr->df)
		return;
	if (!(fr->p < KNEE_FIT_DIFFER_P)) {
		snprintf(buf, len,
			 ": within their trials' luck (p = %.2f that one knee gives a spread as "
			 "wide), so the pooled figure is the one to compare",
			 fr->p);
		return;
	}
	for (unsigned i = 0; i < fr->n; i++)
		if (fr->rep[i].load_bps > 0 &&
		    (!far || fabs(log(fr->rep[i].load_bps / p->ndr_fit.load_bps)) >
				     fabs(log(far->load_bps / p->ndr_fit.load_bps))))
			far = &fr->rep[i];
	if (far)
		report_run_fmt_rate(at, sizeof(at), far->load_bps);
	snprintf(buf, len,
		 ": wider than their trials' luck (p = %.3f that one knee gives a spread as "
		 "wide%s%u%s%s%s), so the path itself changed between repetitions (other load "
		 "on the hosts, the VPN's own state) and more trials will not narrow it",
		 fr->p, far ? "; repetition " : "", far ? far->rep + 1 : 0, far ? "'s at " : "",
		 far ? at : "", far ? " is the farthest" : "");
}

bool report_run_knee_fit(char *buf, size_t len, const struct results_knee_point *p)
{
	const struct knee_fit *f = &p->ndr_fit;
	char at[24], lo[24], hi[24], b10[24], b90[24], reps[512] = "";

	buf[0] = '\0';
	if (!(f->load_bps > 0))
		return false;
	report_run_fmt_rate(at, sizeof(at), f->load_bps);
	report_run_fmt_rate(lo, sizeof(lo), f->low_bps);
	report_run_fmt_rate(hi, sizeof(hi), f->high_bps);
	report_run_fmt_rate(b10, sizeof(b10), f->band_low_bps);
	report_run_fmt_rate(b90, sizeof(b90), f->band_high_bps);
	if (p->ndr_fit_rep_bps.n >= 2) {
		char rlo[24], rhi[24], said[400];

		report_run_fmt_rate(rlo, sizeof(rlo), p->ndr_fit_rep_bps.min);
		report_run_fmt_rate(rhi, sizeof(rhi), p->ndr_fit_rep_bps.max);
		fit_reps_said(said, sizeof(said), p);
		snprintf(reps, sizeof(reps),
			 "; each repetition's knee under their common slope %s..%s, spread %.1f "
			 "%%%s",
			 rlo, rhi, 100 * p->ndr_fit_spread, said);
	} else if (p->ndr_fit_reps.df) {
		/* the test was made though some repetition's knee lies outside
		 * the loads tried (it has no figure): its reading still holds */
		char said[400];

		fit_reps_said(said, sizeof(said), p);
		snprintf(reps, sizeof(reps),
			 "; the repetitions, each under their common slope (a knee outside the "
			 "loads tried has no figure)%s",
			 said);
	}
	snprintf(buf, len,
		 "fitted to all %u trials (%u lost): a trial loses in %.0f %% of trials at %s "
		 "(90 %% interval %s..%s), in 10 %% at %s, in 90 %% at %s%s",
		 f->ntrials, f->nbad, 100 * f->chance, at, lo, hi, b10, b90, reps);
	return true;
}

/* Stalls: the sender fell a little behind at a load it had offered before
 * (knee.h's KNEE_STALL_NS), a busy host; each was repeated, none taken as
 * the sender's limit. Many of them make the search long, not wrong. */
bool report_run_knee_stalls(char *buf, size_t len, const struct results_knee_point *p)
{
	buf[0] = '\0';
	if (!p->stalls)
		return false;
	snprintf(buf, len,
		 "the sender stalled in %u of %u trials (it fell behind by at most %.0f ms at "
		 "a load it had offered before: a busy host); they were repeated, not taken "
		 "as its limit",
		 p->stalls, p->trials, KNEE_STALL_NS / 1e6);
	return true;
}

/* Searches cut short: by max_time or max_trials, with their goals done (only
 * the fit trials after them were cut) or not (the NDR is where they got). */
bool report_run_knee_cut(char *buf, size_t len, const struct results_knee_point *p)
{
	const char *by = p->cut_time == p->cut ? "max_time"
			 : p->cut_time	       ? "max_time or max_trials"
					       : "max_trials";

	buf[0] = '\0';
	if (!p->cut)
		return false;
	if (p->cut_unfinished)
		snprintf(buf, len,
			 "%u of %u searches stopped at %s, %u of them before the NDR goal was "
			 "done (its figure is where they got): a longer max_time, fewer loads "
			 "(a wider width_goal) or shorter trials",
			 p->cut, p->reps, by, p->cut_unfinished);
	else
		snprintf(buf, len,
			 "%u of %u searches stopped at %s after their goals were done (only "
			 "the fit trials after them were cut)",
			 p->cut, p->reps, by);
	return true;
}
