/* SPDX-License-Identifier: MIT */
/*
 * `ovlperf mtu`: path MTU and TCP MSS validation, inside and outside an
 * overlay. Layers, each its own file in src/mtu/ unless a path says otherwise:
 *
 *   mtu_search.c   pure DPLPMTUD search (RFC 8899 style) driven step by step:
 *                  which size to probe next, what a round's outcome means
 *   mtu_probe.c    the client: UDP probes with DF set over a path, each
 *                  confirmed by the far end over the control connection
 *   mtu_tcp.c      TCP MSS of a real connection on both ends
 *   mtu_check.c    tunnel relations (expected inner MTU, inferred overhead),
 *                  fragment counters, interface MTUs
 *   mtu_verdict.c  OK / WARN / FAIL per path and check, reason and fix
 *   mtu_serve.c    the server's half (mtu_serve.h)
 *   mtu_scenario.c   a scenario's checks: probe specs, roles, the run's step
 *   src/proto/mtu_wire.c   the probe messages and datagram (mtu_wire.h)
 *   src/report/report_mtu_term.c, report_mtu_json.c   printers of struct mtu_report
 *
 * Sizes are IP packet sizes (what an MTU limits): a probe of size S is a UDP
 * datagram of S - 28 (IPv4) or S - 48 (IPv6) payload bytes.
 *
 * For `ovlperf run` (the suite): mtu_scenario_run() below does all of this in
 * one call. Piece by piece, when scn->mtu.enabled, after the paths are up:
 *
 *	struct mtu_report *rep = calloc(1, sizeof(*rep));
 *	rep->npaths = scn->npaths;
 *	for (i = 0; i < scn->npaths; i++) {
 *		struct mtu_probe_spec spec;
 *		mtu_spec_from_scenario(scn, i, far_addr_of_path_i, &spec);
 *		mtu_probe_path(&spec, &rep->paths[i]);  // in the client's namespace,
 *	}                                              // server running on the far end
 *	mtu_roles_from_scenario(scn, rep);
 *	mtu_verdicts(rep);
 *	for each rep->verdicts[k]: results_mtu_check { .path =
 *		mtu_report_find_path(rep, v->path), check, level (same 0/1/2 as
 *		results_verdict), value, reason, fix }
 *
 * and print with mtu_report_print_term() or embed mtu_report_to_json().
 * A failed probe is itself a verdict (check "probe", FAIL), never a crash.
 */
#ifndef OVLPERF_MTU_H
#define OVLPERF_MTU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MTU_DEFAULT_BASE       1200
#define MTU_DEFAULT_PROBES     3
#define MTU_MAX_PROBES	       20
#define MTU_DEFAULT_TIMEOUT_NS (1000ULL * 1000000ULL)
#define MTU_MIN_SIZE	       68 /* RFC 791 */
/* The largest IP packet: IPv4 65535; IPv6 40 + 65535 (without jumbograms). */
#define MTU_MAX_SIZE_V4	 65535
#define MTU_MAX_SIZE	 65575
#define MTU_MAX_RECORDS	 64 /* search rounds kept for the report */
#define MTU_MAX_PATHS	 8
#define MTU_MAX_VERDICTS 48
#define MTU_NAME_MAX	 48
#define MTU_TEXT_MAX	 256

/* Header bytes between an IP packet and its TCP payload, without options. */
#define MTU_TCP_V4_OVERHEAD 40
#define MTU_TCP_V6_OVERHEAD 60
/* The TCP timestamp option as Linux accounts it in tcpi_snd_mss. */
#define MTU_TCP_TS_LEN 12
/* Our overlay's overhead per packet: outer IP + UDP + overlay header + tag. */
#define MTU_BUILTIN_OVERHEAD_V4 60
#define MTU_BUILTIN_OVERHEAD_V6 80

/* ---- search (pure) ------------------------------------------------------ */

struct mtu_search_cfg {
	uint32_t base;	 /* smallest size assumed to work, probed first */
	uint32_t max;	 /* largest size to try: the interface MTU */
	unsigned probes; /* probes per size and round (1..MTU_MAX_PROBES) */
};

enum mtu_search_state {
	MTU_SEARCH_BASE = 1,	/* confirming the base size */
	MTU_SEARCH_RUNNING,	/* between the confirmed size and the failed one */
	MTU_SEARCH_DONE,	/* the largest deliverable size is known */
	MTU_SEARCH_BASE_FAILED, /* not even the base size is delivered */
};

/* What the driver must do next: send count probes of size bytes. */
struct mtu_step {
	uint32_t size;
	unsigned count;
};

/* What happened to one round of probes. */
struct mtu_outcome {
	uint32_t size;
	unsigned sent;	    /* probes that left this host */
	unsigned delivered; /* probes the far end confirmed */
	bool icmp;	    /* an ICMP too-big came back for this size */
	uint32_t icmp_mtu;  /* the MTU it (or the local refusal) announced; 0: unknown */
	bool local_too_big; /* the local stack refused the size (EMSGSIZE) */
	/* Probes this host's stack refused for another reason (ENOBUFS from a
	 * device or qdisc, EPERM from a local firewall...): counted in sent and
	 * lost, like a silent drop on the path (RFC 8899 4.1: a probe that is
	 * not confirmed is lost, whatever dropped it). */
	unsigned refused;
	int refused_errno; /* the last refusal's errno (0: none) */
	bool fragmented;   /* IP fragment counters moved during the round (not
			    * used by the search; recorded for the report) */
};

/* One round, for the report. */
struct mtu_probe_record {
	uint32_t size;
	unsigned sent, delivered;
	bool icmp;
	uint32_t icmp_mtu;
	bool local_too_big;
	unsigned refused;
	int refused_errno;
	bool fragmented;
};

struct mtu_search {
	struct mtu_search_cfg cfg;
	enum mtu_search_state state;
	uint32_t lo;  /* largest confirmed size (0: none yet) */
	uint32_t hi;  /* smallest failed size (cfg.max + 1: none yet) */
	uint32_t cur; /* size being probed */
	unsigned cur_sent, cur_delivered;
	uint32_t hint;	       /* size an ICMP suggested, probed next (0: none) */
	uint32_t verify_above; /* after a hinted size is confirmed: probe it + 1 */
	bool loss_seen;	       /* probes were lost at a size that was delivered */
	bool icmp_seen;
	uint32_t icmp_mtu_min;	  /* smallest MTU an ICMP announced (0: none) */
	unsigned silent_failures; /* failed sizes with no ICMP and no local refusal */
	unsigned icmp_failures;	  /* failed sizes with an ICMP */
	unsigned rounds, probes_sent, probes_delivered;
	unsigned probes_refused;
	int refused_errno;
	unsigned nrecords;
	struct mtu_probe_record records[MTU_MAX_RECORDS];
};

struct mtu_search_result {
	enum mtu_search_state state; /* DONE or BASE_FAILED (or unfinished) */
	uint32_t pmtu;		     /* largest confirmed size (0: none) */
	uint32_t smallest_failed;    /* 0: every size up to max was delivered */
	bool reached_max;	     /* pmtu == cfg.max */
	bool icmp_seen;
	uint32_t icmp_mtu; /* smallest announced (0: none) */
	/* Sizes above pmtu were neither delivered nor answered by ICMP. */
	bool blackhole;
	bool loss_seen;
	unsigned rounds, probes_sent, probes_delivered;
	unsigned probes_refused;   /* of probes_sent: refused by this host's stack */
	int refused_errno;	   /* the last refusal's errno (0: none) */
	uint32_t smallest_refused; /* smallest size with a refused probe (0: none) */
};

/* cfg is checked and clamped: base in [MTU_MIN_SIZE, max], probes in
 * [1, MTU_MAX_PROBES]. Returns false when max < MTU_MIN_SIZE. */
bool mtu_search_init(struct mtu_search *s, const struct mtu_search_cfg *cfg);
/* The next round to send; false when the search is over. */
bool mtu_search_next(const struct mtu_search *s, struct mtu_step *step);
/* Feeds the outcome of the round mtu_search_next() asked for (an outcome for
 * another size is ignored). */
void mtu_search_feed(struct mtu_search *s, const struct mtu_outcome *o);
void mtu_search_result(const struct mtu_search *s, struct mtu_search_result *r);
const char *mtu_search_state_name(enum mtu_search_state st);

/* ---- measurement -------------------------------------------------------- */

struct mtu_probe_spec {
	char name[MTU_NAME_MAX]; /* label in reports: "underlay", "overlay" ... */
	char host[256];		 /* the far end's `ovlperf server` */
	uint16_t port;		 /* 0: LOAD_DEFAULT_PORT */
	int family;		 /* AF_UNSPEC, AF_INET, AF_INET6 */
	uint32_t base;		 /* 0: MTU_DEFAULT_BASE */
	uint32_t max;		 /* 0: the interface MTU */
	unsigned probes;	 /* 0: MTU_DEFAULT_PROBES */
	uint64_t timeout_ns;	 /* longest wait for a round; 0: default */
	bool tcp_mss;		 /* run the TCP MSS check */
	uint16_t cport;		 /* source port of the probes and the MSS check; 0: any */
	bool fragments;		 /* watch the IP fragment counters */
	char psk_file[256];
	uint32_t expect_mtu, expect_mss; /* 0: unknown */
};

void mtu_probe_spec_defaults(struct mtu_probe_spec *spec);

struct mtu_tcp_end {
	bool valid;
	uint32_t snd_mss, adv_mss, rcv_mss, pmtu;
};

struct mtu_tcp_result {
	bool run;	 /* the check was attempted */
	bool completed;	 /* the transfer finished both ways */
	bool timestamps; /* the connection uses TCP timestamps */
	int family;	 /* AF_INET or AF_INET6 */
	uint64_t bytes_sent, bytes_acked, bytes_received;
	struct mtu_tcp_end client_initial; /* right after connect */
	struct mtu_tcp_end client;	   /* after the transfer */
	struct mtu_tcp_end server;	   /* after the transfer */
	uint32_t syn_arrived; /* MSS option of the client's SYN at the server (0: unknown) */
	char error[MTU_TEXT_MAX];
};

/* The MSS in both of its units (RFC 6691): the option value the SYNs carry,
 * which is what a clamp sets and users configure (MTU - 40 on IPv4, - 60 on
 * IPv6), and the payload per full segment, which is the option value minus
 * the TCP options in use (12 bytes of timestamps on Linux by default). Linux
 * reports both ends' tcpi_advmss and tcpi_snd_mss net of the timestamps once
 * they are agreed, so the option values are derived by adding them back. */
enum mtu_mss_clamp {
	MTU_MSS_NOT_CLAMPED = 0, /* the client's own value (its route's MTU) */
	MTU_MSS_CLAMPED_ON_PATH, /* a SYN's option shrank on the way */
	MTU_MSS_FAR_END,	 /* the far end advertised the smaller value */
};

struct mtu_mss {
	bool valid;
	uint32_t option;      /* negotiated: the smaller SYN option as it arrived */
	uint32_t payload;     /* payload bytes per full segment that option allows */
	uint32_t options_len; /* TCP option bytes per segment (12 with timestamps) */
	uint32_t syn_sent;    /* the client's SYN as it left */
	uint32_t syn_arrived; /* ... as it arrived at the server (0: unknown) */
	uint32_t synack_sent; /* the server's SYN-ACK as it left (0: unknown) */
	enum mtu_mss_clamp clamp;
};

/* Derives the MSS figures of a measured connection (pure). */
void mtu_tcp_mss(const struct mtu_tcp_result *t, struct mtu_mss *out);

struct mtu_frag_counters {
	uint64_t reasm_reqds;  /* fragments received for reassembly */
	uint64_t frag_creates; /* fragments this host created */
};

/* One round WITHOUT DF at the interface MTU, after a search that found the
 * path narrower: what the path does with traffic that may be fragmented. */
struct mtu_nodf {
	bool run;
	uint32_t size;
	unsigned sent, delivered;
	unsigned refused;	     /* not sent: this host's stack refused them */
	unsigned reassembled;	     /* arrived in IP fragments at the far end */
	uint64_t local_frag_creates; /* fragments this host made meanwhile */
	uint64_t remote_reasm_reqds; /* fragments the far end received meanwhile */
};

struct mtu_path_result {
	struct mtu_probe_spec spec;
	int status; /* 0 or a negative errno */
	char error[MTU_TEXT_MAX];
	int family; /* of the probes */
	char local_addr[64], remote_addr[64];
	char ifname[32];	/* local interface toward the far end */
	uint32_t if_mtu;	/* its MTU */
	uint32_t server_if_mtu; /* the far end's (0: unknown) */
	struct mtu_search_result search;
	unsigned nrecords;
	struct mtu_probe_record records[MTU_MAX_RECORDS];
	bool frag_valid;
	uint64_t local_frag_creates, local_reasm_reqds; /* deltas over the probes */
	uint64_t remote_frag_creates, remote_reasm_reqds;
	unsigned reassembled; /* probes the far end received in fragments */
	/* When DF probes got through only because something (a tunnel ignoring
	 * DF) fragmented the packets carrying them: a second search that counts
	 * a fragmented round as a failure finds what fits unfragmented. */
	bool fragmenting;		 /* some delivered round was fragmented */
	struct mtu_search_result nofrag; /* valid when fragmenting */
	struct mtu_nodf nodf;
	struct mtu_tcp_result tcp;
	double duration_s;
};

/* Probes one path against an `ovlperf server`. Returns 0 or a negative
 * errno with a sentence in res->error; polls interrupt_requested(). */
int mtu_probe_path(const struct mtu_probe_spec *spec, struct mtu_path_result *res);

/* The TCP MSS check inside an open MTU session (mtu_probe.c calls it): a
 * connection to peer (the server's TCP port from READY), a transfer both ways
 * bounded by timeout_ns, TCP_INFO of this end, TCP_QUERY for the server's.
 * A transfer that stalls is a result (completed = false), not an error.
 * greet: the connection starts with a probe header carrying token (the
 * server's one port tells it by that, MTU_WIRE_F_ONE_PORT); cport: its
 * source port (0: any).
 * Returns 0, or a negative errno when the control session broke. */
struct ctrl;
struct sockaddr_storage;
int mtu_tcp_check(struct ctrl *c, const struct sockaddr_storage *peer, uint64_t timeout_ns,
		  bool greet, uint64_t token, uint16_t cport, struct mtu_tcp_result *res);
/* Binds fd to the wildcard address of its family and port (the source
 * port asked with --cport). 0 or -errno (-EADDRINUSE: in use). */
int mtu_bind_port(int fd, int family, uint16_t port);

/* Expected tcpi_snd_mss on a path of MTU pmtu: pmtu - 40 (IPv4) / 60 (IPv6),
 * minus 12 with timestamps (1448 on 1500). */
uint32_t mtu_expected_snd_mss(uint32_t pmtu, int family, bool timestamps);
/* The MSS to clamp to (the SYN option value): pmtu - 40 / 60. */
uint32_t mtu_expected_adv_mss(uint32_t pmtu, int family);

/* The largest size a path carries without fragmenting anything: the second
 * search's answer when the first one saw fragments, else the path MTU (0:
 * unknown). */
uint32_t mtu_path_unfragmented(const struct mtu_path_result *p);

/* The calling thread's namespace's IP fragment counters, IPv4 and IPv6
 * added: an overlay may carry probes of one family in outer packets of the
 * other, and it is the outer packets that fragment. */
int mtu_frag_counters_read(struct mtu_frag_counters *out);
/* MTU of the interface that carries a connected socket's traffic (0: unknown);
 * ifname (may be NULL) receives the interface name. */
uint32_t mtu_socket_if_mtu(int fd, char *ifname, size_t ifname_len);
/* The same for the local end of a connected socket (the server's view). */
uint32_t mtu_local_if_mtu(int fd);

/* ---- tunnel relations and verdicts (pure) -------------------------------- */

enum mtu_path_kind {
	MTU_PATH_PLAIN = 0, /* a path on its own (no overlay relation) */
	MTU_PATH_UNDERLAY,
	MTU_PATH_BUILTIN,  /* our overlay over roles[].underlay */
	MTU_PATH_EXTERNAL, /* someone's overlay over roles[].underlay */
};

struct mtu_path_role {
	enum mtu_path_kind kind;
	int underlay;	      /* index of the underlay path, -1: none probed */
	int underlay_family;  /* builtin: AF_INET or AF_INET6 outer packets
			       * (0: the underlay path's family) */
	uint32_t overlay_mtu; /* the overlay interface's configured MTU (0: if_mtu) */
};

/* What the overlay and underlay probes say about each other. */
struct mtu_tunnel {
	bool valid;
	unsigned overlay, underlay; /* path indexes */
	uint32_t underlay_pmtu, overlay_pmtu;
	uint32_t overhead_expected; /* builtin: 60 / 80; external: 0 */
	int32_t overhead_inferred;  /* underlay_pmtu - overlay_pmtu */
	uint32_t inner_expected;    /* the overlay MTU that fits the underlay */
	uint32_t overlay_if_mtu;
};

enum mtu_level { MTU_OK = 0, MTU_WARN = 1, MTU_FAIL = 2 };

struct mtu_verdict {
	char path[MTU_NAME_MAX];
	char check[24]; /* "pmtu", "blackhole", "mss", "fragments", "tunnel", "expect" */
	enum mtu_level level;
	uint32_t value; /* the figure judged (MTU, MSS, overhead ...); 0: none */
	char reason[MTU_TEXT_MAX];
	char fix[MTU_TEXT_MAX]; /* "" when there is nothing to do */
};

struct mtu_report {
	unsigned npaths;
	struct mtu_path_result paths[MTU_MAX_PATHS];
	struct mtu_path_role roles[MTU_MAX_PATHS];
	struct mtu_tunnel tunnels[MTU_MAX_PATHS]; /* per overlay path */
	unsigned nverdicts;
	struct mtu_verdict verdicts[MTU_MAX_VERDICTS];
};

/* Fills rep->tunnels from the paths and roles. */
void mtu_check_tunnels(struct mtu_report *rep);
/* Fills rep->tunnels (mtu_check_tunnels) and rep->verdicts. */
void mtu_verdicts(struct mtu_report *rep);
/* The worst level of all verdicts (MTU_OK when there are none). */
enum mtu_level mtu_report_worst(const struct mtu_report *rep);
const char *mtu_level_name(enum mtu_level level);
const char *mtu_path_kind_name(enum mtu_path_kind kind);

/* ---- scenarios (pure; for `ovlperf run`) ---------------------------------- */

struct scenario;
/* The probe spec of scenario path i: name = the path's name, host = far_addr
 * (the far end's address the suite uses for that path's loads), family,
 * port/psk of its [host.*], base/max/probes/timeout/mss/fragments from
 * [mtu], expect_mtu/expect_mss from the path. */
void mtu_spec_from_scenario(const struct scenario *scn, unsigned i, const char *far_addr,
			    struct mtu_probe_spec *spec);
/* rep->roles[] for the scenario's paths, index for index: builtin and
 * external paths ride on the underlay path of the same link (lab) or host
 * (remote), preferring the outer family; builtin takes its configured MTU. */
void mtu_roles_from_scenario(const struct scenario *scn, struct mtu_report *rep);
/* Index of the path named name in rep, or -1 (verdicts name paths). */
int mtu_report_find_path(const struct mtu_report *rep, const char *name);

/* The whole MTU step of `ovlperf run` in one call (src/mtu/mtu_scenario.c): when
 * scn->mtu.enabled, probes every path i at far_addr[i] from the calling
 * thread's namespace (the client's; servers running), judges, and appends
 * every verdict to run->mtu (results_add_mtu; run may be NULL). *out (may be
 * NULL) receives the report for printing, freed by the caller with free().
 * Returns the worst level (MTU_OK/WARN/FAIL, 0 when [mtu] is off) or a
 * negative errno (-EINTR, -ENOMEM). A path that cannot be probed is a FAIL
 * verdict ("probe"), not an error. */
struct results_run;
int mtu_scenario_run(const struct scenario *scn, const char *const far_addr[],
		     struct results_run *run, struct mtu_report **out);

/* ---- printers ------------------------------------------------------------ */

void mtu_report_print_term(FILE *f, const struct mtu_report *rep);
/* A cJSON object (schema in docs: "mtu" section of run.json); caller frees
 * with cJSON_Delete. NULL on allocation failure. */
struct cJSON;
struct cJSON *mtu_report_to_json(const struct mtu_report *rep);
/* Prints the JSON document to f. 0 or -ENOMEM/-EIO. */
int mtu_report_print_json(FILE *f, const struct mtu_report *rep);

#endif
