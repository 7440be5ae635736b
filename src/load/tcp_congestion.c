// SPDX-License-Identifier: MIT
/* TCP_CONGESTION, tcp(7). */
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/tcp.h>

#include "tcp_congestion.h"

/* The kernel's CA_NAME_MAX (include/net/tcp.h): not in the uapi headers. */
#define CA_NAME_MAX 16

int tcp_congestion_get(int fd, char *name, size_t n)
{
	char buf[CA_NAME_MAX + 1];
	socklen_t l = CA_NAME_MAX;

	memset(buf, 0, sizeof(buf));
	if (!n)
		return -EINVAL;
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, buf, &l) < 0)
		return -errno;
	if (strlen(buf) >= n)
		return -ENAMETOOLONG;
	memcpy(name, buf, strlen(buf) + 1);
	return 0;
}

int tcp_congestion_set(int fd, const char *name)
{
	size_t len = strlen(name);

	if (!len || len >= CA_NAME_MAX)
		return -EINVAL;
	if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, (socklen_t)len) < 0)
		return -errno;
	return 0;
}

int tcp_congestion_probe(int family, const char *name, char *effective, size_t n)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP), rc = 0;

	if (fd < 0)
		return -errno;
	if (name && name[0])
		rc = tcp_congestion_set(fd, name);
	if (!rc)
		rc = tcp_congestion_get(fd, effective, n);
	close(fd);
	return rc;
}
