// SPDX-License-Identifier: MIT
/* The log (log.c): `--logfile FILE` appends time-stamped lines there, one
 * write per line, at the level -v/-q chose; log_notice() is hidden by -q. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"

static void read_all(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void test_logfile(void **state)
{
	char dir[] = "/tmp/ovl-test-log-XXXXXX", path[64], buf[4096];
	const char *line2;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/log", dir);
	assert_int_equal(log_set_file("/nonexistent-dir/log"), -ENOENT);
	assert_int_equal(log_set_file(path), 0);
	log_set_level(LOG_WARN);
	log_warn("first %d", 1);
	log_info("hidden at the default level");
	log_notice("server starting");
	log_set_level(LOG_ERR);
	log_notice("hidden by -q");
	log_err("an error");
	read_all(path, buf, sizeof(buf));
	/* 2026-12-01T12:00:00.000Z ovlperf: warning: first 1 */
	assert_int_equal(strlen(buf) > 25 && buf[4] == '-' && buf[10] == 'T' && buf[23] == 'Z', 1);
	assert_non_null(strstr(buf, "Z ovlperf: warning: first 1\n"));
	assert_null(strstr(buf, "hidden"));
	assert_non_null(strstr(buf, "Z ovlperf: server starting\n"));
	line2 = strstr(buf, "ovlperf: error: an error\n");
	assert_non_null(line2);
	/* once main() knows the command, every line starts "ovlperf CMD:" */
	log_set_command("client");
	log_err("named");
	log_set_command(NULL);
	log_err("unnamed");
	read_all(path, buf, sizeof(buf));
	assert_non_null(strstr(buf, "Z ovlperf client: error: named\n"));
	assert_non_null(strstr(buf, "Z ovlperf: error: unnamed\n"));
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_logfile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
