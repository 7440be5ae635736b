// SPDX-License-Identifier: MIT
/*
 * The path MTU search against simulated paths: clean paths, a narrower hop
 * with and without ICMP (black hole), single probe losses, random loss,
 * ICMP that announces a wrong MTU, the local stack refusing sizes above the
 * interface MTU, jumbo paths, and bases (1200, 576, 68) that do or do not
 * get through. Every case asserts the exact MTU: the simulated path knows it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mtu.h"

struct simpath {
	uint32_t pmtu;		      /* largest size the path delivers */
	uint32_t if_mtu;	      /* above this the local stack says EMSGSIZE (0: none) */
	bool icmp;		      /* too-big comes back for sizes above pmtu */
	uint32_t icmp_says;	      /* the MTU the ICMP announces (0: pmtu) */
	unsigned lose_every;	      /* lose probe number n when n % lose_every == 0 (0: none) */
	unsigned lose_first_of_round; /* lose probe 0 of every round */
	double loss;		      /* random loss ratio */
	uint32_t refuse_above; /* this host refuses sizes above it (ENOBUFS/EPERM; 0: none) */
	uint64_t rng;
	unsigned probe_no;
};

static double rnd(struct simpath *p)
{
	p->rng ^= p->rng >> 12;
	p->rng ^= p->rng << 25;
	p->rng ^= p->rng >> 27;
	return (double)((p->rng * 2685821657736338717ULL) >> 11) / (double)(1ULL << 53);
}

/* Runs a whole search; returns the number of rounds. */
static unsigned drive(struct simpath *p, const struct mtu_search_cfg *cfg,
		      struct mtu_search_result *res)
{
	static struct mtu_search s;
	struct mtu_step st;
	unsigned rounds = 0;

	assert_true(mtu_search_init(&s, cfg));
	while (mtu_search_next(&s, &st)) {
		struct mtu_outcome o = { .size = st.size };

		assert_true(++rounds < 100);
		if (p->if_mtu && st.size > p->if_mtu) {
			o.local_too_big = true;
			o.icmp_mtu = p->if_mtu;
			mtu_search_feed(&s, &o);
			continue;
		}
		for (unsigned i = 0; i < st.count; i++) {
			bool lost = false;

			p->probe_no++;
			o.sent++;
			if (p->refuse_above && st.size > p->refuse_above) {
				o.refused++;
				o.refused_errno = EPERM;
				continue;
			}
			if (p->lose_every && p->probe_no % p->lose_every == 0)
				lost = true;
			if (p->lose_first_of_round && i == 0)
				lost = true;
			if (p->loss > 0 && rnd(p) < p->loss)
				lost = true;
			if (st.size > p->pmtu) {
				if (p->icmp) {
					o.icmp = true;
					o.icmp_mtu = p->icmp_says ? p->icmp_says : p->pmtu;
				}
			} else if (!lost) {
				o.delivered++;
			}
		}
		mtu_search_feed(&s, &o);
	}
	mtu_search_result(&s, res);
	assert_int_equal(res->rounds, rounds);
	return rounds;
}

static const struct mtu_search_cfg cfg1500 = { .base = 1200, .max = 1500, .probes = 3 };

static void test_clean_path(void **state)
{
	struct simpath p = { .pmtu = 1500, .icmp = true };
	struct mtu_search_result r;

	(void)state;
	/* base, then the interface MTU: two rounds */
	assert_int_equal(drive(&p, &cfg1500, &r), 2);
	assert_int_equal(r.state, MTU_SEARCH_DONE);
	assert_int_equal(r.pmtu, 1500);
	assert_true(r.reached_max);
	assert_int_equal(r.smallest_failed, 0);
	assert_false(r.blackhole);
	assert_false(r.icmp_seen);
}

struct narrow_case {
	uint32_t pmtu;
	bool icmp;
	uint32_t icmp_says;
};

static void test_narrow_paths(void **state)
{
	static const struct narrow_case cases[] = {
		{ 1400, true, 0 },
		{ 1400, false, 0 },
		{ 1420, true, 0 },
		{ 1201, false, 0 },
		{ 1499, false, 0 },
		{ 1499, true, 0 },
		{ 1337, false, 0 },
		{ 1200, false, 0 },
		/* ICMP announcing too little, too much, or nonsense */
		{ 1400, true, 1300 },
		{ 1400, true, 1450 },
		{ 1400, true, 9000 },
		{ 1400, true, 60 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct simpath p = { .pmtu = cases[i].pmtu,
				     .icmp = cases[i].icmp,
				     .icmp_says = cases[i].icmp_says };
		struct mtu_search_result r;

		drive(&p, &cfg1500, &r);
		assert_int_equal(r.state, MTU_SEARCH_DONE);
		assert_int_equal(r.pmtu, cases[i].pmtu);
		assert_int_equal(r.smallest_failed, cases[i].pmtu + 1);
		assert_int_equal(r.blackhole, !cases[i].icmp);
		assert_int_equal(r.icmp_seen, cases[i].icmp);
		assert_false(r.reached_max);
	}
}

/* Every path MTU between the base and the interface MTU, with and without
 * ICMP, with and without an ICMP that announces too little: always exact. */
static void test_every_pmtu(void **state)
{
	(void)state;
	for (uint32_t pmtu = 1200; pmtu <= 1500; pmtu++) {
		for (int mode = 0; mode < 3; mode++) {
			struct simpath p = { .pmtu = pmtu,
					     .icmp = mode > 0,
					     .icmp_says = mode == 2 ? pmtu - pmtu % 64 : 0 };
			struct mtu_search_result r;

			drive(&p, &cfg1500, &r);
			if (r.pmtu != pmtu || r.blackhole != (mode == 0 && pmtu < 1500))
				fail_msg("pmtu %u mode %d: got %u blackhole %d", pmtu, mode, r.pmtu,
					 r.blackhole);
		}
	}
}

static void test_icmp_hint_is_fast(void **state)
{
	struct simpath p = { .pmtu = 1400, .icmp = true };
	struct mtu_search_result r;

	(void)state;
	/* base, 1500 (too big, says 1400), 1400 (ok), 1401 (too big): done */
	assert_int_equal(drive(&p, &cfg1500, &r), 4);
	assert_int_equal(r.pmtu, 1400);
	assert_int_equal(r.icmp_mtu, 1400);
}

static void test_blackhole_binary(void **state)
{
	struct simpath p = { .pmtu = 1400, .icmp = false };
	struct mtu_search_result r;
	unsigned rounds = drive(&p, &cfg1500, &r);

	(void)state;
	assert_true(r.blackhole);
	assert_int_equal(r.pmtu, 1400);
	/* a binary search over 300 sizes: about log2(300) + 2 sizes, each
	 * failed size twice */
	assert_true(rounds <= 20);
}

static void test_single_losses(void **state)
{
	static const uint32_t pmtus[] = { 1500, 1400, 1250, 1473 };

	(void)state;
	for (size_t i = 0; i < sizeof(pmtus) / sizeof(pmtus[0]); i++) {
		struct simpath p = { .pmtu = pmtus[i], .lose_first_of_round = 1 };
		struct mtu_search_result r;

		drive(&p, &cfg1500, &r);
		assert_int_equal(r.pmtu, pmtus[i]);
		assert_true(r.loss_seen);
		/* and every 4th probe lost across rounds */
		memset(&p, 0, sizeof(p));
		p.pmtu = pmtus[i];
		p.lose_every = 4;
		drive(&p, &cfg1500, &r);
		assert_int_equal(r.pmtu, pmtus[i]);
	}
}

static void test_random_loss(void **state)
{
	unsigned exact = 0, runs = 200;

	(void)state;
	/* 20 % random loss, black-holed above 1400: a wrong answer needs two
	 * whole rounds (6 probes) lost at a deliverable size, 0.2^6 per size.
	 * Allow a couple in 200 seeded runs. */
	for (unsigned i = 0; i < runs; i++) {
		struct simpath p = { .pmtu = 1400, .loss = 0.2, .rng = 0x9e3779b97f4a7c15ULL + i };
		struct mtu_search_result r;

		drive(&p, &cfg1500, &r);
		assert_true(r.pmtu <= 1400);
		exact += r.pmtu == 1400;
	}
	assert_true(exact >= runs - 2);
}

static void test_local_refusal(void **state)
{
	struct mtu_search_cfg cfg = { .base = 1200, .max = 1600, .probes = 3 };
	struct simpath p = { .pmtu = 1600, .if_mtu = 1500 };
	struct mtu_search_result r;

	(void)state;
	drive(&p, &cfg, &r);
	assert_int_equal(r.pmtu, 1500);
	assert_false(r.blackhole);
	assert_false(r.icmp_seen);
}

/* Probes the local stack refuses (a firewall's EPERM, a full queue's ENOBUFS)
 * are lost probes: the search goes on and finds the largest size that
 * leaves, as a black hole, instead of giving up. */
static void test_refused_probes(void **state)
{
	static const struct {
		uint32_t refuse_above, pmtu, want;
	} cases[] = {
		{ 1400, 1500, 1400 }, /* refused below the path MTU: the refusal is the limit */
		{ 1499, 1500, 1499 },
		{ 1300, 1420, 1300 },
		{ 1450, 1420, 1420 }, /* the path is narrower: a real black hole decides */
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct simpath p = { .pmtu = cases[i].pmtu, .refuse_above = cases[i].refuse_above };
		struct mtu_search_cfg cfg = { .base = 1200, .max = 1500, .probes = 3 };
		struct mtu_search_result r;

		drive(&p, &cfg, &r);
		assert_int_equal(r.state, MTU_SEARCH_DONE);
		assert_int_equal(r.pmtu, cases[i].want);
		assert_int_equal(r.smallest_failed, cases[i].want + 1);
		assert_true(r.blackhole);
		assert_true(r.probes_refused > 0);
		assert_int_equal(r.refused_errno, EPERM);
		if (cases[i].refuse_above < cases[i].pmtu)
			assert_int_equal(r.smallest_refused, cases[i].want + 1);
		else
			assert_true(r.smallest_refused > cases[i].want + 1);
	}
}

static void test_jumbo(void **state)
{
	struct mtu_search_cfg cfg = { .base = 1200, .max = 9001, .probes = 3 };
	struct simpath p = { .pmtu = 9001 };
	struct mtu_search_result r;

	(void)state;
	assert_int_equal(drive(&p, &cfg, &r), 2);
	assert_int_equal(r.pmtu, 9001);
	assert_true(r.reached_max);
	/* a jumbo interface on a path that carries 1500 only, silently */
	memset(&p, 0, sizeof(p));
	p.pmtu = 1500;
	drive(&p, &cfg, &r);
	assert_int_equal(r.pmtu, 1500);
	assert_true(r.blackhole);
}

static void test_bases(void **state)
{
	struct simpath p = { .pmtu = 1000 };
	struct mtu_search_result r;
	struct mtu_search_cfg cfg = cfg1500;

	(void)state;
	/* below the base: the search cannot start */
	drive(&p, &cfg, &r);
	assert_int_equal(r.state, MTU_SEARCH_BASE_FAILED);
	assert_int_equal(r.pmtu, 0);
	assert_false(r.blackhole);
	cfg.base = 576;
	drive(&p, &cfg, &r);
	assert_int_equal(r.state, MTU_SEARCH_DONE);
	assert_int_equal(r.pmtu, 1000);
	memset(&p, 0, sizeof(p));
	p.pmtu = 300;
	p.icmp = true;
	cfg.base = 68;
	drive(&p, &cfg, &r);
	assert_int_equal(r.pmtu, 300);
	/* a base of 0 is raised to 68; a base above max is lowered to max */
	cfg.base = 0;
	drive(&p, &cfg, &r);
	assert_int_equal(r.pmtu, 300);
	cfg.base = 2000;
	memset(&p, 0, sizeof(p));
	p.pmtu = 1500;
	assert_int_equal(drive(&p, &cfg, &r), 1);
	assert_int_equal(r.pmtu, 1500);
}

static void test_dead_path(void **state)
{
	struct simpath p = { .pmtu = 0 };
	struct mtu_search_result r;

	(void)state;
	drive(&p, &cfg1500, &r);
	assert_int_equal(r.state, MTU_SEARCH_BASE_FAILED);
	assert_int_equal(r.probes_delivered, 0);
	assert_int_equal(r.probes_sent, 6); /* two silent rounds */
}

static void test_api_edges(void **state)
{
	struct mtu_search s;
	struct mtu_search_cfg bad = { .base = 1200, .max = 60, .probes = 3 };
	struct mtu_step st;
	struct mtu_outcome wrong = { .size = 1300, .sent = 3, .delivered = 3 };

	(void)state;
	assert_false(mtu_search_init(&s, &bad));
	assert_false(mtu_search_init(&s, NULL));
	assert_true(mtu_search_init(&s, &cfg1500));
	assert_true(mtu_search_next(&s, &st));
	assert_int_equal(st.size, 1200);
	assert_int_equal(st.count, 3);
	/* an outcome for a size that was not asked for changes nothing */
	mtu_search_feed(&s, &wrong);
	assert_int_equal(s.rounds, 0);
	assert_true(mtu_search_next(&s, &st));
	assert_int_equal(st.size, 1200);
	assert_string_equal(mtu_search_state_name(MTU_SEARCH_BASE_FAILED), "base-failed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_path),
		cmocka_unit_test(test_every_pmtu),
		cmocka_unit_test(test_narrow_paths),
		cmocka_unit_test(test_icmp_hint_is_fast),
		cmocka_unit_test(test_blackhole_binary),
		cmocka_unit_test(test_single_losses),
		cmocka_unit_test(test_random_loss),
		cmocka_unit_test(test_local_refusal),
		cmocka_unit_test(test_refused_probes),
		cmocka_unit_test(test_jumbo),
		cmocka_unit_test(test_bases),
		cmocka_unit_test(test_dead_path),
		cmocka_unit_test(test_api_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
