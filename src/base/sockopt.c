// SPDX-License-Identifier: MIT
/* Socket options of the load engine's sockets. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stddef.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* Linux's own struct tcp_info: tcpi_snd_wnd is newer than glibc's copy. */
#include <linux/tcp.h>

#include "log.h"
#include "sockopt.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

static int setint(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val)) < 0 ? -errno : 0;
}

static void set_buf(int fd, int force_name, int name, uint32_t bytes, const char *what)
{
	int want = bytes > (uint32_t)INT32_MAX / 2 ? INT32_MAX / 2 : (int)bytes;

	if (!setint(fd, SOL_SOCKET, force_name, want))
		return;
	if (setint(fd, SOL_SOCKET, name, want) < 0)
		log_warn("%s %d: %s", what, want, strerror(errno));
	else
		log_debug("%s limited by net.core.*mem_max (not root?)", what);
}

void sockopt_set_bufs(int fd, uint32_t bytes, bool snd, bool rcv)
{
	if (!bytes)
		bytes = SOCKOPT_DEFAULT_BUF;
	if (snd)
		set_buf(fd, SO_SNDBUFFORCE, SO_SNDBUF, bytes, "SO_SNDBUF");
	if (rcv)
		set_buf(fd, SO_RCVBUFFORCE, SO_RCVBUF, bytes, "SO_RCVBUF");
}

/* A socket buffer's size as the kernel reports it; 0 unknown. */
static uint32_t buf_size(int fd, int name)
{
	int v = 0;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, name, &v, &l) < 0 || v < 0)
		return 0;
	return (uint32_t)v;
}

uint32_t sockopt_rcvbuf(int fd)
{
	return buf_size(fd, SO_RCVBUF);
}

uint32_t sockopt_sndbuf(int fd)
{
	return buf_size(fd, SO_SNDBUF);
}

int sockopt_tcp_info(int fd, struct tcp_info_summary *out)
{
	struct tcp_info ti;
	socklen_t l = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) < 0)
		return -errno;
	out->retransmits = ti.tcpi_total_retrans;
	out->rtt_us = ti.tcpi_rtt;
	out->rttvar_us = ti.tcpi_rttvar;
	out->snd_mss = ti.tcpi_snd_mss;
	out->adv_mss = ti.tcpi_advmss;
	out->rcv_mss = ti.tcpi_rcv_mss;
	out->pmtu = ti.tcpi_pmtu;
	out->snd_cwnd = ti.tcpi_snd_cwnd;
	/* an older kernel returns a shorter struct: the field is then absent */
	out->snd_wnd_known = l >= offsetof(struct tcp_info, tcpi_snd_wnd) + sizeof(ti.tcpi_snd_wnd);
	out->snd_wnd = out->snd_wnd_known ? ti.tcpi_snd_wnd : 0;
	out->chrono_known =
		l >= offsetof(struct tcp_info, tcpi_bytes_retrans) + sizeof(ti.tcpi_bytes_retrans);
	out->busy_us = ti.tcpi_busy_time;
	out->rwnd_limited_us = ti.tcpi_rwnd_limited;
	out->sndbuf_limited_us = ti.tcpi_sndbuf_limited;
	out->bytes_sent = ti.tcpi_bytes_sent;
	out->bytes_retrans = ti.tcpi_bytes_retrans;
	out->delivery_Bps = ti.tcpi_delivery_rate;
	out->delivery_app_limited = ti.tcpi_delivery_rate_app_limited;
	out->min_rtt_us = ti.tcpi_min_rtt;
	out->rcv_space = ti.tcpi_rcv_space;
	return 0;
}

/* The third of "min default max" or the one value of a sysctl file. */
static int sysctl_last(const char *proc_sys, const char *name, uint32_t *out)
{
	char path[256], line[128];
	unsigned long v[3] = { 0 };
	int n;
	FILE *f;

	*out = 0;
	snprintf(path, sizeof(path), "%s/%s", proc_sys, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fgets(line, sizeof(line), f) ? sscanf(line, "%lu %lu %lu", &v[0], &v[1], &v[2]) : 0;
	fclose(f);
	if (n != 1 && n != 3)
		return -EINVAL;
	*out = v[n - 1] > UINT32_MAX ? UINT32_MAX : (uint32_t)v[n - 1];
	return 0;
}

int sockopt_tcp_buf_sysctls(const char *proc_sys, struct tcp_buf_sysctls *out)
{
	int a = sysctl_last(proc_sys, "net/ipv4/tcp_rmem", &out->tcp_rmem_max);
	int b = sysctl_last(proc_sys, "net/ipv4/tcp_wmem", &out->tcp_wmem_max);
	int c = sysctl_last(proc_sys, "net/core/rmem_max", &out->rmem_max);
	int d = sysctl_last(proc_sys, "net/core/wmem_max", &out->wmem_max);

	return a ? a : b ? b : c ? c : d;
}

int sockopt_set_mss(int fd, uint32_t mss)
{
	if (!mss)
		return 0;
	if (mss > 65535)
		return -EINVAL;
	return setint(fd, IPPROTO_TCP, TCP_MAXSEG, (int)mss);
}

int sockopt_set_dscp(int fd, int family, uint8_t dscp)
{
	if (!dscp)
		return 0;
	if (dscp > 63)
		return -EINVAL;
	if (family == AF_INET6)
		return setint(fd, IPPROTO_IPV6, IPV6_TCLASS, dscp << 2);
	return setint(fd, IPPROTO_IP, IP_TOS, dscp << 2);
}

static int family_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &l) < 0)
		return AF_UNSPEC;
	if (ss.ss_family == AF_INET6 &&
	    IN6_IS_ADDR_V4MAPPED(&((struct sockaddr_in6 *)&ss)->sin6_addr))
		return AF_INET;
	return ss.ss_family;
}

int sockopt_dont_fragment(int fd, bool on)
{
	if (family_of(fd) == AF_INET6) {
		int rc = setint(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER,
				on ? IPV6_PMTUDISC_DO : IPV6_PMTUDISC_WANT);

		return rc ? rc : setint(fd, IPPROTO_IPV6, IPV6_DONTFRAG, on);
	}
	return setint(fd, IPPROTO_IP, IP_MTU_DISCOVER, on ? IP_PMTUDISC_DO : IP_PMTUDISC_WANT);
}

uint32_t sockopt_path_mtu(int fd)
{
	int mtu = 0;
	socklen_t l = sizeof(mtu);
	bool v6 = family_of(fd) == AF_INET6;

	if (getsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_MTU : IP_MTU, &mtu, &l) < 0 ||
	    mtu <= 0)
		return 0;
	return (uint32_t)mtu;
}

unsigned sockopt_udp_overhead(int fd)
{
	return family_of(fd) == AF_INET6 ? 48 : 28;
}

void sockopt_local_ifname(int fd, char *name, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	struct ifaddrs *ifa, *i;

	name[0] = '\0';
	if (getsockname(fd, (struct sockaddr *)&ss, &l) < 0 || getifaddrs(&ifa) < 0)
		return;
	/* a dual-stack socket's IPv4 peer: the address is the IPv4 one the
	 * interface holds (RFC 4291 2.5.5.2) */
	if (ss.ss_family == AF_INET6 &&
	    IN6_IS_ADDR_V4MAPPED(&((struct sockaddr_in6 *)&ss)->sin6_addr)) {
		struct sockaddr_in v4 = { .sin_family = AF_INET };

		memcpy(&v4.sin_addr, &((struct sockaddr_in6 *)&ss)->sin6_addr.s6_addr[12], 4);
		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, &v4, sizeof(v4));
	}
	for (i = ifa; i; i = i->ifa_next) {
		const struct sockaddr *a = i->ifa_addr;

		if (!a || a->sa_family != ss.ss_family)
			continue;
		if ((a->sa_family == AF_INET &&
		     ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
			     ((struct sockaddr_in *)&ss)->sin_addr.s_addr) ||
		    (a->sa_family == AF_INET6 &&
		     !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			     &((struct sockaddr_in6 *)&ss)->sin6_addr, sizeof(struct in6_addr)))) {
			snprintf(name, len, "%s", i->ifa_name);
			break;
		}
	}
	freeifaddrs(ifa);
}

bool sockopt_udp_gso(int fd, uint16_t segsize)
{
	return !setint(fd, IPPROTO_UDP, UDP_SEGMENT, segsize);
}

bool sockopt_udp_gro(int fd)
{
	return !setint(fd, IPPROTO_UDP, UDP_GRO, 1);
}

int sockopt_rx_timestamps(int fd)
{
	return setint(fd, SOL_SOCKET, SO_TIMESTAMPNS, 1);
}

bool sockopt_rx_stamp(const void *control, size_t len, uint64_t *realtime_ns)
{
	const uint8_t *c = control;
	size_t off = 0;

	while (control && len - off >= sizeof(struct cmsghdr)) {
		struct cmsghdr h;

		memcpy(&h, c + off, sizeof(h));
		if (h.cmsg_len < CMSG_LEN(0) || h.cmsg_len > len - off)
			return false;
		if (h.cmsg_level == SOL_SOCKET && h.cmsg_type == SCM_TIMESTAMPNS &&
		    h.cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
			struct timespec ts;

			memcpy(&ts, c + off + CMSG_LEN(0), sizeof(ts));
			if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
				return false;
			*realtime_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
			return true;
		}
		off += CMSG_ALIGN(h.cmsg_len);
		if (off > len)
			return false;
	}
	return false;
}

int sockopt_rxq_ovfl(int fd)
{
	return setint(fd, SOL_SOCKET, SO_RXQ_OVFL, 1);
}

int sockopt_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	fl = on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
	return fcntl(fd, F_SETFL, fl) < 0 ? -errno : 0;
}

int sockopt_reuseaddr(int fd)
{
	return setint(fd, SOL_SOCKET, SO_REUSEADDR, 1);
}

uint32_t sockopt_udp_default_buf(unsigned streams)
{
	uint32_t share = SOCKOPT_UDP_TEST_BUF_TOTAL / (streams ? streams : 1);

	if (share > SOCKOPT_DEFAULT_BUF)
		return SOCKOPT_DEFAULT_BUF;
	return share < SOCKOPT_UDP_MIN_DEFAULT_BUF ? SOCKOPT_UDP_MIN_DEFAULT_BUF : share;
}
