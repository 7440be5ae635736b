/* SPDX-License-Identifier: MIT */
/*
 * Scenario files: what `ovlperf run` compares, as an INI file (libinih).
 * Every section, key, default and unit is in docs/scenarios.md; the key
 * tables are in src/scenario/scenario_keys.c and the checks that need the
 * whole file in src/scenario/scenario_validate.c. Change the three together.
 *
 * The contract: scenario_load() fills a plain struct with fixed limits and
 * touches nothing outside the file (no network, no namespace). In a
 * scenario it accepts every reference is resolved (a path's link or host),
 * the defaults that depend on other sections are applied (durations,
 * enabled flags), a lab's addresses lie in the benchmarking ranges, and a
 * field left 0 means what its comment below says. It reports every
 * problem, not only the first, each naming file, line, section and key:
 *   scenarios/x.ini:12: [udp] sizes: '46,abc' is not a list of sizes
 */
#ifndef OVLPERF_SCENARIO_H
#define OVLPERF_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lab.h"

#define SCN_NAME_MAX		32  /* section name suffixes and [scenario] name, with NUL */
#define SCN_TEXT_MAX		256 /* description, addresses, file names */
#define SCN_CMD_MAX		256 /* setup / teardown commands */
#define SCN_MAX_PATHS		8
#define SCN_MAX_HOSTS		8   /* [host.*] sections */
#define SCN_MAX_LIST		16  /* stream counts, datagram sizes */
#define SCN_LINE_MAX		196 /* libinih's line buffer, less CR LF NUL */
#define SCN_DEFAULT_REPETITIONS 3
#define SCN_DEFAULT_DURATION_NS (10ULL * 1000000000ULL)
#define SCN_DURATION_MAX_NS	(24ULL * 3600 * 1000000000ULL) /* longer is a typo */
#define SCN_DEFAULT_UDP_LEN	1400
#define SCN_MAX_DELAY_LOADS	8   /* [udp] delay_loads */
#define SCN_UDP_SIZE_FIT	0   /* [udp] sizes = fit */
#define SCN_SWEEP_MAX_POINTS	200 /* linear sweep rows per path and size */

enum scenario_path_type {
	SCN_PATH_UNDERLAY = 1, /* the hosts' plain addresses */
	SCN_PATH_BUILTIN = 2,  /* ovlperf's own overlay, started by the run */
	SCN_PATH_EXTERNAL = 3, /* a VPN the user runs: the far end's overlay address */
};

struct scenario_link {
	char name[SCN_NAME_MAX]; /* "" for the implicit link of [lab] */
	unsigned line;		 /* line of its section header (0: implicit) */
	unsigned a, b;		 /* host indexes */
	uint32_t mtu;		 /* 0: 1500 */
	uint64_t rate_bps;	 /* 0: unshaped */
	double drop_pct;	 /* percent, 0..100 */
	bool block_icmp;
	enum layer rate_layer; /* LAYER_FRAME, LAYER_LINE (Ethernet), else the
				* kernel's count (lab.h) */
	struct link_conf cond; /* delay, jitter, loss, loss_burst, reorder */
};

struct scenario_lab {
	unsigned line; /* line of [lab] (0: implicit default lab) */
	char name[LAB_NAME_MAX + 1];
	unsigned hosts;		 /* 2..LAB_MAX_HOSTS */
	unsigned client, server; /* host indexes: the loads run client -> server */
	enum lab_means means;	 /* link_means: how the links' conditions are made */
	uint32_t tcp_rmem_max;	 /* every host's net.ipv4.tcp_rmem maximum; 0: the kernel's */
	uint32_t tcp_wmem_max;	 /* ... tcp_wmem's */
	unsigned cpus_hosts;	 /* cpus: lists given (0: none; lab_spec's cpus) */
	char cpus[LAB_MAX_HOSTS][LAB_CPUS_MAX];
	unsigned nlinks;
	struct scenario_link links[LAB_MAX_LINKS];
};

struct scenario_host {
	char name[SCN_NAME_MAX];
	unsigned line;
	char address[SCN_TEXT_MAX];
	uint16_t port;		     /* 0: LOAD_DEFAULT_PORT */
	uint16_t cport;		     /* source port of the data streams (--cport); 0: any */
	char psk_file[SCN_TEXT_MAX]; /* "": no authentication */
};

struct scenario_path {
	char name[SCN_NAME_MAX];
	unsigned line;
	enum scenario_path_type type;
	int family;		    /* AF_INET or AF_INET6: the test traffic */
	unsigned link;		    /* lab: index into lab.links */
	unsigned host;		    /* remote: index into hosts[] */
	char address[SCN_TEXT_MAX]; /* "" unless given (see the schema) */
	uint16_t port;		    /* 0: the host's / LOAD_DEFAULT_PORT */
	char setup[SCN_CMD_MAX];    /* external: "" when none */
	char teardown[SCN_CMD_MAX];
	uint32_t mtu;		   /* builtin: 0 = underlay MTU minus overhead */
	char cipher[SCN_NAME_MAX]; /* builtin: "" = auto */
	int underlay_family;	   /* builtin: AF_INET or AF_INET6 */
	/* builtin between [host.*] hosts: the overlay's subnets (overlay.h),
	 * "" = the server's defaults */
	char overlay_subnets[SCN_TEXT_MAX];
	uint32_t expect_mtu; /* 0: unknown */
	uint32_t expect_mss; /* 0: unknown */
	/* external: the VPN's process whose CPU each trial reads, a name
	 * (comm or argv[0]'s base name) or a pid file's absolute path; "":
	 * none */
	char process[SCN_TEXT_MAX];
};

struct scenario_tcp {
	bool enabled;
	unsigned line;
	unsigned nstreams;
	unsigned streams[SCN_MAX_LIST]; /* stream counts, in file order */
	uint64_t duration_ns;
	uint32_t len; /* 0: LOAD_TCP_DEFAULT_LEN */
	uint32_t mss; /* 0: the kernel's */
	bool reverse;
};

struct scenario_udp {
	bool enabled;
	unsigned line;
	unsigned nsizes;
	/* Payload bytes, in file order; SCN_UDP_SIZE_FIT (`sizes = fit`): the
	 * largest payload that crosses every path unfragmented, found by the
	 * run from each path's path MTU. */
	uint32_t sizes[SCN_MAX_LIST];
	uint64_t duration_ns;
	uint64_t rate_bps; /* fixed-rate trial; 0: chosen by the suite */
	/* size_layer: the layer the file stated sizes at (layer.h); sizes[]
	 * holds their payloads after validation, size_given[] what the file
	 * said. rate_layer: the layer rate counts. family: the IP family the
	 * layers count headers for, every path's (AF_INET without layers). */
	enum layer size_layer, rate_layer;
	uint32_t size_given[SCN_MAX_LIST];
	int family;
	/* The delay trials' loads without a rate: percent of the lowest NDR
	 * (else PDR) any path reached, in file order, each above 0 and at most
	 * 100, no two alike; 50 and 90 when not given. */
	double delay_loads_pct[SCN_MAX_DELAY_LOADS];
	unsigned ndelay_loads;
};

struct scenario_sweep {
	bool enabled;
	unsigned line;
	uint64_t from_bps, to_bps, step_bps;
	uint64_t duration_ns;  /* per trial */
	enum layer rate_layer; /* the rates count this layer (layer.h) */
};

struct scenario_knee {
	bool enabled;
	unsigned line;
	uint64_t min_rate_bps, max_rate_bps;
	double loss_goal;  /* ratio: 0.005 = 0.5 % (the file says percent) */
	double width_goal; /* ratio: 0.01 = 1 % */
	uint64_t short_ns, final_ns;
	double exceed_ratio;	  /* RFC 9971: ratio, 0.5 = 50 % */
	uint64_t duration_sum_ns; /* 0: three final trials */
	unsigned max_trials;
	unsigned fit_trials;   /* at a soft knee, once the goals are done */
	uint64_t max_time_ns;  /* a search's own time; 0: 60 final trials' */
	enum layer rate_layer; /* min_rate and max_rate count this layer */
};

struct scenario_mtu {
	bool enabled;
	unsigned line;
	uint32_t base;	     /* smallest size assumed to work (1200, 576, 68) */
	uint32_t max;	     /* largest probe; 0: the interface MTU */
	unsigned probes;     /* probes per size */
	uint64_t timeout_ns; /* per probe */
	bool mss;	     /* check TCP MSS too */
	bool fragments;	     /* watch IP fragment counters */
};

struct scenario {
	char file[SCN_TEXT_MAX]; /* as given to scenario_load() */
	char name[SCN_NAME_MAX];
	char description[SCN_TEXT_MAX];
	unsigned repetitions;
	uint64_t duration_ns; /* default for [tcp] / [udp] durations */
	uint64_t omit_ns;
	bool interleave;

	bool is_lab; /* true: lab; false: hosts[] */
	struct scenario_lab lab;
	unsigned nhosts;
	struct scenario_host hosts[SCN_MAX_HOSTS];

	unsigned npaths;
	struct scenario_path paths[SCN_MAX_PATHS]; /* in file order */

	struct scenario_tcp tcp;
	struct scenario_udp udp;
	struct scenario_sweep sweep;
	struct scenario_knee knee;
	struct scenario_mtu mtu;
};

/* Sets every field to its default (a two-host lab, no paths, nothing enabled). */
void scenario_defaults(struct scenario *scn);

/* Parses and validates a scenario file. Returns 0, -EINVAL when the file is
 * malformed or contradictory, or -errno when it cannot be read. On error,
 * err receives every problem found, one per line, each as
 * "FILE:LINE: [SECTION] KEY: what is wrong" (truncated to errlen). */
int scenario_load(const char *file, struct scenario *scn, char *err, size_t errlen);

/* The same on text in memory; name is the file name used in messages.
 * The text need not be NUL-terminated: len bytes are read. */
int scenario_parse(const char *name, const char *text, size_t len, struct scenario *scn, char *err,
		   size_t errlen);

/* Checks that a lab scenario only ever targets the benchmarking ranges
 * 198.18.0.0/15 and 2001:2::/48 (every explicit path address). Returns 0 or
 * -EINVAL with a sentence in err. A remote scenario passes. scenario_load()
 * already applies it; `ovlperf run` calls it again right before sending. */
int scenario_check_lab_targets(const struct scenario *scn, char *err, size_t errlen);

/* Whether a numeric address lies in 198.18.0.0/15 or 2001:2::/48. */
bool scenario_addr_is_benchmark(const char *addr);

/* The lab to build for a lab scenario (name, hosts, links). */
void scenario_lab_spec(const struct scenario *scn, struct lab_spec *spec);

/* Index of a path by name, or -1. */
/* bps at layer l (the scenario's [udp] family) for datagrams of len
 * payload bytes, as the payload bit rate that sends the datagrams that fit
 * in it (layer_rate(): rounded down to whole datagrams a second); 0 stays 0.
 * Validation made sure every rate the file gives is at least one datagram
 * a second at every size. */
uint64_t scenario_rate_payload(const struct scenario *scn, enum layer l, uint64_t bps,
			       uint32_t len);

int scenario_find_path(const struct scenario *scn, const char *name);

const char *scenario_path_type_name(enum scenario_path_type type);

/* value.h's readers with a scenario's bounds (durations up to
 * SCN_DURATION_MAX_NS). Each returns false on anything but a whole, in-range
 * value. */
bool scenario_parse_duration(const char *s, uint64_t *ns); /* "500ms", "10s", "2m", "10" */
bool scenario_parse_bool(const char *s, bool *v);
bool scenario_parse_percent(const char *s, double *pct); /* "0.5", "0.5%" -> 0.5 */
bool scenario_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v);
/* "1,5,10": up to max values each in [min, lim]; returns false when empty. */
bool scenario_parse_list(const char *s, uint64_t min, uint64_t lim, uint64_t *vals, unsigned max,
			 unsigned *n);

#endif
