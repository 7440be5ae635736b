// SPDX-License-Identifier: MIT
/*
 * One table from libnl-3's NLE_* codes to errno. Where libnl makes a code from
 * an errno (nl_syserr2nlerr() in libnl's lib/error.c: a kernel NLMSG_ERROR or
 * a failed system call), the code maps back to the errno of the same meaning;
 * the codes libnl raises itself map to the errno the kernel or libc uses for
 * the same condition.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include <netlink/errno.h>
#include <netlink/netlink.h>

#include "log.h"
#include "nl_error.h"

static const int errno_of[NLE_MAX + 1] = {
	[NLE_SUCCESS] = 0,
	/* Also what nl_syserr2nlerr() makes of an errno it has no code for: the
	 * errno is lost, only "an error" is known. */
	[NLE_FAILURE] = EIO,
	[NLE_INTR] = EINTR,
	/* EBADF and ENOTSOCK, and libnl's own "socket not connected". */
	[NLE_BAD_SOCK] = EBADF,
	[NLE_AGAIN] = EAGAIN,
	/* ENOMEM and ENOBUFS, and libnl's own allocation failures. */
	[NLE_NOMEM] = ENOMEM,
	/* EEXIST and EADDRINUSE. */
	[NLE_EXIST] = EEXIST,
	/* EINVAL, EFAULT and ENOPROTOOPT. */
	[NLE_INVAL] = EINVAL,
	[NLE_RANGE] = ERANGE,
	/* No room left in the message for an attribute: the kernel's nla_put()
	 * fails the same way with EMSGSIZE. */
	[NLE_MSGSIZE] = EMSGSIZE,
	[NLE_OPNOTSUPP] = EOPNOTSUPP,
	[NLE_AF_NOSUPPORT] = EAFNOSUPPORT,
	/* ENOENT and ESRCH. */
	[NLE_OBJ_NOTFOUND] = ENOENT,
	/* An attribute the object does not carry: ENODATA, which Linux also
	 * spells ENOATTR (getxattr(2) of a name that is not set). */
	[NLE_NOATTR] = ENODATA,
	/* A request without an attribute it needs: the kernel answers EINVAL. */
	[NLE_MISSING_ATTR] = EINVAL,
	/* An address of another family than the object's: the kernel's bind(2)
	 * and connect(2) answer EAFNOSUPPORT for a sockaddr of the wrong family. */
	[NLE_AF_MISMATCH] = EAFNOSUPPORT,
	/* A reply that answers no request of ours. */
	[NLE_SEQ_MISMATCH] = EPROTO,
	/* NLMSG_OVERRUN, "data lost": netlink(7) reports lost messages (a full
	 * receive buffer) as ENOBUFS. */
	[NLE_MSG_OVERFLOW] = ENOBUFS,
	/* recvmsg() set MSG_TRUNC or MSG_CTRUNC: the message did not fit the
	 * buffer (or an NLMSG_ERROR came shorter than its header). */
	[NLE_MSG_TRUNC] = EMSGSIZE,
	/* EADDRNOTAVAIL, and an address libnl cannot parse for the family. */
	[NLE_NOADDR] = EADDRNOTAVAIL,
	/* A source prefix on an IPv4 route. */
	[NLE_SRCRT_NOSUPPORT] = EOPNOTSUPP,
	/* nlmsg_parse(): the message is shorter than its family header. */
	[NLE_MSG_TOOSHORT] = EBADMSG,
	/* A message type libnl has no parser for: rtnetlink answers a type it
	 * does not know with EOPNOTSUPP. */
	[NLE_MSGTYPE_NOSUPPORT] = EOPNOTSUPP,
	/* An object given to a cache of another object type. */
	[NLE_OBJ_MISMATCH] = EINVAL,
	/* A cache name libnl does not know. */
	[NLE_NOCACHE] = ENOENT,
	[NLE_BUSY] = EBUSY,
	/* EPROTONOSUPPORT, and a cache used on a socket of another protocol. */
	[NLE_PROTO_MISMATCH] = EPROTONOSUPPORT,
	[NLE_NOACCESS] = EACCES,
	[NLE_PERM] = EPERM,
	/* The packet location file (etc/libnl/pktloc) cannot be opened. */
	[NLE_PKTLOC_FILE] = ENOENT,
	/* Text libnl cannot parse (an ematch expression, a pktloc line). */
	[NLE_PARSE_ERR] = EINVAL,
	[NLE_NODEV] = ENODEV,
	/* rtnl_link_change() asked to change a link's family, which libnl treats
	 * as a caller's bug: an invalid argument, not a missing privilege. */
	[NLE_IMMUTABLE] = EINVAL,
	/* NLM_F_DUMP_INTR: the table changed during the dump, whose result may be
	 * inconsistent; libnl's own caches dump again, so: try again. */
	[NLE_DUMP_INTR] = EAGAIN,
	/* A nested attribute longer than nla_len's 16 bits can say. */
	[NLE_ATTRSIZE] = EMSGSIZE,
};

int nl_error_to_errno(int nle)
{
	unsigned e = nle < 0 ? -(unsigned)nle : (unsigned)nle;

	if (e == NLE_SUCCESS)
		return 0;
	/* A code from a newer libnl than this table knows is still an error. */
	if (e > NLE_MAX || !errno_of[e])
		return -EIO;
	return -errno_of[e];
}

int nl_error_log(const char *func, int nle, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	if (nle >= 0)
		return 0;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	log_msg(LOG_ERR, func, "%s: %s", what, nl_geterror(nle));
	return nl_error_to_errno(nle);
}
