// SPDX-License-Identifier: MIT
/*
 * Terminal printer of a sweep: one row per trial,
 *   offered | TX pps | RX pps | Mbit/s | delivered % | loss at | bar
 * and, for a knee search, the NDR and PDR bounds with how they were found.
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "sweep.h"

#define BAR_WIDTH 20

static const char *mbit(uint64_t bps, char buf[static 24])
{
	double m = (double)bps / 1e6;

	snprintf(buf, 24, m >= 100 ? "%.1f" : m >= 10 ? "%.2f" : "%.3f", m);
	return buf;
}

/* The places that lost the most, "network 97%" or "rcvbuf 60%, network 40%". */
static const char *loss_where(const struct loss_attrib *a, char buf[static 48])
{
	const struct {
		const char *name;
		uint64_t n;
	} at[] = { { a->network_where[0] ? "network" : "unaccounted", a->network },
		   { "sndbuf", a->sender_sndbuf },
		   { "tx-link", a->sender_link },
		   { "rcvbuf", a->receiver_rcvbuf },
		   { "socket", a->receiver_socket },
		   { "inerrors", a->receiver_inerrors },
		   { "rx-link", a->receiver_link },
		   { "qdisc", a->sender_qdisc },
		   { "tunnel", a->tunnel },
		   { "backlog", a->backlog } };
	size_t n = sizeof(at) / sizeof(at[0]), first = n, second = n;
	uint64_t total = 0;

	for (size_t i = 0; i < n; i++) {
		total += at[i].n;
		if (at[i].n && (first == n || at[i].n > at[first].n)) {
			second = first;
			first = i;
		} else if (at[i].n && (second == n || at[i].n > at[second].n)) {
			second = i;
		}
	}
	if (!total) {
		buf[0] = '\0';
		return buf;
	}
	if (second == n)
		snprintf(buf, 48, "%s %.0f%%", at[first].name,
			 100.0 * (double)at[first].n / (double)total);
	else
		snprintf(buf, 48, "%s %.0f%%, %s %.0f%%", at[first].name,
			 100.0 * (double)at[first].n / (double)total, at[second].name,
			 100.0 * (double)at[second].n / (double)total);
	return buf;
}

static void bar(FILE *f, double pct)
{
	int n = (int)(pct / 100.0 * BAR_WIDTH + 0.5);

	if (n < 0)
		n = 0;
	if (n > BAR_WIDTH)
		n = BAR_WIDTH;
	fprintf(f, "|%.*s%*s|", n, "####################", BAR_WIDTH - n, "");
}

static void header(FILE *f, const struct sweep_result *res)
{
	char a[24];
	const char *fam = res->family == AF_INET6 ? " (IPv6)" : "";

	if (res->mode == SWEEP_KNEE)
		fprintf(f,
			"UDP knee search to %s%s%s%s, %u-byte datagrams, max %s Mbit/s, "
			"loss goal %.3g %%, width goal %.3g %%, exceed ratio %.3g %% (RFC 9971)\n",
			res->host, fam, res->label[0] ? ", path " : "", res->label, res->len,
			mbit(res->knee_cfg.max_rate_bps, a), res->knee_cfg.loss_goal * 100,
			res->knee_cfg.width_goal * 100, res->knee_cfg.exceed_ratio * 100);
	else
		fprintf(f, "UDP sweep to %s%s%s%s, %u-byte datagrams, %u trials of %.3g s\n",
			res->host, fam, res->label[0] ? ", path " : "", res->label, res->len,
			res->npoints, (double)res->trial_ns / 1e9);
}

static void rows(FILE *f, const struct sweep_result *res)
{
	bool knee = res->mode == SWEEP_KNEE, shortfall = false;
	char a[24], b[24], c[48];

	fprintf(f, "%s%10s | %9s | %9s | %8s | %11s | %-24s |\n",
		knee ? "  # phase   verdict  | " : "", "offered", "TX pps", "RX pps", "Mbit/s",
		"delivered %", "loss at");
	for (unsigned i = 0; i < res->npoints; i++) {
		const struct sweep_point *p = &res->points[i];

		if (knee)
			fprintf(f, "%3u %-7s %-8s | ", i + 1, knee_phase_name(p->phase),
				knee_verdict_name(p->verdict));
		fprintf(f, "%10s", mbit(p->target_bps, a));
		if (p->rc < 0) {
			fprintf(f, " | error: %s\n", p->error);
			continue;
		}
		fprintf(f, "%s| %9llu | %9llu | %8s | %11.2f | %-24s | ",
			p->generator_limited ? "*" : " ", (unsigned long long)p->sent_pps,
			(unsigned long long)p->received_pps, mbit(p->received_bps, b),
			p->delivered_pct, loss_where(&p->loss_at, c));
		bar(f, p->delivered_pct);
		fputc('\n', f);
		shortfall |= p->generator_limited;
	}
	fprintf(f, "(offered and Mbit/s: UDP payload, Mbit/s as received)\n");
	if (shortfall)
		fprintf(f, "* the sender fell short of the offered rate: not a valid trial\n");
	/* as the last trial that ran reported it (a failed one may not say) */
	for (unsigned i = res->npoints; i-- > 0;) {
		const struct sweep_point *p = &res->points[i];

		if (p->rc < 0)
			continue;
		fprintf(f, "scheduling of the test threads: client %s, server %s\n",
			load_sched_name(&p->sched_client, a, sizeof(a)),
			load_sched_name(&p->sched_server, b, sizeof(b)));
		break;
	}
}

static void bound(FILE *f, const char *name, const struct knee_bound *bd, uint32_t len)
{
	char a[24], b[24];
	double bits = 8.0 * (len ? len : 1);

	/* The lower bound as the sender achieved it in the deciding trial,
	 * the target beside it; ">=" when the search did not find the knee. */
	fprintf(f, "  %s  %s", name, bd->lower_valid && bd->outcome != KNEE_FOUND ? ">= " : "");
	if (bd->lower_valid) {
		fprintf(f, "%s", mbit(bd->lower_achieved_bps, a));
		if (bd->lower_achieved_bps != bd->lower_bps)
			fprintf(f, " (target %s)", mbit(bd->lower_bps, b));
	} else {
		fprintf(f, "-");
	}
	fprintf(f, " .. ");
	if (bd->upper_valid)
		fprintf(f, "%s", mbit(bd->upper_bps, b));
	else
		fprintf(f, "-");
	fprintf(f, " Mbit/s");
	if (bd->lower_valid)
		fprintf(f, " (%.0f pps)", (double)bd->lower_achieved_bps / bits);
	fprintf(f, "  %s", knee_outcome_name(bd->outcome));
	if (bd->lower_valid && bd->upper_valid && bd->upper_bps)
		fprintf(f, ", width %.2f %%",
			100.0 * (double)(bd->upper_bps - bd->lower_bps) / (double)bd->upper_bps);
	if (bd->upper_is_generator_limit)
		fprintf(f, ", upper bound is where the sender fell short");
	else if (bd->upper_valid)
		fprintf(f, ", %.3g %% loss at the upper bound", bd->upper_loss * 100);
	fputc('\n', f);
	/* RFC 9971 4.9: what the lower bound carried in all but the exceed
	 * ratio of its trial time, and how much trial time stands behind it */
	if (bd->conditional_throughput_bps)
		fprintf(f,
			"       conditional throughput %s Mbit/s, %u trials (%.3g s) at the lower "
			"bound\n",
			mbit(bd->conditional_throughput_bps, a), bd->lower_ntrials,
			(double)bd->lower_duration_ns / 1e9);
}

static void knee_summary(FILE *f, const struct sweep_result *res)
{
	const struct knee_result *k = &res->knee;
	const struct knee_bound *ndr = &k->bound[KNEE_NDR];
	char a[24], b[48];

	fprintf(f, "\nKnee%s: %u trials, %.1f s of trials (%.1f s in all), MRR %s Mbit/s\n",
		k->done ? "" : " (search not finished)", k->ntrials, (double)k->trial_ns / 1e9,
		(double)res->elapsed_ns / 1e9, mbit(k->mrr_bps, a));
	bound(f, "NDR", ndr, res->len);
	bound(f, "PDR", &k->bound[KNEE_PDR], res->len);
	if (k->generator_limited)
		fprintf(f, "  the sender could not offer %s Mbit/s: results above it are unknown\n",
			mbit(k->generator_limit_bps, a));
	if (ndr->upper_valid && !ndr->upper_is_generator_limit && ndr->upper_trial >= 0 &&
	    (unsigned)ndr->upper_trial < res->npoints) {
		const struct sweep_point *p = &res->points[ndr->upper_trial];

		if (p->lost)
			fprintf(f, "  loss at the NDR upper bound: %s\n",
				loss_where(&p->loss_at, b));
	}
}

void report_sweep_term(FILE *f, const struct sweep_result *res)
{
	header(f, res);
	rows(f, res);
	if (res->has_knee)
		knee_summary(f, res);
	if (res->interrupted)
		fprintf(f, "interrupted: the table shows the trials that completed\n");
	else if (res->rc < 0 && res->error[0])
		fprintf(f, "stopped: %s\n", res->error);
}
