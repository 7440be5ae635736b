/* SPDX-License-Identifier: MIT */
/*
 * libnl-3's error codes at the boundary. libnl functions return -NLE_*, a
 * code space of its own; ovlperf's functions return 0 or -errno. The lab
 * (src/lab/nl_route.c) and the tunnel (tunnel/netlink.c) translate every
 * libnl result here, and log nl_geterror()'s text once, where they know what
 * they were doing.
 */
#ifndef OVLPERF_NL_ERROR_H
#define OVLPERF_NL_ERROR_H

/* -NLE_* (or NLE_*) to -errno: 0 for NLE_SUCCESS, -EIO for NLE_FAILURE and for
 * codes this libnl does not define. */
int nl_error_to_errno(int nle);

/* For a libnl result nle: 0 when nle >= 0; otherwise logs "<fmt ...>: <libnl's
 * text>" as an error from func and returns nl_error_to_errno(nle). */
int nl_error_log(const char *func, int nle, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define nl_error(nle, ...) nl_error_log(__func__, (nle), __VA_ARGS__)

#endif
