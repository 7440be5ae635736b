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

#include "hostfacts_fixture.h"
#include "report_facts.h"

static void test_brief(void **state)
{
	struct hostfacts f;
	char buf[1024];

	(void)state;
	hostfacts_unknown(&f, "not reported by server ovlperf 0.1.0");
	report_facts_brief(buf, sizeof(buf), &f);
	assert_string_equal(buf, "unknown (not reported by server ovlperf 0.1.0)");
	sample(&f);
	f.nprocs = 1;
	f.procs[0] = f.procs[1];
	f.procs[0].found_by |= HOSTFACTS_BY_UDP;
	report_facts_brief(buf, sizeof(buf), &f);
	assert_string_equal(buf, "wireguard-go (pid 77, by its TUN fawg0 and its UDP socket to the "
				 "far host and the process key, UDP 51820) 1.50 cores, busiest "
				 "thread wireguard-go 100 %, cgroup /fa-quota quota 0.15 cores, "
				 "throttled 2401 ms; machine 1.75 cores busy, 0.25 at rest (the "
				 "rest of the machine moved more than the test's own share); fawg0 "
				 "(TUN) drops rx 0 tx 9876; softnet backlog drops 12; UDP 51820 "
				 "(wireguard-go) dropped 3; TCP bbr");
	/* a short buffer is cut, never overrun */
	report_facts_brief(buf, 10, &f);
	assert_int_equal(strlen(buf), 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_brief) };

	return cmocka_run_group_tests(tests, NULL, NULL);
}
