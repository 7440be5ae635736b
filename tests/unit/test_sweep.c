// SPDX-License-Identifier: MIT
/*
 * sweep.c without sockets: an injected runner plays a shaped path (and a
 * failing server, a short generator, an interrupt), and the printers render
 * what came out.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "interrupt.h"
#include "sweep.h"

#define M  1000000ULL
#define MS 1000000ULL

struct fakepath {
	double capacity;  /* bit/s delivered at most */
	double gen_max;	  /* sender tops out (0: never) */
	int fail_from;	  /* load_run fails from this call on (0: never) */
	int fail_count;	  /* ... for this many calls */
	int interrupt_at; /* raise the interrupt during this call (0: never) */
	bool fail_odd;	  /* every odd call fails */
	int calls;
	uint64_t last_rate, last_dur;
	uint32_t last_len;
	int last_proto;
	unsigned progress_calls, progress_total;
};

static int fake_run(void *arg, const struct load_spec *spec, struct load_result *res)
{
	struct fakepath *p = arg;
	double rate = (double)spec->rate_bps, sent_bps, rx_bps;
	double dur = (double)spec->duration_ns / 1e9;
	uint32_t len = spec->len;

	p->calls++;
	p->last_rate = spec->rate_bps;
	p->last_dur = spec->duration_ns;
	p->last_len = len;
	p->last_proto = spec->proto;
	res->spec = *spec;
	if ((p->fail_from && p->calls >= p->fail_from && p->calls < p->fail_from + p->fail_count) ||
	    (p->fail_odd && p->calls % 2)) {
		snprintf(res->error, sizeof(res->error), "server went away");
		return -ECONNREFUSED;
	}
	if (p->interrupt_at && p->calls == p->interrupt_at) {
		interrupt_raise();
		return -EINTR;
	}
	sent_bps = p->gen_max && rate > p->gen_max ? p->gen_max : rate;
	rx_bps = sent_bps > p->capacity ? p->capacity : sent_bps;
	res->duration_s = dur;
	res->udp.target_bps = spec->rate_bps;
	res->udp.sent = (uint64_t)(sent_bps * dur / 8 / len);
	res->udp.received = (uint64_t)(rx_bps * dur / 8 / len);
	res->udp.lost = res->udp.sent - res->udp.received;
	res->udp.achieved_bps = (uint64_t)sent_bps;
	res->udp.received_bps = (uint64_t)rx_bps;
	res->udp.sent_pps = (uint64_t)(sent_bps / 8 / len);
	res->udp.received_pps = (uint64_t)(rx_bps / 8 / len);
	res->udp.generator_limited = sent_bps < 0.99 * rate;
	res->udp.loss_at.network = res->udp.lost;
	res->udp.len = len;
	return 0;
}

static void count_progress(void *arg, const struct sweep_progress *pr)
{
	struct fakepath *p = arg;

	p->progress_calls++;
	p->progress_total = pr->total;
	assert_int_equal(pr->trial, p->progress_calls);
	assert_true(pr->total >= pr->trial);
	assert_string_equal(pr->label, "native");
	assert_true(pr->left_ns >= pr->duration_ns);
}

static void spec_for(struct sweep_spec *s, struct fakepath *p)
{
	sweep_spec_defaults(s);
	snprintf(s->load.host, sizeof(s->load.host), "198.18.0.2");
	snprintf(s->label, sizeof(s->label), "native");
	s->runner = fake_run;
	s->runner_arg = p;
	s->progress = count_progress;
	s->progress_arg = p;
	s->gap_ns = 0;
	s->trial_ns = 100 * MS;
}

static void test_linear(void **state)
{
	struct fakepath p = { .capacity = 110e6 };
	struct sweep_spec s;
	struct sweep_result r;
	char out[8192];
	FILE *f;

	(void)state;
	spec_for(&s, &p);
	s.load.len = 200;
	s.from_bps = 100 * M;
	s.to_bps = 200 * M;
	s.step_bps = 20 * M;
	assert_int_equal(sweep_run(&s, &r), 0);
	assert_int_equal(r.npoints, 6); /* 100, 120, ..., 200: both ends */
	assert_int_equal(p.calls, 6);
	assert_int_equal(p.progress_calls, 6);
	assert_int_equal(p.progress_total, 6);
	assert_int_equal(p.last_proto, LOAD_UDP);
	assert_int_equal(p.last_len, 200);
	assert_int_equal(p.last_dur, 100 * MS);
	assert_int_equal(r.points[0].target_bps, 100 * M);
	assert_int_equal(r.points[5].target_bps, 200 * M);
	assert_true(r.points[0].delivered_pct == 100.0);
	assert_true(r.points[5].delivered_pct > 54 && r.points[5].delivered_pct < 56);
	assert_true(r.points[5].loss_ratio > 0.44 && r.points[5].loss_ratio < 0.46);
	assert_false(r.has_knee);
	assert_int_equal(r.len, 200);
	assert_string_equal(r.host, "198.18.0.2");

	f = fmemopen(out, sizeof(out), "w");
	report_sweep_term(f, &r);
	fclose(f);
	assert_non_null(strstr(out, "offered |    TX pps |    RX pps |   Mbit/s | delivered %"));
	assert_non_null(strstr(out, "     200.0 |"));
	/* lost past every counter, with no emulated link or shaper said to
	 * lose them: unaccounted, not the network's */
	assert_non_null(strstr(out, "unaccounted 100%"));
	assert_null(strstr(out, "network 100%"));
	assert_non_null(strstr(out, "|####################|"));
	sweep_result_free(&r);
}

/* A linear sweep at line rate: each point is the payload rate of the whole
 * frames a second that fit it, not from's plus k steps' (each rounded
 * down): 1.8 and 3 Mbit/s of 64-byte frames are 2678 and 4464 frames/s
 * (84 bytes on the line), where 2678 + 1785 would be 4463. */
static void test_linear_at_layer(void **state)
{
	struct fakepath p = { .capacity = 1e9 };
	struct sweep_spec s;
	struct sweep_result r;
	char out[16384];
	FILE *f;

	(void)state;
	spec_for(&s, &p);
	s.load.len = 18;
	s.load.family = AF_INET;
	s.rate_layer = LAYER_LINE;
	s.from_bps = 1800000;
	s.to_bps = 3000000;
	s.step_bps = 1200000;
	assert_int_equal(sweep_run(&s, &r), 0);
	assert_int_equal(r.npoints, 2);
	assert_int_equal(r.points[0].target_bps, 2678ULL * 18 * 8);
	assert_int_equal(r.points[1].target_bps, 4464ULL * 18 * 8);
	/* the JSON gives each point at every layer */
	f = fmemopen(out, sizeof(out), "w");
	assert_int_equal(report_sweep_json(f, &r), 0);
	fclose(f);
	assert_non_null(strstr(out, "\"family\":\t\"ipv4\""));
	assert_non_null(strstr(out, "\"datagram_bytes\":\t84"));
	sweep_result_free(&r);
}

static void test_linear_count_and_check(void **state)
{
	struct sweep_spec s;
	char err[256];
	struct fakepath p = { .capacity = 1e9 };

	(void)state;
	assert_int_equal(sweep_linear_count(100 * M, 900 * M, 100 * M), 9);
	assert_int_equal(sweep_linear_count(100 * M, 950 * M, 100 * M), 9);
	assert_int_equal(sweep_linear_count(100 * M, 100 * M, 1), 1);
	assert_int_equal(sweep_linear_count(200 * M, 100 * M, 1), 0);
	assert_int_equal(sweep_linear_count(1, 100, 0), 0);
	spec_for(&s, &p);
	assert_int_equal(sweep_spec_check(&s, err, sizeof(err)), 0);
	s.step_bps = 1000;
	assert_int_equal(sweep_spec_check(&s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "raise the step"));
	s.step_bps = 0;
	assert_int_equal(sweep_spec_check(&s, err, sizeof(err)), -EINVAL);
	spec_for(&s, &p);
	s.load.len = 8;
	assert_int_equal(sweep_spec_check(&s, err, sizeof(err)), -EINVAL);
	spec_for(&s, &p);
	s.mode = SWEEP_KNEE; /* no max rate */
	assert_int_equal(sweep_spec_check(&s, err, sizeof(err)), -EINVAL);
	s.knee.max_rate_bps = 1000 * M;
	assert_int_equal(sweep_spec_check(&s, err, sizeof(err)), 0);
}

static void test_knee_through_sweep(void **state)
{
	struct fakepath p = { .capacity = 47e6 };
	struct sweep_spec s;
	struct sweep_result r;
	const struct knee_bound *ndr;
	cJSON *j, *k;

	(void)state;
	spec_for(&s, &p);
	s.mode = SWEEP_KNEE;
	s.knee.max_rate_bps = 1000 * M;
	s.knee.short_ns = 10 * MS;
	s.knee.final_ns = 20 * MS;
	assert_int_equal(sweep_run(&s, &r), 0);
	assert_true(r.has_knee);
	assert_true(r.knee.done);
	assert_int_equal(r.npoints, r.knee.ntrials);
	assert_int_equal(p.calls, (int)r.npoints);
	ndr = &r.knee.bound[KNEE_NDR];
	assert_int_equal(ndr->outcome, KNEE_FOUND);
	assert_true(ndr->lower_bps <= 47 * M && ndr->lower_bps >= 47 * M * 0.99 * 0.99);
	assert_int_equal(r.points[ndr->lower_trial].target_bps, ndr->lower_bps);
	assert_int_equal(r.points[ndr->lower_trial].verdict, KNEE_PASS);
	assert_int_equal(r.points[0].phase, KNEE_PHASE_MRR);
	assert_int_equal(r.knee.mrr_bps, 47 * M);

	j = report_sweep_json_object(&r);
	assert_non_null(j);
	k = cJSON_GetObjectItem(j, "knee");
	assert_non_null(k);
	assert_string_equal(cJSON_GetObjectItem(j, "mode")->valuestring, "knee");
	assert_string_equal(
		cJSON_GetObjectItem(cJSON_GetObjectItem(k, "ndr"), "outcome")->valuestring,
		"found");
	/* the NDR as sent, its target beside it */
	assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(k, "ndr"), "lower_bps")->valuedouble ==
		    (double)ndr->lower_achieved_bps);
	assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(k, "ndr"), "lower_target_bps")
			    ->valuedouble == (double)ndr->lower_bps);
	assert_true(ndr->lower_achieved_bps <= ndr->lower_bps);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "points")), r.npoints);
	cJSON_Delete(j);
	sweep_result_free(&r);
}

/* The sender tops out at 30 Mbit/s on a 47 Mbit/s path. */
static void test_knee_generator_limited(void **state)
{
	struct fakepath p = { .capacity = 47e6, .gen_max = 30e6 };
	struct sweep_spec s;
	struct sweep_result r;
	char out[16384];
	FILE *f;

	(void)state;
	spec_for(&s, &p);
	s.mode = SWEEP_KNEE;
	s.knee.max_rate_bps = 1000 * M;
	s.knee.short_ns = 10 * MS;
	s.knee.final_ns = 20 * MS;
	assert_int_equal(sweep_run(&s, &r), 0);
	assert_true(r.knee.generator_limited);
	assert_int_equal(r.knee.bound[KNEE_NDR].outcome, KNEE_GENERATOR_LIMIT);
	for (unsigned i = 0; i < r.npoints; i++)
		if (r.points[i].generator_limited)
			assert_int_equal(r.points[i].verdict, KNEE_INVALID);
	f = fmemopen(out, sizeof(out), "w");
	report_sweep_term(f, &r);
	fclose(f);
	assert_non_null(strstr(out, "the sender fell short"));
	assert_non_null(strstr(out, "generator-limit"));
	sweep_result_free(&r);
}

static void test_errors(void **state)
{
	struct fakepath p = { .capacity = 1e9, .fail_from = 2, .fail_count = 1 };
	struct sweep_spec s;
	struct sweep_result r;

	(void)state;
	/* linear: a failed trial is recorded and the sweep goes on */
	spec_for(&s, &p);
	s.from_bps = 10 * M;
	s.to_bps = 30 * M;
	s.step_bps = 10 * M;
	assert_int_equal(sweep_run(&s, &r), 0);
	assert_int_equal(r.npoints, 3);
	assert_int_equal(r.points[1].rc, -ECONNREFUSED);
	assert_string_equal(r.points[1].error, "server went away");
	sweep_result_free(&r);

	/* ... unless told to stop */
	p = (struct fakepath){ .capacity = 1e9, .fail_from = 2, .fail_count = 1 };
	s.progress_arg = &p;
	s.runner_arg = &p;
	s.stop_on_error = true;
	assert_int_equal(sweep_run(&s, &r), -ECONNREFUSED);
	assert_int_equal(r.npoints, 2);
	assert_string_equal(r.error, "server went away");
	sweep_result_free(&r);

	/* knee: one failure is retried, two in a row stop the search */
	p = (struct fakepath){ .capacity = 47e6, .fail_from = 3, .fail_count = 1 };
	spec_for(&s, &p);
	s.mode = SWEEP_KNEE;
	s.knee.max_rate_bps = 1000 * M;
	s.knee.short_ns = 10 * MS;
	s.knee.final_ns = 20 * MS;
	assert_int_equal(sweep_run(&s, &r), 0);
	assert_int_equal(r.knee.bound[KNEE_NDR].outcome, KNEE_FOUND);
	assert_int_equal(p.calls, (int)r.npoints + 1);
	sweep_result_free(&r);
	p = (struct fakepath){ .capacity = 47e6, .fail_from = 3, .fail_count = 2 };
	s.runner_arg = &p;
	s.progress_arg = &p;
	assert_int_equal(sweep_run(&s, &r), -ECONNREFUSED);
	assert_int_equal(r.npoints, 2);
	assert_false(r.knee.done);
	assert_string_equal(r.error, "server went away");
	sweep_result_free(&r);

	/* failures apart are retried each time, but max_trials bounds every
	 * try, counted or not */
	p = (struct fakepath){ .capacity = 47e6, .fail_odd = true };
	s.runner_arg = &p;
	s.progress_arg = &p;
	s.knee.max_trials = 4;
	assert_int_equal(sweep_run(&s, &r), -ECONNREFUSED);
	assert_int_equal(p.calls, 4);
	assert_int_equal(r.npoints, 2);
	assert_false(r.knee.done);
	assert_string_equal(r.error, "4 trials run (max_trials), 2 of them could not be counted");
	sweep_result_free(&r);
}

/* Ctrl-C during a trial: stop, keep what was measured, say so. */
static void test_interrupt(void **state)
{
	struct fakepath p = { .capacity = 1e9, .interrupt_at = 3 };
	struct sweep_spec s;
	struct sweep_result r;
	char out[4096];
	FILE *f;

	(void)state;
	spec_for(&s, &p);
	s.from_bps = 10 * M;
	s.to_bps = 100 * M;
	s.step_bps = 10 * M;
	assert_int_equal(sweep_run(&s, &r), -EINTR);
	assert_true(r.interrupted);
	assert_int_equal(r.npoints, 2);
	assert_int_equal(p.calls, 3);
	f = fmemopen(out, sizeof(out), "w");
	report_sweep_term(f, &r);
	fclose(f);
	assert_non_null(strstr(out, "interrupted"));
	sweep_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linear),
		cmocka_unit_test(test_linear_at_layer),
		cmocka_unit_test(test_linear_count_and_check),
		cmocka_unit_test(test_knee_through_sweep),
		cmocka_unit_test(test_knee_generator_limited),
		cmocka_unit_test(test_errors),
		/* last: the interrupt flag stays raised for the process */
		cmocka_unit_test(test_interrupt),
	};

	return cmocka_run_group_tests_name("sweep", tests, NULL, NULL);
}
