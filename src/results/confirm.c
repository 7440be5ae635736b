// SPDX-License-Identifier: MIT
/* A fix proved by a rerun (contract in confirm.h). */
#include <stdio.h>
#include <string.h>

#include "confirm.h"

void confirm_plan_of(const struct tcp_limit_verdict *v, bool lab, struct confirm_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->value = v->fix_value;
	switch (v->limit) {
	case TCP_LIMIT_RWND:
	case TCP_LIMIT_SNDBUF:
		if (!v->fix_value)
			break;
		/* the test's own -w where it set it, or between hosts (a host's
		 * sysctl is its owner's); the lab's namespaces are the run's */
		if (v->sock_buf_fix) {
			p->action = CONFIRM_SOCK_BUF;
		} else if (!lab) {
			p->action = CONFIRM_SOCK_BUF;
			if (v->sock_buf_value)
				p->value = v->sock_buf_value;
			p->max = v->sock_buf_max;
			p->max_name = v->limit == TCP_LIMIT_RWND ? "net.core.rmem_max of the "
								   "receiving host"
								 : "net.core.wmem_max of the "
								   "sending host";
		} else
			p->action = v->limit == TCP_LIMIT_RWND ? CONFIRM_RMEM : CONFIRM_WMEM;
		return;
	case TCP_LIMIT_LOSS:
		if (!strstr(v->fix, "-C bbr"))
			break;
		p->action = CONFIRM_CONGESTION;
		snprintf(p->cc, sizeof(p->cc), "bbr");
		return;
	default:
		break;
	}
	snprintf(p->why, sizeof(p->why), "no fix of a %s limit that ovlperf may apply",
		 tcp_limit_name(v->limit));
}

void confirm_words(const struct results_confirm *c, char *buf, size_t len)
{
	double pct = c->before_bps > 0 ? (c->after_bps / c->before_bps - 1) * 100 : 0;

	if (!c->applied[0] || c->after_bps <= 0) {
		snprintf(buf, len, "not rerun: %s", c->note[0] ? c->note : "nothing applied");
		return;
	}
	if (c->after_bps >= CONFIRM_MOVED * c->before_bps)
		snprintf(buf, len, "confirmed: %+.0f %% with %s, now limited by %s", pct,
			 c->applied, c->limit_after);
	else
		snprintf(buf, len, "not moved: %+.0f %% with %s, still limited by %s", pct,
			 c->applied, c->limit_after);
}
