// SPDX-License-Identifier: MIT
/* The netem qdisc a lab link's conditions become: the RTM_NEWQDISC request
 * nlr_netem_msg() builds with libnl, checked attribute by attribute (this
 * kernel has no netem to take it), and the pure parts around it: the
 * probabilities, the queue limit, the --link keys and the state file. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/route/tc.h>
#include <netlink/utils.h>

#include "lab.h"
#include "lab_int.h"
#include "nl_route.h"

/* What a request says, in the kernel's own terms. */
struct parsed {
	struct tcmsg tcm;
	char kind[16];
	struct tc_netem_qopt qopt;
	struct nlattr *tb[TCA_NETEM_MAX + 1];
	uint16_t type, flags;
};

static void parse(struct nl_msg *msg, struct parsed *p)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tca[TCA_MAX + 1], *opts;
	int qlen = NLA_ALIGN(sizeof(struct tc_netem_qopt));

	memset(p, 0, sizeof(*p));
	p->type = nlh->nlmsg_type;
	p->flags = nlh->nlmsg_flags;
	memcpy(&p->tcm, nlmsg_data(nlh), sizeof(p->tcm));
	assert_int_equal(nlmsg_parse(nlh, sizeof(struct tcmsg), tca, TCA_MAX, NULL), 0);
	assert_non_null(tca[TCA_KIND]);
	nla_strlcpy(p->kind, tca[TCA_KIND], sizeof(p->kind));
	opts = tca[TCA_OPTIONS];
	assert_non_null(opts);
	/* the options are the last thing in the message: nothing stray after */
	assert_ptr_equal((char *)opts + NLA_ALIGN(opts->nla_len), (char *)nlmsg_tail(nlh));
	/* netem's TCA_OPTIONS: its struct, then attributes (netem_change()) */
	assert_true(nla_len(opts) >= qlen);
	memcpy(&p->qopt, nla_data(opts), sizeof(p->qopt));
	assert_int_equal(nla_parse(p->tb, TCA_NETEM_MAX,
				   (struct nlattr *)((char *)nla_data(opts) + qlen),
				   nla_len(opts) - qlen, NULL),
			 0);
}

static struct nl_msg *build(const struct link_dir_conf *d, uint32_t limit)
{
	struct nl_msg *msg = NULL;

	assert_int_equal(nlr_netem_msg(7, d, limit, &msg), 0);
	assert_non_null(msg);
	return msg;
}

static int64_t get_s64(const struct nlattr *a)
{
	int64_t v;

	assert_non_null(a);
	assert_int_equal(nla_len(a), sizeof(v));
	memcpy(&v, nla_data(a), sizeof(v));
	return v;
}

static void test_prob(void **state)
{
	(void)state;
	assert_int_equal(nlr_netem_prob(0), 0);
	assert_int_equal(nlr_netem_prob(LINK_PPM), UINT32_MAX);
	assert_int_equal(nlr_netem_prob(2 * LINK_PPM), UINT32_MAX);
	assert_int_equal(nlr_netem_prob(500000), 2147483648u);
	/* tc's `loss 1%`: 1 % of UINT32_MAX, rounded */
	assert_int_equal(nlr_netem_prob(10000), 42949673u);
}

static void test_delay_loss(void **state)
{
	struct link_dir_conf d = { .delay_ns = 40000000, .jitter_ns = 2000000, .loss_ppm = 10000 };
	struct nl_msg *msg = build(&d, 5000);
	struct parsed p;

	(void)state;
	parse(msg, &p);
	assert_int_equal(p.type, RTM_NEWQDISC);
	assert_int_equal(p.flags & (NLM_F_CREATE | NLM_F_REPLACE), NLM_F_CREATE | NLM_F_REPLACE);
	assert_int_equal(p.tcm.tcm_ifindex, 7);
	assert_int_equal(p.tcm.tcm_parent, TC_H_ROOT);
	assert_int_equal(p.tcm.tcm_handle, TC_HANDLE(1, 0));
	assert_string_equal(p.kind, "netem");
	assert_int_equal(p.qopt.limit, 5000);
	assert_int_equal(p.qopt.loss, 42949673u);
	/* the classic fields in scheduler ticks, as libnl converts them */
	assert_int_equal(p.qopt.latency, nl_us2ticks(40000));
	assert_int_equal(p.qopt.jitter, nl_us2ticks(2000));
	assert_int_equal(p.qopt.gap, 0);
	/* and the exact ones, which netem_change() prefers */
	assert_int_equal(get_s64(p.tb[TCA_NETEM_LATENCY64]), 40000000);
	assert_int_equal(get_s64(p.tb[TCA_NETEM_JITTER64]), 2000000);
	assert_null(p.tb[TCA_NETEM_LOSS]);
	assert_null(p.tb[TCA_NETEM_RATE]);
	assert_null(p.tb[TCA_NETEM_RATE64]);
	assert_null(p.tb[TCA_NETEM_REORDER]);
	nlmsg_free(msg);
}

static void test_gemodel(void **state)
{
	struct link_dir_conf d = { .delay_ns = 1000000, .ge_p_ppm = 10000, .ge_r_ppm = 200000 };
	struct nl_msg *msg = build(&d, 1000);
	struct nlattr *ge[NETEM_LOSS_MAX + 1];
	struct tc_netem_gemodel m;
	struct parsed p;

	(void)state;
	parse(msg, &p);
	assert_int_equal(p.qopt.loss, 0);
	assert_null(p.tb[TCA_NETEM_JITTER64]);
	assert_non_null(p.tb[TCA_NETEM_LOSS]);
	assert_int_equal(nla_parse_nested(ge, NETEM_LOSS_MAX, p.tb[TCA_NETEM_LOSS], NULL), 0);
	assert_null(ge[NETEM_LOSS_GI]);
	assert_non_null(ge[NETEM_LOSS_GE]);
	assert_int_equal(nla_len(ge[NETEM_LOSS_GE]), sizeof(m));
	memcpy(&m, nla_data(ge[NETEM_LOSS_GE]), sizeof(m));
	assert_int_equal(m.p, nlr_netem_prob(10000));
	assert_int_equal(m.r, nlr_netem_prob(200000));
	/* always lost in the bad state, never in the good one */
	assert_int_equal(m.h, 0);
	assert_int_equal(m.k1, 0);
	nlmsg_free(msg);
}

static void test_reorder_rate(void **state)
{
	struct link_dir_conf d = { .delay_ns = 10000000, .reorder_ppm = 5000 };
	struct link_dir_conf fast = { .delay_ns = 1000, .rate_bps = 40000000000ULL };
	struct tc_netem_reorder r;
	struct tc_netem_rate rt;
	struct nl_msg *msg = build(&d, 1000);
	struct parsed p;
	uint64_t r64;

	(void)state;
	parse(msg, &p);
	/* reordering needs gap 1 (tc's default), or netem never does it */
	assert_int_equal(p.qopt.gap, 1);
	assert_non_null(p.tb[TCA_NETEM_REORDER]);
	memcpy(&r, nla_data(p.tb[TCA_NETEM_REORDER]), sizeof(r));
	assert_int_equal(r.probability, nlr_netem_prob(5000));
	nlmsg_free(msg);

	msg = build(&fast, 1000);
	parse(msg, &p);
	assert_non_null(p.tb[TCA_NETEM_RATE]);
	memcpy(&rt, nla_data(p.tb[TCA_NETEM_RATE]), sizeof(rt));
	assert_int_equal(rt.rate, UINT32_MAX);
	assert_non_null(p.tb[TCA_NETEM_RATE64]);
	memcpy(&r64, nla_data(p.tb[TCA_NETEM_RATE64]), sizeof(r64));
	assert_int_equal(r64, 5000000000ULL);
	nlmsg_free(msg);
}

static void test_reorder_needs_delay(void **state)
{
	struct link_dir_conf d = { .reorder_ppm = 5000 };
	struct nl_msg *msg = (struct nl_msg *)&d;

	(void)state;
	assert_int_equal(nlr_netem_msg(7, &d, 1000, &msg), -EINVAL);
	assert_null(msg);
}

static void test_limit(void **state)
{
	struct link_dir_conf d = { .delay_ns = 40000000 };

	(void)state;
	/* 100 Mbit/s over 40 ms: 500,000 bytes, 329 frames of 1514, twice */
	assert_int_equal(lab_plan_netem_limit(&d, 100000000, 1500), 1000);
	/* 1 Gbit/s: 5,000,000 bytes: 6605 frames */
	assert_int_equal(lab_plan_netem_limit(&d, 1000000000, 1500), 6605);
	/* unshaped: the lab's top rate */
	assert_true(lab_plan_netem_limit(&d, 0, 1500) > 100000);
	d.delay_ns = 0;
	assert_int_equal(lab_plan_netem_limit(&d, 0, 1500), 1000);
}

static void test_link_keys(void **state)
{
	struct lab_spec spec;
	char err[256];

	(void)state;
	lab_spec_chain(&spec, "t", 3, 0);
	assert_int_equal(lab_parse_link_opt("1:delay=40ms/10ms,loss-burst=1%,20%,rate=10M", &spec,
					    err, sizeof(err)),
			 0);
	assert_int_equal(spec.links[1].cond.dir[0].delay_ns, 40000000);
	assert_int_equal(spec.links[1].cond.dir[1].delay_ns, 10000000);
	assert_int_equal(spec.links[1].cond.dir[0].ge_p_ppm, 10000);
	assert_int_equal(spec.links[1].cond.dir[1].ge_r_ppm, 200000);
	assert_int_equal(spec.links[1].rate_bps, 10000000);
	assert_false(link_conf_active(&spec.links[0].cond));
	assert_int_equal(lab_parse_link_opt("0:delay=40parsecs", &spec, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "delay"));
	assert_int_equal(lab_parse_link_opt("0:loss=120%", &spec, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "loss"));
	assert_false(link_conf_active(&spec.links[0].cond));
	assert_int_equal(lab_spec_cond(&spec, "reorder", "0.5%", err, sizeof(err)), 0);
	assert_int_equal(spec.links[0].cond.dir[1].reorder_ppm, 5000);
	assert_int_equal(lab_spec_cond(&spec, "rate", "1G", err, sizeof(err)), -EINVAL);
}

static void test_means(void **state)
{
	enum lab_means m = LAB_MEANS_AUTO;

	(void)state;
	assert_true(lab_means_parse("netem", &m));
	assert_int_equal(m, LAB_MEANS_NETEM);
	assert_true(lab_means_parse("userspace", &m));
	assert_int_equal(m, LAB_MEANS_USERSPACE);
	assert_true(lab_means_parse("auto", &m));
	assert_int_equal(m, LAB_MEANS_AUTO);
	assert_false(lab_means_parse("tc", &m));
	assert_string_equal(lab_means_name(LAB_MEANS_USERSPACE), "userspace");
}

static void test_state_conditions(void **state)
{
	struct lab_state st, back;
	char buf[4096], name[LAB_NETNS_NAME_MAX];
	char err[256];

	(void)state;
	memset(&st, 0, sizeof(st));
	lab_spec_pair(&st.spec, "wan", 0);
	st.pid = 42;
	assert_int_equal(lab_parse_link_opt("0:delay=40ms/10ms,jitter=2ms,loss=1%", &st.spec, err,
					    sizeof(err)),
			 0);
	st.spec.links[0].means = LAB_MEANS_USERSPACE;
	st.nns = 2;
	for (unsigned h = 0; h < 2; h++)
		lab_plan_netns_name("wan", h, st.ns[h].name, sizeof(st.ns[h].name));
	st.nlns = 1;
	assert_int_equal(lab_plan_link_netns_name("wan", 0, name, sizeof(name)), 0);
	assert_string_equal(name, "ovp-wan-l0");
	snprintf(st.lns[0].name, sizeof(st.lns[0].name), "%s", name);
	st.lns[0].ino = 4026532411ULL;
	assert_true(lab_state_format(&st, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, " means userspace delay 40ms/10ms jitter 2ms loss 1%"));
	assert_non_null(strstr(buf, "linkns 0 ovp-wan-l0 4026532411\n"));
	assert_int_equal(lab_state_parse(buf, &back), 0);
	assert_int_equal(back.spec.links[0].means, LAB_MEANS_USERSPACE);
	assert_memory_equal(&back.spec.links[0].cond, &st.spec.links[0].cond,
			    sizeof(struct link_conf));
	assert_int_equal(back.nlns, 1);
	assert_int_equal(back.lns[0].ino, 4026532411ULL);
	/* a link namespace that is not the lab's own name is refused */
	snprintf(st.lns[0].name, sizeof(st.lns[0].name), "ovp-other-l0");
	assert_true(lab_state_format(&st, buf, sizeof(buf)) > 0);
	assert_int_equal(lab_state_parse(buf, &back), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prob),
		cmocka_unit_test(test_delay_loss),
		cmocka_unit_test(test_gemodel),
		cmocka_unit_test(test_reorder_rate),
		cmocka_unit_test(test_reorder_needs_delay),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_link_keys),
		cmocka_unit_test(test_means),
		cmocka_unit_test(test_state_conditions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
