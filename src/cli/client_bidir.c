// SPDX-License-Identifier: MIT
/* --bidir: two tests on two threads, their live output serialised. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_bidir.h"
#include "load.h"
#include "log.h"
#include "report_iperf3.h"
#include "report_load.h"

struct bidir;

struct side {
	struct bidir *b;
	struct load_spec spec;
	struct load_result res;
	struct load_hooks hooks;
	struct report_term term;
	cJSON *start;	  /* --json-stream: this test's "start", once sampled */
	bool start_built; /* its own thread built it (only that thread reads this) */
	cJSON **ivs;	  /* --json-stream: its intervals not yet written */
	unsigned nivs;	  /* entries in ivs */
	unsigned written; /* of them, written already (paired with the other's) */
	int rc;
	pthread_t thread;
};

struct bidir {
	pthread_mutex_t lock; /* one writer on stdout at a time */
	const struct client_out *out;
	struct side fwd, rev;
	bool started;	    /* --json-stream: the "start" event is out */
	const char *server; /* --json-stream: server_output_text, at the end */
};

static void term_interval(const struct load_result *res, const struct load_interval *iv, void *arg)
{
	struct side *s = arg;

	pthread_mutex_lock(&s->b->lock);
	report_load_term_interval(res, iv, &s->term);
	pthread_mutex_unlock(&s->b->lock);
}

/* Writes what both tests have sampled: one event per interval of both,
 * as iperf3 --bidir writes them. Under the lock. */
static void stream_flush(struct bidir *b)
{
	if (!b->started && b->fwd.start && b->rev.start) {
		cJSON *c = cJSON_DetachItemFromObjectCaseSensitive(b->rev.start, "connected");
		cJSON *mine = cJSON_GetObjectItemCaseSensitive(b->fwd.start, "connected"), *e;

		while (c && mine && (e = cJSON_DetachItemFromArray(c, 0)))
			cJSON_AddItemToArray(mine, e);
		cJSON_Delete(c);
		report_iperf3_event(stdout, "start", b->fwd.start);
		b->fwd.start = NULL;
		b->started = true;
	}
	while (b->started && b->fwd.written < b->fwd.nivs && b->rev.written < b->rev.nivs) {
		cJSON *iv = report_iperf3_bidir_interval(b->fwd.ivs[b->fwd.written],
							 b->rev.ivs[b->rev.written]);

		b->fwd.ivs[b->fwd.written++] = NULL;
		b->rev.ivs[b->rev.written++] = NULL;
		if (iv)
			report_iperf3_event(stdout, "interval", iv);
	}
}

/* Built on the test's own thread (its result is its own), paired under
 * the lock. */
static void stream_local(const struct load_result *res, unsigned idx, void *arg)
{
	struct side *s = arg;
	cJSON *iv = report_iperf3_interval(res, idx), *start = NULL, **a;

	if (!s->start_built) {
		s->start_built = true;
		start = report_iperf3_start(res);
	}
	pthread_mutex_lock(&s->b->lock);
	if (start && !s->b->started)
		s->start = start;
	else
		cJSON_Delete(start);
	a = realloc(s->ivs, (s->nivs + 1) * sizeof(*a));
	if (a && iv) {
		s->ivs = a;
		s->ivs[s->nivs++] = iv;
	} else {
		if (a)
			s->ivs = a;
		cJSON_Delete(iv);
	}
	stream_flush(s->b);
	pthread_mutex_unlock(&s->b->lock);
}

static void *run(void *arg)
{
	struct side *s = arg;

	s->rc = load_run_hooks(&s->spec, &s->res, &s->hooks);
	return NULL;
}

static void side_init(struct bidir *b, struct side *s, const struct load_spec *spec, bool reverse)
{
	memset(s, 0, sizeof(*s));
	s->b = b;
	s->spec = *spec;
	s->spec.reverse = reverse;
	/* --cport: the second test's streams take the ports after the first's */
	if (reverse && s->spec.cport)
		s->spec.cport = (uint16_t)(s->spec.cport + s->spec.streams);
	s->term = (struct report_term){ .f = stdout,
					.units = b->out->units,
					.tag = reverse ? "[RX-C]" : "[TX-C]" };
	if (b->out->mode == CLIENT_TERM)
		s->hooks = (struct load_hooks){ .on_interval = term_interval, .arg = s };
	else if (b->out->mode == CLIENT_IPERF3_STREAM)
		s->hooks = (struct load_hooks){ .on_local = stream_local, .arg = s };
}

static void side_free(struct side *s)
{
	for (unsigned i = 0; i < s->nivs; i++)
		cJSON_Delete(s->ivs[i]);
	free(s->ivs);
	cJSON_Delete(s->start);
	load_result_free(&s->res);
}

static void stream_end(struct bidir *b)
{
	const struct load_result *f = &b->fwd.res, *r = &b->rev.res;
	cJSON *doc = report_iperf3_bidir_json(f, r), *e;

	/* what was not written live comes from the whole document */
	if (!b->started && (e = cJSON_DetachItemFromObjectCaseSensitive(doc, "start")))
		report_iperf3_event(stdout, "start", e);
	if ((e = cJSON_DetachItemFromObjectCaseSensitive(doc, "error")))
		report_iperf3_event(stdout, "error", e);
	if (b->server)
		report_iperf3_event(stdout, "server_output_text", cJSON_CreateString(b->server));
	if ((e = cJSON_DetachItemFromObjectCaseSensitive(doc, "end")))
		report_iperf3_event(stdout, "end", e);
	if ((e = cJSON_DetachItemFromObjectCaseSensitive(doc, "ovlperf")))
		report_iperf3_event(stdout, "ovlperf", e);
	cJSON_Delete(doc);
}

/* --get-server-output: the server's view of each test, one after the
 * other (NULL when not asked or out of memory). */
static char *server_text(const struct bidir *b)
{
	char *f, *r, *both = NULL;
	size_t n;

	if (!b->out->server_output || !b->fwd.res.nstreams || !b->rev.res.nstreams)
		return NULL;
	f = report_load_server_text(&b->fwd.res, b->out->units);
	r = report_load_server_text(&b->rev.res, b->out->units);
	n = f && r ? strlen(f) + strlen(r) + 1 : 0;
	if (n && (both = malloc(n)))
		snprintf(both, n, "%s%s", f, r);
	free(f);
	free(r);
	return both;
}

static void print(struct bidir *b)
{
	const struct load_result *f = &b->fwd.res, *r = &b->rev.res;
	char *server = server_text(b);

	switch (b->out->mode) {
	case CLIENT_TERM:
		if (f->nstreams)
			report_load_term(&b->fwd.term, f);
		if (r->nstreams)
			report_load_term(&b->rev.term, r);
		if (server)
			printf("\nServer output:\n%s", server);
		break;
	case CLIENT_JSON:
		report_load_json_bidir_print(stdout, f, r, server);
		break;
	case CLIENT_IPERF3:
		report_iperf3_bidir_print(stdout, f, r, server);
		break;
	default:
		b->server = server;
		stream_end(b);
		b->server = NULL;
	}
	free(server);
}

int client_bidir_run(const struct client_out *out, const struct load_spec *spec)
{
	struct bidir *b = calloc(1, sizeof(*b));
	int rc;

	if (!b)
		return -ENOMEM;
	pthread_mutex_init(&b->lock, NULL);
	b->out = out;
	side_init(b, &b->fwd, spec, false);
	side_init(b, &b->rev, spec, true);
	if (out->mode == CLIENT_TERM) {
		report_load_term_header(&b->fwd.term, &b->fwd.spec);
		report_load_term_header(&b->rev.term, &b->rev.spec);
	}
	rc = pthread_create(&b->fwd.thread, NULL, run, &b->fwd);
	if (rc == 0 && (rc = pthread_create(&b->rev.thread, NULL, run, &b->rev)) != 0) {
		pthread_join(b->fwd.thread, NULL);
		rc = -rc;
	} else if (rc == 0) {
		pthread_join(b->fwd.thread, NULL);
		pthread_join(b->rev.thread, NULL);
		print(b);
		if (b->fwd.rc < 0 && b->fwd.res.error[0])
			log_err("client sending: %s", b->fwd.res.error);
		if (b->rev.rc < 0 && b->rev.res.error[0])
			log_err("server sending: %s", b->rev.res.error);
		rc = b->fwd.rc < 0 ? b->fwd.rc : b->rev.rc;
	} else {
		rc = -rc;
	}
	side_free(&b->fwd);
	side_free(&b->rev);
	pthread_mutex_destroy(&b->lock);
	free(b);
	return rc;
}
