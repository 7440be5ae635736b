// SPDX-License-Identifier: MIT
/* The `process` key of a [path.NAME] section: an external VPN's process
 * by name or pid file, and the errors of bad input, each naming the file,
 * the line and the key. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "scenario.h"

static int parse(const char *path_lines, struct scenario *s, char *err, size_t errlen)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "[scenario]\nname = p\n[lab]\nname = p\n[path.vpn]\n%s\n[tcp]\nstreams = 1\n",
		 path_lines);
	return scenario_parse("p.ini", text, strlen(text), s, err, errlen);
}

static void test_good(void **state)
{
	static const struct {
		const char *lines, *process;
	} cases[] = {
		{ "type = external\naddress = 198.19.5.2\nprocess = wireguard-go", "wireguard-go" },
		{ "type = external\naddress = 198.19.5.2\nprocess = /run/wg/tlwga.pid ; a pid file",
		  "/run/wg/tlwga.pid" },
		{ "type = external\naddress = 2001:2:0:5::2\nprocess = a-very-long-daemon-name",
		  "a-very-long-daemon-name" },
		{ "type = external\naddress = 198.19.5.2", "" }, /* none: not read */
	};
	struct scenario s;
	char err[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = parse(cases[i].lines, &s, err, sizeof(err));

		if (rc)
			print_error("case %zu: %s\n", i, err);
		assert_int_equal(rc, 0);
		assert_string_equal(s.paths[0].process, cases[i].process);
	}
}

static void test_bad(void **state)
{
	static const struct {
		const char *lines, *msg;
	} cases[] = {
		{ "type = builtin\nprocess = ovlperf",
		  "p.ini:7: [path.vpn] process: only for external paths (this one is builtin)" },
		{ "type = underlay\nprocess = wireguard-go",
		  "p.ini:7: [path.vpn] process: only for external paths (this one is underlay)" },
		{ "type = external\naddress = 198.19.5.2\nprocess = run/wg.pid",
		  "p.ini:8: [path.vpn] process: 'run/wg.pid' is neither a process name (its comm "
		  "or argv[0]'s base name, no '/') nor a pid file's absolute path" },
		{ "type = external\naddress = 198.19.5.2\nprocess = /run/wg/",
		  "p.ini:8: [path.vpn] process: '/run/wg/' is a directory, not a pid file" },
		{ "type = external\naddress = 198.19.5.2\nprocess = wireguard go",
		  "p.ini:8: [path.vpn] process: must be one word" },
		{ "type = external\naddress = 198.19.5.2\nprocess =",
		  "p.ini:8: [path.vpn] process: is empty" },
		{ "type = external\naddress = 198.19.5.2\nprocess = a\nprocess = b",
		  "p.ini:9: [path.vpn] process: given twice (first at line 8)" },
	};
	struct scenario s;
	char err[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = parse(cases[i].lines, &s, err, sizeof(err));

		if (rc != -EINVAL || !strstr(err, cases[i].msg))
			print_error("case %zu: rc %d, wanted\n  %s\ngot\n%s\n", i, rc, cases[i].msg,
				    err);
		assert_int_equal(rc, -EINVAL);
		assert_non_null(strstr(err, cases[i].msg));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
