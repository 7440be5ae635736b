// SPDX-License-Identifier: MIT
/* nl_error: every libnl-3 NLE_* code to its errno, and the boundary's log line. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <netlink/errno.h>

#include "log.h"
#include "nl_error.h"

#define CODE(c, e)                                                                                 \
	{                                                                                          \
		c, #c, e                                                                           \
	}

/* Written out again rather than derived from the implementation's table, so
 * that a changed row shows up here. */
static const struct {
	int nle;
	const char *name;
	int err;
} rows[] = {
	CODE(NLE_SUCCESS, 0),
	CODE(NLE_FAILURE, EIO),
	CODE(NLE_INTR, EINTR),
	CODE(NLE_BAD_SOCK, EBADF),
	CODE(NLE_AGAIN, EAGAIN),
	CODE(NLE_NOMEM, ENOMEM),
	CODE(NLE_EXIST, EEXIST),
	CODE(NLE_INVAL, EINVAL),
	CODE(NLE_RANGE, ERANGE),
	CODE(NLE_MSGSIZE, EMSGSIZE),
	CODE(NLE_OPNOTSUPP, EOPNOTSUPP),
	CODE(NLE_AF_NOSUPPORT, EAFNOSUPPORT),
	CODE(NLE_OBJ_NOTFOUND, ENOENT),
	CODE(NLE_NOATTR, ENODATA),
	CODE(NLE_MISSING_ATTR, EINVAL),
	CODE(NLE_AF_MISMATCH, EAFNOSUPPORT),
	CODE(NLE_SEQ_MISMATCH, EPROTO),
	CODE(NLE_MSG_OVERFLOW, ENOBUFS),
	CODE(NLE_MSG_TRUNC, EMSGSIZE),
	CODE(NLE_NOADDR, EADDRNOTAVAIL),
	CODE(NLE_SRCRT_NOSUPPORT, EOPNOTSUPP),
	CODE(NLE_MSG_TOOSHORT, EBADMSG),
	CODE(NLE_MSGTYPE_NOSUPPORT, EOPNOTSUPP),
	CODE(NLE_OBJ_MISMATCH, EINVAL),
	CODE(NLE_NOCACHE, ENOENT),
	CODE(NLE_BUSY, EBUSY),
	CODE(NLE_PROTO_MISMATCH, EPROTONOSUPPORT),
	CODE(NLE_NOACCESS, EACCES),
	CODE(NLE_PERM, EPERM),
	CODE(NLE_PKTLOC_FILE, ENOENT),
	CODE(NLE_PARSE_ERR, EINVAL),
	CODE(NLE_NODEV, ENODEV),
	CODE(NLE_IMMUTABLE, EINVAL),
	CODE(NLE_DUMP_INTR, EAGAIN),
	CODE(NLE_ATTRSIZE, EMSGSIZE),
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))

/* Each code libnl defines has exactly one row: a libnl with new codes fails
 * here until they are mapped. */
static void test_rows_cover_libnl(void **state)
{
	(void)state;
	for (int code = 0; code <= NLE_MAX; code++) {
		int found = 0;

		for (size_t i = 0; i < NROWS; i++)
			found += rows[i].nle == code;
		if (found != 1)
			fail_msg("NLE code %d has %d rows in this test", code, found);
	}
	assert_int_equal(NROWS, NLE_MAX + 1);
}

static void test_every_code(void **state)
{
	(void)state;
	for (size_t i = 0; i < NROWS; i++) {
		int neg = nl_error_to_errno(-rows[i].nle), pos = nl_error_to_errno(rows[i].nle);

		if (neg != -rows[i].err || pos != -rows[i].err)
			fail_msg("%s: -%s expected, got %d / %d", rows[i].name,
				 strerror(rows[i].err), neg, pos);
		if (rows[i].nle != NLE_SUCCESS)
			assert_true(neg < 0);
	}
}

static void test_unknown_codes_are_errors(void **state)
{
	static const int codes[] = { NLE_MAX + 1, -(NLE_MAX + 1), 1000, -1000, INT_MAX, INT_MIN };

	(void)state;
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		assert_int_equal(nl_error_to_errno(codes[i]), -EIO);
}

/* An errno the kernel sent (or a system call set) that libnl has a code for
 * comes back as itself: the codes' canonical errnos in nl_syserr2nlerr(). */
static void test_errno_round_trip(void **state)
{
	static const int errs[] = { EBADF,  EEXIST,	  EADDRNOTAVAIL,   ENOENT,
				    EINTR,  EAGAIN,	  EACCES,	   EINVAL,
				    ENOMEM, EAFNOSUPPORT, EPROTONOSUPPORT, EOPNOTSUPP,
				    EPERM,  EBUSY,	  ERANGE,	   ENODEV };

	(void)state;
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		int nle = nl_syserr2nlerr(errs[i]);

		if (nl_error_to_errno(-nle) != -errs[i])
			fail_msg("%s -> NLE %d -> %d", strerror(errs[i]), nle,
				 nl_error_to_errno(-nle));
	}
}

/* Runs nl_error() with stderr captured into buf. */
static int logged(int nle, char *buf, size_t cap)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO), r;
	size_t n;

	assert_non_null(tmp);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	r = nl_error(nle, "add address on %s", "ovl0");
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, cap - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	return r;
}

static void test_boundary_logs_once(void **state)
{
	char buf[512];

	(void)state;
	log_set_level(LOG_WARN);
	assert_int_equal(logged(-NLE_NODEV, buf, sizeof(buf)), -ENODEV);
	assert_non_null(strstr(buf, "add address on ovl0: "));
	assert_non_null(strstr(buf, nl_geterror(NLE_NODEV)));
	assert_ptr_equal(strchr(buf, '\n'), buf + strlen(buf) - 1);
	/* Success and libnl's non-negative results: nothing said, 0 returned. */
	assert_int_equal(logged(0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(logged(5, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_cover_libnl),
		cmocka_unit_test(test_every_code),
		cmocka_unit_test(test_unknown_codes_are_errors),
		cmocka_unit_test(test_errno_round_trip),
		cmocka_unit_test(test_boundary_logs_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
