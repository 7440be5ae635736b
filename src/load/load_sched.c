// SPDX-License-Identifier: MIT
/*
 * How one end's test threads were scheduled: carried in its RESULTS and
 * named for the printers. The default is SCHED_OTHER (load_spec.h says why); the
 * figure is what the threads really ran with, read back from them.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load_sched.h"

const char *load_sched_name(const struct load_sched *s, char *buf, size_t n)
{
	switch (s->policy) {
	case LOAD_SCHED_OTHER:
		return "other";
	case LOAD_SCHED_FIFO:
	case LOAD_SCHED_RR:
		snprintf(buf, n, "%s:%u", s->policy == LOAD_SCHED_FIFO ? "fifo" : "rr", s->prio);
		return buf;
	default:
		return "unknown";
	}
}

bool load_sched_parse(const char *name, struct load_sched *s)
{
	const char *num = NULL;
	char *end;
	long v;

	if (!strcmp(name, "other")) {
		*s = (struct load_sched){ .policy = LOAD_SCHED_OTHER };
		return true;
	}
	if (!strncmp(name, "fifo:", 5))
		num = name + 5;
	else if (!strncmp(name, "rr:", 3))
		num = name + 3;
	if (!num || *num < '0' || *num > '9')
		return false;
	v = strtol(num, &end, 10);
	if (*end || v < 1 || v > 99)
		return false;
	s->policy = name[0] == 'f' ? LOAD_SCHED_FIFO : LOAD_SCHED_RR;
	s->prio = (uint8_t)v;
	return true;
}

/* A thread's policy as pthread_getschedparam() gives it. */
static void from_policy(int policy, int prio, struct load_sched *s)
{
	s->policy = policy == SCHED_FIFO ? LOAD_SCHED_FIFO
		    : policy == SCHED_RR ? LOAD_SCHED_RR
					 : LOAD_SCHED_OTHER;
	s->prio = s->policy == LOAD_SCHED_OTHER ? 0 : (uint8_t)prio;
}

void load_sched_of(const struct udp_stream *us, unsigned n, struct load_sched *s)
{
	struct sched_param sp = { 0 };
	int policy = SCHED_OTHER;

	/* TCP stream threads inherit the calling thread's scheduling
	 * (pthread_create's default PTHREAD_INHERIT_SCHED) and never change it */
	if (!us) {
		if (pthread_getschedparam(pthread_self(), &policy, &sp) == 0)
			from_policy(policy, sp.sched_priority, s);
		else
			s->policy = LOAD_SCHED_UNKNOWN;
		return;
	}
	/* UDP: each thread's own; the highest priority if they differ */
	s->policy = LOAD_SCHED_OTHER;
	s->prio = 0;
	for (unsigned i = 0; i < n; i++) {
		struct load_sched t;

		from_policy(us[i].sched_policy, us[i].sched_prio, &t);
		if (t.policy != LOAD_SCHED_OTHER && t.prio >= s->prio)
			*s = t;
	}
}

void load_sched_put(const struct load_sched *s, struct proto_results *out)
{
	out->flags &= ~(PROTO_RES_SCHED | PROTO_RES_SCHED_RR);
	out->sched_prio = 0;
	if (s->policy == LOAD_SCHED_UNKNOWN)
		return;
	out->flags |= PROTO_RES_SCHED;
	if (s->policy == LOAD_SCHED_OTHER)
		return;
	out->sched_prio = s->prio;
	if (s->policy == LOAD_SCHED_RR)
		out->flags |= PROTO_RES_SCHED_RR;
}

void load_sched_get(const struct proto_results *in, struct load_sched *s)
{
	s->prio = in->sched_prio;
	if (!(in->flags & PROTO_RES_SCHED))
		*s = (struct load_sched){ .policy = LOAD_SCHED_UNKNOWN };
	else if (!in->sched_prio)
		s->policy = LOAD_SCHED_OTHER;
	else
		s->policy = in->flags & PROTO_RES_SCHED_RR ? LOAD_SCHED_RR : LOAD_SCHED_FIFO;
}
