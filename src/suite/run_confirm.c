// SPDX-License-Identifier: MIT
/* run --confirm (contract in run_int.h): each limited TCP figure rerun
 * once with its verdict's fix applied where ovlperf may apply it (in its
 * own lab the hosts' TCP buffer maxima, anywhere the test's own -w and
 * -C), the figure before and after, and what it changed put back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confirm.h"
#include "lab.h"
#include "run_int.h"
#include "run_limit.h"

/* What the rerun changes on the lab's hosts, to put back. */
struct undo {
	bool set, rmem;
	unsigned host;
	uint32_t was;
};

/* A lab host's TCP buffer maximum: the receiver's tcp_rmem, the sender's
 * tcp_wmem (the client's end sends unless [tcp] reverse). The thread
 * leaves the client's namespace for it and comes back. */
static int set_max(struct run *r, const struct confirm_plan *p, struct undo *u,
		   struct results_confirm *c)
{
	bool rmem = p->action == CONFIRM_RMEM;
	uint32_t max = p->value > UINT32_MAX ? UINT32_MAX : (uint32_t)p->value;
	int rc, back;

	u->rmem = rmem;
	u->host = rmem != r->scn->tcp.reverse ? r->scn->lab.server : r->scn->lab.client;
	run_paths_leave(r);
	rc = lab_host_tcp_max(r->lab, u->host, rmem, max, &u->was);
	back = run_paths_enter(r);
	u->set = rc == 0;
	if (!rc)
		snprintf(c->applied, sizeof(c->applied),
			 "net.ipv4.tcp_%s maximum %u -> %u B on lab host %u",
			 rmem ? "rmem" : "wmem", u->was, max, u->host);
	return rc ? rc : back;
}

static void put_back(struct run *r, const struct undo *u, struct results_confirm *c)
{
	uint32_t now;
	int rc;

	if (!u->set)
		return;
	run_paths_leave(r);
	rc = lab_host_tcp_max(r->lab, u->host, u->rmem, u->was, &now);
	/* read back: the maximum the host has now is the one it had */
	if (!rc)
		rc = lab_host_tcp_max(r->lab, u->host, u->rmem, 0, &now);
	if (!rc && now != u->was)
		rc = -EIO;
	if (run_paths_enter(r) || rc) {
		c->restored = false;
		run_warn(r, "lab host %u: net.ipv4.tcp_%s maximum not put back to %u: %s", u->host,
			 u->rmem ? "rmem" : "wmem", u->was, strerror(-rc));
	}
}

/* The rerun's figure and its verdict, as the run's trials are judged. */
static void rerun(struct run *r, const struct confirm_plan *p, struct results_confirm *c)
{
	uint32_t w = p->value > UINT32_MAX ? UINT32_MAX : (uint32_t)p->value;
	struct results_trial *t = calloc(1, sizeof(*t));
	struct tcp_limit_verdict v;
	struct load_result lr;
	int rc;

	if (!t) {
		snprintf(c->note, sizeof(c->note), "out of memory");
		return;
	}
	rc = run_tcp_once(r, c->path, c->streams, p->action == CONFIRM_SOCK_BUF ? w : 0,
			  p->action == CONFIRM_CONGESTION ? p->cc : NULL, &lr);
	if (rc < 0) {
		snprintf(c->note, sizeof(c->note), "the rerun failed: %.120s",
			 lr.error[0] ? lr.error : strerror(-rc));
	} else {
		t->path = c->path;
		t->kind = RESULTS_TRIAL_TCP;
		t->streams = c->streams;
		results_trial_from_load(t, &lr);
		results_trial_tcp_limit(r->res, t, &v);
		c->after_bps = (double)lr.tcp.goodput_bps;
		snprintf(c->limit_after, sizeof(c->limit_after), "%s", tcp_limit_name(v.limit));
	}
	load_result_free(&lr);
	free(t);
}

static void confirm_one(struct run *r, const struct results_tcp_point *pt,
			const struct tcp_limit_verdict *v)
{
	struct results_confirm *c = &r->res->confirms[r->res->nconfirms++];
	struct undo u = { 0 };
	struct confirm_plan p;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	c->path = pt->path;
	c->streams = pt->streams;
	c->before_bps = pt->goodput_bps.median;
	c->restored = true;
	snprintf(c->limit_before, sizeof(c->limit_before), "%s", tcp_limit_name(v->limit));
	confirm_plan_of(v, r->lab != NULL, &p);
	if (p.action == CONFIRM_NONE) {
		snprintf(c->note, sizeof(c->note), "%s", p.why);
		return;
	}
	if (p.action == CONFIRM_RMEM || p.action == CONFIRM_WMEM)
		rc = set_max(r, &p, &u, c);
	else if (p.action == CONFIRM_SOCK_BUF && p.max_name && p.max)
		snprintf(c->applied, sizeof(c->applied), "-w %llu (within the %s, %u B)",
			 (unsigned long long)p.value, p.max_name, p.max);
	else if (p.action == CONFIRM_SOCK_BUF)
		snprintf(c->applied, sizeof(c->applied), "-w %llu", (unsigned long long)p.value);
	else
		snprintf(c->applied, sizeof(c->applied), "-C %s", p.cc);
	if (rc) {
		snprintf(c->note, sizeof(c->note), "the fix could not be applied: %s",
			 strerror(-rc));
		c->applied[0] = '\0';
	} else {
		rerun(r, &p, c);
	}
	put_back(r, &u, c);
	run_save(r);
}

void run_confirm(struct run *r)
{
	struct results_summary sum;
	struct results_tcp_limit l;

	if (results_aggregate(r->res, &sum))
		return;
	for (size_t i = 0; i < sum.ntcp && !r->stop; i++) {
		const struct results_tcp_point *pt = &sum.tcp[i];

		if (r->res->nconfirms == RESULTS_MAX_CONFIRMS)
			break;
		if (!pt->goodput_bps.n ||
		    !results_tcp_limit_line(r->res, pt->path, pt->streams, &l) ||
		    l.v.limit == TCP_LIMIT_APPLICATION)
			continue;
		confirm_one(r, pt, &l.v);
	}
	results_summary_free(&sum);
}
