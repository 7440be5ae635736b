// SPDX-License-Identifier: MIT
/* One end's host facts in a sentence: the VPN found and how, a throttled
 * cgroup, drops; an end that did not report says why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "report_facts.h"

static void test_brief(void **state)
{
	struct hostfacts f;
	struct hostfacts_proc *p = &f.procs[0];
	char buf[1024];

	(void)state;
	hostfacts_unknown(&f, "not reported by server ovlperf 0.1.0");
	report_facts_brief(buf, sizeof(buf), &f);
	assert_string_equal(buf, "unknown (not reported by server ovlperf 0.1.0)");
	hostfacts_unknown(&f, NULL);
	f.known = true;
	f.nprocs = 1;
	p->pid = 77;
	p->found_by = HOSTFACTS_BY_TUN;
	snprintf(p->comm, sizeof(p->comm), "wireguard-go");
	snprintf(p->tun, sizeof(p->tun), "fawgs");
	p->udp_port = 51820;
	p->cores = 0.15;
	snprintf(p->busiest, sizeof(p->busiest), "wireguard-go");
	p->busiest_cores = 0.1;
	p->cgroup.found = true;
	p->cgroup.quota_cores = 0.15;
	p->cgroup.throttled_ns = 806000000;
	snprintf(p->cgroup.path, sizeof(p->cgroup.path), "/fa-quota");
	f.machine_cores = 1.5;
	f.baseline_cores = 0.5;
	f.nlinks = 1;
	snprintf(f.links[0].name, sizeof(f.links[0].name), "fawgs");
	f.links[0].tun = true;
	f.links[0].tx_drops = 42;
	snprintf(f.cc, sizeof(f.cc), "bbr");
	report_facts_brief(buf, sizeof(buf), &f);
	assert_string_equal(buf, "wireguard-go (pid 77, by its TUN fawgs, UDP 51820) 0.15 cores, "
				 "busiest thread wireguard-go 10 %, cgroup /fa-quota quota 0.15 "
				 "cores, throttled 806 ms; machine 1.50 cores busy, 0.50 at rest; "
				 "fawgs (TUN) drops rx 0 tx 42; TCP bbr");
	/* a short buffer is cut, never overrun */
	report_facts_brief(buf, 10, &f);
	assert_int_equal(strlen(buf), 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_brief) };

	return cmocka_run_group_tests(tests, NULL, NULL);
}
