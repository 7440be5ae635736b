// SPDX-License-Identifier: MIT
/* TCP_INFO with Linux's own struct (tcpi_snd_wnd is newer than glibc's
 * copy) and TCP_CONGESTION, tcp(7). */
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/tcp.h>

#include "tcp_sample.h"

/* The kernel's CA_NAME_MAX (include/net/tcp.h): not in the uapi headers. */
#define CA_NAME_MAX 16

int tcp_sample_read(int fd, struct tcp_sample *s)
{
	struct tcp_info ti;
	socklen_t l = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	memset(s, 0, sizeof(*s));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) < 0)
		return -errno;
	s->total_retrans = ti.tcpi_total_retrans;
	s->snd_cwnd_bytes = ti.tcpi_snd_cwnd * ti.tcpi_snd_mss;
	s->rtt_us = ti.tcpi_rtt;
	s->rttvar_us = ti.tcpi_rttvar;
	s->pmtu = ti.tcpi_pmtu;
	/* an older kernel returns a shorter struct: the field is then absent */
	if (l >= offsetof(struct tcp_info, tcpi_snd_wnd) + sizeof(ti.tcpi_snd_wnd)) {
		s->snd_wnd = ti.tcpi_snd_wnd;
		s->snd_wnd_known = true;
	}
	return 0;
}

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
