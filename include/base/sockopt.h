/* SPDX-License-Identifier: MIT */
/*
 * Socket options the load engine sets and reads, each in one place so that the
 * client and the server configure their ends identically. Functions return 0
 * or a negative errno.
 */
#ifndef OVLPERF_SOCKOPT_H
#define OVLPERF_SOCKOPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Engine default for socket buffers when the spec asks for none: large enough
 * that a multi-Gbit/s UDP receiver never drops for want of buffer. */
#define SOCKOPT_DEFAULT_BUF (32u << 20)
/* What one test's UDP receive buffers may add up to by default (the kernel
 * doubles each), and the most a client may ask a server for per socket. */
#define SOCKOPT_UDP_TEST_BUF_TOTAL  (256u << 20)
#define SOCKOPT_UDP_MIN_DEFAULT_BUF (4u << 20)
#define SOCKOPT_MAX_REQUEST_BUF	    (64u << 20)

/* Linux 4.19+ (the size of a datagram's largest fragment); older glibc
 * headers lack the names. */
#ifndef IP_RECVFRAGSIZE
#define IP_RECVFRAGSIZE 25
#endif
#ifndef IPV6_RECVFRAGSIZE
#define IPV6_RECVFRAGSIZE 77
#endif

/* The UDP receive buffer of each of n streams when none is asked for:
 * SOCKOPT_DEFAULT_BUF, shared down to 4 MiB when many streams would
 * together pin more than SOCKOPT_UDP_TEST_BUF_TOTAL. */
uint32_t sockopt_udp_default_buf(unsigned streams);

/* Sets SO_SNDBUF/SO_RCVBUF to bytes (0: SOCKOPT_DEFAULT_BUF). Tries the
 * *BUFFORCE variants first (root ignores net.core.*mem_max), then the plain
 * ones. Never fails the test: a smaller buffer is logged. */
void sockopt_set_bufs(int fd, uint32_t bytes, bool snd, bool rcv);
/* Effective SO_RCVBUF (the kernel doubles requests; this is what it reports). */
uint32_t sockopt_rcvbuf(int fd);
uint32_t sockopt_sndbuf(int fd);

/* UDP sender: DF on every datagram (IP_PMTUDISC_DO, IPV6_DONTFRAG), so one
 * above the path MTU fails with EMSGSIZE; or the kernel's default
 * (IP_PMTUDISC_WANT: DF while a datagram fits, fragments when not). */
int sockopt_dont_fragment(int fd, bool on);
/* The path MTU a connected socket's route knows now (IP_MTU / IPV6_MTU:
 * the device MTU or a smaller one learned from ICMP); 0 unknown. */
uint32_t sockopt_path_mtu(int fd);
/* IP + UDP header bytes of a datagram on this socket's family (28 or 48). */
unsigned sockopt_udp_overhead(int fd);
/* The name of the interface holding the socket's local address ("" if none). */
void sockopt_local_ifname(int fd, char *name, size_t len);

/* What the engine keeps of tcp(7) TCP_INFO (both ends' in load_result.h's
 * tcp_result). */
struct tcp_info_summary {
	uint32_t retransmits; /* tcpi_total_retrans */
	uint32_t rtt_us, rttvar_us;
	uint32_t snd_mss, adv_mss, rcv_mss, pmtu;
	uint32_t snd_cwnd;
	uint32_t snd_wnd;   /* the peer's advertised receive window */
	bool snd_wnd_known; /* the kernel reports it (5.4 and later) */
	/* What limited the sender (4.19 and later, else chrono_known false):
	 * the chronographs, us, since the connection began: busy (its write
	 * queue not empty, the two below included), stalled by the peer's
	 * receive window, by its own send buffer; bytes sent and resent. */
	bool chrono_known;
	uint64_t busy_us, rwnd_limited_us, sndbuf_limited_us;
	uint64_t bytes_sent, bytes_retrans;
	uint64_t delivery_Bps;	   /* the last delivery-rate sample, bytes/s */
	bool delivery_app_limited; /* ... taken while the application held it */
	uint32_t min_rtt_us;
	uint32_t rcv_space; /* receiver: its autotuned receive space, bytes */
};

/* The TCP buffer maxima of this host's network namespace (bytes, 0 when
 * unreadable): net.ipv4.tcp_rmem/tcp_wmem's third values (autotuning's
 * ceilings) and net.core.rmem_max/wmem_max (SO_RCVBUF/SO_SNDBUF's). */
struct tcp_buf_sysctls {
	uint32_t tcp_rmem_max, tcp_wmem_max, rmem_max, wmem_max;
};
/* Reads them under proc_sys ("/proc/sys"); 0 or -errno of the first. */
int sockopt_tcp_buf_sysctls(const char *proc_sys, struct tcp_buf_sysctls *out);

/* TCP_INFO of a connected TCP socket into the engine's summary. */
int sockopt_tcp_info(int fd, struct tcp_info_summary *out);
int sockopt_set_mss(int fd, uint32_t mss);
/* IP_TOS / IPV6_TCLASS from a DSCP value (0..63). */
int sockopt_set_dscp(int fd, int family, uint8_t dscp);

/* UDP_SEGMENT per socket; false when the kernel refuses it. */
bool sockopt_udp_gso(int fd, uint16_t segsize);
/* UDP_GRO; false when the kernel refuses it. */
bool sockopt_udp_gro(int fd);
/* SO_TIMESTAMPNS: each datagram read carries the kernel's arrival time
 * (CLOCK_REALTIME), so that the reader can tell how long it waited.
 * 0 or a negative errno. */
int sockopt_rx_timestamps(int fd);
/* The SCM_TIMESTAMPNS time in a received message's control data, in ns
 * since the epoch. Walks the buffer with bounds checks (it does not trust
 * cmsg_len). false when absent or malformed. */
bool sockopt_rx_stamp(const void *control, size_t len, uint64_t *realtime_ns);
/* SO_RXQ_OVFL: each recvmsg carries the socket's drop count. */
int sockopt_rxq_ovfl(int fd);

int sockopt_nonblock(int fd, bool on);
int sockopt_reuseaddr(int fd);

#endif
